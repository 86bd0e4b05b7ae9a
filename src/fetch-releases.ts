/**
 * Every release a manifest asks for, found and fetched: the resolve stage's rules (registry,
 * preflight, versions, contracts) over the repositories the sources stage opens. Composed here,
 * after both stages, so that resolve/ never imports sources/ (see DEVELOPERS.md).
 */
import path from 'node:path';
import { CapiGitopsError } from './model/diagnostics.js';
import { manifestLabel, type ProviderKind } from './model/provider.js';
import type { ProviderRepository } from './model/repository.js';
import { parseSemantic } from './kernel/versions.js';
import type { Manifest, ProviderObject, ToolConfig } from './manifest/types.js';
import { OPERATOR_COMPONENTS_FILE, OPERATOR_LABEL, operatorOrigin, operatorReleaseUrl, type ResolvedOperatorRelease } from './resolve/operator-release.js';
import type { ProviderRegistry } from './resolve/registry.js';
import { buildProviderRegistry } from './resolve/registry.js';
import {
  attribute,
  CERT_MANAGER_DEFAULT_VERSION,
  CERT_MANAGER_LABEL,
  certManagerDefaultUrl,
  certManagerFetchProblem,
  certManagerRequestOrigin,
  certManagerSettingsProblems,
  certManagerVersion,
  concludeResolutions,
  configSecretData,
  declaringDir,
  originOf,
  preflightManagementCluster,
  resolveRelease,
  type ResolvedCertManager,
  type ResolvedProvider,
} from './resolve/resolve.js';
import { openRepository, SOURCE_MODULES, type SourceModule } from './sources/index.js';
import { isLocalRepositoryUrl, localUrlToPath, readLocalArtifact } from './sources/local-repository.js';
import type { RepositoryRequest, SourceOptions } from './sources/request.js';

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
        const opened = await openRepository(request, { configMaps: manifest.configMaps, options: options.sources ?? {} }, options.modules ?? SOURCE_MODULES);
        const repository = options.decorate?.(opened, { kind: provider.kind, name: provider.name, namespace: provider.namespace }) ?? opened;
        return await resolveRelease(provider, request.label, repository, options.pinnedVersion?.(provider));
      } catch (error) {
        throw attribute(error, request.origin);
      }
    }),
  );
  return concludeResolutions(outcomes);
}

/** cert-manager as clusterctl init installs it, or null when `certManager.enabled` is false. */
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

/** The release Config.operator names: `version` (default: the latest release) or `url`. */
export async function resolveOperatorRelease(config: ToolConfig, baseDir: string, options: ResolveOptions = {}): Promise<ResolvedOperatorRelease> {
  const settings = config.operator ?? {};
  if (settings.version !== undefined && settings.version !== 'latest' && parseSemantic(settings.version) === null) {
    throw new CapiGitopsError({ ...operatorOrigin(config, 'version'), message: `"${settings.version}" is not a semantic version`, expected: 'a cluster-api-operator release such as v0.28.0', hint: 'set operator.version in the Config document' });
  }
  const url = settings.url ?? operatorReleaseUrl(settings.version ?? 'latest');
  const at = operatorOrigin(config, settings.url ? 'url' : 'version');
  const dir = declaringDir(config.position, baseDir);
  if (isLocalRepositoryUrl(url)) {
    const filePath = localUrlToPath(url, dir, at);
    const directory = path.basename(path.dirname(filePath));
    const version = settings.version ?? (parseSemantic(directory) ? directory : 'local');
    const components = await readLocalArtifact(filePath, at, '', 'the cluster-api-operator release manifest', `operator.url must name ${OPERATOR_COMPONENTS_FILE}`);
    return { label: OPERATOR_LABEL, version, components, repository: { sourceType: 'local', location: filePath } };
  }
  const request: RepositoryRequest = {
    name: OPERATOR_LABEL,
    label: OPERATOR_LABEL,
    url,
    baseDir: dir,
    origin: at,
    noSourceHint: `set operator.url to the GitHub release URL of ${OPERATOR_COMPONENTS_FILE}, or a local copy of it (a file:// URL or a path)`,
  };
  const repository = await openRepository(request, { configMaps: [], options: options.sources ?? {} }, options.modules ?? SOURCE_MODULES);
  const version = settings.version && settings.version !== 'latest' ? settings.version : repository.defaultVersion;
  const components = await repository.getFile(version, repository.componentsFile);
  return { label: OPERATOR_LABEL, version, components, repository: { sourceType: repository.sourceType, location: repository.location } };
}
