import { httpsAuthorization } from '../credentials.js';
import { isHttpUrl, networkOptions } from '../base/network-options.js';
import type { SourceModule } from '../source.js';

/** Register last: it claims every remaining http(s) URL, and explains what a template needs. */
export const httpsSource: SourceModule = {
  id: 'https',
  serves: 'http(s) URL templates with {version} (Config repositories with versions or versionsUrl)',
  open: async (request, context) => {
    if (request.from !== 'url' || !isHttpUrl(request.url)) return null;
    const { credentials, env, ...options } = networkOptions(request, context);
    const authorization = httpsAuthorization(request.url, credentials, env ?? process.env);
    return (await import('./repository.js')).openHttpsRepository(request.url, {
      ...options,
      authorization,
      versions: request.versions,
      versionsUrl: request.versionsUrl,
      versionsUrlAt: request.versionsUrlAt,
      allowInsecure: request.allowInsecure,
    });
  },
};
