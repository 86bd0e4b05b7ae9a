/**
 * Fast YAML emitter for plain JSON-like data (objects, arrays, strings, numbers, booleans,
 * null): one document, no `---`, 2-space indent, sequences not indented under their key
 * (`key:\n- a`), key order preserved, multi-line strings as literal blocks, no folding, no
 * anchors, final newline.
 *
 * Its output is byte-for-byte what `YAML.stringify(value, EMIT_LIBRARY_OPTIONS)` writes, apart
 * from these deliberate differences (each tested in test/yaml/emit.test.ts):
 * 1. A string that go-yaml (what Kubernetes tooling reads YAML with) or YAML 1.2 would read as
 *    a non-string is quoted even where the library's YAML 1.1 rules leave it plain: `0o17`,
 *    `0X1F`, `0B11`, `+0o17`, `0_x1F`, `+_1`, … ; and `<<`, which go-yaml (and the library
 *    itself, reading) takes for a merge key.
 * 2. A multi-line string whose literal block would end a line in white space (a line with
 *    trailing spaces or tabs, or a leading line break) is written double-quoted on one line,
 *    so no output line ever ends in white space.
 * 3. NEL (U+0085), LINE/PARAGRAPH SEPARATOR (U+2028/9), U+FFFE and U+FFFF are written as
 *    escapes in double quotes: libyaml treats the first three as line breaks and rejects the
 *    last two, so raw they would not read back.
 */

import { plainScalarIsNotString } from './scalar.js';

/** The `yaml` library options whose output this emitter reproduces (see the differences above). */
export const EMIT_LIBRARY_OPTIONS = {
  version: '1.1',
  lineWidth: 0,
  minContentWidth: 0,
  indent: 2,
  indentSeq: false,
  aliasDuplicateObjects: false,
  doubleQuotedMinMultiLineLength: Infinity,
} as const;

const STEP = '  ';
// Implicit keys longer than this become explicit (`? key`), as the library writes them.
const MAX_IMPLICIT_KEY = 1024;

// The document is built as a list of pieces joined once at the end. Returning a string from each
// node and concatenating it into its parent's made every level's intermediate strings garbage:
// emitting the corpus's objects spent about a third of its time in the garbage collector.
type Pieces = string[];

// Indentation by depth, so no node allocates its own indentation string.
const INDENTS: string[] = [''];
function indentAt(depth: number): string {
  while (INDENTS.length <= depth) INDENTS.push(INDENTS[INDENTS.length - 1] + STEP);
  return INDENTS[depth];
}

/** One YAML document for one value: 2-space indent, no anchors, no folding, final newline. */
export function emitYamlDocument(value: unknown): string {
  const out: Pieces = [];
  if (Array.isArray(value) || isObject(value)) writeNode(out, value, 0);
  else out.push(scalarString(value, '', true));
  out.push('\n');
  return out.join('');
}

function isNonEmptyArray(v: unknown): v is unknown[] {
  return Array.isArray(v) && v.length > 0;
}

function isObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null)
    throw new TypeError(`emitYamlDocument: unsupported object type ${proto?.constructor?.name ?? 'unknown'}`);
  return true;
}

function hasDefinedMember(obj: Record<string, unknown>): boolean {
  for (const key of Object.keys(obj)) if (obj[key] !== undefined) return true;
  return false;
}

/** A node whose lines after the first are indented `depth` steps. */
function writeNode(out: Pieces, value: unknown, depth: number): void {
  if (Array.isArray(value)) {
    if (value.length === 0) out.push('[]');
    else writeSequence(out, value, depth);
  } else if (isObject(value)) {
    if (hasDefinedMember(value)) writeMapping(out, value, depth);
    else out.push('{}');
  } else {
    out.push(scalarString(value, indentAt(depth)));
  }
}

function writeSequence(out: Pieces, items: unknown[], depth: number): void {
  const indent = indentAt(depth);
  for (let i = 0; i < items.length; i++) {
    if (i === 0) out.push('- ');
    else out.push('\n', indent, '- ');
    writeNode(out, items[i] === undefined ? null : items[i], depth + 1);
  }
}

/** A mapping with at least one defined member. */
function writeMapping(out: Pieces, obj: Record<string, unknown>, depth: number): void {
  const indent = indentAt(depth);
  let first = true;
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    if (value === undefined) continue; // as JSON does: undefined members are absent
    if (!first) out.push('\n', indent);
    first = false;
    writePair(out, key, value, depth);
  }
}

function writePair(out: Pieces, key: string, value: unknown, depth: number): void {
  const inner = indentAt(depth + 1);
  const k = stringString(key, inner, true, false);
  if (k.length > MAX_IMPLICIT_KEY) {
    out.push('? ', k, '\n', indentAt(depth), ': ');
    writeNode(out, value, depth + 1);
  } else if (isNonEmptyArray(value)) {
    out.push(k, ':\n', indentAt(depth));
    writeSequence(out, value, depth);
  } else if (isObject(value) && hasDefinedMember(value)) {
    out.push(k, ':\n', inner);
    writeMapping(out, value, depth + 1);
  } else {
    out.push(k, ': ');
    writeNode(out, value, depth + 1);
  }
}

function scalarString(value: unknown, indent: string, atRoot = false): string {
  switch (typeof value) {
    case 'string':
      return stringString(value, indent, false, atRoot);
    case 'number':
      if (!Number.isFinite(value)) return Number.isNaN(value) ? '.nan' : value < 0 ? '-.inf' : '.inf';
      return Object.is(value, -0) ? '-0' : JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      break;
    case 'undefined':
      if (!atRoot) return 'null';
      break;
  }
  throw new TypeError(`emitYamlDocument: unsupported value of type ${typeof value}`);
}

// ---- strings -----------------------------------------------------------------------------

// Characters that only a double-quoted string can carry, with lone surrogates (not well formed).
// Not one /u pattern with the surrogate range: in unicode mode the scan of every long string cost
// about three times as much (~10 ms of a cold render of the corpus).
const NEEDS_DOUBLE_QUOTES = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufffe\uffff]/;
function needsDoubleQuotes(s: string): boolean {
  // String.prototype.isWellFormed: ES2024, in every supported Node; not yet in this lib's typings
  return !(s as string & { isWellFormed(): boolean }).isWellFormed() || NEEDS_DOUBLE_QUOTES.test(s);
}
// Shapes a plain scalar cannot take: indicator first, `: ` or ` #` inside, edge white space.
const PLAIN_UNSAFE = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;

// Lines a YAML 1.1 reader would take for a document marker or directive.
const DOCUMENT_MARKER = /^(%|---|\.\.\.)/m;
// What the library's YAML 1.1 schema would read as null, bool, int, float, merge key or timestamp
// (its tag tests, yaml/dist/schema/yaml-1.1/*.js).
export const YAML11_NON_STRING = new RegExp(
  [
    '^(?:~|[Nn]ull|NULL)?$',
    '^(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$',
    '^(?:N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$',
    '^[-+]?0b[0-1_]+$',
    '^[-+]?0[0-7_]+$',
    '^[-+]?[0-9][0-9_]*$',
    '^[-+]?0x[0-9a-fA-F_]+$',
    '^(?:[-+]?\\.(?:inf|Inf|INF)|\\.nan|\\.NaN|\\.NAN)$',
    '^[-+]?(?:[0-9][0-9_]*)?(?:\\.[0-9_]*)?[eE][-+]?[0-9]+$',
    '^[-+]?(?:[0-9][0-9_]*)?\\.[0-9_]*$',
    '^<<$',
    '^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+$',
    '^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\\.[0-9_]*$',
    '^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:t|T|[ \\t]+)[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\\.[0-9]+)?(?:[ \\t]*(?:Z|[-+][012]?[0-9](?::[0-9]{2})?))?)?$',
  ].join('|'),
);

/** True when a plain scalar with this text would not be read back as this string. */
export function plainStringIsAmbiguous(s: string): boolean {
  return YAML11_NON_STRING.test(s) || plainScalarIsNotString(s);
}

// Most strings of a render are short words (keys, types, names, enum values), and a word's form
// depends on its text alone: none of the shape tests below can match it, only the retyping one.
// Memoised per distinct word, the emitter ran the five tests once per word instead of once per
// occurrence (speed proven by the bench: a cold render emits ~3 MB; differential tests below
// and in test/yaml/emit.test.ts check the bytes).
const WORD = /^[A-Za-z0-9_][A-Za-z0-9_./-]{0,63}$/;
const wordForms = new Map<string, string>();
const WORD_FORMS_LIMIT = 65536;

/**
 * `text` in a string of its own: a word parsed from a text is a slice of it, which keeps the whole
 * text alive, so a memo that outlives the render (a fleet's clusters) keeps copies.
 */
function ownCopy(text: string): string {
  return ` ${text}`.slice(1);
}

function wordString(word: string): string {
  let form = wordForms.get(word);
  if (form === undefined) {
    const own = ownCopy(word);
    form = plainStringIsAmbiguous(own) ? doubleQuoted(own) : own;
    if (wordForms.size >= WORD_FORMS_LIMIT) wordForms.clear();
    wordForms.set(own, form);
  }
  return form;
}

// Long strings (CRD descriptions: most of a render's bytes) repeat: the same description at the
// same depth in every served version of a CRD, so 60% of the corpus's long-string bytes are
// repeats. Their form depends on the text and the indentation alone, so each distinct pair is
// formed once (speed proven by the bench; the differential tests check the bytes).
const LONG_STRING = 64;
const longForms = new Map<string, Map<string, string>>();
let longFormChars = 0;
// A long-lived process (a fleet, a test run) keeps at most this many characters of texts and forms.
const LONG_FORMS_LIMIT = 16 * 1024 * 1024;

function longString(value: string, indent: string): string {
  let forms = longForms.get(indent);
  if (forms === undefined) longForms.set(indent, (forms = new Map()));
  let form = forms.get(value);
  if (form === undefined) {
    form = formString(value, indent, false, false);
    if (longFormChars > LONG_FORMS_LIMIT) {
      for (const each of longForms.values()) each.clear();
      longFormChars = 0;
    }
    const own = ownCopy(value);
    forms.set(own, form === value ? own : form);
    longFormChars += value.length + form.length;
  }
  return form;
}

function stringString(value: string, indent: string, implicitKey: boolean, atRoot: boolean): string {
  // A word seen before is one lookup (most keys and values repeat); the pattern decides new ones.
  const seen = wordForms.get(value);
  if (seen !== undefined) return seen;
  if (value.length > LONG_STRING && !implicitKey && !atRoot) return longString(value, indent);
  if (WORD.test(value)) return wordString(value);
  return formString(value, indent, implicitKey, atRoot);
}

function formString(value: string, indent: string, implicitKey: boolean, atRoot: boolean): string {
  if (needsDoubleQuotes(value)) return doubleQuoted(value);
  // A multi-line value is a literal block whatever its shape (descriptions: most of the bytes).
  if (value.indexOf('\n') >= 0) return implicitKey ? quoted(value, indent, implicitKey) : literalBlock(value, indent, false);
  if (PLAIN_UNSAFE.test(value)) return quoted(value, indent, implicitKey);
  // The marker matters only at the document's root or as a top-level key: tested only there.
  const atDocumentRoot = indent === '' && atRoot;
  if ((atDocumentRoot || (implicitKey && indent === STEP)) && DOCUMENT_MARKER.test(value))
    return atDocumentRoot ? literalBlock(value, indent, true) : quoted(value, indent, implicitKey);
  if (plainStringIsAmbiguous(value)) return quoted(value, indent, implicitKey);
  return value;
}

/** Single quotes for a string with `"` but no `'`, double quotes otherwise. */
function quoted(value: string, indent: string, implicitKey: boolean): string {
  const hasDouble = value.indexOf('"') >= 0;
  const hasSingle = value.indexOf("'") >= 0;
  return hasDouble && !hasSingle ? singleQuoted(value, indent, implicitKey) : doubleQuoted(value);
}

function singleQuoted(value: string, indent: string, implicitKey: boolean): string {
  if ((implicitKey && value.indexOf('\n') >= 0) || /[ \t]\n|\n[ \t]/.test(value)) return doubleQuoted(value);
  const lineIndent = indent || (DOCUMENT_MARKER.test(value) ? STEP : '');
  return "'" + value.replace(/'/g, "''").replace(/\n+/g, `$&\n${lineIndent}`) + "'";
}

// JSON's \u00XX escapes that YAML spells shorter.
const SHORT_ESCAPES: Record<string, string> = { '0000': '\\0', '0007': '\\a', '000b': '\\v', '001b': '\\e' };
// Characters JSON leaves raw that a YAML 1.1 reader would misread (see difference 3).
const LINE_BREAK_LIKE = /[\u0085\u2028\u2029\ufffe\uffff]/;
const LINE_BREAK_LIKE_ALL = /[\u0085\u2028\u2029\ufffe\uffff]/g;
const LINE_BREAK_ESCAPES: Record<string, string> = {
  '\u0085': '\\N',
  '\u2028': '\\L',
  '\u2029': '\\P',
  '\ufffe': '\\uFFFE',
  '\uffff': '\\uFFFF',
};

/** A double-quoted scalar on one line: JSON escaping, then YAML's short escapes (the secrets gate searches this form too). */
export function doubleQuoted(value: string): string {
  const json = JSON.stringify(value);
  let out = '';
  let start = 0;
  for (let i = json.indexOf('\\'); i >= 0; i = json.indexOf('\\', i)) {
    const next = json[i + 1];
    if (next === 'u') {
      const code = json.substr(i + 2, 4);
      const short = SHORT_ESCAPES[code] ?? (code.startsWith('00') ? '\\x' + code.slice(2) : undefined);
      if (short !== undefined) {
        out += json.slice(start, i) + short;
        start = i + 6;
      }
      i += 6;
    } else if (next === 'n' && i > 0 && json[i - 1] === ' ') {
      // A space before an escaped newline is escaped too (as the library writes it).
      out += json.slice(start, i - 1) + '\\ ';
      start = i;
      i += 2;
    } else {
      i += 2;
    }
  }
  out = start === 0 ? json : out + json.slice(start);
  return LINE_BREAK_LIKE.test(out) ? out.replace(LINE_BREAK_LIKE_ALL, (c) => LINE_BREAK_ESCAPES[c]) : out;
}

// The two tests below were regular expressions (`\n[\t ]+$`, `[ \t](?:\n|$)`) that tried a match at
// every line break or every space of every description (~3 ms per pass over the corpus).
function isSpaceOrTab(code: number): boolean {
  return code === 32 || code === 9;
}

/** `\n[\t ]+$`: the last line is spaces and tabs only. */
function endsInBlankIndentedLine(value: string): boolean {
  let i = value.length - 1;
  while (i >= 0 && isSpaceOrTab(value.charCodeAt(i))) i--;
  return i < value.length - 1 && i >= 0 && value.charCodeAt(i) === 10;
}

/** `[ \t](?:\n|$)`: some line ends in a space or a tab. */
function hasLineEndingInWhiteSpace(value: string): boolean {
  if (isSpaceOrTab(value.charCodeAt(value.length - 1))) return true;
  for (let nl = value.indexOf('\n', 1); nl >= 0; nl = value.indexOf('\n', nl + 1)) {
    if (isSpaceOrTab(value.charCodeAt(nl - 1))) return true;
  }
  return false;
}

/** A multi-line string as a literal block (`|`, `|-`, `|+`, with an indentation indicator if needed). */
function literalBlock(value: string, indent: string, forceIndent: boolean): string {
  if (endsInBlankIndentedLine(value)) return quoted(value, indent, false);
  // Difference 2: a literal block would carry trailing white space; quote instead.
  if (value.charCodeAt(0) === 10 || hasLineEndingInWhiteSpace(value)) return doubleQuoted(value);
  const lineIndent = indent || (forceIndent || DOCUMENT_MARKER.test(value) ? STEP : '');
  // Chomping from the trailing line breaks.
  let endStart = value.length;
  while (endStart > 0) {
    const c = value.charCodeAt(endStart - 1);
    if (c !== 10 && c !== 9 && c !== 32) break;
    endStart--;
  }
  let end = value.slice(endStart);
  const endNl = end.indexOf('\n');
  const chomp = endNl === -1 ? '-' : value === end || endNl !== end.length - 1 ? '+' : '';
  let body = value;
  if (end) {
    body = value.slice(0, endStart);
    if (end.endsWith('\n')) end = end.slice(0, -1);
    end = end.replace(/(^|(?<!\n))\n+(?!\n|$)/g, `$&${lineIndent}`);
  }
  // An indentation indicator when the first line starts with a space.
  let startWithSpace = false;
  let startEnd = 0;
  let startNl = -1;
  for (; startEnd < body.length; startEnd++) {
    const c = body[startEnd];
    if (c === ' ') startWithSpace = true;
    else if (c === '\n') startNl = startEnd;
    else break;
  }
  let start = body.substring(0, startNl < startEnd ? startNl + 1 : startEnd);
  if (start) {
    body = body.substring(start.length);
    start = start.replace(/\n+/g, `$&${lineIndent}`);
  }
  const header = (startWithSpace ? (lineIndent ? '2' : '1') : '') + chomp;
  return `|${header}\n${lineIndent}${start}${body.replace(/\n+/g, `$&${lineIndent}`)}${end}`;
}
