import path from 'node:path';
import { CapiGitopsError, type Diagnostic, compareStrings } from '../core/diagnostics.js';
import { shellWord } from '../core/shell.js';
import { ancestors, INDEX_FILE } from '../layout/output-paths.js';
import { formatIndex, formatIndexOfDigests } from './ownership-index.js';
import { parentOf, type TreeEntry } from './tree.js';
import { directoriesToRecord, unwrittenFiles } from './unwritten-files.js';

/**
 * The files to write: relative path → text, or its UTF-8 bytes (a render encodes them once, so an
 * unchanged file is compared and hashed without being decoded and encoded again).
 */
export type OutputFiles = ReadonlyMap<string, string | Uint8Array>;

/** What the output directory holds before the write. */
export interface ExistingOutput {
  entries: Map<string, TreeEntry>;
  /** Paths from the previous run's index; undefined when there is no index. */
  ownedPaths: string[] | undefined;
  indexText: string | undefined;
  /** Bytes of previously written files that this run writes again (to detect "unchanged"). */
  ownedContents: Map<string, Buffer>;
  /** Previously written files known, without reading them, to hold this run's bytes already (same sha256). */
  sameAsNew?: ReadonlySet<string>;
  /** Files the index lists that this run would remove, kept: their bytes are not the ones recorded (not in ownedPaths). */
  kept?: readonly string[];
  /** Those of `kept` that still begin as the tool writes a file: written by it, then edited by hand. */
  edited?: readonly string[];
  /** Directories of earlier renders the index records as holding a file the tool did not write (ownership-index.ts). */
  keptDirectories?: readonly string[];
}

/** What the new tree will hold, and how it differs from the old one. */
export interface WritePlan {
  /** Owned files that are new or whose bytes change. */
  written: string[];
  /** Owned files whose bytes stay the same. */
  unchanged: string[];
  /** Files the previous run wrote that this run does not. */
  removed: string[];
  /** Entries (files, symlinks, …) the tool did not write: carried into the new tree as they are. */
  carried: string[];
  /** The carried entries in a directory this run or the previous one writes into, which Argo CD or Flux may apply (unwritten-files.ts). */
  unwritten: string[];
  /** Every directory of the new tree, parents first. */
  directories: string[];
  indexText: string;
  /** False when the new tree would equal the old one byte for byte: nothing needs writing. */
  changed: boolean;
}

/** A file's bytes: its text encoded, or the bytes a render encoded already. */
export function bytesOf(content: string | Uint8Array): Uint8Array {
  return typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
}

function describeEntry(entry: TreeEntry): string {
  return entry.type === 'dir' ? 'a directory' : entry.type === 'symlink' ? 'a symlink' : 'a file';
}

/** Directories of the old tree that hold nothing. */
function emptyDirectories(entries: Map<string, TreeEntry>): Set<string> {
  const dirs = new Set([...entries].filter(([, e]) => e.type === 'dir').map(([p]) => p));
  for (const p of entries.keys()) dirs.delete(parentOf(p));
  return dirs;
}

/**
 * Plans the new tree: the new files, plus every entry the tool did not write, carried over.
 * A directory survives when it holds something carried over, or when it was empty and the tool
 * never wrote inside it (a user's empty directory); directories that only held removed files go.
 * Throws when a new file would land on, or need a directory where there is, something the tool
 * did not write.
 */
export function planWrite(
  existing: ExistingOutput,
  files: OutputFiles,
  digests?: ReadonlyMap<string, string>,
  /** The output directory as the user gave it: a problem names its entry by that path. */
  shownAs = '.',
): WritePlan {
  const { entries } = existing;
  const owned = new Set(existing.ownedPaths ?? []);
  // a kept directory emptied by hand is the tool's, like those of the files it wrote
  const keptDirectories = existing.keptDirectories ?? [];
  const ownedDirs = new Set([...[...owned].flatMap(ancestors), ...keptDirectories]);

  const carried = [...entries]
    .filter(([p, e]) => e.type !== 'dir' && p !== INDEX_FILE && !owned.has(p))
    .map(([p]) => p)
    .sort(compareStrings);
  const carriedSet = new Set(carried);
  const keptDirs = new Set(carried.flatMap(ancestors));
  for (const dir of emptyDirectories(entries)) if (!ownedDirs.has(dir)) keptDirs.add(dir);

  const problems: Diagnostic[] = [];
  // the file field names the entry as the user reaches it; the hint's command works on it as printed
  const inTheWay = (entry: string, message: string): Diagnostic => {
    const file = path.join(shownAs, entry);
    const hint = `move it out of the output directory, or delete it (rm -r -- ${shellWord(file)}): capi-gitops never overwrites what it did not write; or choose another output directory`;
    return { file, message, hint };
  };
  // one problem per entry in the way: a symlink where a component directory goes blocks all its files
  const blocked = new Map<string, string[]>();
  for (const p of [...files.keys()].sort(compareStrings)) {
    const entry = entries.get(p);
    if (entry && (carriedSet.has(p) || keptDirs.has(p))) {
      problems.push(inTheWay(p, `is ${describeEntry(entry)} capi-gitops did not write; this run would write a file there`));
    }
    for (const dir of ancestors(p)) if (carriedSet.has(dir)) blocked.set(dir, [...(blocked.get(dir) ?? []), p]);
  }
  for (const [dir, [first, ...more]] of blocked) {
    const others = more.length === 0 ? '' : ` and ${more.length} more file${more.length === 1 ? '' : 's'}`;
    problems.push(
      inTheWay(
        dir,
        `is ${describeEntry(entries.get(dir)!)} capi-gitops did not write; this run needs a directory there for ${first}${others}`,
      ),
    );
  }
  if (problems.length > 0) throw new CapiGitopsError(problems);

  const written: string[] = [];
  const unchanged: string[] = [];
  for (const [p, content] of [...files].sort(([a], [b]) => compareStrings(a, b))) {
    const old = existing.ownedContents.get(p);
    if (existing.sameAsNew?.has(p) && owned.has(p)) unchanged.push(p);
    else if (old && owned.has(p) && old.equals(bytesOf(content))) unchanged.push(p);
    else written.push(p);
  }
  const removed = [...owned].filter((p) => !files.has(p) && entries.has(p) && entries.get(p)!.type !== 'dir').sort(compareStrings);

  const directories = new Set(keptDirs);
  for (const p of files.keys()) for (const dir of ancestors(p)) directories.add(dir);
  const oldDirectories = [...entries].filter(([, e]) => e.type === 'dir').map(([p]) => p);
  const sameDirectories = oldDirectories.length === directories.size && oldDirectories.every((d) => directories.has(d));

  const unwritten = unwrittenFiles(carried, files.keys(), [...owned, ...(existing.kept ?? [])], keptDirectories);
  // a file it wrote and kept (edited since) is not the tool's any more either; one an altered
  // index listed (it never began as the tool writes) claims no directory of yours
  const unwrittenDirs = directoriesToRecord([...unwritten, ...(existing.edited ?? [])], files.keys());
  // The sha256 of each file, when the caller knows them (a render encoded them), spares hashing every file again.
  const known = digests && digests.size === files.size && [...files.keys()].every((p) => digests.has(p));
  const indexText = known ? formatIndexOfDigests(digests, unwrittenDirs) : formatIndex(files, unwrittenDirs);
  const changed = written.length > 0 || removed.length > 0 || indexText !== existing.indexText || !sameDirectories;
  return { written, unchanged, removed, carried, unwritten, directories: [...directories].sort(compareStrings), indexText, changed };
}
