/**
 * YAML 1.1 typing of plain (unquoted) scalars exactly as the Kubernetes toolchain does it:
 * sigs.k8s.io/yaml v1.6.0 → go.yaml.in/yaml/v2 v2.4.3 `resolve()` (resolve.go), with Go's
 * strconv doing the number parsing. That, not the YAML 1.1 spec, is what clusterctl and the
 * cluster-api-operator read (cluster-api util/yaml/yaml.go ToUnstructured → yaml.Unmarshal).
 *
 * Where go-yaml and the `yaml` package's 1.1 schema disagree, go-yaml wins:
 * - `0o17`, `0O17`, `0X1F`, `0B11`, `+0o17`, `0_x1F` are integers (Go's ParseInt, base 0,
 *   after every `_` is removed); the `yaml` package keeps them strings.
 * - sexagesimal `1:20` and a lone `.` stay strings; the `yaml` package reads 80 and NaN.
 * - timestamps (`2024-01-01`) stay strings: go-yaml v2 keeps them as strings in interface{}.
 * - `-0` is the integer 0; `1e400` (out of float64 range) is a string.
 */

/** What a plain scalar means: the JSON value plus, for map keys, the kind go-yaml decoded. */
export type PlainScalar =
  | { kind: 'null'; value: null }
  | { kind: 'bool'; value: boolean }
  | { kind: 'int'; value: number; exact: bigint }
  | { kind: 'float'; value: number }
  | { kind: 'str'; value: string };

// go-yaml v2 resolveMap: the words that are looked up before any number parsing.
const WORDS = new Map<string, PlainScalar>();
function addWords(result: PlainScalar, words: string[]): void {
  for (const w of words) WORDS.set(w, result);
}
addWords({ kind: 'bool', value: true }, ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']);
addWords({ kind: 'bool', value: false }, ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']);
addWords({ kind: 'null', value: null }, ['~', 'null', 'Null', 'NULL']);
addWords({ kind: 'float', value: NaN }, ['.nan', '.NaN', '.NAN']);
addWords({ kind: 'float', value: Infinity }, ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF']);
addWords({ kind: 'float', value: -Infinity }, ['-.inf', '-.Inf', '-.INF']);

const NULL_SCALAR: PlainScalar = { kind: 'null', value: null };

/**
 * go-yaml merges a plain `<<` key (decode.go isMerge); its value is still the string "<<".
 * Parsers refuse merge keys: without aliases they have no use, and merging is not supported.
 */
export const MERGE_KEY = '<<';

// go-yaml's yamlStyleFloat, applied after `_` removal.
const YAML_STYLE_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
// Go's ParseFloat on text starting with '.', where `_` may only sit between digits.
const DOT_FLOAT = /^\.[0-9]+(?:_[0-9]+)*(?:[eE][-+]?[0-9]+(?:_[0-9]+)*)?$/;

const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

/** Hint table of go-yaml's resolve(): which parse to try from the first character. */
function hintOf(code: number): 'sign' | 'digit' | 'word' | 'dot' | undefined {
  if (code >= 48 && code <= 57) return 'digit';
  switch (code) {
    case 43: // +
    case 45: // -
      return 'sign';
    case 46: // .
      return 'dot';
    case 121:
    case 89:
    case 110:
    case 78:
    case 116:
    case 84: // y Y n N t T
    case 102:
    case 70:
    case 111:
    case 79:
    case 126: // f F o O ~
      return 'word';
  }
  return undefined;
}

// 1 for a first character (below 128) with no hint: a plain scalar starting with it is always the
// string itself. Characters from 128 up have no hint either.
const STRING_START = new Uint8Array(128);
for (let code = 0; code < 128; code++) STRING_START[code] = hintOf(code) === undefined ? 1 : 0;

/**
 * True when a plain scalar starting with this (non-empty) text's first character is a string. Most
 * artifact scalars are words, so the parsers decide them with one table lookup.
 */
export function isStringStart(s: string): boolean {
  const c = s.charCodeAt(0);
  return c >= 128 || STRING_START[c] === 1;
}

/** The longest of WORDS: a longer scalar with a word's first letter (`type`, `name`, `object`) is a string. */
const LONGEST_WORD = Math.max(...[...WORDS.keys()].map((w) => w.length));

/** True for a (non-empty) text whose first letter is a word's: y, n, t, f, o, ~ in either case. */
function isWordStart(s: string): boolean {
  return hintOf(s.charCodeAt(0)) === 'word';
}

function digitValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 0x20;
  if (lower >= 97 && lower <= 122) return lower - 87;
  return 99;
}

/**
 * Go's strconv.ParseUint(s, 0, 64) magnitude: base from the prefix (0x, 0o, 0b, or a leading 0
 * for octal), digits in that base, no sign. Undefined when Go would fail (syntax or overflow).
 */
function goParseMagnitude(s: string, from: number): bigint | undefined {
  let i = from;
  const n = s.length;
  if (i >= n) return undefined;
  let base = 10;
  if (s.charCodeAt(i) === 48 /* 0 */ && n - i > 1) {
    const p = s.charCodeAt(i + 1) | 0x20;
    if (n - i >= 3 && p === 120 /* x */) {
      base = 16;
      i += 2;
    } else if (n - i >= 3 && p === 111 /* o */) {
      base = 8;
      i += 2;
    } else if (n - i >= 3 && p === 98 /* b */) {
      base = 2;
      i += 2;
    } else {
      base = 8;
      i += 1;
    }
  }
  // Small decimal numbers are the common case: avoid BigInt.
  if (base === 10 && n - i <= 15) {
    let v = 0;
    for (let j = i; j < n; j++) {
      const d = s.charCodeAt(j) - 48;
      if (d < 0 || d > 9) return undefined;
      v = v * 10 + d;
    }
    return BigInt(v);
  }
  let v = 0n;
  const b = BigInt(base);
  for (let j = i; j < n; j++) {
    const d = digitValue(s.charCodeAt(j));
    if (d >= base) return undefined;
    v = v * b + BigInt(d);
    if (v > UINT64_MAX) return undefined;
  }
  return v;
}

/** Go's ParseInt(s, 0, 64), then ParseUint(s, 0, 64) for the unsigned range, as go-yaml tries them. */
function goParseInteger(s: string): bigint | undefined {
  const c = s.charCodeAt(0);
  if (c === 43 || c === 45) {
    const mag = goParseMagnitude(s, 1);
    if (mag === undefined) return undefined;
    if (c === 45) return mag > INT64_MAX + 1n ? undefined : -mag;
    return mag > INT64_MAX ? undefined : mag;
  }
  return goParseMagnitude(s, 0); // ParseUint covers the rest of the uint64 range
}

/**
 * The typed meaning of a plain scalar as go-yaml v2 resolves it (resolve.go `resolve("", s)`).
 * Quoted and block scalars are always strings and must not be passed here.
 */
export function resolvePlainScalarTyped(s: string): PlainScalar {
  if (s.length === 0) return NULL_SCALAR;
  const hint = hintOf(s.charCodeAt(0));
  if (hint === undefined) return { kind: 'str', value: s };
  const word = WORDS.get(s);
  if (word !== undefined) return word;
  if (hint === 'word') return { kind: 'str', value: s };
  if (hint === 'dot') {
    if (DOT_FLOAT.test(s)) {
      const f = Number(s.replace(/_/g, ''));
      if (Number.isFinite(f)) return { kind: 'float', value: f };
    }
    return { kind: 'str', value: s };
  }
  const plain = s.indexOf('_') === -1 ? s : s.replace(/_/g, '');
  if (plain.length > 0) {
    const int = goParseInteger(plain);
    if (int !== undefined) return { kind: 'int', value: Number(int), exact: int };
    if (YAML_STYLE_FLOAT.test(plain)) {
      const f = Number(plain);
      if (Number.isFinite(f)) return { kind: 'float', value: f };
    }
  }
  return { kind: 'str', value: s };
}

/**
 * The JSON value of a plain scalar, typed the way the Kubernetes API machinery reads YAML
 * (go-yaml v2 via sigs.k8s.io/yaml): `yes`/`on`/`y` → true, `0644` → 420, `~` → null, … .
 */
export function resolvePlainScalar(s: string): null | boolean | number | string {
  // Most scalars start with a letter go-yaml never types: skip the typed result for them.
  if (s.length > 0 && isStringStart(s)) return s;
  // Many others start with a word's letter (`object`, `string`, `true`): only the words are typed.
  if (isWordStart(s)) {
    const word = s.length > LONGEST_WORD ? undefined : WORDS.get(s);
    return word === undefined ? s : word.value;
  }
  return resolvePlainScalarTyped(s).value;
}

/** True when a plain scalar with this text would not read back as this string. */
export function plainScalarIsNotString(s: string): boolean {
  if (s.length > 0 && isStringStart(s)) return false;
  return resolvePlainScalarTyped(s).kind !== 'str';
}

/** The JSON object key of a plain scalar key (see jsonKeyOf); undefined when it has none. */
export function plainKeyToJsonKey(s: string): string | undefined {
  if (s.length > 0 && isStringStart(s)) return s;
  if (isWordStart(s)) {
    // `type`, `name`, `format`: a key with a word's first letter is a string unless it is a word.
    const word = s.length > LONGEST_WORD ? undefined : WORDS.get(s);
    return word === undefined ? s : jsonKeyOf(word);
  }
  return jsonKeyOf(resolvePlainScalarTyped(s));
}

/**
 * The JSON object key sigs.k8s.io/yaml makes of a decoded YAML key (yaml.go
 * convertToJSONableObject): strings as is, ints in decimal, bools as "true"/"false", floats
 * with Go's FormatFloat(f, 'g', -1, 32). Null keys and uint64 keys have no JSON form.
 */
export function jsonKeyOf(key: PlainScalar): string | undefined {
  switch (key.kind) {
    case 'str':
      return key.value;
    case 'bool':
      return key.value ? 'true' : 'false';
    case 'int':
      return key.exact > INT64_MAX ? undefined : key.exact.toString();
    case 'float':
      return formatGoFloat32General(key.value);
    case 'null':
      return undefined;
  }
}

/** Go's strconv.FormatFloat(f, 'g', -1, 32) with go-yaml's spelling of the special values. */
export function formatGoFloat32General(f: number): string {
  if (Number.isNaN(f)) return '.nan';
  const x = Math.fround(f);
  if (x === Infinity) return '.inf';
  if (x === -Infinity) return '-.inf';
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  const abs = Math.abs(x);
  if (abs === 0) return sign + '0';
  // Shortest decimal that rounds back to the same float32 (Go's shortest formatting).
  let mantissa = '';
  let exponent = 0;
  for (let p = 1; p <= 9; p++) {
    const candidate = abs.toExponential(p - 1);
    if (Math.fround(Number(candidate)) === abs) {
      const [m, e] = candidate.split('e');
      mantissa = m.replace('.', '').replace(/0+$/, '') || '0';
      exponent = Number(e);
      break;
    }
  }
  // %e when the exponent is < -4 or >= 6 (Go uses precision 6 for the shortest form).
  if (exponent < -4 || exponent >= 6) {
    const frac = mantissa.length > 1 ? '.' + mantissa.slice(1) : '';
    const expAbs = Math.abs(exponent);
    return `${sign}${mantissa[0]}${frac}e${exponent < 0 ? '-' : '+'}${expAbs < 10 ? '0' + expAbs : expAbs}`;
  }
  const pointAt = exponent + 1; // digits before the decimal point
  if (pointAt <= 0) return `${sign}0.${'0'.repeat(-pointAt)}${mantissa}`;
  if (mantissa.length <= pointAt) return sign + mantissa + '0'.repeat(pointAt - mantissa.length);
  return `${sign}${mantissa.slice(0, pointAt)}.${mantissa.slice(pointAt)}`;
}
