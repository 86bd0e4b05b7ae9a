/**
 * Files replaced together: each new text is written (and flushed) to a temporary name in the
 * scratch directory beside its file (core/scratch-directory.ts: ignored by Git), then all are
 * renamed into place in one step. `update` commits its manifest edits and the lockfile this way,
 * and a render commits the lockfile right after the output's swap. A signal before the commit
 * removes the temporary files; a commit that has begun runs to its end first (core/interrupt.ts).
 */
import { chmod, chown, open, readFile, realpath, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { onInterrupt, recordCommitted, throwIfInterrupted } from './interrupt.js';
import { inScratchDirectory, removeLeftoverFiles, removeScratchDirectoryIfEmpty, scratchName } from './scratch-directory.js';

/** A file written to a temporary name, to be renamed over its destination by `commit` or removed by `abort`. */
export interface PreparedFile {
  readonly file: string;
  commit(): Promise<void>;
  abort(): Promise<void>;
  /** After `commit`: the file as it was before (removed when there was none), for a commit of several that failed after it. */
  restore(): Promise<void>;
}

/**
 * Writes `data` to a temporary file for `given`, with the mode (and, where this process may set
 * it, the owner and group) of the file it replaces. Leftovers of killed runs for the same file
 * are removed first.
 */
export async function prepareFile(given: string, data: string | Uint8Array): Promise<PreparedFile> {
  // A symlinked file is replaced where it points, as write-file-atomic does; the link stays.
  const file = await realpath(given).catch(() => given);
  const dir = path.dirname(file);
  await removeLeftoverFiles(dir, path.basename(file));
  const previous = await stat(file).catch(() => undefined);
  // what `restore` puts back: manifests and lockfiles are small (64 MiB at most)
  const before = previous?.isFile() ? await readFile(file) : undefined;
  let temporary: string | undefined;
  const removeTemporary = async () => {
    if (temporary !== undefined) await unlink(temporary).catch(() => undefined);
    temporary = undefined;
    await removeScratchDirectoryIfEmpty(dir);
  };
  const withdraw = onInterrupt(removeTemporary);
  try {
    await inScratchDirectory(dir, async (scratch) => {
      temporary = path.join(scratch, scratchName(path.basename(file), 'tmp'));
      const handle = await open(temporary, 'wx');
      try {
        await handle.writeFile(data);
        await handle.sync();
      } finally {
        await handle.close();
      }
    });
    if (previous) {
      if (previous.uid !== process.getuid?.() || previous.gid !== process.getgid?.())
        await chown(temporary!, previous.uid, previous.gid).catch(() => undefined);
      await chmod(temporary!, previous.mode & 0o7777);
    }
  } catch (err) {
    withdraw();
    await removeTemporary();
    throw err;
  }
  return {
    file: given,
    commit: async () => {
      try {
        await rename(temporary!, file);
        temporary = undefined;
      } finally {
        withdraw();
        await removeTemporary();
      }
    },
    abort: async () => {
      withdraw();
      await removeTemporary();
    },
    restore: async () => {
      if (before === undefined) await unlink(file).catch(() => undefined);
      else await (await prepareFile(file, before)).commit();
    },
  };
}

/**
 * Renames every prepared file into place, in order; refused (and all removed) once a signal has
 * come, and not interrupted once begun. A rename that fails puts back the files renamed before
 * it (update's manifest edits before a lockfile an editor holds on Windows): all or none.
 */
export async function commitTogether(files: readonly PreparedFile[]): Promise<void> {
  try {
    throwIfInterrupted();
  } catch (err) {
    await abortAll(files);
    throw err;
  }
  let done: () => void = () => undefined;
  const withdraw = onInterrupt(() => new Promise<void>((resolve) => (done = resolve)));
  let next = 0;
  try {
    for (; next < files.length; next++) await files[next]!.commit();
    if (files.length > 0) recordCommitted(`wrote ${files.map((f) => f.file).join(' and ')}`);
  } catch (err) {
    await abortAll(files.slice(next + 1));
    for (const file of files.slice(0, next).reverse()) await file.restore().catch(() => undefined);
    throw err;
  } finally {
    withdraw();
    done();
  }
}

/** Removes every prepared file, one after the other (the last removes the emptied scratch directory). */
export async function abortAll(files: readonly PreparedFile[]): Promise<void> {
  for (const file of files) await file.abort();
}
