/**
 * Helm's `--set` / `--set-string` syntax (helm pkg/strvals/parser.go), applied to a values map.
 *
 * Hand-written: Helm's grammar is its own (escapes, `{a,b}` lists, `a[0]` indexes, type
 * inference); the behaviour is pinned by tests built from helm's parser_test.go vectors.
 * One deliberate difference: an integer beyond JavaScript's exact range stays a string
 * (Helm keeps an int64), so no digit is ever changed.
 */
import { CapiGitopsError, type Diagnostic } from './diagnostics.js';
import { ownValue, setOwnValue } from './own-keys.js';
import { isValuesMap, mergeUserValues, type Values } from './values.js';

/** Helm's limits (strvals MaxIndex, MaxNestedNameLevel). */
const MAX_INDEX = 65536;
const MAX_NESTED_NAME_LEVEL = 30;
/**
 * Helm bounds dotted names (above) but not nested list indexes (`a[0][0]…`) nor a JSON value's
 * nesting, which Go's growing stack reads; Node's overflows past some thousands of levels. The
 * bound is the YAML depth bound's default (yaml/bounds.ts): no values file nests deeper either.
 */
const MAX_NESTING = 512;

/** Whether a JSON value nests deeper than MAX_NESTING (walked without recursion). */
function nestedTooDeep(value: unknown): boolean {
  let level: unknown[] = [value];
  for (let depth = 0; level.length > 0; depth++) {
    if (depth > MAX_NESTING) return true;
    level = level.flatMap((v) => (v !== null && typeof v === 'object' ? Object.values(v as object) : []));
  }
  return false;
}

export class SetSyntaxError extends Error {
  constructor(
    readonly expression: string,
    readonly reason: string,
  ) {
    // quoted up to a screen line: the reason, after it, is what to read (a 60 KB value pushed it off)
    super(`cannot parse --set ${JSON.stringify(expression.length > 160 ? `${expression.slice(0, 160)}…` : expression)}: ${reason}`);
    this.name = 'SetSyntaxError';
  }
}

class EndOfInput extends Error {}

class Reader {
  private readonly runes: string[];
  private position = 0;
  constructor(text: string) {
    this.runes = Array.from(text);
  }
  read(): string | undefined {
    return this.runes[this.position++];
  }
  unread(): void {
    this.position--;
  }
  get done(): boolean {
    return this.position >= this.runes.length;
  }
  /** Up to one of `stop`, with no escapes (literal_parser.go runesUntilLiteral). */
  until(stop: string): { text: string; last: string | undefined } {
    let text = '';
    for (let r = this.read(); r !== undefined; r = this.read()) {
      if (stop.includes(r)) return { text, last: r };
      text += r;
    }
    return { text, last: undefined };
  }
  /**
   * One JSON value (strvals ParseJSON: Go's json.Decoder reads one value, then blanks and a comma
   * are skipped); nothing but blanks up to a comma or the end is null.
   */
  json(): { value: unknown; error?: string } {
    const skipBlanks = () => {
      while (!this.done && /\s/u.test(this.runes[this.position]!)) this.position++;
    };
    skipBlanks();
    if (this.done || this.runes[this.position] === ',') {
      this.position++;
      return { value: null };
    }
    const start = this.position;
    const end = jsonValueEnd(this.runes, start);
    const text = this.runes.slice(start, end).join('');
    this.position = end;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { value: undefined, error: `${JSON.stringify(text)} is not a JSON value` };
    }
    if (nestedTooDeep(value)) return { value: undefined, error: `the JSON value is nested deeper than ${MAX_NESTING} levels` };
    skipBlanks();
    if (this.runes[this.position] === ',') this.position++;
    return { value };
  }
}

/** Where the JSON value starting at `start` ends: a string, a bracketed value, or a bare token. */
function jsonValueEnd(runes: readonly string[], start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < runes.length; i++) {
    const r = runes[i]!;
    if (inString) {
      if (r === '\\') i++;
      else if (r === '"') {
        inString = false;
        if (depth === 0) return i + 1;
      }
    } else if (r === '"') inString = true;
    else if (r === '{' || r === '[') depth++;
    else if (r === '}' || r === ']') {
      depth--;
      if (depth <= 0) return i + 1;
    } else if (depth === 0 && /[\s,]/u.test(r)) return i;
  }
  return runes.length;
}

/** Reads up to one of `stop`; a backslash takes the next character literally. */
function runesUntil(reader: Reader, stop: string): { text: string; last: string | undefined } {
  let text = '';
  for (;;) {
    const r = reader.read();
    if (r === undefined) return { text, last: undefined };
    if (stop.includes(r)) return { text, last: r };
    if (r === '\\') {
      const next = reader.read();
      if (next === undefined) return { text, last: undefined };
      text += next;
    } else {
      text += r;
    }
  }
}

/** Helm's typedVal: true/false/null (any case), 0, and base-10 integers not starting with 0. */
function inferHelmType(text: string, forceString: boolean): unknown {
  if (forceString) return text;
  const lower = text.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (lower === 'null') return null;
  if (text === '0') return 0;
  if (text.length > 0 && text[0] !== '0' && /^[+-]?[0-9]+$/.test(text)) {
    // `+ 0`: Go's int64 has no negative zero, so -0 is 0 (a JavaScript -0 would be written "-0")
    const n = Number(text) + 0;
    if (Number.isSafeInteger(n)) return n;
  }
  return text;
}

/**
 * `--set-json` (strvals ParseJSON: a value is JSON, an empty one null) and `--set-literal`
 * (literal_parser.go: the key ends at `=`, `[` or `.`, no escapes; the value is the rest of the
 * expression, a string as written).
 */
export type SetValueKind = 'json' | 'literal';

/** A `--set`, `--set-string`, `--set-json` or `--set-literal` expression, in command-line order. */
export interface SetExpression {
  expression: string;
  forceString: boolean;
  kind?: SetValueKind;
}

class SetParser {
  private readonly reader: Reader;
  private ended = false;
  /** The `[` nested in the list item being read (`a[0][0]`): listItem recurses once each. */
  private listNesting = 0;
  constructor(
    private readonly expression: string,
    private readonly forceString: boolean,
    private readonly kind?: SetValueKind,
  ) {
    this.reader = new Reader(expression);
  }

  /** A key up to one of `stop`; --set-literal keys take no `,` stop and no escapes. */
  private keyUntil(stop: string): { text: string; last: string | undefined } {
    return this.kind === 'literal' ? this.reader.until(stop.replace(',', '')) : runesUntil(this.reader, stop);
  }

  /** The value after `=` for --set-json and --set-literal; undefined for --set and --set-string. */
  private kindValue(): { value: unknown } | undefined {
    if (this.kind === 'literal') return { value: this.reader.until('').text };
    if (this.kind !== 'json') return undefined;
    const { value, error } = this.reader.json();
    if (error !== undefined) this.fail(error);
    return { value };
  }

  private fail(reason: string): never {
    throw new SetSyntaxError(this.expression, reason);
  }

  parseInto(data: Values): void {
    while (!this.reader.done) {
      try {
        this.key(data, 0);
      } catch (err) {
        if (err instanceof EndOfInput) return;
        throw err;
      }
    }
  }

  private typed(text: string): unknown {
    return inferHelmType(text, this.forceString);
  }

  private key(data: Values, level: number): void {
    const { text: k, last } = this.keyUntil('=[,.');
    if (last === undefined) {
      if (k.length === 0) throw new EndOfInput();
      this.fail(`key ${JSON.stringify(k)} has no value`);
    }
    if (last === '[') {
      const index = this.keyIndex();
      const existing = ownValue(data, k);
      if (existing !== undefined && !Array.isArray(existing)) this.fail(`${JSON.stringify(k)} is not a list`);
      set(data, k, this.listItem(Array.isArray(existing) ? [...existing] : [], index, level));
      if (this.ended) throw new EndOfInput();
      return;
    }
    if (last === '=') {
      const special = this.kindValue();
      if (special) {
        set(data, k, special.value);
        return;
      }
      const list = this.valueList();
      if (list !== undefined) {
        set(data, k, list);
        return;
      }
      set(data, k, this.typed(this.value()));
      return;
    }
    if (last === ',') {
      this.fail(`key ${JSON.stringify(k)} has no value (cannot end with ,)`);
    }
    // last === '.'
    if (level + 1 > MAX_NESTED_NAME_LEVEL)
      this.fail(`value name nested level is greater than maximum supported nested level of ${MAX_NESTED_NAME_LEVEL}`);
    const existing = ownValue(data, k);
    if (existing !== undefined && !isValuesMap(existing))
      this.fail(`${JSON.stringify(k)} is not a map, so ${JSON.stringify(k + '.')}… cannot set a key in it`);
    const inner: Values = isValuesMap(existing) ? existing : {};
    this.key(inner, level + 1);
    if (Object.keys(inner).length === 0) this.fail(`key map ${JSON.stringify(k)} has no value`);
    set(data, k, inner);
  }

  private keyIndex(): number {
    const { text, last } = this.keyUntil(']');
    if (last === undefined) this.fail('error parsing index: missing "]"');
    if (!/^[+-]?[0-9]+$/.test(text)) this.fail(`error parsing index: ${JSON.stringify(text)} is not an integer`);
    const index = Number(text);
    if (index < 0) this.fail(`negative ${index} index not allowed`);
    if (index > MAX_INDEX) this.fail(`index of ${index} is greater than maximum supported index of ${MAX_INDEX}`);
    return index;
  }

  private listItem(list: unknown[], index: number, level: number): unknown[] {
    const { text, last } = this.keyUntil('[.=');
    if (text.length > 0) this.fail(`unexpected data at end of array index: ${JSON.stringify(text)}`);
    if (last === undefined) {
      // `a[0]` with nothing after it: Helm keeps the list as it is and stops parsing
      this.ended = true;
      return list;
    }
    if (last === '=') {
      const special = this.kindValue();
      if (special) return setIndex(list, index, special.value);
      const values = this.valueList();
      return setIndex(list, index, values !== undefined ? values : this.typed(this.value()));
    }
    if (last === '[') {
      if (++this.listNesting > MAX_NESTING) this.fail(`the list indexes are nested deeper than ${MAX_NESTING} levels`);
      try {
        const next = this.keyIndex();
        const existing = list[index];
        if (existing !== undefined && existing !== null && !Array.isArray(existing)) this.fail(`item ${index} is not a list`);
        const nested = Array.isArray(existing) ? [...existing] : [];
        return setIndex(list, index, this.listItem(nested, next, level));
      } finally {
        this.listNesting--;
      }
    }
    // last === '.': an object inside the list; an item of another type is replaced
    const existing = list[index];
    const inner: Values = isValuesMap(existing) ? existing : {};
    this.key(inner, level);
    return setIndex(list, index, inner);
  }

  /** `{a,b}` at the start of a value: a list of typed values. Undefined when not a list. */
  private valueList(): unknown[] | undefined {
    const first = this.reader.read();
    if (first === undefined) return undefined;
    if (first !== '{') {
      this.reader.unread();
      return undefined;
    }
    const list: unknown[] = [];
    for (;;) {
      const { text, last } = runesUntil(this.reader, ',}');
      if (last === undefined) this.fail("list must terminate with '}'");
      list.push(this.typed(text));
      if (last === '}') {
        const after = this.reader.read();
        if (after !== undefined && after !== ',') this.reader.unread();
        return list;
      }
    }
  }

  private value(): string {
    return runesUntil(this.reader, ',').text;
  }
}

function set(data: Values, key: string, value: unknown): void {
  if (key.length === 0) return;
  // `--set __proto__.x=1` sets a key named __proto__, as Helm does (core/own-keys.ts).
  setOwnValue(data, key, value);
}

function setIndex(list: unknown[], index: number, value: unknown): unknown[] {
  while (list.length <= index) list.push(null);
  list[index] = value;
  return list;
}

/**
 * Applies one `--set` (or, with `forceString`, `--set-string`) expression to `values` in place,
 * as helm strvals.ParseInto does. Throws SetSyntaxError with Helm's reason.
 */
export function applySetExpression(values: Values, expression: string, forceString = false, kind?: SetValueKind): void {
  new SetParser(expression, forceString, kind).parseInto(values);
}

/** What to tell the user about a --set expression that does not parse. */
interface SetAdvice {
  expected: string;
  hint: string;
}

/** --set-json takes JSON where --set takes its own syntax: its advice is about JSON. */
const SET_JSON_ADVICE: SetAdvice = {
  expected: 'key=<JSON value> (a.b={"c":1}, list=[1,2], name="x"), or one JSON object',
  hint: `quote the JSON for the shell, e.g. --set-json 'resources={"limits":{"cpu":"1"}}'`,
};

/**
 * Helm's user values (pkg/cli/values/options.go MergeValues): the layers merged in order, then
 * every --set and --set-string applied; every expression that does not parse in one error.
 */
export function userValues(
  layers: readonly { values: Values }[],
  sets: readonly SetExpression[],
  advice: (expression: string) => SetAdvice,
): Values {
  let values = layers.reduce<Values>((acc, layer) => mergeUserValues(acc, layer.values), {});
  const problems: Diagnostic[] = [];
  for (const set of sets) {
    const flag = setFlag(set);
    try {
      const object = set.kind === 'json' ? jsonObjectForm(set.expression) : undefined;
      if (object) values = mergeUserValues(values, object);
      else applySetExpression(values, set.expression, set.forceString, set.kind);
    } catch (err) {
      if (!(err instanceof SetSyntaxError)) throw err;
      problems.push({
        message: err.message.replace(/^cannot parse --set /, `cannot parse ${flag} `),
        path: flag,
        ...(set.kind === 'json' ? SET_JSON_ADVICE : advice(set.expression)),
      });
    }
  }
  if (problems.length > 0) throw new CapiGitopsError(problems);
  return values;
}

/** The flag that gave the expression. */
export function setFlag(set: SetExpression): string {
  return set.kind ? `--set-${set.kind}` : set.forceString ? '--set-string' : '--set';
}

/** The values one expression sets on its own: which paths it wrote, so a problem with a value it gave is told at the flag. */
export function setExpressionValues(set: SetExpression): Values {
  const object = set.kind === 'json' ? jsonObjectForm(set.expression) : undefined;
  if (object) return object;
  const values: Values = {};
  applySetExpression(values, set.expression, set.forceString, set.kind);
  return values;
}

/**
 * `--set-json '{"a":{"b":1}}'`: a whole JSON object, merged like a values file (helm
 * pkg/cli/values/options.go MergeValues, from Helm 3.17); undefined for the `key=json` form.
 */
function jsonObjectForm(expression: string): Values | undefined {
  const trimmed = expression.trim();
  if (!trimmed.startsWith('{')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    throw new SetSyntaxError(expression, 'the value starts with { but is not a JSON object');
  }
  if (!isValuesMap(parsed)) throw new SetSyntaxError(expression, 'the value starts with { but is not a JSON object');
  if (nestedTooDeep(parsed)) throw new SetSyntaxError(expression, `the JSON object is nested deeper than ${MAX_NESTING} levels`);
  return parsed;
}
