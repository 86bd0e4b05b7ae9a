/** `diff --format` choices, apart from the review commands so that `--help` does not load them. */
export const DIFF_FORMATS = ['text', 'markdown', 'json'] as const;
export type DiffFormat = (typeof DIFF_FORMATS)[number];
