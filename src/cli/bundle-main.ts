/** Entry point of the single-file bundle (scripts/build-bundle.mjs). */
import { start } from './start.js';

process.exitCode = await start(process.argv.slice(2));
