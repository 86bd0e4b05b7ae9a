/**
 * clusterctl's variable substitution over the raw components text (SimpleProcessor in
 * cluster-api `cmd/clusterctl/client/yamlprocessor/simple_processor.go`, which evaluates with
 * drone/envsubst v2 at 179042472c46). The pipeline is the same as upstream's:
 *
 * 1. legacy spacing `${ VAR }` becomes `${VAR}` (convertLegacyVars), over the whole text;
 * 2. the text is parsed completely; a syntax error anywhere fails the whole file;
 * 3. every top-level reference without a value and without a default is "missing"; if any is,
 *    nothing is substituted (Process returns the raw artifact and errMissingVariables);
 * 4. otherwise every reference is evaluated and replaced.
 *
 * Only `${` starts a reference; a bare `$VAR` is text, and `$$` is an escape for `$` (in plain
 * text and in `/` replace arguments, not in other function arguments). drone/envsubst works on
 * UTF-8 bytes, so `${#V}`, `${V:pos:len}` and the glob patterns of `#`/`%` count bytes here too.
 *
 * The parser is variable-parser.ts, the evaluator variable-evaluator.ts, and the glob matching
 * and UTF-8 runes variable-glob.ts; this module runs them and reports.
 */
import { CapiGitopsError, compareStrings, type Diagnostic } from '../core/diagnostics.js';
import { lineColumnAt } from '../yaml/split.js';
import type { VariableLookup, VariableValue } from './types.js';
import {
  DOLLAR,
  LBRACE,
  RBRACE,
  normaliseLegacySpacing,
  originalOffset,
  ReferenceParser,
  SyntaxFailure,
  type NormalisedText,
  type Piece,
} from './variable-parser.js';
import { EvaluationFailure, Evaluator, type TaintMarker } from './variable-evaluator.js';

export type { TaintMarker };

/** A variable a components file uses, as clusterctl's GetVariableMap reports it. */
export interface VariableReference {
  name: string;
  /** The default text of its first top-level use, if non-empty (nested references as `${NAME}`). */
  default?: string;
}

export interface SubstitutionResult {
  /** The substituted text; the input unchanged when `missing` is not empty. */
  text: string;
  /** Variables without a value and without a default, sorted and unique. */
  missing: string[];
  /** Variables whose value went into the output, by name (sorted). */
  used: Map<string, VariableValue>;
}

// ---- diagnostics ------------------------------------------------------------------------------

const SYNTAX_EXPECTED = '`${NAME}`, `${NAME:=default}` or another drone/envsubst expression; `$${` for a literal `${`';
const SYNTAX_HINT =
  'clusterctl and the cluster-api-operator substitute variables in the raw components text, comments included, and refuse this file as published; fix the artifact or use a release that parses';

/** The reference as written (to its matching `}`, within its line and 60 characters), for messages. */
function excerptAt(text: string, offset: number): string {
  const lineEnd = text.indexOf('\n', offset);
  const limit = Math.min(lineEnd < 0 ? text.length : lineEnd, offset + 60);
  let depth = 0;
  for (let i = offset; i < limit; i++) {
    const c = text.charCodeAt(i);
    if (c === DOLLAR && text.charCodeAt(i + 1) === LBRACE) {
      depth += 1;
      i += 1;
    } else if (c === RBRACE && --depth === 0) {
      return text.slice(offset, i + 1);
    }
  }
  return text.slice(offset, limit).replace(/\r$/, '') + (limit < (lineEnd < 0 ? text.length : lineEnd) ? '…' : '');
}

function referenceError(
  original: string,
  normalised: NormalisedText,
  start: number,
  problem: string,
  file: string | undefined,
  details: Pick<Diagnostic, 'expected' | 'hint'>,
): CapiGitopsError {
  const offset = originalOffset(normalised, start);
  const { line, column } = lineColumnAt(original, offset);
  const where = file === undefined ? ` at line ${line}, column ${column}` : '';
  return new CapiGitopsError({
    message: `variable reference "${excerptAt(original, offset)}"${where}: ${problem}`,
    file,
    line,
    column,
    ...details,
  });
}

function parseText(text: string, file: string | undefined): { pieces: Piece[]; normalised: NormalisedText } {
  const normalised = normaliseLegacySpacing(text);
  try {
    return { pieces: new ReferenceParser(normalised.text).parseDocument(), normalised };
  } catch (err) {
    if (!(err instanceof SyntaxFailure)) throw err;
    throw referenceError(text, normalised, err.start, `${err.reason} (drone/envsubst parse error)`, file, {
      expected: SYNTAX_EXPECTED,
      hint: SYNTAX_HINT,
    });
  }
}

// ---- what clusterctl inspects (simple_processor.go inspectVariables/traverse) --------------

/** First top-level use of each name wins; nested references are not inspected. */
function topLevelDefaults(pieces: Piece[]): Map<string, string> {
  const defaults = new Map<string, string>();
  for (const piece of pieces) {
    if (typeof piece === 'string' || defaults.has(piece.name)) continue;
    defaults.set(piece.name, piece.args.map((a) => (typeof a === 'string' ? a : '${' + a.name + '}')).join(''));
  }
  return defaults;
}

/**
 * The variables a text uses with their default text, as clusterctl's GetVariableMap: unique,
 * sorted by name. Every argument of a top-level function counts as its "default", so
 * `${V/a/b}` reports `ab`.
 */
export function inspectVariables(text: string, file?: string): VariableReference[] {
  const { pieces } = parseText(text, file);
  return [...topLevelDefaults(pieces)]
    .sort(([a], [b]) => compareStrings(a, b))
    .map(([name, value]) => (value === '' ? { name } : { name, default: value }));
}

// ---- the public entry points -------------------------------------------------------------------

/**
 * clusterctl's SimpleProcessor.Process: every `${...}` replaced, with the missing-variable check
 * first. A variable with a value, even an empty one, is not missing; `${V:=d}` still takes `d`
 * for an empty value. Only top-level references are checked: one nested in a default is empty
 * when unset, as upstream.
 */
export function substituteVariables(text: string, lookup: VariableLookup, file?: string, marker?: TaintMarker): SubstitutionResult {
  const { pieces, normalised } = parseText(text, file);
  const evaluator = new Evaluator(lookup, marker && { marker, text: normalised.text });
  const missing: string[] = [];
  for (const [name, defaultText] of topLevelDefaults(pieces)) {
    if (evaluator.find(name) === undefined && defaultText === '') missing.push(name);
  }
  if (missing.length > 0) return { text, missing: missing.sort(compareStrings), used: new Map() };
  let output: string;
  try {
    output = evaluator.document(pieces);
  } catch (err) {
    if (!(err instanceof EvaluationFailure)) throw err;
    throw referenceError(text, normalised, err.start, err.problem, file, {
      hint: 'change the reference in the artifact, or the value given for the variable',
    });
  }
  return { text: output, missing, used: evaluator.usedValues() };
}

/** One error naming every missing variable (names only, never values). */
export function missingVariablesError(
  missing: string[],
  context: {
    provider: string;
    file?: string;
    line?: number;
    column?: number;
    artifact?: string;
    suggestions?: string[];
    /** The missing variables whose value would land in a Secret's data: secret, so never to be set in Git. */
    inSecretData?: readonly string[];
  },
): CapiGitopsError {
  const names = [...new Set(missing)].sort(compareStrings);
  const plural = names.length === 1 ? 'variable' : 'variables';
  const usedBy = context.artifact ? ` (used by ${context.artifact})` : '';
  const suggestions = context.suggestions?.length ? `${context.suggestions.join('; ')}; ` : '';
  const secret = names.filter((name) => context.inSecretData?.includes(name));
  const plain = names.filter((name) => !secret.includes(name));
  const them = (list: string[]) => (list.length === 1 ? 'it' : 'them');
  const ways: string[] = [];
  if (secret.length > 0)
    ways.push(
      `${secret.join(', ')} ${secret.length === 1 ? 'lands' : 'land'} in a Secret's data, so ${secret.length === 1 ? 'it is' : 'they are'} secret: ` +
        `pass ${them(secret)} with --secret-file <file kept outside Git> or --env-secret NAME, or as data keys of the spec.configSecret Secret ` +
        'in a -f file kept outside Git (outside the repository, or one it ignores), never under `variables:` in the Config document',
    );
  if (plain.length > 0)
    ways.push(
      `set ${secret.length > 0 ? plain.join(', ') : them(plain)} as data keys of the Secret named by the provider's spec.configSecret, ` +
        'or under `variables:` in the capi-gitops Config document',
    );
  return new CapiGitopsError({
    message: `value for ${plural} [${names.join(', ')}] is not set${usedBy}`,
    object: context.provider,
    file: context.file,
    line: context.line,
    column: context.column,
    expected: `a value for every variable the components use without a default: ${names.join(', ')}`,
    hint: suggestions + ways.join('; '),
  });
}
