/**
 * Entry point of the single-file bundle (scripts/build-bundle.mjs). One file must also serve as
 * the YAML parse worker, so a worker started with PARSE_WORKER_DATA runs the worker code
 * instead of the CLI.
 */
import module from 'node:module';
import { isMainThread, workerData } from 'node:worker_threads';
import { setParseWorkerScript } from '../yaml/parse-worker-script.js';

const PARSE_WORKER_DATA = 'capi-gitops-parse-worker';

if (!isMainThread && workerData === PARSE_WORKER_DATA) {
  await import('../yaml/parse-worker.js');
} else {
  (module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  setParseWorkerScript(new URL(import.meta.url), PARSE_WORKER_DATA);
  const { runCli } = await import('./entry.js');
  process.exitCode = await runCli(process.argv.slice(2));
}
