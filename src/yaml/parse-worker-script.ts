/**
 * The script a parse worker runs: parse-worker.js beside this module, unless the single-file
 * bundle names itself. Apart from parse-pool.ts so that the bundle's entry can set it without
 * loading the parser at start-up.
 */
let workerScript: { url: URL; workerData?: unknown } = { url: new URL('./parse-worker.js', import.meta.url) };

/** For the single-file bundle (src/cli/bundle-main.ts), which starts itself as the worker. */
export function setParseWorkerScript(url: URL, workerData: unknown): void {
  workerScript = { url, workerData };
}

export function parseWorkerScript(): { url: URL; workerData?: unknown } {
  return workerScript;
}
