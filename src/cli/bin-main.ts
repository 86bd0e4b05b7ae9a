/**
 * Entry point of the package's bin (scripts/build-bundle.mjs writes it to dist/cli/capi-gitops.mjs,
 * with its shebang): help and version as every entry answers them (start.ts), anything else by the
 * command bundle beside it, run through V8's code cache (code-cache.ts). Only meaningful bundled.
 */
import { fileURLToPath } from 'node:url';
import { start } from './start.js';

declare const CAPI_GITOPS_BUILD_ID: string;

/** The command bundle the build writes beside the bin's chunks (its import.meta paths resolve as theirs). */
const COMMAND_BUNDLE = fileURLToPath(new URL('./chunks/capi-gitops-commands.cjs', import.meta.url));

process.exitCode = await start(process.argv.slice(2), async (argv) => {
  const { runCompiledCli } = await import('./code-cache.js');
  return runCompiledCli(COMMAND_BUNDLE, CAPI_GITOPS_BUILD_ID, argv);
});
