/**
 * The clusters a change to a fleet's one ApplicationSet reaches. Its generator `values` look each
 * cluster's destination, project and prefix up in `get (dict "c1" "v1" …)`: a change to one
 * entry retargets that cluster's Applications alone; any other change reaches every cluster.
 */
import { compareStrings } from '../core/diagnostics.js';
import type { KObject } from '../core/kobject.js';
import { applicationSetLookups } from '../layout/fleet-applicationset.js';

const GENERATOR_VALUE = /^spec\.generators\[\d+\]\.git\.values\./;

/** The clusters `paths` (the changed field paths; empty when added or removed) reach, sorted; none when the lookups name none. */
export function applicationSetClusters(before: KObject | undefined, after: KObject | undefined, paths: readonly string[]): string[] {
  const [old, now] = [applicationSetLookups(before), applicationSetLookups(after)];
  const cluster = (key: string) => key.slice(key.indexOf('\0') + 1);
  const every = new Set([...old.keys(), ...now.keys()].map(cluster));
  const onlyLookups = before && after && paths.length > 0 && paths.every((p) => GENERATOR_VALUE.test(p));
  if (!onlyLookups) return [...every].sort(compareStrings);
  const moved = new Set<string>();
  for (const key of new Set([...old.keys(), ...now.keys()])) if (old.get(key) !== now.get(key)) moved.add(cluster(key));
  // a generator value without a lookup (the cluster's own segment) reaches every cluster
  return [...(moved.size > 0 ? moved : every)].sort(compareStrings);
}
