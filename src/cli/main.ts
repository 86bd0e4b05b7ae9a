#!/usr/bin/env node
// The executable (and the bundle's entry): everything testable lives in program.ts.
import { withStdoutFailure } from './output.js';
import { main } from './program.js';

process.exitCode = withStdoutFailure(await main(process.argv.slice(2)));
