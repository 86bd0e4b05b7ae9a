/**
 * The cluster-api-operator's own release manifest (`operator-components.yaml` of the
 * kubernetes-sigs/cluster-api-operator GitHub releases), for the operator layout. Fetched through
 * the same source modules (and artifact cache) as providers and cert-manager.
 */
import path from 'node:path';
import { CapiGitopsError } from '../model/diagnostics.js';
import type { ToolConfig } from '../manifest/types.js';
import { openRepository, SOURCE_MODULES } from '../sources/index.js';
import { isLocalRepositoryUrl, localUrlToPath, readLocalArtifact } from '../sources/local-repository.js';
import type { DiagnosticOrigin, RepositoryRequest } from '../sources/request.js';
import { parseSemantic } from '../kernel/versions.js';
import type { Artifact } from '../sources/source.js';
import { declaringDir, type ResolveOptions } from './resolve.js';

export const OPERATOR_LABEL = 'cluster-api-operator';
export const OPERATOR_COMPONENTS_FILE = 'operator-components.yaml';

export interface ResolvedOperatorRelease {
  label: typeof OPERATOR_LABEL;
  version: string;
  components: Artifact;
  repository: { sourceType: string; location: string };
}

export function operatorReleaseUrl(version: string): string {
  return `https://github.com/kubernetes-sigs/cluster-api-operator/releases/${version}/${OPERATOR_COMPONENTS_FILE}`;
}

function origin(config: ToolConfig, field: string): DiagnosticOrigin {
  return { file: config.position?.file, line: config.position?.line, column: config.position?.column, object: 'Config', path: `operator.${field}` };
}

/** The release Config.operator names: `version` (default: the latest release) or `url`. */
export async function resolveOperatorRelease(config: ToolConfig, baseDir: string, options: ResolveOptions = {}): Promise<ResolvedOperatorRelease> {
  const settings = config.operator ?? {};
  if (settings.version !== undefined && settings.version !== 'latest' && parseSemantic(settings.version) === null) {
    throw new CapiGitopsError({ ...origin(config, 'version'), message: `"${settings.version}" is not a semantic version`, expected: 'a cluster-api-operator release such as v0.28.0', hint: 'set operator.version in the Config document' });
  }
  const url = settings.url ?? operatorReleaseUrl(settings.version ?? 'latest');
  const at = origin(config, settings.url ? 'url' : 'version');
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
