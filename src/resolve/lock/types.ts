/**
 * The lockfile model: what a render resolved, so the next render fetches exactly the same
 * releases and can prove it got the same bytes. One entry per provider and one for cert-manager.
 */
import type { LabelSelector } from '../../manifest/types.js';
import { compareStrings } from '../../core/diagnostics.js';
import { INSTALL_ORDER, TOOL_API_VERSION, manifestLabel, type ProviderKind } from '../../core/provider.js';

export const LOCK_API_VERSION = TOOL_API_VERSION;
export const LOCK_KIND = 'Lock';

/** Entry kind: a provider kind, cert-manager, or the cluster-api-operator's release (operator layout). */
export type LockKind = ProviderKind | 'CertManager' | 'Operator';

/** Lock order: cert-manager, the operator (installed before any provider in its layout), the providers. */
const LOCK_ORDER: Record<LockKind, number> = { ...INSTALL_ORDER, Operator: INSTALL_ORDER.CertManager };

/**
 * Where a component's releases come from, as the manifest says it. One of:
 * - `url`: spec.fetchConfig.url (or certManager.url), as written;
 * - `registry`: no fetchConfig, so the registry URL (clusterctl's built-in list, a Config
 *   `repositories` entry, or clusterctl's default cert-manager URL);
 * - `selector`: spec.fetchConfig.selector, in canonical form (see canonicalSelector);
 * - `oci`: spec.fetchConfig.oci, as written.
 */
export type LockSource =
  | { type: 'url'; url: string }
  | { type: 'registry'; url: string }
  | { type: 'selector'; selector: LabelSelector }
  | { type: 'oci'; oci: string };

/** One fetched file: metadata.yaml, the components file, or cert-manager's manifest. */
export interface LockedFile {
  name: string;
  /** Where it was read. file:// URLs are kept relative to the lockfile's directory. */
  url: string;
  /** Lower-case hex sha256 of the bytes as published. */
  sha256: string;
}

/** A container image the render pinned: its reference as rendered (tag kept) and the digest it was pinned to. */
export interface LockedImage {
  /** The reference after image overrides, e.g. `registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0`. */
  image: string;
  /** `sha256:<hex>`: what the registry served for the tag (an index's digest for a multi-architecture image). */
  digest: string;
}

export interface LockEntry {
  kind: LockKind;
  name: string;
  namespace: string;
  /** In a fleet's lock: the clusters (sorted) this entry pins; absent for a single cluster. */
  clusters?: string[];
  /** spec.version (or certManager.version) exactly as written: a tag, a range, or "". */
  requestedVersion: string;
  /** The release resolved, e.g. `v1.12.0`. */
  version: string;
  /** The Cluster API contract of the release; absent for cert-manager and the operator, which have none. */
  contract?: string;
  source: LockSource;
  /** Sorted by name. */
  files: LockedFile[];
  /** With pinImages: the component's container images and their digests, sorted by image. */
  images?: LockedImage[];
}

export interface Lockfile {
  apiVersion: typeof LOCK_API_VERSION;
  kind: typeof LOCK_KIND;
  /** Sorted by compareLockEntries. */
  entries: LockEntry[];
  /**
   * A lockfile read from a file: where its text writes an entry (a field's value, one of its
   * images, else the entry) or lists a cluster, for problems found after reading (`--frozen`).
   * An identity with `cluster` is that cluster's entry in a fleet's lock. Not enumerable.
   */
  locate?: (
    at: (LockIdentity & { field?: string; image?: string; cluster?: string }) | { cluster: string },
  ) => { line: number; column: number } | undefined;
}

/** What the manifest asks for one component; a lock entry satisfies it or not (lockSatisfies). */
export type LockRequest = Pick<LockEntry, 'kind' | 'name' | 'namespace' | 'requestedVersion' | 'source'>;

export type LockIdentity = Pick<LockEntry, 'kind' | 'name' | 'namespace'>;

/** Install order (cert-manager first), then kind, name and namespace, in code-unit order. */
export function compareLockEntries(a: LockIdentity, b: LockIdentity): number {
  return (
    LOCK_ORDER[a.kind] - LOCK_ORDER[b.kind] ||
    compareStrings(a.kind, b.kind) ||
    compareStrings(a.name, b.name) ||
    compareStrings(a.namespace, b.namespace)
  );
}

export function sameIdentity(a: LockIdentity, b: LockIdentity): boolean {
  return a.kind === b.kind && a.name === b.name && a.namespace === b.namespace;
}

/** clusterctl's manifest label (`bootstrap-kubeadm`), or `cert-manager`, `cluster-api-operator`. */
export function lockEntryLabel(entry: Pick<LockIdentity, 'kind' | 'name'>): string {
  return entry.kind === 'CertManager' || entry.kind === 'Operator' ? entry.name : manifestLabel(entry.kind, entry.name);
}

/** `CoreProvider capi-system/cluster-api`, for messages. */
export function describeEntry(entry: LockIdentity): string {
  return `${entry.kind} ${entry.namespace}/${entry.name}`;
}

/** A lockfile with its entries and their files in canonical order (inputs are not modified). */
export function normalizeLockfile(lock: Pick<Lockfile, 'entries'>): Lockfile {
  const entries = lock.entries
    .map((entry) => ({
      ...entry,
      ...(entry.clusters ? { clusters: [...entry.clusters].sort(compareStrings) } : {}),
      files: [...entry.files].sort((a, b) => compareStrings(a.name, b.name)),
      ...(entry.images ? { images: [...entry.images].sort((a, b) => compareStrings(a.image, b.image)) } : {}),
    }))
    .sort((a, b) => compareLockEntries(a, b) || compareStrings(a.clusters?.[0] ?? '', b.clusters?.[0] ?? ''));
  return { apiVersion: LOCK_API_VERSION, kind: LOCK_KIND, entries };
}

export function findLockEntry(lock: Lockfile | undefined, identity: LockIdentity): LockEntry | undefined {
  return lock?.entries.find((entry) => sameIdentity(entry, identity));
}
