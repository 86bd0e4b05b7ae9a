import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import assert from 'node:assert/strict';
import YAML from 'yaml';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import type { Diagnostic } from '../../src/core/diagnostics.js';
import { parseArtifact, parseArtifactDetailed, DEFAULT_MAX_ARTIFACT_BYTES } from '../../src/yaml/parse.js';
import { lineColumnAt } from '../../src/yaml/split.js';
import { prng, YAML_FRAGMENTS } from '../helpers/generated-yaml.js';

/** Parses with the fast path and with the full parser only; both must agree. */
function parseBoth(text: string): { value: unknown; fast: boolean } {
  const fast = parseArtifactDetailed(text, { source: 'test.yaml' });
  const full = parseArtifactDetailed(text, { source: 'test.yaml', fullParserOnly: true });
  assert.deepStrictEqual(fast.objects, full.objects, 'fast path and full parser disagree');
  return { value: fast.objects[0], fast: fast.fullParserDocuments === 0 };
}

function value(text: string): unknown {
  return parseBoth(text).value;
}

/** The diagnostics both paths report for `text` (they must be the same). */
function problems(text: string, maxBytes?: number): Diagnostic[] {
  const caught: Diagnostic[][] = [];
  for (const fastPath of [true, false]) {
    try {
      parseArtifactDetailed(text, { source: 'bad.yaml', maxBytes, fullParserOnly: !fastPath });
      assert.fail(`expected an error for ${JSON.stringify(text)}`);
    } catch (e) {
      assert.ok(e instanceof CapiGitopsError, String(e));
      caught.push(e.diagnostics);
    }
  }
  assert.deepStrictEqual(caught[0], caught[1], 'fast path and full parser report different problems');
  return caught[0];
}

test('plain, quoted and block scalars get YAML 1.1 types as Kubernetes reads them (go-yaml v2)', () => {
  const doc = value(
    [
      'a: on',
      "b: 'on'",
      'c: "on"',
      'd: ~',
      'e: null',
      'f: 0644',
      "g: '0644'",
      'h: 0x1F',
      'i: 0o17',
      'j: 1_000',
      'k: +1',
      'l: -.5',
      'm: 1e3',
      'ts: 2024-01-01',
      'o: 1:20',
      'p:',
      'q: y',
      'r: NO',
      's: 12.50',
      't: "12"',
      'u: !!str 12',
      'v: !!int "12"',
    ].join('\n') + '\n',
  );
  assert.deepStrictEqual(doc, {
    a: true,
    b: 'on',
    c: 'on',
    d: null,
    e: null,
    f: 420,
    g: '0644',
    h: 31,
    i: 15,
    j: 1000,
    k: 1,
    l: -0.5,
    m: 1000,
    ts: '2024-01-01',
    o: '1:20',
    p: null,
    q: true,
    r: false,
    s: 12.5,
    t: '12',
    u: '12',
    v: 12,
  });
});

test('keys that are booleans or numbers in YAML 1.1 become their JSON spelling (sigs.k8s.io/yaml convertToJSONableObject)', () => {
  // `on:` is read by Kubernetes as the key "true"; quoting keeps it "on".
  assert.deepStrictEqual(value('on: 1\n"off": 2\n0x10: 3\n1.0: 4\n'), { true: 1, off: 2, 16: 3, 1: 4 });
  assert.deepStrictEqual(value('on: 1\nyes: 5\n'), { true: 5 }); // both are "true": the last one wins
});

test('block scalars: literal and folded, clip/strip/keep chomping, more-indented lines', () => {
  const doc = value(
    'lit: |\n  a\n   b\n\n  c\n\nstrip: |-\n  x\n\n\nkeep: |+\n  x\n\n\nfold: >\n  one\n  two\n\n  three\n    indented\n  four\nfoldstrip: >-\n  a\n  b\nlead: |\n\n  after blank\nz: 1\n',
  );
  assert.deepStrictEqual(doc, {
    lit: 'a\n b\n\nc\n',
    strip: 'x',
    keep: 'x\n\n\n',
    fold: 'one two\nthree\n  indented\nfour\n',
    foldstrip: 'a b',
    lead: '\nafter blank\n',
    z: 1,
  });
});

test('a block scalar ending the input without a line break has no final newline, as libyaml reads it', () => {
  // yaml_parser_scan_block_scalar adds the final break only if one was read.
  assert.deepStrictEqual(value('a: |\n  foo'), { a: 'foo' });
  assert.deepStrictEqual(value('a: |+\n  foo'), { a: 'foo' });
  assert.deepStrictEqual(value('a: >\n  foo\n  bar'), { a: 'foo bar' });
  assert.deepStrictEqual(value('a: |\n  foo\n'), { a: 'foo\n' });
  assert.deepStrictEqual(value('a: |\n  foo\n  '), { a: 'foo\n' });
  // The library itself keeps the newline; this is a deliberate difference.
  assert.deepStrictEqual(YAML.parse('a: |\n  foo'), { a: 'foo\n' });
});

test('a literal block scalar keeps the white space after U+2028 and U+2029, as the full parser reads it', () => {
  // The fast path once dedented after them as after line breaks (a /^ {0,n}/gm pattern).
  assert.deepStrictEqual(parseBoth('a: |\n  x\u2028  y\n  z\n').value, { a: 'x\u2028  y\nz\n' });
  assert.deepStrictEqual(parseBoth('a: |-\n    x\u2029   y\n\n\nb: |+\n \u2028  y\n\n').value, { a: 'x\u2029   y', b: '\u2028  y\n\n' });
  assert.equal(parseBoth('a: |\n  x\u2028  y\n').fast, true);
});

test('a text with a character past U+00FF (two bytes a character in V8) reads as the full parser reads it, values and positions', () => {
  // core-components.yaml v1.12.0 carries ’ (U+2019) 18 times in 1.4 MB: the whole text is wide.
  const text = [
    'kind: A\ndescription: it’s wide\n',
    'kind: B\nname: café\nnote: "\\u00e9 and \u0085 next"\nblock: |\n  ÿ line\n',
    'kind: C\nlist:\n- x\n- "y"\n',
  ].join('---\n');
  const fast = parseArtifactDetailed(text, { source: 'wide.yaml' });
  assert.equal(fast.fullParserDocuments, 0);
  assert.deepStrictEqual(fast.objects, parseArtifactDetailed(text, { source: 'wide.yaml', fullParserOnly: true }).objects);
  assert.deepStrictEqual(fast.objects[1], { kind: 'B', name: 'café', note: 'é and \u0085 next', block: 'ÿ line\n' });
  // a document the fast path leaves to the full parser is still reported at its line in the whole text
  assert.equal(problems(`${text}---\nkind: D\nx: [1,\n`)[0]?.line, 17);
});

test('one-line plain keys and values: words, typed words and near-words read as the full parser reads them', () => {
  const cases: [string, unknown][] = [
    ['a: b:c\nd: http://x/y?z=1#f\n', { a: 'b:c', d: 'http://x/y?z=1#f' }],
    ['a: b #c\nd: e  \nf: g\t\nh: i j  k\n', { a: 'b', d: 'e', f: 'g', h: 'i j  k' }],
    ['a: b\n  c\n', { a: 'b c' }],
    ['a: b\n\n  c\nd: e\n\nf: g\n', { a: 'b\nc', d: 'e', f: 'g' }],
    ['a: b\n#x\n  # y\nc: d\n', { a: 'b', c: 'd' }],
    ['m:\n  a: b\n   # deeper comment\n  c: d\n', { m: { a: 'b', c: 'd' } }],
    ['on: yes\nno: off\ny: n\nnul: ~\ntrue: x\n', { true: 'x', false: false, nul: null }],
    [
      'a: 0x1F\nb: 1e3\nc: 0644\nd: 1_000\ne: .5\nf: truex\ng: nullable\nh: offset\n',
      { a: 31, b: 1000, c: 420, d: 1000, e: 0.5, f: 'truex', g: 'nullable', h: 'offset' },
    ],
    ['a: ${X}\nb: $x[0]{k},v\nc: a-b.c/d_e\nd: x:\ne: x:y: z\n', undefined],
    ['__proto__: x\nconstructor: y\n', undefined],
    ['k: v', { k: 'v' }],
    ['a.b/c-d_e: f\nA1: B2\n', { 'a.b/c-d_e': 'f', A1: 'B2' }],
  ];
  for (const [text, want] of cases) {
    let got: unknown;
    try {
      got = value(text);
    } catch (e) {
      // A text both parsers reject is fine too, as long as they agree.
      if (want !== undefined) throw e;
      problems(text);
      continue;
    }
    if (want !== undefined) assert.deepStrictEqual(got, want, JSON.stringify(text));
  }
  assert.equal(parseBoth('a: b\nc: d e\n').fast, true);
});

test('multi-line plain and quoted scalars fold like YAML (one break → space, blank line → newline)', () => {
  const doc = value(
    'plain: first\n  second\n\n  third\nsingle: \'it\'\'s\n  here\n\n  there\'\ndouble: "tab\\tand \\u00e9\n  next \\\n  joined"\nnext: "a\n\n\n  b"\n',
  );
  assert.deepStrictEqual(doc, {
    plain: 'first second\nthird',
    single: "it's here\nthere",
    double: 'tab\tand é next joined',
    next: 'a\n\nb',
  });
});

test('continuation lines of a plain scalar may start with indicator characters', () => {
  // go-yaml folds long descriptions this way: lines starting with quotes, backticks or "- ".
  assert.deepStrictEqual(value('d: see\n  "quoted" and\n  `code` and\n  - dash\n  * star\nnum: 1\n'), {
    d: 'see "quoted" and `code` and - dash * star',
    num: 1,
  });
});

test('sequences: under a key at the same column or indented, nested, compact, with empty items', () => {
  assert.deepStrictEqual(value('a:\n- 1\n- x: v\n  z: w\n-\n- - p\n  - q\nb:\n  - c\n'), {
    a: [1, { x: 'v', z: 'w' }, null, ['p', 'q']],
    b: ['c'],
  });
});

test('single-line flow collections; comments everywhere', () => {
  assert.deepStrictEqual(
    value('# head\na: [x, "y", \'z\', 1, [], {}] # tail\nb: {k: v, "q": [1, 2]}\nc: {}\nd: []\n  # indented comment\ne: f #c\n'),
    { a: ['x', 'y', 'z', 1, [], {}], b: { k: 'v', q: [1, 2] }, c: {}, d: [], e: 'f' },
  );
});

test('constructs the fast path leaves to the full parser still parse, to the same values', () => {
  const cases: [string, unknown][] = [
    ['a: [p,\n  q]\n', { a: ['p', 'q'] }],
    ['a: [p, q, ]\n', { a: ['p', 'q'] }],
    ['? a\n: b\n', { a: 'b' }],
    ['a: !!str 1\n', { a: '1' }],
    ['a:\tb\n', { a: 'b' }],
    ['a: |2\n   x\n', { a: ' x\n' }],
    ['a: b\r\nc: d\r\n', { a: 'b', c: 'd' }],
    ['\ufeffa: 1\n', { a: 1 }],
  ];
  for (const [text, want] of cases) assert.deepStrictEqual(value(text), want, JSON.stringify(text));
  // These really do use the full parser.
  assert.equal(parseBoth('a: [p,\n  q]\n').fast, false);
  assert.equal(parseBoth('a: b\n').fast, true);
});

test('documents are split like apimachinery YAMLReader: "---" lines, empty and null documents skipped', () => {
  const objs = parseArtifact('---\n---\na: 1\n--- # comment\n# only a comment\n---\n~\n---\nb: 2\n', { source: 's' });
  assert.deepStrictEqual(objs, [{ a: 1 }, { b: 2 }]);
});

test('content after "---" is an error, as apimachinery YAMLReader reports it', () => {
  const [d] = problems('a: 1\n--- b: 2\n');
  assert.equal(d.file, 'bad.yaml');
  assert.equal(d.line, 2);
  assert.equal(d.column, 4);
  assert.match(d.message, /document separator/);
  assert.ok(d.hint);
});

test('a document that is not a mapping is an error naming where it starts', () => {
  const [d] = problems('a: 1\n---\n# c\n- x\n- y\n');
  assert.equal(d.line, 4);
  assert.equal(d.column, 1);
  assert.match(d.message, /document is a sequence, not a mapping/);
  assert.ok(d.expected && d.hint);
  assert.match(problems('just text\n')[0].message, /the string "just text"/);
});

test('anchors and aliases are refused with their line and column (alias-expansion defence)', () => {
  const [a] = problems('a: 1\nb: &x\n  c: 2\nd: *x\n');
  assert.equal(a.line, 2);
  assert.equal(a.column, 4);
  assert.match(a.message, /anchor &x is not allowed/);
  assert.ok(a.hint);
  const [b] = problems('a: 1\nb: *nowhere\n');
  assert.equal(b.line, 2);
  assert.equal(b.column, 4);
  assert.match(b.message, /alias \*nowhere/);
  // A billion-laughs document fails fast instead of expanding.
  const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 9; i++)
    laughs.push(
      `${'abcdefghij'[i]}: &${'abcdefghij'[i]} [${Array(9)
        .fill('*' + 'abcdefghij'[i - 1])
        .join(',')}]`,
    );
  assert.match(problems(laughs.join('\n') + '\n')[0].message, /anchor &a is not allowed/);
});

test('syntax errors become diagnostics with file, line, column and hint', () => {
  const [d] = problems('a: 1\nb:\n  c: 2\n d: 3\n');
  assert.equal(d.file, 'bad.yaml');
  assert.equal(d.line, 4);
  assert.ok(d.column !== undefined && d.column >= 1);
  assert.ok(d.hint);
  // Positions count from the start of the artifact, not of the document.
  const second = problems('ok: 1\n---\nx: "unterminated\n');
  assert.ok(second[0].line! >= 3, String(second[0].line));
  assert.match(second[0].message, /Missing closing "quote/);
  // Problems in several documents are all reported.
  assert.equal(problems('a: [\n---\nb: "x\n').length >= 2, true);
});

test('artifact size is bounded and the error names the limit', () => {
  assert.equal(DEFAULT_MAX_ARTIFACT_BYTES, 64 * 1024 * 1024);
  const [d] = problems('a: ' + 'x'.repeat(100) + '\n', 64);
  assert.match(d.message, /over the 64-byte limit/);
  assert.equal(d.file, 'bad.yaml');
  // Measured in UTF-8 bytes, not characters.
  assert.match(problems('a: ' + 'é'.repeat(31) + '\n', 64)[0].message, /artifact is 66 bytes/);
  assert.deepStrictEqual(parseArtifact('a: 1\n', { source: 's', maxBytes: 64 }), [{ a: 1 }]);
});

test('control characters are refused as go-yaml refuses them (yaml_parser_update_buffer)', () => {
  const [d] = problems('a: 1\nb: x\u0007y\n');
  assert.equal(d.line, 2);
  assert.equal(d.column, 5);
  assert.match(d.message, /U\+0007/);
  // Escaped in double quotes they are fine.
  assert.deepStrictEqual(value('a: "x\\ay"\n'), { a: 'x\u0007y' });
});

test('absurdly deep nesting is a diagnostic, not a crash (in a process of its own: where the stack runs out depends on what V8 has optimised, so after other tests 5,000 levels could fit)', () => {
  const script = `
    const { parseArtifactDetailed } = await import(${JSON.stringify(new URL('../../src/yaml/parse.js', import.meta.url).href)});
    let deep = 'a:\\n';
    for (let i = 1; i < 5000; i++) deep += ' '.repeat(i) + 'k:\\n';
    const messages = [];
    for (const text of [deep, 'a: ' + '['.repeat(50000) + ']'.repeat(50000) + '\\n'])
      for (const fullParserOnly of [false, true]) {
        try {
          parseArtifactDetailed(text, { source: 'bad.yaml', fullParserOnly });
          messages.push('parsed');
        } catch (e) {
          messages.push(e.diagnostics?.map((d) => d.message).join('; ') ?? String(e));
        }
      }
    console.log(JSON.stringify(messages));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  const messages = JSON.parse(child.stdout) as string[];
  assert.equal(messages.length, 4);
  for (const message of messages) assert.match(message, /nested too deeply/);
});

test('a repeated key takes its last value, as go-yaml v2 does when decoding into a map', () => {
  assert.deepStrictEqual(value('a: 1\nb: 2\na: 3\n'), { a: 3, b: 2 });
});

test('keys with no JSON form, merge keys and infinities are errors (sigs.k8s.io/yaml would fail)', () => {
  assert.match(problems('~: 1\n')[0].message, /no JSON form/);
  assert.match(problems('a: 1\n: 2\n')[0].message, /empty|no JSON form/);
  assert.match(problems('[a]: 1\n')[0].message, /mapping or sequence used as a mapping key/);
  assert.match(problems('<<: {a: 1}\n')[0].message, /merge keys/);
  assert.match(problems('a: .inf\n')[0].message, /infinity or NaN/);
  assert.match(problems('a: !!binary aGk=\n')[0].message, /binary/);
  assert.match(problems('a: !!int x\n')[0].message, /!!int/);
  // Quoted, they are ordinary strings.
  assert.deepStrictEqual(value('"<<": 1\na: ".inf"\n'), { '<<': 1, a: '.inf' });
});

test('a __proto__ key is an ordinary own property', () => {
  const doc = value('__proto__: {a: 1}\nb: 2\n') as Record<string, unknown>;
  assert.deepStrictEqual(Object.keys(doc), ['__proto__', 'b']);
  assert.equal(Object.getPrototypeOf(doc), Object.prototype);
  assert.deepStrictEqual(doc['__proto__'], { a: 1 });
});

test('only the first of several documents in one chunk counts, as go-yaml Unmarshal reads it', () => {
  assert.deepStrictEqual(parseArtifact('a: 1\n...\nb: 2\n', { source: 's' }), [{ a: 1 }]);
});

test('lineColumnAt gives 1-based positions', () => {
  assert.deepStrictEqual(lineColumnAt('ab\ncd\n', 0), { line: 1, column: 1 });
  assert.deepStrictEqual(lineColumnAt('ab\ncd\n', 4), { line: 2, column: 2 });
});

// ---- differential tests against the yaml package ------------------------------------------

const LIBRARY_1_1 = {
  version: '1.1',
  uniqueKeys: false,
  customTags: (tags: YAML.Tags) => tags.filter((t) => (t as { tag: string }).tag !== 'tag:yaml.org,2002:timestamp'),
} as const;

function libraryValue(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    const doc = YAML.parseAllDocuments(text, LIBRARY_1_1 as YAML.ParseOptions & YAML.DocumentOptions & YAML.SchemaOptions);
    const first = Array.isArray(doc) ? doc[0] : undefined;
    if (!first) return { ok: true, value: null };
    if (first.errors.length > 0) return { ok: false };
    return { ok: true, value: first.toJS({ maxAliasCount: 10 }) };
  } catch {
    return { ok: false };
  }
}

// Problems that are ours by design: go-yaml semantics and Kubernetes document splitting.
const DELIBERATE = /anchor|alias|no JSON form|empty \(null\)|merge|document separator|infinity or NaN|not a mapping|binary|!!/;

test('mutated documents: both paths agree with the yaml package or fail where it fails (differential)', () => {
  const rnd = prng(20240601);
  const pick = <T>(a: T[]): T => a[Math.floor(rnd() * a.length)];
  const bases = [
    "a: b\nc:\n  d: 1\n  e: [x, \"y\", 'z']\nf:\n- g\n- h: i\n  j: |\n    text\n     more\n\n    end\n- - k\n  - l\nm: \"esc\\t\\u00e9 line\n  two\"\nn: 'it''s\n\n  para'\no: plain\n  continued\n  # c\np: {q: 1, r: [s]}\n",
    'kind: X\nmetadata:\n  name: n\n  labels:\n    on: yes\n    "q": \'v\'\nspec:\n  list:\n  - a: >-\n      folded\n      text\n\n      more\n        indented\n    b: |+\n      keep\n\n  - ~\n  -\n  - null\n',
    'spec:\n  description: This is a long\n    plain description "with quotes"\n    and `code`: not a key\n  versions:\n  - name: v1\n    schema:\n      description: |-\n        Literal\n          more\n\n        end\n',
  ];
  const inserts = [
    ' ',
    '  ',
    '\n',
    '#',
    ' #',
    ':',
    ': ',
    '-',
    '- ',
    "'",
    '"',
    '\t',
    '[',
    ']',
    '{',
    '}',
    ',',
    '|',
    '>',
    '&a ',
    '*a',
    '!',
    '?',
    '\\',
    '...',
    'x',
    '0',
    '\n  ',
    '\n- ',
  ];
  let compared = 0;
  for (let iter = 0; iter < 1500; iter++) {
    let text = pick(bases);
    for (let m = 1 + Math.floor(rnd() * 3); m > 0; m--) {
      const at = Math.floor(rnd() * text.length);
      const op = rnd();
      if (op < 0.5) text = text.slice(0, at) + pick(inserts) + text.slice(at);
      else if (op < 0.8) text = text.slice(0, at) + text.slice(at + 1 + Math.floor(rnd() * 3));
      else {
        const from = Math.floor(rnd() * text.length);
        text = text.slice(0, at) + text.slice(from, from + 5) + text.slice(at);
      }
    }
    if (/^---/m.test(text)) continue; // document splitting is Kubernetes', not the library's
    const lib = libraryValue(text);
    for (const fastPath of [true, false]) {
      let mine: { ok: true; value: unknown } | { ok: false; message: string };
      try {
        mine = { ok: true, value: parseArtifactDetailed(text, { source: 'm', fullParserOnly: !fastPath }).objects[0] ?? null };
      } catch (e) {
        mine = { ok: false, message: (e as Error).message };
      }
      const where = `fastPath=${fastPath} ${JSON.stringify(text)}`;
      if (!lib.ok) {
        assert.equal(mine.ok, false, `the library rejects it, we accept it: ${where}`);
      } else if (!mine.ok) {
        const libValue = lib.value;
        const notAnObject = libValue === null || typeof libValue !== 'object' || Array.isArray(libValue);
        assert.ok(notAnObject || DELIBERATE.test(mine.message), `we reject what the library accepts: ${where}: ${mine.message}`);
      } else if (JSON.stringify(lib.value) !== undefined) {
        assert.deepStrictEqual(mine.value, lib.value, where);
        compared++;
      }
    }
  }
  assert.ok(compared > 500, `only ${compared} documents compared`);
});

test('generated documents in every style the yaml package writes: same values as the library (differential)', () => {
  const rnd = prng(7);
  const pick = <T>(a: T[]): T => a[Math.floor(rnd() * a.length)];
  const fragments = [...YAML_FRAGMENTS, '$${VAR}'];
  const str = () => Array.from({ length: Math.floor(rnd() * 6) }, () => pick(fragments)).join('');
  const key = () => (rnd() < 0.7 ? pick(['name', 'kind', 'a', 'b', 'spec', 'x-y', 'a.b/c', 'with space', 'on', 'yes', '1']) : str() || 'k');
  const gen = (depth: number): unknown => {
    const r = rnd();
    if (depth > 3 || r < 0.45) {
      const t = rnd();
      return t < 0.6
        ? str()
        : t < 0.7
          ? Math.floor(rnd() * 1000)
          : t < 0.75
            ? Math.round(rnd() * 1e4) / 100
            : t < 0.85
              ? rnd() < 0.5
              : t < 0.9
                ? null
                : pick(['', 'x']);
    }
    if (r < 0.7) return Array.from({ length: Math.floor(rnd() * 4) }, () => gen(depth + 1));
    const o: Record<string, unknown> = {};
    for (let n = Math.floor(rnd() * 5); n > 0; n--) o[key()] = gen(depth + 1);
    return o;
  };
  let fastDocs = 0;
  let compared = 0;
  for (let iter = 0; iter < 1200; iter++) {
    const data = { root: gen(0), more: gen(1) };
    const options = {
      version: '1.1' as const,
      lineWidth: pick([0, 20, 40, 80]),
      minContentWidth: pick([0, 5, 20]),
      indent: pick([2, 4]),
      indentSeq: rnd() < 0.5,
      blockQuote: pick<boolean | 'literal' | 'folded'>([true, 'literal', 'folded', false]),
      singleQuote: pick([null, true, false]),
      collectionStyle: pick(['any', 'any', 'block', 'flow'] as const),
      aliasDuplicateObjects: false,
      defaultStringType: pick(['PLAIN', 'PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE', 'BLOCK_LITERAL', 'BLOCK_FOLDED'] as const),
    };
    const text = YAML.stringify(data, options);
    const lib = libraryValue(text);
    if (!lib.ok) continue;
    for (const fastPath of [true, false]) {
      const result = parseArtifactDetailed(text, { source: 'g', fullParserOnly: !fastPath });
      if (fastPath && result.fullParserDocuments === 0) fastDocs++;
      assert.deepStrictEqual(result.objects[0], lib.value, `fastPath=${fastPath} ${JSON.stringify(text)}`);
    }
    compared++;
  }
  assert.ok(compared > 1000);
  assert.ok(fastDocs > compared / 3, `fast path took only ${fastDocs} of ${compared}`);
});
