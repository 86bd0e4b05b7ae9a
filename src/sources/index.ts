/**
 * Source modules, one per place artifacts come from (Renovate's datasource model). Each module
 * looks at a request and either opens a ProviderRepository or returns null ("not mine"); the
 * first module that answers serves it. Adding a source (GitHub, GitLab, HTTPS, OCI) is one more
 * entry in SOURCE_MODULES.
 */
import { CapiGitopsError } from '../model/diagnostics.js';
import { openConfigMapRepository } from './configmap.js';
import { isLocalRepositoryUrl, openLocalRepository } from './local-repository.js';
import { configSecretCredentialProblems, httpsAuthorization } from './credentials.js';
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

/** Options every network module shares. */
function networkOptions(request: RepositoryRequest, context: SourceContext) {
  const { cache, offline, http, log, onProgress, env } = context.options;
  const credentialProblems = configSecretCredentialProblems(request.credentials ?? {}, request.origin);
  if (credentialProblems.length > 0) throw new CapiGitopsError(credentialProblems);
  return { cache, offline, http, log, onProgress, env, origin: request.origin, credentials: request.credentials ? { ...request.credentials } : undefined };
}

// Network modules are imported when first asked: a local or ConfigMap render never loads octokit.

/** Only http(s) URLs can be a network module's; anything else is answered without loading one. */
function isHttpUrl(url: string | undefined): url is string {
  return url !== undefined && /^https?:\/\//i.test(url);
}

export const githubSource: SourceModule = {
  id: 'github',
  serves: 'GitHub release URLs (https://github.com/<owner>/<repo>/releases/{latest|<tag>}/<file>)',
  open: async (request, context) => {
    if (!isHttpUrl(request.url)) return null;
    const { openGitHubRepository, githubTokenFromEnv } = await import('./github.js');
    const { cache, offline, log, onProgress, origin, env } = networkOptions(request, context);
    const github = context.options.github ?? {};
    return openGitHubRepository(request.url, {
      ...github,
      token: github.token ?? githubTokenFromEnv(env ?? process.env),
      http: github.http ?? context.options.http,
      cache,
      offline,
      log,
      onProgress,
      origin,
    });
  },
};

export const gitlabSource: SourceModule = {
  id: 'gitlab',
  serves: 'GitLab generic package URLs (https://gitlab.<host>/api/v4/projects/<project>/packages/generic/<package>/<version>/<file>)',
  open: async (request, context) => (isHttpUrl(request.url) ? (await import('./gitlab.js')).openGitLabRepository(request.url, networkOptions(request, context)) : null),
};

export const ociSource: SourceModule = {
  id: 'oci',
  serves: 'spec.fetchConfig.oci ([http://]<registry>/<repository>[:tag])',
  open: async (request, context) =>
    request.oci === undefined || request.kind === undefined
      ? null
      : (await import('./oci.js')).openOciRepository(request.oci, { ...networkOptions(request, context), providerType: request.kind, providerName: request.name }),
};

/** Last: it claims every remaining http(s) URL, and explains what a template needs. */
export const httpsSource: SourceModule = {
  id: 'https',
  serves: 'http(s) URL templates with {version} (Config repositories with versions or versionsUrl)',
  open: async (request, context) => {
    if (!isHttpUrl(request.url)) return null;
    const { credentials, env, ...options } = networkOptions(request, context);
    const authorization = httpsAuthorization(request.url, credentials, env ?? process.env);
    return (await import('./https.js')).openHttpsRepository(request.url, { ...options, authorization, versions: request.versions, versionsUrl: request.versionsUrl, allowInsecure: request.allowInsecure });
  },
};

/** Every source, in the order they are asked. Register new modules here. */
export const SOURCE_MODULES: readonly SourceModule[] = [configMapSource, localSource, githubSource, gitlabSource, ociSource, httpsSource];

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
