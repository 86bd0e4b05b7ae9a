/**
 * `capi-gitops lock --accept-digest <provider>`: a release re-tagged upstream (its files replaced
 * under the same version) fails every run against the lock. This accepts the new bytes for the
 * named components only, after the user compared them: their files are fetched anew (never served
 * from the cache by the old digest), and each file whose sha256 differs is recorded with the new
 * one. Everything else is checked as before, and `render --frozen` still fails until the lockfile
 * holding the accepted digest is committed.
 */
import type { Diagnostic } from '../../core/diagnostics.js';
import type { Artifact } from '../../sources/source.js';
import { portableUrl } from './build.js';
import { lockEntryLabel, type LockEntry, type LockIdentity, type Lockfile } from './types.js';

/** One accepted file: what the lock said and what the release serves now. */
export interface AcceptedDigest {
  /** The component, as `--accept-digest` names it (`cluster-api`, `cert-manager`). */
  label: string;
  version: string;
  file: string;
  url: string;
  /** The sha256 the lockfile recorded. */
  from: string;
  /** The sha256 of the file the release serves now. */
  to: string;
}

/** Whether `names` (labels, or namespace/label) name the component. */
export function namesComponent(names: readonly string[], component: Pick<LockIdentity, 'kind' | 'name' | 'namespace'>): boolean {
  const label = lockEntryLabel(component);
  return names.some((name) => name === label || name === `${component.namespace}/${label}`);
}

/** A name that matches no component of the run, or more than one. */
export function acceptNameProblems(names: readonly string[], components: readonly LockIdentity[]): Diagnostic[] {
  const problems: Diagnostic[] = [];
  for (const name of names) {
    const found = components.filter((component) => namesComponent([name], component));
    if (found.length === 0)
      problems.push({
        message: `--accept-digest ${name}: no component of the manifest has this name`,
        expected: `one of ${[...new Set(components.map(lockEntryLabel))].join(', ')}`,
        hint: 'name the provider as the error about its digest does, e.g. --accept-digest cluster-api',
      });
    else if (found.length > 1)
      problems.push({
        message: `--accept-digest ${name}: names ${found.length} components`,
        hint: `use namespace/label: ${found.map((c) => `${c.namespace}/${lockEntryLabel(c)}`).join(', ')}`,
      });
  }
  return problems;
}

/**
 * A fleet's names, judged once over the components of all its clusters: a provider only some
 * clusters have (an overlay's) is a component of the fleet, and a wrong name is one problem.
 */
export function fleetAcceptNameProblems(names: readonly string[], locks: readonly Lockfile[]): Diagnostic[] {
  const components = new Map<string, LockIdentity>();
  for (const entry of locks.flatMap((lock) => lock.entries))
    components.set(`${entry.kind}\0${entry.namespace}\0${entry.name}`, { kind: entry.kind, name: entry.name, namespace: entry.namespace });
  return acceptNameProblems(names, [...components.values()]);
}

/** What accepting `fetched` in place of the locked `file` of `entry` records and prints. */
export function acceptedDigest(
  entry: LockEntry,
  file: { name: string; sha256: string },
  fetched: { sha256: string; url: string },
): AcceptedDigest {
  return {
    label: lockEntryLabel(entry),
    version: entry.version,
    file: file.name,
    url: fetched.url,
    from: file.sha256,
    to: fetched.sha256.toLowerCase(),
  };
}

/**
 * The pin with the digests of `artifacts` for the files whose sha256 differs, and what was
 * accepted; files the lock does not list are left to the usual check. An accepted entry records
 * every file's URL as fetched now, as a resolve would: an OCI artifact's URL names the manifest
 * digest, and the old manifest holds the rejected file.
 */
export function acceptDigests(
  pin: LockEntry,
  artifacts: readonly Pick<Artifact, 'name' | 'sha256' | 'url'>[],
  lockDir: string,
): { entry: LockEntry; accepted: AcceptedDigest[] } {
  const accepted: AcceptedDigest[] = [];
  for (const file of pin.files) {
    const fetched = artifacts.find((artifact) => artifact.name === file.name);
    if (fetched === undefined || fetched.sha256.toLowerCase() === file.sha256.toLowerCase()) continue;
    accepted.push(acceptedDigest(pin, file, { ...fetched, url: portableUrl(fetched.url, lockDir) }));
  }
  if (accepted.length === 0) return { entry: pin, accepted };
  const files = pin.files.map((file) => {
    const fetched = artifacts.find((artifact) => artifact.name === file.name);
    return fetched === undefined ? file : { ...file, url: portableUrl(fetched.url, lockDir), sha256: fetched.sha256.toLowerCase() };
  });
  return { entry: { ...pin, files }, accepted };
}

/** A fleet's clusters share components: each accepted file once. */
export function acceptedOnce(accepted: readonly AcceptedDigest[]): AcceptedDigest[] {
  const seen = new Map<string, AcceptedDigest>();
  for (const a of accepted) seen.set(`${a.label}\0${a.version}\0${a.file}\0${a.to}`, a);
  return [...seen.values()];
}
