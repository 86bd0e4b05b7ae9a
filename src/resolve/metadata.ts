/**
 * A release's metadata.yaml (clusterctl.cluster.x-k8s.io/v1alpha3 Metadata,
 * cmd/clusterctl/api/v1alpha3/metadata_type.go), validated as clusterctl's metadata_client.go
 * validateMetadata does, and the contract checks of clusterctl's installer.go
 * getProviderContract / Validate and the operator's phase_load.go validateRepoCAPIVersion.
 */
import type { SemVer } from 'semver';
import { CapiGitopsError, withArticle, type Diagnostic } from '../core/diagnostics.js';
import { isPlainObject } from '../core/kobject.js';
import { METADATA_FILE } from '../core/repository.js';
import { parseSemantic } from '../core/versions.js';
import { parseArtifact } from '../yaml/parse.js';

const METADATA_API_VERSION = 'clusterctl.cluster.x-k8s.io/v1alpha3';
/** The contract clusterctl v1.12.0 implements (cluster.x-k8s.io core API version). */
export const CURRENT_CONTRACT = 'v1beta2';
/** Contracts the operator installs (validateRepoCAPIVersion) and clusterctl v1.12.0 accepts. */
export const SUPPORTED_CONTRACTS: readonly string[] = ['v1beta2', 'v1beta1'];

export interface ReleaseSeries {
  major: number;
  minor: number;
  contract: string;
}

export interface ProviderMetadata {
  apiVersion: string;
  kind: string;
  releaseSeries: ReleaseSeries[];
}

/** Names a release in messages: `bootstrap-kubeadm v1.12.0`, with the file it came from. */
interface ReleaseSubject {
  label: string;
  version: string;
  url?: string;
}

function describe(subject: ReleaseSubject): string {
  return `${subject.label} ${subject.version}`;
}

function seriesEntry(value: unknown, index: number, problems: string[]): ReleaseSeries | undefined {
  if (!isPlainObject(value)) {
    problems.push(`releaseSeries[${index}] is not a mapping`);
    return undefined;
  }
  const number = (field: 'major' | 'minor'): number => {
    const n = value[field];
    if (n === undefined || n === null) return 0; // omitempty int32: absent reads as 0
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 2 ** 31 - 1) {
      problems.push(`releaseSeries[${index}].${field} must be a non-negative integer, found ${JSON.stringify(n)}`);
      return 0;
    }
    return n;
  };
  const contract = value.contract ?? '';
  if (typeof contract !== 'string') problems.push(`releaseSeries[${index}].contract must be a string, found ${JSON.stringify(contract)}`);
  return { major: number('major'), minor: number('minor'), contract: typeof contract === 'string' ? contract : '' };
}

/**
 * Parses and validates metadata.yaml: apiVersion clusterctl.cluster.x-k8s.io/v1alpha3, kind
 * `Metadata` (or absent: clusterctl ratchets that, several providers omit it), at least one
 * release series. Unknown fields are ignored, as clusterctl's decoder ignores them.
 */
export function parseMetadata(text: string, subject: ReleaseSubject): ProviderMetadata {
  const fail = (message: string, hint?: string): never => {
    throw new CapiGitopsError({
      message: `invalid metadata.yaml of ${describe(subject)}: ${message}`,
      expected: `apiVersion: ${METADATA_API_VERSION}, kind: Metadata, releaseSeries: [{major, minor, contract}, …]`,
      hint: hint ?? (subject.url ? `read from ${subject.url}` : undefined),
    });
  };
  // A release artifact, read as components.yaml is (and as clusterctl's yaml.Unmarshal reads it:
  // the first document); the artifact parser is also warm for the components that follow.
  let root: unknown;
  try {
    root = parseArtifact(text, { source: subject.url ?? METADATA_FILE })[0];
  } catch (err) {
    if (!(err instanceof CapiGitopsError)) throw err;
    const first = err.diagnostics[0];
    fail(`${first.message}${first.line ? ` (line ${first.line}, column ${first.column})` : ''}`, first.hint);
  }
  if (!isPlainObject(root)) fail('the document is not a mapping');
  const object = root as Record<string, unknown>;

  if (object.apiVersion !== METADATA_API_VERSION) fail(`apiVersion is ${JSON.stringify(object.apiVersion ?? null)}`);
  const kind = object.kind ?? '';
  if (kind !== 'Metadata' && kind !== '') fail(`kind is ${JSON.stringify(kind)}`);
  if (!Array.isArray(object.releaseSeries) || object.releaseSeries.length === 0) {
    fail('releaseSeries is empty', 'list the release series (major, minor) with the contract each implements');
  }
  const problems: string[] = [];
  const releaseSeries = (object.releaseSeries as unknown[]).map((entry, index) => seriesEntry(entry, index, problems));
  if (problems.length > 0) fail(problems.join('; '));
  return { apiVersion: METADATA_API_VERSION, kind: 'Metadata', releaseSeries: releaseSeries as ReleaseSeries[] };
}

/** clusterctl GetReleaseSeriesForVersion: the first series with the version's major.minor. */
export function releaseSeriesForVersion(metadata: ProviderMetadata, version: SemVer): ReleaseSeries | undefined {
  return metadata.releaseSeries.find((series) => series.major === version.major && series.minor === version.minor);
}

/** clusterctl GetReleaseSeriesForContract: the newest series implementing the contract. */
export function releaseSeriesForContract(metadata: ProviderMetadata, contract: string): ReleaseSeries | undefined {
  let newest: ReleaseSeries | undefined;
  for (const series of metadata.releaseSeries) {
    if (series.contract !== contract) continue;
    if (newest === undefined || series.major > newest.major || (series.major === newest.major && series.minor >= newest.minor))
      newest = series;
  }
  return newest;
}

/**
 * The contract the release implements: its major.minor series in metadata.yaml. A version
 * without a series is an error listing the series the file has.
 */
export function contractForVersion(metadata: ProviderMetadata, subject: ReleaseSubject): string {
  const version = parseSemantic(subject.version);
  if (version === null) {
    throw new CapiGitopsError({
      message: `${describe(subject)}: "${subject.version}" is not a semantic version, so its contract cannot be read from metadata.yaml`,
      hint: 'use a release tag such as v1.12.0',
    });
  }
  const series = releaseSeriesForVersion(metadata, version);
  if (series === undefined) {
    const available = metadata.releaseSeries.map((s) => `${s.major}.${s.minor}`).join(', ');
    throw new CapiGitopsError({
      message: `metadata.yaml of ${describe(subject)} has no release series ${version.major}.${version.minor}`,
      expected: `a releaseSeries entry {major: ${version.major}, minor: ${version.minor}, contract: …}; the file lists ${available}`,
      hint: 'the release may lack an updated metadata.yaml, or the repository URL points at another project',
    });
  }
  return series.contract;
}

/** clusterctl contract.GetCompatibleVersions: a contract plus v1beta1 while v1beta2 still serves it. */
export function compatibleContracts(contract: string): string[] {
  return contract === 'v1beta2' ? ['v1beta2', 'v1beta1'] : [contract];
}

/** A provider's release and its contract, as the compatibility check sees it. */
export interface ContractedRelease {
  /** e.g. `BootstrapProvider/capi-system/kubeadm`. */
  object: string;
  label: string;
  version: string;
  contract: string;
}

/** The contract is one capi-gitops (like clusterctl v1.12.0 and the operator) can install at all. */
export function unsupportedContract(release: ContractedRelease): Diagnostic | undefined {
  if (SUPPORTED_CONTRACTS.includes(release.contract)) return undefined;
  return {
    object: release.object,
    message: `${release.label} ${release.version} implements Cluster API contract ${JSON.stringify(release.contract)}, which clusterctl v1.12.0 and the cluster-api-operator cannot install`,
    expected: `a release implementing ${SUPPORTED_CONTRACTS.join(' or ')}`,
    hint: 'pick a newer provider release (its metadata.yaml maps each release series to a contract)',
  };
}

/** The part of a contract mismatch's hint that a fleet completes with where a cluster's core version is set. */
export const CHANGE_CORE_VERSION = "change the core provider's version";

/**
 * clusterctl installer Validate: every provider's contract must be one the core provider's
 * contract is compatible with (equal, or v1beta1 under a v1beta2 core).
 */
export function contractMismatch(
  core: ContractedRelease,
  provider: ContractedRelease,
  providerMetadata?: ProviderMetadata,
): Diagnostic | undefined {
  const accepted = compatibleContracts(core.contract);
  if (accepted.includes(provider.contract)) return undefined;
  const fitting = providerMetadata
    ? accepted.map((contract) => releaseSeriesForContract(providerMetadata, contract)).find((series) => series !== undefined)
    : undefined;
  return {
    object: provider.object,
    message: `${provider.label} ${provider.version} implements contract ${provider.contract}, but the core provider ${core.label} ${core.version} (contract ${core.contract}) works only with ${accepted.join(' or ')} providers`,
    expected: `${withArticle(provider.label)} release implementing ${accepted.join(' or ')}`,
    hint: fitting
      ? `set spec.version to a v${fitting.major}.${fitting.minor}.x release of ${provider.label} (series ${fitting.major}.${fitting.minor} implements ${fitting.contract}), or ${CHANGE_CORE_VERSION}`
      : `${CHANGE_CORE_VERSION} to one implementing ${provider.contract}, or pick ${withArticle(provider.label)} release implementing ${accepted.join(' or ')}`,
  };
}
