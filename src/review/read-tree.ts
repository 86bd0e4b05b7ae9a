import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CapiGitopsError, DiagnosticBag, type Diagnostic } from '../core/diagnostics.js';
import { mapLimited, OPEN_FILES } from '../core/map-limited.js';
import { refuseNonDirectory, scanTree } from '../output/tree.js';
import { YamlBudget } from '../yaml/bounds.js';
import { isHidden } from '../output/unwritten-files.js';
import { clusterOf, clusterOrder } from './objects.js';

/**
 * A review side's files a group at a time (review.ts `ChangesReview`): those outside every fleet
 * cluster's directory held, each cluster's read when it is reviewed, so that a fleet's texts are
 * never all in memory.
 */
export interface ReviewTree {
  /** Every file's path. */
  paths: readonly string[];
  /** The files outside every cluster's directory: a fleet's root and bases, or all of a single cluster's tree. */
  rest: ReadonlyMap<string, string>;
  /** The fleet's clusters, in their directories' order. */
  clusters: readonly string[];
  /** The files of cluster `name` (`clusters/<name>/…`); none for a cluster the tree does not have. */
  cluster(name: string): Promise<ReadonlyMap<string, string>>;
  /** The texts of `files` (some of `paths`), in their order. */
  read(files: readonly string[]): Promise<Map<string, string>>;
  /** An output directory's: the problems of the bounds of the files read so far (openOutputTree). */
  boundsProblems?(): Diagnostic[];
}

/** `paths` in groups, in their order: those outside every fleet cluster's directory, and each cluster's. */
export function clusterGroups(paths: Iterable<string>): { rest: string[]; clusters: Map<string, string[]> } {
  const rest: string[] = [];
  const clusters = new Map<string, string[]>();
  for (const p of paths) {
    const cluster = clusterOf(p);
    if (!cluster) rest.push(p);
    else if (clusters.has(cluster)) clusters.get(cluster)!.push(p);
    else clusters.set(cluster, [p]);
  }
  return { rest, clusters };
}

/** The tree of `paths`, each group's texts through `read` (in the paths' order). */
export async function groupedTree(
  paths: readonly string[],
  read: (files: readonly string[]) => Promise<Map<string, string>>,
): Promise<ReviewTree> {
  const { rest, clusters } = clusterGroups(paths);
  return {
    paths,
    rest: await read(rest),
    clusters: clusterOrder(clusters.keys()),
    cluster: (name) => read(clusters.get(name) ?? []),
    read,
  };
}

/** A tree held in memory (a single cluster's render) as a review reads it. */
export function treeInMemory(files: ReadonlyMap<string, string>): Promise<ReviewTree> {
  return groupedTree([...files.keys()], async (paths) => new Map(paths.map((p) => [p, files.get(p)!])));
}

/** An output directory as a review side: its files' bounds are checked as they are read. */
interface OutputTree extends ReviewTree {
  /** The problems of the bounds of the files read so far, each file's once. */
  boundsProblems(): Diagnostic[];
  /** Reads every file; throws their bounds' problems, if any, with those of `found` (found first; one of no file is thrown alone). */
  checkBounds(found?: unknown): Promise<void>;
}

/**
 * The visible files of an output directory, as a review side. Hidden entries (the ownership
 * index, `.git`, `.gitattributes`) are not objects and are left out. Each file is held to the
 * YAML node and depth bounds before any parser sees it, as manifests and the lockfile are: a
 * committed file is input like them (12 MB of flow list cost a diff 2 s and 300 MB). A file out
 * of bounds is left out of what is read (never parsed); its problem is thrown before any other of
 * the review (`reviewTrees`), or by `checkBounds` with one found earlier.
 */
export async function openOutputTree(dir: string): Promise<OutputTree> {
  const root = path.resolve(dir);
  await refuseNonDirectory(dir);
  const entries = await scanTree(root).catch((err: NodeJS.ErrnoException) => {
    // only a directory that is not there is rendered into; any other failure (a directory it
    // may not read, a link loop) is told, path and all, as every file-system error is
    if (err.code !== 'ENOENT') throw err;
    throw new CapiGitopsError({
      file: dir,
      message: `cannot read the directory: ${err.code ?? err.message}`,
      expected: 'a directory capi-gitops rendered',
      hint: 'check the path, or render into it first with capi-gitops render',
    });
  });
  const files = [...entries]
    .filter(([p, e]) => e.type === 'file' && !isHidden(p))
    .map(([p]) => p)
    .sort();
  // by file: a file both sides read (one render leaves in place) is told once
  const problems = new Map<string, Diagnostic[]>();
  const read = async (paths: readonly string[]) => {
    const texts = await mapLimited(paths, OPEN_FILES, (p) => readFile(path.join(root, p), 'utf8'));
    const inBounds = new Map<string, string>();
    // every file, not only *.yaml: a base's kustomization may list a resource of any name, and review parses it
    paths.forEach((p, i) => {
      const found = boundsProblems(texts[i]!, path.join(dir, p));
      if (found.length > 0) problems.set(p, found);
      else inBounds.set(p, texts[i]!);
    });
    return inBounds;
  };
  const tree = await groupedTree(files, read);
  const boundsProblemsRead = () => [...problems.values()].flat();
  const checkBounds = async (found?: unknown) => {
    if (found !== undefined && !(found instanceof CapiGitopsError)) throw found;
    // a file at a time, each text dropped once checked
    await mapLimited(files, OPEN_FILES, async (p) => void (await read([p])));
    const bag = new DiagnosticBag();
    for (const d of boundsProblemsRead()) bag.add(d);
    if (bag.size > 0 && found !== undefined) bag.addError(found);
    bag.throwIfAny();
  };
  return { ...tree, boundsProblems: boundsProblemsRead, checkBounds };
}

/** One file's bounds (a budget of its own, as the lockfile has); a problem names the file as the user finds it. */
function boundsProblems(text: string, shown: string): Diagnostic[] {
  try {
    new YamlBudget().check(text, shown);
    return [];
  } catch (err) {
    if (!(err instanceof CapiGitopsError)) throw err;
    return err.diagnostics.map((d) => ({
      ...d,
      expected: `an output file as capi-gitops render writes it: ${d.expected ?? 'YAML within the bounds'}`,
      // the file is render's to write: rewriting or restoring it is the fix, not a higher bound
      hint: `render writes this file: render again to rewrite it, or restore the committed one (git checkout -- ${shown})`,
    }));
  }
}
