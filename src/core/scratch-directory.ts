/**
 * Where a run keeps what it has not committed yet (the output's staging tree and backup, a
 * lockfile or manifest written to a temporary name, the output's lock): one hidden directory,
 * `.capi-gitops-tmp/`, beside the files it will replace (so a rename commits them atomically),
 * holding a `.gitignore` of `*`: Git lists nothing in it, so `git add -A` after a killed run
 * stages none of it. The directory is removed when a run leaves it empty.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, rmdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CapiGitopsError } from './diagnostics.js';
import { shellWord } from './shell.js';
import { errorCode } from './error-code.js';

export const SCRATCH_DIRECTORY = '.capi-gitops-tmp';
const GITIGNORE = '.gitignore';
const IGNORE_EVERYTHING = '# capi-gitops: files of runs in progress, never committed\n*\n';

async function ignoreFile(dir: string): Promise<void> {
  await writeFile(path.join(dir, GITIGNORE), IGNORE_EVERYTHING, { flag: 'wx' }).catch((err) => {
    if (errorCode(err) !== 'EEXIST') throw err;
  });
}

/** Whether `dir` is a symbolic link (a repository can hold one: a run would write, and settle, where it points). */
async function isLink(dir: string): Promise<boolean> {
  return (await lstat(dir).catch(() => undefined))?.isSymbolicLink() ?? false;
}

/** `<parent>/.capi-gitops-tmp`, created (with its .gitignore) when missing; a symlink there is refused, never followed. */
async function scratchDirectory(parent: string): Promise<string> {
  const dir = path.join(parent, SCRATCH_DIRECTORY);
  await mkdir(dir).catch((err) => {
    if (errorCode(err) !== 'EEXIST') throw err;
  });
  if (await isLink(dir)) {
    throw new CapiGitopsError({
      file: dir,
      message: 'is a symbolic link; capi-gitops keeps the files of a run in progress there and follows no link',
      expected: 'a directory capi-gitops creates, or nothing',
      hint: `remove the link (rm ${shellWord(dir)}) and run again`,
    });
  }
  await ignoreFile(dir);
  return dir;
}

/** Attempts of `inScratchDirectory`: each retry follows another run's removal of the directory. */
const SCRATCH_ATTEMPTS = 8;

/**
 * Runs `create` with the scratch directory of `parent`; again if another run removed the
 * directory (it was empty) while it was made or used. Several runs ending at once may each remove it in
 * turn (three renders of one manifest failed with "cannot write the lockfile: ENOENT" after one
 * retry), so a few attempts, not one.
 */
export async function inScratchDirectory<T>(parent: string, create: (dir: string) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      // removed even between its mkdir and its .gitignore: made again too
      return await create(await scratchDirectory(parent));
    } catch (err) {
      if (attempt >= SCRATCH_ATTEMPTS || errorCode(err) !== 'ENOENT') throw err;
    }
  }
}

/** A name for one run's entry: `<stem>.<purpose>-<pid>-<12 hex>`. */
export function scratchName(stem: string, purpose: string): string {
  return `${stem}.${purpose}-${process.pid}-${randomBytes(6).toString('hex')}`;
}

/** The purpose and process of an entry `scratchName(stem, …)` named; undefined for any other name. */
export function parseScratchName(name: string, stem: string): { purpose: string; pid: number } | undefined {
  if (!name.startsWith(`${stem}.`)) return undefined;
  const match = /^([a-z]+)-(\d+)-[0-9a-f]{12}$/.exec(name.slice(stem.length + 1));
  return match ? { purpose: match[1]!, pid: Number(match[2]) } : undefined;
}

/** Whether a process with this id runs on this host. */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return errorCode(err) !== 'ESRCH';
  }
}

/** The entries of `<parent>/.capi-gitops-tmp` (none when it does not exist). */
export async function scratchEntries(parent: string): Promise<string[]> {
  const dir = path.join(parent, SCRATCH_DIRECTORY);
  if (await isLink(dir)) return []; // nothing of ours: leftovers are never settled where a link points
  return (await readdir(dir).catch(() => [] as string[])).filter((n) => n !== GITIGNORE).sort();
}

/**
 * Temporary files (`<stem>.tmp-<pid>-…`) that a run killed before it could remove them left in
 * the scratch directory of `parent`: removed when their process is gone.
 */
export async function removeLeftoverFiles(parent: string, stem: string): Promise<void> {
  const dir = path.join(parent, SCRATCH_DIRECTORY);
  for (const name of await scratchEntries(parent)) {
    const entry = parseScratchName(name, stem);
    if (entry?.purpose === 'tmp' && entry.pid !== process.pid && !processIsAlive(entry.pid))
      await unlink(path.join(dir, name)).catch(() => undefined);
  }
}

/**
 * Removes the scratch directory of `parent` when it holds nothing but its .gitignore. Another run
 * may create an entry meanwhile: then the directory stays and gets its .gitignore back.
 */
export async function removeScratchDirectoryIfEmpty(parent: string): Promise<void> {
  const dir = path.join(parent, SCRATCH_DIRECTORY);
  if (await isLink(dir)) return;
  const names = await readdir(dir).catch(() => undefined);
  if (!names || names.some((n) => n !== GITIGNORE)) return;
  await unlink(path.join(dir, GITIGNORE)).catch(() => undefined);
  await rmdir(dir).catch(async (err) => {
    if (errorCode(err) === 'ENOTEMPTY' || errorCode(err) === 'EEXIST') await ignoreFile(dir).catch(() => undefined);
  });
}
