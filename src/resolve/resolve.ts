/**
 * The resolve stage: from the manifest's provider objects to the exact release artifacts.
 * Order of work, as `clusterctl init` and the operator do it: registry and preflight; open each
 * provider's repository; pick the version; read metadata.yaml and the release's contract; check
 * every contract against the core provider's; fetch the components file.
 *
 * Opening a repository is the sources stage's work, so the steps that need one are composed in
 * fetch-releases.ts; this module holds the rules, over the ProviderRepository contract (core/repository.ts).
 */
import path from 'node:path';
import { CapiGitopsError, comparePositions, compareStrings, type Diagnostic, type DiagnosticOrigin } from '../core/diagnostics.js';
import { INSTALL_ORDER, type ProviderKind } from '../core/provider.js';
import type { Manifest, ProviderObject, SourcePosition, ToolConfig } from '../manifest/types.js';
import { findConfigSecret } from '../manifest/references.js';
import { parseSemantic } from '../core/versions.js';
import { ArtifactNotFoundError, METADATA_FILE, type Artifact, type ProviderRepository } from '../core/repository.js';
import {
  CURRENT_CONTRACT,
  contractForVersion,
  contractMismatch,
  parseMetadata,
  unsupportedContract,
  type ContractedRelease,
  type ProviderMetadata,
} from './metadata.js';
import { originOf, preflightProblems, providerObjectName } from './preflight.js';
import { buildProviderRegistry } from './registry.js';
import { resolveVersion } from './versions.js';

export interface ResolvedProvider {
  provider: ProviderObject;
  /** clusterctl manifest label, e.g. `bootstrap-kubeadm`. */
  label: string;
  kind: ProviderKind;
  name: string;
  namespace: string;
  /** What was asked: spec.version, or the repository URL's version (`latest`, a tag) when empty. */
  requestedVersion: string;
  /** The release resolved, a tag as the repository spells it, e.g. `v1.12.0`. */
  version: string;
  /** The Cluster API contract the release implements, from its metadata.yaml. */
  contract: string;
  components: Artifact;
  metadata: Artifact;
  repository: { sourceType: string; location: string };
  /** Newer releases `latest` passed over for publishing no metadata.yaml, as clusterctl does: told with the resolution. */
  skippedReleases?: string[];
}

/** The directory relative paths in a document resolve against: the declaring file's. */
export function declaringDir(position: SourcePosition | undefined, fallback: string): string {
  return position?.file ? path.dirname(path.resolve(position.file)) : fallback;
}

/** Fills in where a problem is, for errors raised below the resolver without a position. */
export function attribute(error: unknown, origin: DiagnosticOrigin): unknown {
  if (!(error instanceof CapiGitopsError)) return error;
  return new CapiGitopsError(error.diagnostics.map((d) => (d.file === undefined && d.object === undefined ? withDefaults(d, origin) : d)));
}

/** The diagnostic with origin's fields where it has none (undefined never overwrites). */
function withDefaults(diagnostic: Diagnostic, origin: DiagnosticOrigin): Diagnostic {
  const merged: Diagnostic = { ...diagnostic };
  for (const [key, value] of Object.entries(origin) as [keyof DiagnosticOrigin, string | number | undefined][]) {
    if (merged[key] === undefined && value !== undefined) (merged as unknown as Record<string, unknown>)[key] = value;
  }
  return merged;
}

/**
 * A release the manifest names that does not exist is a problem of spec.version, reported where
 * the version is written (a fleet then finds the layer that chose it).
 */
function atVersionField(error: unknown, provider: ProviderObject): unknown {
  if (!(error instanceof ArtifactNotFoundError)) return error;
  const origin = originOf(provider, 'spec.version');
  return new CapiGitopsError(error.diagnostics.map((d) => ({ ...d, ...origin })));
}

/** The data of the Secret spec.configSecret names, if it is in the input (its credentials serve fetching). */
export function configSecretData(provider: ProviderObject, manifest: Manifest): Readonly<Record<string, string>> | undefined {
  return findConfigSecret(provider, manifest.secrets)?.data;
}

interface ProviderResolution {
  resolved: ResolvedProvider;
  parsedMetadata: ProviderMetadata;
}

/**
 * metadata.yaml parsed once per fetched artifact: a fleet's clusters receive the same Artifact
 * object for the same file (app/context.ts fetches each once), so they share its parse.
 */
const parsedMetadataOf = new WeakMap<Artifact, { subject: string; metadata: ProviderMetadata }>();

function metadataOf(artifact: Artifact, subject: { label: string; version: string; url: string }): ProviderMetadata {
  const key = JSON.stringify([subject.label, subject.version, subject.url]);
  const known = parsedMetadataOf.get(artifact);
  if (known?.subject === key) return known.metadata;
  const metadata = parseMetadata(artifact.text, subject);
  parsedMetadataOf.set(artifact, { subject: key, metadata });
  return metadata;
}

/**
 * One provider's release from its opened repository: the version (`pinned`, the lock's, if
 * given), metadata.yaml and its contract, and the components file.
 */
export async function resolveRelease(
  provider: ProviderObject,
  label: string,
  repository: ProviderRepository,
  pinned: string | undefined,
): Promise<ProviderResolution> {
  const resolution = await resolveVersion(repository, pinned ?? provider.spec.version, CURRENT_CONTRACT).catch((error: unknown) => {
    throw pinned === undefined && provider.spec.version ? atVersionField(error, provider) : error;
  });
  const version = resolution.version;
  // a pinned release still answers the manifest's own request
  const requested = pinned === undefined ? resolution.requested : provider.spec.version || repository.defaultVersion;
  // fetched side by side; when both fail, metadata.yaml's problem is told, whichever failed first,
  // so the words of a run do not depend on timing (and a release's shared miss groups its providers)
  const [metadata, components] = await Promise.allSettled([
    repository.getFile(version, METADATA_FILE),
    repository.getFile(version, repository.componentsFile),
  ]).then((settled) => {
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed === undefined) return settled.map((outcome) => (outcome as PromiseFulfilledResult<Artifact>).value);
    const error: unknown = failed.reason;
    throw pinned === undefined && provider.spec.version ? atVersionField(error, provider) : error;
  });
  const subject = { label, version, url: metadata.url };
  const parsedMetadata = metadataOf(metadata, subject);
  const contract = contractForVersion(parsedMetadata, subject);
  return {
    parsedMetadata,
    resolved: {
      provider,
      label: label,
      kind: provider.kind,
      name: provider.name,
      namespace: provider.namespace,
      requestedVersion: requested,
      version,
      contract,
      components,
      metadata,
      repository: { sourceType: repository.sourceType, location: repository.location },
      ...(resolution.skipped && { skippedReleases: resolution.skipped }),
    },
  };
}

function contracted(resolved: ResolvedProvider): ContractedRelease {
  return { object: providerObjectName(resolved.provider), label: resolved.label, version: resolved.version, contract: resolved.contract };
}

/** Problems with contracts: unsupported ones, and providers the core provider cannot work with. */
function contractProblems(resolutions: readonly ProviderResolution[]): Diagnostic[] {
  const problems: Diagnostic[] = [];
  // at the provider's spec.version (its first line when the version came from elsewhere, a pin or a release)
  const at = (resolved: ResolvedProvider, d: Diagnostic): Diagnostic => ({
    ...originOf(resolved.provider, 'spec.version'),
    ...d,
  });
  const core = resolutions.find((r) => r.resolved.kind === 'CoreProvider')?.resolved;
  const coreUsable = core !== undefined && unsupportedContract(contracted(core)) === undefined;
  for (const { resolved, parsedMetadata } of resolutions) {
    const unsupported = unsupportedContract(contracted(resolved));
    if (unsupported) {
      problems.push(at(resolved, unsupported));
      continue;
    }
    if (!coreUsable || resolved === core) continue;
    const mismatch = contractMismatch(contracted(core), contracted(resolved), parsedMetadata);
    if (mismatch) problems.push(at(resolved, mismatch));
  }
  return problems;
}

/** Install order (core, bootstrap, control plane, infrastructure, …), then name, then namespace. */
function compareResolved(
  a: Pick<ResolvedProvider, 'kind' | 'name' | 'namespace'>,
  b: Pick<ResolvedProvider, 'kind' | 'name' | 'namespace'>,
): number {
  return INSTALL_ORDER[a.kind] - INSTALL_ORDER[b.kind] || compareStrings(a.name, b.name) || compareStrings(a.namespace, b.namespace);
}

/**
 * Every provider's outcome gathered: the releases that resolved, in install order, beside every
 * problem (fetch, contract); a provider whose contract the core provider cannot work with is left
 * out with its problem, so a render can still report its own problems with these (issue #10).
 */
export function concludeResolutions(
  outcomes: readonly PromiseSettledResult<ProviderResolution>[],
  origins: readonly DiagnosticOrigin[] = [],
): {
  providers: ResolvedProvider[];
  problems: Diagnostic[];
} {
  const failures: { origin?: DiagnosticOrigin; diagnostics: readonly Diagnostic[] }[] = [];
  const resolutions: ProviderResolution[] = [];
  outcomes.forEach((outcome, index) => {
    if (outcome.status === 'fulfilled') resolutions.push(outcome.value);
    else if (outcome.reason instanceof CapiGitopsError) failures.push({ origin: origins[index], diagnostics: outcome.reason.diagnostics });
    else throw outcome.reason;
  });
  const fetchProblems = mergeSharedProblems(failures);
  const contract = contractProblems(resolutions);
  const refused = new Set(contract.map((d) => d.object));
  return {
    providers: resolutions
      .map((r) => r.resolved)
      .filter((r) => !refused.has(providerObjectName(r.provider)))
      .sort(compareResolved),
    problems: [...fetchProblems, ...contract],
  };
}

/**
 * A problem several providers met at the place of their request (not at a field), with the same words, is
 * one: a fetch of a release they share (RunContext fetches each file once) failed, and its error
 * is placed at whichever provider asked first. Reported once, at the first of them in the
 * manifest, naming them all; a problem at a field of its own (spec.version) stays as it is.
 */
function mergeSharedProblems(failures: readonly { origin?: DiagnosticOrigin; diagnostics: readonly Diagnostic[] }[]): Diagnostic[] {
  const atProvider = (d: Diagnostic) =>
    failures.some(
      ({ origin: o }) => o && o.file === d.file && o.line === d.line && o.column === d.column && o.object === d.object && o.path === d.path,
    );
  // in the order first met; a shared one collects the origins of every provider that met it
  const problems: { diagnostic: Diagnostic; origins?: DiagnosticOrigin[] }[] = [];
  const shared = new Map<string, { diagnostic: Diagnostic; origins: DiagnosticOrigin[] }>();
  for (const { origin, diagnostics } of failures) {
    for (const diagnostic of diagnostics) {
      if (!origin || !atProvider(diagnostic)) {
        problems.push({ diagnostic });
        continue;
      }
      const key = JSON.stringify([diagnostic.message, diagnostic.expected, diagnostic.hint]);
      const group = shared.get(key);
      if (group) group.origins.push(origin);
      else {
        const first = { diagnostic, origins: [origin] };
        shared.set(key, first);
        problems.push(first);
      }
    }
  }
  return problems.map(({ diagnostic, origins }) => (origins ? namingEveryProvider(diagnostic, origins) : diagnostic));
}

/** `diagnostic` at the first of `origins` in the manifest, naming each of their objects. */
function namingEveryProvider(diagnostic: Diagnostic, origins: readonly DiagnosticOrigin[]): Diagnostic {
  const sorted = [...new Map(origins.map((o) => [o.object, o])).values()].sort(comparePositions);
  const first = sorted[0]!;
  const paths = new Set(sorted.map((o) => o.path));
  return {
    ...diagnostic,
    file: first.file,
    line: first.line,
    column: first.column,
    object: sorted.map((o) => o.object).join(', '),
    path: paths.size === 1 ? first.path : undefined,
  };
}

/**
 * Every problem that needs no request (registry, the operator's preflight, cert-manager
 * settings), so a run with invalid input fails before it touches the network.
 */
export function preflightManagementCluster(manifest: Manifest): Diagnostic[] {
  const { registry, problems } = buildProviderRegistry(
    manifest.config.repositories ?? [],
    manifest.config.position,
    manifest.config.locate,
  );
  return [...problems, ...preflightProblems(manifest.providers, registry), ...certManagerSettingsProblems(manifest.config)];
}

// ---- cert-manager ---------------------------------------------------------------------------

/** clusterctl v1.12.0's pinned cert-manager (cmd/clusterctl/client/config/cert_manager_client.go). */
export const CERT_MANAGER_DEFAULT_VERSION = 'v1.19.1';
/** Why that version: said in every diagnostic about the default, which the user did not write. */
const CERT_MANAGER_DEFAULT_REASON = 'the version clusterctl v1.12 pins';
export const CERT_MANAGER_LABEL = 'cert-manager';

/** clusterctl's default cert-manager URL for a version. */
export function certManagerDefaultUrl(version: string): string {
  return `https://github.com/cert-manager/cert-manager/releases/${version}/cert-manager.yaml`;
}

/** A release published as one manifest (cert-manager, the cluster-api-operator): the file, and where it came from. */
export interface ResolvedRelease<Label extends string> {
  label: Label;
  version: string;
  components: Artifact;
  repository: { sourceType: string; location: string };
}

export type ResolvedCertManager = ResolvedRelease<typeof CERT_MANAGER_LABEL>;

/** A Config field as a problem's origin: at the field's own line where the Config knows it, else at the document. */
export function configFieldOrigin(config: ToolConfig, section: string, field: string): DiagnosticOrigin {
  const at = config.locate?.([section, field]) ?? config.position;
  return { file: at?.file, line: at?.line, column: at?.column, object: 'Config', path: `${section}.${field}` };
}

export function certManagerOrigin(config: ToolConfig, field: string): DiagnosticOrigin {
  return configFieldOrigin(config, 'certManager', field);
}

/**
 * One version from certManager.version and the version a remote URL names. clusterctl fetches
 * certManager.version (default v1.19.1) whatever the URL says; a remote URL naming another
 * version is refused here, so the file read is the file the URL names. (A local URL's
 * `<version>/` directory gives way to certManager.version: `fetchSingleManifest`.)
 */
export function certManagerRemoteVersion(configured: string | undefined, fromUrl: string | undefined, origin: DiagnosticOrigin): string {
  if (configured !== undefined && fromUrl !== undefined && configured !== fromUrl) {
    throw new CapiGitopsError({
      ...origin,
      message: `certManager.version is ${configured} but certManager.url names version ${fromUrl}`,
      hint: `make them agree, or drop certManager.version to use the URL's version; a release's URL with latest in place of its version (…/releases/latest/cert-manager.yaml) fetches certManager.version`,
    });
  }
  return configured ?? fromUrl ?? CERT_MANAGER_DEFAULT_VERSION;
}

/** A certManager.version that is not a semantic version, found before any request. */
export function certManagerSettingsProblems(config: ToolConfig): Diagnostic[] {
  const settings = config.certManager ?? {};
  if (settings.enabled === false || settings.version === undefined || parseSemantic(settings.version) !== null) return [];
  return [
    {
      ...certManagerOrigin(config, 'version'),
      message: `"${settings.version}" is not a semantic version`,
      expected: `a cert-manager release such as ${CERT_MANAGER_DEFAULT_VERSION}`,
    },
  ];
}

/**
 * Where diagnostics about cert-manager point: the field the user wrote, or, for the default,
 * the default itself (at the Config document if there is one) rather than a field never written.
 */
export function certManagerRequestOrigin(config: ToolConfig): DiagnosticOrigin {
  const settings = config.certManager ?? {};
  if (settings.url !== undefined) return certManagerOrigin(config, 'url');
  if (settings.version !== undefined) return certManagerOrigin(config, 'version');
  const { file, line, column } = config.position ?? {};
  return { file, line, column, object: `cert-manager ${CERT_MANAGER_DEFAULT_VERSION} (the default: ${CERT_MANAGER_DEFAULT_REASON})` };
}

const CERT_MANAGER_FETCH_HINT =
  'point certManager.url in the Config document at a local copy of cert-manager.yaml (a path or file:// URL), set certManager.enabled: false if cert-manager is installed another way, or pass --offline once an online run has cached it';

/** An --offline run already is offline: it is told to fill the cache once online instead. */
const CERT_MANAGER_OFFLINE_HINT =
  'run once without --offline (e.g. `capi-gitops lock`) on a machine with network access to cache it, point certManager.url in the Config document at a local copy of cert-manager.yaml (a path or file:// URL), or set certManager.enabled: false if cert-manager is installed another way';

/** A failed fetch with the ways around it as its hint (any other error as it is). */
export function withHint(error: unknown, hint: string): unknown {
  if (!(error instanceof CapiGitopsError)) return error;
  return new CapiGitopsError(error.diagnostics.map((d) => ({ ...d, hint })));
}

/** A failed remote fetch of cert-manager, with the ways around it as its hint. */
export function certManagerFetchProblem(error: unknown, offline = false): unknown {
  return withHint(error, offline ? CERT_MANAGER_OFFLINE_HINT : CERT_MANAGER_FETCH_HINT);
}
