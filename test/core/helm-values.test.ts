import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applySetExpression, SetSyntaxError } from '../../src/core/helm-set.js';
import { parseSetExpression } from '../helpers/helm-set.js';
import { coalesceValues, layerValues, mergeUserValues } from '../../src/core/values.js';

// Vectors from helm pkg/strvals/parser_test.go TestParseSet (expected values as Helm's
// yaml.Marshal prints them).
const PARSE_OK: [string, unknown][] = [
  ['name1=null,f=false,t=true', { name1: null, f: false, t: true }],
  ['name1=value1', { name1: 'value1' }],
  ['name1=value1,name2=value2', { name1: 'value1', name2: 'value2' }],
  ['name1=value1,name2=value2,', { name1: 'value1', name2: 'value2' }],
  ['name1=,name2=value2', { name1: '', name2: 'value2' }],
  ['leading_zeros=00009', { leading_zeros: '00009' }],
  ['zero_int=0', { zero_int: 0 }],
  ['long_int=1234567890', { long_int: 1234567890 }],
  ['boolean=true', { boolean: true }],
  ['is_null=null', { is_null: null }],
  ['name1=one\\,two,name2=three\\,four', { name1: 'one,two', name2: 'three,four' }],
  ['name1=one\\=two,name2=three\\=four', { name1: 'one=two', name2: 'three=four' }],
  ['name1=one two three,name2=three two one', { name1: 'one two three', name2: 'three two one' }],
  ['outer.inner=value', { outer: { inner: 'value' } }],
  ['outer.middle.inner=value', { outer: { middle: { inner: 'value' } } }],
  ['outer.inner1=value,outer.inner2=value2', { outer: { inner1: 'value', inner2: 'value2' } }],
  ['outer.inner1=value,outer.middle.inner=value', { outer: { inner1: 'value', middle: { inner: 'value' } } }],
  ['name1.name2=', { name1: { name2: '' } }],
  ['name1={value1,value2}', { name1: ['value1', 'value2'] }],
  ['name1={value1,value2},name2={value1,value2}', { name1: ['value1', 'value2'], name2: ['value1', 'value2'] }],
  ['name1={1021,902}', { name1: [1021, 902] }],
  ['name1.name2={value1,value2}', { name1: { name2: ['value1', 'value2'] } }],
  ['list[0]=foo', { list: ['foo'] }],
  ['list[0].foo=bar', { list: [{ foo: 'bar' }] }],
  ['list[0].foo=bar,list[0].hello=world', { list: [{ foo: 'bar', hello: 'world' }] }],
  ['list[0]=foo,list[1]=bar', { list: ['foo', 'bar'] }],
  ['list[0]=foo,list[1]=bar,', { list: ['foo', 'bar'] }],
  ['list[0]=foo,list[3]=bar', { list: ['foo', null, null, 'bar'] }],
  ['noval[0]', { noval: [] }],
  ['noval[0]=', { noval: [''] }],
  ['nested[0][0]=1', { nested: [[1]] }],
  ['nested[1][1]=1', { nested: [null, [null, 1]] }],
  ['name1.name2[0].foo=bar,name1.name2[1].foo=bar', { name1: { name2: [{ foo: 'bar' }, { foo: 'bar' }] } }],
  ['name1.name2[1].foo=bar,name1.name2[0].foo=bar', { name1: { name2: [{ foo: 'bar' }, { foo: 'bar' }] } }],
  ['name1.name2[1].foo=bar', { name1: { name2: [null, { foo: 'bar' }] } }],
  ['a\\.b=c', { 'a.b': 'c' }],
];

const PARSE_ERRORS = [
  'name1=value1,,,,name2=value2,',
  'name1,name2=',
  'name1,name2=value2',
  'name1,name2=value2\\',
  'name1,name2',
  'name1.name2',
  'name1.name2,name1.name3',
  'name1.=name2',
  'name1.,name2',
  'name1={1021,902',
  'list[0].foo=bar,list[-30].hello=world',
  'list[0]=foo,list[-20]=bar',
  'illegal[0]name.foo=bar',
  ']={}].',
  `list[${65536 + 1}]=x`,
];

for (const [expression, expected] of PARSE_OK) {
  test(`--set ${expression} (helm pkg/strvals/parser_test.go TestParseSet)`, () => {
    assert.deepEqual(parseSetExpression(expression), expected);
  });
}

test('--set syntax errors are SetSyntaxError, never a crash (helm pkg/strvals/parser_test.go TestParseSet)', () => {
  for (const expression of PARSE_ERRORS) {
    assert.throws(() => parseSetExpression(expression), SetSyntaxError, expression);
  }
});

test('--set-string keeps every value a string (helm pkg/strvals/parser_test.go testsString)', () => {
  assert.deepEqual(parseSetExpression('long_int_string=1234567890,boolean=true,is_null=null,zero=0', true), {
    long_int_string: '1234567890',
    boolean: 'true',
    is_null: 'null',
    zero: '0',
  });
});

test('--set merges into existing values (helm pkg/strvals/parser_test.go TestParseInto, TestParseIntoString)', () => {
  const values = { outer: { inner1: 'overwrite', inner2: 'value2' } };
  applySetExpression(values, 'outer.inner1=value1,outer.inner3=value3,outer.inner4=4');
  assert.deepEqual(values, { outer: { inner1: 'value1', inner2: 'value2', inner3: 'value3', inner4: 4 } });
  const nested = {};
  applySetExpression(nested, 'listOuter[0][0].type=listValue');
  applySetExpression(nested, 'listOuter[0][0].status=alive');
  assert.deepEqual(nested, { listOuter: [[{ type: 'listValue', status: 'alive' }]] });
  const strings = { outer: { inner1: 'overwrite', inner2: 'value2' } };
  applySetExpression(strings, 'outer.inner1=1,outer.inner3=3', true);
  assert.deepEqual(strings, { outer: { inner1: '1', inner2: 'value2', inner3: '3' } });
});

test("--set a=-0 is the integer 0, as Go's int64 has no negative zero, so the output says 0, not -0 (helm pkg/strvals/parser.go typedVal)", () => {
  // strconv.ParseInt reads leading zeros after a sign: -00 is 0 and +007 is 7
  const { a, b, c } = parseSetExpression('a=-0,b=-00,c=+007') as Record<string, unknown>;
  assert.ok(Object.is(a, 0), `a is ${String(a)}`);
  assert.ok(Object.is(b, 0), `b is ${String(b)}`);
  assert.equal(c, 7);
});

test('an integer beyond the exact range stays a string, so no digit changes', () => {
  assert.deepEqual(parseSetExpression('big=123456789012345678901'), { big: '123456789012345678901' });
});

test('user layers: maps deep-merge, lists replace, null is kept for coalescing (helm pkg/cli/values/options.go mergeMaps)', () => {
  const merged = mergeUserValues({ a: { x: 1, list: [1, 2] }, b: 1 }, { a: { y: 2, list: [3] }, b: null });
  assert.deepEqual(merged, { a: { x: 1, y: 2, list: [3] }, b: null });
});

test('user values over chart defaults: null deletes the default, lists replace (helm coalesce.go coalesceValues)', () => {
  const defaults = { syncPolicy: { automated: { prune: true, selfHeal: true }, retry: { limit: 5 } }, list: [1, 2], keep: 'x' };
  const user = { syncPolicy: { automated: null, retry: { limit: 2 } }, list: [9], extra: null };
  assert.deepEqual(coalesceValues(user, defaults), { syncPolicy: { retry: { limit: 2 } }, list: [9], keep: 'x', extra: null });
  assert.deepEqual(defaults.syncPolicy.automated, { prune: true, selfHeal: true }, 'defaults are not mutated');
});

test('a user null over a default that is null removes the key too, so toYaml of the map leaves it out (helm coalesce.go coalesceValues and coalesceTablesFullKey: value == nil && !merge deletes)', () => {
  const defaults = { path: null, destination: { server: 'https://kubernetes.default.svc', name: null } };
  assert.deepEqual(coalesceValues({ path: null, destination: { name: null } }, defaults), {
    destination: { server: 'https://kubernetes.default.svc' },
  });
});

test('a later layer wins over an earlier one, and a map after null merges with the default again (helm mergeMaps then coalesce)', () => {
  const values = layerValues({ a: { z: 0 }, b: 'default' }, [{ a: { x: 1 }, b: 'file1' }, { a: null }, { a: { y: 2 } }]);
  assert.deepEqual(values, { a: { y: 2, z: 0 }, b: 'file1' });
});
