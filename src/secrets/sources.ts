/**
 * Which values are secret: a configSecret's (unless declared in Config.secrets.public, or written
 * in plain text in the input: a Turtles CAPIProvider's variables), those
 * of `--secret-file` and of `--env-secret NAME`. Config.variables never are.
 */
import { readFile } from 'node:fs/promises';
import { parse as parseDotenv } from 'dotenv';
import YAML from 'yaml';
import { CapiGitopsError, type Diagnostic } from '../core/diagnostics.js';
import { isPlainObject } from '../core/kobject.js';
import type { Manifest, SecretObject } from '../manifest/types.js';
import type { VariableLookup, VariableValue } from '../render/types.js';

/** Values supplied at run time, kept out of Git. */
export interface RunSecrets {
  /** Name → value; `--env-secret` wins over `--secret-file`, later files over earlier. */
  values: Map<string, { value: string; origin: string }>;
}

export interface RunSecretOptions {
  secretFiles?: readonly string[];
  envSecrets?: readonly string[];
  env?: NodeJS.ProcessEnv;
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A dotenv file, or a YAML map of strings (decided by the first meaningful line). */
function parseSecretFile(text: string, file: string): { values: Record<string, string>; problems: Diagnostic[] } {
  const firstLine = text.split('\n').find((l) => l.trim() !== '' && !l.trim().startsWith('#')) ?? '';
  const isDotenv = /^\s*(export\s+)?[A-Za-z_][A-Za-z0-9_]*\s*=/.test(firstLine);
  if (isDotenv) return { values: parseDotenv(text), problems: [] };
  let parsed: unknown;
  try {
    parsed = text.trim() === '' ? {} : YAML.parse(text, { schema: 'core' });
  } catch {
    // the YAML parser quotes the offending text, which may be a secret: say where, not what
    return {
      values: {},
      problems: [
        {
          file,
          message: 'is neither a dotenv file nor a YAML map',
          expected: 'NAME=value lines, or a YAML map NAME: "value"',
          hint: `check the syntax of ${file}`,
        },
      ],
    };
  }
  if (!isPlainObject(parsed)) {
    return {
      values: {},
      problems: [
        {
          file,
          message: 'is not a map of variables',
          expected: 'NAME=value lines, or a YAML map NAME: "value"',
          hint: `write ${file} as NAME: "value" lines`,
        },
      ],
    };
  }
  const values: Record<string, string> = {};
  const problems: Diagnostic[] = [];
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value === 'string') values[name] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') values[name] = String(value);
    else problems.push({ file, path: name, message: 'is not a string', expected: 'a string value', hint: 'quote the value' });
  }
  return { values, problems };
}

/** Reads `--secret-file` files and `--env-secret` names; every problem in one error, no value shown. */
export async function readRunSecrets(options: RunSecretOptions): Promise<RunSecrets> {
  const values = new Map<string, { value: string; origin: string }>();
  const problems: Diagnostic[] = [];
  for (const file of options.secretFiles ?? []) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
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
      values.set(name, { value, origin: `--secret-file ${file}` });
    }
  }
  const env = options.env ?? process.env;
  for (const name of options.envSecrets ?? []) {
    const value = env[name];
    if (!VARIABLE_NAME.test(name)) {
      problems.push({
        object: `--env-secret ${name}`,
        message: 'is not a variable name',
        expected: 'letters, digits and _, not starting with a digit',
        hint: 'pass the name of an environment variable, not its value',
      });
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
  return { values };
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
    if (supplied) return { value: supplied.value, origin: supplied.origin, fromSecret: true };
    if (configSecret && Object.hasOwn(configSecret.data, name)) {
      return {
        value: configSecret.data[name]!,
        origin: `Secret ${configSecret.namespace}/${configSecret.name}`,
        fromSecret: !publicNames.has(name) && !configSecret.publicKeys?.includes(name),
      };
    }
    if (Object.hasOwn(fromConfig, name)) return { value: fromConfig[name]!, origin: 'Config.variables', fromSecret: false };
    return undefined;
  };
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
  for (const [name, { value }] of run.values) add(name, value);
  for (const secret of configSecrets) {
    if (!secret) continue;
    for (const [name, value] of Object.entries(secret.data))
      if (name !== IMAGES_KEY && !publicNames.has(name) && !secret.publicKeys?.includes(name)) add(name, value);
  }
  return byName;
}
