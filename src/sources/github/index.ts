import { githubTokenFromEnv, githubTokenFromSecret } from '../credentials.js';
import { isHttpUrl, networkOptions } from '../base/network-options.js';
import type { SourceModule } from '../source.js';

// The repository module is imported when first asked: a local or ConfigMap render never loads octokit.
export const githubSource: SourceModule = {
  id: 'github',
  serves: 'GitHub release URLs (https://github.com/<owner>/<repo>/releases/{latest|<tag>}/<file>)',
  open: async (request, context) => {
    if (request.from !== 'url' || !isHttpUrl(request.url)) return null;
    const { openGitHubRepository } = await import('./repository.js');
    const { cache, offline, log, warn, onProgress, origin, env, credentials, runMemo } = networkOptions(request, context);
    const github = context.options.github ?? {};
    const fromSecret = githubTokenFromSecret(credentials);
    return openGitHubRepository(request.url, {
      ...github,
      // the provider's configSecret `github-token` first, as the operator's clusterctl reads it
      token: fromSecret ?? github.token ?? githubTokenFromEnv(env ?? process.env),
      ...(fromSecret !== undefined && { tokenFrom: `the github-token of the configSecret of ${request.label}` }),
      http: github.http ?? context.options.http,
      cache,
      offline,
      log,
      warn,
      onProgress,
      origin,
      runMemo,
    });
  },
};
