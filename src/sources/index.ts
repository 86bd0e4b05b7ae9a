/**
 * The registry of sources, one folder each (Renovate's datasource model). Each module looks at a
 * request and either opens a ProviderRepository or returns null ("not mine"); the first module
 * that answers serves it. Adding a source is a folder with an `index.ts` exporting a
 * `SourceModule`, and one more entry in SOURCE_MODULES.
 */
import { CapiGitopsError } from '../core/diagnostics.js';
import { configMapSource } from './configmap/index.js';
import { githubSource } from './github/index.js';
import { gitlabSource } from './gitlab/index.js';
import { httpsSource } from './https/index.js';
import { localSource } from './local/index.js';
import { ociSource } from './oci/index.js';
import { messagePrefix, type RepositoryRequest, type SourceContext } from './request.js';
import type { ProviderRepository, SourceModule } from './source.js';

export type { SourceModule } from './source.js';

/** Every source, in the order they are asked. Register new modules here. */
export const SOURCE_MODULES: readonly SourceModule[] = [configMapSource, localSource, githubSource, gitlabSource, ociSource, httpsSource];

function describeTarget(request: RepositoryRequest): string {
  if (request.from === 'selector') return 'a ConfigMap selector';
  if (request.from === 'oci') return `OCI artifact "${request.oci}"`;
  return `URL "${request.url}"`;
}

/** Asks each module in turn; the first that answers serves the request. */
export async function openRepository(
  request: RepositoryRequest,
  context: SourceContext,
  modules: readonly SourceModule[] = SOURCE_MODULES,
): Promise<ProviderRepository> {
  for (const module of modules) {
    const repository = await module.open(request, context);
    if (repository !== null) return repository;
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
