/**
 * Every release a manifest asks for, found and fetched: the resolve stage's rules (registry,
 * preflight, versions, contracts) over the repositories the sources stage opens (sources/ comes
 * before resolve/ in the folder order, DEVELOPERS.md).
 */
import path from 'node:path';
import { CapiGitopsError, type Diagnostic, type DiagnosticOrigin } from '../core/diagnostics.js';
import { manifestLabel, type ProviderKind } from '../core/provider.js';
import { LATEST, type Artifact, type ProviderRepository } from '../core/repository.js';
import { parseSemantic } from '../core/versions.js';
import type { Manifest, ProviderObject, ToolConfig } from '../manifest/types.js';
import {
  OPERATOR_COMPONENTS_FILE,
  OPERATOR_LABEL,
  operatorOrigin,
  operatorReleaseUrl,
  operatorSettingsProblems,
  pinsOperatorRelease,
  type ResolvedOperatorRelease,
} from './operator-release.js';
import { sortForLatest } from './versions.js';
import type { ProviderRegistry } from './registry.js';
import { buildProviderRegistry } from './registry.js';
import { certManagerFileVersion } from './cert-manager-version.js';
import { originOf } from './preflight.js';
import {
  attribute,
  CERT_MANAGER_DEFAULT_VERSION,
  CERT_MANAGER_LABEL,
  certManagerDefaultUrl,
  certManagerFetchProblem,
  certManagerOrigin,
  certManagerRemoteVersion,
  certManagerRequestOrigin,
  certManagerSettingsProblems,
  concludeResolutions,
  configSecretData,
  declaringDir,
  preflightManagementCluster,
  resolveRelease,
  type ResolvedCertManager,
  type ResolvedProvider,
  type ResolvedRelease,
  withHint,
} from './resolve.js';
import { openRepository, type SourceModule } from '../sources/index.js';
import { isLocalRepositoryUrl, localUrlToPath, readLocalArtifact } from '../sources/local/repository.js';
import type { RepositoryRequest, SourceOptions } from '../sources/request.js';

export interface ResolveOptions {
  /** Options handed to every source module. */
  sources?: SourceOptions;
  /** The source modules to ask; SOURCE_MODULES by default. */
  modules?: readonly SourceModule[];
  /** The exact version to use instead of spec.version (the lockfile's pin), if any. */
  pinnedVersion?: (provider: ProviderObject) => string | undefined;
  /** Wraps each opened repository, e.g. to serve locked files from the cache. */
  decorate?: (repository: ProviderRepository, component: { kind?: ProviderKind; name: string; namespace?: string }) => ProviderRepository;
  /** Reads a local file once per run (a fleet's clusters share one cert-manager.yaml). */
  readLocal?: (filePath: string, read: () => Promise<Artifact>) => Promise<Artifact>;
}

/** The provider's field as a problem's origin: at the field's own line when the manifest knows it. */
function fieldOrigin(provider: ProviderObject, ...path: string[]): DiagnosticOrigin {
  return originOf(provider, ['spec', ...path].join('.'));
}

/** Which source serves a provider: its fetchConfig, else its registry entry. */
export function repositoryRequestFor(
  provider: ProviderObject,
  registry: ProviderRegistry,
  manifestBaseDir: string,
  credentials?: Readonly<Record<string, string>>,
): RepositoryRequest {
  const label = manifestLabel(provider.kind, provider.name);
  const entry = registry.lookup(provider.kind, provider.name);
  // a fetchConfig.url template still takes its version list from a matching repositories entry
  const listing =
    entry && !entry.builtIn
      ? { versions: entry.versions, versionsUrl: entry.versionsUrl, versionsUrlAt: entry.versionsUrlAt, allowInsecure: entry.allowInsecure }
      : {};
  const base = { kind: provider.kind, name: provider.name, label, namespace: provider.namespace, credentials, baseDir: manifestBaseDir };
  const fetchConfig = provider.spec.fetchConfig;
  if (fetchConfig?.selector !== undefined) {
    return { ...base, from: 'selector', selector: fetchConfig.selector, origin: fieldOrigin(provider, 'fetchConfig', 'selector') };
  }
  if (fetchConfig?.oci) {
    return { ...base, from: 'oci', oci: fetchConfig.oci, origin: fieldOrigin(provider, 'fetchConfig', 'oci') };
  }
  if (fetchConfig?.url) {
    return {
      ...base,
      ...listing,
      from: 'url',
      url: fetchConfig.url,
      baseDir: declaringDir(provider.position, manifestBaseDir),
      origin: fieldOrigin(provider, 'fetchConfig', 'url'),
      noSourceHint: `use a GitHub or GitLab release URL, an https URL template with {version}, a file:// URL or a path to a local repository (${label}/<version>/<components-file>), or ConfigMaps with spec.fetchConfig.selector`,
    };
  }
  if (entry === undefined) {
    // Preflight reports this; kept as a guard for direct callers.
    throw new CapiGitopsError({
      ...originOf(provider, 'spec.fetchConfig'),
      message: `no repository is known for ${label}`,
      hint: 'set spec.fetchConfig or add a Config repositories entry',
    });
  }
  // a Config repositories entry's problem (a version directory missing) is told at its url
  const origin = {
    ...originOf(provider),
    ...(entry.urlAt && { file: entry.urlAt.file, line: entry.urlAt.line, column: entry.urlAt.column }),
  };
  return {
    ...base,
    ...listing,
    from: 'url',
    url: entry.url,
    baseDir: declaringDir(entry.declaredAt, manifestBaseDir),
    origin,
    noSourceHint: `point the Config repositories entry for ${label} at a release URL capi-gitops can read, or at a local repository`,
  };
}

/**
 * Resolves every provider of the manifest, fetching concurrently, in install order. Registry and
 * preflight problems are thrown before any request; what resolved is kept beside the fetch and
 * contract problems: a render then renders those and reports its own problems with these (issue
 * #10: every problem in one run).
 */
export async function resolveEachProvider(
  manifest: Manifest,
  options: ResolveOptions = {},
): Promise<{ providers: ResolvedProvider[]; problems: Diagnostic[] }> {
  const { registry } = buildProviderRegistry(manifest.config.repositories ?? [], manifest.config.position, manifest.config.locate);
  const early = preflightManagementCluster(manifest);
  if (early.length > 0) throw new CapiGitopsError(early);

  const origins: DiagnosticOrigin[] = [];
  const outcomes = await Promise.allSettled(
    manifest.providers.map(async (provider, index) => {
      const request = repositoryRequestFor(provider, registry, manifest.baseDir, configSecretData(provider, manifest));
      origins[index] = request.origin;
      try {
        const opened = await openRepository(request, { configMaps: manifest.configMaps, options: options.sources ?? {} }, options.modules);
        const repository =
          options.decorate?.(opened, { kind: provider.kind, name: provider.name, namespace: provider.namespace }) ?? opened;
        return await resolveRelease(provider, request.label, repository, options.pinnedVersion?.(provider));
      } catch (error) {
        throw attribute(error, request.origin);
      }
    }),
  );
  return concludeResolutions(outcomes, origins);
}

/** A release published as one manifest (cert-manager, the cluster-api-operator), and how to read it. */
interface SingleManifest<Label extends string> {
  label: Label;
  url: string;
  /** Where a relative local URL is resolved from. */
  dir: string;
  origin: DiagnosticOrigin;
  /** For messages: what the file is, and what the URL must name. */
  what: string;
  mustName: string;
  noSourceHint: string;
  /** The version of a local copy, given the directory it is in when that is a semantic version, and its text. */
  localVersion: (fromDirectory: string | undefined, filePath: string, text: string) => string;
  /**
   * A version asked for apart from the URL: a local URL in a `<version>/` or `latest/` directory
   * is read from that version's directory beside it, as clusterctl's local repository serves any
   * version it holds (repository_local.go). `hint` is told when that file is missing.
   */
  requested?: { version: string; origin: DiagnosticOrigin; hint: (urlDirectory: string, wanted: string) => string };
  /** The version to fetch from an opened repository. */
  remoteVersion: (repository: ProviderRepository) => string | Promise<string>;
  decorate?: (repository: ProviderRepository) => ProviderRepository;
  fetchProblem?: (error: unknown) => unknown;
}

/** A local URL is read where it is; any other goes through the source modules like a provider's. */
async function fetchSingleManifest<Label extends string>(
  release: SingleManifest<Label>,
  options: Pick<ResolveOptions, 'sources' | 'modules' | 'readLocal'>,
): Promise<ResolvedRelease<Label>> {
  const { label, url, origin } = release;
  if (isLocalRepositoryUrl(url)) {
    let filePath = localUrlToPath(url, release.dir, origin);
    let [readOrigin, mustName] = [origin, release.mustName];
    const { requested } = release;
    const urlDirectory = path.basename(path.dirname(filePath));
    if (requested && requested.version !== urlDirectory && (parseSemantic(urlDirectory) || urlDirectory === LATEST)) {
      filePath = path.join(path.dirname(path.dirname(filePath)), requested.version, path.basename(filePath));
      [readOrigin, mustName] = [requested.origin, requested.hint(urlDirectory, path.dirname(filePath))];
    }
    const directory = path.basename(path.dirname(filePath));
    const read = () => readLocalArtifact(filePath, readOrigin, '', release.what, mustName);
    const components = await (options.readLocal ? options.readLocal(filePath, read) : read());
    const version = release.localVersion(parseSemantic(directory) ? directory : undefined, filePath, components.text);
    return { label, version, components, repository: { sourceType: 'local', location: filePath } };
  }
  const request: RepositoryRequest = {
    from: 'url',
    name: label,
    label,
    url,
    baseDir: release.dir,
    origin,
    noSourceHint: release.noSourceHint,
  };
  // a URL no source reads is a problem of the Config field that gave it, as a provider's fetchConfig.url is
  const opened = await openRepository(request, { configMaps: [], options: options.sources ?? {} }, options.modules).catch(
    (error: unknown) => {
      throw attribute(error, origin);
    },
  );
  const repository = release.decorate?.(opened) ?? opened;
  const version = await release.remoteVersion(repository);
  // a problem of the lock session (a locked file not cached under --offline) has no place of its own
  const components = await repository.getFile(version, repository.componentsFile).catch((error: unknown) => {
    throw attribute(release.fetchProblem ? release.fetchProblem(error) : error, origin);
  });
  return { label, version, components, repository: { sourceType: repository.sourceType, location: repository.location } };
}

/** cert-manager as clusterctl init installs it, or null when `certManager.enabled` is false. */
export async function resolveCertManager(
  config: ToolConfig,
  baseDir: string,
  options: ResolveOptions = {},
): Promise<ResolvedCertManager | null> {
  const settings = config.certManager ?? {};
  if (settings.enabled === false) return null;
  const settingsProblems = certManagerSettingsProblems(config);
  if (settingsProblems.length > 0) throw new CapiGitopsError(settingsProblems);
  const origin = certManagerRequestOrigin(config);
  return fetchSingleManifest(
    {
      label: CERT_MANAGER_LABEL,
      url: settings.url ?? certManagerDefaultUrl(settings.version ?? CERT_MANAGER_DEFAULT_VERSION),
      dir: declaringDir(config.position, baseDir),
      origin,
      what: 'the cert-manager manifest',
      mustName: 'certManager.url must name the cert-manager.yaml release manifest',
      noSourceHint:
        'set certManager.url to a GitHub release URL or a local copy of cert-manager.yaml (a file:// URL or a path), or certManager.enabled: false if cert-manager is installed another way',
      // a file in no <version>/ directory, without certManager.version, says which release it is
      localVersion: (fromDirectory, filePath, text) =>
        settings.version ??
        fromDirectory ??
        certManagerFileVersion(text, filePath, { ...origin, ...config.locate?.(['certManager', 'url']) }),
      ...(settings.version !== undefined && {
        requested: {
          version: settings.version,
          origin: certManagerOrigin(config, 'version'),
          hint: (urlDirectory: string, wanted: string) =>
            `put cert-manager ${settings.version}'s cert-manager.yaml in ${wanted}/, beside certManager.url's ${urlDirectory}/ ` +
            `(clusterctl reads a local repository's versions side by side), or set certManager.version to ${urlDirectory}`,
        },
      }),
      remoteVersion: (repository) =>
        certManagerRemoteVersion(
          settings.version,
          parseSemantic(repository.defaultVersion) ? repository.defaultVersion : undefined,
          origin,
        ),
      decorate: options.decorate && ((opened) => options.decorate!(opened, { name: CERT_MANAGER_LABEL, namespace: 'cert-manager' })),
      fetchProblem: (error) => certManagerFetchProblem(error, options.sources?.offline),
    },
    options,
  );
}

interface OperatorReleaseOptions extends Pick<ResolveOptions, 'sources' | 'modules'> {
  /** The release the lockfile pins (it still answers Config.operator): used without listing releases. */
  pinnedVersion?: string;
  /** Wraps the opened repository (the lock session serves pinned files from the cache). */
  decorate?: (repository: ProviderRepository) => ProviderRepository;
}

/** The release Config.operator names: `version` (default: the newest stable release) or `url`. */
export async function resolveOperatorRelease(
  config: ToolConfig,
  baseDir: string,
  options: OperatorReleaseOptions = {},
): Promise<ResolvedOperatorRelease> {
  const problems = operatorSettingsProblems(config);
  if (problems.length > 0) throw new CapiGitopsError(problems);
  const settings = config.operator ?? {};
  const requested = settings.version === LATEST ? undefined : settings.version;
  const at = operatorOrigin(config, settings.url ? 'url' : 'version');
  const fetchProblem = (error: unknown) => withHint(error, options.sources?.offline ? operatorOfflineHint(config) : OPERATOR_FETCH_HINT);
  return fetchSingleManifest(
    {
      label: OPERATOR_LABEL,
      url: settings.url ?? operatorReleaseUrl(options.pinnedVersion ?? requested ?? LATEST),
      dir: declaringDir(config.position, baseDir),
      origin: at,
      what: 'the cluster-api-operator release manifest',
      mustName: `operator.url must name ${OPERATOR_COMPONENTS_FILE}`,
      noSourceHint: `set operator.url to the GitHub release URL of ${OPERATOR_COMPONENTS_FILE}, or a local copy of it (a file:// URL or a path)`,
      localVersion: (fromDirectory, filePath) => {
        const version = requested ?? fromDirectory;
        // the lock records a release: a copy outside a <version>/ directory must say which
        if (version !== undefined) return version;
        throw new CapiGitopsError({
          ...at,
          message: `${filePath} is not in a directory named for its release, and operator.version is not set`,
          expected: 'operator.version: <tag>, or the file in a directory named for the release (…/v0.28.0/operator-components.yaml)',
          hint: 'add operator.version (the release the file comes from) to the Config document',
        });
      },
      remoteVersion: (repository) =>
        options.pinnedVersion ??
        requested ??
        (repository.defaultVersion !== LATEST ? repository.defaultVersion : newestRelease(repository, at, fetchProblem)),
      decorate: options.decorate,
      fetchProblem,
    },
    options,
  );
}

const OPERATOR_FETCH_HINT = `point operator.url in the Config document at a local copy of ${OPERATOR_COMPONENTS_FILE} (a path or file:// URL), or pass --offline once an online run has cached it`;
/**
 * An --offline run already is offline: it is told to fill the cache once online, or to use a
 * local copy. `capi-gitops lock` takes no --layout and fetches the operator's release only when
 * the Config asks for the layout; a run that took it from --layout alone is told to render.
 */
function operatorOfflineHint(config: ToolConfig): string {
  const locks = pinsOperatorRelease(config);
  const online = locks ? '`capi-gitops lock`' : '`capi-gitops render`';
  return `run once without --offline (e.g. ${online}) on a machine with network access to cache it, or point operator.url in the Config document at a local copy of ${OPERATOR_COMPONENTS_FILE} (a path or file:// URL)`;
}

/** `latest`: the newest stable release (a pre-release only when there is no stable one). */
async function newestRelease(
  repository: ProviderRepository,
  at: DiagnosticOrigin,
  fetchProblem: (error: unknown) => unknown,
): Promise<string> {
  const listed = await repository.listVersions().catch((error: unknown) => {
    throw fetchProblem(error);
  });
  const [newest] = sortForLatest(listed);
  if (newest === undefined)
    throw new CapiGitopsError({
      ...at,
      message: `${repository.location} has no release tagged with a semantic version`,
      hint: 'set operator.version to a release tag',
    });
  return newest;
}
