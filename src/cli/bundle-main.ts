/** Entry point of the single-file bundle (scripts/build-bundle.mjs). */
import module from 'node:module';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const { runCli } = await import('./entry.js');
process.exitCode = await runCli(process.argv.slice(2));
