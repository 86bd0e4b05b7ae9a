/**
 * `--help`, `help <command>`, `--version` and `version` without loading commander or any command
 * module: the texts the build captured from commander (help-texts.ts) are printed as they are.
 * Whenever the text could differ from commander's (an argument list not in the table, a terminal
 * narrower or wider than the table's wrapping, no table), commander answers instead.
 * CAPI_GITOPS_PRECOMPUTED_HELP=off always asks commander (the test compares both).
 */
import { writeSync } from 'node:fs';
import { isatty } from 'node:tty';
import { HELP_OUTPUTS, HELP_WIDTH } from './help-texts.js';

/** The text to print for these arguments, or undefined when commander must answer. */
export async function precomputedOutput(
  argv: readonly string[],
  env: Record<string, string | undefined> = process.env,
  table: Readonly<Record<string, string>> | null = HELP_OUTPUTS ?? null,
): Promise<string | undefined> {
  if (env.CAPI_GITOPS_PRECOMPUTED_HELP === 'off') return undefined;
  // As commander prints them: the version option, and the version command's three lines.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === 'version')) {
    const { VERSION, versionText } = await import('./version.js');
    return argv[0] === 'version' ? versionText() : `${VERSION}\n`;
  }
  const text = table?.[argv.join('\0')];
  if (text === undefined) return undefined;
  // commander wraps to the terminal's width on a terminal, else to HELP_WIDTH.
  if (isatty(1) && process.stdout.columns !== HELP_WIDTH) return undefined;
  return text;
}

/**
 * Prints the text to stdout, synchronously, as the stream would. A closed pipe (`--help | head`)
 * drops the rest, as guardOutputStreams does for commander's output; a non-blocking stdout that
 * is full gets the rest through the stream.
 */
export function printPrecomputed(text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let at = 0;
  try {
    while (at < bytes.length) at += writeSync(1, bytes, at);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') return;
    process.stdout.on('error', () => undefined);
    process.stdout.write(bytes.subarray(at));
  }
}
