import type { SourceModule } from '../source.js';
import { openConfigMapRepository } from './repository.js';

export const configMapSource: SourceModule = {
  id: 'configmap',
  serves: 'spec.fetchConfig.selector (ConfigMaps given in the input)',
  open: (request, context) => (request.from === 'selector' ? openConfigMapRepository(request, context.configMaps) : null),
};
