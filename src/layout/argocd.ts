import type { SafetyContext } from './apply-safety.js';

/** Argo CD: component directories carry Argo CD's rules; the wiring goes to `argocd/`. */
export const ARGOCD_LAYOUT = {
  name: 'argocd',
  tool: 'Argo CD',
  chart: 'argocd',
  wiringDirectory: 'argocd',
  defaultNamespace: 'argocd',
  safety: (unmanaged: SafetyContext['unmanaged']): SafetyContext => ({ argocd: true, flux: false, unmanaged }),
} as const;
