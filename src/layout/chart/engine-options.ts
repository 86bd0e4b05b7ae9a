/** Options shared by the build step that precompiles built-in charts and the run-time engine. */

/** `noEscape`: the output is YAML, not HTML. `strict`: a missing value fails loudly. */
export const COMPILE_OPTIONS = { noEscape: true, strict: true } as const;

/** ajv options for values.schema.json, built in (precompiled) or a user's (compiled at run). */
/** `verbose` gives each error its parent schema, so a message can list the declared values. */
export const CHART_AJV_OPTIONS = { allErrors: true, strict: false, verbose: true } as const;
