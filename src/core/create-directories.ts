import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { errorCode } from './error-code.js';

/**
 * `mkdir -p` for a path the user gave. Node's `mkdir(…, { recursive: true })` retries for ever
 * where mkdir answers ENOENT below a directory that exists (procfs, sysfs: `--cache-dir
 * /proc/x` spun a CPU until killed, on Node 20, 22 and 24); here each missing directory is made
 * once, from the deepest one that exists down, and its error is the caller's.
 */
export async function createDirectories(dir: string, mode?: number): Promise<void> {
  const missing: string[] = [];
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const found = await stat(at).then(
      (s) => s,
      (err: unknown) => {
        if (errorCode(err) !== 'ENOENT' && errorCode(err) !== 'ENOTDIR') throw err;
        return undefined;
      },
    );
    if (found !== undefined || path.dirname(at) === at) break;
    missing.push(at);
  }
  if (missing.length === 0) {
    // a file where the directory should be: mkdir tells it (EEXIST) as the recursive one does
    if (!(await stat(dir)).isDirectory()) await mkdir(dir);
    return;
  }
  for (const each of missing.reverse()) {
    await mkdir(each, mode === undefined ? {} : { mode }).catch(async (err: unknown) => {
      // made meanwhile by another run
      if (errorCode(err) !== 'EEXIST' || !(await stat(each)).isDirectory()) throw err;
    });
  }
}
