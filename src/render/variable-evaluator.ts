/**
 * The evaluator of drone/envsubst v2 (template.go and funcs.go at 179042472c46): a parse tree
 * and a variable lookup to the substituted text, over UTF-8 byte strings as Go evaluates it.
 * Part of render/variables.ts.
 */
import { compareStrings } from '../core/diagnostics.js';
import type { VariableLookup, VariableValue } from './types.js';
import type { Piece, Reference } from './variable-parser.js';
import { bytesOfRunes, decodeRune, encodeRune, matchedPrefixLength, runesOf, trimSuffix } from './variable-glob.js';

/**
 * Called for each top-level reference whose result carries a secret (`${#V}` does not): returns
 * the text to put in its place. `reference` is its source text, `variables` the secret names.
 */
export type TaintMarker = (mark: { result: string; variables: string[]; reference: string }) => string;

export class EvaluationFailure extends Error {
  constructor(
    readonly problem: string,
    readonly start: number,
  ) {
    super(problem);
  }
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

export class Evaluator {
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
    for (let i = 0; i < pieces.length;) {
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
    const variables = [...used]
      .filter((name) => this.values.get(name)?.fromSecret && !(ref.operation === 'length' && name === ref.name))
      .sort(compareStrings);
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
    for (let i = 0; i < bytes.length;) {
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
