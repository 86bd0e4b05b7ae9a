/**
 * GitHub Actions workflow commands (`::add-mask::`, `::error::`): the secrets gate masks with them
 * and review annotates with them, so their escaping is written once.
 */

/**
 * The data of a workflow command as the runner reads it back: `%`, CR and LF escaped (actions/toolkit
 * packages/core/src/command.ts escapeData), so a value holding `%0A` is masked as itself.
 */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
