import { lstat, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { CapiGitopsError, compareStrings } from '../core/diagnostics.js';
import { INDEX_FILE } from '../layout/output-paths.js';

/** Whether anything is at `file` (a symlink itself counts). */
export function exists(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    () => false,
  );
}

/**
 * Refuses an output path (as given: `-o`, `--from`, `--to`) that exists and is not a directory,
 * a link to one included: check and diff would read a file there as an empty output, every
 * rendered file missing, and offer a render that refuses the path.
 */
export async function refuseNonDirectory(given: string): Promise<void> {
  const st = await stat(given).catch(() => undefined);
  if (st === undefined || st.isDirectory()) return;
  throw new CapiGitopsError({
    file: given,
    message: 'the output path exists and is not a directory',
    expected: 'the directory capi-gitops renders into',
    hint: `check the path: ${given} is a file, and a rendered output is a directory`,
  });
}

/**
 * Refuses, as a render refuses to write there (write.ts refuseUnownedContent), an existing
 * directory with visible entries and no ownership index: check and diff compare a render with the
 * directory capi-gitops wrote, and offered a render that refuses it. Its top alone is read: `-o /`
 * scanned the whole file system.
 */
export async function refuseUnownedOutput(given: string): Promise<void> {
  const names = await readdir(given).catch(() => undefined);
  if (names === undefined || names.includes(INDEX_FILE)) return;
  const visible = names.filter((name) => !name.startsWith('.')).sort(compareStrings);
  if (visible.length === 0) return;
  const shown = visible.slice(0, 5).join(', ') + (visible.length > 5 ? `, … (${visible.length} entries)` : '');
  throw new CapiGitopsError({
    file: given,
    message: `the output directory holds files capi-gitops did not write (${shown}) and has no ${INDEX_FILE}: render refuses to write there`,
    expected: 'the directory a capi-gitops render wrote, or an empty or new one',
    hint: 'check the path given with -o: render writes into an empty or new directory, or one it wrote before',
  });
}

type EntryType = 'file' | 'dir' | 'symlink' | 'other';

/** What lstat said about one entry when the tree was scanned. */
export interface TreeEntry {
  type: EntryType;
  /** Permission bits. */
  mode: number;
  ino: number;
  size: number;
  mtimeMs: number;
  dev: number;
  /** Owner and group, kept when the tree is rebuilt. */
  uid: number;
  gid: number;
}

function entryType(st: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): EntryType {
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isDirectory()) return 'dir';
  if (st.isFile()) return 'file';
  return 'other';
}

/**
 * Every entry under `root`, keyed by `/`-separated relative path. Uses lstat and never descends
 * into a symlink, so nothing outside `root` is ever listed (and so never touched).
 */
export async function scanTree(root: string): Promise<Map<string, TreeEntry>> {
  const entries = new Map<string, TreeEntry>();
  const pending = [''];
  while (pending.length > 0) {
    const rel = pending.pop()!;
    const names = await readdir(path.join(root, rel));
    const stats = await Promise.all(names.map((name) => lstat(path.join(root, rel, name), { bigint: false })));
    names.forEach((name, i) => {
      const st = stats[i];
      const child = rel ? `${rel}/${name}` : name;
      const type = entryType(st);
      entries.set(child, {
        type,
        mode: st.mode & 0o7777,
        ino: st.ino,
        size: st.size,
        mtimeMs: st.mtimeMs,
        dev: st.dev,
        uid: st.uid,
        gid: st.gid,
      });
      if (type === 'dir') pending.push(child);
    });
  }
  return entries;
}

/** Parent of a relative path, '' for a top-level entry. */
export function parentOf(rel: string): string {
  const slash = rel.lastIndexOf('/');
  return slash < 0 ? '' : rel.slice(0, slash);
}

/** Deepest paths first, so a directory comes after everything inside it. */
export function deepestFirst(paths: Iterable<string>): string[] {
  const depth = (p: string) => p.split('/').length;
  return [...paths].sort((a, b) => depth(b) - depth(a) || compareStrings(a, b));
}
