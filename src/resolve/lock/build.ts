/** Building the lock from what the resolve stage found. */
import { redactUrlCredentials } from '../../core/redact.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolConfig } from '../../manifest/types.js';
import { CapiGitopsError } from '../../core/diagnostics.js';
import type { ProviderRegistry } from '../registry.js';
import type { ResolvedCertManager, ResolvedProvider } from '../resolve.js';
import type { ResolvedOperatorRelease } from '../operator-release.js';
import type { Artifact } from '../../sources/source.js';
import { lockRequestForCertManager, lockRequestForOperator, lockRequestForProvider } from './request.js';
import { describeEntry, normalizeLockfile, sameIdentity, type LockEntry, type Lockfile, type LockRequest } from './types.js';

/**
 * A file URL as a path relative to the lockfile's directory (with `/`), so the lock reads the
 * same in every checkout; other URLs (https, `configmap:ns/name#key`) unchanged. A file on
 * another drive than the lock (Windows) keeps its absolute URL.
 */
export function portableUrl(url: string, lockDir: string): string {
  // The lockfile is committed: a token in a URL's userinfo or query is recorded masked.
  // An oci:// URL's fragment is the layer title the OCI source wrote (repository.ts), not a credential.
  const hash = url.indexOf('#');
  if (/^oci:/i.test(url) && hash >= 0) return redactUrlCredentials(url.slice(0, hash)) + url.slice(hash);
  if (!/^file:/i.test(url)) return redactUrlCredentials(url);
  const relative = path.relative(lockDir, fileURLToPath(url));
  if (path.isAbsolute(relative)) return url;
  return relative.split(path.sep).join('/');
}

/**
 * The file a locked URL names when `portableUrl` made it a path relative to the lockfile's
 * directory; undefined for every URL it kept (https, `configmap:ns/name#key`, `oci:`, a file URL).
 */
export function lockedFilePath(url: string, lockDir: string): string | undefined {
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(url) ? undefined : path.resolve(lockDir, url);
}

export interface ResolvedRelease {
  version: string;
  /** Absent for cert-manager. */
  contract?: string;
  files: readonly Pick<Artifact, 'name' | 'url' | 'sha256'>[];
}

/** The entry recording `release` as the answer to `request`. */
function lockEntry(request: LockRequest, release: ResolvedRelease, lockDir: string): LockEntry {
  const entry: LockEntry = {
    kind: request.kind,
    name: request.name,
    namespace: request.namespace,
    requestedVersion: request.requestedVersion,
    version: release.version,
    source: request.source,
    files: release.files.map((file) => ({ name: file.name, url: portableUrl(file.url, lockDir), sha256: file.sha256.toLowerCase() })),
  };
  if (release.contract !== undefined) entry.contract = release.contract;
  return entry;
}

/** A resolved provider's entry: its metadata.yaml and components file. */
export function lockEntryForProvider(resolved: ResolvedProvider, registry: ProviderRegistry, lockDir: string): LockEntry {
  const request = lockRequestForProvider(resolved.provider, registry);
  if (request === undefined) {
    throw new CapiGitopsError({
      message: `${resolved.label} has neither spec.fetchConfig nor a registry entry, so its source cannot be locked`,
      hint: 'set spec.fetchConfig or add a Config repositories entry',
    });
  }
  return lockEntry(
    request,
    { version: resolved.version, contract: resolved.contract, files: [resolved.metadata, resolved.components] },
    lockDir,
  );
}

/** cert-manager's entry: its release manifest; no contract. */
export function lockEntryForCertManager(resolved: ResolvedCertManager, config: ToolConfig, lockDir: string): LockEntry {
  const request = lockRequestForCertManager(config);
  if (request === undefined) throw new CapiGitopsError({ message: 'cert-manager was resolved although certManager.enabled is false' });
  return lockEntry(request, { version: resolved.version, files: [resolved.components] }, lockDir);
}

/** The operator layout's entry: the operator's release manifest; no contract. */
export function lockEntryForOperator(resolved: ResolvedOperatorRelease, config: ToolConfig, lockDir: string): LockEntry {
  return lockEntry(lockRequestForOperator(config), { version: resolved.version, files: [resolved.components] }, lockDir);
}

/** The lockfile of these entries, sorted; two entries for one component are refused. */
export function buildLockfile(entries: readonly LockEntry[]): Lockfile {
  const lock = normalizeLockfile({ entries: [...entries] });
  for (let i = 1; i < lock.entries.length; i++) {
    if (sameIdentity(lock.entries[i - 1], lock.entries[i])) {
      throw new CapiGitopsError({
        message: `${describeEntry(lock.entries[i])} appears twice in the lock`,
        expected: 'one entry per kind, namespace and name',
      });
    }
  }
  return lock;
}
