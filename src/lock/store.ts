/**
 * The lockfile on disk, for the render path: read by the fast parser and the lock model's checks
 * (reader.ts), written by text.ts; the `yaml` library (library.ts, loaded then) reads and writes
 * only what those decline (issue 13: a render of a usual lock does not load it).
 */
import { randomBytes } from 'node:crypto';
import { chmod, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CapiGitopsError } from '../model/diagnostics.js';
import { LOCKFILE_NAME } from '../manifest/files.js';
import type { Lockfile } from './types.js';
import { fastLockfileText } from './text.js';
import { LockReader, type LockNodes } from './reader.js';
import { fastParseAgreeing } from '../yaml/fast-parse.js';

/** serializeLockfile (library.ts), loading the library only for a lock text.ts cannot write. */
export async function lockfileText(lock: Pick<Lockfile, 'entries'>): Promise<string> {
  return fastLockfileText(lock) ?? (await import('./library.js')).libraryLockfileText(lock);
}

/** The lock at `file`, or undefined when there is none. */
export async function readLockfile(file: string): Promise<Lockfile | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CapiGitopsError({ file, message: `cannot read the lockfile: ${(error as Error).message}` });
  }
  return plainLockfile(text, file) ?? (await import('./library.js')).parseLockfile(text, file);
}

/**
 * The lock read without the `yaml` library: the fast parser where YAML 1.1 and the library's 1.2
 * reading agree, checked by the same reader. Undefined when either declines or finds any problem:
 * the library then reads it again and reports each problem at its line and column.
 */
export function plainLockfile(text: string, file: string): Lockfile | undefined {
  const value = fastParseAgreeing(text);
  if (value === undefined || value === null) return undefined;
  const reader = new LockReader(file, PLAIN_NODES);
  const lock = reader.lock(value);
  return reader.problems.length === 0 ? lock : undefined;
}

const isCollection = (node: unknown): boolean => typeof node === 'object' && node !== null;

/** Plain values as the reader sees them; positions are never shown (a problem means reading again). */
const PLAIN_NODES: LockNodes<unknown> = {
  isMap: (node) => isCollection(node) && !Array.isArray(node),
  pairs: (node) => Object.entries(node as Record<string, unknown>).map(([key, value]) => ({ key, value })),
  isSeq: (node) => Array.isArray(node),
  items: (node) => node as unknown[],
  isScalar: (node) => node !== undefined && !isCollection(node),
  scalar: (node) => (isCollection(node) ? undefined : node),
  position: () => ({ line: 0, column: 0 }),
};

// ---- writing --------------------------------------------------------------------------------

/** The lockfile's path for a manifest: beside its first file (Manifest.baseDir). */
export function lockfilePath(manifestBaseDir: string): string {
  return path.join(manifestBaseDir, LOCKFILE_NAME);
}

/**
 * Writes the lock atomically: a temporary file in the same directory, then one rename, so a
 * reader sees the old lock or the new one, never half of either. An unchanged lock is not
 * rewritten. Returns whether the file was written.
 */
export async function writeLockfile(file: string, lock: Pick<Lockfile, 'entries'>): Promise<boolean> {
  const prepared = await prepareLockfile(file, lock);
  if (!prepared) return false;
  await prepared.commit();
  return true;
}

/**
 * The first half of `writeLockfile`: the new lock written to a temporary file beside `file`
 * (which proves the directory is writable), to be renamed into place by `commit` — together with
 * the output directory — or removed by `abort`. Undefined when the lock is unchanged.
 */
export async function prepareLockfile(
  file: string,
  lock: Pick<Lockfile, 'entries'>,
): Promise<{ commit(): Promise<void>; abort(): Promise<void> } | undefined> {
  const text = await lockfileText(lock);
  const existing = await readFile(file, 'utf8').catch(() => undefined);
  if (existing === text) return undefined;
  const failed = (error: unknown) =>
    new CapiGitopsError({
      file,
      message: `cannot write the lockfile: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      expected: 'a writable directory beside the manifest',
      hint: 'check that the directory exists and is writable; nothing was changed',
    });
  const dirMode = await stat(path.dirname(file)).then(
    (s) => s.mode,
    () => undefined,
  );
  // Root can write a directory its owner made read-only; the owner's intent is what counts.
  if (dirMode !== undefined && (dirMode & 0o222) === 0) throw failed(new Error('the directory is read-only'));
  const mode = await stat(file).then(
    (s) => s.mode & 0o777,
    () => undefined,
  );
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    await writeFile(temporary, text, { flag: 'wx' });
    if (mode !== undefined) await chmod(temporary, mode);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw failed(error);
  }
  return {
    commit: async () => {
      try {
        await rename(temporary, file);
      } catch (error) {
        await unlink(temporary).catch(() => undefined);
        throw failed(error);
      }
    },
    abort: () => unlink(temporary).catch(() => undefined),
  };
}
