/**
 * Fast path of the artifact parser: one YAML document (a chunk of the artifact) straight to
 * plain JSON values, for the block-style subset that released provider artifacts use.
 *
 * It accepts only input whose meaning it is certain of, and reads it exactly as the full
 * parser (library-parse.ts) does. Anything else — anchors, aliases, tags, explicit keys,
 * multi-line flow collections, merge keys, tabs used as indentation, directives, null keys,
 * `.inf`/`.nan` values, syntax errors — makes it give up (`undefined`), and the caller hands
 * the chunk to the full parser, which produces the value or the positioned error.
 */
import { setOwnValue } from '../core/own-keys.js';
import { MERGE_KEY, isStringStart, plainKeyToJsonKey, resolvePlainScalar } from './scalar.js';

/** Thrown to abandon the fast path; preallocated so giving up costs no stack capture. */
const GIVE_UP: unique symbol = Symbol('fast-parse-gives-up');

const NL = 10;
const SPACE = 32;
const TAB = 9;
const HASH = 35;
const COLON = 58;
const DASH = 45;
const QUOTE = 39;
const DQUOTE = 34;
const BACKSLASH = 92;

/** Parses the document in `src[start, end)`; `undefined` when the full parser must decide. */
export function fastParseDocument(src: string, start: number, end: number): unknown {
  return parseWith(new FastParser(src, start, end));
}

let searched = 0;

/** Characters the parsers' searches for ':' and '#' have covered so far: what a test counts to see reading stay linear. */
export function searchedCharacters(): number {
  return searched;
}

function parseWith(parser: FastParser): unknown {
  try {
    return parser.document();
  } catch (e) {
    // Nesting deep enough to exhaust the stack is also left to the full parser to report.
    if (e === GIVE_UP || e instanceof RangeError) return undefined;
    throw e;
  }
}

function giveUp(): never {
  throw GIVE_UP;
}

/** Characters that cannot start a plain scalar (YAML c-indicator), except - ? : handled apart. */
function isIndicatorStart(c: number): boolean {
  switch (c) {
    case 44: // ,
    case 91: // [
    case 93: // ]
    case 123: // {
    case 125: // }
    case HASH:
    case 38: // &
    case 42: // *
    case 33: // !
    case 124: // |
    case 62: // >
    case QUOTE:
    case DQUOTE:
    case 37: // %
    case 64: // @
    case 96: // `
      return true;
  }
  return false;
}

function isFlowIndicator(c: number): boolean {
  return c === 44 || c === 91 || c === 93 || c === 123 || c === 125;
}

/** A plain scalar's JSON value; what has no exact JSON form here is left to the full parser, which reports it. */
function plainValue(text: string): unknown {
  // Most values are words that can only be strings.
  if (isStringStart(text)) return text;
  const value = resolvePlainScalar(text);
  // Non-finite floats and integers past 2^53 (held inexactly) are reported by the full parser.
  if (typeof value === 'number' && (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value)))) giveUp();
  return value;
}

function plainKey(text: string): string {
  // `<<` (a merge key) starts like a string; every other such key is its own text.
  if (text.charCodeAt(0) !== 60 /* < */ && isStringStart(text)) return text;
  if (text === MERGE_KEY) giveUp();
  const key = plainKeyToJsonKey(text);
  if (key === undefined) giveUp();
  return key;
}

const LEADING_SPACES = / */y;

/** Per content indentation n: the line break before the first line that ends a block scalar. */
const blockEndPatterns: RegExp[] = [];
function blockEndPattern(n: number): RegExp {
  return (blockEndPatterns[n] ??= new RegExp(`\\n(?! {${n}}| *(?:\\n|$))`, 'g'));
}

/**
 * Per content indentation n: a line break and up to n spaces after it. Anchored on '\n', so that
 * U+2028 and U+2029 are no line starts, as in the full parser (`/^ {0,n}/gm` took them for some).
 */
const blockIndentPatterns: RegExp[] = [];
function blockIndentPattern(n: number): RegExp {
  return (blockIndentPatterns[n] ??= new RegExp(`\\n {0,${n}}`, 'g'));
}

class FastParser {
  private pos: number;
  // Next ':' / '#' at or after a position, cached so that searching stays linear overall.
  private colonFrom = -1;
  private colonAt = -1;
  private hashFrom = -1;
  private hashAt = -1;
  // Likewise the next line break: a `key: value` line asks for it for the key and for the value.
  private lineFrom = -1;
  private lineAt = -1;
  // Result of the last plainLine scan.
  private scanLineEnd = 0;
  private scanComment = false;
  constructor(
    private readonly src: string,
    start: number,
    private readonly end: number,
  ) {
    this.pos = start;
  }

  private quotedText(raw: string, quote: number): string {
    return quote === QUOTE ? singleQuotedText(raw) : doubleQuotedText(raw);
  }

  document(): unknown {
    if (this.src.charCodeAt(this.pos) === 0xfeff) this.pos++;
    const indent = this.nextContentLine();
    if (indent < 0) return null;
    const p = this.pos + indent;
    // Non-mapping documents are left to the full parser, which reports them.
    const colon = this.keyEnd(p);
    if (colon < 0) giveUp();
    const value = this.blockMapping(indent, p, colon);
    if (this.nextContentLine() >= 0) giveUp();
    return value;
  }

  // ---- lines ---------------------------------------------------------------------------

  /** Index of the line break ending the line that contains `p`, or `end`. */
  private lineEnd(p: number): number {
    if (p < this.lineFrom || p > this.lineAt) {
      const i = this.src.indexOf('\n', p);
      this.lineFrom = p;
      this.lineAt = i < 0 || i > this.end ? this.end : i;
    }
    return this.lineAt;
  }

  /** Index of the first character at or after `p` that is not a space (at most `end`). */
  private spacesEnd(p: number): number {
    // Native: lines in the artifacts are indented 27 spaces on average.
    LEADING_SPACES.lastIndex = p;
    LEADING_SPACES.test(this.src);
    return Math.min(LEADING_SPACES.lastIndex, this.end);
  }

  /**
   * From a line start, skips blank and comment lines. Leaves `pos` at the start of the next
   * content line and returns its indentation, or -1 at the end of the document.
   */
  private nextContentLine(): number {
    const { src, end } = this;
    let p = this.pos;
    while (p < end) {
      // Indentation is counted natively: this runs once per line of the document.
      let i = this.spacesEnd(p);
      const indent = i - p;
      let c = i < end ? src.charCodeAt(i) : NL;
      if (c === TAB) {
        // Tabs may separate a comment or fill a blank line, never indent content.
        while (i < end && ((c = src.charCodeAt(i)) === TAB || c === SPACE)) i++;
        if (i < end && c !== NL && c !== HASH) giveUp();
        if (i >= end) c = NL;
      }
      if (c === NL) {
        p = i + 1;
        continue;
      }
      if (c === HASH) {
        p = this.lineEnd(i) + 1;
        continue;
      }
      // Document markers and directives belong to the full parser.
      if (indent === 0 && (c === 37 /* % */ || src.startsWith('---', p) || src.startsWith('...', p))) giveUp();
      this.pos = p;
      return indent;
    }
    this.pos = end;
    return -1;
  }

  /** Index of the first ':' at or after `p` (end when none). */
  private nextColon(p: number): number {
    if (p < this.colonFrom || p > this.colonAt) {
      this.colonFrom = p;
      this.colonAt = this.indexBeforeEnd(':', p);
    }
    return this.colonAt;
  }

  /** Index of the first '#' at or after `p` (end when none). */
  private nextHash(p: number): number {
    if (p < this.hashFrom || p > this.hashAt) {
      this.hashFrom = p;
      this.hashAt = this.indexBeforeEnd('#', p);
    }
    return this.hashAt;
  }

  /**
   * Index of `char` in [p, end), else end. The search stops at this document's end: `src` is the
   * whole file, and a search to its end from every document of a file without the character
   * made reading N documents take N² steps (100,000 one-line documents, issue 27).
   */
  private indexBeforeEnd(char: string, p: number): number {
    if (p >= this.end) return this.end;
    // (a slice is a view of `src` in V8, not a copy)
    const i = this.src.slice(p, this.end).indexOf(char);
    const found = i < 0 ? this.end : p + i;
    searched += found - p;
    return found;
  }

  /** Index of the first ': ' / ':\t' / ':' + line end in `[p, limit)`, or `limit`. */
  private valueIndicator(p: number, limit: number): number {
    const { src, end } = this;
    let i = this.nextColon(p);
    while (i < limit) {
      const next = i + 1 < end ? src.charCodeAt(i + 1) : NL;
      if (next === SPACE || next === NL || next === TAB) return i;
      i = this.nextColon(i + 1);
    }
    return limit;
  }

  /** Index of the first '#' preceded by white space in `[p, limit)` (a comment), or `limit`. */
  private commentStart(p: number, limit: number): number {
    let h = this.nextHash(p);
    while (h < limit) {
      const prev = this.src.charCodeAt(h - 1);
      if (prev === SPACE || prev === TAB) return h;
      h = this.nextHash(h + 1);
    }
    return limit;
  }

  /** Moves to the start of the line after the one containing `p`. */
  private toNextLine(p: number): void {
    this.pos = Math.min(this.lineEnd(p) + 1, this.end);
  }

  /** After a complete value on this line, only spaces and a comment may follow. */
  private finishLine(p: number): void {
    const { src, end } = this;
    let i = p;
    while (i < end && src.charCodeAt(i) === SPACE) i++;
    if (i < end) {
      const c = src.charCodeAt(i);
      if (c === HASH) {
        if (i === p) giveUp(); // a comment must be separated by white space
      } else if (c !== NL) giveUp();
    }
    this.toNextLine(i);
  }

  // ---- keys ----------------------------------------------------------------------------

  /**
   * If an implicit mapping key starts at `p`, the index of its `:` indicator; otherwise -1.
   * Keys are single-line plain or quoted scalars followed by `:` and white space.
   */
  private keyEnd(p: number): number {
    const { src, end } = this;
    const c = src.charCodeAt(p);
    let i: number;
    if (c === QUOTE || c === DQUOTE) {
      i = this.quotedEndOnLine(p);
      if (i < 0) return -1;
      while (i < end && src.charCodeAt(i) === SPACE) i++;
      if (src.charCodeAt(i) !== COLON) return -1;
    } else {
      if (isIndicatorStart(c)) return -1;
      const le = this.lineEnd(p);
      i = this.valueIndicator(p, le);
      if (i >= le || this.commentStart(p + 1, i) < i) return -1;
      if (i === p) return -1;
      // `- x: y`, `? x` and `: x` are not plain keys; `-:` and the like are too odd to guess.
      if (c === DASH || c === 63 /* ? */ || c === COLON) {
        const next = src.charCodeAt(p + 1);
        if (next === SPACE || next === TAB) return -1;
        if (next === COLON) giveUp();
      }
    }
    const after = i + 1 < end ? src.charCodeAt(i + 1) : NL;
    if (after === TAB) giveUp();
    if (after !== SPACE && after !== NL) return -1;
    // Implicit keys are limited to 1024 characters.
    if (i - p > 1024) giveUp();
    return i;
  }

  /** The JSON key text of the key starting at `p` whose `:` is at `colon`. */
  private keyAt(p: number, colon: number): string {
    const c = this.src.charCodeAt(p);
    if (c === QUOTE || c === DQUOTE) return this.quotedOnLine(p);
    let e = colon;
    while (e > p && (this.src.charCodeAt(e - 1) === SPACE || this.src.charCodeAt(e - 1) === TAB)) e--;
    return plainKey(this.src.slice(p, e));
  }

  // ---- collections ---------------------------------------------------------------------

  /** A block mapping whose keys sit at column `indent`; the first key starts at `p`, its `:` is at `colon`. */
  private blockMapping(indent: number, p: number, colon: number): Record<string, unknown> {
    const obj: Record<string, unknown> = {};
    for (;;) {
      const key = this.keyAt(p, colon);
      this.pos = colon + 1;
      const value = this.mappingValue(indent);
      // The store inline (no call) for every key but __proto__: one per line of the artifacts.
      if (key !== '__proto__') obj[key] = value;
      else setOwnValue(obj, key, value);
      const next = this.nextContentLine();
      if (next < indent) return obj;
      if (next > indent) giveUp();
      p = this.pos + indent;
      colon = this.keyEnd(p);
      if (colon < 0) giveUp();
    }
  }

  /** The value after `key:`; `pos` is just after the colon. */
  private mappingValue(indent: number): unknown {
    const { src, end } = this;
    let i = this.pos;
    while (i < end && src.charCodeAt(i) === SPACE) i++;
    const c = i < end ? src.charCodeAt(i) : NL;
    if (c === TAB) giveUp();
    if (c === NL || c === HASH) {
      this.toNextLine(i);
      return this.valueOnNextLines(indent, true);
    }
    return this.inlineScalarOrFlow(i, indent);
  }

  /**
   * A node that starts on a later line (after `key:` or a bare `-`): anything indented deeper
   * than the parent, or — for a mapping value — a sequence at the parent's own column.
   */
  private valueOnNextLines(parentIndent: number, sequenceMayShareColumn: boolean): unknown {
    const indent = this.nextContentLine();
    if (indent < 0) return null;
    const p = this.pos + indent;
    if (indent > parentIndent) return this.blockNode(p, indent, parentIndent);
    if (indent === parentIndent && sequenceMayShareColumn && this.isSequenceEntry(p)) return this.blockSequence(indent, p);
    return null;
  }

  private isSequenceEntry(p: number): boolean {
    if (this.src.charCodeAt(p) !== DASH) return false;
    const next = p + 1 < this.end ? this.src.charCodeAt(p + 1) : NL;
    if (next === TAB) giveUp();
    return next === SPACE || next === NL;
  }

  /** A node starting at `p` (column `indent`): sequence, mapping, or a scalar. */
  private blockNode(p: number, indent: number, parentIndent: number): unknown {
    if (this.isSequenceEntry(p)) return this.blockSequence(indent, p);
    const colon = this.keyEnd(p);
    if (colon >= 0) return this.blockMapping(indent, p, colon);
    const c = this.src.charCodeAt(p);
    if (c === 124 || c === 62) giveUp(); // a block scalar on its own line: rare, leave it
    return this.inlineScalarOrFlow(p, parentIndent);
  }

  /** A block sequence whose `-` indicators sit at column `indent`; the first is at `p`. */
  private blockSequence(indent: number, p: number): unknown[] {
    const { src, end } = this;
    const items: unknown[] = [];
    for (;;) {
      let i = p + 1;
      while (i < end && src.charCodeAt(i) === SPACE) i++;
      const c = i < end ? src.charCodeAt(i) : NL;
      if (c === TAB) giveUp();
      if (c === NL || c === HASH) {
        if (c === HASH && i === p + 1) giveUp();
        this.toNextLine(i);
        items.push(this.valueOnNextLines(indent, false));
      } else {
        items.push(this.compactNode(i, indent + (i - p), indent));
      }
      const next = this.nextContentLine();
      if (next < indent) return items;
      if (next > indent) giveUp();
      p = this.pos + indent;
      if (!this.isSequenceEntry(p)) return items;
    }
  }

  /** The content of `- ` on the same line, at column `column`. */
  private compactNode(p: number, column: number, seqIndent: number): unknown {
    if (this.isSequenceEntry(p)) return this.blockSequence(column, p);
    const colon = this.keyEnd(p);
    if (colon >= 0) return this.blockMapping(column, p, colon);
    return this.inlineScalarOrFlow(p, seqIndent);
  }

  // ---- scalars -------------------------------------------------------------------------

  /** A scalar or flow collection starting at `p`, inside a parent collection at `parentIndent`. */
  private inlineScalarOrFlow(p: number, parentIndent: number): unknown {
    const c = this.src.charCodeAt(p);
    switch (c) {
      case QUOTE:
      case DQUOTE:
        return this.quotedValue(p, parentIndent);
      case 124: // |
      case 62: // >
        return this.blockScalar(p, parentIndent);
      case 91: // [
      case 123: // {
        return this.flowValue(p);
    }
    if (isIndicatorStart(c)) giveUp();
    if (c === DASH || c === 63 /* ? */ || c === COLON) {
      const next = p + 1 < this.end ? this.src.charCodeAt(p + 1) : NL;
      if (next === SPACE || next === TAB || next === NL) giveUp();
    }
    return this.plainMultiline(p, parentIndent);
  }

  /**
   * Scans one line of a plain scalar in block context from `p`: returns the end of its text
   * (trailing white space excluded), sets `scanLineEnd` and `scanComment` (a comment ends the
   * line); gives up on `: `, which would make a mapping where a scalar must be.
   */
  private plainLine(p: number): number {
    const { src } = this;
    const le = this.lineEnd(p);
    // Usually the next '#' and ':' are on later lines: decided from the caches without a scan.
    const comment = this.nextHash(p + 1) < le ? this.commentStart(p + 1, le) : le;
    if (this.nextColon(p) < comment && this.valueIndicator(p, comment) < comment) giveUp();
    let textEnd = comment;
    while (textEnd > p && (src.charCodeAt(textEnd - 1) === SPACE || src.charCodeAt(textEnd - 1) === TAB)) textEnd--;
    this.scanLineEnd = le;
    this.scanComment = comment < le;
    return textEnd;
  }

  /** A plain scalar, folded over continuation lines indented deeper than `parentIndent`. */
  private plainMultiline(p: number, parentIndent: number): unknown {
    const { src, end } = this;
    let text = src.slice(p, this.plainLine(p));
    let next = this.scanLineEnd + 1;
    this.pos = Math.min(next, end);
    if (this.scanComment) return plainValue(text);
    let newlines = 0;
    while (next < end) {
      const i = this.spacesEnd(next);
      if (i >= end) break;
      const c = src.charCodeAt(i);
      if (c === NL) {
        newlines++;
        next = i + 1;
        continue;
      }
      if (c === TAB) giveUp();
      if (i - next <= parentIndent || c === HASH) break;
      const textEnd = this.plainLine(i);
      text += (newlines === 0 ? ' ' : '\n'.repeat(newlines)) + src.slice(i, textEnd);
      newlines = 0;
      next = this.scanLineEnd + 1;
      this.pos = Math.min(next, end);
      if (this.scanComment) break;
    }
    return plainValue(text);
  }

  /** End (index after the closing quote) of a quoted scalar that closes on its own line, else -1. */
  private quotedEndOnLine(p: number): number {
    const { src, end } = this;
    const q = src.charCodeAt(p);
    for (let i = p + 1; i < end; i++) {
      const ch = src.charCodeAt(i);
      if (ch === NL) return -1;
      if (q === DQUOTE && ch === BACKSLASH) i++;
      else if (ch === q) {
        if (q === QUOTE && i + 1 < end && src.charCodeAt(i + 1) === QUOTE) i++;
        else return i + 1;
      }
    }
    return -1;
  }

  /** The value of a quoted scalar that closes on its own line (used for keys and flow items). */
  private quotedOnLine(p: number): string {
    const close = this.quotedEndOnLine(p);
    if (close < 0) giveUp();
    return this.quotedText(this.src.slice(p + 1, close - 1), this.src.charCodeAt(p));
  }

  /** A quoted value, possibly over several lines indented deeper than `parentIndent`. */
  private quotedValue(p: number, parentIndent: number): string {
    const { src, end } = this;
    const q = src.charCodeAt(p);
    let i = p + 1;
    let close = -1;
    for (; i < end; i++) {
      let ch = src.charCodeAt(i);
      if (q === DQUOTE && ch === BACKSLASH) {
        i++;
        if (i >= end || (ch = src.charCodeAt(i)) !== NL) continue;
      }
      if (ch === NL) {
        // Continuation lines must be indented past the parent; blank lines are free.
        const j = this.spacesEnd(i + 1);
        const c = j < end ? src.charCodeAt(j) : NL;
        if (c === TAB) giveUp();
        if (c !== NL && j - (i + 1) <= parentIndent) giveUp();
        i = j - 1;
      } else if (ch === q) {
        if (q === QUOTE && i + 1 < end && src.charCodeAt(i + 1) === QUOTE) i++;
        else {
          close = i;
          break;
        }
      }
    }
    if (close < 0) giveUp();
    const value = this.quotedText(src.slice(p + 1, close), q);
    this.finishLine(close + 1);
    return value;
  }

  /**
   * A `|` or `>` block scalar whose header starts at `p`; content is indented deeper than
   * `parentIndent`, with the indentation taken from the first non-empty line.
   */
  private blockScalar(p: number, parentIndent: number): string {
    const { src, end } = this;
    const literal = src.charCodeAt(p) === 124;
    let chomp: 'clip' | 'strip' | 'keep' = 'clip';
    let i = p + 1;
    const h = src.charCodeAt(i);
    if (h === DASH) {
      chomp = 'strip';
      i++;
    } else if (h === 43 /* + */) {
      chomp = 'keep';
      i++;
    }
    const explicit = src.charCodeAt(i);
    if (explicit >= 48 && explicit <= 57) giveUp(); // explicit indentation indicators are rare
    this.finishLine(i);
    const bodyStart = this.pos;

    // The first non-empty line sets the content indentation.
    let contentIndent = -1;
    let leadingBlankMax = 0;
    let ls = bodyStart;
    while (ls < end) {
      const j = this.spacesEnd(ls);
      const c = j < end ? src.charCodeAt(j) : NL;
      if (c !== NL) {
        if (c === TAB || j - ls <= parentIndent) giveUp(); // empty scalar or tab indentation
        if (leadingBlankMax > j - ls) giveUp(); // the library reports this
        contentIndent = j - ls;
        break;
      }
      if (j - ls > leadingBlankMax) leadingBlankMax = j - ls;
      ls = j + 1;
    }
    if (contentIndent < 0) giveUp();
    // The scalar ends before the first non-empty line indented less than its content.
    const pattern = blockEndPattern(contentIndent);
    pattern.lastIndex = ls;
    const m = pattern.exec(src);
    let bodyEnd = end;
    if (m !== null && m.index + 1 < end) {
      bodyEnd = m.index + 1;
      let j = bodyEnd;
      while (src.charCodeAt(j) === SPACE) j++;
      if (src.charCodeAt(j) === TAB) giveUp();
    }
    this.pos = bodyEnd;
    const body = src.slice(bodyStart, bodyEnd);
    const atEofWithoutBreak = bodyEnd === end && src.charCodeAt(end - 1) !== NL;
    // There go-yaml and the library disagree on the final line break.
    return literal ? literalText(body, contentIndent, chomp) : foldedText(body, contentIndent, chomp, atEofWithoutBreak);
  }

  // ---- flow collections (single line only) -------------------------------------------------

  private flowValue(p: number): unknown {
    const [value, after] = this.flowNode(p);
    this.finishLine(after);
    return value;
  }

  /** A flow node at `p` that must end on this line; returns the value and the index after it. */
  private flowNode(p: number): [unknown, number] {
    const { src } = this;
    const c = src.charCodeAt(p);
    if (c === 91 /* [ */) {
      const items: unknown[] = [];
      let i = this.skipInlineSpaces(p + 1);
      if (src.charCodeAt(i) === 93) return [items, i + 1];
      for (;;) {
        const [item, after] = this.flowNode(i);
        items.push(item);
        i = this.skipInlineSpaces(after);
        const d = src.charCodeAt(i);
        if (d === 93 /* ] */) return [items, i + 1];
        if (d !== 44 /* , */) giveUp();
        i = this.skipInlineSpaces(i + 1);
        if (src.charCodeAt(i) === 93) giveUp(); // trailing comma: leave to the library
      }
    }
    if (c === 123 /* { */) {
      const obj: Record<string, unknown> = {};
      let i = this.skipInlineSpaces(p + 1);
      if (src.charCodeAt(i) === 125) return [obj, i + 1];
      for (;;) {
        const k = src.charCodeAt(i);
        let key: string;
        let afterKey: number;
        if (k === QUOTE || k === DQUOTE) {
          afterKey = this.quotedEndOnLine(i);
          if (afterKey < 0) giveUp();
          key = this.quotedOnLine(i);
          afterKey = this.skipInlineSpaces(afterKey);
          if (src.charCodeAt(afterKey) !== COLON) giveUp();
        } else {
          const keyEnd = this.flowPlainEnd(i);
          afterKey = this.skipInlineSpaces(keyEnd);
          if (src.charCodeAt(afterKey) !== COLON) giveUp();
          key = plainKey(src.slice(i, keyEnd));
        }
        const sep = src.charCodeAt(afterKey + 1);
        if (sep !== SPACE) giveUp();
        const [value, after] = this.flowNode(this.skipInlineSpaces(afterKey + 1));
        // A duplicate key overwrites, as go-yaml v2 does when decoding into a map.
        setOwnValue(obj, key, value);
        i = this.skipInlineSpaces(after);
        const d = src.charCodeAt(i);
        if (d === 125 /* } */) return [obj, i + 1];
        if (d !== 44) giveUp();
        i = this.skipInlineSpaces(i + 1);
        if (src.charCodeAt(i) === 125) giveUp();
      }
    }
    if (c === QUOTE || c === DQUOTE) {
      const close = this.quotedEndOnLine(p);
      if (close < 0) giveUp();
      const value = this.quotedOnLine(p);
      const after = this.skipInlineSpaces(close);
      if (src.charCodeAt(after) === COLON) giveUp(); // an implicit pair inside a flow sequence
      return [value, close];
    }
    const e = this.flowPlainEnd(p);
    if (src.charCodeAt(this.skipInlineSpaces(e)) === COLON) giveUp();
    return [plainValue(src.slice(p, e)), e];
  }

  /** End of a plain scalar in flow context (trailing spaces excluded). */
  private flowPlainEnd(p: number): number {
    const { src, end } = this;
    const c = src.charCodeAt(p);
    if (isIndicatorStart(c)) giveUp();
    if (c === DASH || c === 63 || c === COLON) {
      const next = src.charCodeAt(p + 1);
      if (next === SPACE || next === TAB || next === NL || isFlowIndicator(next)) giveUp();
    }
    let i = p;
    for (; i < end; i++) {
      const ch = src.charCodeAt(i);
      if (ch === NL) giveUp(); // multi-line flow: leave it
      if (isFlowIndicator(ch)) break;
      if (ch === COLON) {
        const next = i + 1 < end ? src.charCodeAt(i + 1) : NL;
        if (next === SPACE || next === TAB || next === NL) break;
        if (isFlowIndicator(next)) giveUp();
      } else if (ch === HASH) {
        const prev = src.charCodeAt(i - 1);
        if (prev === SPACE || prev === TAB) giveUp();
      } else if (ch === TAB) giveUp();
    }
    if (i >= end) giveUp();
    let e = i;
    while (e > p && src.charCodeAt(e - 1) === SPACE) e--;
    if (e === p) giveUp();
    return e;
  }

  private skipInlineSpaces(p: number): number {
    let i = p;
    while (i < this.end && this.src.charCodeAt(i) === SPACE) i++;
    if (i < this.end && this.src.charCodeAt(i) === TAB) giveUp();
    return i;
  }
}

// ---- scalar text ---------------------------------------------------------------------------

/** Folds the line breaks of a quoted or plain scalar's raw text (YAML flow folding). */
function foldLines(raw: string): string {
  if (raw.indexOf('\n') < 0) return raw;
  const lines = raw.split('\n');
  let out = lines[0].replace(/[ \t]+$/, '');
  let breaks = 0;
  for (let k = 1; k < lines.length; k++) {
    const last = k === lines.length - 1;
    const line = last ? lines[k].replace(/^[ \t]+/, '') : lines[k].replace(/^[ \t]+|[ \t]+$/g, '');
    if (line === '' && !last) {
      breaks++;
      continue;
    }
    out += (breaks === 0 ? ' ' : '\n'.repeat(breaks)) + line;
    breaks = 0;
  }
  return out;
}

function singleQuotedText(raw: string): string {
  const folded = foldLines(raw);
  return folded.indexOf("''") < 0 ? folded : folded.replace(/''/g, "'");
}

const ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  '\t': '\t',
};

/** The value of a double-quoted scalar's raw text: escapes, escaped and folded line breaks. */
function doubleQuotedText(raw: string): string {
  if (raw.indexOf('\\') < 0 && raw.indexOf('\n') < 0) return raw;
  let out = '';
  const n = raw.length;
  for (let i = 0; i < n; i++) {
    const ch = raw[i];
    if (ch === '\n') {
      // A line break folds to a space; each blank line after it is one newline.
      let breaks = 0;
      let j = i + 1;
      for (; j < n; j++) {
        const c = raw[j];
        if (c === '\n') breaks++;
        else if (c !== ' ' && c !== '\t') break;
      }
      out += breaks === 0 ? ' ' : '\n'.repeat(breaks);
      i = j - 1;
    } else if (ch === '\\') {
      const next = raw[++i];
      if (next === '\n') {
        // An escaped line break joins the lines without a space.
        while (i + 1 < n && (raw[i + 1] === ' ' || raw[i + 1] === '\t')) i++;
      } else if (next === 'x' || next === 'u' || next === 'U') {
        const len = next === 'x' ? 2 : next === 'u' ? 4 : 8;
        const hex = raw.slice(i + 1, i + 1 + len);
        if (hex.length !== len || !/^[0-9a-fA-F]+$/.test(hex)) giveUp();
        const code = parseInt(hex, 16);
        if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) giveUp();
        out += String.fromCodePoint(code);
        i += len;
      } else {
        const e = next === undefined ? undefined : ESCAPES[next];
        if (e === undefined) giveUp();
        out += e;
      }
    } else if (ch === ' ' || ch === '\t') {
      // White space before a line break is dropped.
      let j = i;
      while (j + 1 < n && (raw[j + 1] === ' ' || raw[j + 1] === '\t')) j++;
      if (j + 1 < n && raw[j + 1] === '\n') i = j;
      else {
        out += raw.slice(i, j + 1);
        i = j;
      }
    } else {
      out += ch;
    }
  }
  return out;
}

/**
 * The value of a literal block scalar body: each line without its indentation, then chomping.
 * A last content line without a line break (end of input) gets no final newline, as go-yaml
 * (libyaml) reads it.
 */
function literalText(body: string, contentIndent: number, chomp: 'clip' | 'strip' | 'keep'): string {
  // Empty lines keep nothing; lines indented past the content keep their extra spaces.
  let first = 0;
  while (first < contentIndent && body.charCodeAt(first) === SPACE) first++;
  const text = body.slice(first).replace(blockIndentPattern(contentIndent), '\n');
  if (chomp === 'keep') return text;
  let coreEnd = text.length;
  while (coreEnd > 0 && text.charCodeAt(coreEnd - 1) === NL) coreEnd--;
  if (chomp === 'strip') return text.slice(0, coreEnd);
  // Clip keeps the first of the final line breaks (usually the text as it is).
  return coreEnd < text.length ? text.slice(0, coreEnd + 1) : text;
}

/**
 * The value of a folded block scalar body (the lines after the header). `endsAtEofWithoutBreak`
 * says the body's last line has no line break: go-yaml then adds no final newline for it.
 */
function foldedText(body: string, contentIndent: number, chomp: 'clip' | 'strip' | 'keep', endsAtEofWithoutBreak: boolean): string {
  // Lines as [leading spaces, rest]; a body ending in '\n' has a final empty line.
  const lines = body.split('\n');
  const spaces: number[] = new Array(lines.length);
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k];
    let s = 0;
    while (s < line.length && line.charCodeAt(s) === SPACE) s++;
    spaces[k] = s;
  }
  const isEmpty = (k: number) => spaces[k] === lines[k].length;
  // Content runs to the last non-empty line or the last empty line indented past the content.
  let contentEnd = lines.length;
  while (contentEnd > 0 && isEmpty(contentEnd - 1)) contentEnd--;
  for (let k = lines.length - 1; k >= contentEnd; k--) {
    if (spaces[k] > contentIndent) {
      contentEnd = k + 1;
      break;
    }
  }
  let contentStart = 0;
  while (contentStart < contentEnd && isEmpty(contentStart)) contentStart++;

  let value = '\n'.repeat(contentStart);
  let sep = '';
  let previousMoreIndented = false;
  for (let k = contentStart; k < contentEnd; k++) {
    const text = lines[k].slice(contentIndent);
    if (spaces[k] > contentIndent || lines[k].charCodeAt(spaces[k]) === TAB) {
      // More-indented lines keep their line breaks in a folded scalar.
      if (sep === ' ') sep = '\n';
      else if (!previousMoreIndented && sep === '\n') sep = '\n\n';
      value += sep + text;
      sep = '\n';
      previousMoreIndented = true;
    } else if (text === '') {
      if (sep === '\n') value += '\n';
      else sep = '\n';
    } else {
      value += sep + text;
      sep = ' ';
      previousMoreIndented = false;
    }
  }
  const lastLineIsContent = contentEnd === lines.length;
  if (chomp === 'strip') return value;
  if (chomp === 'keep') {
    for (let k = contentEnd; k < lines.length; k++) value += '\n';
    if (endsAtEofWithoutBreak && lastLineIsContent) return value;
    return value.endsWith('\n') ? value : value + '\n';
  }
  if (endsAtEofWithoutBreak && lastLineIsContent) return value;
  return value + '\n';
}
