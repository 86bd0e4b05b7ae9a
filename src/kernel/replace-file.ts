/**
 * A file replaced by a whole new one without flushing it: written under a temporary name beside
 * it, then renamed over it. For data that is checked when read (the cache's entries), where a
 * torn or missing file is a miss: neither fsync nor the old file's owner and mode matter there.
 * Hand-written rather than write-file-atomic (atomic-write.ts, for files people keep), which loads
 * worker_threads for its temporary names: 10 ms of a cold render of the corpus (CPU profile).
 */
import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';

/** Temporary names end so; the cache trims one left by a killed run as it trims its entries. */
export const TEMPORARY_SUFFIX = '.tmp';

export async function replaceFileUnflushed(file: string, data: string | Uint8Array): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}${TEMPORARY_SUFFIX}`;
  try {
    await writeFile(tmp, data, { flag: 'wx' });
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}
