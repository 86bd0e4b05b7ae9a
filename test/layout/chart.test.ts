/**
 * The chart engine: Helm's value layering, the --set syntax, schema validation, the helpers,
 * strict templates, and output always read back and written through the safe emitter.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { prepareChart, readValuesFile } from '../../src/layout/chart/index.js';
import { renderChart } from '../../src/layout/chart/render.js';
import type { ChartContext } from '../../src/layout/chart/types.js';
import { loadChart } from '../../src/layout/chart/load.js';
import { renderManagementCluster } from '../../src/app/cluster.js';
import { emitYamlDocument } from '../../src/yaml/emit.js';
import { readValuesYaml } from '../../src/layout/chart/values-yaml.js';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { rejection } from '../helpers/assertions.js';
import { tempDir, writeTempManifest, corpusManifest } from '../helpers/corpus-manifest.js';
import { runCli } from '../helpers/cli.js';

/** Writes a chart (relative path → text) into a new directory. */
function writeChart(files: Record<string, string>): string {
  const dir = tempDir('capi-gitops-chart-');
  const all = { 'Chart.yaml': 'apiVersion: v2\nname: probe\nversion: 0.1.0\n', ...files };
  for (const [name, text] of Object.entries(all)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const CONTEXT: Omit<ChartContext, 'Values' | 'Chart'> = {
  Release: { name: 'r', namespace: 'ns' },
  Components: [],
  ClusterResources: [],
  Namespaces: [],
  Wiring: { directory: 'w', path: 'w' },
  CaInjected: [],
  Unmanaged: [],
};

async function renderProbe(files: Record<string, string>, request: Partial<Parameters<typeof prepareChart>[0]> = {}) {
  const dir = writeChart(files);
  const { chart, values } = await prepareChart({ builtIn: 'argocd', userChart: dir, path: 'p', ...request });
  return renderChart(chart, { ...CONTEXT, Values: values, Chart: chart.metadata });
}

const PROBE_TEMPLATE = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: probe\ndata: {{nindent 2 (toYaml Values.data)}}\n';

test('values precedence, lowest first: values.yaml, Config gitops.values, --values files in order, --set, --set-string (helm pkg/cli/values/options.go MergeValues)', async () => {
  const valuesFile = (name: string, text: string) => {
    const file = path.join(tempDir(), name);
    writeFileSync(file, text);
    return file;
  };
  const first = valuesFile('first.yaml', 'data: {a: first, b: first, c: first, d: first}\n');
  const second = valuesFile('second.yaml', 'data: {b: second, c: second, d: second}\n');
  const docs = await renderProbe(
    // w, not y: a values file is YAML 1.1, where a plain y is true
    { 'values.yaml': 'data: {z: chart, w: chart, a: chart, b: chart, c: chart, d: chart}\n', 'templates/cm.yaml': PROBE_TEMPLATE },
    {
      configValues: { data: { w: 'config', a: 'config' } },
      valuesFiles: [first, second],
      set: [
        { expression: 'data.c=set,data.d=set', forceString: false },
        { expression: 'data.d=string', forceString: true },
      ],
    },
  );
  assert.deepEqual(docs[0]!.object.data, { z: 'chart', w: 'config', a: 'first', b: 'second', c: 'set', d: 'string' });
});

test("--set forms reach the templates with Helm's types: lists, indexes, escapes, inference (helm pkg/strvals)", async () => {
  const docs = await renderProbe(
    { 'values.yaml': 'data: {}\n', 'templates/cm.yaml': PROBE_TEMPLATE },
    {
      set: [
        { expression: 'data.list={a,b},data.idx[1]=x,data.esc=a\\,b,data.dotted\\.key=v,data.n=10,data.t=true', forceString: false },
        { expression: 'data.s=10', forceString: true },
      ],
    },
  );
  assert.deepEqual(docs[0]!.object.data, { list: ['a', 'b'], idx: [null, 'x'], esc: 'a,b', 'dotted.key': 'v', n: 10, t: true, s: '10' });
});

test('null deletes a chart default, so --set syncPolicy.automated=null turns automated sync off (helm coalesce.go)', async () => {
  const result = await renderManagementCluster({
    manifestPaths: [writeTempManifest({ 'p.yaml': corpusManifest() })],
    layout: 'argocd',
    set: [{ expression: 'repoURL=https://git.example.com/x.git,path=mgmt,syncPolicy.automated=null', forceString: false }],
  });
  const app = YAML.parse(result.files.get('argocd/application-capi-gitops-01-cluster-api.yaml')!);
  assert.equal(app.spec.syncPolicy.automated, undefined);
  assert.ok(app.spec.syncPolicy.retry, 'the rest of syncPolicy stays');
});

test('values are checked against values.schema.json before any template runs; errors name the value path', async () => {
  const error = await rejection(
    prepareChart({
      builtIn: 'argocd',
      path: 'p',
      set: [{ expression: 'repoURL=https://x,syncPolicy.retry.limit=many,destination.nmae=x', forceString: false }],
    }),
  );
  const paths = error.diagnostics.map((d) => d.path).sort();
  assert.deepEqual(paths, ['destination.nmae', 'syncPolicy.retry.limit']);
  assert.match(
    error.diagnostics.find((d) => d.path === 'syncPolicy.retry.limit')!.message,
    /value syncPolicy\.retry\.limit \(given by --set\) must be integer/,
  );
  assert.equal(error.diagnostics.find((d) => d.path === 'syncPolicy.retry.limit')!.expected, 'a value of type integer');
  assert.equal(
    error.diagnostics.find((d) => d.path === 'destination.nmae')!.expected,
    'one of the values the chart declares here: server, name',
  );
  const missing = await rejection(prepareChart({ builtIn: 'argocd', path: 'p' }));
  assert.deepEqual(
    missing.diagnostics.map((d) => [d.path, d.message]),
    [['repoURL', 'value repoURL is required']],
  );
  // the argocd chart's own values, as the README writes repoURL: gitops.values would reach the flux chart too
  assert.equal(missing.diagnostics[0]!.hint, 'set it, e.g. --set repoURL=… or under gitops.argocd.values in the Config document');
});

test('an output outside any Git repository with no repoURL: both missing values told in one run, not the path only after repoURL is given', async () => {
  const outputDir = path.join(tempDir('capi-gitops-no-git-'), 'out');
  const error = await rejection(prepareChart({ builtIn: 'argocd', outputDir }));
  assert.deepEqual(error.diagnostics.map((d) => d.path).sort(), ['path', 'repoURL']);
  assert.match(error.diagnostics.find((d) => d.path === 'path')!.hint!, /--set path=clusters\/mgmt\/capi/);
  // both hints followed: the chart's values are complete
  const { values } = await prepareChart({
    builtIn: 'argocd',
    outputDir,
    set: [{ expression: 'repoURL=https://git.example.com/platform/mgmt.git,path=clusters/mgmt/capi', forceString: false }],
  });
  assert.equal(values.path, 'clusters/mgmt/capi');
  // a path of the wrong type is the schema's problem alone
  const wrongType = await rejection(
    prepareChart({ builtIn: 'argocd', outputDir, set: [{ expression: 'repoURL=https://x,path=123', forceString: false }] }),
  );
  assert.deepEqual(
    wrongType.diagnostics.map((d) => [d.path, d.message]),
    [['path', 'value path (given by --set) must be string,null']],
  );
});

test('a --values file value the schema refuses is told at its line there; a number or boolean where a string is wanted gets the way to write it as one', async () => {
  const values = path.join(tempDir('capi-gitops-values-'), 'values.yaml');
  writeFileSync(values, 'repoURL: https://git.example.com/x.git\ntargetRevision: 2024\n');
  const fromFile = await rejection(prepareChart({ builtIn: 'argocd', path: 'p', valuesFiles: [values] }));
  assert.deepEqual(
    fromFile.diagnostics.map((d) => [d.file, d.line, d.column, d.path]),
    [[values, 2, 17, 'targetRevision']],
  );
  assert.equal(fromFile.diagnostics[0]!.hint, `quote it in ${values}: "2024" (YAML reads 2024 unquoted as a number)`);

  const fromSet = await rejection(
    prepareChart({
      builtIn: 'argocd',
      path: 'p',
      set: [{ expression: 'repoURL=https://x,targetRevision=2024,destination.server=true', forceString: false }],
    }),
  );
  assert.deepEqual(
    fromSet.diagnostics.map((d) => d.hint),
    [
      '--set reads 2024 as a number: pass it with --set-string targetRevision=2024',
      '--set reads true as a boolean: pass it with --set-string destination.server=true',
    ],
  );
  // followed literally, the hint works
  const fixed = await prepareChart({
    builtIn: 'argocd',
    path: 'p',
    set: [
      { expression: 'repoURL=https://x', forceString: false },
      { expression: 'targetRevision=2024', forceString: true },
    ],
  });
  assert.equal(fixed.values.targetRevision, '2024');
});

test('a list entry the schema refuses is told where it was written: at its line in a --values file, and a --set list[1]=x (which leaves list[0] null, helm pkg/strvals/parser.go) at that flag', async () => {
  const values = path.join(tempDir('capi-gitops-values-'), 'values.yaml');
  writeFileSync(values, 'repoURL: https://git.example.com/x.git\nsyncPolicy:\n  syncOptions:\n  - PruneLast=true\n  - 5\n');
  const fromFile = await rejection(prepareChart({ builtIn: 'argocd', path: 'p', valuesFiles: [values] }));
  assert.deepEqual(
    fromFile.diagnostics.map((d) => [d.file, d.line, d.column, d.path]),
    [[values, 5, 5, 'syncPolicy.syncOptions[1]']],
  );
  const fromSet = await rejection(
    prepareChart({
      builtIn: 'argocd',
      path: 'p',
      set: [
        { expression: 'repoURL=https://x', forceString: false },
        { expression: 'syncPolicy.syncOptions[1]=PruneLast=true', forceString: false },
      ],
    }),
  );
  assert.deepEqual(
    fromSet.diagnostics.map((d) => [d.path, d.message]),
    [['syncPolicy.syncOptions[0]', 'value syncPolicy.syncOptions[0] (given by --set) must be string']],
  );
  // the whole list is the fix, quoted so that a shell's brace expansion leaves it whole
  assert.equal(
    fromSet.diagnostics[0]!.hint,
    "--set of a later entry of syncPolicy.syncOptions leaves syncPolicy.syncOptions[0] null, as Helm's --set does, and a list replaces the chart's: give the whole list, e.g. --set 'syncPolicy.syncOptions={…,…}'",
  );
  const whole = await prepareChart({
    builtIn: 'argocd',
    path: 'p',
    set: [
      { expression: 'repoURL=https://x', forceString: false },
      { expression: 'syncPolicy.syncOptions={CreateNamespace=false,PruneLast=true}', forceString: false },
    ],
  });
  assert.deepEqual((whole.values.syncPolicy as { syncOptions: string[] }).syncOptions, ['CreateNamespace=false', 'PruneLast=true']);
});

test('a --set value over the Config gitops.argocd.values is told at the flag that gave it, with --set-string, not at the Config line it replaced (helm pkg/cli/values/options.go MergeValues: --set wins)', async () => {
  const dir = writeTempManifest({ 'p.yaml': corpusManifest() });
  const file = path.join(dir, 'p.yaml');
  const values = '    values:\n      repoURL: https://git.example.com/x.git\n      path: clusters/mgmt\n      targetRevision: main\n';
  writeFileSync(file, readFileSync(file, 'utf8').replace('kind: Config\n', `kind: Config\ngitops:\n  argocd:\n${values}`));
  const render = (...flags: string[]) => runCli(['render', '-f', 'p.yaml', '-o', 'out', '--layout', 'argocd', ...flags], { cwd: dir });

  const refused = await render('--set', 'targetRevision=2024');
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(
    refused.stderr,
    /^error: built-in chart argocd values: targetRevision: value targetRevision \(given by --set\) must be string\n.*\n  hint: --set reads 2024 as a number: pass it with --set-string targetRevision=2024\n/m,
  );
  assert.doesNotMatch(refused.stderr, /p\.yaml:|quote it/);
  // followed literally, the hint works
  const fixed = await render('--set-string', 'targetRevision=2024');
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.match(readFileSync(path.join(dir, 'out', 'argocd', 'application-capi-gitops.yaml'), 'utf8'), /targetRevision: "2024"/);
});

test('a value of the Config gitops.values the chart does not declare is an error at its line in the manifest', async () => {
  const dir = writeTempManifest({ 'p.yaml': corpusManifest() });
  const file = path.join(dir, 'p.yaml');
  const text = readFileSync(file, 'utf8').replace(
    'kind: Config\n',
    'kind: Config\ngitops:\n  values:\n    repoURL: https://git.example.com/x.git\n',
  );
  writeFileSync(file, text);
  const error = await rejection(renderManagementCluster({ manifestPaths: [file], layout: 'flux' }));
  const problem = error.diagnostics.find((d) => d.message === 'value repoURL is not a value of this chart')!;
  assert.equal(problem.file, file);
  assert.equal(text.split('\n')[problem.line! - 1], '    repoURL: https://git.example.com/x.git');
  assert.equal(problem.column, 14);
});

test('a --set syntax error is a clear error naming the expression', async () => {
  const error = await rejection(prepareChart({ builtIn: 'flux', path: 'p', set: [{ expression: 'interval', forceString: false }] }));
  assert.match(error.diagnostics[0]!.message, /cannot parse --set "interval": key "interval" has no value/);
});

test("an alias in a --values file or a chart's values.yaml is expanded, as Helm reads values (go-yaml); an alias bomb is an error at its line, not an internal error", async () => {
  const dir = tempDir('capi-gitops-values-');
  const valuesFile = path.join(dir, 'values.yaml');
  writeFileSync(valuesFile, 'a: &x [1, 2]\nb: *x\n');
  const layer = await readValuesFile(valuesFile);
  assert.deepEqual(layer.values, { a: [1, 2], b: [1, 2] });
  const chart = writeChart({ 'values.yaml': 'a: 1\nb: &y {c: 2}\nd: *y\n', 'templates/cm.yaml': PROBE_TEMPLATE });
  assert.deepEqual((await loadChart(chart)).defaults, { a: 1, b: { c: 2 }, d: { c: 2 } });

  // each level doubles: 2^12 values from a dozen lines
  const levels = ['l0: &l0 [x, x]', ...Array.from({ length: 12 }, (_, i) => `l${i + 1}: &l${i + 1} [*l${i}, *l${i}]`)];
  writeFileSync(valuesFile, levels.join('\n') + '\n');
  const bomb = await rejection(prepareChart({ builtIn: 'flux', path: 'p', valuesFiles: [valuesFile] }));
  assert.deepEqual(
    bomb.diagnostics.map((d) => [d.file, d.line, d.column, d.message]),
    [[valuesFile, 2, 15, 'too many alias references']],
  );
  assert.doesNotMatch(JSON.stringify(bomb.diagnostics), /ReferenceError/);

  // an alias with no anchor before it is told as that, at the alias, not as a bomb
  writeFileSync(valuesFile, 'a: &x 1\nb: [*x, *nowhere]\n');
  const unresolved = await rejection(prepareChart({ builtIn: 'flux', path: 'p', valuesFiles: [valuesFile] }));
  assert.deepEqual(
    unresolved.diagnostics.map((d) => [d.file, d.line, d.column, d.message]),
    [[valuesFile, 2, 9, 'the alias *nowhere names no anchor before it in this document']],
  );
});

test("a merge key (<<) in a --values file or a chart's values.yaml merges the aliased maps, as Helm reads values (go-yaml v2 decode.go merge); a merge of a scalar is an error at its line (helm pkg/chart/common/values.go ReadValues)", async () => {
  const dir = tempDir('capi-gitops-values-');
  const valuesFile = path.join(dir, 'values.yaml');
  writeFileSync(
    valuesFile,
    'base: &base {team: platform, tier: infra}\nlabels:\n  <<: *base\n  tier: capi\nmany:\n  <<: [*base, {zone: a}]\n',
  );
  const layer = await readValuesFile(valuesFile);
  assert.deepEqual(layer.values, {
    base: { team: 'platform', tier: 'infra' },
    labels: { team: 'platform', tier: 'capi' },
    many: { team: 'platform', tier: 'infra', zone: 'a' },
  });
  const chart = writeChart({ 'values.yaml': 'd: &d {c: 2}\ne:\n  <<: *d\n  f: 3\n', 'templates/cm.yaml': PROBE_TEMPLATE });
  assert.deepEqual((await loadChart(chart)).defaults, { d: { c: 2 }, e: { c: 2, f: 3 } });

  // go-yaml v2: "map merge requires map or sequence of maps as the value"
  writeFileSync(valuesFile, 'a: &x 1\nb:\n  <<: *x\n');
  const scalar = await rejection(prepareChart({ builtIn: 'flux', path: 'p', valuesFiles: [valuesFile] }));
  assert.deepEqual(
    scalar.diagnostics.map((d) => [d.file, d.line, d.column, d.message]),
    [[valuesFile, 3, 7, 'the merge key << takes a map, an alias of one, or a list of them']],
  );
  assert.doesNotMatch(JSON.stringify(scalar.diagnostics), /at mergeValue|Error:/);
});

test('a --values file with a key twice is read as Helm reads it, the last taken, with a warning at the repeat (helm pkg/chart/common/values.go ReadValues → sigs.k8s.io/yaml yaml.go Unmarshal → go-yaml v2 decode.go setMapIndex, not strict); one that is a list is an error at its line (a values file is a map)', async () => {
  const dir = tempDir('capi-gitops-values-');
  const valuesFile = path.join(dir, 'values.yaml');
  // `yes` and `true` are one key (go-yaml v2 reads both as the boolean true)
  writeFileSync(valuesFile, 'syncPolicy:\n  retry:\n    limit: 3\n    limit: 4\nlabels:\n  yes: a\n  true: b\n');
  const twice = await readValuesFile(valuesFile);
  assert.deepEqual(twice.values, { syncPolicy: { retry: { limit: 4 } }, labels: { true: 'b' } });
  assert.deepEqual(
    twice.warnings?.map((d) => [d.file, d.line, d.column, d.path, d.message, d.hint]),
    [
      [
        valuesFile,
        4,
        5,
        'syncPolicy.retry.limit',
        'given again in its map (first at line 3): Helm reads the last one, this one, and so does capi-gitops',
        "keep the value you mean: delete line 3's entry to keep this one, or this one to keep line 3's",
      ],
      [
        valuesFile,
        7,
        3,
        'labels.true',
        'given again in its map (first at line 6): Helm reads the last one, this one, and so does capi-gitops',
        "keep the value you mean: delete line 6's entry to keep this one, or this one to keep line 6's",
      ],
    ],
  );
  // Helm 3 reads a values file's first document only, Helm 4 merges them all (pkg/chart/v2/loader/load.go LoadValues)
  writeFileSync(valuesFile, 'a: 1\n---\nb: 2\n');
  const documents = await rejection(readValuesFile(valuesFile));
  assert.deepEqual(
    documents.diagnostics.map((d) => [d.line, d.column, d.message, d.hint]),
    [
      [
        2,
        1,
        'holds 2 YAML documents',
        'merge the documents into one map and delete the --- line: Helm versions differ on a file of several (the first only, or all merged)',
      ],
    ],
  );
  writeFileSync(valuesFile, '# values\n- repoURL: https://git.example.com/x.git\n');
  const list = await rejection(readValuesFile(valuesFile));
  assert.deepEqual(
    list.diagnostics.map((d) => [d.line, d.column, d.message, d.hint]),
    [[2, 1, 'is not a mapping: a list', 'write the values as keys of a map, e.g. repoURL: https://git.example.com/platform/mgmt.git']],
  );
});

test("values files are read as Helm reads them, YAML 1.1's scalars (yes, on, 0644, 1_000): booleans and numbers (sigs.k8s.io/yaml yaml.go Unmarshal over go-yaml v2 resolve.go), without base 60 or timestamps", async () => {
  const dir = tempDir('capi-gitops-values-');
  const valuesFile = path.join(dir, 'values.yaml');
  writeFileSync(valuesFile, 'a: yes\nb: Off\nc: 0644\nd: 1_000\ne: 10:30\nf: 2024-01-01\ng: "yes"\nh: y\ni: ~\n');
  // go-yaml v2 has no base 60 (10:30 stays text); a date stays the text written (Helm's JSON round trip writes it as an RFC 3339 time)
  assert.deepEqual((await readValuesFile(valuesFile)).values, {
    a: true,
    b: false,
    c: 420,
    d: 1000,
    e: '10:30',
    f: '2024-01-01',
    g: 'yes',
    h: true,
    i: null,
  });
  const chart = writeChart({ 'values.yaml': 'enabled: on\n', 'templates/cm.yaml': PROBE_TEMPLATE });
  assert.deepEqual((await loadChart(chart)).defaults, { enabled: true });
  // a value the schema wants as a string, written yes: the hint quotes what was written
  writeFileSync(valuesFile, 'repoURL: https://git.example.com/x.git\ntargetRevision: yes\n');
  const refused = await rejection(prepareChart({ builtIn: 'argocd', path: 'p', valuesFiles: [valuesFile] }));
  assert.deepEqual(
    refused.diagnostics.map((d) => [d.line, d.column, d.hint]),
    [[2, 17, `quote it in ${valuesFile}: "yes" (YAML reads yes unquoted as a boolean)`]],
  );
});

test("values files' plain scalars are typed as go-yaml v2 types them, Go's ParseInt and ParseFloat included (0o17, 0X1F, 0B11 are integers; `.` and 1e400 text), and a merge key (<<) written after a key replaces it, as Helm reads values (helm pkg/chart/common/values.go ReadValues → sigs.k8s.io/yaml yaml.go Unmarshal → go-yaml v2 resolve.go resolve, decode.go mapping and merge)", async () => {
  const dir = tempDir('capi-gitops-values-');
  const valuesFile = path.join(dir, 'values.yaml');
  writeFileSync(
    valuesFile,
    'a: 0o17\nb: 0X1F\nc: 0B11\nd: +0o17\ne: .\nf: 1e400\ng: 0_x1F\nbase: &b {tier: infra}\nh:\n  tier: capi\n  <<: *b\n',
  );
  assert.deepEqual((await readValuesFile(valuesFile)).values, {
    a: 15,
    b: 31,
    c: 3,
    d: 15,
    e: '.',
    f: '1e400',
    g: 31,
    base: { tier: 'infra' },
    h: { tier: 'infra' },
  });
  const chart = writeChart({ 'values.yaml': 'mode: 0o644\n', 'templates/cm.yaml': PROBE_TEMPLATE });
  assert.deepEqual((await loadChart(chart)).defaults, { mode: 420 });
  // Helm's JSON round trip (sigs.k8s.io/yaml yamlToJSONTarget, json.Marshal) refuses infinity and NaN
  writeFileSync(valuesFile, 'a: 1\nb: .inf\n');
  const infinite = await rejection(readValuesFile(valuesFile));
  assert.deepEqual(
    infinite.diagnostics.map((d) => [d.file, d.line, d.column, d.message, d.hint]),
    [[valuesFile, 2, 4, 'infinity and NaN have no JSON form', 'quote the value if it is meant as a string']],
  );
});

test('--values - is told as standard input, which is not read, with a hint to pass a file (helm pkg/cli/values/options.go readFile reads "-" from stdin)', async () => {
  const error = await rejection(readValuesFile('-'));
  assert.deepEqual(
    error.diagnostics.map((d) => [d.file, d.message, d.hint]),
    [
      [
        '-',
        'standard input is not read for values (Helm reads --values - from it)',
        'write the values to a file and pass its path: --values values.yaml (a render can read them more than once: for each cluster of a fleet, for each side of a diff)',
      ],
    ],
  );
});

test("a key some items of a values list lack ({{#if namespace}} in {{#each Values.deps}}) is told with a hint that works: declare it in the schema's items, or read it with lookup (helm: a missing key of a list item reads as nil)", async () => {
  const template =
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: probe\ndata:\n{{#each Values.deps}}\n  {{name}}: {{#if namespace}}{{quote namespace}}{{else}}"-"{{/if}}\n{{/each}}\n';
  const files = { 'values.yaml': 'deps: []\n', 'templates/cm.yaml': template };
  const set = [{ expression: 'deps[0].name=a,deps[0].namespace=x,deps[1].name=b', forceString: false }];
  const missing = await rejection(renderProbe(files, { set }));
  assert.deepEqual(
    missing.diagnostics.map((d) => [d.line, d.message, d.hint]),
    [
      [
        7,
        'value "namespace" is not defined',
        'an item of a list lacks it: declare it, "namespace": {} in "properties" of #/properties/deps/items in values.schema.json, ' +
          'or read it with (lookup this "namespace")',
      ],
    ],
  );
  // followed: the schema declares the items' keys
  const schema = JSON.stringify({
    type: 'object',
    properties: { path: {}, deps: { type: 'array', items: { properties: { name: {}, namespace: {} } } } },
  });
  const declared = await renderProbe({ ...files, 'values.schema.json': schema }, { set });
  assert.deepEqual(declared[0]!.object.data, { a: 'x', b: '-' });
  const looked = await renderProbe(
    { ...files, 'templates/cm.yaml': template.replace('{{#if namespace}}', '{{#if (lookup this "namespace")}}') },
    { set },
  );
  assert.deepEqual(looked[0]!.object.data, { a: 'x', b: '-' });
});

test('a schema with a remote $ref is refused: charts never make the tool fetch', async () => {
  const dir = writeChart({
    'values.schema.json': JSON.stringify({ type: 'object', properties: { a: { $ref: 'https://example.com/schema.json' } } }),
    'templates/cm.yaml': PROBE_TEMPLATE,
  });
  const error = await rejection(loadChart(dir));
  assert.match(error.diagnostics[0]!.message, /refers outside itself: #\/properties\/a\/\$ref: https:\/\/example\.com\/schema\.json/);
  // each told at its line and column in the schema file
  const written = writeChart({
    'values.schema.json':
      '{\n  "type": "object",\n  "properties": {\n    "a": { "$ref": "https://example.com/a.json" },\n    "b": { "$ref": "b.json" }\n  }\n}\n',
    'templates/cm.yaml': PROBE_TEMPLATE,
  });
  assert.deepEqual(
    (await rejection(loadChart(written))).diagnostics.map((d) => [d.line, d.column, d.message]),
    [
      [4, 20, 'refers outside itself: #/properties/a/$ref: https://example.com/a.json'],
      [5, 20, 'refers outside itself: #/properties/b/$ref: b.json'],
    ],
  );
});

test('a template reading a value that does not exist fails naming the chart file and line (strict)', async () => {
  const error = await rejection(
    renderProbe({
      'values.yaml': 'data: {}\n',
      'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{Values.nmae}}\n',
    }),
  );
  const d = error.diagnostics[0]!;
  assert.match(d.file!, /templates\/cm\.yaml$/);
  assert.equal(d.line, 4);
  assert.match(d.message, /value "nmae" is not defined/);
});

test('a template that does not compile fails naming its file and line', async () => {
  const error = await rejection(renderProbe({ 'templates/ok.yaml': PROBE_TEMPLATE, 'templates/broken.yaml': 'a: 1\nb: {{x}\nc: 3\n' }));
  assert.match(error.diagnostics[0]!.file!, /templates\/broken\.yaml$/);
  assert.equal(error.diagnostics[0]!.line, 2);
});

test('a rendered document that is not valid YAML is an error naming the template', async () => {
  const error = await rejection(
    renderProbe({
      'values.yaml': 'data: {a: 1}\n',
      'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata: {{toYaml Values.data}}\n  b: [\n',
    }),
  );
  assert.match(error.diagnostics[0]!.file!, /templates\/cm\.yaml$/);
  assert.match(error.diagnostics[0]!.message, /renders invalid YAML/);
});

test('a chart emitting on:, yes and 0644 gets them written so every YAML 1.1 reader reads the same', async () => {
  const docs = await renderProbe({
    'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  on: yes\n  mode: "0644"\n',
  });
  const text = emitYamlDocument(docs[0]!.object);
  assert.match(text, /\n {2}"on": "yes"\n/);
  assert.match(text, /\n {2}mode: "0644"\n/);
  assert.deepEqual(YAML.parse(text, { version: '1.1' }).data, { on: 'yes', mode: '0644' });
});

test('helpers: default (Sprig emptiness), required, include, quote, eq/ne/and/or/not, list, dict, join, and each over maps in code-unit order', async () => {
  const docs = await renderProbe({
    'values.yaml': 'm: {b: 2, a: 1, B: 0}\nempty: ""\nzero: 0\nname: nm\n',
    'templates/_label.hbs': 'x-{{name}}',
    'templates/cm.yaml':
      [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: {{include "label" Values}}',
        'data:',
        '  d1: {{quote (default "fallback" Values.empty)}}',
        '  d2: {{quote (default "fallback" Values.zero)}}',
        '  d3: {{quote (default "fallback" Values.name)}}',
        '  keys: {{quote (join "," (list "x" "y"))}}',
        '  logic: "{{#if (and (eq 1 1) (ne 1 2) (or 0 "x") (not ""))}}ok{{/if}}"',
        '  dict: {{quote (join "" (list (lookup (dict "k" "v") "k")))}}',
        '  order: "{{#each Values.m}}{{@key}}={{this}};{{/each}}"',
        '  req: {{quote (required "name is required" Values.name)}}',
        // Sprig's strval is Go's %v: a map as map[k:v …] with sorted keys, a list as [a b] (Masterminds/sprig strings.go quote, strval)
        '  map: {{quote Values.m}}',
        '  list: {{quote (list "x" (list 1 2))}}',
      ].join('\n') + '\n',
  });
  assert.deepEqual(docs[0]!.object.metadata.name, 'x-nm');
  assert.deepEqual(docs[0]!.object.data, {
    d1: 'fallback',
    d2: 'fallback',
    d3: 'nm',
    keys: 'x,y',
    logic: 'ok',
    dict: 'v',
    order: 'B=0;a=1;b=2;',
    req: 'nm',
    map: 'map[B:0 a:1 b:2]',
    list: '[x [1 2]]',
  });
  const error = await rejection(
    renderProbe({ 'values.yaml': 'name: ""\n', 'templates/cm.yaml': 'a: {{required "name is required" Values.name}}\n' }),
  );
  assert.match(error.diagnostics[0]!.message, /name is required/);
  // the value required read is named, so the hint can be followed as written
  assert.equal(error.diagnostics[0]!.expected, 'a value for name (it is null, empty or unset)');
  assert.equal(error.diagnostics[0]!.hint, 'set it: --set name=… or under gitops.values in the Config document');
  const nested = await rejection(
    renderProbe({
      'values.yaml': 'owner: {team: null}\n',
      'templates/cm.yaml': '{{#with Values.owner}}a: {{required "team please" @root.Values.owner.team}}{{/with}}\n',
    }),
  );
  assert.equal(nested.diagnostics[0]!.hint, 'set it: --set owner.team=… or under gitops.values in the Config document');
});

test('Chart.yaml is validated: apiVersion v2, a DNS-label name and a version', async () => {
  const dir = writeChart({ 'Chart.yaml': 'apiVersion: v1\nname: Bad_Name\n', 'templates/cm.yaml': PROBE_TEMPLATE });
  const error = await rejection(loadChart(dir));
  assert.deepEqual(
    error.diagnostics.map((d) => [d.path, d.line]),
    // the missing version at the mapping that lacks it (1:1), told first; the others at their lines
    [
      ['version', 1],
      ['apiVersion', 1],
      ['name', 2],
    ],
  );
});

test('a user chart (gitops.chart, relative to the manifest) that overrides the Application template replaces the built-in chart', async () => {
  const manifestDir = writeTempManifest({ 'p.yaml': corpusManifest() });
  const show = await runCli(['chart', 'show', 'argocd', '--output-dir', path.join(manifestDir, 'my-chart')]);
  assert.equal(show.code, 0, show.stderr);
  const template = path.join(manifestDir, 'my-chart', 'templates', 'applications.yaml');
  writeFileSync(
    template,
    readFileSync(template, 'utf8').replace(
      '    app.kubernetes.io/managed-by: capi-gitops\n',
      '    app.kubernetes.io/managed-by: capi-gitops\n    team: platform\n',
    ),
  );
  const providers = readFileSync(path.join(manifestDir, 'p.yaml'), 'utf8');
  writeFileSync(
    path.join(manifestDir, 'p.yaml'),
    providers.replace(
      'kind: Config\n',
      'kind: Config\ngitops:\n  chart: ./my-chart\n  path: clusters/mgmt\n  values:\n    repoURL: https://git.example.com/x.git\n',
    ),
  );
  const result = await renderManagementCluster({ manifestPaths: [path.join(manifestDir, 'p.yaml')], layout: 'argocd' });
  const app = YAML.parse(result.files.get('argocd/application-capi-gitops-01-cluster-api.yaml')!);
  assert.equal(app.metadata.labels.team, 'platform');
});

test('capi-gitops chart show prints every file of a built-in chart', async () => {
  const result = await runCli(['chart', 'show', 'flux']);
  assert.equal(result.code, 0, result.stderr);
  for (const file of ['Chart.yaml', 'values.yaml', 'values.schema.json', 'templates/kustomizations.yaml', 'templates/gitrepository.yaml'])
    assert.match(result.stdout, new RegExp(`# Source: flux/${file.replace('.', '\\.')}\\n`));
  const unknown = await runCli(['chart', 'show', 'helm']);
  assert.equal(unknown.code, 2);
});

test('the same values give the same bytes: the engine reads no clock, environment or randomness', async () => {
  const files = { 'values.yaml': 'data: {b: 1, a: 2}\n', 'templates/cm.yaml': PROBE_TEMPLATE };
  const a = await renderProbe(files);
  const b = await renderProbe(files);
  assert.equal(emitYamlDocument(a[0]!.object), emitYamlDocument(b[0]!.object));
});

test('built-in charts precompiled at build render the same documents as the charts/ sources compiled at run time', async () => {
  const { loadBuiltInChart, BUILT_IN_CHARTS_DIR } = await import('../../src/layout/chart/load.js');
  const { chartValues } = await import('../../src/layout/chart/values.js');
  for (const name of ['argocd', 'flux']) {
    const built = await loadBuiltInChart(name);
    assert.ok(
      built.templates.every((t) => t.spec !== undefined && t.source === undefined),
      'precompiled',
    );
    assert.ok(built.validateValues, 'schema precompiled');
    const source = await loadChart(path.join(BUILT_IN_CHARTS_DIR, name), built.origin);
    const sets = [{ expression: 'repoURL=https://git.example.com/x.git,path=p', forceString: false }]
      .filter(() => name === 'argocd')
      .concat(name === 'flux' ? [{ expression: 'path=p,gitRepository.url=https://git.example.com/x.git', forceString: false }] : []);
    const components = [
      {
        label: 'cluster-api',
        kind: 'CoreProvider',
        name: 'cluster-api',
        namespace: 'capi-system',
        version: 'v1.12.0',
        path: 'p/01-cluster-api',
        directory: '01-cluster-api',
        wave: 1,
        dependsOn: ['00-cert-manager'],
        hasCRDs: true,
        hasWebhooks: true,
        unmanaged: [],
        caInjected: [],
      },
    ];
    const context = (chart: typeof built) => ({
      ...CONTEXT,
      Components: components,
      Values: chartValues(chart, [], sets),
      Chart: chart.metadata,
    });
    const a = renderChart(built, context(built)).map((d) => emitYamlDocument(d.object));
    const b = renderChart(source, context(source)).map((d) => emitYamlDocument(d.object));
    assert.deepEqual(a, b, name);
    assert.ok(a.length >= 2, name);
    const bad = [{ expression: 'releaseName=Not_A_Label', forceString: false }, ...sets];
    assert.deepEqual(
      (await rejection(Promise.resolve().then(() => chartValues(built, [], bad)))).diagnostics.map((d) => d.path),
      (await rejection(Promise.resolve().then(() => chartValues(source, [], bad)))).diagnostics.map((d) => d.path),
    );
  }
});

test("a chart's own new value in values.yaml that its values.schema.json does not list yet: the hint names the schema to add it to", async () => {
  const dir = writeChart({
    'values.yaml': 'path: null\nowner: null\n',
    'values.schema.json': JSON.stringify({
      type: 'object',
      additionalProperties: false,
      properties: { path: { type: ['string', 'null'] } },
    }),
    'templates/a.yaml': 'kind: ConfigMap\n',
  });
  const error = await rejection(prepareChart({ builtIn: 'flux', userChart: dir, path: 'p' }));
  assert.deepEqual(
    error.diagnostics.map((d) => [d.path, d.hint]),
    [['owner', `the chart's values.yaml sets owner: declare it in the properties of ${dir}/values.schema.json too`]],
  );
  // a value the user sets that the chart does not have: the close one, and the schema to read
  const typo = await rejection(
    prepareChart({ builtIn: 'flux', userChart: dir, path: 'p', set: [{ expression: 'ownr=x', forceString: false }] }),
  );
  assert.deepEqual(typo.diagnostics.map((d) => [d.path, d.hint]).sort(), [
    ['owner', `the chart's values.yaml sets owner: declare it in the properties of ${dir}/values.schema.json too`],
    ['ownr', `did you mean owner? see ${dir}/values.schema.json`],
  ]);
});

test("{{#each}} over a string, number or boolean fails at its line naming the value, as Helm's range does, instead of rendering nothing (text/template exec.go walkRange)", async () => {
  const template =
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n{{#each Values.extra}}\n  {{@key}}: {{quote this}}\n{{/each}}\n';
  const error = await rejection(
    renderProbe(
      { 'values.yaml': 'extra: null\n', 'templates/cm.yaml': template },
      { set: [{ expression: 'extra=abc', forceString: false }] },
    ),
  );
  assert.equal(error.diagnostics[0]!.line, 6);
  assert.equal(error.diagnostics[0]!.message, '{{#each}} cannot walk "abc", a string');
  assert.equal(error.diagnostics[0]!.hint, `set extra to a list or a map, e.g. --set 'extra={a,b}' or --set-json 'extra={"k":"v"}'`);
  // null walks nothing, as Helm's range over nil; a map renders
  const empty = await renderProbe({ 'values.yaml': 'extra: null\n', 'templates/cm.yaml': template });
  assert.match(YAML.stringify(empty.map((d) => d.object)), /data: null/);
  const map = await renderProbe(
    { 'values.yaml': 'extra: null\n', 'templates/cm.yaml': template },
    { set: [{ expression: 'extra.a=1', forceString: false }] },
  );
  assert.match(YAML.stringify(map.map((d) => d.object)), /a: "1"/);
});

test('a required value a loop reads on every turn is one problem at its place, and the run goes on to the next problem of the template (helm engine.go: every problem in one run)', async () => {
  const template =
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n{{#each Values.items}}\n  {{@key}}: {{required "owner is needed" @root.Values.owner}}\n{{/each}}\n' +
    '  extra: {{required "team is needed" Values.team}}\n';
  const error = await rejection(
    renderProbe({ 'values.yaml': 'owner: null\nteam: ""\nitems: {a: 1, b: 2, c: 3}\n', 'templates/cm.yaml': template }),
  );
  assert.deepEqual(
    error.diagnostics.map((d) => [d.line, d.message]),
    [
      [7, 'owner is needed'],
      [9, 'team is needed'],
    ],
  );
});

test('a releaseName and namespace that read as numbers ("2024", "0777") stay strings in every built-in template: the wiring renders with both layouts', async () => {
  const manifestPaths = [writeTempManifest({ 'p.yaml': corpusManifest() })];
  const set = [
    { expression: 'releaseName=2024,namespace=0777', forceString: true },
    { expression: 'repoURL=https://git.example.com/x.git,path=mgmt', forceString: false },
  ];
  for (const layout of ['argocd', 'flux'] as const) {
    const result = await renderManagementCluster({
      manifestPaths,
      layout,
      set: layout === 'flux' ? [set[0]!, { expression: 'path=mgmt', forceString: false }] : set,
    });
    const wiring = [...result.files].filter(([file]) => file.startsWith(`${layout}/`) && !file.endsWith('kustomization.yaml'));
    assert.ok(wiring.length >= 2, layout);
    for (const [file, text] of wiring) {
      const object = YAML.parse(text) as { metadata: { name: unknown; namespace: unknown } };
      assert.equal(typeof object.metadata.name, 'string', `${layout} ${file}`);
      assert.equal(object.metadata.namespace, '0777', `${layout} ${file}`);
    }
    assert.ok(
      result.files.has(`${layout}/${layout === 'flux' ? 'kustomization' : 'application'}-2024.yaml`),
      [...result.files.keys()].join('\n'),
    );
  }
});

test("a misspelt value of a built-in chart is told with the value it meant; a value of the wrong form is not sent to the other layout's chart", async () => {
  const manifestPaths = [writeTempManifest({ 'p.yaml': corpusManifest() })];
  const hintFor = async (expression: string) => {
    const error = await rejection(renderManagementCluster({ manifestPaths, layout: 'flux', set: [{ expression, forceString: false }] }));
    return error.diagnostics.map((d) => [d.path, d.hint]);
  };
  assert.deepEqual(await hintFor('path=x,intervall=1m'), [
    ['intervall', 'did you mean interval? see its values.schema.json: capi-gitops chart show flux'],
  ]);
  const wrongForm = await hintFor('path=x,releaseName=Not_A_Label');
  assert.deepEqual(
    wrongForm.map(([p]) => p),
    ['releaseName'],
  );
  assert.equal(wrongForm[0]![1], 'see its values.schema.json: capi-gitops chart show flux');
  // a value only the other chart has keeps its way there
  assert.match(String((await hintFor('path=x,repoURL=https://git.example.com/x.git'))[0]![1]), /gitops\.argocd\.values\.repoURL/);
});

test('a misspelt value below another (syncPolicy.retry.backof, destination.nme) is told with the value it meant at that place, as one at the top is; followed, the hint renders', async () => {
  const manifestPaths = [writeTempManifest({ 'p.yaml': corpusManifest() })];
  const argocd = (...expressions: string[]) =>
    renderManagementCluster({
      manifestPaths,
      layout: 'argocd',
      set: ['path=x,repoURL=https://git.example.com/x.git', ...expressions].map((expression) => ({ expression, forceString: false })),
    });
  const error = await rejection(argocd('syncPolicy.retry.backof.duration=5s', 'destination.nme=mgmt'));
  assert.deepEqual(
    error.diagnostics.map((d) => [d.path, d.hint]),
    [
      ['destination.nme', 'did you mean destination.name? see its values.schema.json: capi-gitops chart show argocd'],
      ['syncPolicy.retry.backof', 'did you mean syncPolicy.retry.backoff? see its values.schema.json: capi-gitops chart show argocd'],
    ],
  );
  const { files } = await argocd('syncPolicy.retry.backoff.duration=5s', 'destination.name=mgmt');
  const app = files.get('argocd/application-capi-gitops-01-cluster-api.yaml')!;
  assert.match(app, /duration: 5s\n/);
  assert.match(app, / name: mgmt\n/);
});

test("the built-in charts' values.yaml read the same as YAML 1.2 (build-charts.mjs precompiles them so) and as a user's copy is read (YAML 1.1, go-yaml v2's scalars)", () => {
  for (const name of ['argocd', 'flux']) {
    const text = readFileSync(path.join(PROJECT_ROOT, 'charts', name, 'values.yaml'), 'utf8');
    assert.deepEqual(readValuesYaml('values.yaml', text, 'values').value, YAML.parse(text), name);
  }
});
