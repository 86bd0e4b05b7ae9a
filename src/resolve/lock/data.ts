/** The lockfile's content as plain data, in the key order the file uses (lockfile.ts writes it). */
import type { LockEntry, LockSource, Lockfile } from './types.js';
import { normalizeLockfile } from './types.js';
import { canonicalSelector } from '../../core/label-selector.js';

export const HEADER = '# Written by capi-gitops (`capi-gitops lock`, or render when the manifest changes). Do not edit by hand.\n';

function sourceData(source: LockSource): Record<string, unknown> {
  switch (source.type) {
    case 'url':
      return { url: source.url };
    case 'registry':
      return { registry: source.url };
    case 'oci':
      return { oci: source.oci };
    case 'selector':
      return { selector: canonicalSelector(source.selector) };
  }
}

/** Plain data in the key order the file uses. */
function entryData(entry: LockEntry): Record<string, unknown> {
  const data: Record<string, unknown> = {
    kind: entry.kind,
    name: entry.name,
    namespace: entry.namespace,
    ...(entry.clusters ? { clusters: entry.clusters } : {}),
    requestedVersion: entry.requestedVersion,
    version: entry.version,
  };
  if (entry.contract !== undefined) data.contract = entry.contract;
  data.source = sourceData(entry.source);
  data.files = entry.files.map((file) => ({ name: file.name, url: file.url, sha256: file.sha256 }));
  if (entry.images?.length) data.images = entry.images.map((image) => ({ image: image.image, digest: image.digest }));
  return data;
}

/** The lock's file content as plain data (entries sorted). */
export function lockfileData(lock: Pick<Lockfile, 'entries'>): Record<string, unknown> {
  const normalized = normalizeLockfile(lock);
  return { apiVersion: normalized.apiVersion, kind: normalized.kind, entries: normalized.entries.map(entryData) };
}
