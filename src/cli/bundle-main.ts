/**
 * Entry point of the bundles (scripts/build-bundle.mjs): the package's bin (code-split,
 * dist/cli/capi-gitops.mjs) and the single-file dist/capi-gitops.mjs. The build writes their
 * shebang; main.ts is the entry of the compiled modules.
 */
import { start } from './start.js';

process.exitCode = await start(process.argv.slice(2), async (argv) => (await import('./entry.js')).runCli(argv));
