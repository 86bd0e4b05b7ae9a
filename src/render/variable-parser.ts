/**
 * The parser of drone/envsubst v2 (parse/parse.go and parse/scan.go at 179042472c46), as
 * clusterctl's SimpleProcessor runs it: `${...}` references and their functions into a parse tree,
 * after simple_processor.go's legacy `${ VAR }` spacing is normalised. Part of render/variables.ts.
 */

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
export type Piece = string | Reference;

export interface Reference {
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

export class SyntaxFailure extends Error {
  constructor(
    readonly reason: string,
    readonly start: number,
  ) {
    super(reason);
  }
}

export const DOLLAR = 0x24;
export const LBRACE = 0x7b;
export const RBRACE = 0x7d;
const COLON = 0x3a;
const SLASH = 0x2f;
export const BACKSLASH = 0x5c;
const HASH = 0x23;
const PERCENT = 0x25;
const EQUALS = 0x3d;
const COMMA = 0x2c;
export const CARET = 0x5e;

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
export class ReferenceParser {
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
      marker === HASH ? (longest ? 'trimLongestPrefix' : 'trimShortestPrefix') : longest ? 'trimLongestSuffix' : 'trimShortestSuffix';
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

export interface NormalisedText {
  text: string;
  /** Normalised offsets of rewritten `${` and the characters removed up to and including each. */
  editAt: number[];
  removedThrough: number[];
}

/**
 * `${ NAME }`, `${ NAME}` and `${NAME }` lose their whitespace, wherever they are (even after
 * `$$`), before parsing.
 */
export function normaliseLegacySpacing(text: string): NormalisedText {
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

export function originalOffset(normalised: NormalisedText, offset: number): number {
  let shift = 0;
  for (let k = 0; k < normalised.editAt.length && normalised.editAt[k] < offset; k++) shift = normalised.removedThrough[k];
  return offset + shift;
}
