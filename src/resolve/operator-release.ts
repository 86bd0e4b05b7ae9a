/**
 * The cluster-api-operator's own release manifest (`operator-components.yaml` of the
 * kubernetes-sigs/cluster-api-operator GitHub releases), for the operator layout. Fetched through
 * the same source modules (and artifact cache) as providers and cert-manager, and pinned in the
 * lockfile like them (src/lock: kind `Operator`).
 */
import path from 'node:path';
import { CapiGitopsError, type Diagnostic } from '../model/diagnostics.js';
import type { ToolConfig } from '../manifest/types.js';
import { openRepository, SOURCE_MODULES } from '../sources/index.js';
import { isLocalRepositoryUrl, localUrlToPath, readLocalArtifact } from '../sources/local/repository.js';
import type { DiagnosticOrigin, RepositoryRequest } from '../sources/request.js';
import { parseSemantic } from '../sources/semantic-version.js';
import type { Artifact, ProviderRepository } from '../sources/source.js';
import { declaringDir, type ResolveOptions } from './resolve.js';
import { LATEST, sortForLatest } from './versions.js';

export const OPERATOR_LABEL = 'cluster-api-operator';
export const OPERATOR_COMPONENTS_FILE = 'operator-components.yaml';
/** The namespace of the operator's release manifest; the lock entry's namespace. */
export const OPERATOR_NAMESPACE = 'capi-operator-system';

export interface ResolvedOperatorRelease {
  label: typeof OPERATOR_LABEL;
  version: string;
  components: Artifact;
  repository: { sourceType: string; location: string };
}

export interface OperatorReleaseOptions extends Pick<ResolveOptions, 'sources' | 'modules'> {
  /** The release the lockfile pins (it still answers Config.operator): used without listing releases. */
  pinnedVersion?: string;
  /** Wraps the opened repository (the lock session serves pinned files from the cache). */
  decorate?: (repository: ProviderRepository) => ProviderRepository;
}

export function operatorReleaseUrl(version: string): string {
  return `https://github.com/kubernetes-sigs/cluster-api-operator/releases/${version}/${OPERATOR_COMPONENTS_FILE}`;
}

function origin(config: ToolConfig, field: string): DiagnosticOrigin {
  return { file: config.position?.file, line: config.position?.line, column: config.position?.column, object: 'Config', path: `operator.${field}` };
}

/** Config.operator problems that need no request, so invalid input fails before any fetch. */
export function operatorSettingsProblems(config: ToolConfig): Diagnostic[] {
  const version = config.operator?.version;
  if (version === undefined || version === LATEST || parseSemantic(version) !== null) return [];
  return [{ ...origin(config, 'version'), message: `"${version}" is not a semantic version`, expected: 'a cluster-api-operator release such as v0.28.0, or latest', hint: 'set operator.version in the Config document to a release tag' }];
}

/** The release Config.operator names: `version` (default: the newest stable release) or `url`. */
export async function resolveOperatorRelease(config: ToolConfig, baseDir: string, options: OperatorReleaseOptions = {}): Promise<ResolvedOperatorRelease> {
  const problems = operatorSettingsProblems(config);
  if (problems.length > 0) throw new CapiGitopsError(problems);
  const settings = config.operator ?? {};
  const requested = settings.version === LATEST ? undefined : settings.version;
  const at = origin(config, settings.url ? 'url' : 'version');
  const dir = declaringDir(config.position, baseDir);
  const url = settings.url ?? operatorReleaseUrl(options.pinnedVersion ?? requested ?? LATEST);
  if (isLocalRepositoryUrl(url)) {
    const filePath = localUrlToPath(url, dir, at);
    const directory = path.basename(path.dirname(filePath));
    const version = requested ?? (parseSemantic(directory) ? directory : undefined);
    // the lock records a release: a copy outside a <version>/ directory must say which
    if (version === undefined) {
      throw new CapiGitopsError({ ...at, message: `${filePath} is not in a directory named for its release, and operator.version is not set`, expected: 'operator.version: <tag>, or the file in a directory named for the release (…/v0.28.0/operator-components.yaml)', hint: 'add operator.version (the release the file comes from) to the Config document' });
    }
    const components = await readLocalArtifact(filePath, at, '', 'the cluster-api-operator release manifest', `operator.url must name ${OPERATOR_COMPONENTS_FILE}`);
    return { label: OPERATOR_LABEL, version, components, repository: { sourceType: 'local', location: filePath } };
  }
  const request: RepositoryRequest = {
    from: 'url',
    name: OPERATOR_LABEL,
    label: OPERATOR_LABEL,
    url,
    baseDir: dir,
    origin: at,
    noSourceHint: `set operator.url to the GitHub release URL of ${OPERATOR_COMPONENTS_FILE}, or a local copy of it (a file:// URL or a path)`,
  };
  const opened = await openRepository(request, { configMaps: [], options: options.sources ?? {} }, options.modules ?? SOURCE_MODULES);
  const repository = options.decorate?.(opened) ?? opened;
  const version = options.pinnedVersion ?? requested ?? (repository.defaultVersion !== LATEST ? repository.defaultVersion : await newestRelease(repository, at));
  const components = await repository.getFile(version, repository.componentsFile);
  return { label: OPERATOR_LABEL, version, components, repository: { sourceType: repository.sourceType, location: repository.location } };
}

/** `latest`: the newest stable release (a pre-release only when there is no stable one). */
async function newestRelease(repository: ProviderRepository, at: DiagnosticOrigin): Promise<string> {
  const [newest] = sortForLatest(await repository.listVersions());
  if (newest === undefined) throw new CapiGitopsError({ ...at, message: `${repository.location} has no release tagged with a semantic version`, hint: 'set operator.version to a release tag' });
  return newest;
}
