/** The layout names alone, so the CLI can offer them without loading the layouts. */
export const LAYOUTS = ['kustomize', 'argocd', 'flux', 'operator'] as const;
export type LayoutName = (typeof LAYOUTS)[number];
