/**
 * A file replaced by a whole new one without flushing it: written under a temporary name beside
 * it, then renamed over it. For data that is checked when read (the cache's entries), where a
 * torn or missing file is a miss: neither fsync nor the old file's owner and mode matter there.
 * Hand-written rather than write-file-atomic (atomic-write.ts, for files people keep), which
 * loads worker_threads for its temporary names: 10 ms of a cold render of the corpus (CPU profile).
 */
import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Temporary names end so; the stores trim one a killed run left as they trim their entries. */
export const TEMPORARY_SUFFIX = '.tmp';

/** A hidden name beside `file`, new to this call. */
function temporaryName(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}${TEMPORARY_SUFFIX}`);
}

export async function replaceFileUnflushed(file: string, data: string | Uint8Array): Promise<void> {
  const tmp = temporaryName(file);
  try {
    await writeFile(tmp, data, { flag: 'wx' });
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}
