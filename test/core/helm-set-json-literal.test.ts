/**
 * `--set-json` and `--set-literal` with Helm's semantics: helm pkg/strvals/parser.go ParseJSON,
 * literal_parser.go ParseLiteral, and their order in pkg/cli/values/options.go MergeValues
 * (values files, --set-json, --set, --set-string, --set-literal).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';
import { applySetExpression, SetSyntaxError, setExpressionValues, userValues, type SetValueKind } from '../../src/core/helm-set.js';
import type { Values } from '../../src/core/values.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { setExpressions, setFlagWords } from '../../src/cli/set-flags.js';
import { CLI, exampleCopy } from '../helpers/cli.js';

function parse(expression: string, kind: SetValueKind, into: Values = {}): Values {
  applySetExpression(into, expression, false, kind);
  return into;
}

test('--set-json: JSON scalars, objects and arrays, an empty value is null, and a later key path reaches into a JSON value (helm pkg/strvals/parser_test.go TestParseJSON)', () => {
  assert.deepEqual(
    parse('outer.inner1="1",outer.inner3=3,outer.inner4=true,outer.inner5="true"', 'json', {
      outer: { inner1: 'overwrite', inner2: 'value2' },
    }),
    { outer: { inner1: '1', inner2: 'value2', inner3: 3, inner4: true, inner5: 'true' } },
  );
  assert.deepEqual(
    parse(
      'outer.inner1={"a":"1","b":2,"c":[1,2,3]},outer.inner3=["new value 1","new value 2"],outer.inner4={"aa":"1","bb":2,"cc":[1,2,3]},outer.inner5=[{"A":"1","B":2,"C":[1,2,3]}]',
      'json',
      { outer: { inner1: { x: 'overwrite' }, inner2: 'value2', inner3: ['overwrite'] } },
    ),
    {
      outer: {
        inner1: { a: '1', b: 2, c: [1, 2, 3] },
        inner2: 'value2',
        inner3: ['new value 1', 'new value 2'],
        inner4: { aa: '1', bb: 2, cc: [1, 2, 3] },
        inner5: [{ A: '1', B: 2, C: [1, 2, 3] }],
      },
    },
  );
  assert.deepEqual(
    parse('outer.inner1=,outer.inner3={"aa":"1","bb":2,"cc":[1,2,3]},outer.inner3.cc[1]=null', 'json', {
      outer: { inner1: { x: 'overwrite' }, inner2: 'value2' },
    }),
    { outer: { inner1: null, inner2: 'value2', inner3: { aa: '1', bb: 2, cc: [1, null, 3] } } },
  );
  assert.throws(
    () =>
      parse(
        'outer.inner1={"a":"1","b":2,"c":[1,2,3]},outer.inner3=["new value 1","new value 2"],outer.inner4={"aa":"1","bb":2,"cc":[1,2,3]},outer.inner5={"A":"1","B":2,"C":[1,2,3]}]',
        'json',
      ),
    SetSyntaxError,
  );
});

test('--set-json: a comma or brace inside a JSON string is part of it; blanks around a value are skipped; a value that is not JSON is an error', () => {
  assert.deepEqual(parse('a="x,y}",b= [1, {"c":"d,e"}] ,c=', 'json'), { a: 'x,y}', b: [1, { c: 'd,e' }], c: null });
  assert.deepEqual(parse('list[1]={"name":"manager"}', 'json'), { list: [null, { name: 'manager' }] });
  assert.throws(() => parse('a=[1,2', 'json'), /cannot parse --set "a=\[1,2": "\[1,2" is not a JSON value/);
  assert.throws(() => parse('a=yes', 'json'), /"yes" is not a JSON value/);
});

test('--set-literal: the value is the rest of the argument, a string as written, with no escapes (helm pkg/strvals/literal_parser_test.go TestParseLiteral)', () => {
  const cases: [string, unknown][] = [
    ['name=', { name: '' }],
    ['long_int_string=1234567890', { long_int_string: '1234567890' }],
    ['boolean=true', { boolean: 'true' }],
    ['is_null=null', { is_null: 'null' }],
    ['name1=null,name2=value2', { name1: 'null,name2=value2' }],
    ['name1=value,,,tail', { name1: 'value,,,tail' }],
    ['outer.middle.inner=value', { outer: { middle: { inner: 'value' } } }],
    ['name1={value1,value2}', { name1: '{value1,value2}' }],
    ['list[0].foo=bar', { list: [{ foo: 'bar' }] }],
    ['list[3]=bar', { list: [null, null, null, 'bar'] }],
    ['noval[0]', { noval: [] }],
    ['nested[1][1]=1', { nested: [null, [null, '1']] }],
    [']={}].', { ']': '{}].' }],
    ['name=val\\\\val', { name: 'val\\\\val' }],
    ['name={val,.?*v\\0a!l)some', { name: '{val,.?*v\\0a!l)some' }],
  ];
  for (const [expression, expected] of cases) assert.deepEqual(parse(expression, 'literal'), expected, expression);
  for (const expression of ['name', 'name1.name2', 'name1.=name2', 'name1.,name2', 'list[-30].hello=world', 'illegal[0]name.foo=bar'])
    assert.throws(() => parse(expression, 'literal'), SetSyntaxError, expression);
  // TestParseLiteralInto
  assert.deepEqual(
    parse('outer.inner1=value1,outer.inner3=value3,outer.inner4=4', 'literal', { outer: { inner1: 'overwrite', inner2: 'value2' } }),
    {
      outer: { inner1: 'value1,outer.inner3=value3,outer.inner4=4', inner2: 'value2' },
    },
  );
  const lists = parse('listOuter[0][0].type=listValue', 'literal');
  assert.deepEqual(parse('listOuter[0][0].status=alive', 'literal', lists), { listOuter: [[{ type: 'listValue', status: 'alive' }]] });
});

test("Helm's order (pkg/cli/values/options.go MergeValues): values files, --set-json (a whole JSON object merges like a file), --set, --set-string, --set-literal", () => {
  const flags = {
    setLiteral: ['a.literal=x,y', 'a.order=literal'],
    setString: ['a.order=string', 'a.string=1'],
    set: ['a.order=set', 'a.set=1'],
    setJson: ['{"a":{"order":"json-object","object":{"k":[1]}}}', 'a.order="json"', 'a.json={"k":true}'],
  };
  const sets = setExpressions(flags);
  assert.deepEqual(setFlagWords(flags), [
    '--set-json',
    '{"a":{"order":"json-object","object":{"k":[1]}}}',
    '--set-json',
    'a.order="json"',
    '--set-json',
    'a.json={"k":true}',
    '--set',
    'a.order=set',
    '--set',
    'a.set=1',
    '--set-string',
    'a.order=string',
    '--set-string',
    'a.string=1',
    '--set-literal',
    'a.literal=x,y',
    '--set-literal',
    'a.order=literal',
  ]);
  const advice = () => ({ expected: 'key=value', hint: 'see --help' });
  assert.deepEqual(userValues([{ values: { a: { file: true, object: { kept: 1 } } } }], sets, advice), {
    a: { file: true, object: { kept: 1, k: [1] }, order: 'literal', json: { k: true }, set: 1, string: '1', literal: 'x,y' },
  });
  assert.throws(
    () => userValues([], setExpressions({ setJson: ['a=[1', '{"a":'], setLiteral: ['novalue'], set: ['ok=1'] }), advice),
    (error: CapiGitopsError) => {
      assert.deepEqual(
        error.diagnostics.map((d) => [d.path, d.message]),
        [
          ['--set-json', 'cannot parse --set-json "a=[1": "[1" is not a JSON value'],
          ['--set-json', 'cannot parse --set-json "{\\"a\\":": the value starts with { but is not a JSON object'],
          ['--set-literal', 'cannot parse --set-literal "novalue": key "novalue" has no value'],
        ],
      );
      // --set-json is advised about JSON; the others get the caller's advice
      assert.deepEqual(
        error.diagnostics.map((d) => d.hint),
        [...Array<string>(2).fill(`quote the JSON for the shell, e.g. --set-json 'resources={"limits":{"cpu":"1"}}'`), 'see --help'],
      );
      return true;
    },
  );
});

test('CLI: render --layout argocd with --set-json and --set-literal sets the wiring chart values, recorded in the output README; import helm-values takes both', () => {
  const dir = exampleCopy();
  const render = spawnSync(
    process.execPath,
    [
      CLI,
      'render',
      '-f',
      'management-cluster',
      '-o',
      'out',
      '--layout',
      'argocd',
      '--set-literal',
      'repoURL=https://git.example.com/platform/mgmt,v2.git',
      '--set-json',
      'syncPolicy={"automated":null,"syncOptions":["CreateNamespace=true"]}',
      '--set',
      'path=out',
    ],
    { cwd: dir, encoding: 'utf8' },
  );
  assert.equal(render.status, 0, render.stderr);
  const argocd = path.join(dir, 'out', 'argocd');
  const application = readdirSync(argocd).find((f) => f.endsWith('-01-cluster-api.yaml'))!;
  const app = parseAllDocuments(readFileSync(path.join(argocd, application), 'utf8'))[0]!.toJS() as {
    spec: { source: { repoURL: string }; syncPolicy: Record<string, unknown> };
  };
  assert.equal(app.spec.source.repoURL, 'https://git.example.com/platform/mgmt,v2.git');
  assert.deepEqual(app.spec.syncPolicy.syncOptions, ['CreateNamespace=true']);
  assert.equal(app.spec.syncPolicy.automated, undefined);
  assert.match(
    readFileSync(path.join(dir, 'out', 'README.md'), 'utf8'),
    /--set-json 'syncPolicy=\{"automated":null,"syncOptions":\["CreateNamespace=true"\]\}' --set path=out --set-literal repoURL=https:\/\/git\.example\.com\/platform\/mgmt,v2\.git/,
  );

  const imported = spawnSync(
    process.execPath,
    [
      CLI,
      'import',
      'helm-values',
      '--set-json',
      'infrastructure.docker={"version":"v1.7.7","manager":{"featureGates":{"MachinePool":true}}}',
      '--set-literal',
      'infrastructure.docker.namespace=capd-system',
    ],
    { cwd: dir, encoding: 'utf8' },
  );
  assert.equal(imported.status, 0, imported.stderr);
  const docs = parseAllDocuments(imported.stdout).map((d) => d.toJS() as { kind: string; metadata: { namespace: string }; spec: unknown });
  const docker = docs.find((d) => d.kind === 'InfrastructureProvider')!;
  assert.equal(docker.metadata.namespace, 'capd-system');
  assert.deepEqual(docker.spec, { version: 'v1.7.7', manager: { featureGates: { MachinePool: true } } });
});

test('a --set list index or a --set-json value nested past 512 levels is a SetSyntaxError, not a stack overflow (Helm bounds dotted names at 30 levels, nested lists not at all)', () => {
  const deep = (expression: string, kind?: SetValueKind) =>
    assert.throws(
      () => setExpressionValues({ expression, forceString: false, ...(kind ? { kind } : {}) }),
      (error: unknown) => error instanceof SetSyntaxError && /nested deeper than 512 levels/.test(error.message),
      expression.slice(0, 40),
    );
  deep(`a${'[0]'.repeat(20_000)}=1`);
  // the expression is quoted up to a screen line, the reason after it
  assert.throws(
    () => setExpressionValues({ expression: `a${'[0]'.repeat(20_000)}=1`, forceString: false }),
    (error: unknown) => error instanceof Error && error.message.length < 300,
  );
  deep(`x=${'['.repeat(30_000)}${']'.repeat(30_000)}`, 'json');
  deep(`{"a":${'['.repeat(30_000)}${']'.repeat(30_000)}}`, 'json');
  // within the bound, as Helm reads them
  assert.deepEqual(setExpressionValues({ expression: `a${'[0]'.repeat(3)}=1`, forceString: false }), { a: [[[1]]] });
});
