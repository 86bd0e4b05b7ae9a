import { isHttpUrl, networkOptions } from '../base/network-options.js';
import type { SourceModule } from '../source.js';

export const gitlabSource: SourceModule = {
  id: 'gitlab',
  serves: 'GitLab generic package URLs (https://gitlab.<host>/api/v4/projects/<project>/packages/generic/<package>/<version>/<file>)',
  open: async (request, context) =>
    request.from === 'url' && isHttpUrl(request.url)
      ? (await import('./repository.js')).openGitLabRepository(request.url, networkOptions(request, context))
      : null,
};
