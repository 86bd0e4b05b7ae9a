import { test } from 'node:test';
import assert from 'node:assert/strict';
import YAML from 'yaml';
import {
  formatGoFloat32General,
  jsonKeyOf,
  plainKeyToJsonKey,
  plainScalarIsNotString,
  resolvePlainScalar,
  resolvePlainScalarTyped,
} from '../../src/yaml/scalar.js';

// Expected values are what sigs.k8s.io/yaml v1.6.0 (go.yaml.in/yaml/v2 v2.4.3 resolve.go, Go's
// strconv) produces, the parser clusterctl and the cluster-api-operator use.

test('YAML 1.1 booleans, nulls and their spellings (go-yaml v2 resolve.go resolveMap)', () => {
  for (const s of ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']) assert.equal(resolvePlainScalar(s), true, s);
  for (const s of ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'])
    assert.equal(resolvePlainScalar(s), false, s);
  for (const s of ['', '~', 'null', 'Null', 'NULL']) assert.equal(resolvePlainScalar(s), null, JSON.stringify(s));
  // Mixed case is not in the table: a string.
  for (const s of ['yEs', 'oN', 'nULL', 'tRUE', 'Nil', 'none']) assert.equal(resolvePlainScalar(s), s);
});

test('integers: decimal, 0644 octal, hex, underscores, signs (go-yaml v2 resolve.go + strconv.ParseInt base 0)', () => {
  const cases: [string, number][] = [
    ['0', 0],
    ['12', 12],
    ['+1', 1],
    ['-17', -17],
    ['0644', 420],
    ['00', 0],
    ['0x1F', 31],
    ['0x1f', 31],
    ['-0x1F', -31],
    ['1_000', 1000],
    ['1__0', 10],
    ['0b101', 5],
    ['-0b11', -3],
    ['-0', 0],
    ['9007199254740993', 9007199254740992],
  ];
  for (const [s, want] of cases) {
    const got = resolvePlainScalarTyped(s);
    assert.equal(got.kind, 'int', s);
    assert.ok(Object.is(got.value, want), `${s}: ${String(got.value)} !== ${want}`);
  }
});

test('floats: .5, -.5, 1e3, 1.0, .inf/.nan spellings (go-yaml v2 yamlStyleFloat and resolveMap)', () => {
  const cases: [string, number][] = [
    ['.5', 0.5],
    ['-.5', -0.5],
    ['+.5', 0.5],
    ['1e3', 1000],
    ['1.0', 1],
    ['1.', 1],
    ['6.02e+23', 6.02e23],
    ['08', 8],
    ['09.5', 9.5],
    ['.5_0', 0.5],
    ['1_0.5', 10.5],
  ];
  for (const [s, want] of cases) {
    const got = resolvePlainScalarTyped(s);
    assert.equal(got.kind, 'float', s);
    assert.equal(got.value, want, s);
  }
  assert.ok(Object.is(resolvePlainScalar('-0.0'), -0));
  for (const s of ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF']) assert.equal(resolvePlainScalar(s), Infinity, s);
  for (const s of ['-.inf', '-.Inf', '-.INF']) assert.equal(resolvePlainScalar(s), -Infinity, s);
  for (const s of ['.nan', '.NaN', '.NAN']) assert.ok(Number.isNaN(resolvePlainScalar(s)), s);
});

test('strings that look almost like numbers stay strings (go-yaml v2 resolve.go)', () => {
  for (const s of [
    '1.2.3',
    '0x',
    '0xG',
    '1e',
    '1e400',
    '.',
    '._5',
    '.1_',
    '.iNf',
    '_1',
    '+',
    '-',
    '1 2',
    'v1.2',
    '1-2',
    '12abc',
    '2024-01-01',
    '2001-12-14t21:59:43.10-05:00',
    '1:20',
    '190:20:30.15',
    '<<',
    '=',
  ]) {
    assert.equal(resolvePlainScalar(s), s, s);
  }
});

test('go-yaml and the yaml package disagree: 0o17, 0X1F, 0B11, +0o17, 0_x1F are integers for Kubernetes (strconv.ParseInt base 0)', () => {
  const lib = (s: string) => YAML.parse(`v: ${s}`, { version: '1.1' }).v;
  const cases: [string, number][] = [
    ['0o17', 15],
    ['0O17', 15],
    ['0X1F', 31],
    ['0B11', 3],
    ['+0o17', 15],
    ['0_x1F', 31],
    ['+_1', 1],
  ];
  for (const [s, want] of cases) {
    assert.equal(resolvePlainScalar(s), want, s);
    assert.equal(lib(s), s, `the yaml package reads ${s} as a string`);
  }
  // …and the other way round: sexagesimal numbers and a lone dot are strings for go-yaml.
  assert.equal(lib('1:20'), 80);
  assert.equal(resolvePlainScalar('1:20'), '1:20');
  assert.ok(Number.isNaN(lib('.')));
  assert.equal(resolvePlainScalar('.'), '.');
});

test('integers beyond int64 fall back to uint64, then to float, then to string (go-yaml v2 resolve.go)', () => {
  assert.equal(resolvePlainScalarTyped('9223372036854775807').kind, 'int');
  assert.equal(resolvePlainScalarTyped('18446744073709551615').kind, 'int'); // ParseUint
  assert.equal(resolvePlainScalarTyped('-9223372036854775809').kind, 'float');
  assert.equal(resolvePlainScalarTyped('+18446744073709551615').kind, 'float'); // ParseUint takes no sign
  assert.equal(resolvePlainScalar('0x1FFFFFFFFFFFFFFFF'), '0x1FFFFFFFFFFFFFFFF'); // over uint64, not a float either
});

test('map keys become JSON keys like sigs.k8s.io/yaml convertToJSONableObject', () => {
  assert.equal(plainKeyToJsonKey('on'), 'true');
  assert.equal(plainKeyToJsonKey('no'), 'false');
  assert.equal(plainKeyToJsonKey('0644'), '420');
  assert.equal(plainKeyToJsonKey('0x10'), '16');
  assert.equal(plainKeyToJsonKey('9007199254740993'), '9007199254740993'); // exact, not rounded
  assert.equal(plainKeyToJsonKey('1.0'), '1');
  assert.equal(plainKeyToJsonKey('1e6'), '1e+06');
  assert.equal(plainKeyToJsonKey('3.14159265358979'), '3.1415927'); // FormatFloat(f, 'g', -1, 32)
  assert.equal(plainKeyToJsonKey('.inf'), '.inf');
  assert.equal(plainKeyToJsonKey('-.inf'), '-.inf');
  assert.equal(plainKeyToJsonKey('.nan'), '.nan');
  assert.equal(plainKeyToJsonKey('name'), 'name');
  // nil and uint64 keys are "unsupported map key" errors upstream.
  assert.equal(plainKeyToJsonKey('~'), undefined);
  assert.equal(plainKeyToJsonKey(''), undefined);
  assert.equal(plainKeyToJsonKey('18446744073709551615'), undefined);
  assert.equal(jsonKeyOf({ kind: 'str', value: 'x' }), 'x');
});

test("float keys use Go's shortest float32 'g' formatting (strconv.FormatFloat bitSize 32)", () => {
  // Expected strings produced by Go 1.19 strconv.FormatFloat(f, 'g', -1, 32).
  const cases: [number, string][] = [
    [1, '1'],
    [1e6, '1e+06'],
    [100000, '100000'],
    [0.1, '0.1'],
    [3.14159265358979, '3.1415927'],
    [1e-5, '1e-05'],
    [0.0001, '0.0001'],
    [123456789, '1.2345679e+08'],
    [1e21, '1e+21'],
    [0, '0'],
    [-0, '-0'],
    [16777216, '1.6777216e+07'],
    [1.5e-45, '1e-45'],
    [3.4e38, '3.4e+38'],
    [3.5e38, '.inf'],
    [-2.5, '-2.5'],
  ];
  for (const [f, want] of cases) assert.equal(formatGoFloat32General(f), want, String(f));
});

test('plainScalarIsNotString tells which texts need quotes to stay strings', () => {
  for (const s of ['yes', 'off', '~', '', '0644', '0o17', '1e3', '.5', '-1', '0x1f', '+1', '1_000', '.inf'])
    assert.ok(plainScalarIsNotString(s), s);
  for (const s of ['name', 'v1', '1:20', '2024-01-01', 'x-y', '<<', 'NaN', 'Infinity']) assert.ok(!plainScalarIsNotString(s), s);
});
