/**
 * Which values are secret by where they come from: a configSecret's (unless declared in
 * Config.secrets.public, or written in plain text in the input: a Turtles CAPIProvider's variables),
 * those of `--secret-file` and of `--env-secret NAME`. Any other value (Config.variables, a fleet
 * overlay's) becomes secret where it lands in a Secret's data, unless declared public
 * (render/secret-landing.ts).
 */
import { parse as parseDotenv } from 'dotenv';
import YAML, { LineCounter, YAMLError, type Document, type Node as YamlNode } from 'yaml';
import { CapiGitopsError, type Diagnostic } from '../core/diagnostics.js';
import { isPlainObject } from '../core/kobject.js';
import { readBoundedText } from '../manifest/files.js';
import { MAX_ALIAS_EXPANSIONS } from '../manifest/yaml-source.js';
import type { Manifest, SecretObject } from '../manifest/types.js';
import type { VariableLookup, VariableValue } from '../render/types.js';
import { notGivenSecret } from '../render/secret-landing.js';
import { setOwnValue } from '../core/own-keys.js';
import { GITHUB_TOKEN_KEY } from '../sources/credentials.js';
import { YamlBoundError, YamlBudget } from '../yaml/bounds.js';
import { lineColumnAt } from '../yaml/split.js';

/** Where a value was given: its file, and its line and column when known. */
type GivenAt = NonNullable<VariableValue['position']>;

/** Values supplied at run time, kept out of Git. */
export interface RunSecrets {
  /** Name → value; `--env-secret` wins over `--secret-file`, later files over earlier. */
  values: Map<string, { value: string; origin: string; position?: GivenAt }>;
  /** The Secret manifests `--secret-file` gave (their keys are variables of every provider). */
  manifests: GivenSecret[];
  /** `--env-secret` names not set in a run without values (check, diff): secret, their values not at hand. */
  notGiven?: ReadonlySet<string>;
}

/** A Secret manifest given with `--secret-file`: the file, and the Secret's name and namespace. */
export interface GivenSecret {
  file: string;
  name: string;
  namespace?: string;
}

export interface RunSecretOptions {
  secretFiles?: readonly string[];
  envSecrets?: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** check and diff under a strategy that keeps values out: an --env-secret not set is a secret not at hand, not an error. */
  valuesOptional?: boolean;
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const EXPECTED_FILE = 'NAME=value lines, a YAML map NAME: "value", or v1 Secret manifests (data in base64, stringData)';

/** dotenv's own line pattern (dotenv lib/main.js LINE), so the lines it skips are found exactly. */
const DOTENV_LINE =
  /(?:^|^)\s*(?:export\s+)?([\w.-]+)(?:\s*=\s*?|:\s+?)(\s*'(?:\\'|[^'])*'|\s*"(?:\\"|[^"])*"|\s*`(?:\\`|[^`])*`|[^#\r\n]+)?\s*(?:#.*)?(?:$|$)/gm;

/**
 * The lines of a dotenv file that dotenv skips without a word (neither NAME=value, nor part of a
 * quoted value, nor blank or a comment): a value meant there would be missing. Named by line only,
 * never quoted: the line may hold a secret.
 */
function skippedDotenvLines(text: string, file: string): Diagnostic[] {
  const lines = text.replace(/\r\n?/g, '\n');
  const covered = new Uint8Array(lines.length);
  for (const match of lines.matchAll(DOTENV_LINE)) covered.fill(1, match.index, match.index + match[0].length);
  const problems: Diagnostic[] = [];
  let start = 0;
  lines.split('\n').forEach((line, index) => {
    const trimmed = line.trim();
    const first = start + line.length - line.trimStart().length;
    if (trimmed !== '' && !trimmed.startsWith('#') && covered[first] === 0)
      problems.push({
        file,
        line: index + 1,
        column: 1,
        message: 'is not a NAME=value line, and dotenv would skip it',
        expected: EXPECTED_FILE,
        hint: `write line ${index + 1} of ${file} as NAME=value (quote a value with spaces or #), or start it with # to keep it as a comment`,
      });
    start += line.length + 1;
  });
  return problems;
}

/**
 * A secret file past the bounds manifests have (nesting, nodes), at the place it passes them: the
 * parser would fail there with no word of why ("neither a dotenv file nor YAML"). The limit is
 * told with what a secret file holds (a variable is one level below the file, a Secret's key
 * three), not with a way to raise it: no secret file needs the nesting.
 */
function beyondBounds(text: string, file: string): Diagnostic[] | undefined {
  try {
    new YamlBudget().check(text, file);
    return undefined;
  } catch (error) {
    if (!(error instanceof CapiGitopsError)) throw error;
    // nesting is what a secret file never needs; a node count or a long scalar keeps the bound's own hint
    return error.diagnostics.map((d) =>
      error instanceof YamlBoundError && error.bound === 'depth'
        ? {
            ...d,
            file,
            expected: `${d.expected}: ${EXPECTED_FILE}, where a variable's value is a string one level below its name`,
            hint: `check that ${file} is the secret file meant, and write each variable as NAME: "value" (a map or a list is no variable's value)`,
          }
        : { ...d, file, expected: `${d.expected}: ${EXPECTED_FILE}` },
    );
  }
}

/** A dotenv file (decided by the first meaningful line), a YAML map of strings, or Secret manifests. */
function parseSecretFile(text: string, file: string): { values: Record<string, string>; problems: Diagnostic[]; secrets?: GivenSecret[] } {
  const firstLine = text.split('\n').find((l) => l.trim() !== '' && !l.trim().startsWith('#')) ?? '';
  const isDotenv = /^\s*(export\s+)?[A-Za-z_][A-Za-z0-9_]*\s*=/.test(firstLine);
  if (isDotenv) return { values: parseDotenv(text), problems: skippedDotenvLines(text, file) };
  const unread = (message: string, hint: string, at?: Pick<Diagnostic, 'line' | 'column'>) => ({
    values: {},
    problems: [{ file, ...at, message, expected: EXPECTED_FILE, hint }],
  });
  const bound = beyondBounds(text, file);
  if (bound) return { values: {}, problems: bound };
  const lineCounter = new LineCounter();
  let parsed: { value: unknown; doc: Document }[];
  try {
    parsed = YAML.parseAllDocuments(text, { schema: 'core', lineCounter })
      .map((doc) => {
        if (doc.errors.length > 0) throw doc.errors[0];
        // bounded as manifests are (yaml-source.ts); the library's own bound would throw with no position
        const bomb = aliasBeyondBound(doc);
        if (bomb !== undefined) throw bomb;
        return { value: doc.toJS({ maxAliasCount: -1 }) as unknown, doc };
      })
      .filter(({ value }) => value !== null && value !== undefined);
  } catch (error) {
    if (error instanceof AliasBomb) {
      const { line, col } = lineCounter.linePos(error.offset);
      return unread(
        'invalid YAML: too many alias references',
        `write the repeated parts out; at most ${MAX_ALIAS_EXPANSIONS} alias expansions per document`,
        { line, column: col },
      );
    }
    // the YAML parser quotes the offending text, which may be a secret: say where, not what
    const at = error instanceof YAMLError ? error.linePos?.[0] : undefined;
    return unread('is neither a dotenv file nor YAML', `check the syntax of ${file}`, at && { line: at.line, column: at.col });
  }
  const documents = parsed.map(({ value }) => value);
  const locate: KeyLocator = (index, keys) => keyAt(parsed[index]?.doc, lineCounter, keys);
  if (documents.some((doc) => isPlainObject(doc) && (doc.kind === 'Secret' || doc.kind === 'List')))
    return secretManifestValues(documents, file, locate);
  const map = documents.length === 0 ? {} : documents.length === 1 ? documents[0] : undefined;
  if (!isPlainObject(map)) {
    return unread(
      documents.length > 1 ? 'holds several YAML documents that are not Secrets' : 'is not a map of variables',
      `write ${file} as NAME: "value" lines, or as Secret manifests`,
    );
  }
  const values: Record<string, string> = {};
  const problems: Diagnostic[] = [];
  for (const [name, value] of Object.entries(map)) {
    if (typeof value === 'string') setOwnValue(values, name, value);
    else if (typeof value === 'number' || typeof value === 'boolean') setOwnValue(values, name, String(value));
    else
      problems.push({
        file,
        ...locate(0, [name]),
        path: name,
        ...(Array.isArray(value) || isPlainObject(value)
          ? {
              message: `is not a string but a ${Array.isArray(value) ? 'list' : 'map'}`,
              expected: "a string value, one level below the variable's name",
              hint: `write the value as one string: ${name}: "value" (a map or a list is no variable's value)`,
            }
          : { message: 'is not a string', expected: 'a string value', hint: 'quote the value' }),
      });
  }
  return { values, problems };
}

/** The alias whose expansion goes beyond the bound manifests have, with its offset. */
class AliasBomb {
  constructor(readonly offset: number) {}
}

/** The first alias beyond MAX_ALIAS_EXPANSIONS expansions of the document, counted as yaml-source.ts counts them. */
function aliasBeyondBound(doc: Document.Parsed): AliasBomb | undefined {
  let expansions = 0;
  const open = new Set<unknown>();
  const walk = (node: unknown): AliasBomb | undefined => {
    if (YAML.isAlias(node)) {
      if (++expansions > MAX_ALIAS_EXPANSIONS) return new AliasBomb(node.range?.[0] ?? 0);
      const target = node.resolve(doc);
      // an alias into the node that holds it: the library makes it a reference, nothing to expand
      return target === undefined || open.has(target) ? undefined : walk(target);
    }
    if (!YAML.isCollection(node)) return undefined;
    open.add(node);
    try {
      for (const item of node.items as unknown[]) {
        const found = YAML.isPair(item) ? (walk(item.key) ?? walk(item.value)) : walk(item);
        if (found) return found;
      }
      return undefined;
    } finally {
      open.delete(node);
    }
  };
  return walk(doc.contents as YamlNode | null);
}

/** Where a key of a parsed document is (by the document's index and the keys down to it), for a problem's line and column. */
type KeyLocator = (index: number, keys: readonly (string | number)[]) => Pick<Diagnostic, 'line' | 'column'>;

function keyAt(
  doc: Document | undefined,
  lineCounter: LineCounter,
  keys: readonly (string | number)[],
): Pick<Diagnostic, 'line' | 'column'> {
  const parent = keys.length > 1 ? doc?.getIn(keys.slice(0, -1), true) : doc?.contents;
  if (!YAML.isMap(parent)) return {};
  const pair = parent.items.find((p) => YAML.isScalar(p.key) && String(p.key.value) === String(keys.at(-1)));
  const offset = YAML.isScalar(pair?.key) ? pair.key.range?.[0] : undefined;
  if (offset === undefined) return {};
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The keys of v1 Secret manifests (several documents, or a `kind: List` as kubectl prints
 * them): `data` decoded from base64, `stringData` as is and winning over `data`, as the API
 * server merges them; a later Secret wins. No value is ever quoted in a problem.
 */
function secretManifestValues(
  documents: unknown[],
  file: string,
  locate: KeyLocator,
): { values: Record<string, string>; problems: Diagnostic[]; secrets: GivenSecret[] } {
  const values: Record<string, string> = {};
  const problems: Diagnostic[] = [];
  const given: GivenSecret[] = [];
  const secrets = documents.flatMap((doc, i) => {
    if (!isPlainObject(doc) || doc.kind !== 'List') return [{ item: doc, where: `document ${i + 1}`, index: i, keys: [] }];
    // a List with no items (null or absent) holds nothing: kubectl apply applies nothing of it
    if (doc.items === null || doc.items === undefined) return [];
    if (!Array.isArray(doc.items)) {
      problems.push({
        file,
        ...locate(i, ['items']),
        path: `document ${i + 1}: items`,
        message: 'is not a list',
        expected: 'items: a list of v1 Secrets, as kubectl get secrets -o yaml prints it',
        hint: 'write items as a list (- apiVersion: v1 …), or items: [] for none',
      });
      return [];
    }
    return doc.items.map((item: unknown, j) => ({ item, where: `document ${i + 1}, items[${j}]`, index: i, keys: ['items', j] }));
  });
  for (const { item, where, index, keys } of secrets) {
    if (!isPlainObject(item) || item.apiVersion !== 'v1' || item.kind !== 'Secret') {
      problems.push({
        file,
        path: where,
        message: 'is not a v1 Secret',
        expected: 'only v1 Secrets in a file of Secret manifests',
        hint: 'keep other objects in the -f files, and only Secrets here',
      });
      continue;
    }
    const metadata = isPlainObject(item.metadata) ? item.metadata : {};
    if (typeof metadata.name === 'string') {
      given.push({ file, name: metadata.name, ...(typeof metadata.namespace === 'string' ? { namespace: metadata.namespace } : {}) });
    }
    const name = typeof metadata.name === 'string' ? `Secret ${metadata.name}` : where;
    const own: Record<string, string> = {};
    for (const [section, decode] of [
      ['data', true],
      ['stringData', false],
    ] as const) {
      const entries = item[section];
      if (entries === undefined || entries === null) continue;
      if (!isPlainObject(entries)) {
        problems.push({
          file,
          path: `${name}: ${section}`,
          message: 'is not a map',
          expected: 'key: value pairs',
          hint: `check ${section}`,
        });
        continue;
      }
      for (const [key, value] of Object.entries(entries)) {
        const at = { file, ...locate(index, [...keys, section, key]), path: `${name}: ${section}.${key}` };
        const text =
          typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
        if (text === undefined) {
          problems.push({ ...at, message: 'is not a string', expected: 'a string value', hint: 'quote the value' });
        } else if (!decode) {
          own[key] = text;
        } else if (!CANONICAL_BASE64.test(text)) {
          problems.push({
            ...at,
            message: 'is not base64',
            expected: 'base64 text under data (clear text goes under stringData)',
            hint: 'encode it with base64 -w0, or move it to stringData',
          });
        } else {
          try {
            own[key] = strictUtf8.decode(Buffer.from(text, 'base64'));
          } catch {
            problems.push({
              ...at,
              message: 'is not UTF-8 text once decoded',
              expected: 'a variable value, which is text',
              hint: 'check the value',
            });
          }
        }
      }
    }
    Object.assign(values, own);
  }
  return { values, problems, secrets: given };
}

/** Reads `--secret-file` files and `--env-secret` names; every problem in one error, no value shown. */
export async function readRunSecrets(options: RunSecretOptions): Promise<RunSecrets> {
  const values: RunSecrets['values'] = new Map();
  const manifests: GivenSecret[] = [];
  const problems: Diagnostic[] = [];
  for (const file of options.secretFiles ?? []) {
    let text: string;
    try {
      text = await readBoundedText(file);
    } catch (err) {
      if (err instanceof CapiGitopsError) {
        problems.push(...err.diagnostics);
        continue;
      }
      problems.push({
        file,
        message: `cannot read the secret file (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
        expected: 'a readable dotenv or YAML file',
        hint: 'check the path given to --secret-file',
      });
      continue;
    }
    const parsed = parseSecretFile(text, file);
    problems.push(...parsed.problems);
    manifests.push(...(parsed.secrets ?? []));
    for (const [name, value] of Object.entries(parsed.values)) {
      if (!VARIABLE_NAME.test(name)) {
        problems.push({
          file,
          path: name,
          message: 'is not a variable name',
          expected: 'letters, digits and _, not starting with a digit',
          hint: 'rename the key',
        });
        continue;
      }
      values.set(name, { value, origin: `--secret-file ${file}`, position: keyPosition(text, name, file) });
    }
  }
  const env = options.env ?? process.env;
  const notGiven = new Set<string>();
  for (const name of options.envSecrets ?? []) {
    const value = env[name];
    if (!VARIABLE_NAME.test(name)) {
      problems.push({
        object: `--env-secret ${name}`,
        message: 'is not a variable name',
        expected: 'letters, digits and _, not starting with a digit',
        hint: 'pass the name of an environment variable, not its value',
      });
    } else if (value === undefined && options.valuesOptional) {
      notGiven.add(name);
    } else if (value === undefined) {
      problems.push({
        object: `--env-secret ${name}`,
        message: `the environment variable ${name} is not set`,
        expected: 'an exported environment variable',
        hint: `export ${name} before running capi-gitops, or drop --env-secret ${name}`,
      });
    } else {
      values.set(name, { value, origin: `--env-secret ${name}` });
    }
  }
  if (problems.length > 0) throw new CapiGitopsError(problems);
  return { values, manifests, ...(notGiven.size > 0 ? { notGiven } : {}) };
}

/**
 * Where a configSecret key's value is written: a CAPIProvider's field for a key Turtles writes
 * from the object (its spec.variables, spec.features, or its status.variables default), else the Secret.
 */
function configSecretOrigin(secret: SecretObject, name: string): string {
  const field = secret.turtlesField?.(name);
  if (!field) return `Secret ${secret.namespace}/${secret.name}`;
  // the azure/gcp extras: SetProviderSpec writes them into status.variables by spec.name (defaults.go)
  if (field.byName) return `${field.object} status.variables (Turtles sets it for ${field.byName})`;
  // a key the user wrote in neither: Turtles' default, status.variables (capiprovider_types.go CAPIProviderStatus)
  const turtlesDefault = field.path === 'spec.variables' && secret.implicitKeys?.includes(name);
  return `${field.object} ${turtlesDefault ? 'status.variables' : field.path}`;
}

/**
 * A provider's variables: `--env-secret`/`--secret-file` first (the run's explicit values), then
 * its configSecret (the operator sets Secret data last), then Config.variables.
 */
export function secretAwareLookup(manifest: Manifest, configSecret: SecretObject | undefined, run: RunSecrets): VariableLookup {
  const fromConfig = manifest.config.variables ?? {};
  const publicNames = new Set(manifest.config.secrets?.public ?? []);
  return (name): VariableValue | undefined => {
    const supplied = run.values.get(name);
    // a --secret-file value is at its key's line in the file; an --env-secret has no file.
    // Config.secrets.public is the one opt-out (docs/secrets.md), whatever source gave the value.
    if (supplied)
      return publicNames.has(name) ? { ...supplied, fromSecret: false, declaredPublic: true } : { ...supplied, fromSecret: true };
    // it wins over every other source, as its value would: the strategy's reference, not a default
    if (run.notGiven?.has(name) && !publicNames.has(name)) return notGivenSecret();
    // a fetch credential, never a value of the components
    if (configSecret && Object.hasOwn(configSecret.data, name) && name !== GITHUB_TOKEN_KEY) {
      return {
        value: configSecret.data[name]!,
        origin: configSecretOrigin(configSecret, name),
        fromSecret: !publicNames.has(name) && !configSecret.publicKeys?.includes(name),
        ...(configSecret.keyPosition ? { position: configSecret.keyPosition(name) } : {}),
        ...(publicNames.has(name) ? { declaredPublic: true } : {}),
      };
    }
    if (Object.hasOwn(fromConfig, name))
      return {
        value: fromConfig[name]!,
        origin: 'Config.variables',
        fromSecret: false,
        ...(manifest.config.locate ? { position: manifest.config.locate(['variables', name]) } : {}),
        ...(publicNames.has(name) ? { declaredPublic: true } : {}),
      };
    return undefined;
  };
}

/**
 * Where a name is given in a secret file: the last `NAME=` (dotenv) or `NAME:` (a YAML map, or a
 * Secret's data or stringData) line, as the last one wins; found in the text, no value is read.
 */
function keyPosition(text: string, name: string, file: string): GivenAt {
  const key = new RegExp(`^([ \\t]*)(?:export[ \\t]+)?["']?${name}["']?[ \\t]*[=:]`, 'gm');
  let found: RegExpExecArray | undefined;
  for (const match of text.matchAll(key)) found = match;
  if (!found) return { file };
  return { file, line: lineColumnAt(text, found.index).line, column: found[1]!.length + 1 };
}

/** Key in a configSecret that holds clusterctl's images map rather than a variable. */
export const IMAGES_KEY = 'images';

/** Every secret value of the run, by variable name, for the final gate, masks and redaction. */
export function secretValues(
  manifest: Manifest,
  configSecrets: readonly (SecretObject | undefined)[],
  run: RunSecrets,
): Map<string, string[]> {
  const publicNames = new Set(manifest.config.secrets?.public ?? []);
  const byName = new Map<string, string[]>();
  const add = (name: string, value: string) => {
    const list = byName.get(name) ?? [];
    if (!list.includes(value)) list.push(value);
    byName.set(name, list);
  };
  for (const [name, { value }] of run.values) if (!publicNames.has(name)) add(name, value);
  for (const secret of configSecrets) {
    if (!secret) continue;
    for (const [name, value] of Object.entries(secret.data))
      if (name === GITHUB_TOKEN_KEY || (name !== IMAGES_KEY && !publicNames.has(name) && !secret.publicKeys?.includes(name)))
        add(name, value);
  }
  return byName;
}
