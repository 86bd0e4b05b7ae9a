import { networkOptions } from '../base/network-options.js';
import type { SourceModule } from '../source.js';

export const ociSource: SourceModule = {
  id: 'oci',
  serves: 'spec.fetchConfig.oci ([http://]<registry>/<repository>[:tag])',
  open: async (request, context) =>
    request.from === 'oci'
      ? (await import('./repository.js')).openOciRepository(request.oci, {
          ...networkOptions(request, context),
          providerType: request.kind,
          providerName: request.name,
        })
      : null,
};
