/** The built-in charts' names alone, so the CLI can offer them without loading the chart engine. */
export const BUILT_IN_CHARTS = ['argocd', 'flux'] as const;
