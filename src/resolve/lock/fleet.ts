/**
 * A fleet's lockfile: every cluster's entries in one file, an entry shared by several clusters
 * (same component, same release, same files) recorded once with the list of its clusters.
 */
import { serializeLockfile } from './lockfile.js';
import { assertFrozen, diffLockfiles, FROZEN, FROZEN_HINT, type LockChange } from './diff.js';
import { CapiGitopsError, compareStrings } from '../../core/diagnostics.js';
import { normalizeLockfile, type LockEntry, type Lockfile } from './types.js';
import type { LockOutcome } from './session.js';
import type { Manifest } from '../../manifest/types.js';
import type { ProviderRegistry } from '../registry.js';
import { lockRequestForCertManager, lockRequestForOperator, lockRequestForProvider, lockSatisfies } from './request.js';

/** The part of a fleet's lock that pins one cluster, as a single cluster's lock. */
export function clusterLockView(lock: Lockfile | undefined, cluster: string): Lockfile | undefined {
  if (!lock) return undefined;
  const entries = lock.entries
    .filter((e) => e.clusters === undefined || e.clusters.includes(cluster))
    .map(({ clusters: _, ...entry }) => entry);
  const view = normalizeLockfile({ entries });
  // a problem at one of the view's entries is told at that cluster's entry in the fleet's lockfile
  const locate = lock.locate;
  if (locate)
    Object.defineProperty(view, 'locate', {
      value: ((at) => locate('kind' in at ? { ...at, cluster } : at)) satisfies Lockfile['locate'],
      enumerable: false,
    });
  return view;
}

/**
 * The entries of a fleet's lock that answer a release's manifest, whichever clusters they pin, so
 * the release's check reads its files from the cache as those clusters do; `complete` when the
 * lock answers every component the release asks for.
 */
export function releaseLockView(
  lock: Lockfile | undefined,
  manifest: Manifest,
  registry: ProviderRegistry,
): { lock: Lockfile | undefined; complete: boolean } {
  if (!lock) return { lock, complete: false };
  const requests = [...manifest.providers.map((p) => lockRequestForProvider(p, registry)), lockRequestForCertManager(manifest.config)];
  const operator = lockRequestForOperator(manifest.config);
  const answering = (request: Parameters<typeof lockSatisfies>[1]) => lock.entries.find((e) => lockSatisfies(e, request));
  const found = requests.map((request) => request && answering(request));
  const entries = [...found, answering(operator)].filter((e) => e !== undefined).map(({ clusters: _, ...entry }) => entry);
  return { lock: normalizeLockfile({ entries }), complete: found.every((e, i) => e !== undefined || requests[i] === undefined) };
}

/** One lock for the fleet: identical entries of several clusters merged into one. */
export function mergeClusterLocks(locks: ReadonlyMap<string, Lockfile>): Lockfile {
  const byContent = new Map<string, LockEntry>();
  for (const name of [...locks.keys()].sort(compareStrings)) {
    for (const entry of locks.get(name)!.entries) {
      const { clusters: _, ...plain } = entry;
      const key = JSON.stringify(plain);
      const existing = byContent.get(key);
      if (existing) existing.clusters!.push(name);
      else byContent.set(key, { ...plain, clusters: [name] });
    }
  }
  return normalizeLockfile({ entries: [...byContent.values()] });
}

/** What changed for each cluster, each line prefixed with the cluster's name. */
export function fleetLockChanges(previous: Lockfile | undefined, locks: ReadonlyMap<string, Lockfile>): LockChange[] {
  const changes: LockChange[] = [];
  // then the clusters that left the fleet
  const gone = new Set((previous?.entries ?? []).flatMap((e) => e.clusters ?? []).filter((c) => !locks.has(c)));
  for (const name of [...[...locks.keys()].sort(compareStrings), ...[...gone].sort(compareStrings)]) {
    for (const change of diffLockfiles(clusterLockView(previous, name), locks.get(name) ?? { entries: [] }))
      changes.push({ ...change, cluster: name, line: `${name}: ${change.line}` });
  }
  return changes;
}

/** `--frozen` for a fleet: the lock must not change at all. */
export function assertFleetFrozen(previous: Lockfile | undefined, lock: Lockfile, changes: readonly LockChange[], file: string): void {
  if (previous === undefined) assertFrozen(undefined, lock, file);
  if (serializeLockfile(previous!) === serializeLockfile(lock)) return;
  const told = changes.length > 0 ? changes : [{ cluster: undefined, line: 'entries are grouped by cluster differently' }];
  // a cluster gone from Config clusters has no manifest line: the lock's line that lists it is where it is told
  const kept = new Set(lock.entries.flatMap((e) => e.clusters ?? []));
  const gone = new Set((previous?.entries ?? []).flatMap((e) => e.clusters ?? []).filter((c) => !kept.has(c)));
  throw new CapiGitopsError(
    goneOnce(told, gone).map(({ cluster, line }) => ({
      file,
      ...(cluster === undefined || !gone.has(cluster) ? {} : previous?.locate?.({ cluster })),
      message: `${FROZEN}: the lockfile would change: ${line}`,
      hint: FROZEN_HINT,
    })),
  );
}

/**
 * A cluster gone from Config clusters is one change, at the one lockfile line that lists it: its
 * components' removals, `c2: - cert-manager v1.18.2, cluster-api v1.12.0 …`, not one a component.
 */
function goneOnce(changes: readonly { cluster?: string; line: string }[], gone: ReadonlySet<string>): { cluster?: string; line: string }[] {
  const removal = ({ cluster, line }: { cluster?: string; line: string }) =>
    cluster !== undefined && gone.has(cluster) && line.startsWith(`${cluster}: - `) ? line.slice(`${cluster}: - `.length) : undefined;
  const told: { cluster?: string; line: string }[] = [];
  for (const change of changes) {
    if (removal(change) === undefined) told.push(change);
    else if (!told.some((other) => other.cluster === change.cluster && removal(other) !== undefined)) {
      const removed = changes
        .filter((other) => other.cluster === change.cluster)
        .map(removal)
        .filter((r) => r !== undefined);
      told.push({
        cluster: change.cluster,
        line: `${change.cluster}: - ${removed.join(', ')} of a cluster no longer in the Config's clusters (removed or renamed)`,
      });
    }
  }
  return told;
}

/**
 * The fleet's lock from each cluster's lock as its render left it (pinned images change a
 * cluster's part after resolution), with its changes from `previous`; `--frozen`: no change.
 */
export function concludeFleetLock(
  previous: Lockfile | undefined,
  locks: ReadonlyMap<string, Lockfile>,
  frozen: boolean,
  file: string,
): LockOutcome {
  const lock = mergeClusterLocks(locks);
  const changes = fleetLockChanges(previous, locks);
  if (frozen) assertFleetFrozen(previous, lock, changes, file);
  return { lock, changes, previous };
}
