import { ancestors, INDEX_FILE } from '../layout/output-paths.js';

/** A hidden entry (`.gitkeep`, `.git`, the ownership index, …) is tooling, never a manifest or an object. */
export function isHidden(rel: string): boolean {
  return rel.split('/').some((segment) => segment.startsWith('.'));
}

/**
 * The visible files capi-gitops did not write (neither this render nor the one the index records)
 * in a directory this render writes into, or one an earlier render wrote into (the index's, such
 * as a removed cluster's or an old single-cluster tree's): kustomize, Argo CD and Flux read those
 * directories (Flux builds one without a kustomization.yaml from its files, and prunes the rest of
 * what it applied from there), and render leaves such a file where it is. Your own subdirectories
 * are not looked into. `keptDirectories`: those the index records from renders before (see
 * directoriesToRecord below). `check`, `diff` and `render` ask this alike.
 */
export function unwrittenFiles(
  paths: Iterable<string>,
  rendered: Iterable<string>,
  indexed: Iterable<string>,
  keptDirectories: Iterable<string> = [],
): string[] {
  const renderedSet = new Set(rendered);
  const indexedSet = new Set(indexed);
  const directories = new Set(['', ...[...renderedSet, ...indexedSet].flatMap(ancestors), ...keptDirectories]);
  return [...paths].filter(
    (p) => p !== INDEX_FILE && !renderedSet.has(p) && !indexedSet.has(p) && !isHidden(p) && directories.has(ancestors(p).at(-1) ?? ''),
  );
}

/**
 * The directories of unwritten files that this render does not write into: the new index records
 * them, so check keeps telling such a file (a removed cluster's) after the render that stopped
 * writing its directory, until it is removed.
 */
export function directoriesToRecord(unwritten: readonly string[], rendered: Iterable<string>): string[] {
  const written = new Set(['', ...[...rendered].flatMap(ancestors)]);
  return [...new Set(unwritten.map((p) => ancestors(p).at(-1) ?? ''))].filter((d) => !written.has(d));
}
