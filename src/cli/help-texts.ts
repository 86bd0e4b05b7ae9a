/**
 * What `--help` prints, precomputed: this stub compiles to "none", and the build
 * (scripts/build-help.mjs, run by scripts/build-bundle.mjs) replaces the compiled
 * dist/src/cli/help-texts.js with what this build's commander printed for each help form. Any
 * compile of the sources writes the stub again, so a text from an older program cannot be served:
 * without the build's table, help comes from commander.
 */

/** Arguments joined by NUL → the exact stdout of that run (exit 0, nothing on stderr). */
export const HELP_OUTPUTS: Readonly<Record<string, string>> | undefined = undefined;

/** The width commander wraps help to when stdout is not a terminal; the table holds that wrapping. */
export const HELP_WIDTH = 80;
