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
  /** `--offline`: a suggestion followed literally in an air gap must not go to the network. */
  offline?: boolean;
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

function suggestionFlags(command: string, invocation: Invocation, offline: boolean): string[] {
  const words: string[] = [];
  for (const file of invocation.file ?? []) words.push('-f', shellWord(file));
  if (invocation.namespace) words.push('--namespace', shellWord(invocation.namespace));
  if (command === 'render' && invocation.output) words.push('-o', shellWord(invocation.output));
  if (command === 'render') words.push(...renderShapingFlags(invocation));
  if (invocation.cacheDir) words.push('--cache-dir', shellWord(invocation.cacheDir));
  if (invocation.githubApiUrl) words.push('--github-api-url', shellWord(invocation.githubApiUrl));
  if (offline) words.push('--offline');
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
  if (!invocation?.file?.length && !invocation?.offline) return text;
  return text.replace(SUGGESTION, (match, command: string, at: number) => {
    const end = text.indexOf('\n', at);
    const line = text.slice(text.lastIndexOf('\n', at) + 1, end === -1 ? undefined : end);
    // a line that names --offline already decides: it is in the command, or the hint says to go online;
    // update --images asks the registries, which --offline refuses
    const offline = !!invocation.offline && !line.includes('--offline') && !/^capi-gitops update --images\b/.test(text.slice(at));
    return [match, ...suggestionFlags(command, invocation, offline)].join(' ');
  });
}

/** clusterctl's flags and commands, and where their meaning lives in capi-gitops. */
const CLUSTERCTL_WORDS: Record<string, string> = {
  '--target-namespace': "clusterctl's --target-namespace is each provider object's metadata.namespace: its components are installed there",
  '--watching-namespace': "the namespace a provider's manager watches is its spec.manager.cacheNamespace (the manager's --namespace flag)",
  '--config':
    "clusterctl's configuration is a Config document among the -f files (repositories, images, certManager, variables: docs/config.md)",
  '--infrastructure': 'each provider is an InfrastructureProvider (or CoreProvider, BootstrapProvider, …) object in the -f files',
  '--bootstrap': 'each provider is a BootstrapProvider (or CoreProvider, InfrastructureProvider, …) object in the -f files',
  '--control-plane': 'each provider is a ControlPlaneProvider (or CoreProvider, InfrastructureProvider, …) object in the -f files',
  '--core': 'the core provider is a CoreProvider object named cluster-api in the -f files',
  '--ipam': 'each provider is an IPAMProvider (or CoreProvider, InfrastructureProvider, …) object in the -f files',
  '--runtime-extension': 'each provider is a RuntimeExtensionProvider (or CoreProvider, …) object in the -f files',
  '--addon': 'each provider is an AddonProvider (or CoreProvider, …) object in the -f files',
  init: "clusterctl init's providers are objects in a manifest: capi-gitops render -f <manifest> -o <dir> writes what init would install",
  upgrade: 'clusterctl upgrade plan is capi-gitops plan -f <manifest>, and upgrade apply is capi-gitops update -f <manifest>',
};

/**
 * For a usage error on a clusterctl flag or command (`--target-namespace`, `init`), where capi-gitops
 * takes that meaning; undefined for any other.
 */
export function clusterctlWordHint(message: string): string | undefined {
  const word = /^error: unknown (?:option|command) '([^'=]+)/.exec(message)?.[1];
  return word !== undefined && Object.hasOwn(CLUSTERCTL_WORDS, word) ? CLUSTERCTL_WORDS[word] : undefined;
}

/**
 * For `too many arguments` where the extra words are YAML files: a shell glob after -f
 * (`-f mc/*.yaml`) gives -f the first file only, and the rest are arguments no command takes.
 */
export function globbedFilesHint(message: string, argv: readonly string[]): string | undefined {
  if (!/^error: too many arguments/.test(message)) return undefined;
  const extra = argv.find((word, i) => /\.ya?ml$/.test(word) && !word.startsWith('-') && i > 0 && !argv[i - 1]!.startsWith('-'));
  if (extra === undefined) return undefined;
  const directory = extra.includes('/') ? extra.slice(0, extra.lastIndexOf('/')) : '.';
  return (
    `-f takes one path: a shell glob such as -f ${directory}/*.yaml gives it the first file only; ` +
    `pass the directory (-f ${directory}), which reads its *.yaml and *.yml files, or put -f before each file`
  );
}
