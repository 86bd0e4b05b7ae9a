#!/usr/bin/env node
// The executable: everything testable lives in program.ts.
import { start } from './start.js';

process.exitCode = await start(process.argv.slice(2), async (argv) => (await import('./entry.js')).runCli(argv));
