/**
 * Digests of files that stay valid while the file's lstat does not change, so a file known from
 * an earlier run need not be read and hashed again (git's index does the same for a clean
 * checkout).
 *
 * What lstat guarantees: writing a file's bytes (write, truncate, a rename over it) sets its
 * ctime to the current time, and no system call sets ctime to anything else; `touch -r` or
 * utimes(2) can restore mtime, never ctime. So while size, mtime, ctime, inode and device are as
 * they were when the bytes were hashed, the bytes are the ones hashed — unless the change
 * happened within the same timestamp granule as the ctime that was seen (git's "racily clean"
 * files). Hence the rule: a digest is kept only for a file whose ctime and mtime were at least
 * SETTLED_MS older than the moment its lstat was taken; a file changed more recently than that is
 * read again on the next run. The margin covers filesystems with one- or two-second timestamps
 * and the kernel's coarse clock. Not covered: someone who sets the system clock back, or writes
 * the block device underneath.
 */

/** What lstat says about a file: size, mtime and ctime (ms), inode, device. */
export type FileState = readonly [size: number, mtimeMs: number, ctimeMs: number, ino: number, dev: number];

export interface StatLike {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  dev: number;
}

export function fileState(st: StatLike): FileState {
  return [st.size, st.mtimeMs, st.ctimeMs, st.ino, st.dev];
}

/** How much older than its lstat a file's last change must be for its digest to be kept. */
export const SETTLED_MS = 2000;

/** One recorded file: absolute path, its state, sha256 of its bytes. */
export type RecordedDigest = [file: string, state: FileState, sha256: string];

function sameState(a: FileState, b: FileState): boolean {
  return a.every((value, i) => value === b[i]);
}

/**
 * The digests known from the previous run (`digestOf`), and those this run confirmed
 * (`confirm`), which become the next run's record.
 */
export class FileDigests {
  private readonly previous: Map<string, RecordedDigest>;
  private readonly next = new Map<string, RecordedDigest>();

  constructor(recorded: readonly RecordedDigest[] = []) {
    this.previous = new Map(recorded.map((entry) => [entry[0], entry]));
  }

  /** The digest recorded for `file` when it is still in exactly the recorded state; else undefined (read it). */
  digestOf(file: string, state: FileState): string | undefined {
    const entry = this.previous.get(file);
    if (!entry || !sameState(entry[1], state)) return undefined;
    this.next.set(file, entry);
    return entry[2];
  }

  /**
   * `file`, whose lstat at `observedAt` (ms since the epoch, taken before the lstat) gave `state`,
   * was read afterwards and its bytes hash to `sha256`. Kept only when the file had settled.
   */
  confirm(file: string, state: FileState, sha256: string, observedAt: number): void {
    if (Math.max(state[1], state[2]) <= observedAt - SETTLED_MS) this.next.set(file, [file, state, sha256]);
  }

  /** The record for the next run. */
  recorded(): RecordedDigest[] {
    return [...this.next.values()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** True when the next run's record differs from the one this run started from. */
  changed(): boolean {
    if (this.next.size !== this.previous.size) return true;
    for (const [file, entry] of this.next) {
      const before = this.previous.get(file);
      if (!before || before[2] !== entry[2] || !sameState(before[1], entry[1])) return true;
    }
    return false;
  }
}
