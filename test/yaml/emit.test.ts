import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { CORPUS_CONFIGMAPS, CORPUS_REPOSITORY } from '../helpers/paths.js';
import { emitYamlDocument, EMIT_LIBRARY_OPTIONS, plainStringIsAmbiguous } from '../../src/yaml/emit.js';
import { parseArtifact } from '../../src/yaml/parse.js';
import { plainScalarIsNotString } from '../../src/yaml/scalar.js';
import { prng, YAML_FRAGMENTS } from '../helpers/generated-yaml.js';

// ---- the reference: the yaml package with the documented differences applied -----------------

const librarySchemaTags = (
  new YAML.Document(null, { version: '1.1' }).schema as unknown as { tags: { default?: unknown; tag: string; test?: RegExp }[] }
).tags.filter((t) => t.default && t.tag !== 'tag:yaml.org,2002:str' && t.test);
/** Would the yaml package's YAML 1.1 schema read this plain text as something else than a string? */
const libraryCallsNonString = (s: string) => librarySchemaTags.some((t) => t.test!.test(s));

/**
 * Difference 1: go-yaml/YAML 1.2 would not read it back as a string, and the library writes it
 * plain. `<<` too: the library writes the string as its merge tag, then reads it as a merge key.
 */
const goOnlyAmbiguous = (s: string) => (plainScalarIsNotString(s) && !libraryCallsNonString(s)) || s === '<<';
/** Difference 2: a literal block of this string would end a line in white space. */
const blockWouldTrail = (s: string) => s.includes('\n') && !/\n[\t ]+$/.test(s) && (s.startsWith('\n') || /[ \t](?:\n|$)/.test(s));
/** Difference 3: characters a YAML 1.1 reader takes for line breaks or refuses. */
const LINE_BREAK_LIKE = /[\u0085\u2028\u2029\ufffe\uffff]/;
const ESCAPES: Record<string, string> = { '\u0085': '\\N', '\u2028': '\\L', '\u2029': '\\P', '\ufffe': '\\uFFFE', '\uffff': '\\uFFFF' };

/** YAML.stringify(value, EMIT_LIBRARY_OPTIONS), with the three documented differences applied. */
function libraryEmit(value: unknown): string {
  // Without the merge tag the library treats the string "<<" as a string, which can be quoted.
  const doc = new YAML.Document(value, {
    ...EMIT_LIBRARY_OPTIONS,
    customTags: (tags) => tags.filter((t) => (t as { tag?: string }).tag !== 'tag:yaml.org,2002:merge'),
  });
  YAML.visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value !== 'string') return;
      if (goOnlyAmbiguous(node.value) || blockWouldTrail(node.value) || LINE_BREAK_LIKE.test(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString(EMIT_LIBRARY_OPTIONS).replace(/[\u0085\u2028\u2029\ufffe\uffff]/g, (c) => ESCAPES[c]);
}

/** Reading the output back under YAML 1.1, YAML 1.2 and our own (go-yaml) parser gives the input. */
function assertRoundTrip(value: unknown, out: string): void {
  assert.deepStrictEqual(YAML.parse(out, { version: '1.1' }), value, `YAML 1.1 read-back of ${JSON.stringify(out)}`);
  assert.deepStrictEqual(YAML.parse(out, { version: '1.2' }), value, `YAML 1.2 read-back of ${JSON.stringify(out)}`);
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
    // go-yaml reads -0 as the integer 0; JSON has no -0 either.
    const expected = JSON.parse(JSON.stringify(value));
    assert.deepStrictEqual(
      JSON.parse(JSON.stringify(parseArtifact(out, { source: 'out' })[0])),
      expected,
      `our read-back of ${JSON.stringify(out)}`,
    );
  }
}

function assertNoTrailingWhitespace(out: string): void {
  assert.ok(!/[ \t]$/m.test(out), `a line ends in white space: ${JSON.stringify(out)}`);
}

/** The emitter's output equals the reference, reads back exactly, and has no trailing white space. */
function check(value: unknown): string {
  const out = emitYamlDocument(value);
  assert.equal(out, libraryEmit(value));
  assertRoundTrip(value, out);
  assertNoTrailingWhitespace(out);
  return out;
}

// ---- unit cases ---------------------------------------------------------------------------------

test('mappings and sequences: 2-space indent, sequences not indented under their key, key order kept', () => {
  const out = check({ kind: 'Deployment', spec: { containers: [{ name: 'm', args: ['--a', '--b'] }], empty: {}, none: [] }, z: 1, a: 2 });
  assert.equal(
    out,
    'kind: Deployment\nspec:\n  containers:\n  - name: m\n    args:\n    - --a\n    - --b\n  empty: {}\n  none: []\nz: 1\na: 2\n',
  );
});

test('nested arrays of arrays, empty collections everywhere, null and booleans', () => {
  const out = check({ m: [[1, [2, []]], [{}], [[{ a: null }]]], t: true, f: false, n: null });
  assert.equal(out, 'm:\n- - 1\n  - - 2\n    - []\n- - {}\n- - - a: null\nt: true\nf: false\n"n": null\n');
  assert.equal(check({}), '{}\n');
  assert.equal(check([]), '[]\n');
  assert.equal(check([1, 'a']), '- 1\n- a\n');
});

test('strings YAML 1.1 or 1.2 would read as another type are quoted', () => {
  const ambiguous = [
    'on',
    'On',
    'ON',
    'off',
    'yes',
    'no',
    'y',
    'Y',
    'n',
    'N',
    'true',
    'False',
    'null',
    'Null',
    '~',
    '',
    '0644',
    '0o17',
    '1e3',
    '.5',
    '-.5',
    '2024-01-01',
    '2001-12-14t21:59:43.10-05:00',
    '1:20',
    '0x1f',
    '+1',
    '1_000',
    '12',
    '-0',
    '.inf',
    '.NaN',
    '<<',
    '0X1F',
    '0B11',
    '+0o17',
    '0_x1F',
    '+_1',
    '1.0',
  ];
  for (const s of ambiguous) {
    const out = check({ [s]: s });
    assert.ok(out.startsWith('"') || out.startsWith("'"), `key ${JSON.stringify(s)} must be quoted: ${out}`);
    assert.ok(/: ["']/.test(out), `value ${JSON.stringify(s)} must be quoted: ${out}`);
  }
  assert.equal(check({ a: 'on' }), 'a: "on"\n');
  assert.equal(check({ a: '' }), 'a: ""\n');
});

test('strings that would parse as structure are quoted; safe ones stay plain', () => {
  const structural = [
    '- a',
    '-',
    '?',
    '? a',
    ': a',
    'a: b',
    'a:',
    'a #b',
    '#x',
    '{a}',
    '[a]',
    '*a',
    '&a',
    '!a',
    '|a',
    '>a',
    "'a",
    '"a',
    '%a',
    '@a',
    '`a',
    ' lead',
    'trail ',
    'tab\t',
    ',a',
  ];
  for (const s of structural) {
    const out = check({ v: s });
    assert.ok(/^v: ["'|]/.test(out), `${JSON.stringify(s)}: ${out}`);
  }
  // Document markers are harmless after a key; only at the start of a line would they split.
  const plain = [
    '---',
    '...',
    'a#b',
    'a:b',
    'http://x:80/y',
    'a-b',
    'x - y',
    'a [b] {c}',
    'é ünïcødé 😀',
    'has\ttab',
    "it's",
    'say "hi"',
    '1.2.3',
    'v1',
    '$(VAR)',
    '${VAR:=x}',
  ];
  for (const s of plain) assert.equal(check({ v: s }), `v: ${s}\n`);
});

test('a lone surrogate is escaped in double quotes, in values and keys; a surrogate pair stays plain', () => {
  const emit = (s: string) => emitYamlDocument({ v: s, [s]: 1 });
  assert.equal(emit('a\ud800b'), 'v: "a\\ud800b"\n"a\\ud800b": 1\n');
  assert.equal(emit('\udc00'), 'v: "\\udc00"\n"\\udc00": 1\n');
  assert.equal(emit('😀\ud83d'), 'v: "😀\\ud83d"\n"😀\\ud83d": 1\n');
  assert.equal(emit('multi\nline \ud800'), 'v: "multi\\nline \\ud800"\n"multi\\nline \\ud800": 1\n');
  assert.equal(emit('x😀y'), 'v: x😀y\nx😀y: 1\n');
});

test('quote style: single quotes when the string has " but no \', double otherwise', () => {
  assert.equal(check({ a: '"x": y' }), `a: '"x": y'\n`);
  assert.equal(check({ a: "'x': y" }), `a: "'x': y"\n`);
  assert.equal(check({ a: `"x": 'y'` }), `a: "\\"x\\": 'y'"\n`);
});

test('multi-line strings become literal blocks with the right chomping and indentation indicator', () => {
  assert.equal(check({ a: 'x\ny' }), 'a: |-\n  x\n  y\n');
  assert.equal(check({ a: 'x\ny\n' }), 'a: |\n  x\n  y\n');
  assert.equal(check({ a: 'x\ny\n\n' }), 'a: |+\n  x\n  y\n\n');
  assert.equal(check({ a: ' x\ny' }), 'a: |2-\n   x\n  y\n');
  assert.equal(check({ a: 'x\n\n\ny' }), 'a: |-\n  x\n\n\n  y\n');
  assert.equal(check({ l: ['x\ny'] }), 'l:\n- |-\n  x\n  y\n');
  assert.equal(check({ a: '---\nb' }), 'a: |-\n  ---\n  b\n');
});

test('difference 2: a multi-line string with trailing white space on a line is double-quoted on one line', () => {
  assert.equal(check({ a: 'x \ny' }), 'a: "x\\ \\ny"\n');
  assert.equal(check({ a: '\nleading' }), 'a: "\\nleading"\n');
  assert.equal(check({ a: 'x\n\t\ny' }), 'a: "x\\n\\t\\ny"\n');
  assert.equal(check({ a: 'x\ny\t' }), 'a: "x\\ny\\t"\n');
  // The library writes these as blocks whose lines end in spaces.
  assert.match(YAML.stringify({ a: 'x \ny' }, EMIT_LIBRARY_OPTIONS), /x \n/);
  // Strings ending in a line break plus white space are quoted by the library too.
  assert.equal(check({ a: 'x\n  ' }), 'a: "x\\n  "\n');
});

test('difference 3: NEL, LS, PS, U+FFFE, U+FFFF are escaped in double quotes', () => {
  assert.equal(check({ a: 'x\u2028y' }), 'a: "x\\Ly"\n');
  assert.equal(check({ a: 'x\u2029y' }), 'a: "x\\Py"\n');
  assert.equal(check({ a: 'x\u0085y' }), 'a: "x\\Ny"\n');
  assert.equal(check({ a: 'x\uffffy' }), 'a: "x\\uFFFFy"\n');
  // The library leaves them raw, which libyaml would read as a line break.
  assert.equal(YAML.stringify({ a: 'x\u2028y' }, EMIT_LIBRARY_OPTIONS), 'a: x\u2028y\n');
});

test('difference 1: strings only go-yaml or YAML 1.2 would retype are quoted (the library leaves them plain)', () => {
  // The library even writes the string "<<" plain, and reads it back as a merge key.
  assert.equal(YAML.stringify({ k: '<<' }, EMIT_LIBRARY_OPTIONS), 'k: <<\n');
  assert.equal(check({ '<<': '<<' }), '"<<": "<<"\n');
  for (const s of ['0o17', '0X1F', '0B11', '+0o17', '0_x1F', '+_1']) {
    assert.equal(YAML.stringify({ a: s }, EMIT_LIBRARY_OPTIONS), `a: ${s}\n`);
    assert.equal(check({ a: s }), `a: "${s}"\n`);
    assert.ok(plainStringIsAmbiguous(s));
  }
});

test('control characters, tabs, unicode and escapes in double quotes', () => {
  assert.equal(check({ a: 'bell\u0007' }), 'a: "bell\\a"\n');
  assert.equal(check({ a: 'nul\u0000esc\u001b' }), 'a: "nul\\0esc\\e"\n');
  assert.equal(check({ a: 'x\u0001y' }), 'a: "x\\x01y"\n');
  assert.equal(check({ a: 'cr\r\nlf' }), 'a: "cr\\r\\nlf"\n');
  assert.equal(check({ a: 'vt\u000b' }), 'a: "vt\\v"\n');
  assert.equal(check({ a: 'tab\there' }), 'a: tab\there\n');
  assert.equal(check({ κλειδί: 'τιμή 😀' }), 'κλειδί: τιμή 😀\n');
});

test('keys that need quotes', () => {
  assert.equal(
    check({ 'a: b': 1, '- x': 2, '#c': 3, 'multi\nline': 4, ' s': 5, '': 6 }),
    '"a: b": 1\n"- x": 2\n"#c": 3\n"multi\\nline": 4\n" s": 5\n"": 6\n',
  );
  assert.equal(check({ '---a': 1, '%x': 2, '...': 3 }), '"---a": 1\n"%x": 2\n"...": 3\n');
  assert.equal(check({ a: { '---b': 1 } }), 'a:\n  ---b: 1\n');
});

test('a key longer than 1024 characters is written as an explicit key, as the library does', () => {
  const key = 'k'.repeat(1100);
  assert.equal(check({ [key]: 'v' }), `? ${key}\n: v\n`);
  assert.equal(check({ [key]: [1, 2] }), `? ${key}\n: - 1\n  - 2\n`);
  assert.equal(check({ [key]: { a: 1, b: 2 } }), `? ${key}\n: a: 1\n  b: 2\n`);
});

test('numbers: integers, 1.0 is 1, -0, exponents, large values; very long strings are not folded', () => {
  assert.equal(
    check({ a: 1, b: 1.0, c: 1.5, d: -2, e: 1e21, f: 1e-7, g: 2 ** 53 + 2, h: 0.1 }),
    'a: 1\nb: 1\nc: 1.5\nd: -2\ne: 1e+21\nf: 1e-7\ng: 9007199254740994\nh: 0.1\n',
  );
  assert.equal(emitYamlDocument({ z: -0 }), 'z: -0\n');
  assert.equal(emitYamlDocument({ z: -0 }), YAML.stringify({ z: -0 }, EMIT_LIBRARY_OPTIONS));
  const long = 'word '.repeat(400).trim();
  assert.equal(check({ a: long }), `a: ${long}\n`);
});

test('undefined members are left out, undefined items are null; other types are refused', () => {
  assert.equal(emitYamlDocument({ a: undefined, b: 1 }), 'b: 1\n');
  assert.equal(emitYamlDocument({ a: { x: undefined } }), 'a: {}\n');
  assert.equal(emitYamlDocument([undefined, 1]), '- null\n- 1\n');
  assert.throws(() => emitYamlDocument({ d: new Date(0) }), TypeError);
  assert.throws(() => emitYamlDocument({ m: new Map() }), TypeError);
  assert.throws(() => emitYamlDocument({ f: () => 1 }), TypeError);
  assert.throws(() => emitYamlDocument({ b: 1n }), TypeError);
  assert.throws(() => emitYamlDocument(undefined), TypeError);
});

test('a root scalar: document markers force block indentation', () => {
  assert.equal(emitYamlDocument('plain'), 'plain\n');
  assert.equal(emitYamlDocument('a\nb'), YAML.stringify('a\nb', EMIT_LIBRARY_OPTIONS));
  assert.equal(emitYamlDocument('a\n---b'), '|-\n  a\n  ---b\n');
  assert.equal(emitYamlDocument('a\n---b'), YAML.stringify('a\n---b', EMIT_LIBRARY_OPTIONS));
});

test('plainStringIsAmbiguous agrees with the library schema on everything the library retypes', () => {
  const samples = [
    '',
    '~',
    'null',
    'y',
    'on',
    'OFF',
    '0b101',
    '-0b1',
    '0644',
    '+0644',
    '12',
    '+1',
    '0x1F',
    '-0x_1',
    '.inf',
    '-.Inf',
    '.nan',
    '1e3',
    '1.5e-3',
    '.5',
    '1.',
    '.',
    '<<',
    '1:20',
    '1:20.5',
    '2024-01-01',
    '2024-1-1 10:00:00',
    'name',
    'v1',
    'x:y',
  ];
  for (const s of samples) if (libraryCallsNonString(s)) assert.ok(plainStringIsAmbiguous(s), s);
});

// ---- differential and round-trip tests -------------------------------------------------------

test('short words (the emitter memoises their forms): every word of up to three characters over digits, letters and ._/- is identical to the reference, as key and as value, written twice', () => {
  const alphabet = '019aenoxyEFNOXY_./-';
  const words: string[] = [];
  for (const a of alphabet.replace(/[./-]/g, ''))
    for (const b of ['', ...alphabet]) for (const c of b === '' ? [''] : ['', ...alphabet]) words.push(a + b + c);
  words.push(
    'yes',
    'No',
    'true',
    'NULL',
    'null',
    'on',
    'OFF',
    '0o17',
    '0X1F',
    '0b11',
    '1e5',
    '1_000',
    '2001-12-14',
    'x'.repeat(64),
    'x'.repeat(65),
  );
  // check() holds the first writing to the reference; the second, from the memo, must repeat it
  const first = new Map<string, string>();
  for (const w of words) {
    const out = check({ [w]: w, list: [w] });
    if (goOnlyAmbiguous(w)) assert.ok(out.startsWith(`"${w}": "${w}"\n`), w);
    first.set(w, out);
  }
  for (const w of words) assert.equal(emitYamlDocument({ [w]: w, list: [w] }), first.get(w), w);
});

test('generated values: identical to the reference, read back exactly, no trailing white space (differential)', () => {
  const rnd = prng(42);
  const pick = <T>(a: T[]): T => a[Math.floor(rnd() * a.length)];
  const fragments = [...YAML_FRAGMENTS, '0o17', '\u2028', '\u0085', '\u0007', '\r', '1:20', '2024-01-01', '.5', '+_1'];
  const str = () => Array.from({ length: Math.floor(rnd() * 6) }, () => pick(fragments)).join('');
  const num = () => pick([0, 1, -1, 12, 1.5, -0.25, 1e21, 1e-7, 2 ** 53, 123456.789, Math.round(rnd() * 1e6)]);
  const gen = (depth: number): unknown => {
    const r = rnd();
    if (depth > 3 || r < 0.45) {
      const t = rnd();
      return t < 0.6 ? str() : t < 0.75 ? num() : t < 0.85 ? rnd() < 0.5 : t < 0.9 ? null : pick(['', 'x']);
    }
    if (r < 0.7) return Array.from({ length: Math.floor(rnd() * 4) }, () => gen(depth + 1));
    const o: Record<string, unknown> = {};
    for (let n = Math.floor(rnd() * 5); n > 0; n--)
      o[rnd() < 0.6 ? pick(['name', 'a', 'on', 'y', '1', 'a b', '']) : str()] = gen(depth + 1);
    return o;
  };
  for (let i = 0; i < 1500; i++) check({ root: gen(0), more: gen(1) });
});

test('every object of the corpus: identical bytes to the reference, exact read-back, no trailing white space', () => {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith('.yaml')) files.push(full);
    }
  };
  walk(CORPUS_REPOSITORY);
  walk(CORPUS_CONFIGMAPS);
  files.sort();
  let objects = 0;
  let quotedForTrailingSpace = 0;
  for (const file of files) {
    for (const obj of parseArtifact(fs.readFileSync(file, 'utf8'), { source: file })) {
      const out = emitYamlDocument(obj);
      assert.equal(out, libraryEmit(obj), `${file}: ${obj.kind}/${obj.metadata?.name}`);
      assert.deepStrictEqual(parseArtifact(out, { source: 'out' }), [obj]);
      assert.deepStrictEqual(YAML.parse(out, { version: '1.1' }), obj);
      assert.deepStrictEqual(YAML.parse(out, { version: '1.2' }), obj);
      assertNoTrailingWhitespace(out);
      // one such object is enough, and the library's writing is slow
      if (quotedForTrailingSpace === 0 && out !== YAML.stringify(obj, EMIT_LIBRARY_OPTIONS)) quotedForTrailingSpace++;
      objects++;
    }
  }
  assert.ok(objects >= 300, String(objects));
  // Real CRDs do carry descriptions with spaces before line breaks: difference 2 matters.
  assert.ok(quotedForTrailingSpace > 0);
});

test('a long string repeated at other depths, in a sequence, as a key and at the root is written for each place (the form memo keys by indentation)', () => {
  const texts = [
    'APIVersion defines the versioned schema of this representation of an object.\nServers should convert recognized schemas.\n',
    '  indented first line, so the block needs an indentation indicator and stays long enough to be memoised\nsecond\n\n\n',
    '---\na document marker inside a long multi-line string, which must not start a line at column 0 anywhere\n',
    'a long single-line string: with a colon and space, so it is quoted wherever it appears, even when repeated',
  ];
  for (const text of texts) {
    const value = { a: text, b: { c: { d: text } }, e: [text, [text]], [text.replace(/\n/g, ' ').trim()]: text };
    const first = check(value);
    assert.equal(emitYamlDocument(value), first, 'the second emission (from the memo) is the same');
    assert.equal(emitYamlDocument(text), libraryEmit(text), 'at the root');
    check({ deeper: { still: { more: value } } });
  }
});
