/**
 * `--help`, `help <command>`, `--version` and `version` without loading commander or any command
 * module: the texts the build captured from commander (help-texts.ts) are printed as they are.
 * Whenever the text could differ from commander's (an argument list not in the table, a terminal
 * narrower or wider than the table's wrapping, no table), commander answers instead.
 * CAPI_GITOPS_PRECOMPUTED_HELP=off always asks commander (the test compares both).
 * The table (about 130 KB of text) is loaded only for an argument list that can be a help form,
 * so a render does not parse it.
 */
import { writeSync } from 'node:fs';
import { isatty } from 'node:tty';

/**
 * Whether the arguments can be one of the table's forms (scripts/build-help.mjs): each names
 * `--help`, `-h` or `help`, or is empty. Any other argument list goes to commander without the
 * table being loaded.
 */
export function mayBeHelpForm(argv: readonly string[]): boolean {
  return argv.length === 0 || argv.some((arg) => arg === '--help' || arg === '-h' || arg === 'help');
}

/**
 * The text to print for these arguments, or undefined when commander must answer. `table` is the
 * build's (help-texts.ts) unless given; null is no table.
 */
export async function precomputedOutput(
  argv: readonly string[],
  env: Record<string, string | undefined> = process.env,
  table?: Readonly<Record<string, string>> | null,
): Promise<string | undefined> {
  if (env.CAPI_GITOPS_PRECOMPUTED_HELP === 'off') return undefined;
  // As commander prints them: the version option, and the version command's three lines.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === 'version')) {
    const { VERSION, versionText } = await import('./version.js');
    return argv[0] === 'version' ? versionText() : `${VERSION}\n`;
  }
  if (!mayBeHelpForm(argv)) return undefined;
  const { HELP_OUTPUTS, HELP_WIDTH } = await import('./help-texts.js');
  const text = (table === undefined ? HELP_OUTPUTS : table)?.[argv.join('\0')];
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
