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
  /** What else shapes a render's output: a suggested render without them would rewrite the output in another form. */
  layout?: string;
  fleetLayout?: string;
  secrets?: string;
  allowSecretValues?: boolean;
  secretFile?: string[];
  envSecret?: string[];
  values?: string[];
}

/** `capi-gitops <command>` not followed (up to the end of the suggestion) by -f/--file. */
const SUGGESTION = /\bcapi-gitops (lock|plan|update|render)\b(?![^`\n]*\s(?:-f|--file)[\s=])/g;

function suggestionFlags(command: string, invocation: Invocation): string[] {
  const words: string[] = [];
  for (const file of invocation.file ?? []) words.push('-f', shellWord(file));
  if (invocation.namespace) words.push('--namespace', shellWord(invocation.namespace));
  if (command === 'render' && invocation.output) words.push('-o', shellWord(invocation.output));
  if (command === 'render') words.push(...renderShapingFlags(invocation));
  if (invocation.cacheDir) words.push('--cache-dir', shellWord(invocation.cacheDir));
  if (invocation.githubApiUrl) words.push('--github-api-url', shellWord(invocation.githubApiUrl));
  return words;
}

/**
 * The flags of the invocation that shape the output, as typed. `--set` and its kin are left out:
 * a chart value may be secret, and a hint is printed to CI logs (one missing fails the render).
 */
function renderShapingFlags(invocation: Invocation): string[] {
  const words: string[] = [];
  if (invocation.pinImages) words.push('--pin-images');
  if (invocation.layout) words.push('--layout', shellWord(invocation.layout));
  if (invocation.fleetLayout) words.push('--fleet-layout', shellWord(invocation.fleetLayout));
  if (invocation.secrets) words.push('--secrets', shellWord(invocation.secrets));
  if (invocation.allowSecretValues) words.push('--allow-secret-values');
  for (const file of invocation.secretFile ?? []) words.push('--secret-file', shellWord(file));
  for (const name of invocation.envSecret ?? []) words.push('--env-secret', shellWord(name));
  for (const file of invocation.values ?? []) words.push('--values', shellWord(file));
  return words;
}

/** `text` with every suggested capi-gitops command completed with the invocation's flags. */
export function completeSuggestions(text: string, invocation: Invocation | undefined): string {
  if (!invocation?.file?.length) return text;
  return text.replace(SUGGESTION, (match, command: string) => [match, ...suggestionFlags(command, invocation)].join(' '));
}
