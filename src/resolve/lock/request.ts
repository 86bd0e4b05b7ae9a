/**
 * What the manifest asks for each component, in the lock's terms, and the rule that decides
 * whether a lock entry still answers it.
 */
import semverSatisfies from 'semver/functions/satisfies.js';
import { redactUrlCredentials } from '../../core/redact.js';
import { compareSemantic, parseSemantic, parseVersionRequest } from '../../core/versions.js';
import type { ProviderObject, ToolConfig } from '../../manifest/types.js';
import { canonicalSelector } from '../../core/label-selector.js';
import type { ProviderRegistry } from '../registry.js';
import { CERT_MANAGER_DEFAULT_VERSION, CERT_MANAGER_LABEL, certManagerDefaultUrl } from '../resolve.js';
import { OPERATOR_LABEL, OPERATOR_NAMESPACE, operatorReleaseUrl } from '../operator-release.js';
import type { LockEntry, LockRequest, LockSource } from './types.js';

/** cert-manager's lock identity: clusterctl installs it into the `cert-manager` namespace. */
export const CERT_MANAGER_NAME = CERT_MANAGER_LABEL;
export const CERT_MANAGER_NAMESPACE = 'cert-manager';

/**
 * A provider's source as the operator reads it: its fetchConfig (exactly one of url, selector,
 * oci, a CRD rule), else the registry URL clusterctl would use for its kind and name. Undefined
 * when neither exists (preflight reports that).
 */
export function lockSourceForProvider(
  provider: Pick<ProviderObject, 'kind' | 'name' | 'spec'>,
  registry: ProviderRegistry,
): LockSource | undefined {
  const fetchConfig = provider.spec.fetchConfig;
  if (fetchConfig?.selector !== undefined) return { type: 'selector', selector: canonicalSelector(fetchConfig.selector) };
  if (fetchConfig?.oci) return { type: 'oci', oci: fetchConfig.oci };
  if (fetchConfig?.url) return { type: 'url', url: redactUrlCredentials(fetchConfig.url) };
  const entry = registry.lookup(provider.kind, provider.name);
  return entry === undefined ? undefined : { type: 'registry', url: redactUrlCredentials(entry.url) };
}

export function lockRequestForProvider(provider: ProviderObject, registry: ProviderRegistry): LockRequest | undefined {
  const source = lockSourceForProvider(provider, registry);
  if (source === undefined) return undefined;
  return { kind: provider.kind, name: provider.name, namespace: provider.namespace, requestedVersion: provider.spec.version ?? '', source };
}

/**
 * cert-manager as the Config asks for it; undefined when `certManager.enabled` is false. Without
 * certManager.url the source is clusterctl's default URL for the version asked (or the
 * default version), so a new capi-gitops default is a changed source.
 */
export function lockRequestForCertManager(config: ToolConfig): LockRequest | undefined {
  const settings = config.certManager ?? {};
  if (settings.enabled === false) return undefined;
  const source: LockSource =
    settings.url !== undefined
      ? { type: 'url', url: redactUrlCredentials(settings.url) }
      : { type: 'registry', url: certManagerDefaultUrl(settings.version ?? CERT_MANAGER_DEFAULT_VERSION) };
  return {
    kind: 'CertManager',
    name: CERT_MANAGER_NAME,
    namespace: CERT_MANAGER_NAMESPACE,
    requestedVersion: settings.version ?? '',
    source,
  };
}

/**
 * The cluster-api-operator's release as the Config asks for it, when the run draws the operator
 * layout: operator.url as written, else the GitHub release URL of operator.version (`latest`
 * when unset). A version-less request is pinned by the lock like a provider's empty spec.version.
 */
export function lockRequestForOperator(config: ToolConfig): LockRequest {
  const settings = config.operator ?? {};
  const version = settings.version === 'latest' ? undefined : settings.version;
  const source: LockSource =
    settings.url !== undefined
      ? { type: 'url', url: redactUrlCredentials(settings.url) }
      : { type: 'registry', url: operatorReleaseUrl(version ?? 'latest') };
  return { kind: 'Operator', name: OPERATOR_LABEL, namespace: OPERATOR_NAMESPACE, requestedVersion: settings.version ?? '', source };
}

/** The source in one string (`url file://…`, `selector {"matchLabels":{…}}`): equal strings mean the same source. */
export function sourceKey(source: LockSource): string {
  switch (source.type) {
    case 'url':
    case 'registry':
      return `${source.type} ${source.url}`;
    case 'oci':
      return `oci ${source.oci}`;
    case 'selector':
      return `selector ${JSON.stringify(canonicalSelector(source.selector))}`;
  }
}

/**
 * The lock entry answers the request, so its resolved version is used without resolving again,
 * when all of these hold:
 * - same kind, name and namespace;
 * - the requested version string is identical, character for character (`v1.12.0` and
 *   `1.12.0`, or `~1.12` and `1.12.x`, are different requests);
 * - the source is the same: same type (fetchConfig.url, registry URL, selector or oci) and the
 *   same URL or OCI reference as written, or the same selector after canonicalSelector.
 *   A Config `repositories` entry that changes the registry URL changes the source.
 * - the locked version is one the request allows (lockedVersionAnswers).
 * Anything else re-resolves (and `--frozen` refuses).
 */
export function lockSatisfies(
  entry: Pick<LockEntry, 'kind' | 'name' | 'namespace' | 'requestedVersion' | 'version' | 'source'>,
  request: LockRequest,
): boolean {
  return (
    entry.kind === request.kind &&
    entry.name === request.name &&
    entry.namespace === request.namespace &&
    entry.requestedVersion === request.requestedVersion &&
    lockedVersionAnswers(entry.version, request.requestedVersion) &&
    sourceKey(entry.source) === sourceKey(request.source)
  );
}

/**
 * Whether `version` is a release `requested` allows: itself for an exact tag, one in the range for
 * a range. A hand-merged lock can pair the manifest's request with another side's version (asked
 * v1.12.0, locked v1.10.4); pinning that would render what the manifest does not ask for.
 */
export function lockedVersionAnswers(version: string, requested: string): boolean {
  const request = parseVersionRequest(requested);
  const locked = parseSemantic(version);
  if (request === null || request.form === 'latest' || locked === null) return true;
  if (request.form === 'range') return semverSatisfies(locked, request.range);
  return compareSemantic(locked, parseSemantic(request.version)!) === 0;
}
