/**
 * The resolve stage: from the manifest's provider objects to the exact release artifacts.
 * Order of work, as `clusterctl init` and the operator do it: registry and preflight; open each
 * provider's repository; pick the version; read metadata.yaml and the release's contract; check
 * every contract against the core provider's; fetch the components file.
 */
import path from 'node:path';
import { CapiGitopsError, compareStrings, type Diagnostic } from '../model/diagnostics.js';
import { INSTALL_ORDER, manifestLabel, type ProviderKind } from '../model/provider.js';
import type { Manifest, ProviderObject, SourcePosition, ToolConfig } from '../manifest/types.js';
import { findConfigSecret } from '../manifest/references.js';
import { openRepository, SOURCE_MODULES, type SourceModule } from '../sources/index.js';
import { isLocalRepositoryUrl, localUrlToPath, readLocalArtifact } from '../sources/local-repository.js';
import type { DiagnosticOrigin, RepositoryRequest, SourceOptions } from '../sources/request.js';
import { parseSemantic } from '../kernel/versions.js';
import type { Artifact, ProviderRepository } from '../sources/source.js';
import {
  CURRENT_CONTRACT,
  METADATA_FILE,
  contractForVersion,
  contractMismatch,
  parseMetadata,
  unsupportedContract,
  type ContractedRelease,
  type ProviderMetadata,
} from './metadata.js';
import { preflightProblems, providerObjectName } from './preflight.js';
import { buildProviderRegistry, type ProviderRegistry } from './registry.js';
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
}

export interface ResolveOptions {
  /** Options handed to every source module. */
  sources?: SourceOptions;
  /** The source modules to ask; SOURCE_MODULES by default. */
  modules?: readonly SourceModule[];
  /** The exact version to use instead of spec.version (the lockfile's pin), if any. */
  pinnedVersion?: (provider: ProviderObject) => string | undefined;
  /** Wraps each opened repository, e.g. to serve locked files from the cache. */
  decorate?: (repository: ProviderRepository, component: { kind?: ProviderKind; name: string; namespace?: string }) => ProviderRepository;
}

/** The directory relative paths in a document resolve against: the declaring file's. */
export function declaringDir(position: SourcePosition | undefined, fallback: string): string {
  return position?.file ? path.dirname(path.resolve(position.file)) : fallback;
}

function originOf(provider: ProviderObject, fieldPath?: string): DiagnosticOrigin {
  const { file, line, column } = provider.position;
  return { file, line, column, object: providerObjectName(provider), path: fieldPath };
}

/** Fills in where a problem is, for errors raised below the resolver without a position. */
function attribute(error: unknown, origin: DiagnosticOrigin): unknown {
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


/** Which source serves a provider: its fetchConfig, else its registry entry. */
export function repositoryRequestFor(provider: ProviderObject, registry: ProviderRegistry, manifestBaseDir: string, credentials?: Readonly<Record<string, string>>): RepositoryRequest {
  const label = manifestLabel(provider.kind, provider.name);
  const entry = registry.lookup(provider.kind, provider.name);
  // a fetchConfig.url template still takes its version list from a matching repositories entry
  const listing = entry && !entry.builtIn ? { versions: entry.versions, versionsUrl: entry.versionsUrl, allowInsecure: entry.allowInsecure } : {};
  const base = { kind: provider.kind, name: provider.name, label, namespace: provider.namespace, credentials, ...listing };
  const fetchConfig = provider.spec.fetchConfig;
  if (fetchConfig?.selector !== undefined) {
    return { ...base, selector: fetchConfig.selector, baseDir: manifestBaseDir, origin: originOf(provider, 'spec.fetchConfig.selector') };
  }
  if (fetchConfig?.oci) {
    return { ...base, oci: fetchConfig.oci, baseDir: manifestBaseDir, origin: originOf(provider, 'spec.fetchConfig.oci') };
  }
  if (fetchConfig?.url) {
    return { ...base, url: fetchConfig.url, baseDir: declaringDir(provider.position, manifestBaseDir), origin: originOf(provider, 'spec.fetchConfig.url'), noSourceHint: `use a GitHub or GitLab release URL, an https URL template with {version}, a file:// URL or a path to a local repository (${label}/<version>/<components-file>), or ConfigMaps with spec.fetchConfig.selector` };
  }
  if (entry === undefined) {
    // Preflight reports this; kept as a guard for direct callers.
    throw new CapiGitopsError({ ...originOf(provider, 'spec.fetchConfig'), message: `no repository is known for ${label}`, hint: 'set spec.fetchConfig or add a Config repositories entry' });
  }
  const origin = originOf(provider);
  return {
    ...base,
    url: entry.url,
    baseDir: declaringDir(entry.declaredAt, manifestBaseDir),
    origin,
    noSourceHint: `point the Config repositories entry for ${label} at a release URL capi-gitops can read, or at a local repository`,
  };
}

/** The data of the Secret spec.configSecret names, if it is in the input (its credentials serve fetching). */
export function configSecretData(provider: ProviderObject, manifest: Manifest): Readonly<Record<string, string>> | undefined {
  return findConfigSecret(provider, manifest.secrets)?.data;
}

interface ProviderResolution {
  resolved: ResolvedProvider;
  parsedMetadata: ProviderMetadata;
}

async function resolveOne(provider: ProviderObject, request: RepositoryRequest, manifest: Manifest, options: ResolveOptions): Promise<ProviderResolution> {
  const opened = await openRepository(request, { configMaps: manifest.configMaps, options: options.sources ?? {} }, options.modules ?? SOURCE_MODULES);
  const repository = options.decorate?.(opened, { kind: provider.kind, name: provider.name, namespace: provider.namespace }) ?? opened;
  const pinned = options.pinnedVersion?.(provider);
  const resolution = await resolveVersion(repository, pinned ?? provider.spec.version, CURRENT_CONTRACT);
  const version = resolution.version;
  // a pinned release still answers the manifest's own request
  const requested = pinned === undefined ? resolution.requested : provider.spec.version || repository.defaultVersion;
  const [metadata, components] = await Promise.all([repository.getFile(version, METADATA_FILE), repository.getFile(version, repository.componentsFile)]);
  const subject = { label: request.label, version, url: metadata.url };
  const parsedMetadata = parseMetadata(metadata.text, subject);
  const contract = contractForVersion(parsedMetadata, subject);
  return {
    parsedMetadata,
    resolved: {
      provider,
      label: request.label,
      kind: provider.kind,
      name: provider.name,
      namespace: provider.namespace,
      requestedVersion: requested,
      version,
      contract,
      components,
      metadata,
      repository: { sourceType: repository.sourceType, location: repository.location },
    },
  };
}

function contracted(resolved: ResolvedProvider): ContractedRelease {
  return { object: providerObjectName(resolved.provider), label: resolved.label, version: resolved.version, contract: resolved.contract };
}

/** Problems with contracts: unsupported ones, and providers the core provider cannot work with. */
function contractProblems(resolutions: readonly ProviderResolution[]): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const at = (resolved: ResolvedProvider, d: Diagnostic): Diagnostic => ({ ...originOf(resolved.provider, 'spec.version'), ...d });
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
export function compareResolved(a: Pick<ResolvedProvider, 'kind' | 'name' | 'namespace'>, b: Pick<ResolvedProvider, 'kind' | 'name' | 'namespace'>): number {
  return INSTALL_ORDER[a.kind] - INSTALL_ORDER[b.kind] || compareStrings(a.name, b.name) || compareStrings(a.namespace, b.namespace);
}

/**
 * Resolves every provider of the manifest, fetching concurrently, and returns them in install
 * order. All problems (registry, preflight, fetch, contract) are reported in one error; a
 * stage's problems stop the stages after it.
 */
export async function resolveProviders(manifest: Manifest, options: ResolveOptions = {}): Promise<ResolvedProvider[]> {
  const { registry } = buildProviderRegistry(manifest.config.repositories ?? [], manifest.config.position);
  const early = preflightManagementCluster(manifest);
  if (early.length > 0) throw new CapiGitopsError(early);

  const outcomes = await Promise.allSettled(
    manifest.providers.map(async (provider) => {
      const request = repositoryRequestFor(provider, registry, manifest.baseDir, configSecretData(provider, manifest));
      try {
        return await resolveOne(provider, request, manifest, options);
      } catch (error) {
        throw attribute(error, request.origin);
      }
    }),
  );
  const fetchProblems: Diagnostic[] = [];
  const resolutions: ProviderResolution[] = [];
  for (const outcome of outcomes) {
    if (outcome.status === 'fulfilled') resolutions.push(outcome.value);
    else if (outcome.reason instanceof CapiGitopsError) fetchProblems.push(...outcome.reason.diagnostics);
    else throw outcome.reason;
  }
  const problems = [...fetchProblems, ...contractProblems(resolutions)];
  if (problems.length > 0) throw new CapiGitopsError(problems);
  return resolutions.map((r) => r.resolved).sort(compareResolved);
}

/**
 * Every problem that needs no request (registry, the operator's preflight, cert-manager
 * settings), so a run with invalid input fails before it touches the network.
 */
export function preflightManagementCluster(manifest: Manifest): Diagnostic[] {
  const { registry, problems } = buildProviderRegistry(manifest.config.repositories ?? [], manifest.config.position);
  return [...problems, ...preflightProblems(manifest.providers, registry), ...certManagerSettingsProblems(manifest.config)];
}

// ---- cert-manager ---------------------------------------------------------------------------

/** clusterctl v1.12.0's pinned cert-manager (cmd/clusterctl/client/config/cert_manager_client.go). */
export const CERT_MANAGER_DEFAULT_VERSION = 'v1.19.1';
/** Why that version: said in every diagnostic about the default, which the user did not write. */
export const CERT_MANAGER_DEFAULT_REASON = 'the version clusterctl v1.12 pins';
export const CERT_MANAGER_LABEL = 'cert-manager';

/** clusterctl's default cert-manager URL for a version. */
export function certManagerDefaultUrl(version: string): string {
  return `https://github.com/cert-manager/cert-manager/releases/${version}/cert-manager.yaml`;
}

export interface ResolvedCertManager {
  label: typeof CERT_MANAGER_LABEL;
  version: string;
  components: Artifact;
  repository: { sourceType: string; location: string };
}

function certManagerOrigin(config: ToolConfig, field: string): DiagnosticOrigin {
  return { file: config.position?.file, line: config.position?.line, column: config.position?.column, object: 'Config', path: `certManager.${field}` };
}

/**
 * One version from certManager.version and the version the URL names. clusterctl fetches
 * certManager.version (default v1.19.1) whatever the URL says; a URL naming another version
 * is refused here, so the file read is the file the URL names.
 */
function certManagerVersion(configured: string | undefined, fromUrl: string | undefined, origin: DiagnosticOrigin): string {
  if (configured !== undefined && fromUrl !== undefined && configured !== fromUrl) {
    throw new CapiGitopsError({ ...origin, message: `certManager.version is ${configured} but certManager.url names version ${fromUrl}`, hint: 'make them agree, or drop certManager.version to use the URL\'s version' });
  }
  return configured ?? fromUrl ?? CERT_MANAGER_DEFAULT_VERSION;
}

/**
 * cert-manager as clusterctl init installs it, or null when `certManager.enabled` is false.
 * A local URL (file:// or a path, relative to the Config's file) is read directly; other URLs
 * go through the source modules like a provider's.
 */
function certManagerSettingsProblems(config: ToolConfig): Diagnostic[] {
  const settings = config.certManager ?? {};
  if (settings.enabled === false || settings.version === undefined || parseSemantic(settings.version) !== null) return [];
  return [{ ...certManagerOrigin(config, 'version'), message: `"${settings.version}" is not a semantic version`, expected: `a cert-manager release such as ${CERT_MANAGER_DEFAULT_VERSION}` }];
}

/**
 * Where diagnostics about cert-manager point: the field the user wrote, or, for the default,
 * the default itself (at the Config document if there is one) rather than a field never written.
 */
function certManagerRequestOrigin(config: ToolConfig): DiagnosticOrigin {
  const settings = config.certManager ?? {};
  if (settings.url !== undefined) return certManagerOrigin(config, 'url');
  if (settings.version !== undefined) return certManagerOrigin(config, 'version');
  const { file, line, column } = config.position ?? {};
  return { file, line, column, object: `cert-manager ${CERT_MANAGER_DEFAULT_VERSION} (the default: ${CERT_MANAGER_DEFAULT_REASON})` };
}

const CERT_MANAGER_FETCH_HINT =
  'point certManager.url in the Config document at a local copy of cert-manager.yaml (a path or file:// URL), set certManager.enabled: false if cert-manager is installed another way, or pass --offline once an online run has cached it';

/** A failed remote fetch of cert-manager, with the ways around it as its hint. */
function certManagerFetchProblem(error: unknown): unknown {
  if (!(error instanceof CapiGitopsError)) return error;
  return new CapiGitopsError(error.diagnostics.map((d) => ({ ...d, hint: CERT_MANAGER_FETCH_HINT })));
}

export async function resolveCertManager(config: ToolConfig, baseDir: string, options: ResolveOptions = {}): Promise<ResolvedCertManager | null> {
  const settings = config.certManager ?? {};
  if (settings.enabled === false) return null;
  const settingsProblems = certManagerSettingsProblems(config);
  if (settingsProblems.length > 0) throw new CapiGitopsError(settingsProblems);
  const url = settings.url ?? certManagerDefaultUrl(settings.version ?? CERT_MANAGER_DEFAULT_VERSION);
  const origin = certManagerRequestOrigin(config);

  if (isLocalRepositoryUrl(url)) {
    const filePath = localUrlToPath(url, declaringDir(config.position, baseDir), origin);
    const directory = path.basename(path.dirname(filePath));
    const version = certManagerVersion(settings.version, parseSemantic(directory) ? directory : undefined, origin);
    const components = await readLocalArtifact(filePath, origin, '', 'the cert-manager manifest', 'certManager.url must name the cert-manager.yaml release manifest');
    return { label: CERT_MANAGER_LABEL, version, components, repository: { sourceType: 'local', location: filePath } };
  }

  const request: RepositoryRequest = {
    name: CERT_MANAGER_LABEL,
    label: CERT_MANAGER_LABEL,
    url,
    baseDir: declaringDir(config.position, baseDir),
    origin,
    noSourceHint: 'set certManager.url to a GitHub release URL or a local copy of cert-manager.yaml (a file:// URL or a path), or certManager.enabled: false if cert-manager is installed another way',
  };
  const opened = await openRepository(request, { configMaps: [], options: options.sources ?? {} }, options.modules ?? SOURCE_MODULES);
  const repository = options.decorate?.(opened, { name: CERT_MANAGER_LABEL, namespace: 'cert-manager' }) ?? opened;
  const version = certManagerVersion(settings.version, parseSemantic(repository.defaultVersion) ? repository.defaultVersion : undefined, origin);
  const components = await repository.getFile(version, repository.componentsFile).catch((error: unknown) => {
    throw certManagerFetchProblem(error);
  });
  return { label: CERT_MANAGER_LABEL, version, components, repository: { sourceType: repository.sourceType, location: repository.location } };
}
