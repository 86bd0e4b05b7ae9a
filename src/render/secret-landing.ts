/**
 * Where a value lands decides whether it is secret: a variable whose value reaches a v1 Secret's
 * `data` or `stringData` (a key or a value) is secret whatever gave it (Config.variables, a fleet
 * overlay), unless Config.secrets.public declares it. To find those variables the raw text is
 * substituted once more with every undeclared variable a mark, and parsed; the marks inside
 * Secrets' data name them. Patches and customisations do not move values into a Secret's data
 * (they carry literal text from the manifest), so the parsed objects are enough.
 */
import { isPlainObject, type KObject } from '../core/kobject.js';
import type { ParseInput } from '../yaml/parse.js';
import type { VariableLookup, VariableValue } from './types.js';
import { substituteVariables, type SubstitutionResult, type TaintMarker } from './variables.js';

/** The value a variable takes when `check` or `diff` render without it (never written: the strategy replaces it). */
const NOT_GIVEN_PLACEHOLDER = 'capi-gitops-value-not-given';
export const NOT_GIVEN_ORIGIN = 'not given (check and diff do not need it: the secrets strategy keeps it out of the output)';

/** A secret variable a run without values does not have: the strategy writes its reference, as for the real value. */
export function notGivenSecret(): VariableValue {
  return { value: NOT_GIVEN_PLACEHOLDER, origin: NOT_GIVEN_ORIGIN, fromSecret: true };
}

/**
 * A key declared public (Config.secrets.public) of a configSecret a run without values does not
 * have: a plain placeholder, never a secret (the strategy would refuse it outside a Secret's data),
 * so the output differs where the key counts and check and diff say the Secret may hold it.
 */
export function notGivenPublic(): VariableValue {
  return { value: NOT_GIVEN_PLACEHOLDER, origin: NOT_GIVEN_PUBLIC_ORIGIN, fromSecret: false, declaredPublic: true };
}
const NOT_GIVEN_PUBLIC_ORIGIN = 'not given (a key declared public of a configSecret this run does not have)';

/**
 * `lookup` with `names` (the committed output's strategy references, app/check.ts) taken as
 * secrets not at hand where nothing gives them a secret value: the Secret that gave them is absent.
 */
export function secretsNotAtHand(lookup: VariableLookup, names: ReadonlySet<string>): VariableLookup {
  if (names.size === 0) return lookup;
  return (name) => {
    const found = lookup(name);
    return names.has(name) && !found?.fromSecret && !found?.declaredPublic ? notGivenSecret() : found;
  };
}

/** What a taint-tracking substitution needs from the secrets stage's marks: each one's reference and the variables it carries. */
export interface TaintMarks {
  marker: TaintMarker;
  marks: readonly { reference: string; variables: readonly string[] }[];
  /** Matches one mark; group 1 is its index in `marks`. */
  pattern: RegExp;
}

interface LandingRequest {
  raw: string;
  /** The artifact's name for messages, and the parse source. */
  artifact: string;
  source: string;
  lookup: VariableLookup;
  /** The first substitution (with `lookup`): its used and missing variables are the candidates. */
  substituted: SubstitutionResult;
  marks: TaintMarks;
  parse: (input: ParseInput & { keepOutOfCache?: boolean }) => Promise<KObject[]>;
  holdsSecret: (text: string) => boolean;
}

/** Whether a raw text may hold a v1 Secret; an analysis that parses it runs only then. */
export function mayHoldSecret(raw: string): boolean {
  return raw.includes('Secret') && /\bkind["']?\s*:\s*["']?Secret\b/.test(raw);
}

/** The variables to locate: values given but not secret nor declared public, and those missing. */
function candidates(substituted: SubstitutionResult): Set<string> {
  const names = new Set(substituted.missing);
  for (const [name, value] of substituted.used) if (!value.fromSecret && !value.declaredPublic) names.add(name);
  return names;
}

/**
 * The candidate variables whose value reaches a v1 Secret's data or stringData. When the marked
 * text cannot be substituted or parsed, every candidate counts (a value is secret unless shown
 * otherwise).
 */
export async function variablesInSecretData(request: LandingRequest): Promise<Set<string>> {
  const wanted = candidates(request.substituted);
  if (wanted.size === 0 || !mayHoldSecret(request.raw)) return new Set();
  // every undeclared value is marked; a missing candidate takes a placeholder (it has no default),
  // any other missing variable stays missing so that defaults evaluate as in the real render
  const lookup: VariableLookup = (name) => {
    const found = request.lookup(name);
    if (found === undefined) return wanted.has(name) ? notGivenSecret() : undefined;
    return found.declaredPublic ? found : { ...found, fromSecret: true };
  };
  let text: string;
  try {
    text = substituteVariables(request.raw, lookup, request.artifact, request.marks.marker).text;
  } catch {
    return wanted;
  }
  const objects = await request.parse({ text, source: request.source, keepOutOfCache: request.holdsSecret(text) }).catch(() => undefined);
  if (!objects) return wanted;
  const landed = new Set<string>();
  const visit = (text: string) => {
    for (const match of text.matchAll(request.marks.pattern))
      for (const name of request.marks.marks[Number(match[1])]?.variables ?? []) if (wanted.has(name)) landed.add(name);
  };
  for (const obj of objects) {
    if (obj.apiVersion !== 'v1' || obj.kind !== 'Secret') continue;
    for (const section of [obj.data, obj.stringData]) {
      if (!isPlainObject(section)) continue;
      for (const [key, value] of Object.entries(section)) {
        visit(key);
        if (typeof value === 'string') visit(value);
      }
    }
  }
  return landed;
}

/**
 * `lookup` with the variables that land in a Secret's data made secret; with `placeholders`,
 * those of them that are missing take a placeholder value (check and diff under a strategy that
 * keeps values out of the output).
 */
export function secretWhereLanded(lookup: VariableLookup, landed: ReadonlySet<string>, placeholders = false): VariableLookup {
  if (landed.size === 0) return lookup;
  return (name): VariableValue | undefined => {
    const found = lookup(name);
    if (!landed.has(name)) return found;
    if (found === undefined) return placeholders ? notGivenSecret() : undefined;
    return found.fromSecret ? found : { ...found, fromSecret: true };
  };
}

/** Every value that landed in a Secret's data, by variable, and where each was given, over a run's renders. */
export function landedSecrets(renders: readonly { landed?: ReadonlyMap<string, VariableValue> }[]): {
  values: Map<string, string[]>;
  origins: Map<string, string>;
} {
  const values = new Map<string, string[]>();
  const origins = new Map<string, string>();
  for (const render of renders)
    for (const [name, { value, origin }] of render.landed ?? []) {
      const list = values.get(name) ?? [];
      if (!list.includes(value)) list.push(value);
      values.set(name, list);
      origins.set(name, origin);
    }
  return { values, origins };
}

/** `lookup` with the variables whose value lands in a Secret's data of `raw` made secret (`render --list-variables`). */
export async function lookupWithLanding(
  raw: string,
  artifact: string,
  lookup: VariableLookup,
  marks: TaintMarks,
  parse: LandingRequest['parse'],
): Promise<VariableLookup> {
  const substituted = substituteVariables(raw, lookup, artifact);
  // the text is never cached: listing is rare, and it may hold values
  const landed = await variablesInSecretData({
    raw,
    artifact,
    source: artifact,
    lookup,
    substituted,
    marks,
    parse,
    holdsSecret: () => true,
  });
  return secretWhereLanded(lookup, landed);
}
