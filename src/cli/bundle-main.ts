/** Entry point of the single-file bundle (scripts/build-bundle.mjs). */
import module from 'node:module';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const { main } = await import('./program.js');
process.exitCode = await main(process.argv.slice(2));
