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
 */
import { CapiGitopsError, compareStrings, type Diagnostic } from '../model/diagnostics.js';
import type { VariableLookup, VariableValue } from './types.js';

/** A variable a components file uses, as clusterctl's GetVariableMap reports it. */
export interface VariableReference {
  name: string;
  /** The default text of its first top-level use, if non-empty (nested references as `${NAME}`). */
  default?: string;
}

/**
 * Called for each top-level reference whose result carries a secret (`${#V}` does not): returns
 * the text to put in its place. `reference` is its source text, `variables` the secret names.
 */
export type TaintMarker = (mark: { result: string; variables: string[]; reference: string }) => string;

export interface SubstitutionResult {
  /** The substituted text; the input unchanged when `missing` is not empty. */
  text: string;
  /** Variables without a value and without a default, sorted and unique. */
  missing: string[];
  /** Variables whose value went into the output, by name (sorted). */
  used: Map<string, VariableValue>;
}

// ---- parse tree ------------------------------------------------------------------------------

/** What a reference does with its variable's value (drone/envsubst funcs.go). */
type Operation =
  | 'value' //            ${V}, and the casing spellings `,^` / `^,` that drone maps to no-op
  | 'default' //          ${V=d} ${V:=d} ${V:-d} ${V:?d} ${V:+d}: args when the value is empty
  | 'length' //           ${#V}
  | 'upperFirst' //       ${V^}
  | 'upper' //            ${V^^}
  | 'lowerFirst' //       ${V,}
  | 'lower' //            ${V,,}
  | 'substring' //        ${V:pos} ${V:pos:len}
  | 'trimShortestPrefix' // ${V#glob}
  | 'trimLongestPrefix' //  ${V##glob}
  | 'trimShortestSuffix' // ${V%glob}
  | 'trimLongestSuffix' //  ${V%%glob}
  | 'replaceFirst' //     ${V/s/r}
  | 'replaceAll' //       ${V//s/r}
  | 'replacePrefix' //    ${V/#s/r}
  | 'replaceSuffix'; //   ${V/%s/r}

/** Literal text or a nested reference. */
type Piece = string | Reference;

interface Reference {
  name: string;
  operation: Operation;
  /** One piece per argument, except `default`, whose pieces are concatenated. */
  args: Piece[];
  /** Offset of its `${` in the normalised text, for messages. */
  start: number;
  /** Offset after its `}` (top-level references only), for taint marks. */
  end?: number;
}

/** drone/envsubst's parse errors (parse/parse.go), by their message. */
const BAD_SUBSTITUTION = 'bad substitution';
const MISSING_CLOSING_BRACE = 'missing closing brace';
const BAD_VARIABLE_NAME = 'unable to parse variable name';
const BAD_FUNCTION_ARGUMENT = 'unable to parse substitution within function';

class SyntaxFailure extends Error {
  constructor(
    readonly reason: string,
    readonly start: number,
  ) {
    super(reason);
  }
}

class EvaluationFailure extends Error {
  constructor(
    readonly problem: string,
    readonly start: number,
  ) {
    super(problem);
  }
}

const DOLLAR = 0x24;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const COLON = 0x3a;
const SLASH = 0x2f;
const BACKSLASH = 0x5c;
const HASH = 0x23;
const PERCENT = 0x25;
const EQUALS = 0x3d;
const COMMA = 0x2c;
const CARET = 0x5e;

/** Where a text argument stops (drone's accept functions for each argument position). */
type Stop = (code: number) => boolean;
const stopAtColonOrClose: Stop = (c) => c === COLON || c === RBRACE;
const stopAtClose: Stop = (c) => c === RBRACE;
const stopAtSlash: Stop = (c) => c === SLASH;

const IDENT_NON_ASCII = /^[\p{L}\p{Nd}]$/u;

/** Go's unicode.IsLetter || unicode.IsDigit || '_'. */
function isNameCodePoint(cp: number): boolean {
  if (cp < 0x80) {
    return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) || cp === 0x5f;
  }
  return IDENT_NON_ASCII.test(String.fromCodePoint(cp));
}

/** Recursive-descent parser over the `${...}` grammar drone/envsubst accepts. */
class ReferenceParser {
  private pos = 0;

  constructor(private readonly src: string) {}

  /** The whole text: plain stretches (with `$$` reduced to `$`) and references. */
  parseDocument(): Piece[] {
    const { src } = this;
    const pieces: Piece[] = [];
    let textStart = 0;
    let dollar = src.indexOf('$');
    while (dollar >= 0) {
      const next = src.charCodeAt(dollar + 1);
      if (next === LBRACE) {
        if (dollar > textStart) pieces.push(src.slice(textStart, dollar));
        this.pos = dollar + 2;
        const ref = this.parseReference(dollar);
        ref.end = this.pos;
        pieces.push(ref);
        textStart = this.pos;
        dollar = src.indexOf('$', textStart);
      } else if (next === DOLLAR) {
        // keep the first `$`, drop the second
        pieces.push(src.slice(textStart, dollar + 1));
        textStart = dollar + 2;
        dollar = src.indexOf('$', textStart);
      } else {
        dollar = src.indexOf('$', dollar + 1);
      }
    }
    if (textStart < src.length) pieces.push(src.slice(textStart));
    return pieces;
  }

  /** After `${`; `start` is the offset of the `$`. */
  private parseReference(start: number): Reference {
    if (this.code() === HASH) return this.parseLength(start);
    const name = this.readName();
    if (name === '') throw new SyntaxFailure(BAD_VARIABLE_NAME, start);
    switch (this.code()) {
      case COLON:
        return this.parseAfterColon(name, start);
      case EQUALS:
        this.pos += 1;
        return this.parseDefault(name, start);
      case COMMA:
      case CARET:
        return this.parseCasing(name, start);
      case SLASH:
        return this.parseReplace(name, start);
      case HASH:
      case PERCENT:
        return this.parseTrim(name, start);
      case RBRACE:
        this.pos += 1;
        return { name, operation: 'value', args: [], start };
      default:
        throw new SyntaxFailure(MISSING_CLOSING_BRACE, start);
    }
  }

  /** `${#NAME}` */
  private parseLength(start: number): Reference {
    this.pos += 1;
    const name = this.readName();
    if (name === '') throw new SyntaxFailure(BAD_SUBSTITUTION, start);
    this.expectClose(start);
    return { name, operation: 'length', args: [], start };
  }

  /** `:` then `=`, `-`, `?`, `+` is a default; anything else a substring. */
  private parseAfterColon(name: string, start: number): Reference {
    const next = this.src.codePointAt(this.pos + 1);
    if (next === EQUALS || next === 0x2d || next === 0x3f || next === 0x2b) {
      this.pos += 2;
      return this.parseDefault(name, start);
    }
    // drone's scanner steps back by the width of this character instead of the colon's, so a
    // multi-byte character right after `:` (or the end of the text) is a bad substitution.
    if (next === undefined || next >= 0x80) throw new SyntaxFailure(BAD_SUBSTITUTION, start);
    this.pos += 1;
    const args = [this.parseArgument(stopAtColonOrClose, false, start)];
    if (this.code() === RBRACE) {
      this.pos += 1;
      return { name, operation: 'substring', args, start };
    }
    if (this.code() !== COLON) throw new SyntaxFailure(BAD_SUBSTITUTION, start);
    while (this.code() === COLON) this.pos += 1; // drone takes a run of colons as one separator
    args.push(this.parseArgument(stopAtClose, false, start));
    this.expectClose(start);
    return { name, operation: 'substring', args, start };
  }

  /** After the operator: any number of text/reference pieces up to `}`; `}` cannot be escaped. */
  private parseDefault(name: string, start: number): Reference {
    const args: Piece[] = [];
    while (this.code() !== RBRACE) args.push(this.parseArgument(stopAtClose, false, start));
    this.pos += 1;
    return { name, operation: 'default', args, start };
  }

  /** One or two of `,` and `^`; mixed spellings leave the value as it is. */
  private parseCasing(name: string, start: number): Reference {
    const first = this.code();
    this.pos += 1;
    let spelling = String.fromCharCode(first);
    const second = this.code();
    if (second === COMMA || second === CARET) {
      spelling += String.fromCharCode(second);
      this.pos += 1;
    }
    this.expectClose(start);
    const operation = CASING_OPERATIONS[spelling] ?? 'value';
    return { name, operation, args: [], start };
  }

  /** `#`, `##`, `%` or `%%`, then one glob argument. */
  private parseTrim(name: string, start: number): Reference {
    const marker = this.code();
    this.pos += 1;
    const longest = this.code() === marker;
    if (longest) this.pos += 1;
    const operation: Operation =
      marker === HASH
        ? longest ? 'trimLongestPrefix' : 'trimShortestPrefix'
        : longest ? 'trimLongestSuffix' : 'trimShortestSuffix';
    const args = [this.parseArgument(stopAtClose, false, start)];
    this.expectClose(start);
    return { name, operation, args, start };
  }

  /** `/`, `//`, `/#` or `/%`, a pattern, a run of `/`, and an optional replacement. */
  private parseReplace(name: string, start: number): Reference {
    this.pos += 1;
    let operation: Operation = 'replaceFirst';
    const mode = this.code();
    if (mode === SLASH || mode === HASH || mode === PERCENT) {
      operation = mode === SLASH ? 'replaceAll' : mode === HASH ? 'replacePrefix' : 'replaceSuffix';
      this.pos += 1;
    }
    // The pattern may contain `}`: only `/` ends it (escape it as `\/`).
    const args = [this.parseArgument(stopAtSlash, true, start)];
    if (this.code() !== SLASH) throw new SyntaxFailure(BAD_SUBSTITUTION, start);
    while (this.code() === SLASH) this.pos += 1;
    if (this.code() === RBRACE) {
      this.pos += 1;
      return { name, operation, args, start };
    }
    args.push(this.parseArgument(stopAtClose, true, start));
    this.expectClose(start);
    return { name, operation, args, start };
  }

  /**
   * One argument: a nested reference, or a non-empty run of text up to `stop`, a `${` or the
   * end. With `escapes`, `$$`, `\/` and `\\` stand for `$`, `/` and `\`.
   */
  private parseArgument(stop: Stop, escapes: boolean, start: number): Piece {
    const { src } = this;
    const first = this.pos;
    if (first >= src.length) throw new SyntaxFailure(BAD_FUNCTION_ARGUMENT, start);
    if (src.charCodeAt(first) === DOLLAR && src.charCodeAt(first + 1) === LBRACE) {
      this.pos += 2;
      return this.parseReference(first);
    }
    let text = '';
    let runStart = first;
    let i = first;
    while (i < src.length) {
      const c = src.charCodeAt(i);
      if (c === DOLLAR && src.charCodeAt(i + 1) === LBRACE) break;
      if (escapes && isEscapePair(c, src.charCodeAt(i + 1))) {
        text += src.slice(runStart, i);
        runStart = i + 1; // keep the escaped character, drop the escape
        i += 2;
        continue;
      }
      if (stop(c)) break;
      i += 1;
    }
    if (i === first) throw new SyntaxFailure(BAD_FUNCTION_ARGUMENT, start);
    this.pos = i;
    return text + src.slice(runStart, i);
  }

  private readName(): string {
    const { src } = this;
    const first = this.pos;
    let i = first;
    while (i < src.length) {
      const cp = src.codePointAt(i)!;
      if (!isNameCodePoint(cp)) break;
      i += cp > 0xffff ? 2 : 1;
    }
    this.pos = i;
    return src.slice(first, i);
  }

  private expectClose(start: number): void {
    if (this.code() !== RBRACE) throw new SyntaxFailure(BAD_SUBSTITUTION, start);
    this.pos += 1;
  }

  /** The code unit at the cursor, NaN at the end. */
  private code(): number {
    return this.src.charCodeAt(this.pos);
  }
}

const CASING_OPERATIONS: Record<string, Operation | undefined> = {
  ',': 'lowerFirst',
  ',,': 'lower',
  '^': 'upperFirst',
  '^^': 'upper',
};

function isEscapePair(c: number, next: number): boolean {
  return (c === DOLLAR && next === DOLLAR) || (c === BACKSLASH && (next === SLASH || next === BACKSLASH));
}

// ---- legacy `${ VAR }` spacing (simple_processor.go convertLegacyVars) ------------------------

/** Go RE2's `\s`. */
function isGoSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}

/** `[A-Za-z0-9_$]`, the name class of clusterctl's legacyVariableRegEx. */
function isLegacyNameChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === DOLLAR;
}

interface NormalisedText {
  text: string;
  /** Normalised offsets of rewritten `${` and the characters removed up to and including each. */
  editAt: number[];
  removedThrough: number[];
}

/**
 * `${ NAME }`, `${ NAME}` and `${NAME }` lose their whitespace, wherever they are (even after
 * `$$`), before parsing.
 */
function normaliseLegacySpacing(text: string): NormalisedText {
  const editAt: number[] = [];
  const removedThrough: number[] = [];
  let at = text.indexOf('${');
  if (at < 0) return { text, editAt, removedThrough };
  const out: string[] = [];
  let copied = 0;
  let outLength = 0;
  let removed = 0;
  while (at >= 0) {
    let i = at + 2;
    while (isGoSpace(text.charCodeAt(i))) i += 1;
    const nameStart = i;
    while (isLegacyNameChar(text.charCodeAt(i))) i += 1;
    const nameEnd = i;
    while (isGoSpace(text.charCodeAt(i))) i += 1;
    const spaced = nameStart - (at + 2) + (i - nameEnd) > 0;
    if (nameEnd > nameStart && spaced && text.charCodeAt(i) === RBRACE) {
      const before = text.slice(copied, at);
      out.push(before, '${', text.slice(nameStart, nameEnd), '}');
      outLength += before.length;
      editAt.push(outLength);
      outLength += nameEnd - nameStart + 3;
      removed += i + 1 - at - (nameEnd - nameStart + 3);
      removedThrough.push(removed);
      copied = i + 1;
      at = text.indexOf('${', copied);
    } else {
      at = text.indexOf('${', at + 2);
    }
  }
  if (copied === 0) return { text, editAt, removedThrough };
  out.push(text.slice(copied));
  return { text: out.join(''), editAt, removedThrough };
}

function originalOffset(normalised: NormalisedText, offset: number): number {
  let shift = 0;
  for (let k = 0; k < normalised.editAt.length && normalised.editAt[k] < offset; k++) shift = normalised.removedThrough[k];
  return offset + shift;
}

// ---- diagnostics ------------------------------------------------------------------------------

const SYNTAX_EXPECTED =
  '`${NAME}`, `${NAME:=default}` or another drone/envsubst expression; `$${` for a literal `${`';
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

function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let nl = text.indexOf('\n'); nl >= 0 && nl < offset; nl = text.indexOf('\n', nl + 1)) {
    line += 1;
    lineStart = nl + 1;
  }
  return { line, column: offset - lineStart + 1 };
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
  const { line, column } = positionOf(original, offset);
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

// ---- evaluation (drone/envsubst template.go and funcs.go) -------------------------------------
//
// Go strings are bytes, and drone slices them by byte (`${#V}`, `${V:1:2}`, globs), so values
// are evaluated as "byte strings": one JavaScript character per UTF-8 byte (latin1). A result
// may cut a character in two and still be fine once joined with the next one, exactly as in
// Go; only the final output must be valid UTF-8.

const ASCII_ONLY = /^[\x00-\x7f]*$/;

function toByteString(text: string): string {
  return ASCII_ONLY.test(text) ? text : Buffer.from(text, 'utf8').toString('latin1');
}

const strictDecoder = new TextDecoder('utf-8', { fatal: true });

function fromByteString(bytes: string): string | undefined {
  if (ASCII_ONLY.test(bytes)) return bytes;
  try {
    return strictDecoder.decode(Buffer.from(bytes, 'latin1'));
  } catch {
    return undefined;
  }
}

class Evaluator {
  private readonly values = new Map<string, VariableValue | undefined>();
  private readonly bytes = new Map<string, string>();
  readonly used = new Set<string>();

  constructor(
    private readonly lookup: VariableLookup,
    private readonly taint?: { marker: TaintMarker; text: string },
  ) {}

  find(name: string): VariableValue | undefined {
    if (!this.values.has(name)) this.values.set(name, this.lookup(name));
    return this.values.get(name);
  }

  /** What lands in the output, by name in code-unit order. */
  usedValues(): Map<string, VariableValue> {
    const used = new Map<string, VariableValue>();
    for (const name of [...this.used].sort(compareStrings)) used.set(name, this.values.get(name)!);
    return used;
  }

  /**
   * The output text. Every reference is evaluated first (a later one may panic in Go), then
   * each run of adjacent references must be valid UTF-8 once joined; text between them
   * already is.
   */
  document(pieces: Piece[]): string {
    const results = pieces.map((piece) => (typeof piece === 'string' ? piece : this.topLevel(piece)));
    const out: string[] = [];
    for (let i = 0; i < pieces.length; ) {
      const piece = pieces[i];
      if (typeof piece === 'string') {
        out.push(piece);
        i += 1;
        continue;
      }
      let joined = '';
      for (; i < pieces.length && typeof pieces[i] !== 'string'; i++) joined += results[i];
      const text = fromByteString(joined);
      if (text === undefined) {
        throw new EvaluationFailure(
          'the result is not valid UTF-8 (a byte-based function cut a multi-byte character); clusterctl would fail to parse the YAML',
          piece.start,
        );
      }
      out.push(text);
    }
    return out.join('');
  }

  /** A top-level reference; with a taint marker, a result carrying a secret becomes its mark. */
  private topLevel(ref: Reference): string {
    if (!this.taint) return this.reference(ref, this.used);
    const used = new Set<string>();
    const result = this.reference(ref, used);
    for (const name of used) this.used.add(name);
    // `${#V}` gives only the length of V, which is not secret
    const variables = [...used].filter((name) => this.values.get(name)?.fromSecret && !(ref.operation === 'length' && name === ref.name)).sort(compareStrings);
    if (variables.length === 0) return result;
    const text = fromByteString(result);
    if (text === undefined) return result; // a cut character: document() reports it
    return toByteString(this.taint.marker({ result: text, variables, reference: this.taint.text.slice(ref.start, ref.end) }));
  }

  /** All arguments are evaluated before the value, as drone does; `used` gets what lands. */
  private reference(ref: Reference, used: Set<string>): string {
    const argUsed = new Set<string>();
    const args = ref.args.map((a) => (typeof a === 'string' ? toByteString(a) : this.reference(a, argUsed)));
    const found = this.find(ref.name);
    const value = found === undefined ? '' : this.valueBytes(ref.name, found);
    const defaulted = ref.operation === 'default' && value === '' && args.length > 0;
    if (found && !defaulted) used.add(ref.name);
    if (ref.operation !== 'default' || defaulted) for (const name of argUsed) used.add(name);
    return applyOperation(ref, value, args);
  }

  private valueBytes(name: string, found: VariableValue): string {
    let bytes = this.bytes.get(name);
    if (bytes === undefined) {
      bytes = toByteString(found.value);
      this.bytes.set(name, bytes);
    }
    return bytes;
  }
}

/** drone's lookupFunc and the function it picks, over byte strings. */
function applyOperation(ref: Reference, value: string, args: string[]): string {
  switch (ref.operation) {
    case 'value':
      return value;
    case 'default':
      return value === '' && args.length > 0 ? args.join('') : value;
    case 'length':
      return String(value.length);
    case 'upperFirst':
      return mapFirstRune(value, simpleUpper);
    case 'upper':
      return mapRunes(value, simpleUpper);
    case 'lowerFirst':
      return mapFirstRune(value, simpleLower);
    case 'lower':
      return mapRunes(value, simpleLower);
    case 'substring':
      return substring(value, args, ref.start);
    case 'trimShortestPrefix':
      return value.slice(matchedPrefixLength(value, args[0], false));
    case 'trimLongestPrefix':
      return value.slice(matchedPrefixLength(value, args[0], true));
    case 'trimShortestSuffix':
      return trimSuffix(value, args[0], false);
    case 'trimLongestSuffix':
      return trimSuffix(value, args[0], true);
    case 'replaceFirst':
      return replace(value, args[0], args[1] ?? '', false);
    case 'replaceAll':
      return replace(value, args[0], args[1] ?? '', true);
    case 'replacePrefix':
      // drone needs both arguments; `${V/#p/}` leaves the value alone
      return args.length === 2 && value.startsWith(args[0]) ? args[1] + value.slice(args[0].length) : value;
    case 'replaceSuffix':
      return args.length === 2 && value.endsWith(args[0]) ? value.slice(0, value.length - args[0].length) + args[1] : value;
  }
}

// -- runes: Go's utf8.DecodeRune and []rune over byte strings.

const REPLACEMENT_CHARACTER = 0xfffd;

/** Go's utf8.DecodeRune on bytes[at, end): an invalid or cut sequence is U+FFFD of width 1. */
function decodeRune(bytes: string, at: number, end: number): { rune: number; width: number } {
  const b0 = bytes.charCodeAt(at);
  if (b0 < 0x80) return { rune: b0, width: 1 };
  let width: number;
  let low = 0x80;
  let high = 0xbf;
  if (b0 >= 0xc2 && b0 <= 0xdf) width = 2;
  else if (b0 >= 0xe0 && b0 <= 0xef) {
    width = 3;
    if (b0 === 0xe0) low = 0xa0;
    if (b0 === 0xed) high = 0x9f; // no surrogates
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    width = 4;
    if (b0 === 0xf0) low = 0x90;
    if (b0 === 0xf4) high = 0x8f;
  } else return { rune: REPLACEMENT_CHARACTER, width: 1 };
  if (at + width > end) return { rune: REPLACEMENT_CHARACTER, width: 1 };
  let rune = b0 & (width === 2 ? 0x1f : width === 3 ? 0x0f : 0x07);
  for (let k = 1; k < width; k++) {
    const b = bytes.charCodeAt(at + k);
    if (k === 1 ? b < low || b > high : b < 0x80 || b > 0xbf) return { rune: REPLACEMENT_CHARACTER, width: 1 };
    rune = (rune << 6) | (b & 0x3f);
  }
  return { rune, width };
}

/** One rune as UTF-8 bytes. */
function encodeRune(rune: number): string {
  if (rune < 0x80) return String.fromCharCode(rune);
  if (rune < 0x800) return String.fromCharCode(0xc0 | (rune >> 6), 0x80 | (rune & 0x3f));
  if (rune < 0x10000) return String.fromCharCode(0xe0 | (rune >> 12), 0x80 | ((rune >> 6) & 0x3f), 0x80 | (rune & 0x3f));
  return String.fromCharCode(0xf0 | (rune >> 18), 0x80 | ((rune >> 12) & 0x3f), 0x80 | ((rune >> 6) & 0x3f), 0x80 | (rune & 0x3f));
}

/** Go's []rune conversion: every invalid byte becomes U+FFFD. */
function runesOf(bytes: string): number[] {
  const runes: number[] = [];
  for (let i = 0; i < bytes.length; ) {
    const { rune, width } = decodeRune(bytes, i, bytes.length);
    runes.push(rune);
    i += width;
  }
  return runes;
}

function bytesOfRunes(runes: number[]): string {
  let out = '';
  for (const rune of runes) out += encodeRune(rune);
  return out;
}

// -- casing: Go's unicode.ToUpper/ToLower are simple (one rune to one rune) mappings.

/** Simple mappings where JavaScript's full mapping gives several characters. */
const SIMPLE_UPPER_EXCEPTIONS = new Map<number, number>([
  [0x1fb3, 0x1fbc],
  [0x1fc3, 0x1fcc],
  [0x1ff3, 0x1ffc],
]);
for (const base of [0x1f80, 0x1f90, 0x1fa0]) for (let k = 0; k < 8; k++) SIMPLE_UPPER_EXCEPTIONS.set(base + k, base + k + 8);
const SIMPLE_LOWER_EXCEPTIONS = new Map<number, number>([[0x130, 0x69]]);

function singleCodePoint(mapped: string): number | undefined {
  const cp = mapped.codePointAt(0);
  return cp !== undefined && mapped.length === (cp > 0xffff ? 2 : 1) ? cp : undefined;
}

function simpleUpper(cp: number): number {
  return singleCodePoint(String.fromCodePoint(cp).toUpperCase()) ?? SIMPLE_UPPER_EXCEPTIONS.get(cp) ?? cp;
}

function simpleLower(cp: number): number {
  return singleCodePoint(String.fromCodePoint(cp).toLowerCase()) ?? SIMPLE_LOWER_EXCEPTIONS.get(cp) ?? cp;
}

/** strings.ToUpper/ToLower: ASCII as is, otherwise rune by rune (invalid bytes become U+FFFD). */
function mapRunes(bytes: string, map: (cp: number) => number): string {
  if (ASCII_ONLY.test(bytes)) return map === simpleUpper ? bytes.toUpperCase() : bytes.toLowerCase();
  return bytesOfRunes(runesOf(bytes).map(map));
}

function mapFirstRune(bytes: string, map: (cp: number) => number): string {
  if (bytes === '') return bytes;
  const { rune, width } = decodeRune(bytes, 0, bytes.length);
  return encodeRune(map(rune)) + bytes.slice(width);
}

// -- substring and replace

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's strconv.Atoi on 64-bit: optional sign, decimal digits, int64 range. */
function parseGoInt(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** drone toSubstr: bash-like offsets in bytes; an unparsable number leaves the value alone. */
function substring(bytes: string, args: string[], start: number): string {
  const offset = parseGoInt(args[0]);
  if (offset === undefined) return bytes;
  const size = BigInt(bytes.length);
  let from = offset;
  if (from < 0n) from = from + size < 0n ? 0n : from + size;
  let to = size;
  if (args.length > 1) {
    const length = parseGoInt(args[1]);
    if (length === undefined) return bytes;
    const end = BigInt.asIntN(64, from + length); // Go's int wraps
    if (end < size) {
      if (end < from) {
        throw new EvaluationFailure('the substring ends before it starts; drone/envsubst slices out of range and clusterctl panics', start);
      }
      to = end;
    }
  }
  return from >= size ? '' : bytes.slice(Number(from), Number(to));
}

/** Go's strings.Replace; an empty pattern matches before every rune and at the end. */
function replace(bytes: string, pattern: string, replacement: string, all: boolean): string {
  if (pattern === '') {
    if (!all || bytes === '') return replacement + bytes;
    let out = replacement;
    for (let i = 0; i < bytes.length; ) {
      const { width } = decodeRune(bytes, i, bytes.length);
      out += bytes.slice(i, i + width) + replacement;
      i += width;
    }
    return out;
  }
  if (all) return bytes.split(pattern).join(replacement);
  const at = bytes.indexOf(pattern);
  return at < 0 ? bytes : bytes.slice(0, at) + replacement + bytes.slice(at + pattern.length);
}

// -- glob removal: drone's own copy of Go's path.Match, where `*` and `?` also match `/`.

const BAD_PATTERN = -2;
const NO_MATCH = -1;

const STAR = 0x2a;
const QUESTION = 0x3f;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const DASH = 0x2d;

/** Where the chunk starting at `from` ends: at the next `*` outside a `[...]` class. */
function chunkEnd(pattern: string, from: number): number {
  let inClass = false;
  let i = from;
  for (; i < pattern.length; i++) {
    const c = pattern.charCodeAt(i);
    if (c === BACKSLASH) {
      if (i + 1 < pattern.length) i++;
    } else if (c === LBRACKET) inClass = true;
    else if (c === RBRACKET) inClass = false;
    else if (c === STAR && !inClass) break;
  }
  return i;
}

/** A class member, possibly `\`-escaped; more of the chunk must follow it. */
function classMember(pattern: string, at: number, end: number): { rune: number; next: number } | undefined {
  const c = pattern.charCodeAt(at);
  if (at >= end || c === DASH || c === RBRACKET) return undefined;
  if (c === BACKSLASH) {
    at += 1;
    if (at >= end) return undefined;
  }
  const { rune, width } = decodeRune(pattern, at, end);
  if (rune === REPLACEMENT_CHARACTER && width === 1) return undefined;
  const next = at + width;
  return next >= end ? undefined : { rune, next };
}

/**
 * Matches pattern[from, to) (no stars) at the start of name[at, nameEnd). Returns the offset
 * after the match, NO_MATCH, or BAD_PATTERN (found only when the name lasts long enough).
 */
function matchChunk(pattern: string, from: number, to: number, name: string, at: number, nameEnd: number): number {
  let p = from;
  let n = at;
  while (p < to) {
    if (n >= nameEnd) return NO_MATCH;
    const c = pattern.charCodeAt(p);
    if (c === LBRACKET) {
      const { rune, width } = decodeRune(name, n, nameEnd);
      n += width;
      p += 1;
      let negated = false;
      if (p < to && pattern.charCodeAt(p) === CARET) {
        negated = true;
        p += 1;
      }
      let matched = false;
      for (let members = 0; ; members++) {
        if (p < to && pattern.charCodeAt(p) === RBRACKET && members > 0) {
          p += 1;
          break;
        }
        const low = classMember(pattern, p, to);
        if (!low) return BAD_PATTERN;
        p = low.next;
        let high = low.rune;
        if (pattern.charCodeAt(p) === DASH) {
          const upper = classMember(pattern, p + 1, to);
          if (!upper) return BAD_PATTERN;
          high = upper.rune;
          p = upper.next;
        }
        if (low.rune <= rune && rune <= high) matched = true;
      }
      if (matched === negated) return NO_MATCH;
    } else if (c === QUESTION) {
      n += decodeRune(name, n, nameEnd).width;
      p += 1;
    } else {
      if (c === BACKSLASH) {
        p += 1;
        if (p >= to) return BAD_PATTERN;
      }
      if (pattern.charCodeAt(p) !== name.charCodeAt(n)) return NO_MATCH;
      n += 1;
      p += 1;
    }
  }
  return n;
}

/** Whether name[0, nameEnd) matches the whole pattern: true, false or BAD_PATTERN. */
function globMatches(pattern: string, name: string, nameEnd: number): boolean | typeof BAD_PATTERN {
  let p = 0;
  let n = 0;
  chunks: while (p < pattern.length) {
    let star = false;
    while (p < pattern.length && pattern.charCodeAt(p) === STAR) {
      p += 1;
      star = true;
    }
    const from = p;
    p = chunkEnd(pattern, p);
    const last = p >= pattern.length;
    if (star && from === p) return true; // a trailing star takes the rest, `/` included
    let after = matchChunk(pattern, from, p, name, n, nameEnd);
    if (after >= 0 && (after === nameEnd || !last)) {
      n = after;
      continue;
    }
    if (after === BAD_PATTERN) return BAD_PATTERN;
    if (star) {
      // the leftmost place the chunk matches, no backtracking; the last chunk must reach the end
      for (let skip = n; skip < nameEnd; skip++) {
        after = matchChunk(pattern, from, p, name, skip + 1, nameEnd);
        if (after >= 0) {
          if (last && after !== nameEnd) continue;
          n = after;
          continue chunks;
        }
        if (after === BAD_PATTERN) return BAD_PATTERN;
      }
    }
    return false;
  }
  return n === nameEnd;
}

/**
 * Bytes to remove from the front: drone tries every non-empty prefix from the longest down
 * and keeps the first (longest) or the last (shortest) match; a bad pattern removes nothing.
 */
function matchedPrefixLength(bytes: string, pattern: string, longest: boolean): number {
  let found = 0;
  for (let size = bytes.length; size >= 1; size--) {
    const result = globMatches(pattern, bytes, size);
    if (result === BAD_PATTERN) return 0;
    if (result === true) {
      if (longest) return size;
      found = size;
    }
  }
  return found;
}

function reverseRunes(bytes: string): string {
  return bytesOfRunes(runesOf(bytes).reverse());
}

/** drone removes a suffix by reversing value and pattern rune by rune, so `[a-z]` reads `]z-a[`. */
function trimSuffix(bytes: string, pattern: string, longest: boolean): string {
  const reversed = reverseRunes(bytes);
  return reverseRunes(reversed.slice(matchedPrefixLength(reversed, reverseRunes(pattern), longest)));
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
  context: { provider: string; file?: string; line?: number; column?: number; artifact?: string; suggestions?: string[] },
): CapiGitopsError {
  const names = [...new Set(missing)].sort(compareStrings);
  const plural = names.length === 1 ? 'variable' : 'variables';
  const usedBy = context.artifact ? ` (used by ${context.artifact})` : '';
  const suggestions = context.suggestions?.length ? `${context.suggestions.join('; ')}; ` : '';
  return new CapiGitopsError({
    message: `value for ${plural} [${names.join(', ')}] is not set${usedBy}`,
    object: context.provider,
    file: context.file,
    line: context.line,
    column: context.column,
    expected: `a value for every variable the components use without a default: ${names.join(', ')}`,
    hint:
      `${suggestions}set ${names.length === 1 ? 'it' : 'them'} as data keys of the Secret named by the provider's spec.configSecret, ` +
      'or under `variables:` in the capi-gitops Config document',
  });
}
