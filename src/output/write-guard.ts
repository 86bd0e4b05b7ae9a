/**
 * What must hold before an output directory is written: nobody else is writing it (a lock file
 * beside it), and every directory a write would change is writable — checked from the mode bits
 * as well as access(2), because root passes access(2) on a directory its owner marked read-only,
 * and replacing a tree someone made read-only is not what they asked for.
 */
import { constants } from 'node:fs';
import { access, open, readFile, stat, unlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CapiGitopsError } from '../core/diagnostics.js';

function errorCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException)?.code;
}

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
  const readOnly =
    (st.mode & 0o222) === 0 ||
    (await access(dir, constants.W_OK).then(
      () => false,
      () => true,
    ));
  if (readOnly) {
    throw new CapiGitopsError({
      file: dir,
      message: `${role} is read-only`,
      expected: 'a writable directory',
      hint: `make it writable (chmod u+w ${dir}) or choose another path; nothing was changed`,
    });
  }
}

export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return errorCode(err) !== 'ESRCH';
  }
}

function lockHint(code: string | undefined): string {
  if (code === 'ENOSPC' || code === 'EDQUOT')
    return 'the file system holding the output directory is full: free some space, or choose an output directory on another file system; nothing was changed';
  return "check the permissions of the output directory's parent";
}

/** `.<name>.capi-gitops.lock` beside the output directory. */
export function outputLockPath(outDir: string): string {
  return path.join(path.dirname(outDir), `.${path.basename(outDir)}.capi-gitops.lock`);
}

/**
 * Takes the output directory's lock: a file created exclusively, holding `pid host`. A lock left
 * by a process that is gone (same host) is taken over; a live one is an error naming it. Returns
 * the release function.
 */
export async function lockOutputDirectory(outDir: string): Promise<() => Promise<void>> {
  const file = outputLockPath(outDir);
  const host = os.hostname();
  for (let attempt = 0; attempt < 2; attempt++) {
    let created = false;
    try {
      const handle = await open(file, 'wx');
      created = true;
      try {
        await handle.writeFile(`${process.pid} ${host}\n`);
      } finally {
        await handle.close();
      }
      return () => unlink(file).catch(() => undefined);
    } catch (err) {
      if (errorCode(err) !== 'EEXIST') {
        // Created but not written (ENOSPC, EDQUOT): an empty lock would block every later run.
        if (created) await unlink(file).catch(() => undefined);
        throw new CapiGitopsError({
          file,
          message: `cannot take the output lock: ${errorCode(err) ?? (err as Error).message}`,
          expected: 'a writable directory holding the output directory',
          hint: lockHint(errorCode(err)),
        });
      }
      const [pidText, owner] = (await readFile(file, 'utf8').catch(() => '')).trim().split(/\s+/);
      const pid = Number(pidText);
      const stale = Number.isInteger(pid) && pid > 0 && owner === host && !processIsAlive(pid);
      if (stale && attempt === 0) {
        await unlink(file).catch(() => undefined);
        continue;
      }
      const who = Number.isInteger(pid) && pid > 0 ? `process ${pid}${owner && owner !== host ? ` on ${owner}` : ''}` : 'another process';
      throw new CapiGitopsError({
        file: outDir,
        message: `another capi-gitops run (${who}) is writing this output directory`,
        expected: 'one writer at a time',
        hint: `wait for it to finish and run again; if no such process is running, delete ${file}`,
      });
    }
  }
  throw new CapiGitopsError({
    file,
    message: 'cannot take the output lock',
    hint: `delete ${file} if no capi-gitops run is writing ${outDir}`,
  });
}
