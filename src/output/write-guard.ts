/**
 * What must hold before an output directory is written: nobody else is writing it (a lock file
 * beside it; another beside the lockfile written with it, which renders into several output
 * directories share), and every directory a write would change is writable — checked from the mode bits
 * as well as access(2), because root passes access(2) on a directory its owner marked read-only,
 * and replacing a tree someone made read-only is not what they asked for.
 */
import { constants } from 'node:fs';
import { access, link, lstat, readFile, readlink, stat, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CapiGitopsError, type Diagnostic } from '../core/diagnostics.js';
import { shellWord } from '../core/shell.js';
import {
  inScratchDirectory,
  processIsAlive,
  removeScratchDirectoryIfEmpty,
  SCRATCH_DIRECTORY,
  scratchName,
} from '../core/scratch-directory.js';
import { errorCode } from '../core/error-code.js';
import { onInterrupt, throwIfInterrupted } from '../core/interrupt.js';

/** A diagnostic unless `dir` is a directory this process may write and its owner has not made read-only. */
export async function assertWritableDirectory(dir: string, role: string): Promise<void> {
  let st;
  try {
    st = await stat(dir);
  } catch (err) {
    throw new CapiGitopsError({
      file: dir,
      message: `${role} cannot be used: ${errorCode(err) === 'ENOTDIR' ? 'a component of the path is a file, not a directory' : errorCode(err) === 'ELOOP' ? 'it is a symbolic link loop' : `it cannot be read (${errorCode(err) ?? (err as Error).message})`}`,
      expected: 'a writable directory',
      hint: 'choose a path whose parent directories exist as directories',
    });
  }
  if (!st.isDirectory())
    throw new CapiGitopsError({
      file: dir,
      message: `${role} is not a directory`,
      expected: 'a writable directory',
      hint: 'choose another path',
    });
  if (await readOnly(dir, st)) {
    throw new CapiGitopsError({
      file: dir,
      message: `${role} is read-only`,
      expected: 'a writable directory',
      hint: `make it writable (chmod u+w ${dir}) or choose another path; nothing was changed`,
    });
  }
}

/** Whether this process may not write `dir`, or its owner made it read-only (root passes access(2) there). */
async function readOnly(dir: string, st: { mode: number }): Promise<boolean> {
  return (
    (st.mode & 0o222) === 0 ||
    access(dir, constants.W_OK).then(
      () => false,
      () => true,
    )
  );
}

/** What an entry that is not a regular file is, in a message. */
function entryKind(st: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean }): string {
  return st.isDirectory() ? 'a directory' : st.isFIFO() ? 'a FIFO' : st.isSocket() ? 'a socket' : 'a device';
}

/**
 * A problem unless `file` (as given) is a regular file or nothing yet. As a render never writes
 * through a link in its output nor replaces what it did not write, one file written whole (`import
 * -o`) does not follow a symbolic link to another place, nor replace a FIFO, socket or device.
 */
export async function regularFileProblem(file: string): Promise<Diagnostic | undefined> {
  const st = await lstat(file).catch(() => undefined);
  if (st === undefined || st.isFile()) return undefined;
  const expected = 'a regular file, or a path that does not exist yet';
  if (!st.isSymbolicLink())
    return { file, message: `the output is ${entryKind(st)}, not a regular file`, expected, hint: 'name another file with -o' };
  const target = path.relative(process.cwd(), path.resolve(path.dirname(file), await readlink(file))) || '.';
  return {
    file,
    message: `the output is a symbolic link to ${target}, and import does not write through a link`,
    expected,
    hint: `to write a file in its place, remove the link (rm ${shellWord(file)}) and run again; to write its target, name it: -o ${shellWord(target)}`,
  };
}

/** What a lock keeps one run at a time writing: the output directory, or the lockfile renders into several share. */
interface Locked {
  /** The output directory or the lockfile, named in problems. */
  subject: string;
  /** `the output directory`, `the lockfile`. */
  what: string;
  /** What another run holding the lock is writing: `this output directory`. */
  writing: string;
  /** The lock's name: `the output lock`. */
  lock: string;
  /** The directory that holds the subject, as a hint names it. */
  parent: string;
  /** A full file system's other way out than freeing space. */
  elsewhere: string;
  /** How long a live holder on this host is waited for, in ms (0: refused at once). */
  wait: number;
}

const OUTPUT_DIRECTORY = {
  what: 'the output directory',
  writing: 'this output directory',
  lock: 'the output lock',
  parent: "the output directory's parent",
  elsewhere: ', or choose an output directory on another file system',
  // a fleet's render holds it from its first file to its end
  wait: 0,
};
const LOCKFILE = {
  what: 'the lockfile',
  writing: 'the lockfile',
  lock: "the lockfile's lock",
  parent: 'the directory holding the lockfile',
  elsewhere: '',
  // held for a write (renders of one manifest into several output directories, as make -j runs
  // them, meet here), so waited for; a run still holding it after this long is named
  wait: 30_000,
};

function lockHint(code: string | undefined, locked: Locked): string {
  if (code === 'ENOSPC' || code === 'EDQUOT')
    return `the file system holding ${locked.what} is full: free some space${locked.elsewhere}; nothing was changed`;
  return `check the permissions of ${locked.parent}`;
}

/** `<name>.lock` in the scratch directory beside the output directory (ignored by Git). */
export function outputLockPath(outDir: string): string {
  return path.join(path.dirname(outDir), SCRATCH_DIRECTORY, `${path.basename(outDir)}.lock`);
}

/** Where versions before the scratch directory took the lock: `.<name>.capi-gitops.lock` beside the output directory. */
function legacyLockPath(outDir: string): string {
  return path.join(path.dirname(outDir), `.${path.basename(outDir)}.capi-gitops.lock`);
}

/** The process a lock file names, and whether it is gone (on this host): a lock a killed run left. */
async function lockHolder(file: string): Promise<{ pid: number; owner: string | undefined; stale: boolean } | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const [pidText, owner] = text.trim().split(/\s+/);
  const pid = Number(pidText);
  return { pid, owner, stale: Number.isInteger(pid) && pid > 0 && owner === os.hostname() && !processIsAlive(pid) };
}

function heldBy(locked: Locked, file: string, pid: number, owner: string | undefined): CapiGitopsError {
  const who =
    Number.isInteger(pid) && pid > 0 ? `process ${pid}${owner && owner !== os.hostname() ? ` on ${owner}` : ''}` : 'another process';
  return new CapiGitopsError({
    file: locked.subject,
    message: `another capi-gitops run (${who}) is writing ${locked.writing}`,
    expected: 'one writer at a time',
    hint: `wait for it to finish and run again; if no such process is running, delete ${file}`,
  });
}

/**
 * Takes the output directory's lock: a file holding `pid host`, written under a temporary name
 * and linked into place (a link fails when the lock exists), so a run that finds the lock always
 * reads who holds it; a lock opened empty and then written was read empty by a run racing it,
 * which could only name "another process". A lock left
 * by a process that is gone (same host) is taken over; a live one is an error naming it (so is a
 * live lock of an earlier version, beside the directory). Returns the release function, which
 * also removes the scratch directory when nothing else is in it.
 */
export async function lockOutputDirectory(outDir: string): Promise<() => Promise<void>> {
  const locked = { subject: outDir, ...OUTPUT_DIRECTORY };
  const legacy = legacyLockPath(outDir);
  const old = await lockHolder(legacy);
  if (old?.stale) await unlink(legacy).catch(() => undefined);
  else if (old) throw heldBy(locked, legacy, old.pid, old.owner);
  return takeLock(locked);
}

/**
 * Takes the lockfile's lock (`<lockfile>.lock` in the scratch directory beside it, as the output's
 * is beside the output), runs `write` and releases it: one run at a time reads the lockfile,
 * decides and writes it, as renders into several output directories share it. Unlike the
 * output's, a lock another run on this host holds is waited for (30 s at most): it is held for one
 * write. A signal waits for `write`, which stops at its next step, so the lock is released.
 */
export async function holdingLockfile<T>(lockfile: string, write: () => Promise<T>): Promise<T> {
  const run = (async () => {
    // In a directory this run may not write, no lock is taken (nothing is created there): this run
    // cannot change the lockfile (prepareLockfile refuses, naming the directory, when it would), and
    // one that finds it unchanged succeeds, as a render of a read-only checkout did before the lock.
    const dir = await stat(path.dirname(lockfile)).catch(() => undefined);
    const release =
      dir === undefined || (await readOnly(path.dirname(lockfile), dir))
        ? async () => undefined
        : await takeLock({ subject: lockfile, ...LOCKFILE });
    try {
      return await write();
    } finally {
      await release();
    }
  })();
  const withdraw = onInterrupt(() => run);
  try {
    return await run;
  } finally {
    withdraw();
  }
}

/** The lock of `locked.subject` (outputLockPath: `pid host`), taken or refused naming its holder; returns its release. */
async function takeLock(locked: Locked): Promise<() => Promise<void>> {
  const file = outputLockPath(locked.subject);
  const parent = path.dirname(locked.subject);
  const host = os.hostname();
  const deadline = Date.now() + locked.wait;
  let retried = false;
  for (let pause = 10; ; pause = Math.min(pause * 2, 250)) {
    try {
      await inScratchDirectory(parent, async (scratch) => {
        const temporary = path.join(scratch, scratchName(path.basename(file), 'tmp'));
        try {
          await writeFile(temporary, `${process.pid} ${host}\n`, { flag: 'wx' });
          await link(temporary, file);
        } finally {
          // not written whole (ENOSPC, EDQUOT), or linked: the temporary name goes either way
          await unlink(temporary).catch(() => undefined);
        }
      });
      return async () => {
        await unlink(file).catch(() => undefined);
        await removeScratchDirectoryIfEmpty(parent);
      };
    } catch (err) {
      if (err instanceof CapiGitopsError) throw err; // the scratch directory refused as it is found
      if (errorCode(err) !== 'EEXIST') {
        await removeScratchDirectoryIfEmpty(parent);
        throw new CapiGitopsError({
          file,
          message: `cannot take ${locked.lock}: ${errorCode(err) ?? (err as Error).message}`,
          expected: `a writable directory holding ${locked.what}`,
          hint: lockHint(errorCode(err), locked),
        });
      }
      const holder = await lockHolder(file);
      // A lock its holder released meanwhile is tried again too.
      if ((holder === undefined || holder.stale) && !retried) {
        if (holder) await unlink(file).catch(() => undefined);
        retried = true;
        continue;
      }
      if (holder === undefined || holder.owner !== host || Date.now() >= deadline)
        throw heldBy(locked, file, holder?.pid ?? NaN, holder?.owner);
      // a live holder on this host, waited for: a signal stops the wait
      throwIfInterrupted();
      await new Promise((resolve) => setTimeout(resolve, pause));
      throwIfInterrupted();
      retried = false;
    }
  }
}
