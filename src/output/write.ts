import {
  chmod,
  chown,
  copyFile,
  link,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  realpath,
  rename,
  rm,
  rmdir,
  stat,
  symlink,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CapiGitopsError } from '../core/diagnostics.js';
import { mapLimited, OPEN_FILES } from '../core/map-limited.js';
import { beginsAsGenerated, parseIndexEntries, parseKeptDirectories, provenOwned } from './ownership-index.js';
import { ancestors, filePathProblems, INDEX_FILE, outputPathProblem } from '../layout/output-paths.js';
import { sha256Hex } from '../core/digest.js';
import { deepestFirst, exists, scanTree, type TreeEntry } from './tree.js';
import { bytesOf, planWrite, type ExistingOutput, type OutputFiles, type WritePlan } from './write-plan.js';
import { assertWritableDirectory, lockOutputDirectory } from './write-guard.js';
import { InterruptedError, onInterrupt, recordCommitted, throwIfInterrupted } from '../core/interrupt.js';
import { abortAll, type PreparedFile } from '../core/prepared-file.js';
import {
  inScratchDirectory,
  parseScratchName,
  processIsAlive,
  SCRATCH_DIRECTORY,
  scratchEntries,
  scratchName,
} from '../core/scratch-directory.js';
import { errorCode } from '../core/error-code.js';
import { createDirectories } from '../core/create-directories.js';

/**
 * Writes the tool's files into an output directory and removes the ones a previous run wrote
 * but this run does not, without touching anything else.
 *
 * How: the complete new tree — new files, plus every entry the tool did not write, carried
 * over as hard links (a copy, or a recreated symlink, where linking is refused) — is
 * built in the scratch directory beside outDir (`.capi-gitops-tmp/`, ignored by Git), then
 * swapped in with two renames (outDir → backup, new → outDir). Previously written files and
 * carried-over links are then deleted from the backup. Directories that were there keep their
 * owner, group and mode (setgid included); new ones inherit the group as setgid gives it.
 *
 * Guarantees:
 * - A failure before the swap (a write error, a conflict, a bad index) removes the temporary
 *   directory and leaves outDir exactly as it was. If the second rename fails the first is undone.
 * - Owned files are never updated in place: outDir names either the complete old tree or the
 *   complete new tree, switched by one rename; between the two renames (two system calls) outDir
 *   briefly does not exist. A reader that resolves outDir once (cd, an open directory handle)
 *   sees one tree throughout, though old files vanish from the old tree as it is cleaned up; a
 *   reader resolving each path anew while the swap happens can read some files from each tree.
 * - Files the tool did not write keep their inode, bytes and mode. Something created in outDir
 *   during the write is not lost: it stays in the backup directory, which is then left in
 *   place and named in `warnings`.
 * - A file the index lists is removed only when its bytes still have the digest recorded for
 *   it and begin with GENERATED_MARK: a file edited since, one the index was altered to name, or
 *   one a v1 index (no digests) lists is kept (no longer owned) and named in `warnings`.
 * - On SIGINT/SIGTERM (core/interrupt.ts) a write stops at its next step and removes what it
 *   created, or, once the swap has begun, runs to its end; what a killed run left in the scratch
 *   directory is settled by the next run (settleLeftovers).
 * - When the new tree equals the old one, nothing is written at all.
 * - No symlink is followed: the scan uses lstat and never enters a symlinked directory.
 * - Concurrent writers are refused: a lock file beside outDir names the process holding it.
 * - A read-only outDir (or a read-only directory inside it) is refused, not replaced.
 * - Files written `alongside` (the lockfile) are committed right after the swap; if one fails,
 *   the swap is undone, so the output and the lockfile change together or not at all.
 */

/** What the caller knows about the files: the sha256 of each (a render encoded them), so the index need not hash them again. */
interface KnownDigests {
  digests: ReadonlyMap<string, string>;
}

export interface WriteSummary {
  /** The output directory written, absolute, with a symlinked outDir resolved. */
  directory: string;
  /** Files created or whose bytes changed. */
  written: string[];
  unchanged: string[];
  /** Files a previous run wrote that this run no longer produces. */
  removed: string[];
  /** Problems after the new tree was in place; the write itself succeeded. */
  warnings: string[];
  /** The bytes before this run of every written file that existed and of every removed file (to report changed objects). */
  previous: Map<string, Buffer>;
}

interface Target {
  path: string;
  exists: boolean;
  /** Permission bits of the existing directory. */
  mode?: number;
  /** Owner and group of the existing directory. */
  uid?: number;
  gid?: number;
}

const POOL_SIZE = 32;

/** Runs `fn` over `items`, POOL_SIZE at a time, stopping at a signal (core/map-limited.ts). */
async function inPool<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  await mapLimited(items, POOL_SIZE, fn, throwIfInterrupted);
}

/**
 * outDir as an absolute path, a symbolic link followed, its parent created and writable: where the
 * lock is taken. It does not look inside outDir, which another run may be swapping (between its two
 * renames outDir does not exist) until the lock is held; `inspectTarget` does that under the lock.
 */
async function outputPath(outDir: string): Promise<string> {
  let dir = path.resolve(outDir);
  if (dir.split(path.sep).includes(SCRATCH_DIRECTORY)) {
    throw new CapiGitopsError({
      file: dir,
      message: `the output path is in ${SCRATCH_DIRECTORY}, where capi-gitops keeps the files of runs in progress (Git ignores it)`,
      expected: 'an output directory outside any .capi-gitops-tmp',
      hint: 'choose another output directory',
    });
  }
  const link = await lstat(dir).then(
    (st) => st.isSymbolicLink(),
    async (err: unknown) => {
      if (errorCode(err) === 'ENOENT') return false;
      await assertWritableDirectory(path.dirname(dir), "the output directory's parent");
      throw err;
    },
  );
  if (link) {
    dir = await realpath(dir).catch((cause: unknown) => {
      throw new CapiGitopsError({
        file: dir,
        message: `the output path is a symbolic link that cannot be followed (${errorCode(cause) ?? 'unreadable'})`,
        expected: 'a directory, or a path that does not exist yet',
        hint: `remove the link ${dir} or point it at a directory`,
      });
    });
  }
  if (path.dirname(dir) === dir) {
    throw new CapiGitopsError({
      file: dir,
      message: 'cannot write to the filesystem root',
      expected: 'a directory with a parent',
      hint: 'choose a subdirectory',
    });
  }
  await createDirectories(path.dirname(dir)).catch(() => assertWritableDirectory(path.dirname(dir), "the output directory's parent"));
  await assertWritableDirectory(path.dirname(dir), "the output directory's parent");
  return dir;
}

/** What is at `dir` (from `outputPath`) now that this run holds the lock: nothing yet, or a directory it may write. */
async function inspectTarget(dir: string): Promise<Target> {
  const st = await lstat(dir).catch((err: unknown) => {
    if (errorCode(err) === 'ENOENT') return undefined;
    throw err;
  });
  if (st === undefined) return { path: dir, exists: false };
  if (!st.isDirectory()) {
    throw new CapiGitopsError({
      file: dir,
      message: 'the output path exists and is not a directory',
      expected: 'a directory, or a path that does not exist yet',
      hint: 'choose another output directory',
    });
  }
  await assertWritableDirectory(dir, 'the output directory');
  return { path: dir, exists: true, mode: st.mode & 0o7777, uid: st.uid, gid: st.gid };
}

/**
 * Takes the output directory's lock, then reads what is there and settles what a killed run left
 * (its warnings are returned). Everything after this is one writer's alone.
 */
async function lockTarget(outDir: string): Promise<{ target: Target; release: () => Promise<void>; warnings: string[] }> {
  const dir = await outputPath(outDir);
  const release = await lockOutputDirectory(dir);
  try {
    throwIfInterrupted();
    let target = await inspectTarget(dir);
    const leftovers = await settleLeftovers(target);
    if (leftovers.restored) target = await inspectTarget(dir);
    return { target, release, warnings: leftovers.warnings };
  } catch (err) {
    await release();
    throw err;
  }
}

/** A read-only directory inside the output would leave a read-only backup behind: refused before anything is written. */
function refuseReadOnlyDirectories(target: Target, entries: Map<string, TreeEntry>): void {
  const readOnly = [...entries]
    .filter(([, e]) => e.type === 'dir' && (e.mode & 0o200) === 0)
    .map(([p]) => p)
    .sort();
  if (readOnly.length === 0) return;
  throw new CapiGitopsError({
    file: path.join(target.path, readOnly[0]!),
    message: `the output directory holds read-only directories (${readOnly.slice(0, 5).join(', ')})`,
    expected: 'a writable output tree',
    hint: `make them writable (chmod -R u+w ${target.path}) or choose another output directory; nothing was changed`,
  });
}

/** A fresh name in the scratch directory beside `target`: the same filesystem, so renames are atomic; ignored by Git. */
function scratchPath(target: string, purpose: 'stage' | 'old'): string {
  return path.join(path.dirname(target), SCRATCH_DIRECTORY, scratchName(path.basename(target), purpose));
}

/** A staging tree or a backup that a run killed before it could settle it left behind. */
interface Leftover {
  path: string;
  purpose: 'stage' | 'old';
}

/**
 * What killed runs left: in the scratch directory, every staging tree and backup of this output
 * directory (the caller holds its lock, so no live run owns one); beside it, those versions before
 * the scratch directory left (`.<dir>.capi-gitops-tmp-*`, `-old-*`) whose process is gone.
 */
async function findLeftovers(target: Target): Promise<Leftover[]> {
  const parent = path.dirname(target.path);
  const stem = path.basename(target.path);
  const found: Leftover[] = [];
  for (const name of await scratchEntries(parent)) {
    const entry = parseScratchName(name, stem);
    if (entry && entry.pid !== process.pid && (entry.purpose === 'stage' || entry.purpose === 'old'))
      found.push({ path: path.join(parent, SCRATCH_DIRECTORY, name), purpose: entry.purpose });
  }
  const prefix = `.${stem}.capi-gitops-`;
  for (const name of (await readdir(parent).catch(() => [] as string[])).filter((n) => n.startsWith(prefix)).sort()) {
    const match = /^(tmp|old)-(\d+)-[0-9a-f]{12}$/.exec(name.slice(prefix.length));
    const pid = Number(match?.[2]);
    if (match && pid !== process.pid && !processIsAlive(pid))
      found.push({ path: path.join(parent, name), purpose: match[1] === 'tmp' ? 'stage' : 'old' });
  }
  return found;
}

/**
 * Settles what killed runs left, silently where nothing can be lost: a staging tree is only a
 * partial copy of output this run writes again, so it is removed; a backup is settled by
 * settleBackup. Returns warnings for what had to stay, and whether a backup was put back as the
 * output directory (the caller resolves the target again).
 */
async function settleLeftovers(target: Target): Promise<{ warnings: string[]; restored: boolean }> {
  const warnings: string[] = [];
  let restored = false;
  for (const leftover of await findLeftovers(target)) {
    try {
      if (leftover.purpose === 'stage') {
        await rm(leftover.path, { recursive: true, force: true });
        continue;
      }
      const settled = await settleBackup(leftover.path, target.path);
      restored ||= settled.restored;
      warnings.push(...settled.warnings);
    } catch (err) {
      // what cannot be settled does not stop this run's write
      warnings.push(`${leftover.path}, left by an interrupted run, could not be cleaned up (${errorCode(err) ?? (err as Error).message})`);
    }
  }
  return { warnings, restored };
}

/**
 * A backup a killed run left: the previous tree. Killed between the two renames, it is the only
 * output there is, and is put back. Otherwise each entry in it is deleted when the output
 * directory still has it (the same inode, carried over; or the same bytes at the same path) or
 * when capi-gitops wrote it (listed in the backup's index with the digest of its bytes); what is
 * left (something created or edited during that run) stays, named in a warning.
 */
async function settleBackup(backup: string, outDir: string): Promise<{ warnings: string[]; restored: boolean }> {
  if (!(await exists(outDir))) {
    await rename(backup, outDir);
    return { warnings: [], restored: true };
  }
  const entries = await scanTree(backup);
  let listed = new Map<string, string | undefined>();
  if (entries.get(INDEX_FILE)?.type === 'file') {
    try {
      listed = parseIndexEntries(await readFile(path.join(backup, INDEX_FILE), 'utf8'), path.join(backup, INDEX_FILE));
    } catch {
      // a damaged index proves nothing: only what the output still has is deleted
    }
  }
  for (const [p, entry] of entries) {
    if (entry.type === 'dir') continue;
    const inBackup = path.join(backup, p);
    const now = await lstat(path.join(outDir, p)).catch(() => undefined);
    let duplicate = p === INDEX_FILE || (now !== undefined && now.ino === entry.ino && now.dev === entry.dev);
    if (!duplicate && entry.type === 'file') {
      const bytes = await readFile(inBackup);
      const digest = listed.get(p);
      duplicate =
        (digest !== undefined && digest === sha256Hex(bytes)) ||
        (now?.isFile() === true && now.size === bytes.length && bytes.equals(await readFile(path.join(outDir, p))));
    }
    if (duplicate) await unlink(inBackup).catch(() => undefined);
  }
  const dirs = [...entries].filter(([, e]) => e.type === 'dir').map(([p]) => p);
  for (const dir of [...deepestFirst(dirs), '']) await rmdir(path.join(backup, dir)).catch(() => undefined);
  return {
    warnings: (await exists(backup))
      ? [`${backup} holds files an interrupted run left that ${outDir} does not have; check whether you need them, then delete it`]
      : [],
    restored: false,
  };
}

/**
 * Refuses a first run into a directory that already has visible content: our top-level
 * kustomization.yaml would change what Argo CD or Flux read from it. Hidden entries
 * (`.git`, `.gitignore`, `.gitkeep`, …) are tooling, not manifests, and are allowed.
 */
function refuseUnownedContent(target: Target, entries: Map<string, TreeEntry>): void {
  const visible = [...entries.keys()].filter((p) => !p.includes('/') && !p.startsWith('.')).sort();
  if (visible.length === 0) return;
  const shown = visible.slice(0, 5).join(', ') + (visible.length > 5 ? `, … (${visible.length} entries)` : '');
  throw new CapiGitopsError({
    file: target.path,
    message: `the output directory already holds files capi-gitops did not write (${shown}) and has no ${INDEX_FILE}`,
    expected: 'an empty or new directory, or one a previous capi-gitops run wrote',
    hint: 'choose an empty directory (e.g. a new subdirectory); capi-gitops does not mix its files with others on a first run',
  });
}

/** The output as scanned, with its index's entries (path → digest) parsed once for keepUnproven. */
type ScannedOutput = ExistingOutput & { listed?: Map<string, string | undefined> };

/** The output directory as it is: every entry, and what the previous run's index says it wrote. */
async function scanExisting(target: Target): Promise<ScannedOutput> {
  if (!target.exists) return { entries: new Map(), ownedPaths: undefined, indexText: undefined, ownedContents: new Map() };
  const entries = await scanTree(target.path);
  refuseReadOnlyDirectories(target, entries);
  const indexEntry = entries.get(INDEX_FILE);
  if (!indexEntry) {
    refuseUnownedContent(target, entries);
    return { entries, ownedPaths: undefined, indexText: undefined, ownedContents: new Map() };
  }
  const indexPath = path.join(target.path, INDEX_FILE);
  if (indexEntry.type !== 'file') {
    throw new CapiGitopsError({
      file: indexPath,
      message: 'the ownership index is not a regular file',
      expected: 'a plain text file written by capi-gitops',
      hint: `remove ${indexPath} and the files capi-gitops wrote, then run again`,
    });
  }
  const indexText = await readFile(indexPath, 'utf8');
  const listed = parseIndexEntries(indexText, indexPath);
  const keptDirectories = parseKeptDirectories(indexText);
  return { entries, ownedPaths: [...listed.keys()], indexText, listed, ownedContents: new Map(), keptDirectories };
}

/**
 * The output directory and the bytes of each file there of the size this run writes at its path
 * (to detect "unchanged"). A file the index does not list that already holds the very bytes this
 * run writes there is the tool's own again: a render discarded with `git checkout .` leaves its new
 * files behind, untracked, while the tracked index goes back. Writing them changes nothing; other
 * bytes stay someone else's file, which the plan refuses to replace.
 */
async function readExisting(target: Target, files: OutputFiles): Promise<ExistingOutput> {
  const existing = await scanExisting(target);
  if (existing.listed === undefined) return existing;
  const listed = await keepUnproven(target, existing, existing.listed, files);
  const sameSize = [...files.keys()].filter((p) => {
    const entry = existing.entries.get(p);
    return entry?.type === 'file' && entry.size === Buffer.byteLength(files.get(p)!, 'utf8');
  });
  const contents = await mapLimited(sameSize, OPEN_FILES, (p) => readFile(path.join(target.path, p)));
  const adopted = sameSize.filter((p, i) => !listed.has(p) && contents[i]!.equals(bytesOf(files.get(p)!)));
  const adoptedSet = new Set(adopted);
  for (const [i, p] of sameSize.entries()) if (listed.has(p) || adoptedSet.has(p)) existing.ownedContents.set(p, contents[i]!);
  existing.ownedPaths = [...listed.keys(), ...adopted];
  return existing;
}

/**
 * Files the index lists that this run would remove but that cannot be shown to be capi-gitops'
 * own: not a regular file, no digest recorded (a v1 index), bytes whose sha256 is not the one
 * recorded (edited since, or the index was altered), or bytes without GENERATED_MARK (an index
 * altered to name a hand-written file with its real sha256). They are kept: out of the index's
 * entries `listed` (returned) and `existing.ownedPaths`, in `existing.kept`. The bytes of those
 * that are its own go into `existing.ownedContents` (the report compares their objects).
 */
async function keepUnproven(
  target: Target,
  existing: ExistingOutput,
  listed: Map<string, string | undefined>,
  files: OutputFiles,
): Promise<Map<string, string | undefined>> {
  const { entries } = existing;
  const candidates = [...listed.keys()].filter((p) => !files.has(p) && entries.has(p) && entries.get(p)!.type !== 'dir');
  const unproven = new Set<string>();
  const edited = new Set<string>();
  await inPool(candidates, async (p) => {
    const digest = listed.get(p);
    if (entries.get(p)!.type === 'file' && digest !== undefined) {
      const bytes = await readFile(path.join(target.path, p));
      if (provenOwned(bytes, digest)) {
        existing.ownedContents.set(p, bytes);
        return;
      }
      if (beginsAsGenerated(bytes)) edited.add(p);
    }
    unproven.add(p);
  });
  existing.kept = candidates.filter((p) => unproven.has(p));
  existing.edited = candidates.filter((p) => edited.has(p));
  for (const p of existing.kept) listed.delete(p);
  existing.ownedPaths = [...listed.keys()];
  return listed;
}

/** The warning for listed files kept because they could not be shown to be capi-gitops' own. */
function keptWarning(target: Target, kept: readonly string[]): string[] {
  if (kept.length === 0) return [];
  const shown = kept.slice(0, 10).join(', ') + (kept.length > 10 ? `, … (${kept.length} files)` : '');
  return [
    `kept ${shown} in ${target.path}: the ownership index lists ${kept.length === 1 ? 'it' : 'them'} as written by capi-gitops, ` +
      'but the bytes are not the ones it recorded (edited since, or the index was changed), so this run did not remove ' +
      `${kept.length === 1 ? 'it' : 'them'} and no longer manages ${kept.length === 1 ? 'it' : 'them'}; delete what you do not need`,
  ];
}

/** The warning for files the tool did not write where Argo CD or Flux read (check's `extra` to remove by hand). */
function unwrittenWarning(target: Target, unwritten: readonly string[]): string[] {
  if (unwritten.length === 0) return [];
  const one = unwritten.length === 1;
  const shown = unwritten.slice(0, 10).join(', ') + (unwritten.length > 10 ? `, … (${unwritten.length} files)` : '');
  return [
    `left ${shown} in ${target.path}: capi-gitops did not write ${one ? 'it' : 'them'} (not in the ownership index), ` +
      `and Argo CD or Flux may still apply ${one ? 'its directory' : 'their directories'}, one a render writes or wrote into; ` +
      `remove ${one ? 'it' : 'them'}`,
  ];
}

/**
 * Puts an entry the tool did not write into the new tree as a hard link, so it keeps its inode
 * (Linux link(2) links a symlink itself, never its target). Where linking is refused
 * (fs.protected_hardlinks, some filesystems) a symlink is recreated and a file copied with its mode.
 */
async function carryOver(from: string, to: string, entry: TreeEntry): Promise<void> {
  try {
    await link(from, to);
  } catch (err) {
    if (entry.type === 'symlink') await symlink(await readlink(from), to);
    else if (entry.type === 'file') {
      await copyFile(from, to);
      await chmod(to, entry.mode);
    } else throw err;
  }
}

/**
 * Gives `dir` (in the staging tree) the owner and group `shown` had. Where this process may not
 * (only root gives a directory to another user, and a group only to its members), it keeps what
 * it can and says what changed.
 */
async function keepOwner(dir: string, shown: string, uid: number, gid: number, warnings: string[]): Promise<void> {
  if (process.getuid === undefined) return;
  const now = await stat(dir);
  if (now.uid === uid && now.gid === gid) return;
  const done = (owner: number) =>
    chown(dir, owner, gid).then(
      () => true,
      () => false,
    );
  if (await done(uid)) return;
  const groupKept = now.gid === gid || (await done(now.uid));
  const lost = [
    ...(now.uid !== uid ? [`owner (uid ${uid}, now ${now.uid})`] : []),
    ...(groupKept ? [] : [`group (gid ${gid}, now ${now.gid})`]),
  ];
  warnings.push(
    `${shown}: the render replaces the directory and could not keep its ${lost.join(' and ')}; ` +
      'only root can give a directory to another user, and a group only to its members',
  );
}

async function buildTree(
  tmp: string,
  target: Target,
  existing: ExistingOutput,
  plan: WritePlan,
  files: OutputFiles,
  warnings: string[],
): Promise<void> {
  // Owner, group and mode (setgid too) first, so new directories and files inherit the group as they would in place.
  if (target.uid !== undefined && target.gid !== undefined) await keepOwner(tmp, target.path, target.uid, target.gid, warnings);
  if (target.mode !== undefined) await chmod(tmp, target.mode | 0o700);
  for (const dir of plan.directories) await mkdir(path.join(tmp, dir), { recursive: true });
  await inPool(plan.carried, (p) => carryOver(path.join(target.path, p), path.join(tmp, p), existing.entries.get(p)!));
  // The new tree is this run's alone until the swap: plain synchronous calls write a render's
  // hundred files in about half the time of pooled asynchronous ones (no thread-pool round trips).
  const rewritten = [...plan.written, INDEX_FILE];
  for (const p of plan.unchanged) {
    try {
      linkSync(path.join(target.path, p), path.join(tmp, p));
    } catch {
      writeFileSync(path.join(tmp, p), files.get(p)!);
      rewritten.push(p);
    }
  }
  throwIfInterrupted();
  for (const p of plan.written) writeFileSync(path.join(tmp, p), files.get(p)!);
  writeFileSync(path.join(tmp, INDEX_FILE), plan.indexText);
  keepFileModes(tmp, existing, rewritten);
  // Modes last: an old directory may have been read-only. Owner before mode: chown may clear setgid.
  for (const dir of deepestFirst(plan.directories)) {
    const old = existing.entries.get(dir);
    if (old?.type !== 'dir') continue;
    await keepOwner(path.join(tmp, dir), path.join(target.path, dir), old.uid, old.gid, warnings);
    await chmod(path.join(tmp, dir), old.mode);
  }
  if (target.mode !== undefined) await chmod(tmp, target.mode);
}

/**
 * A file written anew in place of one of the output's keeps that file's permission bits, as the
 * lockfile (core/prepared-file.ts) and write-file-atomic keep them: a re-render under another
 * umask leaves the tree's modes as they were, not a mix of two umasks. A new file takes the umask,
 * as Git gives a file it checks out. Set-id and sticky bits are not carried onto new content.
 */
function keepFileModes(tmp: string, existing: ExistingOutput, files: readonly string[]): void {
  for (const p of files) {
    const old = existing.entries.get(p);
    if (old?.type === 'file') chmodSync(path.join(tmp, p), old.mode & 0o777);
  }
}

async function swapIn(tmp: string, target: Target): Promise<string | undefined> {
  if (!target.exists) {
    await rename(tmp, target.path);
    return undefined;
  }
  const backup = scratchPath(target.path, 'old');
  await rename(target.path, backup);
  try {
    await rename(tmp, target.path);
  } catch (err) {
    await rename(backup, target.path).catch((undo: Error) => {
      throw new CapiGitopsError({
        file: target.path,
        message: `could not swap in the new output (${(err as Error).message}) nor put the previous one back (${undo.message})`,
        hint: `the previous output is at ${backup} and the new one at ${tmp}; rename one of them to ${target.path}`,
      });
    });
    throw err;
  }
  return backup;
}

/** True when every directory between `root` and `rel` is still a real directory (not a symlink). */
async function insideRealDirectories(root: string, rel: string): Promise<boolean> {
  const parts = rel.split('/').slice(0, -1);
  for (let i = 1; i <= parts.length; i++) {
    const st = await lstat(path.join(root, ...parts.slice(0, i))).catch(() => undefined);
    if (!st?.isDirectory()) return false;
  }
  return true;
}

/**
 * Empties the backup of what it is safe to delete: files the tool wrote, still as they were when
 * scanned, and carried-over entries still the very inode we carried (unchanged since the scan
 * when they were copied). Anything else stays, and so does the backup, named in a warning.
 */
export async function cleanUpBackup(
  backup: string,
  existing: ExistingOutput,
  plan: WritePlan,
  linkedInNewTree: Set<string>,
): Promise<string[]> {
  const owned = [...(existing.ownedPaths ?? []), INDEX_FILE].filter((p) => {
    const type = existing.entries.get(p)?.type;
    return type !== undefined && type !== 'dir';
  });
  for (const p of owned) {
    if (!(await insideRealDirectories(backup, p))) continue;
    const scanned = existing.entries.get(p)!;
    const now = await lstat(path.join(backup, p)).catch(() => undefined);
    // edited (or replaced) while this run wrote: kept with the backup
    if (now && (now.ino !== scanned.ino || now.size !== scanned.size || now.mtimeMs !== scanned.mtimeMs)) continue;
    await unlink(path.join(backup, p)).catch((err) => {
      if (errorCode(err) !== 'ENOENT') throw err;
    });
  }
  for (const p of plan.carried) {
    const scanned = existing.entries.get(p)!;
    if (!(await insideRealDirectories(backup, p))) continue;
    const now = await lstat(path.join(backup, p)).catch(() => undefined);
    const same =
      now !== undefined &&
      now.ino === scanned.ino &&
      (linkedInNewTree.has(p) || (now.size === scanned.size && now.mtimeMs === scanned.mtimeMs));
    if (same) await unlink(path.join(backup, p));
  }
  const dirs = [...existing.entries].filter(([, e]) => e.type === 'dir').map(([p]) => p);
  for (const dir of [...deepestFirst(dirs), '']) {
    await rmdir(path.join(backup, dir)).catch((err) => {
      if (!['ENOTEMPTY', 'EEXIST', 'ENOENT', 'ENOTDIR'].includes(errorCode(err) ?? '')) throw err;
    });
  }
  return (await exists(backup))
    ? [`the output directory changed while it was being written; the previous tree, with what changed, was kept at ${backup}`]
    : [];
}

/** Carried-over entries that are hard links (same inode) in the new tree, not copies. */
async function linkedEntries(root: string, existing: ExistingOutput, plan: WritePlan): Promise<Set<string>> {
  const linked = new Set<string>();
  await inPool(plan.carried, async (p) => {
    const st = await lstat(path.join(root, p));
    if (st.ino === existing.entries.get(p)!.ino) linked.add(p);
  });
  return linked;
}

function writeFailure(target: Target, err: unknown): Error {
  if (err instanceof CapiGitopsError || err instanceof InterruptedError) return err;
  return new CapiGitopsError({
    file: target.path,
    message: `could not write the output directory: ${(err as Error).message}`,
    hint: target.exists ? 'nothing in the output directory was changed' : 'the output directory was not created',
  });
}

/** Puts the previous tree back after a swap: the new tree goes to `discard` (deleted), the backup (if any) back to outDir. */
async function undoSwap(target: Target, backup: string | undefined, discard: string): Promise<void> {
  await rename(target.path, discard);
  if (backup) await rename(backup, target.path);
  await rm(discard, { recursive: true, force: true });
}

/** The bytes of the owned files this run rewrites or removes, as they were (ownedContents holds those of equal size already). */
async function previousContents(target: Target, existing: ExistingOutput, plan: WritePlan): Promise<Map<string, Buffer>> {
  const owned = new Set(existing.ownedPaths ?? []);
  const previous = new Map<string, Buffer>();
  await Promise.all(
    [...plan.written, ...plan.removed].map(async (p) => {
      const known = existing.ownedContents.get(p);
      if (known) previous.set(p, known);
      else if (owned.has(p) && existing.entries.get(p)?.type === 'file') previous.set(p, await readFile(path.join(target.path, p)));
    }),
  );
  return previous;
}

function writeSummary(target: Target, plan: WritePlan, warnings: string[], previous: Map<string, Buffer>): WriteSummary {
  return { directory: target.path, written: plan.written, unchanged: plan.unchanged, removed: plan.removed, warnings, previous };
}

/** How writeOutput writes: `shownAs` is the output directory as the user gave it, to name its entries in problems (outDir by default). */
export interface WriteOptions {
  alongside?: PreparedFile[];
  known?: KnownDigests;
  shownAs?: string;
}

export async function writeOutput(outDir: string, files: OutputFiles, options: WriteOptions = {}): Promise<WriteSummary> {
  return waitedFor(writeNow(outDir, files, options));
}

/**
 * A write a signal waits for: it stops at its next step, or ends the swap it has begun. Registered
 * when the write begins, so after the files to commit alongside were prepared: a signal settles the
 * newest first, and would otherwise remove their temporaries before the write could rename them.
 */
async function waitedFor<T>(run: Promise<T>): Promise<T> {
  const withdraw = onInterrupt(() => run);
  try {
    return await run;
  } finally {
    withdraw();
  }
}

async function writeNow(outDir: string, files: OutputFiles, options: WriteOptions): Promise<WriteSummary> {
  await refusePathProblems(files, options.alongside ?? []);
  let locked: LockedOutput;
  try {
    locked = await lockOutput(outDir);
  } catch (err) {
    await abortAll(options.alongside ?? []).catch(() => undefined);
    throw err;
  }
  try {
    return await locked.write(files, options);
  } finally {
    await locked.release();
  }
}

/** Refuses paths no output may hold, before anything is written (the files to commit alongside removed). */
async function refusePathProblems(files: OutputFiles, alongside: readonly PreparedFile[]): Promise<void> {
  const pathProblems = filePathProblems(files.keys());
  if (pathProblems.length === 0) return;
  await abortAll(alongside).catch(() => undefined);
  throw new CapiGitopsError(pathProblems);
}

/** The output directory held by this run alone: `write` it (as writeOutput does, at most once), then `release` the lock. */
export interface LockedOutput {
  write(files: OutputFiles, options?: WriteOptions): Promise<WriteSummary>;
  release(): Promise<void>;
}

/**
 * Takes the output directory's lock (what killed runs left is settled), for a writer that decides
 * what to write with it under the same lock: a render reads and compares the lockfile there.
 * `write` stops at once when a signal came meanwhile (the files prepared to commit alongside are
 * removed), else a signal waits for it; the caller releases the lock.
 */
export async function lockOutput(outDir: string): Promise<LockedOutput> {
  const { target, release, warnings } = await lockTarget(outDir);
  let written = false;
  return {
    write: async (files, options = {}) => {
      const alongside = options.alongside ?? [];
      if (written) throw new Error('the locked output was written already');
      written = true;
      await refusePathProblems(files, alongside);
      try {
        // a signal while the caller decided: nothing has begun, and the prepared files may be gone already
        throwIfInterrupted();
        return await waitedFor(writeLocked(target, files, alongside, warnings, options.known, options.shownAs ?? outDir));
      } catch (err) {
        await abortAll(alongside).catch(() => undefined);
        throw err;
      }
    },
    release,
  };
}

/** Records, for the message a signal prints, that the output (and the files committed with it) changed. */
function recordWrite(target: Target, alongside: readonly PreparedFile[], outputChanged: boolean): void {
  const what = [...(outputChanged ? [target.path] : []), ...alongside.map((file) => file.file)];
  if (what.length > 0) recordCommitted(`wrote ${what.join(' and ')}`);
}

async function writeLocked(
  target: Target,
  files: OutputFiles,
  alongside: PreparedFile[],
  leftoverWarnings: string[],
  known?: KnownDigests,
  shownAs = target.path,
): Promise<WriteSummary> {
  const existing = await readExisting(target, files);
  const plan = planWrite(existing, files, known?.digests, shownAs);
  const warnings = [...leftoverWarnings, ...keptWarning(target, existing.kept ?? []), ...unwrittenWarning(target, plan.unwritten)];
  const summary = writeSummary(target, plan, warnings, await previousContents(target, existing, plan));
  if (!plan.changed && target.exists) {
    for (const file of alongside) await file.commit();
    recordWrite(target, alongside, false);
    return summary;
  }

  throwIfInterrupted();
  const tmp = scratchPath(target.path, 'stage');
  await inScratchDirectory(path.dirname(target.path), () => mkdir(tmp)).catch((err) => {
    throw writeFailure(target, err);
  });
  return installTree(target, tmp, existing, plan, alongside, summary, () =>
    buildTree(tmp, target, existing, plan, files, summary.warnings),
  );
}

/**
 * Completes the new tree in `tmp` (`build`), swaps it in, commits the files written alongside
 * (undoing the swap if one fails) and empties the backup of the previous tree.
 */
async function installTree(
  target: Target,
  tmp: string,
  existing: ExistingOutput,
  plan: WritePlan,
  alongside: PreparedFile[],
  summary: WriteSummary,
  build: () => Promise<void>,
): Promise<WriteSummary> {
  let linked: Set<string>;
  let backup: string | undefined;
  try {
    await build();
    linked = await linkedEntries(tmp, existing, plan);
    // The last step a signal stops: from the first rename on, the write runs to its end.
    throwIfInterrupted();
    backup = await swapIn(tmp, target);
  } catch (err) {
    // Both renames undone or never done: the temporary tree is ours alone to delete.
    if (!(err instanceof CapiGitopsError)) await rm(tmp, { recursive: true, force: true });
    throw writeFailure(target, err);
  }
  try {
    for (const file of alongside) await file.commit();
  } catch (err) {
    const undone = await undoSwap(target, backup, scratchPath(target.path, 'stage')).then(
      () => true,
      () => false,
    );
    throw new CapiGitopsError({
      file: target.path,
      message: `the output was written but the lockfile could not be (${(err as Error).message})`,
      hint: undone
        ? 'the previous output was put back; nothing was changed'
        : `the previous output is at ${backup ?? '(none)'}; rename it to ${target.path}`,
    });
  }
  recordWrite(target, alongside, true);
  if (backup) {
    const backupWarnings = await cleanUpBackup(backup, existing, plan, linked).catch((err: Error) => [
      `the new output is in place, but cleaning up the previous tree at ${backup} failed: ${err.message}`,
    ]);
    summary.warnings.push(...backupWarnings);
  }
  return summary;
}

const EMPTY = new Uint8Array();

interface StagedFile {
  size: number;
  digest: string;
}

interface OpenStage {
  target: Target;
  release: () => Promise<void>;
  /** The new tree. */
  tmp: string;
  /** Files held until their place is known. */
  held: string;
  warnings: string[];
}

/**
 * A write in stages, for output made piece by piece (a fleet, cluster after cluster): each file
 * goes into the new tree beside the output directory as soon as it is made, so nothing waits in
 * memory; `commit` then swaps the tree in with writeOutput's guarantees (the lock, the ownership
 * index, files the tool did not write carried over, an unchanged file keeping its inode, nothing
 * written when nothing changed). A file whose place is not known yet is held under a key
 * (`hold`) and put in place later (`place`). The stage opens on the first file, so a run that
 * fails before it leaves no trace; `abort` removes what was staged.
 */
export class OutputStage {
  private opened?: Promise<OpenStage>;
  private readonly files = new Map<string, StagedFile>();
  private readonly heldFiles = new Map<string, StagedFile>();
  private readonly directories = new Set<string>();
  /** Writes under way: `abort` waits for them, or one would recreate a directory it removed. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private done = false;

  /** `shownAs`: the output directory as the user gave it, to name its entries in problems. */
  constructor(
    private readonly outDir: string,
    private readonly shownAs = outDir,
  ) {}

  /** Writes a file of the new tree now. */
  write(file: string, content: string | Uint8Array): Promise<void> {
    return this.tracked(async () => {
      const stage = await this.open(file);
      const bytes = bytesOf(content);
      await this.directory(stage.tmp, file);
      await writeFile(path.join(stage.tmp, file), bytes);
      this.files.set(file, { size: bytes.length, digest: sha256Hex(bytes) });
    });
  }

  private tracked(operation: () => Promise<void>): Promise<void> {
    const running = operation();
    this.inFlight.add(running);
    return running.finally(() => this.inFlight.delete(running));
  }

  /** Writes files now, a few at a time. */
  async writeAll(files: Iterable<[string, string | Uint8Array]>): Promise<void> {
    await inPool([...files], ([file, content]) => this.write(file, content));
  }

  /** Holds a file outside the tree under `key` (a file name) until `place` puts it in. */
  hold(key: string, content: string | Uint8Array): Promise<void> {
    if (!/^[0-9a-z][0-9a-z.-]*$/.test(key)) throw new Error(`a held file's key must be a plain file name: ${JSON.stringify(key)}`);
    // open() without a file is also commit's: a hold after the end would open a stage anew
    if (this.done) return Promise.reject(new Error('the stage was committed or aborted already'));
    return this.tracked(async () => {
      const stage = await this.open();
      const bytes = bytesOf(content);
      await writeFile(path.join(stage.held, key), bytes);
      this.heldFiles.set(key, { size: bytes.length, digest: sha256Hex(bytes) });
    });
  }

  /** Puts held files at their places, `[key, file]`, a few at a time. */
  async placeAll(placements: Iterable<[string, string]>): Promise<void> {
    await inPool([...placements], ([key, file]) => this.place(key, file));
  }

  /** Puts a held file at its place in the tree (by a rename: it is not written again). */
  place(key: string, file: string): Promise<void> {
    const held = this.heldFiles.get(key);
    if (!held) throw new Error(`no file is held under ${key}`);
    return this.tracked(async () => {
      const stage = await this.open(file);
      await this.directory(stage.tmp, file);
      await rename(path.join(stage.held, key), path.join(stage.tmp, file));
      this.heldFiles.delete(key);
      this.files.set(file, held);
    });
  }

  /** Swaps the staged tree in (the lockfile and other `alongside` files with it) and says what changed. */
  commit(alongside: PreparedFile[] = []): Promise<WriteSummary> {
    return waitedFor(this.commitNow(alongside));
  }

  private async commitNow(alongside: PreparedFile[]): Promise<WriteSummary> {
    if (this.done) throw new Error('the stage was committed or aborted already');
    this.done = true;
    let stage: OpenStage | undefined;
    // once installing, installTree owns the temporary tree (it may hold the only copy of an output)
    let installing = false;
    try {
      stage = await this.open();
      const { target, tmp, held } = stage;
      await rm(held, { recursive: true, force: true });
      // a signal while the caller decided what to commit alongside: nothing is swapped in
      throwIfInterrupted();
      if (this.heldFiles.size > 0) throw new Error(`held files never placed: ${[...this.heldFiles.keys()].join(', ')}`);
      const pathProblems = filePathProblems(this.files.keys());
      if (pathProblems.length > 0) throw new CapiGitopsError(pathProblems);
      const existing = await scanExisting(target);
      // planWrite reads only the paths of these files: sameAsNew tells which are unchanged and the digests give the index
      const files = new Map([...this.files.keys()].map((p) => [p, EMPTY]));
      // as writeOutput does: a listed file this run would remove is kept unless proven the tool's own
      if (existing.listed !== undefined) await keepUnproven(target, existing, existing.listed, files);
      existing.sameAsNew = await this.sameAsBefore(target, existing);
      const plan = planWrite(existing, files, new Map([...this.files].map(([p, f]) => [p, f.digest])), this.shownAs);
      const warnings = [...stage.warnings, ...keptWarning(target, existing.kept ?? []), ...unwrittenWarning(target, plan.unwritten)];
      const summary = writeSummary(target, plan, warnings, await previousContents(target, existing, plan));
      if (!plan.changed && target.exists) {
        await rm(tmp, { recursive: true, force: true });
        for (const file of alongside) await file.commit();
        return summary;
      }
      installing = true;
      return await installTree(target, tmp, existing, plan, alongside, summary, () =>
        finishStagedTree(tmp, target, existing, plan, this.directories),
      );
    } catch (err) {
      await Promise.all(alongside.map((file) => file.abort().catch(() => undefined)));
      if (stage && !installing) await rm(stage.tmp, { recursive: true, force: true }).catch(() => undefined);
      throw err;
    } finally {
      await stage?.release();
    }
  }

  /**
   * Takes the output directory's lock now, unless a staged file took it already: what the caller
   * decides next (the lockfile) is this writer's alone until commit or abort.
   */
  async lock(): Promise<void> {
    if (this.done) throw new Error('the stage was committed or aborted already');
    await this.open();
  }

  /** Removes what was staged; the output directory was never touched. */
  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await Promise.allSettled([...this.inFlight]);
    const stage = await this.opened?.catch(() => undefined);
    if (!stage) return;
    await rm(stage.tmp, { recursive: true, force: true }).catch(() => undefined);
    await rm(stage.held, { recursive: true, force: true }).catch(() => undefined);
    await stage.release();
  }

  private open(file?: string): Promise<OpenStage> {
    if (this.done && file !== undefined) throw new Error('the stage was committed or aborted already');
    const problem = file === undefined ? undefined : outputPathProblem(file);
    if (problem) {
      throw new CapiGitopsError({
        message: `output path ${JSON.stringify(file)} ${problem}`,
        expected: 'a relative path such as 01-cluster-api/deployment-capi-controller-manager.yaml',
      });
    }
    this.opened ??= (async () => {
      const { target, release, warnings } = await lockTarget(this.outDir);
      try {
        const tmp = scratchPath(target.path, 'stage');
        const held = scratchPath(target.path, 'stage');
        await inScratchDirectory(path.dirname(target.path), () => mkdir(tmp)).catch((err) => {
          throw writeFailure(target, err);
        });
        await inScratchDirectory(path.dirname(target.path), () => mkdir(held)).catch(async (err) => {
          await rm(tmp, { recursive: true, force: true });
          throw writeFailure(target, err);
        });
        return { target, release, tmp, held, warnings };
      } catch (err) {
        await release();
        throw err;
      }
    })();
    return this.opened;
  }

  private async directory(tmp: string, file: string): Promise<void> {
    const dir = path.posix.dirname(file);
    if (dir === '.' || this.directories.has(dir)) return;
    await mkdir(path.join(tmp, dir), { recursive: true });
    for (const made of [...ancestors(file)]) this.directories.add(made);
  }

  /** Files the previous run wrote that hold the staged bytes already, found by hashing each of the same size. */
  private async sameAsBefore(target: Target, existing: ExistingOutput): Promise<Set<string>> {
    const owned = new Set(existing.ownedPaths ?? []);
    const same = new Set<string>();
    const candidates = [...this.files].filter(([p, f]) => {
      const entry = existing.entries.get(p);
      return owned.has(p) && entry?.type === 'file' && entry.size === f.size;
    });
    await inPool(candidates, async ([p, f]) => {
      if (sha256Hex(await readFile(path.join(target.path, p))) === f.digest) same.add(p);
    });
    return same;
  }
}

/** The staged tree completed: directories, entries the tool did not write, unchanged files linked to keep their inode, the index. */
async function finishStagedTree(
  tmp: string,
  target: Target,
  existing: ExistingOutput,
  plan: WritePlan,
  made: ReadonlySet<string>,
): Promise<void> {
  for (const dir of plan.directories) if (!made.has(dir)) await mkdir(path.join(tmp, dir), { recursive: true });
  await inPool(plan.carried, (p) => carryOver(path.join(target.path, p), path.join(tmp, p), existing.entries.get(p)!));
  const rewritten = [...plan.written, INDEX_FILE];
  await inPool(plan.unchanged, async (p) => {
    // the staged copy holds the same bytes, so it stays where linking is refused
    const aside = `${path.join(tmp, p)}.${randomBytes(6).toString('hex')}`;
    try {
      await link(path.join(target.path, p), aside);
      await rename(aside, path.join(tmp, p));
    } catch {
      await rm(aside, { force: true });
      rewritten.push(p);
    }
  });
  await writeFile(path.join(tmp, INDEX_FILE), plan.indexText);
  keepFileModes(tmp, existing, rewritten);
  for (const dir of deepestFirst(plan.directories)) {
    const old = existing.entries.get(dir);
    if (old?.type === 'dir') await chmod(path.join(tmp, dir), old.mode);
  }
  if (target.mode !== undefined) await chmod(tmp, target.mode);
}
