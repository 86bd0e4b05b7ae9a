/**
 * Suggested commands in messages are complete and runnable as printed. A stage that suggests
 * `capi-gitops lock` does not know how the tool was invoked; the CLI does, and adds the
 * flags that say where the manifest and the cache are, in the form the user typed them.
 */
import { shellWord } from '../core/shell.js';

/** The flags of the invocation that a suggested command must repeat. */
export interface Invocation {
  file?: string[];
  namespace?: string;
  cacheDir?: string;
  githubApiUrl?: string;
  output?: string;
  /** `--pin-images`: a suggested render without it would not pin, nor lock the digests asked for. */
  pinImages?: boolean;
}

/** `capi-gitops <command>` not followed (up to the end of the suggestion) by -f/--file. */
const SUGGESTION = /\bcapi-gitops (lock|plan|update|render)\b(?![^`\n]*\s(?:-f|--file)[\s=])/g;

function suggestionFlags(command: string, invocation: Invocation): string[] {
  const words: string[] = [];
  for (const file of invocation.file ?? []) words.push('-f', shellWord(file));
  if (invocation.namespace) words.push('--namespace', shellWord(invocation.namespace));
  if (command === 'render' && invocation.output) words.push('-o', shellWord(invocation.output));
  if (command === 'render' && invocation.pinImages) words.push('--pin-images');
  if (invocation.cacheDir) words.push('--cache-dir', shellWord(invocation.cacheDir));
  if (invocation.githubApiUrl) words.push('--github-api-url', shellWord(invocation.githubApiUrl));
  return words;
}

/** `text` with every suggested capi-gitops command completed with the invocation's flags. */
export function completeSuggestions(text: string, invocation: Invocation | undefined): string {
  if (!invocation?.file?.length) return text;
  return text.replace(SUGGESTION, (match, command: string) => [match, ...suggestionFlags(command, invocation)].join(' '));
}
