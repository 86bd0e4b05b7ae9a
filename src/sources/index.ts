/**
 * Source modules, one per place artifacts come from (Renovate's datasource model). Each module
 * looks at a request and either opens a ProviderRepository or returns null ("not mine"); the
 * first module that answers serves it. Adding a source (GitHub, GitLab, HTTPS, OCI) is one more
 * entry in SOURCE_MODULES.
 */
import { CapiGitopsError } from '../model/diagnostics.js';
import { openConfigMapRepository } from './configmap.js';
import { isLocalRepositoryUrl, openLocalRepository } from './local-repository.js';
import { messagePrefix, type RepositoryRequest, type SourceContext } from './request.js';
import type { Artifact, ProviderRepository } from './source.js';

export type { RepositoryRequest, SourceContext, SourceOptions, DiagnosticOrigin } from './request.js';
export { ArtifactNotFoundError, type Artifact, type ProviderRepository } from './source.js';

export interface SourceModule {
  /** Matches the repositories' `sourceType`: 'local', 'configmap', 'github', … */
  readonly id: string;
  /** What it serves, for the message when nothing does, e.g. `file:// URLs and paths`. */
  readonly serves: string;
  /** The repository for this request, or null when the request is not this module's. */
  open(request: RepositoryRequest, context: SourceContext): Promise<ProviderRepository | null> | ProviderRepository | null;
}

export const localSource: SourceModule = {
  id: 'local',
  serves: 'file:// URLs and filesystem paths laid out as {base}/{provider-label}/{version}/{components-file}',
  open: (request) => (request.url !== undefined && isLocalRepositoryUrl(request.url) ? openLocalRepository({ ...request, url: request.url }) : null),
};

export const configMapSource: SourceModule = {
  id: 'configmap',
  serves: 'spec.fetchConfig.selector (ConfigMaps given in the input)',
  open: (request, context) => (request.selector !== undefined ? openConfigMapRepository({ ...request, selector: request.selector }, context.configMaps) : null),
};

/** Every source, in the order they are asked. Register new modules here. */
export const SOURCE_MODULES: readonly SourceModule[] = [configMapSource, localSource];

function describeTarget(request: RepositoryRequest): string {
  if (request.selector !== undefined) return 'a ConfigMap selector';
  if (request.oci !== undefined) return `OCI artifact "${request.oci}"`;
  return `URL "${request.url ?? ''}"`;
}

/** Asks each module in turn; the first that answers serves the request. */
export async function openRepository(request: RepositoryRequest, context: SourceContext, modules: readonly SourceModule[] = SOURCE_MODULES): Promise<ProviderRepository> {
  for (const module of modules) {
    const repository = await module.open(request, context);
    if (repository !== null) return memoizeRepository(repository);
  }
  throw new CapiGitopsError({
    ...request.origin,
    message: `${messagePrefix(request)}no source can fetch ${request.label} from ${describeTarget(request)}`,
    expected: `a source capi-gitops can read: ${modules.map((module) => module.serves).join('; ')}`,
    hint:
      request.noSourceHint ??
      'this build reads provider artifacts offline: point spec.fetchConfig.url (or a Config `repositories` entry) at a local repository, or give the artifacts as ConfigMaps selected by spec.fetchConfig.selector',
  });
}

/**
 * The same repository with each listing and file fetched once per run: the resolver asks for
 * metadata.yaml while searching for the latest release and again to read the contract.
 */
export function memoizeRepository(repository: ProviderRepository): ProviderRepository {
  let versions: Promise<string[]> | undefined;
  const files = new Map<string, Promise<Artifact>>();
  return {
    sourceType: repository.sourceType,
    location: repository.location,
    defaultVersion: repository.defaultVersion,
    componentsFile: repository.componentsFile,
    listVersions() {
      versions ??= repository.listVersions();
      return versions.then((list) => [...list]);
    },
    getFile(version, fileName) {
      const key = `${version}\0${fileName}`;
      let file = files.get(key);
      if (file === undefined) {
        file = repository.getFile(version, fileName);
        files.set(key, file);
      }
      return file;
    },
  };
}
