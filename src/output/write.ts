import { randomBytes } from 'node:crypto';
import {
  chmod,
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
import path from 'node:path';
import { CapiGitopsError } from '../core/diagnostics.js';
import { ancestors, filePathProblems, INDEX_FILE, outputPathProblem } from '../layout/output-paths.js';
import { sha256Hex } from '../core/digest.js';
import { parseIndex } from './ownership-index.js';
import { deepestFirst, scanTree, type TreeEntry } from './tree.js';
import { pathsToCompare, planWrite, type ExistingOutput, type OutputFiles, type WritePlan } from './write-plan.js';
import { assertWritableDirectory, lockOutputDirectory, processIsAlive } from './write-guard.js';
import { fileState, type FileDigests } from './file-digests.js';

/**
 * Writes the tool's files into an output directory and removes the ones a previous run wrote
 * but this run does not, without touching anything else.
 *
 * How: the complete new tree — new files, plus every entry the tool did not write, carried
 * over as hard links (a copy, or a recreated symlink, where linking is refused) — is
 * built in a directory beside outDir, then swapped in with two renames (outDir → backup,
 * new → outDir). Previously written files and carried-over links are then deleted from the backup.
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
 * - When the new tree equals the old one, nothing is written at all.
 * - No symlink is followed: the scan uses lstat and never enters a symlinked directory.
 * - Concurrent writers are refused: a lock file beside outDir names the process holding it.
 * - A read-only outDir (or a read-only directory inside it) is refused, not replaced.
 * - Files written `alongside` (the lockfile) are committed right after the swap; if one fails,
 *   the swap is undone, so the output and the lockfile change together or not at all.
 */

/** A file prepared beside its destination (written to a temporary name), committed by one rename. */
export interface PreparedFile {
  commit(): Promise<void>;
  abort(): Promise<void>;
}
/**
 * What the caller knows about the files (the output cache): the sha256 of each, and the digests
 * of files on disk from an earlier run, valid while their lstat is unchanged (kernel/file-digests.ts).
 * An owned file whose lstat matches a recorded digest equal to the new file's is not read back.
 */
export interface KnownDigests {
  digests: ReadonlyMap<string, string>;
  /** Absent when the caller only knows the new files' digests (a render, which encoded them). */
  onDisk?: FileDigests;
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
}

const POOL_SIZE = 32;

async function inPool<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(POOL_SIZE, items.length) }, worker));
}

function errorCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException)?.code;
}

/** outDir as an absolute real path; a missing outDir's parent is created so a sibling can be. */
async function resolveTarget(outDir: string): Promise<Target> {
  let dir = path.resolve(outDir);
  let st;
  try {
    st = await lstat(dir);
  } catch (err) {
    if (errorCode(err) !== 'ENOENT') await assertWritableDirectory(path.dirname(dir), "the output directory's parent");
    if (errorCode(err) !== 'ENOENT') throw err;
    await mkdir(path.dirname(dir), { recursive: true }).catch(() =>
      assertWritableDirectory(path.dirname(dir), "the output directory's parent"),
    );
    await assertWritableDirectory(path.dirname(dir), "the output directory's parent");
    return { path: dir, exists: false };
  }
  if (st.isSymbolicLink()) {
    dir = await realpath(dir).catch((cause: unknown) => {
      throw new CapiGitopsError({
        file: dir,
        message: `the output path is a symbolic link that cannot be followed (${errorCode(cause) ?? 'unreadable'})`,
        expected: 'a directory, or a path that does not exist yet',
        hint: `remove the link ${dir} or point it at a directory`,
      });
    });
    st = await stat(dir);
  }
  if (!st.isDirectory()) {
    throw new CapiGitopsError({
      file: dir,
      message: 'the output path exists and is not a directory',
      expected: 'a directory, or a path that does not exist yet',
      hint: 'choose another output directory',
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
  await assertWritableDirectory(dir, 'the output directory');
  await assertWritableDirectory(path.dirname(dir), "the output directory's parent");
  return { path: dir, exists: true, mode: st.mode & 0o7777 };
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

/** A fresh name beside `target`, on the same filesystem so renames are atomic. */
function siblingPath(target: string, purpose: 'tmp' | 'old'): string {
  return path.join(
    path.dirname(target),
    `.${path.basename(target)}.capi-gitops-${purpose}-${process.pid}-${randomBytes(6).toString('hex')}`,
  );
}

/**
 * Siblings left by a run that was killed (its process is gone). A temporary tree is only a
 * partial copy of output we can write again, so it is removed: left beside the output, it would
 * be committed with `git add`. A backup may be the only copy of the previous tree (killed
 * between the two renames), so it is kept and named in a warning.
 */
async function handleInterruptedRuns(target: Target): Promise<string[]> {
  const parent = path.dirname(target.path);
  const prefix = `.${path.basename(target.path)}.capi-gitops-`;
  const names = (await readdir(parent).catch(() => [] as string[])).filter((name) => name.startsWith(prefix)).sort();
  const warnings: string[] = [];
  for (const name of names) {
    const match = /^(tmp|old)-(\d+)-[0-9a-f]{12}$/.exec(name.slice(prefix.length));
    if (!match) continue;
    const pid = Number(match[2]);
    if (pid === process.pid || processIsAlive(pid)) continue;
    const leftover = path.join(parent, name);
    if (match[1] === 'tmp') {
      await rm(leftover, { recursive: true, force: true });
      warnings.push(`removed ${leftover}, an unfinished temporary tree left by an interrupted run (process ${pid})`);
    } else {
      warnings.push(
        `${leftover} holds the previous output of an interrupted run (process ${pid}); check that nothing in it is missing from ${target.path}, then delete it`,
      );
    }
  }
  return warnings;
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

/** The output directory as it is: every entry, and what the previous run's index says it wrote. */
async function scanExisting(target: Target): Promise<ExistingOutput> {
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
  const ownedPaths = parseIndex(indexText, indexPath);
  return { entries, ownedPaths, indexText, ownedContents: new Map() };
}

async function readExisting(target: Target, files: OutputFiles, known?: KnownDigests, confirmOnly = false): Promise<ExistingOutput> {
  const existing = await scanExisting(target);
  if (existing.ownedPaths === undefined) return existing;
  const sameAsNew = new Set<string>();
  existing.sameAsNew = sameAsNew;
  const compare = pathsToCompare(existing, files).filter((p) => {
    const onDisk = known?.onDisk?.digestOf(path.join(target.path, p), fileState(existing.entries.get(p)!));
    if (onDisk === undefined || onDisk !== known!.digests.get(p)) return true;
    sameAsNew.add(p);
    return false;
  });
  if (confirmOnly) return existing;
  const contents = await Promise.all(compare.map((p) => readFile(path.join(target.path, p))));
  compare.forEach((p, i) => existing.ownedContents.set(p, contents[i]));
  return existing;
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

async function buildTree(tmp: string, target: Target, existing: ExistingOutput, plan: WritePlan, files: OutputFiles): Promise<void> {
  for (const dir of plan.directories) await mkdir(path.join(tmp, dir), { recursive: true });
  await inPool(plan.carried, (p) => carryOver(path.join(target.path, p), path.join(tmp, p), existing.entries.get(p)!));
  await inPool(plan.unchanged, async (p) => {
    try {
      await link(path.join(target.path, p), path.join(tmp, p));
    } catch {
      await writeFile(path.join(tmp, p), files.get(p)!);
    }
  });
  await inPool(plan.written, (p) => writeFile(path.join(tmp, p), files.get(p)!));
  await writeFile(path.join(tmp, INDEX_FILE), plan.indexText);
  // Modes last: an old directory may have been read-only.
  for (const dir of deepestFirst(plan.directories)) {
    const old = existing.entries.get(dir);
    if (old?.type === 'dir') await chmod(path.join(tmp, dir), old.mode);
  }
  if (target.mode !== undefined) await chmod(tmp, target.mode);
}

async function swapIn(tmp: string, target: Target): Promise<string | undefined> {
  if (!target.exists) {
    await rename(tmp, target.path);
    return undefined;
  }
  const backup = siblingPath(target.path, 'old');
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
 * Empties the backup of what it is safe to delete: files the tool wrote, and carried-over
 * entries still the very inode we carried (unchanged since the scan when they were copied).
 * Anything else stays, and so does the backup, named in a warning.
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
  const left = await lstat(backup).then(
    () => true,
    () => false,
  );
  return left
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

function writeFailure(target: Target, err: unknown): CapiGitopsError {
  if (err instanceof CapiGitopsError) return err;
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

export async function writeOutput(
  outDir: string,
  files: OutputFiles,
  options: { alongside?: PreparedFile[]; known?: KnownDigests } = {},
): Promise<WriteSummary> {
  return (await writeOrConfirm(outDir, files, options))!;
}

/**
 * For a caller that knows each file's size and sha256 but has not loaded the bytes (the output
 * cache): the summary of a write that changes nothing, when the recorded digests prove every file
 * already holds its bytes and nothing else would change; undefined when the bytes are needed
 * (then nothing was written). The same checks run as for writeOutput (lock, writability, index).
 */
export async function confirmUnchanged(
  outDir: string,
  sizes: ReadonlyMap<string, number>,
  known: KnownDigests,
): Promise<WriteSummary | undefined> {
  // Stand-ins of the right length: sizes decide which files are compared; no stand-in is ever
  // compared, hashed or written, because any file not proven by its digest ends the run first.
  const blank = Buffer.alloc(Math.max(0, ...sizes.values()));
  const files = new Map([...sizes].map(([p, size]) => [p, blank.subarray(0, size)]));
  return writeOrConfirm(outDir, files, { known, confirmOnly: true });
}

async function writeOrConfirm(
  outDir: string,
  files: OutputFiles,
  options: { alongside?: PreparedFile[]; known?: KnownDigests; confirmOnly?: boolean },
): Promise<WriteSummary | undefined> {
  const alongside = options.alongside ?? [];
  const abortAlongside = () => Promise.all(alongside.map((file) => file.abort().catch(() => undefined)));
  const pathProblems = filePathProblems(files.keys());
  if (pathProblems.length > 0) {
    await abortAlongside();
    throw new CapiGitopsError(pathProblems);
  }
  let release: (() => Promise<void>) | undefined;
  try {
    const target = await resolveTarget(outDir);
    release = await lockOutputDirectory(target.path);
    return await writeLocked(target, files, alongside, options.known, options.confirmOnly);
  } catch (err) {
    await abortAlongside();
    throw err;
  } finally {
    await release?.();
  }
}

async function writeLocked(
  target: Target,
  files: OutputFiles,
  alongside: PreparedFile[],
  known?: KnownDigests,
  confirmOnly = false,
): Promise<WriteSummary | undefined> {
  // A confirmation that fails leaves everything to the write that follows, leftovers included.
  const interrupted = confirmOnly ? [] : await handleInterruptedRuns(target);
  const scannedAt = Date.now();
  const existing = await readExisting(target, files, known, confirmOnly);
  if (confirmOnly && [...files.keys()].some((p) => !existing.sameAsNew?.has(p))) return undefined;
  const plan = planWrite(existing, files, known?.digests);
  if (confirmOnly && (plan.changed || !target.exists)) return undefined;
  if (confirmOnly) interrupted.push(...(await handleInterruptedRuns(target)));
  const previous = await previousContents(target, existing, plan);
  const summary: WriteSummary = {
    directory: target.path,
    written: plan.written,
    unchanged: plan.unchanged,
    removed: plan.removed,
    warnings: interrupted,
    previous,
  };
  if (!plan.changed && target.exists) {
    // Read back and equal: the next run may trust their lstat (a rewrite would change every ctime).
    for (const p of plan.unchanged) {
      const digest = known?.digests.get(p);
      if (digest && known?.onDisk && !existing.sameAsNew?.has(p))
        known.onDisk.confirm(path.join(target.path, p), fileState(existing.entries.get(p)!), digest, scannedAt);
    }
    for (const file of alongside) await file.commit();
    return summary;
  }

  const tmp = siblingPath(target.path, 'tmp');
  await mkdir(tmp).catch((err) => {
    throw writeFailure(target, err);
  });
  return installTree(target, tmp, existing, plan, alongside, summary, () => buildTree(tmp, target, existing, plan, files));
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
    backup = await swapIn(tmp, target);
  } catch (err) {
    // Both renames undone or never done: the temporary tree is ours alone to delete.
    if (!(err instanceof CapiGitopsError)) await rm(tmp, { recursive: true, force: true });
    throw writeFailure(target, err);
  }
  try {
    for (const file of alongside) await file.commit();
  } catch (err) {
    const undone = await undoSwap(target, backup, siblingPath(target.path, 'tmp')).then(
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
  private done = false;

  constructor(private readonly outDir: string) {}

  /** Writes a file of the new tree now. */
  async write(file: string, content: string | Uint8Array): Promise<void> {
    const stage = await this.open(file);
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    await this.directory(stage.tmp, file);
    await writeFile(path.join(stage.tmp, file), bytes);
    this.files.set(file, { size: bytes.length, digest: sha256Hex(bytes) });
  }

  /** Writes files now, a few at a time. */
  async writeAll(files: Iterable<[string, string | Uint8Array]>): Promise<void> {
    await inPool([...files], ([file, content]) => this.write(file, content));
  }

  /** Holds a file outside the tree under `key` (a file name) until `place` puts it in. */
  async hold(key: string, content: string | Uint8Array): Promise<void> {
    if (!/^[0-9a-z][0-9a-z.-]*$/.test(key)) throw new Error(`a held file's key must be a plain file name: ${JSON.stringify(key)}`);
    const stage = await this.open();
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    await writeFile(path.join(stage.held, key), bytes);
    this.heldFiles.set(key, { size: bytes.length, digest: sha256Hex(bytes) });
  }

  /** Puts held files at their places, `[key, file]`, a few at a time. */
  async placeAll(placements: Iterable<[string, string]>): Promise<void> {
    await inPool([...placements], ([key, file]) => this.place(key, file));
  }

  /** Puts a held file at its place in the tree (by a rename: it is not written again). */
  async place(key: string, file: string): Promise<void> {
    const held = this.heldFiles.get(key);
    if (!held) throw new Error(`no file is held under ${key}`);
    const stage = await this.open(file);
    await this.directory(stage.tmp, file);
    await rename(path.join(stage.held, key), path.join(stage.tmp, file));
    this.heldFiles.delete(key);
    this.files.set(file, held);
  }

  /** Swaps the staged tree in (the lockfile and other `alongside` files with it) and says what changed. */
  async commit(alongside: PreparedFile[] = []): Promise<WriteSummary> {
    if (this.done) throw new Error('the stage was committed or aborted already');
    this.done = true;
    let stage: OpenStage | undefined;
    // once installing, installTree owns the temporary tree (it may hold the only copy of an output)
    let installing = false;
    try {
      stage = await this.open();
      const { target, tmp, held } = stage;
      await rm(held, { recursive: true, force: true });
      if (this.heldFiles.size > 0) throw new Error(`held files never placed: ${[...this.heldFiles.keys()].join(', ')}`);
      const pathProblems = filePathProblems(this.files.keys());
      if (pathProblems.length > 0) throw new CapiGitopsError(pathProblems);
      const existing = await scanExisting(target);
      existing.sameAsNew = await this.sameAsBefore(target, existing);
      // planWrite reads only the paths of these files: sameAsNew tells which are unchanged and the digests give the index
      const files = new Map([...this.files.keys()].map((p) => [p, EMPTY]));
      const plan = planWrite(existing, files, new Map([...this.files].map(([p, f]) => [p, f.digest])));
      const summary: WriteSummary = {
        directory: target.path,
        written: plan.written,
        unchanged: plan.unchanged,
        removed: plan.removed,
        warnings: stage.warnings,
        previous: await previousContents(target, existing, plan),
      };
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

  /** Removes what was staged; the output directory was never touched. */
  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
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
      const target = await resolveTarget(this.outDir);
      const release = await lockOutputDirectory(target.path);
      try {
        const warnings = await handleInterruptedRuns(target);
        const tmp = siblingPath(target.path, 'tmp');
        const held = siblingPath(target.path, 'tmp');
        await mkdir(tmp).catch((err) => {
          throw writeFailure(target, err);
        });
        await mkdir(held).catch(async (err) => {
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
  await inPool(plan.unchanged, async (p) => {
    // the staged copy holds the same bytes, so it stays where linking is refused
    const aside = `${path.join(tmp, p)}.${randomBytes(6).toString('hex')}`;
    try {
      await link(path.join(target.path, p), aside);
      await rename(aside, path.join(tmp, p));
    } catch {
      await rm(aside, { force: true });
    }
  });
  await writeFile(path.join(tmp, INDEX_FILE), plan.indexText);
  for (const dir of deepestFirst(plan.directories)) {
    const old = existing.entries.get(dir);
    if (old?.type === 'dir') await chmod(path.join(tmp, dir), old.mode);
  }
  if (target.mode !== undefined) await chmod(tmp, target.mode);
}
