/**
 * When an artifact stops being YAML only after its variables were substituted (a multi-line
 * value, a value with ": "), the parse error points deep into a generated text the user never
 * wrote. This finds the variables whose values break it, by substituting plain words for the
 * others and parsing again, and reports each variable and where its value came from. The value
 * itself is never shown: it may come from a Secret.
 */
import { CapiGitopsError, type Diagnostic } from '../core/diagnostics.js';
import type { KObject } from '../core/kobject.js';
import { parseArtifact } from '../yaml/parse.js';
import { substituteVariables } from './variables.js';
import type { VariableLookup, VariableValue } from './types.js';

/** A value with none of these characters cannot change the YAML structure around it. */
const STRUCTURAL = /[\n\r:#{}[\],&*!|>'"%@`-]/;

export interface SubstitutedArtifact {
  /** The artifact text before substitution. */
  raw: string;
  /** The text after substitution. */
  text: string;
  lookup: VariableLookup;
  used: ReadonlyMap<string, VariableValue>;
  /** The name the parse error used for the substituted text. */
  source: string;
  /** The artifact's name for messages (path or URL). */
  artifact: string;
  /** Where the provider is in the manifest. */
  origin: Pick<Diagnostic, 'object' | 'file' | 'line' | 'column'>;
  /** A fleet's cluster: `render --list-variables` refuses a fleet, so hints do not name it. */
  fleetCluster?: boolean;
}

export const LIST_VARIABLES_COMMAND = '`capi-gitops render --list-variables`';

/** Whether a text parses and its objects pass `fits`. */
function parses(text: string, source: string, fits: (objects: KObject[]) => boolean): boolean {
  let objects: KObject[];
  try {
    objects = parseArtifact(text, { source });
  } catch (error) {
    if (error instanceof CapiGitopsError) return false;
    throw error;
  }
  return fits(objects);
}

/**
 * The variables whose values break the artifact's YAML, as diagnostics: each value that breaks it
 * with every other such value made a plain word, so two broken values are both told (either alone
 * had left it broken, and the parser's own errors deep in the generated text were shown). Empty when
 * the artifact breaks with every value made plain. `fits`, when given, is what the parsed objects
 * must pass too (a value with ": " that parses, but as a mapping where a string belongs).
 */
export function breakingVariables(artifact: SubstitutedArtifact, fits: (objects: KObject[]) => boolean = () => true): Diagnostic[] {
  if (parses(artifact.text, artifact.source, fits)) return [];
  const structural = new Map([...artifact.used].filter(([, value]) => STRUCTURAL.test(value.value)));
  /** Whether the artifact parses with every structural value but `kept`'s made a plain word. */
  const parsesKeeping = (kept: string | undefined) => {
    const plain: VariableLookup = (n) => {
      const value = structural.get(n);
      return value !== undefined && n !== kept ? { value: 'x', origin: value.origin, fromSecret: false } : artifact.lookup(n);
    };
    return parses(substituteVariables(artifact.raw, plain, artifact.artifact).text, artifact.source, fits);
  };
  if (!parsesKeeping(undefined)) return [];
  const problems: Diagnostic[] = [];
  for (const [name, value] of structural) {
    if (parsesKeeping(name)) continue;
    const b64 = name.endsWith('_B64');
    // told where the value was given, the field to change (once for every provider it breaks: tellOnce)
    problems.push({
      ...artifact.origin,
      ...value.position,
      message: value.position
        ? `the value of variable ${name} (from ${value.origin}) breaks the YAML of the components it is substituted into`
        : `the value of variable ${name} (from ${value.origin}) breaks the YAML of ${artifact.artifact} once substituted`,
      expected: b64
        ? `base64 text on one line: ${name} is decoded by the provider`
        : 'a value that fits where the artifact uses it: one line, without ": " or " #" unless the artifact quotes it',
      hint: b64
        ? `give the base64 of the value: under the Secret's stringData the base64 text itself, under data the base64 of that base64 text (e.g. \`base64 -w0 file\`)`
        : artifact.fleetCluster
          ? `check the value of ${name} where ${value.origin} gives it`
          : `check the value of ${name}; list where each variable comes from with ${LIST_VARIABLES_COMMAND}`,
    });
  }
  return problems;
}
