#!/usr/bin/env node
// The executable: everything testable lives in program.ts.
import module from 'node:module';

// Node 22+ can keep compiled bytecode between runs; a CLI that starts often gains from it.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const { runCli } = await import('./entry.js');
process.exitCode = await runCli(process.argv.slice(2));
