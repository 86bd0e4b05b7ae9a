import type { SafetyContext } from './apply-safety.js';

/** Flux: component directories carry Flux's rules; the wiring goes to `flux/`. */
export const FLUX_LAYOUT = {
  name: 'flux',
  tool: 'Flux',
  chart: 'flux',
  wiringDirectory: 'flux',
  defaultNamespace: 'flux-system',
  safety: (unmanaged: SafetyContext['unmanaged']): SafetyContext => ({ argocd: false, flux: true, unmanaged }),
} as const;
