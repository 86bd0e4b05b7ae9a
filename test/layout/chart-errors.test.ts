/**
 * Mistakes in a user chart (gitops.chart, started from `chart show argocd --output-dir`), driven
 * through the CLI as a user makes them: exit 1, every problem in one run at the template file's
 * line and column, what was expected, a hint that works when followed, and nothing written.
 * Helm tells the same mistakes at `<chart>/templates/<file>:<line>[:<col>]`
 * (pkg/engine engine.go cleanupParseError and cleanupExecError).
 */
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { assertNoStackTrace, exampleCopy, runCli, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { chartShowCommand } from '../../src/cli/commands.js';
import { InterruptedError, resetInterruptState, settleInterrupted } from '../../src/core/interrupt.js';

/** The example manifest with the built-in Argo CD chart copied to my-chart and used as gitops.chart. */
async function userChart(): Promise<{ dir: string; chart: string }> {
  const dir = path.join(exampleCopy(), 'management-cluster');
  const show = await runCli(['chart', 'show', 'argocd', '--output-dir', 'my-chart'], { cwd: dir });
  assert.equal(show.code, 0, show.stderr);
  appendFileSync(
    path.join(dir, 'config.yaml'),
    'gitops:\n  chart: ./my-chart\n  path: clusters/mgmt\n  values:\n    repoURL: https://git.example.com/x.git\n',
  );
  return { dir, chart: path.join(dir, 'my-chart', 'templates') };
}

/** Replaces line `line` (1-based) of a chart file. */
function setLine(file: string, line: number, text: string): void {
  const lines = readFileSync(file, 'utf8').split('\n');
  lines[line - 1] = text;
  writeFileSync(file, lines.join('\n'));
}

async function render(dir: string): Promise<CliResult> {
  return await runCli(['render', '-f', '.', '-o', 'out', '--layout', 'argocd'], { cwd: dir });
}

/** A failed render: exit 1, no stack trace, nothing written. */
async function failed(dir: string): Promise<string> {
  const result = await render(dir);
  assert.equal(result.code, 1, result.stdout + result.stderr);
  assertNoStackTrace(result);
  assert.match(result.stderr, /nothing was written\n$/);
  assert.equal(existsSync(path.join(dir, 'out')), false);
  return result.stderr;
}

test('#if without its argument, {{> missing}}, include "missing" and a misspelt helper are all told in one run, each at its file:line:column, before any template runs (helm engine.go cleanupExecError)', async () => {
  const { dir, chart } = await userChart();
  const applications = path.join(chart, 'applications.yaml');
  setLine(applications, 22, '{{#if}}');
  setLine(applications, 29, '{{> missing @root}}');
  setLine(applications, 11, '    argocd.argoproj.io/sync-wave: {{qoute wave}}');
  setLine(path.join(chart, 'root.yaml'), 3, '  name: {{include "labels" Values}}');
  const stderr = await failed(dir);
  assert.equal(
    stderr,
    [
      'my-chart/templates/applications.yaml:11:35: error: no helper "qoute": a name followed by arguments is a helper call',
      '  expected: one of the helpers: and, default, dict, each, eq, if, include, indent, join, list, log, lookup, ne, nindent, not, or, ' +
        'quote, required, toYaml, unless, with',
      '  hint: call one of these helpers, or read a value alone in its tag ({{Values.name}})',
      'my-chart/templates/applications.yaml:22:1: error: {{#if}} takes exactly one argument, here 0',
      '  expected: {{#if value}} … {{/if}}',
      '  hint: name what it reads, e.g. {{#if Values.enabled}}',
      'my-chart/templates/applications.yaml:29:1: error: {{> missing}}: no partial "missing" in the chart',
      '  expected: a partial file templates/_missing.hbs',
      "  hint: add templates/_missing.hbs, or name one of the chart's partials: syncPolicy",
      'my-chart/templates/root.yaml:3:9: error: include "labels": no partial "labels" in the chart',
      '  expected: a partial file templates/_labels.hbs',
      "  hint: add templates/_labels.hbs, or name one of the chart's partials: syncPolicy",
      '4 problems; nothing was written',
      '',
    ].join('\n'),
  );
});

test('a block never closed is told in words at the {{#if}} that opens it, in the partial that has it (not the template including it); adding the {{/if}} the hint names renders', async () => {
  const { dir, chart } = await userChart();
  const partial = path.join(chart, '_syncPolicy.hbs');
  const good = readFileSync(partial, 'utf8');
  setLine(partial, 9, '');
  const stderr = await failed(dir);
  assert.equal(
    stderr,
    [
      'my-chart/templates/_syncPolicy.hbs:7:1: error: {{#if}} is never closed: the template ends before its {{/if}}',
      '  expected: every {{#if}} closed by {{/if}}',
      "  hint: add {{/if}} where the block's content ends",
      'nothing was written',
      '',
    ].join('\n'),
  );
  assert.doesNotMatch(stderr, /Parse error|Expecting/);
  writeFileSync(partial, good);
  assert.equal((await render(dir)).code, 0);
});

test('a {{/each}} closing an {{#if}}, a stray }, a {{/if}} with no block and an {{else}} outside one are each told in words at their line', async () => {
  const { dir, chart } = await userChart();
  setLine(path.join(chart, 'applications.yaml'), 52, '');
  setLine(path.join(chart, 'appproject.yaml'), 5, '  name: {{Release.name}');
  writeFileSync(path.join(chart, 'stray.yaml'), '# a template\n{{/if}}\n');
  writeFileSync(path.join(chart, 'else.yaml'), '\n\n  {{else}}\n');
  const stderr = await failed(dir);
  assert.equal(
    stderr,
    [
      'my-chart/templates/applications.yaml:30:4: error: {{#if}} is closed by {{/each}}: a block closes with its own name, the innermost first',
      '  expected: a Handlebars template',
      '  hint: close {{#if}} with {{/if}} before {{/each}}',
      'my-chart/templates/appproject.yaml:5:23: error: Handlebars expected }} to close the tag, or more of its expression, got "}"',
      '  expected: a Handlebars template',
      '  hint: every tag is {{expression}}, and a helper call in a tag is {{helper arg (other-helper arg)}}',
      'my-chart/templates/else.yaml:3:3: error: {{else}} outside a block: it belongs between {{#if …}} (or #each, #unless, #with) and its {{/…}}',
      '  expected: {{else}} inside a block',
      '  hint: remove it, or move it inside the block it belongs to',
      'my-chart/templates/stray.yaml:2:1: error: {{/if}} closes no block: no {{#…}} is open here',
      '  expected: a {{/name}} only after its {{#name …}}',
      '  hint: remove it, or open the block before it',
      '4 problems; nothing was written',
      '',
    ].join('\n'),
  );
});

test('a missing value in a partial is told in the partial at its line and column, and a computed partial name that names no partial at the block that ran it', async () => {
  const { dir, chart } = await userChart();
  setLine(path.join(chart, '_syncPolicy.hbs'), 2, '    automated: {{Values.syncPolicy.automatd}}');
  const first = await failed(dir);
  assert.match(first, /^my-chart\/templates\/_syncPolicy\.hbs:2:18: error: value "automatd" is not defined\n/);
  setLine(path.join(chart, '_syncPolicy.hbs'), 2, '');
  setLine(path.join(chart, 'applications.yaml'), 29, '{{> (lookup @root.Values "project") @root}}');
  const second = await failed(dir);
  assert.equal(
    second,
    [
      'my-chart/templates/applications.yaml:2:1: error: a computed partial name gave "capi-gitops", and the chart has no such partial',
      '  expected: a partial file templates/_capi-gitops.hbs',
      "  hint: add templates/_capi-gitops.hbs, or compute one of the chart's partials: syncPolicy",
      'nothing was written',
      '',
    ].join('\n'),
  );
});

test('a template that does not compile does not hide the problems of the others: they run and their missing values are told in the same run; a template including a broken partial is not run (helm engine.go reports one parse error)', async () => {
  const { dir, chart } = await userChart();
  setLine(path.join(chart, 'applications.yaml'), 11, '    argocd.argoproj.io/sync-wave: {{qoute wave}}');
  setLine(path.join(chart, 'root.yaml'), 10, '  project: {{Values.root.projet}}');
  writeFileSync(path.join(chart, '_labels.hbs'), '    team: {{#if}}x{{/if}}\n');
  writeFileSync(
    path.join(chart, 'labelled.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: labelled\n  namespace: argocd\n  labels:\n{{> labels}}\n',
  );
  const stderr = await failed(dir);
  assert.equal(
    stderr
      .split('\n')
      .filter((l) => /^\S/.test(l))
      .join('\n'),
    [
      'my-chart/templates/_labels.hbs:1:11: error: {{#if}} takes exactly one argument, here 0',
      'my-chart/templates/applications.yaml:11:35: error: no helper "qoute": a name followed by arguments is a helper call',
      'my-chart/templates/root.yaml:10:14: error: value "projet" is not defined',
      '3 problems; nothing was written',
    ].join('\n'),
  );
});

test('invalid YAML is told once at the template line that wrote it (not a line of the rendered text), quoting the rendered lines; the nindent hint only where toYaml is written without it', async () => {
  const { dir, chart } = await userChart();
  setLine(path.join(chart, 'applications.yaml'), 11, '    x: [');
  setLine(path.join(chart, '_syncPolicy.hbs'), 2, '    automated: {{toYaml Values.syncPolicy.automated}}');
  const stderr = await failed(dir);
  assert.equal(
    stderr,
    [
      'my-chart/templates/applications.yaml:12:3: error: renders invalid YAML: Flow sequence in block collection must be sufficiently ' +
        'indented and end with a ] (rendered line 10: "  labels:", after "    x: [") (the same in 5 documents)',
      '  expected: each rendered document to be valid YAML',
      '  hint: close the [ or { that the line before opens, on that line',
      'nothing was written',
      '',
    ].join('\n'),
  );
  setLine(path.join(chart, 'applications.yaml'), 11, '');
  assert.equal(
    await failed(dir),
    [
      'my-chart/templates/_syncPolicy.hbs:2:16: error: renders invalid YAML: Nested mappings are not allowed in compact mappings ' +
        '(rendered line 23: "    automated: prune: true", after "  syncPolicy:") (the same in 5 documents)',
      '  expected: each rendered document to be valid YAML',
      '  hint: indent multi-line values with nindent, e.g. {{nindent 4 (toYaml Values.x)}}',
      'nothing was written',
      '',
    ].join('\n'),
  );
  // a line that renders differently in each document of a loop, beside a loop of {{@key}}: lines that could have written it too
  setLine(path.join(chart, '_syncPolicy.hbs'), 2, '    automated: {{nindent 6 (toYaml Values.syncPolicy.automated)}}');
  setLine(path.join(chart, 'applications.yaml'), 20, '    path: {{quote path}}/x');
  setLine(path.join(chart, 'applications.yaml'), 11, '{{#each @root.Values.root}}\n    {{@key}}: {{quote this}}\n{{/each}}');
  assert.equal(
    await failed(dir),
    [
      'my-chart/templates/applications.yaml:22:11: error: renders invalid YAML: Unexpected scalar at node end ' +
        '(rendered line 19: "    path: \\"clusters/mgmt/00-cert-manager\\"/x", after "    targetRevision: \\"HEAD\\"") (the same in 5 documents)',
      '  expected: each rendered document to be valid YAML',
      '  hint: text follows a quoted value: quote the whole value, e.g. {{quote (join "" (list a "/x"))}}',
      'nothing was written',
      '',
    ].join('\n'),
  );
});

test('a key indented one space too deep, a tab and an unclosed quote are each told with a hint, in one run, and doing what each hint says renders', async () => {
  const { dir, chart } = await userChart();
  const appproject = path.join(chart, 'appproject.yaml');
  const root = path.join(chart, 'root.yaml');
  setLine(appproject, 9, '   sourceRepos:');
  const applications = path.join(chart, 'applications.yaml');
  setLine(applications, 13, '\tapp.kubernetes.io/managed-by: capi-gitops');
  setLine(root, 14, '    path: "{{Wiring.path}}');
  assert.equal(
    (await failed(dir))
      .split('\n')
      .filter((l) => !l.startsWith('  expected'))
      .join('\n'),
    [
      'my-chart/templates/applications.yaml:13:1: error: renders invalid YAML: Tabs are not allowed as indentation ' +
        '(rendered line 11: "\\tapp.kubernetes.io/managed-by: capi-gitops", after "  labels:") (the same in 5 documents)',
      '  hint: indent with spaces: YAML does not allow tabs there',
      'my-chart/templates/appproject.yaml:8:16: error: renders invalid YAML: Nested mappings are not allowed in compact mappings ' +
        '(rendered line 7: "  description: Cluster API providers rendered by capi-gitops", after "spec:")',
      "  hint: the next line is indented deeper than this line's key: indent it as the key it belongs beside " +
        '(or, if this value holds ": ", quote it)',
      'my-chart/templates/root.yaml:14:12: error: renders invalid YAML: Missing closing "quote ' +
        '(rendered line 13: "    path: \\"clusters/mgmt/argocd", after "    targetRevision: \\"HEAD\\"")',
      '  hint: close the quote this line opens, on this line',
      '3 problems; nothing was written',
      '',
    ].join('\n'),
  );
  setLine(appproject, 9, '  sourceRepos:');
  setLine(applications, 13, '    app.kubernetes.io/managed-by: capi-gitops');
  setLine(root, 14, '    path: "{{Wiring.path}}"');
  const result = await render(dir);
  assert.equal(result.code, 0, result.stderr);
});

test('a key a loop writes again beside a literal one (a common label that the template also writes) is told once, at the literal line, naming no rendered line number as a line of the file; the hint, followed, renders', async () => {
  const { dir, chart } = await userChart();
  const applications = path.join(chart, 'applications.yaml');
  // line 14 is the last label: the loop of extra labels after it
  setLine(
    applications,
    14,
    '    capi-gitops.dev/component: {{quote label}}\n{{#each @root.Values.root}}\n    {{@key}}: {{quote this}}\n{{/each}}',
  );
  writeFileSync(path.join(chart, '_unused.hbs'), '    {{@key}}: {{quote this}}\n');
  const values = path.join(dir, '..', 'labels.yaml');
  writeFileSync(values, 'root:\n  app.kubernetes.io/managed-by: me\n');
  const schema = path.join(chart, '..', 'values.schema.json');
  rmSync(schema);
  const refused = await runCli(['render', '-f', '.', '-o', 'out', '--layout', 'argocd', '--values', '../labels.yaml'], { cwd: dir });
  assert.equal(refused.code, 1, refused.stderr);
  assertNoStackTrace(refused);
  const errors = refused.stderr.split('\n').filter((l) => /^\S/.test(l));
  assert.equal(errors.length, 2, refused.stderr);
  assert.match(
    errors[0]!,
    /^my-chart\/templates\/applications\.yaml:13:5: error: renders invalid YAML: Map keys must be unique: written again by a later line \(rendered line \d+: "    app\.kubernetes\.io\/managed-by: \\"me\\"", after .*\) \(the same in 5 documents\)$/,
  );
  assert.match(
    refused.stderr,
    /hint: write each key once in its map: drop this line, or leave the key out of the loop that writes it again/,
  );
  writeFileSync(values, 'root:\n  team: platform\n');
  const fixed = await runCli(['render', '-f', '.', '-o', 'out', '--layout', 'argocd', '--values', '../labels.yaml'], { cwd: dir });
  assert.equal(fixed.code, 0, fixed.stderr);
});

test('a map written as text, alone in its tag or through nindent without toYaml, is an error at its line, not a list of "object Object" (helm: nindent of a map fails, wrong type for value); the hint, followed, renders', async () => {
  const { dir, chart } = await userChart();
  const root = path.join(chart, 'root.yaml');
  const lines = readFileSync(root, 'utf8').split('\n');
  const at = lines.indexOf('  syncPolicy:') + 1;
  lines.splice(at - 1, 4, '  syncPolicy: {{nindent 4 Values.syncPolicy}}');
  writeFileSync(root, lines.join('\n'));
  setLine(path.join(chart, 'appproject.yaml'), 8, '  description: {{Values.destination}}');
  const stderr = await failed(dir);
  assert.equal(
    stderr
      .split('\n')
      .filter((l) => !l.startsWith('  expected'))
      .join('\n'),
    [
      'my-chart/templates/appproject.yaml:8:16: error: writes a map as text ("[object Object]") (rendered line 7: "  description: [object Object]", after "spec:")',
      '  hint: write a map or a list with toYaml, indented on the lines below its key: {{nindent 4 (toYaml Values.x)}}',
      `my-chart/templates/root.yaml:${at}:15: error: nindent takes text, and this is a map`,
      '  hint: write a map or a list with toYaml, indented on the lines below its key: {{nindent 4 (toYaml Values.x)}}',
      '2 problems; nothing was written',
      '',
    ].join('\n'),
  );
  setLine(root, at, '  syncPolicy: {{nindent 4 (toYaml Values.syncPolicy)}}');
  setLine(path.join(chart, 'appproject.yaml'), 8, '  description: {{quote Values.destination.server}}');
  const result = await render(dir);
  assert.equal(result.code, 0, result.stderr);
});

test("a template written in Helm's Go template syntax ({{- if .Values.x }}, | quote, {{ end }}) is told as that, at its first such tag, with the Handlebars to write; written so, it renders", async () => {
  const { dir, chart } = await userChart();
  const extra = path.join(chart, 'extra.yaml');
  writeFileSync(
    extra,
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n{{- if .Values.createProject }}\n  namespace: {{ .Release.Namespace | quote }}\n{{- end }}\n',
  );
  assert.equal(
    await failed(dir),
    [
      'my-chart/templates/extra.yaml:5:1: error: Go template syntax, as Helm\'s templates are written ("{{- if .Values.createProject }}"), where chart templates are Handlebars',
      '  expected: a Handlebars template',
      '  hint: write {{Values.x}} for {{ .Values.x }}, {{quote x}} for x | quote, and {{#if Values.x}} … {{/if}} for {{- if … }} … {{- end }}: ' +
        'a block tag alone on its line leaves no line behind, so it needs no trimming',
      'nothing was written',
      '',
    ].join('\n'),
  );
  writeFileSync(
    extra,
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n{{#if Values.createProject}}\n  namespace: {{quote Release.namespace}}\n{{/if}}\n',
  );
  const result = await render(dir);
  assert.equal(result.code, 0, result.stderr);
});

test('an object name or namespace the API server refuses (capi-gitops_Root, not a DNS-1123 subdomain) is an error at the line that wrote it, not a file written with exit 0 (apimachinery pkg/util/validation/validation.go IsDNS1123Subdomain); the hint, followed, renders', async () => {
  const { dir, chart } = await userChart();
  const root = path.join(chart, 'root.yaml');
  setLine(root, 7, '  name: {{Release.name}}_Root');
  setLine(root, 8, '  namespace: Argo.CD');
  assert.equal(
    (await failed(dir))
      .split('\n')
      .filter((l) => !l.startsWith('  expected'))
      .join('\n'),
    [
      'my-chart/templates/root.yaml:7:3: error: Application/Argo.CD/capi-gitops_Root: metadata.name: "capi-gitops_Root" is no name the API server takes',
      "  hint: write lowercase letters, digits, '-' and '.', a letter or digit first and last (capi-gitops-root)",
      'my-chart/templates/root.yaml:8:3: error: Application/Argo.CD/capi-gitops_Root: metadata.namespace: "Argo.CD" is no namespace the API server takes',
      "  hint: write lowercase letters, digits and '-', a letter or digit first and last, at most 63 (argo-cd)",
      '2 problems; nothing was written',
      '',
    ].join('\n'),
  );
  setLine(root, 7, '  name: {{Release.name}}-root');
  setLine(root, 8, '  namespace: {{quote Release.namespace}}');
  const result = await render(dir);
  assert.equal(result.code, 0, result.stderr);
});

test('a rendered document that is no Kubernetes object is told at the line that wrote it, saying what it lacks', async () => {
  const { dir, chart } = await userChart();
  appendFileSync(path.join(chart, 'root.yaml'), '---\nfoo: {{Release.name}}\n---\n- a\n');
  assert.equal(
    await failed(dir),
    [
      'my-chart/templates/root.yaml:24:1: error: renders a document that is not a Kubernetes object: a mapping without apiVersion, kind, ' +
        'metadata.name (rendered line 22: "foo: capi-gitops", after "---")',
      '  expected: apiVersion, kind and metadata.name in every document',
      '  hint: write a whole object in each document, or wrap the document in {{#if}} so it renders empty (an empty document is skipped)',
      'my-chart/templates/root.yaml:26:1: error: renders a document that is not a Kubernetes object: a list (rendered line 24: "- a", after "---")',
      '  expected: apiVersion, kind and metadata.name in every document',
      '  hint: write a whole object in each document, or wrap the document in {{#if}} so it renders empty (an empty document is skipped)',
      '2 problems; nothing was written',
      '',
    ].join('\n'),
  );
});

test('an Application whose source path names a directory the render does not write (the label without its NN- prefix) is an error at the template line, told once; the hint ({{path}}) followed renders, and a directory of ones own in the output may be synced', async () => {
  const { dir, chart } = await userChart();
  const applications = path.join(chart, 'applications.yaml');
  setLine(applications, 20, '    path: "{{@root.Values.path}}/{{label}}"');
  const stderr = await failed(dir);
  assert.match(
    stderr,
    /^my-chart\/templates\/applications\.yaml:20:5: error: Application\/argocd\/capi-gitops-00-cert-manager \(clusters\/mgmt\/cert-manager\), .*: spec\.source\.path: names a directory of the output that the render does not write\n/,
  );
  assert.match(stderr, /Application\/argocd\/capi-gitops-04-infrastructure-example \(clusters\/mgmt\/infrastructure-example\)/);
  assert.match(
    stderr,
    /\n  expected: a component's directory \(clusters\/mgmt\/00-cert-manager, .*\), the wiring's \(clusters\/mgmt\/argocd\)/,
  );
  assert.match(
    stderr,
    /\n  hint: write each component's path as the chart is given it: \{\{path\}\} inside \{\{#each Components\}\}\nnothing was written\n$/,
  );
  setLine(applications, 20, '    path: {{path}}');
  assert.equal((await render(dir)).code, 0);
  // an overlay of one's own in the output directory, synced by an Application of the chart
  mkdirSync(path.join(dir, 'out', 'overlays', 'extra'), { recursive: true });
  appendFileSync(
    path.join(chart, 'root.yaml'),
    '---\napiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: extra\nspec:\n  source:\n' +
      '    repoURL: {{quote Values.repoURL}}\n    path: clusters/mgmt/overlays/extra\n',
  );
  const overlay = await render(dir);
  assert.equal(overlay.code, 0, overlay.stderr);
});

test("a default in the chart's values.yaml that its schema refuses is told at its line in values.yaml, with a hint about that file (not --set), and the hints followed render", async () => {
  const { dir } = await userChart();
  const values = path.join(dir, 'my-chart', 'values.yaml');
  setLine(values, 9, 'targetRevision: 2024');
  setLine(values, 39, '    limit: ten');
  appendFileSync(values, 'team: platform\n');
  const stderr = await failed(dir);
  const chart = path.join(dir, 'my-chart');
  assert.equal(
    stderr.replaceAll(chart, '<chart>'),
    [
      'my-chart/values.yaml:44:7: error: <chart> values: team: value team is not a value of this chart',
      '  expected: one of the values the chart declares here: repoURL, targetRevision, path, releaseName, namespace, project, ' +
        'createProject, destination, applicationSet, root, syncPolicy',
      "  hint: the chart's values.yaml sets team: declare it in the properties of <chart>/values.schema.json too",
      'my-chart/values.yaml:9:17: error: <chart> values: targetRevision: value targetRevision must be string',
      '  expected: a value of type string',
      '  hint: quote it in <chart>/values.yaml: "2024" (YAML reads 2024 unquoted as a number)',
      'my-chart/values.yaml:39:12: error: <chart> values: syncPolicy.retry.limit: value syncPolicy.retry.limit must be integer',
      '  expected: a value of type integer',
      '  hint: correct syncPolicy.retry.limit in <chart>/values.yaml, or what <chart>/values.schema.json says of it',
      '3 problems; nothing was written',
      '',
    ].join('\n'),
  );
  setLine(values, 9, 'targetRevision: "2024"');
  setLine(values, 39, '    limit: 10');
  const schema = path.join(chart, 'values.schema.json');
  writeFileSync(schema, readFileSync(schema, 'utf8').replace('"properties": {', '"properties": {\n    "team": { "type": "string" },'));
  const result = await render(dir);
  assert.equal(result.code, 0, result.stderr);
});

test("a value of the other layout's chart in the Config's gitops.values (interval, a Flux value) for an Argo CD chart of one's own is hinted to move under gitops.flux.values, and the hint, followed, renders", async () => {
  const { dir } = await userChart();
  const config = path.join(dir, 'config.yaml');
  appendFileSync(config, '    interval: 5m\n');
  const stderr = await failed(dir);
  assert.match(stderr, /interval: value interval is not a value of this chart/);
  assert.match(
    stderr,
    /hint: see \S+my-chart\/values\.schema\.json; a value of the flux chart goes under gitops\.flux\.values in the Config document \(gitops\.flux\.values\.interval\), or remove it/,
  );
  writeFileSync(config, readFileSync(config, 'utf8').replace('    interval: 5m\n', '  flux:\n    values:\n      interval: 5m\n'));
  const result = await render(dir);
  assert.equal(result.code, 0, result.stderr);
});

test('a misspelt value for a chart of one\'s own (projet for project) gets "did you mean", as the built-in charts\' do, and the hint followed renders', async () => {
  const { dir } = await userChart();
  const config = path.join(dir, 'config.yaml');
  appendFileSync(config, '    projet: platform\n');
  const stderr = await failed(dir);
  assert.match(stderr, /projet: value projet is not a value of this chart/);
  assert.match(stderr, /hint: did you mean project\? see \S+my-chart\/values\.schema\.json/);
  writeFileSync(config, readFileSync(config, 'utf8').replace('projet:', 'project:'));
  const result = await render(dir);
  assert.equal(result.code, 0, result.stderr);
});

test('two templates writing the same object are told at the name the second one wrote, and removing the one it replaces, as the hint says, renders', async () => {
  const { dir, chart } = await userChart();
  writeFileSync(
    path.join(chart, 'project.yaml'),
    'apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata:\n  name: {{Values.project}}\n  namespace: {{quote Release.namespace}}\n' +
      "spec:\n  sourceRepos: ['*']\n",
  );
  assert.equal(
    await failed(dir),
    [
      'my-chart/templates/project.yaml:4:3: error: AppProject/argocd/capi-gitops: templates/project.yaml and templates/appproject.yaml ' +
        'both render an object for argocd/appproject-capi-gitops.yaml (the first at templates/appproject.yaml:5:3)',
      '  expected: one object per kind and name in the wiring',
      '  hint: give the objects different names, or remove the one you replace (or wrap it in {{#if}})',
      'nothing was written',
      '',
    ].join('\n'),
  );
  rmSync(path.join(chart, 'appproject.yaml'));
  const result = await render(dir);
  assert.equal(result.code, 0, result.stderr);
});

test('every object written twice is told in the one run that tells the other problems, each at the line that wrote its second name, a template that writes one name twice included', async () => {
  const { dir, chart } = await userChart();
  const configMap = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{Release.name}}-info\n  namespace: {{quote Release.namespace}}\n';
  writeFileSync(path.join(chart, 'info.yaml'), `${configMap}data: {a: "1"}\n---\n${configMap}data: {b: "2"}\n`);
  writeFileSync(
    path.join(chart, 'project.yaml'),
    'apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata:\n  name: {{Values.project}}\n  namespace: {{quote Release.namespace}}\n' +
      "spec:\n  sourceRepos: ['*']\n",
  );
  const root = path.join(chart, 'root.yaml');
  setLine(root, 17, '  syncPolcy:');
  const stderr = await failed(dir);
  assert.equal(
    stderr
      .split('\n')
      .filter((l) => /^\S/.test(l))
      .join('\n'),
    [
      'my-chart/templates/info.yaml:11:3: error: ConfigMap/argocd/capi-gitops-info: templates/info.yaml renders two objects for ' +
        'argocd/configmap-capi-gitops-info.yaml (the first at templates/info.yaml:4:3)',
      'my-chart/templates/project.yaml:4:3: error: AppProject/argocd/capi-gitops: templates/project.yaml and templates/appproject.yaml ' +
        'both render an object for argocd/appproject-capi-gitops.yaml (the first at templates/appproject.yaml:5:3)',
      'my-chart/templates/root.yaml:17:3: error: Application/argocd/capi-gitops: spec.syncPolcy: not a field of argoproj.io/v1alpha1 Application',
      '3 problems; nothing was written',
    ].join('\n'),
  );
});

test('an Argo CD chart of ones own with its repoURL under gitops.argocd.values, as docs/charts.md writes it, rendered with --layout flux: told first that the chart draws Argo CD objects, not only that repoURL is missing (whose hint, followed, leads to that error)', async () => {
  const dir = path.join(exampleCopy(), 'management-cluster');
  assert.equal((await runCli(['chart', 'show', 'argocd', '--output-dir', 'my-chart'], { cwd: dir })).code, 0);
  const config = path.join(dir, 'config.yaml');
  const line = readFileSync(config, 'utf8').split('\n').length + 1;
  appendFileSync(
    config,
    'gitops:\n  chart: ./my-chart\n  path: clusters/mgmt\n  argocd:\n    values:\n      repoURL: https://git.example.com/x.git\n',
  );
  const result = await runCli(['render', '-f', '.', '-o', 'out', '--layout', 'flux'], { cwd: dir });
  assert.equal(result.code, 1, result.stderr);
  assertNoStackTrace(result);
  const first = result.stderr.split('\n')[0]!;
  assert.match(
    first,
    new RegExp(
      `^config\\.yaml:${line}:10: error: .*my-chart: the chart's templates write Argo CD objects \\(argoproj\\.io\\) for the flux layout`,
    ),
  );
  assert.match(result.stderr, /hint: render with --layout argocd, which this chart draws/);
  assert.match(result.stderr, /value repoURL is required/, 'the values problem is still told');
  assert.equal((await runCli(['render', '-f', '.', '-o', 'out', '--layout', 'argocd'], { cwd: dir })).code, 0, 'the hint followed renders');
});

test('a chart of one tool (started from chart show argocd) rendered with the other layout (--layout flux) is refused at gitops.chart instead of writing Argo CD Applications into flux/; the hint followed renders Flux Kustomizations', async () => {
  const dir = path.join(exampleCopy(), 'management-cluster');
  assert.equal((await runCli(['chart', 'show', 'argocd', '--output-dir', 'my-chart'], { cwd: dir })).code, 0);
  const config = path.join(dir, 'config.yaml');
  const line = readFileSync(config, 'utf8').split('\n').length + 1;
  appendFileSync(config, 'gitops:\n  chart: ./my-chart\n  path: clusters/mgmt\n  values:\n    repoURL: https://git.example.com/x.git\n');
  const flux = async () => await runCli(['render', '-f', '.', '-o', 'out', '--layout', 'flux'], { cwd: dir });
  const result = await flux();
  assert.equal(result.code, 1, result.stderr);
  assertNoStackTrace(result);
  const chart = path.join(dir, 'my-chart');
  assert.equal(
    result.stderr.replaceAll(chart, '<chart>'),
    [
      `config.yaml:${line}:10: error: <chart>: the chart draws Argo CD objects (Application/argocd/capi-gitops-00-cert-manager, ` +
        "Application/argocd/capi-gitops-01-cluster-api, …) for the flux layout, whose component directories carry Flux's apply rules only",
      '  expected: Kustomization objects of kustomize.toolkit.fluxcd.io, as the built-in flux chart draws',
      '  hint: render with --layout argocd, which this chart draws; for Flux, start a chart of its own ' +
        '(capi-gitops chart show flux --output-dir <chart>-flux) and name it in gitops.chart',
      'nothing was written',
      '',
    ].join('\n'),
  );
  assert.equal((await render(dir)).code, 0);
  assert.equal((await runCli(['chart', 'show', 'flux', '--output-dir', `${chart}-flux`], { cwd: dir })).code, 0);
  // the Argo CD chart's repoURL is no value of the flux chart: under gitops.argocd.values, as that error's hint says
  writeFileSync(
    config,
    readFileSync(config, 'utf8')
      .replace('chart: ./my-chart', 'chart: ./my-chart-flux')
      .replace('  values:\n    repoURL:', '  argocd:\n    values:\n      repoURL:'),
  );
  const fixed = await flux();
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.ok(existsSync(path.join(dir, 'out', 'flux', 'kustomization-capi-gitops-01-cluster-api.yaml')));
});

/** The line `gitops.chart` lands on when appended to the example's config.yaml. */
function appendChartField(dir: string, chart: string, values = '  values:\n    repoURL: https://git.example.com/x.git\n'): number {
  const config = path.join(dir, 'config.yaml');
  const line = readFileSync(config, 'utf8').split('\n').length + 1;
  appendFileSync(config, `gitops:\n  chart: ${chart}\n  path: clusters/mgmt\n${values}`);
  return line;
}

test('gitops.chart naming no directory is told at that field, and its hint (chart show -o <dir>) followed literally gives a chart that renders', async () => {
  const dir = path.join(exampleCopy(), 'management-cluster');
  const line = appendChartField(dir, './my-chart');
  const stderr = await failed(dir);
  const chartDir = path.join(dir, 'my-chart');
  assert.equal(
    stderr,
    [
      `config.yaml:${line}:10: error: no chart directory ${chartDir}`,
      '  expected: a chart directory: Chart.yaml, values.yaml, templates/*.yaml',
      `  hint: start from a built-in chart: capi-gitops chart show argocd --output-dir ${chartDir}`,
      'nothing was written',
      '',
    ].join('\n'),
  );
  const show = await runCli(['chart', 'show', 'argocd', '-o', chartDir], { cwd: dir });
  assert.equal(show.code, 0, show.stderr);
  assert.equal((await render(dir)).code, 0);
});

test('under --layout flux, gitops.chart naming no directory hints the flux chart, and that hint followed literally renders', async () => {
  const dir = path.join(exampleCopy(), 'management-cluster');
  const line = appendChartField(dir, './flux-chart', '');
  const flux = async () => await runCli(['render', '-f', '.', '-o', 'out', '--layout', 'flux'], { cwd: dir });
  const result = await flux();
  assert.equal(result.code, 1, result.stdout + result.stderr);
  assertNoStackTrace(result);
  const chartDir = path.join(dir, 'flux-chart');
  assert.equal(
    result.stderr,
    [
      `config.yaml:${line}:10: error: no chart directory ${chartDir}`,
      '  expected: a chart directory: Chart.yaml, values.yaml, templates/*.yaml',
      `  hint: start from a built-in chart: capi-gitops chart show flux --output-dir ${chartDir}`,
      'nothing was written',
      '',
    ].join('\n'),
  );
  assert.equal(existsSync(path.join(dir, 'out')), false);
  const show = await runCli(['chart', 'show', 'flux', '-o', chartDir], { cwd: dir });
  assert.equal(show.code, 0, show.stderr);
  const again = await flux();
  assert.equal(again.code, 0, again.stderr);
  assert.ok(readdirSync(path.join(dir, 'out', 'flux')).length > 0);
});

test('a misspelt path in a helper argument, an {{#if}} and an {{#each}}, which Handlebars reads without its strict check, is told at its file:line:column naming the path, with the key it meant; the meant names render', async () => {
  const { dir, chart } = await userChart();
  const root = path.join(chart, 'root.yaml');
  const applications = path.join(chart, 'applications.yaml');
  const appproject = path.join(chart, 'appproject.yaml');
  setLine(root, 12, '    repoURL: {{quote Values.repoURl}}');
  setLine(applications, 22, '{{#if @root.Values.destinaton.name}}');
  setLine(appproject, 12, '{{#each Namespace}}');
  const values =
    'applicationSet, createProject, destination, namespace, path, project, releaseName, repoURL, root, syncPolicy, targetRevision';
  assert.equal(
    await failed(dir),
    [
      'my-chart/templates/applications.yaml:22:7: error: value "destinaton" is not defined',
      `  expected: "@root.Values.destinaton" to exist (null when unset); "@root.Values" has ${values}`,
      '  hint: did you mean "@root.Values.destination"? If "destinaton" is a new value, add "destinaton: null" in the chart\'s values.yaml ' +
        'and "destinaton": {} to the top-level "properties" in its values.schema.json',
      'my-chart/templates/appproject.yaml:12:9: error: value "Namespace" is not defined',
      '  expected: "Namespace" to exist (null when unset); the context has CaInjected, Chart, ClusterResources, Components, ' +
        'Namespaces, Release, Unmanaged, Values, Wiring',
      '  hint: did you mean "Namespaces"?',
      'my-chart/templates/root.yaml:12:22: error: value "repoURl" is not defined',
      `  expected: "Values.repoURl" to exist (null when unset); "Values" has ${values}`,
      '  hint: did you mean "Values.repoURL"? If "repoURl" is a new value, add "repoURl: null" in the chart\'s values.yaml ' +
        'and "repoURl": {} to the top-level "properties" in its values.schema.json',
      '3 problems; nothing was written',
      '',
    ].join('\n'),
  );
  setLine(root, 12, '    repoURL: {{quote Values.repoURL}}');
  setLine(applications, 22, '{{#if @root.Values.destination.name}}');
  setLine(appproject, 12, '{{#each Namespaces}}');
  assert.equal((await render(dir)).code, 0);
});

test('a value read by a hash argument, a sub-expression and a partial hash that the chart lacks is told at its path; added to values.yaml as null and to the schema, as the hint says, the chart renders', async () => {
  const { dir, chart } = await userChart();
  setLine(path.join(chart, 'root.yaml'), 14, '    path: {{quote Wiring.path note=Values.note}}');
  setLine(path.join(chart, 'appproject.yaml'), 5, '  name: {{quote (default Values.project Values.projectName)}}');
  setLine(path.join(chart, 'applications.yaml'), 29, '{{> syncPolicy @root extra=@root.Values.syncPolicy.extra}}');
  const values =
    'applicationSet, createProject, destination, namespace, path, project, releaseName, repoURL, root, syncPolicy, targetRevision';
  assert.equal(
    await failed(dir),
    [
      'my-chart/templates/applications.yaml:29:28: error: value "extra" is not defined',
      '  expected: "@root.Values.syncPolicy.extra" to exist (null when unset); "@root.Values.syncPolicy" has automated, retry, syncOptions',
      '  hint: add "extra: null" under syncPolicy in the chart\'s values.yaml and "extra": {} to "properties" of #/properties/syncPolicy ' +
        'in its values.schema.json, or fix the name',
      'my-chart/templates/appproject.yaml:5:41: error: value "projectName" is not defined',
      `  expected: "Values.projectName" to exist (null when unset); "Values" has ${values}`,
      '  hint: add "projectName: null" in the chart\'s values.yaml and "projectName": {} to the top-level "properties" ' +
        'in its values.schema.json, or fix the name',
      'my-chart/templates/root.yaml:14:36: error: value "note" is not defined',
      `  expected: "Values.note" to exist (null when unset); "Values" has ${values}`,
      '  hint: add "note: null" in the chart\'s values.yaml and "note": {} to the top-level "properties" in its values.schema.json, or fix the name',
      '3 problems; nothing was written',
      '',
    ].join('\n'),
  );
  const valuesFile = path.join(dir, 'my-chart', 'values.yaml');
  writeFileSync(
    valuesFile,
    readFileSync(valuesFile, 'utf8').replace(/^syncPolicy:\n/m, 'syncPolicy:\n  extra: null\n') + 'note: null\nprojectName: null\n',
  );
  const schemaFile = path.join(dir, 'my-chart', 'values.schema.json');
  const schema = JSON.parse(readFileSync(schemaFile, 'utf8'));
  Object.assign(schema.properties, { note: {}, projectName: {} });
  schema.properties.syncPolicy.properties.extra = {};
  writeFileSync(schemaFile, JSON.stringify(schema));
  const result = await render(dir);
  assert.equal(result.code, 0, result.stderr);
});

test('two values one template lacks, one of them read through a missing parent, are both told in one run, each at its line:column, and a partial the template includes tells its own', async () => {
  const { dir, chart } = await userChart();
  const root = path.join(chart, 'root.yaml');
  setLine(root, 12, '    repoURL: {{quote Values.repoURl}}');
  setLine(root, 14, '    path: {{quote Values.pth.dir}}');
  setLine(path.join(chart, '_syncPolicy.hbs'), 2, '    automated: {{nindent 6 (toYaml Values.nope)}}');
  const stderr = await failed(dir);
  const told = [...stderr.matchAll(/^(\S+): error: value "(\w+)" is not defined$/gm)].map((m) => `${m[1]} ${m[2]}`);
  assert.deepEqual(told, [
    'my-chart/templates/_syncPolicy.hbs:2:36 nope',
    'my-chart/templates/root.yaml:12:22 repoURl',
    'my-chart/templates/root.yaml:14:19 pth',
  ]);
  assert.match(stderr, /^3 problems; nothing was written\n$/m);
});

test("a missing value does not hide what else its template gets wrong: an {{#each}} over a string, a required value unset and a misspelt field of the same template are told in the same run, each at its line:column; required of the missing value is that value's problem, told once (helm engine.go cleanupExecError)", async () => {
  const { dir, chart } = await userChart();
  const root = path.join(chart, 'root.yaml');
  setLine(root, 2, '{{#each Values.targetRevision}}{{/each}}');
  setLine(root, 8, '  namespace: {{required "the namespace" Values.destination.nam}}');
  setLine(root, 10, '  project: {{required "root.project is needed" Values.destination.name}}');
  setLine(root, 18, '  syncPolcy:');
  const stderr = await failed(dir);
  const told = [...stderr.matchAll(/^(\S+): error: (.*)$/gm)].map((m) => `${m[1]} ${m[2]}`);
  assert.deepEqual(told, [
    'my-chart/templates/root.yaml:2:1 {{#each}} cannot walk "HEAD", a string',
    'my-chart/templates/root.yaml:8:41 value "nam" is not defined',
    'my-chart/templates/root.yaml:10:12 root.project is needed',
    'my-chart/templates/root.yaml:18:3 Application/capi-gitops: spec.syncPolcy: not a field of argoproj.io/v1alpha1 Application',
  ]);
  assert.match(stderr, /^4 problems; nothing was written\n$/m);
});

test('a key the chart declares and a user null deletes (--set syncPolicy.automated=null, Helm coalescing) reads as unset in #if, and the flux chart reads its sourceRef.namespace, which only the schema declares', async () => {
  const { dir } = await userChart();
  const argocd = await runCli(['render', '-f', '.', '-o', 'out', '--layout', 'argocd', '--set', 'syncPolicy.automated=null'], { cwd: dir });
  assert.equal(argocd.code, 0, argocd.stderr);
  // the flux chart, copied as the Argo CD one was (an Argo CD chart is refused by the flux layout)
  assert.equal((await runCli(['chart', 'show', 'flux', '--output-dir', 'my-flux-chart'], { cwd: dir })).code, 0);
  const config = path.join(dir, 'config.yaml');
  writeFileSync(
    config,
    readFileSync(config, 'utf8')
      .replace('chart: ./my-chart', 'chart: ./my-flux-chart')
      .replace('  values:\n    repoURL:', '  argocd:\n    values:\n      repoURL:'),
  );
  const flux = await runCli(['render', '-f', '.', '-o', 'flux-out', '--layout', 'flux'], { cwd: dir });
  assert.equal(flux.code, 0, flux.stderr);
  assert.ok(existsSync(path.join(dir, 'flux-out', 'flux', 'kustomization-capi-gitops-01-cluster-api.yaml')));
});

test('the hint of a gitops.chart in a directory that does not exist yet (./charts/wiring) works too: chart show creates the parents', async () => {
  const dir = path.join(exampleCopy(), 'management-cluster');
  appendFileSync(
    path.join(dir, 'config.yaml'),
    'gitops:\n  chart: ./charts/wiring\n  path: clusters/mgmt\n  values:\n    repoURL: https://git.example.com/x.git\n',
  );
  const hint = /hint: start from a built-in chart: capi-gitops (chart show argocd --output-dir \S+)\n/.exec(await failed(dir));
  assert.ok(hint);
  const show = await runCli(hint[1]!.split(' '), { cwd: dir });
  assert.equal(show.code, 0, show.stderr);
  assert.equal((await render(dir)).code, 0);
  const again = await runCli(hint[1]!.split(' '), { cwd: dir });
  assert.equal(again.code, 2, 'an existing directory is still refused');
  assert.match(again.stderr, /it exists; name a new directory/);
});

test('chart show --output-dir writes the chart whole or not at all: a signal before the copy is complete leaves no directory Git would pick up', async () => {
  const parent = tempDir();
  const target = path.join(parent, 'charts', 'wiring');
  await settleInterrupted('SIGINT');
  try {
    await assert.rejects(chartShowCommand('argocd', { outputDir: target }), InterruptedError);
  } finally {
    resetInterruptState();
  }
  assert.equal(existsSync(target), false);
  assert.deepEqual(readdirSync(path.join(parent, 'charts')), [], 'no staging tree left in the scratch directory either');
  const show = await runCli(['chart', 'show', 'argocd', '--output-dir', target]);
  assert.equal(show.code, 0, show.stderr);
  assert.ok(existsSync(path.join(target, 'Chart.yaml')));
  assert.deepEqual(readdirSync(path.join(parent, 'charts')), ['wiring']);
});

test("gitops.chart is read from the directory of the Config file that declares it, not the first -f file's (docs/charts.md)", async () => {
  const root = exampleCopy();
  const dir = path.join(root, 'management-cluster');
  const elsewhere = path.join(root, 'providers');
  mkdirSync(elsewhere);
  for (const file of ['providers.yaml', 'capi-gitops.lock.yaml']) {
    writeFileSync(path.join(elsewhere, file), readFileSync(path.join(dir, file), 'utf8'));
    rmSync(path.join(dir, file));
  }
  const show = await runCli(['chart', 'show', 'argocd', '--output-dir', 'my-chart'], { cwd: dir });
  assert.equal(show.code, 0, show.stderr);
  appendFileSync(
    path.join(dir, 'config.yaml'),
    'gitops:\n  chart: ./my-chart\n  path: clusters/mgmt\n  values:\n    repoURL: https://git.example.com/x.git\n',
  );
  const result = await runCli(['render', '-f', '../providers/providers.yaml', '-f', 'config.yaml', '-o', 'out', '--layout', 'argocd'], {
    cwd: dir,
  });
  assert.equal(result.code, 0, result.stderr);
});

test("chart show --output-dir into the Config file's directory from its parent suggests gitops.chart relative to that Config file, and the suggestion followed literally renders", async () => {
  const root = exampleCopy();
  const show = await runCli(['chart', 'show', 'argocd', '--output-dir', 'management-cluster/my-chart'], { cwd: root });
  assert.equal(show.code, 0, show.stderr);
  const suggested = /use it with gitops\.chart: (\S+) in (\S+) /.exec(show.stdout);
  assert.deepEqual(suggested?.slice(1), ['./my-chart', path.join('management-cluster', 'config.yaml')], show.stdout);
  appendFileSync(
    path.join(root, suggested![2]!),
    `gitops:\n  chart: ${suggested![1]}\n  path: clusters/mgmt\n  values:\n    repoURL: https://git.example.com/x.git\n`,
  );
  const result = await runCli(['render', '-f', 'management-cluster', '-o', 'out', '--layout', 'argocd'], { cwd: root });
  assert.equal(result.code, 0, result.stderr);
});

test("chart show --output-dir with a relative path: gitops.chart reads it from the Config file's directory, so the absolute path is printed too", async () => {
  const dir = tempDir();
  const show = await runCli(['chart', 'show', 'flux', '--output-dir', 'charts/wiring'], { cwd: dir });
  assert.equal(show.code, 0, show.stderr);
  assert.ok(show.stdout.includes(`from anywhere: ${path.join(dir, 'charts', 'wiring')})\n`), show.stdout);
});

/** A chart value of one's own: a map of annotations every component Application carries. */
function addAnnotationsValue(dir: string): void {
  const chart = path.join(dir, 'my-chart');
  appendFileSync(path.join(chart, 'values.yaml'), 'extraAnnotations: {}\n');
  const schemaFile = path.join(chart, 'values.schema.json');
  const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as { properties: Record<string, unknown> };
  schema.properties.extraAnnotations = { type: 'object', additionalProperties: { type: 'string' } };
  writeFileSync(schemaFile, JSON.stringify(schema, null, 2));
  const applications = path.join(chart, 'templates', 'applications.yaml');
  writeFileSync(
    applications,
    readFileSync(applications, 'utf8').replace(
      '    argocd.argoproj.io/sync-wave: {{quote wave}}\n',
      '    argocd.argoproj.io/sync-wave: {{quote wave}}\n{{#each @root.Values.extraAnnotations}}\n    {{@key}}: {{quote this}}\n{{/each}}\n',
    ),
  );
}

/** Renders the argocd layout with a hint's flags as a shell reads them; the core's Application, which the render must write. */
async function renderedWithHint(dir: string, flags: string): Promise<string> {
  const words = execFileSync('sh', ['-c', `printf '%s\\n' ${flags}`], { encoding: 'utf8' })
    .trimEnd()
    .split('\n');
  const fixed = await runCli(['render', '-f', '.', '-o', 'out', '--layout', 'argocd', ...words], { cwd: dir });
  assert.equal(fixed.code, 0, fixed.stderr);
  return readFileSync(path.join(dir, 'out', 'argocd', 'application-capi-gitops-01-cluster-api.yaml'), 'utf8');
}

test('a value under a key with dots (an annotation) that the schema refuses is hinted with its dots escaped and the word quoted for the shell, so the --set-string it offers, pasted into a shell, sets that key (helm pkg/strvals/parser.go: "\\." in a key)', async () => {
  const { dir } = await userChart();
  addAnnotationsValue(dir);
  const refused = await runCli(
    ['render', '-f', '.', '-o', 'out', '--layout', 'argocd', '--set', 'extraAnnotations.team\\.example\\.com/cost=42'],
    {
      cwd: dir,
    },
  );
  assert.equal(refused.code, 1, refused.stderr);
  const hint = /hint: --set reads 42 as a number: pass it with (--set-string .*)\n/.exec(refused.stderr);
  assert.ok(hint, refused.stderr);
  assert.equal(hint[1], `--set-string 'extraAnnotations.team\\.example\\.com/cost=42'`);
  assert.match(refused.stderr, /value extraAnnotations\.team\\\.example\\\.com\/cost \(given by --set\) must be string/);
  const application = await renderedWithHint(dir, hint[1]!);
  assert.match(application, /\n {4}team\.example\.com\/cost: "42"\n/);
});

test('a misspelt field inside a value a template writes with toYaml (jsonPointer for jsonPointers) is told at the template line that writes the value, naming the value to correct; following it renders (argo-cd manifests/crds/application-crd.yaml)', async () => {
  const { dir, chart } = await userChart();
  rmSync(path.join(chart, '..', 'values.schema.json'));
  const root = path.join(chart, 'root.yaml');
  const lines = readFileSync(root, 'utf8').split('\n');
  const at = lines.indexOf('  syncPolicy:') + 1;
  // a literal line with the text of the list item, which it did not write
  lines.splice(at - 1, 0, '  ignoreDifferences: {{nindent 2 (toYaml Values.rootIgnore)}}', '{{#if false}}', '  - group: apps', '{{/if}}');
  writeFileSync(root, lines.join('\n'));
  // beside the manifest's directory, which -f . reads whole
  const values = path.join(dir, '..', 'ignore.yaml');
  writeFileSync(values, 'rootIgnore:\n- group: apps\n  kind: Deployment\n  jsonPointer: [/spec/replicas]\n');
  const result = await runCli(['render', '-f', '.', '-o', 'out', '--layout', 'argocd', '--values', '../ignore.yaml'], { cwd: dir });
  assert.equal(result.code, 1, result.stderr);
  assertNoStackTrace(result);
  assert.match(
    result.stderr,
    new RegExp(
      `^my-chart/templates/root\\.yaml:${at}:3: error: Application/argocd/capi-gitops: spec\\.ignoreDifferences\\[0\\]\\.jsonPointer: not a field of argoproj\\.io/v1alpha1 Application\\n` +
        '.*\\n  hint: did you mean jsonPointers\\? This line writes it from the value rootIgnore\\[0\\]\\.jsonPointer: correct it where that value is given\\n',
      'm',
    ),
  );
  writeFileSync(values, readFileSync(values, 'utf8').replace('jsonPointer:', 'jsonPointers:'));
  const fixed = await runCli(['render', '-f', '.', '-o', 'out', '--layout', 'argocd', '--values', '../ignore.yaml'], { cwd: dir });
  assert.equal(fixed.code, 0, fixed.stderr);
});

test('a label or annotation a template leaves null or writes as a number is an error at its line (kubectl: unknown object type "nil" in Application.metadata.labels, k8s ObjectMeta labels are map[string]string), and the hints, followed, render', async () => {
  const { dir, chart } = await userChart();
  const applications = path.join(chart, 'applications.yaml');
  setLine(applications, 11, '    argocd.argoproj.io/sync-wave: {{quote wave}}\n    retries: {{@root.Values.syncPolicy.retry.limit}}');
  setLine(applications, 15, '    capi-gitops.dev/component: {{quote label}}\n    owner: {{@root.Values.destination.name}}');
  const stderr = await failed(dir);
  assert.equal(
    stderr
      .split('\n')
      .filter((l) => !l.startsWith('  expected'))
      .join('\n'),
    [
      'my-chart/templates/applications.yaml:12:5: error: Application/argocd/capi-gitops-00-cert-manager, Application/argocd/capi-gitops-01-cluster-api, ' +
        'Application/argocd/capi-gitops-02-bootstrap-example, Application/argocd/capi-gitops-03-control-plane-example, ' +
        'Application/argocd/capi-gitops-04-infrastructure-example: metadata.annotations.retries: the number 10, where Kubernetes takes a string',
      '  hint: quote it: {{quote …}}',
      'my-chart/templates/applications.yaml:16:5: error: Application/argocd/capi-gitops-00-cert-manager, Application/argocd/capi-gitops-01-cluster-api, ' +
        'Application/argocd/capi-gitops-02-bootstrap-example, Application/argocd/capi-gitops-03-control-plane-example, ' +
        'Application/argocd/capi-gitops-04-infrastructure-example: metadata.labels.owner: null, where Kubernetes takes a string',
      '  hint: leave the key out while the value is unset ({{#if …}} around the line), or give it a default: {{quote (default "none" …)}}',
      '2 problems; nothing was written',
      '',
    ].join('\n'),
  );
  setLine(applications, 12, '    retries: {{quote @root.Values.syncPolicy.retry.limit}}');
  setLine(applications, 16, '    owner: {{quote (default "none" @root.Values.destination.name)}}');
  const result = await render(dir);
  assert.equal(result.code, 0, result.stderr);
});

test('an Application field its real CRD does not declare (syncPolcy, destination.namepace) is an error at the template line that wrote it, with the field it likely meant; it was written with exit 0 (argo-cd manifests/crds/application-crd.yaml)', async () => {
  const { dir, chart } = await userChart();
  const applications = path.join(chart, 'applications.yaml');
  const lines = readFileSync(applications, 'utf8').split('\n');
  const syncPolicy = lines.indexOf('  syncPolicy:') + 1;
  const namespace = lines.indexOf('    namespace: {{quote namespace}}') + 1;
  setLine(applications, syncPolicy, '  syncPolcy:');
  setLine(applications, namespace, '    namepace: {{quote namespace}}');
  const stderr = await failed(dir);
  assert.match(
    stderr,
    new RegExp(
      `^my-chart/templates/applications\\.yaml:${namespace}:5: error: .*spec\\.destination\\.namepace: not a field of argoproj\\.io/v1alpha1 Application\\n` +
        '  expected: a field its CRD declares here: name, namespace, server\\n  hint: did you mean namespace\\?\\n',
      'm',
    ),
  );
  assert.match(
    stderr,
    new RegExp(
      `applications\\.yaml:${syncPolicy}:3: error: .*spec\\.syncPolcy: not a field of .*\\n.*\\n  hint: did you mean syncPolicy\\?\\n`,
    ),
  );
  // followed, the hint renders
  setLine(applications, syncPolicy, '  syncPolicy:');
  setLine(applications, namespace, '    namespace: {{quote namespace}}');
  assert.equal((await render(dir)).code, 0);
});

test('a Flux Kustomization field its real CRD does not declare (spec.prnue) is an error at its template line (fluxcd/kustomize-controller config/crd/bases)', async () => {
  const dir = path.join(exampleCopy(), 'management-cluster');
  const show = await runCli(['chart', 'show', 'flux', '--output-dir', 'my-chart'], { cwd: dir });
  assert.equal(show.code, 0, show.stderr);
  appendFileSync(path.join(dir, 'config.yaml'), 'gitops:\n  chart: ./my-chart\n  path: clusters/mgmt\n');
  const file = path.join(dir, 'my-chart', 'templates', 'kustomizations.yaml');
  const line = readFileSync(file, 'utf8').split('\n').indexOf('  prune: true') + 1;
  assert.ok(line > 0);
  setLine(file, line, '  prnue: true');
  const result = await runCli(['render', '-f', '.', '-o', 'out', '--layout', 'flux'], { cwd: dir });
  assert.equal(result.code, 1, result.stderr);
  assertNoStackTrace(result);
  assert.match(
    result.stderr,
    new RegExp(
      `kustomizations\\.yaml:${line}:3: error: .*spec\\.prnue: not a field of kustomize\\.toolkit\\.fluxcd\\.io/v1 Kustomization\\n`,
    ),
  );
  assert.match(result.stderr, /hint: did you mean prune\?/);
});

test('a --set value with a comma (a repository URL) is hinted as --set-literal with the same pair, which Helm splits nowhere, and the hint followed in a shell renders that URL (helm pkg/strvals/literal_parser.go)', async () => {
  const { dir } = await userChart();
  const split = await runCli(['render', '-f', '.', '-o', 'out', '--layout', 'argocd', '--set', 'repoURL=https://git.example.com/a,b.git'], {
    cwd: dir,
  });
  assert.equal(split.code, 1, split.stderr);
  const hint = /hint: "," splits --set pairs: give the value whole with (--set-literal \S+), or escape each "," as "\\,"\n/.exec(
    split.stderr,
  );
  assert.ok(hint, split.stderr);
  const application = await renderedWithHint(dir, hint[1]!);
  assert.match(application, /\n {4}repoURL: https:\/\/git\.example\.com\/a,b\.git\n/);
});

test('an Application field near no field its CRD declares (one a newer Argo CD may have) is written, with a warning at its template line naming the CRDs checked against; a misspelling near one stays an error', async () => {
  const { dir, chart } = await userChart();
  const applications = path.join(chart, 'applications.yaml');
  const lines = readFileSync(applications, 'utf8').split('\n');
  const syncPolicy = lines.indexOf('  syncPolicy:') + 1;
  // a field of the future, above syncPolicy at the same depth
  setLine(applications, syncPolicy, '  hydrationWindow: {hours: 4}\n  syncPolicy:');
  const result = await render(dir);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    new RegExp(
      `applications\\.yaml:${syncPolicy}:3: warning: .*spec\\.hydrationWindow: not a field of argoproj\\.io/v1alpha1 Application in the CRDs capi-gitops checks against \\(Argo CD and Flux of 2026-08\\)\\n`,
    ),
  );
  assert.match(
    result.stderr,
    /hint: remove it, or write it where the Application CRD has it; a field of a newer Application CRD is written as it is/,
  );
  const application = readFileSync(path.join(dir, 'out', 'argocd', 'application-capi-gitops-01-cluster-api.yaml'), 'utf8');
  assert.match(application, /\n {2}hydrationWindow:\n {4}hours: 4\n/);
});

test("a key a template writes twice in one mapping is an error at the line of the repeat (found in one pass, yaml/unique-keys.ts); one repeated in the chart's values.yaml is read as Helm reads it, the last, with a warning there (go-yaml v2 decode.go setMapIndex, not strict)", async () => {
  const { dir, chart } = await userChart();
  const applications = path.join(chart, 'applications.yaml');
  const original = readFileSync(applications, 'utf8');
  const syncPolicy = original.split('\n').indexOf('  syncPolicy:') + 1;
  setLine(applications, syncPolicy, '  project: again\n  syncPolicy:');
  assert.match(
    await failed(dir),
    new RegExp(`applications\\.yaml:${syncPolicy}:\\d+: error: .*renders invalid YAML: Map keys must be unique`),
  );
  writeFileSync(applications, original);
  const values = path.join(dir, 'my-chart', 'values.yaml');
  const first = readFileSync(values, 'utf8').split('\n').indexOf('releaseName: capi-gitops') + 1;
  writeFileSync(values, `${readFileSync(values, 'utf8')}releaseName: twice\n`);
  const repeat = readFileSync(values, 'utf8').split('\n').length - 1;
  const result = await render(dir);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    new RegExp(
      `values\\.yaml:${repeat}:1: warning: .*releaseName: given again in its map \\(first at line ${first}\\): Helm reads the last one, this one, and so does capi-gitops\n`,
    ),
  );
  assert.ok(existsSync(path.join(dir, 'out', 'argocd', 'application-twice-01-cluster-api.yaml')));
});

test('a value the chart schema refuses with `not` (Replace=true in syncOptions, docs/charts.md) says it is refused and why, not "must NOT be valid"', async () => {
  const dir = path.join(exampleCopy(), 'management-cluster');
  const refused = await runCli(
    [
      'render',
      '-f',
      '.',
      '-o',
      'out',
      '--layout',
      'argocd',
      '--set',
      'repoURL=https://git.example.com/x.git',
      '--set',
      'path=clusters/mgmt',
      '--set-json',
      'syncPolicy.syncOptions=["Replace=true"]',
    ],
    { cwd: dir },
  );
  assert.equal(refused.code, 1, refused.stderr);
  assert.doesNotMatch(refused.stderr, /must NOT be valid/);
  assert.match(refused.stderr, /value syncPolicy\.syncOptions\[0\] \(given by --set-json\) is refused by the chart: .*cert-manager/);
  assert.match(refused.stderr, /expected: any value but "Replace=true"/);
  assert.equal(existsSync(path.join(dir, 'out')), false);
});

test("a missing value in one template and a field the CRD does not declare in another are told in one run, each at its line: the templates that rendered are checked while the other's problem is told", async () => {
  const { dir, chart } = await userChart();
  const applications = path.join(chart, 'applications.yaml');
  const root = path.join(chart, 'root.yaml');
  const project = readFileSync(applications, 'utf8').split('\n').indexOf('  project: {{@root.Values.project}}') + 1;
  const syncPolicy = readFileSync(root, 'utf8').split('\n').indexOf('  syncPolicy:') + 1;
  setLine(applications, project, '  project: {{@root.Values.projekt}}');
  setLine(root, syncPolicy, '  syncPolcy:');
  const stderr = await failed(dir);
  assert.match(stderr, new RegExp(`^my-chart/templates/applications\\.yaml:${project}:14: error: value "projekt" is not defined`, 'm'));
  assert.match(stderr, new RegExp(`^my-chart/templates/root\\.yaml:${syncPolicy}:3: error: .*spec\\.syncPolcy: not a field of`, 'm'));
  assert.match(stderr, /^2 problems; nothing was written\n$/m);
  setLine(applications, project, '  project: {{@root.Values.project}}');
  setLine(root, syncPolicy, '  syncPolicy:');
  assert.equal((await render(dir)).code, 0);
});

test("a chart's values.schema.json that is not valid JSON is told at the line and column of the mistake, not at a character offset", async () => {
  const { dir, chart } = await userChart();
  const schema = path.join(path.dirname(chart), 'values.schema.json');
  const lines = readFileSync(schema, 'utf8').split('\n');
  const line = lines.findIndex((l) => l.trimEnd().endsWith(',')) + 1;
  // the second comma, where a property name was expected
  const column = lines[line - 1]!.trimEnd().length + 1;
  setLine(schema, line, `${lines[line - 1]!.trimEnd()},`);
  const stderr = await failed(dir);
  assert.match(stderr, new RegExp(`^my-chart/values\\.schema\\.json:${line}:${column}: error: not valid JSON: `, 'm'));
  assert.doesNotMatch(stderr, /at position \d+/);
  setLine(schema, line, lines[line - 1]!);
  assert.equal((await render(dir)).code, 0);
});

test("a chart's values.yaml that is not valid YAML is told once at its line and column, without the parser's own position repeated, with a hint", async () => {
  const { dir, chart } = await userChart();
  const values = path.join(path.dirname(chart), 'values.yaml');
  const lines = readFileSync(values, 'utf8').split('\n');
  const line = lines.indexOf('targetRevision: HEAD') + 1;
  setLine(values, line, 'targetRevision: [HEAD');
  const stderr = await failed(dir);
  assert.match(stderr, /^my-chart\/values\.yaml:\d+:\d+: error: not valid YAML: [^\n]*\n  expected: a YAML mapping\n  hint: /m);
  assert.doesNotMatch(stderr, /at line \d+, column \d+/);
  setLine(values, line, 'targetRevision: HEAD');
  assert.equal((await render(dir)).code, 0);
});

test('a --values file that is not valid YAML is told at its line and column without the parser repeating it, with a hint; corrected, it renders', async () => {
  const { dir } = await userChart();
  // beside the manifest directory, whose every *.yaml -f . reads as a manifest
  const values = path.join(path.dirname(dir), 'wiring-values.yaml');
  writeFileSync(values, 'targetRevision: [HEAD\nproject: capi-gitops\n');
  const result = await runCli(['render', '-f', '.', '-o', 'out', '--layout', 'argocd', '--values', '../wiring-values.yaml'], { cwd: dir });
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stderr,
    /^\.\.\/wiring-values\.yaml:\d+:\d+: error: not valid YAML: [^\n]*\n  expected: a YAML mapping of chart values\n  hint: /m,
  );
  assert.doesNotMatch(result.stderr, /at line \d+, column \d+/);
  writeFileSync(values, 'targetRevision: HEAD\nproject: capi-gitops\n');
  const fixed = await runCli(['render', '-f', '.', '-o', 'out', '--layout', 'argocd', '--values', '../wiring-values.yaml'], { cwd: dir });
  assert.equal(fixed.code, 0, fixed.stderr);
});

test("a Chart.yaml whose apiVersion, name or version is wrong or missing is told at the value's line and column where there is one, each with a hint that, followed, renders", async () => {
  const { dir, chart } = await userChart();
  const chartFile = path.join(path.dirname(chart), 'Chart.yaml');
  const lines = readFileSync(chartFile, 'utf8').split('\n');
  const at = (key: string) => lines.findIndex((l) => l.startsWith(`${key}:`)) + 1;
  const [apiVersion, name, version] = [at('apiVersion'), at('name'), at('version')];
  setLine(chartFile, apiVersion, 'apiVersion: v1');
  setLine(chartFile, name, 'name: My_Wiring');
  setLine(chartFile, version, '# version removed');
  const stderr = await failed(dir);
  assert.match(
    stderr,
    new RegExp(`^my-chart/Chart\\.yaml:${apiVersion}:13: error: apiVersion: is "v1"\\n.*\\n  hint: write apiVersion: v2\\n`, 'm'),
  );
  assert.match(
    stderr,
    new RegExp(`^my-chart/Chart\\.yaml:${name}:7: error: name: is "My_Wiring"\\n.*\\n  hint: write name: my-wiring\\n`, 'm'),
  );
  // missing: at the mapping that lacks it, Chart.yaml's first line
  assert.match(stderr, /^my-chart\/Chart\.yaml:1:1: error: version: is missing\n.*\n {2}hint: write version: 0\.1\.0\n/m);
  setLine(chartFile, apiVersion, 'apiVersion: v2');
  setLine(chartFile, name, 'name: my-wiring');
  setLine(chartFile, version, 'version: 0.1.0');
  assert.equal((await render(dir)).code, 0);
});

test("a Chart.yaml without its version and a template's own problem are told in one run: the chart can still be read, so its templates are checked too", async () => {
  const { dir, chart } = await userChart();
  const chartFile = path.join(path.dirname(chart), 'Chart.yaml');
  const lines = readFileSync(chartFile, 'utf8').split('\n');
  const version = lines.findIndex((l) => l.startsWith('version:')) + 1;
  setLine(chartFile, version, '# version removed');
  const applications = path.join(chart, 'applications.yaml');
  const line = readFileSync(applications, 'utf8').split('\n')[21]!;
  setLine(applications, 22, '{{#if}}');
  const stderr = await failed(dir);
  assert.match(stderr, /^my-chart\/Chart\.yaml:1:1: error: version: is missing\n/m);
  assert.match(stderr, /^my-chart\/templates\/applications\.yaml:22:1: error: \{\{#if\}\} takes exactly one argument, here 0\n/m);
  assert.match(stderr, /^2 problems; nothing was written\n$/m);
  // each hint followed: it renders
  setLine(chartFile, version, 'version: 0.1.0');
  setLine(applications, 22, line);
  assert.equal((await render(dir)).code, 0);
});
