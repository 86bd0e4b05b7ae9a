import { isHttpUrl, networkOptions } from '../base/network-options.js';
import { GITLAB_HOSTS_VARIABLE, namedHosts } from '../credentials.js';
import type { SourceModule } from '../source.js';

export const gitlabSource: SourceModule = {
  id: 'gitlab',
  serves:
    'GitLab generic package URLs (https://gitlab.<host>/api/v4/projects/<project>/packages/generic/<package>/<version>/<file>; other hosts when CAPI_GITOPS_GITLAB_HOSTS names them)',
  open: async (request, context) =>
    request.from === 'url' && isHttpUrl(request.url)
      ? (await import('./repository.js')).openGitLabRepository(request.url, {
          ...networkOptions(request, context),
          // a self-managed GitLab the runner names is one, whatever its host is called
          hosts: namedHosts((context.options.env ?? process.env)[GITLAB_HOSTS_VARIABLE]),
        })
      : null,
};
