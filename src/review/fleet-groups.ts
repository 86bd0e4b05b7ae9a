/**
 * A fleet-wide change read once: the same finding or component change in many clusters' own
 * directories (`clusters/<name>/…`: a version bump, its contract move, the wiring's Application)
 * is told once with the clusters' range, as a shared base's object change is. Two are the same
 * when they read alike with each one's cluster name written as `<cluster>`.
 */
import { clusterOf } from './objects.js';
import type { ComponentDiff, Finding } from './types.js';
import { clusterNameIn } from '../core/cluster-ranges.js';

/** What a cluster's name reads as in what several clusters share. */
export const CLUSTER_PLACEHOLDER = '<cluster>';

/**
 * `text` with `cluster` written as `<cluster>` where it stands as a whole name part
 * (`clusters/mc01/argocd`, `capi-gitops-mc01`), not inside a longer word.
 */
export function withoutCluster(text: string, cluster: string): string {
  if (!cluster) return text;
  return text.replace(clusterNameIn(cluster), CLUSTER_PLACEHOLDER);
}

export interface ClusterGroup<T> {
  /** The first of them, with its cluster's name kept when it is alone. */
  first: T;
  members: T[];
  /** Their clusters, in the order met; empty for items outside a cluster's own directory. */
  clusters: string[];
}

/**
 * Items grouped by `key` (each read with its cluster as `<cluster>`), at the place of the first;
 * an item with no cluster of its own (a base's, the top level's) stays alone.
 */
export function groupByCluster<T>(
  items: readonly T[],
  clusterOfItem: (item: T) => string,
  key: (item: T, cluster: string) => string,
): ClusterGroup<T>[] {
  const groups: ClusterGroup<T>[] = [];
  const byKey = new Map<string, ClusterGroup<T>>();
  // a group's clusters as a set too: a fleet-wide change meets one group per cluster
  const clustersOf = new Map<ClusterGroup<T>, Set<string>>();
  for (const item of items) {
    const cluster = clusterOfItem(item);
    if (!cluster) {
      groups.push({ first: item, members: [item], clusters: [] });
      continue;
    }
    const k = key(item, cluster);
    const earlier = byKey.get(k);
    if (earlier && !clustersOf.get(earlier)!.has(cluster)) {
      earlier.members.push(item);
      earlier.clusters.push(cluster);
      clustersOf.get(earlier)!.add(cluster);
      continue;
    }
    const group = { first: item, members: [item], clusters: [cluster] };
    clustersOf.set(group, new Set([cluster]));
    groups.push(group);
    if (!earlier) byKey.set(k, group);
  }
  return groups;
}

/** Findings of clusters' own directories that read alike: same type, risk, component, object and message. */
export function groupFindings(findings: readonly Finding[]): ClusterGroup<Finding>[] {
  return groupByCluster(
    findings,
    // a base's finding already names its clusters
    (f) => (f.clusters ? '' : clusterOf(`${f.component}/`)),
    (f, cluster) => [f.type, f.risk, f.component, f.object ?? '', f.message].map((s) => withoutCluster(s, cluster)).join('\0'),
  );
}

/** A group's finding message: its cluster's name as `<cluster>` when it stands for several. */
export function groupMessage(group: ClusterGroup<Finding>): string {
  return group.clusters.length > 1 ? withoutCluster(group.first.message, group.clusters[0]!) : group.first.message;
}

/**
 * What makes a cluster's component change read alike another's: the change itself (with each one's
 * cluster as `<cluster>`) and its call-outs, which hold the values its changed paths do not show
 * (replicas 1 → 2 in one cluster, 1 → 3 in another).
 */
export function componentKey(c: ComponentDiff, cluster: string, findingsOf: ReadonlyMap<string, readonly Finding[]>): string {
  const told = (findingsOf.get(c.directory) ?? []).map((f) =>
    [f.type, f.risk, f.object ?? '', f.message].map((s) => withoutCluster(s, cluster)).join('\0'),
  );
  return JSON.stringify([componentWithoutCluster(c, cluster), told]);
}

/** The findings by their component directory, for `componentKey`. */
export function findingsByComponent(findings: readonly Finding[]): Map<string, Finding[]> {
  const by = new Map<string, Finding[]>();
  for (const f of findings) {
    const list = by.get(f.component);
    if (list) list.push(f);
    else by.set(f.component, [f]);
  }
  return by;
}

/** A cluster's component change with its cluster's name as `<cluster>`, in directory, name and objects. */
export function componentWithoutCluster(c: ComponentDiff, cluster: string): ComponentDiff {
  const w = (s: string) => withoutCluster(s, cluster);
  return {
    ...c,
    directory: w(c.directory),
    name: w(c.name),
    kinds: c.kinds.map((k) => ({
      ...k,
      objects: k.objects.map((o) => ({
        ...o,
        namespace: w(o.namespace),
        name: w(o.name),
        file: w(o.file),
        paths: o.paths.map(w),
        ...(o.values ? { values: o.values.map((v) => ({ path: w(v.path), from: w(v.from), to: w(v.to) })) } : {}),
      })),
    })),
  };
}
