#!/usr/bin/env node
// The executable: everything testable lives in program.ts.
import { main } from './program.js';

process.exitCode = await main(process.argv.slice(2));
