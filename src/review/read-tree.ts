import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CapiGitopsError, DiagnosticBag } from '../core/diagnostics.js';
import { mapLimited, OPEN_FILES } from '../core/map-limited.js';
import { scanTree } from '../output/tree.js';
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
}

/** The tree of `paths`, each group's texts through `read` (in the paths' order). */
export async function groupedTree(
  paths: readonly string[],
  read: (files: readonly string[]) => Promise<Map<string, string>>,
): Promise<ReviewTree> {
  const rest: string[] = [];
  const clusters = new Map<string, string[]>();
  for (const p of paths) {
    const cluster = clusterOf(p);
    if (!cluster) rest.push(p);
    else if (clusters.has(cluster)) clusters.get(cluster)!.push(p);
    else clusters.set(cluster, [p]);
  }
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

/**
 * The visible files of an output directory, as a review side. Hidden entries (the ownership
 * index, `.git`, `.gitattributes`) are not objects and are left out. Each file is held to the
 * YAML node and depth bounds before any parser sees it, as manifests and the lockfile are: a
 * committed file is input like them (12 MB of flow list cost a diff 2 s and 300 MB). Every file
 * is checked first, each text dropped once checked, so that every problem is told before any
 * review; a cluster's files are read again (and checked again) when it is reviewed.
 */
export async function openOutputTree(dir: string): Promise<ReviewTree> {
  const root = path.resolve(dir);
  const entries = await scanTree(root).catch((err: NodeJS.ErrnoException) => {
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
  const read = async (paths: readonly string[], keep: boolean) => {
    const bag = new DiagnosticBag();
    // every file, not only *.yaml: a base's kustomization may list a resource of any name, and review parses it
    const texts = await mapLimited(paths, OPEN_FILES, async (p) => {
      const text = await readFile(path.join(root, p), 'utf8');
      checkOutputFile(text, path.join(dir, p), bag);
      return keep ? text : '';
    });
    bag.throwIfAny();
    return new Map(paths.map((p, i) => [p, texts[i]!]));
  };
  await read(files, false);
  return groupedTree(files, (paths) => read(paths, true));
}

/** One file's bounds (a budget of its own, as the lockfile has); a problem names the file as the user finds it. */
function checkOutputFile(text: string, shown: string, bag: DiagnosticBag): void {
  try {
    new YamlBudget().check(text, shown);
  } catch (err) {
    if (!(err instanceof CapiGitopsError)) throw err;
    for (const d of err.diagnostics)
      bag.add({
        ...d,
        expected: `an output file as capi-gitops render writes it: ${d.expected ?? 'YAML within the bounds'}`,
        // the file is render's to write: rewriting or restoring it is the fix, not a higher bound
        hint: `render writes this file: render again to rewrite it, or restore the committed one (git checkout -- ${shown})`,
      });
  }
}
