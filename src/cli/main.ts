#!/usr/bin/env node
// The executable (and the bundle's entry): everything testable lives in program.ts.
import { main } from './program.js';

process.exitCode = await main(process.argv.slice(2));
