import type { SourceModule } from '../source.js';
import { isLocalRepositoryUrl, openLocalRepository } from './repository.js';

export const localSource: SourceModule = {
  id: 'local',
  serves: 'file:// URLs and filesystem paths laid out as {base}/{provider-label}/{version}/{components-file}',
  open: (request) => (request.from === 'url' && isLocalRepositoryUrl(request.url) ? openLocalRepository(request) : null),
};
