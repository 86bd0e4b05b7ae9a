/**
 * `import helm-values` against the cluster-api-operator chart's e2e vectors: every `--set`
 * combination of test/e2e/helm_test.go compared with a golden file, kept in
 * test/fixtures/operator-chart/ (vectors.json names the commit).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { importHelmValues } from '../../src/manifest/import-helm-values.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { loadManifest } from '../../src/manifest/load.js';
import { tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { FIXTURES } from '../helpers/paths.js';
import { runCli } from '../helpers/cli.js';

const CHART = path.join(FIXTURES, 'operator-chart');
const { vectors } = JSON.parse(readFileSync(path.join(CHART, 'vectors.json'), 'utf8')) as {
  vectors: { name: string; golden: string; set: string[] }[];
};

type Doc = { kind: string; metadata: { name: string; namespace: string; annotations?: Record<string, string> }; spec?: unknown };

/** Provider objects by kind/namespace/name, without the Helm hook and sync-wave annotations. */
function providers(text: string): Record<string, unknown> {
  const byId: Record<string, unknown> = {};
  for (const doc of parseAllDocuments(text)) {
    const value = doc.toJS() as Doc | null;
    if (!value || !value.kind.endsWith('Provider')) continue;
    const { annotations: _, ...metadata } = value.metadata;
    byId[`${value.kind}/${metadata.namespace}/${metadata.name}`] = { metadata, spec: value.spec ?? null };
  }
  return byId;
}

for (const vector of vectors) {
  test(`helm_test.go "${vector.name}": the same provider objects as test/e2e/resources/${vector.golden}`, () => {
    const { text } = importHelmValues({ layers: [], sets: vector.set.map((expression) => ({ expression, forceString: false })) });
    const golden = providers(readFileSync(path.join(CHART, vector.golden), 'utf8'));
    assert.ok(Object.keys(golden).length > 0);
    assert.deepEqual(providers(text), golden);
  });
}

test('every imported golden vector loads as a capi-gitops manifest', async () => {
  for (const vector of vectors) {
    const { text } = importHelmValues({ layers: [], sets: vector.set.map((expression) => ({ expression, forceString: false })) });
    const secret =
      'apiVersion: v1\nkind: Secret\nmetadata: {name: test-secret-name, namespace: test-secret-namespace}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: aws-variables, namespace: default}\n';
    const manifest = await loadManifest([writeTempManifest({ 'm.yaml': `${secret}${text}` })]);
    assert.ok(manifest.providers.length > 0, vector.name);
  }
});

test('string form of charts up to v0.18: name:version, namespace:name:version;… and core=name:version (templates/infra.yaml, core.yaml at v0.18.0)', () => {
  const { text, warnings } = importHelmValues({
    layers: [],
    sets: [
      { expression: 'infrastructure=capd-custom-ns:docker:v1.4.2;capz-custom-ns:azure:v1.10.0', forceString: false },
      { expression: 'core=cluster-api:v1.4.2', forceString: false },
      { expression: 'manager.featureGates.docker.ClusterTopology=true', forceString: false },
    ],
  });
  const objects = providers(text);
  assert.deepEqual(Object.keys(objects).sort(), [
    'BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm',
    'ControlPlaneProvider/capi-kubeadm-control-plane-system/kubeadm',
    'CoreProvider/capi-system/cluster-api',
    'InfrastructureProvider/capd-custom-ns/docker',
    'InfrastructureProvider/capz-custom-ns/azure',
  ]);
  assert.deepEqual(objects['InfrastructureProvider/capd-custom-ns/docker'], {
    metadata: { name: 'docker', namespace: 'capd-custom-ns' },
    spec: { version: 'v1.4.2', manager: { featureGates: { ClusterTopology: true } } },
  });
  assert.deepEqual(objects['CoreProvider/capi-system/cluster-api'], {
    metadata: { name: 'cluster-api', namespace: 'capi-system' },
    spec: { version: 'v1.4.2' },
  });
  // Implicit kubeadm providers never carry a version (infra-conditions.yaml).
  assert.equal(
    objects['BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm'] &&
      (objects['BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm'] as { spec: unknown }).spec,
    null,
  );
  assert.equal(warnings.filter((w) => w.message.includes('string form')).length, 2);
  assert.match(text, /helm\.sh\/hook and argocd\.argoproj\.io\/sync-wave annotations/);
});

test('string form with a space after ";" or ":" (docker:v1.7.7; azure:v1.13.0) installs azure, as YAML reads the printed name: {{ $infrastructureName }} without its leading space; it was written as name " azure" in namespace " azure-infrastructure-system" with exit 0 (templates/infra.yaml:3-16, 35-36 at v0.15.1)', () => {
  const { text } = importHelmValues({
    layers: [],
    sets: [{ expression: 'infrastructure=docker:v1.7.7; azure:v1.13.0; capv-ns: vsphere: v1.11.0', forceString: false }],
    chartVersion: { text: '0.15.1', origin: '--chart-version' },
  });
  const objects = providers(text);
  assert.deepEqual(
    Object.keys(objects)
      .filter((id) => id.startsWith('Infrastructure'))
      .sort(),
    [
      'InfrastructureProvider/azure-infrastructure-system/azure',
      'InfrastructureProvider/capv-ns/vsphere',
      'InfrastructureProvider/docker-infrastructure-system/docker',
    ],
  );
  assert.deepEqual(objects['InfrastructureProvider/capv-ns/vsphere'], {
    metadata: { name: 'vsphere', namespace: 'capv-ns' },
    spec: { version: 'v1.11.0' },
  });
});

test('string form: an entry without a version keeps the version of the entry before it, with a warning, as the template declares $infrastructureVersion before its range (templates/infra.yaml:6-18 at v0.18.1, bootstrap.yaml, ipam.yaml)', () => {
  const { text, warnings } = importHelmValues({
    layers: [],
    sets: [
      { expression: 'infrastructure=aws:v2.4.0;docker;capv-ns:vsphere:v1.11.0;azure', forceString: false },
      { expression: 'bootstrap=kubeadm;rke2:v0.11.0', forceString: false },
    ],
    chartVersion: { text: '0.18.1', origin: '--chart-version' },
  });
  const objects = providers(text);
  const version = (id: string) => ((objects[id] as { spec: { version?: string } | null }).spec ?? {}).version;
  assert.equal(version('InfrastructureProvider/aws-infrastructure-system/aws'), 'v2.4.0');
  assert.equal(version('InfrastructureProvider/docker-infrastructure-system/docker'), 'v2.4.0');
  assert.equal(version('InfrastructureProvider/capv-ns/vsphere'), 'v1.11.0');
  assert.equal(version('InfrastructureProvider/azure-infrastructure-system/azure'), 'v1.11.0');
  // before any versioned entry there is nothing to keep
  assert.equal(version('BootstrapProvider/kubeadm-bootstrap-system/kubeadm'), undefined);
  assert.equal(version('BootstrapProvider/rke2-bootstrap-system/rke2'), 'v0.11.0');
  const kept = warnings.filter((w) => w.message.includes('names no version')).map((w) => w.message);
  assert.equal(kept.length, 2);
  assert.match(kept[0]!, /"docker" names no version, so chart v0\.18\.1 installs v2\.4\.0, the version of "aws:v2\.4\.0"/);
  assert.match(kept[1]!, /"azure" names no version, so chart v0\.18\.1 installs v1\.11\.0/);
});

test('chart v0.12.0 prints additionalDeployments with its recursivePrinter: scalars re-typed by YAML, a list refused at its line as Helm fails to render it (templates/infra.yaml:1-10 at v0.12.0)', () => {
  const sets = (more: string[]) => [
    'infrastructure=aws:v2.4.0',
    'additionalDeployments.capa-eks-controller-manager.deployment.replicas=0',
    ...more,
  ];
  const input = (more: string[], chartVersion: string) => ({
    layers: [],
    sets: sets(more).map((expression) => ({ expression, forceString: expression.includes('tier') })),
    chartVersion: { text: chartVersion, origin: '--chart-version' },
  });
  const scalars = ['additionalDeployments.capa-eks-controller-manager.deployment.nodeSelector.tier=1'];
  const printed = providers(importHelmValues(input(scalars, '0.12.0')).text)['InfrastructureProvider/aws-infrastructure-system/aws'];
  assert.deepEqual((printed as { spec: Record<string, unknown> }).spec.additionalDeployments, {
    'capa-eks-controller-manager': { deployment: { replicas: 0, nodeSelector: { tier: 1 } } },
  });
  // toYaml from v0.13.0 keeps the string
  const kept = providers(importHelmValues(input(scalars, '0.13.0')).text)['InfrastructureProvider/aws-infrastructure-system/aws'];
  assert.deepEqual((kept as { spec: Record<string, unknown> }).spec.additionalDeployments, {
    'capa-eks-controller-manager': { deployment: { replicas: 0, nodeSelector: { tier: '1' } } },
  });

  const list = ['additionalDeployments.capa-eks-controller-manager.deployment.containers[0].name=manager'];
  assert.throws(
    () => importHelmValues(input(list, '0.12.0')),
    (err: unknown) =>
      err instanceof CapiGitopsError &&
      err.diagnostics.length === 1 &&
      err.diagnostics[0]!.path === 'additionalDeployments.capa-eks-controller-manager.deployment.containers' &&
      /is a list, which chart v0\.12\.0 prints in Go's form/.test(err.diagnostics[0]!.message),
  );
  assert.doesNotThrow(() => importHelmValues(input(list, '0.13.0')));
});

test('keys the chart ignores are warned about; --set infrastructure=docker,azure explains the comma', () => {
  const { warnings } = importHelmValues({
    layers: [
      {
        source: 'values.yaml',
        values: {
          manager: { featureGates: { docker: { X: true } } },
          infrastructure: { docker: { enabled: true, replicas: 3, manager: { verbosity: 5 } } },
        },
      },
    ],
    sets: [],
  });
  assert.deepEqual(
    warnings.slice(0, 3).map((w) => w.message),
    [
      'infrastructure.docker.enabled is ignored by the chart: a provider is installed whenever infrastructure.docker is set',
      "infrastructure.docker.replicas is ignored by the chart's infrastructure template",
      'infrastructure.docker.manager.verbosity is ignored by the chart (it writes manager.featureGates and manager.metrics only)',
    ],
  );
  // The top-level gates: read by charts v0.10.0 to v0.24.1, not "ignored from v0.19" (test/manifest/helm-chart-versions.test.ts).
  assert.match(warnings[3]!.message, /^manager\.featureGates \(top level\) is read by charts v0\.10\.0 to v0\.24\.1.*--chart-version/);
  assert.throws(
    () => importHelmValues({ layers: [], sets: [{ expression: 'infrastructure=docker,azure', forceString: false }] }),
    (error: CapiGitopsError) => /the comma splits --set pairs/.test(error.diagnostics[0].hint ?? ''),
  );
  assert.throws(
    () => importHelmValues({ layers: [], sets: [{ expression: 'infrastructure=a:b:c:d', forceString: false }] }),
    /not name, name:version or namespace:name:version/,
  );
});

test('CLI: import helm-values -f values.yaml --set … -o dir/file (a new directory), then render-ready; -o naming a -f file is refused', async () => {
  const dir = tempDir();
  writeFileSync(
    path.join(dir, 'values.yaml'),
    'configSecret:\n  name: vars\ninfrastructure:\n  docker:\n    version: v1.7.7\n    additionalManifests:\n      name: extra\n      manifests: |\n        kind: ConfigMap\n',
  );
  const result = await runCli(
    ['import', 'helm-values', '-f', 'values.yaml', '--set', 'core.cluster-api.version=v1.7.7', '-o', 'management-cluster/providers.yaml'],
    { cwd: dir },
  );
  // -o in a directory that does not exist yet, as the README's migration writes it: created, as render creates -o
  assert.equal(result.code, 0, result.stderr);
  const text = readFileSync(path.join(dir, 'management-cluster', 'providers.yaml'), 'utf8');
  const docs = parseAllDocuments(text).map((d) => d.toJS() as Doc);
  assert.deepEqual(
    docs.map((d) => `${d.kind}/${d.metadata.namespace}/${d.metadata.name}`),
    [
      'CoreProvider/capi-system/cluster-api',
      'BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm',
      'ControlPlaneProvider/capi-kubeadm-control-plane-system/kubeadm',
      'InfrastructureProvider/docker-infrastructure-system/docker',
      'ConfigMap/docker-infrastructure-system/extra',
    ],
  );
  assert.deepEqual(docs[3].spec, { version: 'v1.7.7', configSecret: { name: 'vars' }, additionalManifests: { name: 'extra' } });
  // the hint gives the flag the chart followed reads, and followed, both providers are imported without a warning
  for (const chart of [[], ['--chart-version', '0.17.0'], ['--chart-version', '0.23.0']]) {
    const bad = await runCli(['import', 'helm-values', '--set', 'infrastructure=docker,azure', ...chart], { cwd: dir });
    assert.equal(bad.code, 1);
    const flag = /(--set(?:-json)?) '([^']+)'$/m.exec(bad.stderr);
    assert.ok(flag, bad.stderr);
    assert.equal(flag[1], chart[1] === '0.17.0' ? '--set' : '--set-json');
    const followed = await runCli(['import', 'helm-values', flag[1]!, flag[2]!, ...chart], { cwd: dir });
    assert.equal(followed.code, 0, followed.stderr);
    assert.equal(followed.stderr, '');
    assert.equal(followed.stdout.match(/^kind: InfrastructureProvider$/gm)?.length, 2, followed.stdout);
  }
  // -o naming an input (here through another spelling of its path) is refused before anything is written
  const before = readFileSync(path.join(dir, 'values.yaml'), 'utf8');
  const over = await runCli(['import', 'helm-values', '-f', 'values.yaml', '-o', './values.yaml'], { cwd: dir });
  assert.equal(over.code, 2, over.stderr);
  assert.match(over.stderr, /-o \.\/values\.yaml is also read with -f values\.yaml: .*name another file/);
  assert.equal(readFileSync(path.join(dir, 'values.yaml'), 'utf8'), before);
  // -o naming a directory is refused up front with the file to name, not at the rename with a temporary file's name
  mkdirSync(path.join(dir, 'mc'));
  const toDirectory = await runCli(['import', 'helm-values', '-f', 'values.yaml', '-o', 'mc'], { cwd: dir });
  assert.equal(toDirectory.code, 2, toDirectory.stderr);
  assert.match(toDirectory.stderr, /^error: -o mc is a directory: name the file to write, e\.g\. -o mc\/providers\.yaml\n/);
  assert.deepEqual(readdirSync(path.join(dir, 'mc')), []);
  // -o - is the standard output, as without -o: no file named "-", no hint to render it
  const toStdout = await runCli(['import', 'helm-values', '-f', 'values.yaml', '-o', '-'], { cwd: dir });
  const plain = await runCli(['import', 'helm-values', '-f', 'values.yaml'], { cwd: dir });
  assert.equal(toStdout.code, 0, toStdout.stderr);
  assert.equal(toStdout.stdout, plain.stdout);
  assert.equal(existsSync(path.join(dir, '-')), false);
  assert.doesNotMatch(toStdout.stderr, /render -f -/);
});

test('a configSecret name or namespace the chart prints as no string (k3s values with name: true) is refused at its file:line:column, as the API server refuses what Helm writes (templates/_helpers.tpl capi-operator.configSecret, core-conditions.yaml: name: {{ .name }} unquoted; CRD configSecret.name: string, required)', async () => {
  const dir = tempDir();
  const values = [
    'configSecret:', //                    1
    '  namespace: 2024', //                2
    'bootstrap:', //                       3
    '  k3s:', //                           4
    '    version: v0.2.0', //              5
    '    configSecret:', //                6
    '      name: true', //                 7
    'controlPlane:', //                    8
    '  k3s:', //                           9
    '    version: v0.2.0', //              10
    '    configSecret:', //                11
    '      name: "true"', //               12
    '',
  ].join('\n');
  writeFileSync(path.join(dir, 'values.yaml'), values);
  const cli = async (...args: string[]) => await runCli(['import', 'helm-values', ...args], { cwd: dir });
  const result = await cli('-f', 'values.yaml', '-o', 'providers.yaml');
  assert.equal(result.code, 1, result.stdout + result.stderr);
  assert.equal(readdirSync(dir).includes('providers.yaml'), false, 'nothing is written');
  const errors = result.stderr.split('\n').filter((line) => line.includes(': error: '));
  assert.deepEqual(
    errors
      .map((line) => /^(values\.yaml:\d+:\d+): error: (\S+): /.exec(line)?.slice(1))
      .sort((a, b) => Number(a![0]!.split(':')[1]) - Number(b![0]!.split(':')[1])),
    [
      ['values.yaml:1:1', 'configSecret.name'],
      ['values.yaml:2:14', 'configSecret.namespace'],
      ['values.yaml:7:13', 'bootstrap.k3s.configSecret.name'],
      ['values.yaml:12:13', 'controlPlane.k3s.configSecret.name'],
    ],
    result.stderr,
  );
  assert.match(
    result.stderr,
    /bootstrap\.k3s\.configSecret\.name: true, which the chart prints unquoted .*configSecret\.name: true, a boolean/,
  );
  assert.match(
    result.stderr,
    /controlPlane\.k3s\.configSecret\.name: "true", which the chart prints unquoted .*configSecret\.name: true, a boolean/,
  );
  assert.match(
    result.stderr,
    /hint: remove bootstrap\.k3s\.configSecret from values\.yaml \(.*\), or set bootstrap\.k3s\.configSecret\.name to the Secret's name\n/,
  );

  // the hints followed literally: every value removed as it says, the import passes
  writeFileSync(
    path.join(dir, 'values.yaml'),
    ['bootstrap:', '  k3s:', '    version: v0.2.0', 'controlPlane:', '  k3s:', '    version: v0.2.0', ''].join('\n'),
  );
  const fixed = await cli('-f', 'values.yaml', '-o', 'providers.yaml');
  assert.equal(fixed.code, 0, fixed.stderr);
});

test('import helm-values tells its problems sorted by file, line and column, as every command does (core/diagnostics.ts sortDiagnostics), not in the order its checks found them', async () => {
  const dir = tempDir();
  // values.yaml's problems (lines 2, 7, 12) and a.yaml's (line 4), found in the order of the checks, not of the files
  writeFileSync(
    path.join(dir, 'values.yaml'),
    [
      'configSecret:',
      '  namespace: 2024',
      'bootstrap:',
      '  k3s:',
      '    version: v0.2.0',
      '    configSecret:',
      '      name: true',
      'controlPlane:',
      '  k3s:',
      '    version: v0.2.0',
      '    configSecret:',
      '      name: "true"',
      '',
    ].join('\n'),
  );
  writeFileSync(path.join(dir, 'a.yaml'), 'core:\n  cluster-api:\n    configSecret:\n      name: 7\n');
  // two Argo CD Applications: b-app.yaml's values are found broken before a-app.yaml's is found a second release
  const application = (name: string, values: string) =>
    `apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: ${name}, namespace: argocd}\nspec:\n  source:\n` +
    `    repoURL: https://kubernetes-sigs.github.io/cluster-api-operator\n    chart: cluster-api-operator\n` +
    `    targetRevision: 0.20.0\n    helm:\n      values: |\n        ${values}\n`;
  writeFileSync(path.join(dir, 'b-app.yaml'), application('capi-b', 'core: [unclosed'));
  writeFileSync(path.join(dir, 'a-app.yaml'), application('capi-a', 'core: {cluster-api: {version: v1.10.0}}'));
  const located = async (...files: string[]) => {
    const result = await runCli(['import', 'helm-values', ...files.flatMap((f) => ['-f', f])], { cwd: dir });
    assert.equal(result.code, 1, result.stdout + result.stderr);
    return [...result.stderr.matchAll(/^(\S+:\d+:\d+): error: /gm)].map((m) => m[1]);
  };
  assert.deepEqual(await located('values.yaml', 'a.yaml'), ['a.yaml:4:13', 'values.yaml:2:14', 'values.yaml:7:13', 'values.yaml:12:13']);
  assert.deepEqual(await located('b-app.yaml', 'a-app.yaml'), ['a-app.yaml:3:18', 'b-app.yaml:10:15']);
});

test('import helm-values tells its warnings sorted by file, line and column too, not in the order its checks found them', async () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'b.yaml'), 'infrastructure:\n  docker:\n    version: v1.10.0\n    enabled: true\n');
  writeFileSync(path.join(dir, 'a.yaml'), 'infrastructure:\n  docker:\n    replicas: 2\n');
  const result = await runCli(['import', 'helm-values', '-f', 'b.yaml', '-f', 'a.yaml'], { cwd: dir });
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(
    [...result.stderr.matchAll(/^(\S+:\d+:\d+): warning: /gm)].map((m) => m[1]),
    ['a.yaml:3:5', 'b.yaml:4:5'],
  );
});

test('import helm-values: secretName without an addon provider is warned at its line, as the chart ignores it (templates/addon.yaml, the only template that reads it)', async () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'values.yaml'), 'infrastructure:\n  docker:\n    version: v1.10.0\nsecretName: capi-vars\n');
  const result = await runCli(['import', 'helm-values', '-f', 'values.yaml', '--chart-version', '0.20.0'], { cwd: dir });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /^values\.yaml:4:1: warning: secretName is ignored by the chart: only its addon template reads it/m);
  assert.doesNotMatch(result.stdout, /capi-vars/);
  // with an addon, the existing warning tells what becomes of it
  writeFileSync(path.join(dir, 'addon.yaml'), 'addon:\n  helm:\n    version: v0.2.0\n');
  const addon = await runCli(['import', 'helm-values', '-f', 'values.yaml', '-f', 'addon.yaml', '--chart-version', '0.20.0'], { cwd: dir });
  assert.equal(addon.code, 0, addon.stderr);
  assert.doesNotMatch(addon.stderr, /only its addon template reads it/);
  assert.match(addon.stderr, /secretName: every chart writes it into the AddonProvider/);
});

test('CLI: import -o naming a symbolic link is refused, as render never writes through a link in its output (output/write-plan.ts): the link and its target are left as they were, and each way the hint offers works', async () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'values.yaml'), 'core:\n  cluster-api:\n    version: v1.7.7\n');
  mkdirSync(path.join(dir, 'elsewhere'));
  writeFileSync(path.join(dir, 'elsewhere', 'shared.yaml'), 'kept: true\n');
  symlinkSync(path.join('elsewhere', 'shared.yaml'), path.join(dir, 'mc-providers.yaml'));
  const cli = async (...args: string[]) => await runCli(['import', 'helm-values', ...args], { cwd: dir });
  const linked = await cli('-f', 'values.yaml', '-o', 'mc-providers.yaml');
  assert.equal(linked.code, 1, linked.stderr);
  assert.equal(
    linked.stderr,
    'mc-providers.yaml: error: the output is a symbolic link to elsewhere/shared.yaml, and import does not write through a link\n' +
      '  expected: a regular file, or a path that does not exist yet\n' +
      '  hint: to write a file in its place, remove the link (rm mc-providers.yaml) and run again; to write its target, name it: -o elsewhere/shared.yaml\n' +
      'nothing was written\n',
  );
  assert.equal(readFileSync(path.join(dir, 'elsewhere', 'shared.yaml'), 'utf8'), 'kept: true\n');
  assert.ok(lstatSync(path.join(dir, 'mc-providers.yaml')).isSymbolicLink());
  // told with the values' own problems, in one run
  const both = await cli('-f', 'values.yaml', '--set', 'infrastructure=a:b:c:d', '-o', 'mc-providers.yaml');
  assert.equal(both.code, 1, both.stderr);
  assert.match(
    both.stderr,
    /not name, name:version or namespace:name:version[\s\S]*mc-providers\.yaml: error: the output is a symbolic link/,
  );
  // a link that points nowhere is refused the same way, naming where it points
  symlinkSync('missing.yaml', path.join(dir, 'dangling.yaml'));
  const dangling = await cli('-f', 'values.yaml', '-o', 'dangling.yaml');
  assert.equal(dangling.code, 1, dangling.stderr);
  assert.match(dangling.stderr, /dangling\.yaml: error: the output is a symbolic link to missing\.yaml,/);
  assert.equal(existsSync(path.join(dir, 'missing.yaml')), false);
  // the hint's two ways, literally
  assert.equal((await cli('-f', 'values.yaml', '-o', 'elsewhere/shared.yaml')).code, 0);
  assert.match(readFileSync(path.join(dir, 'elsewhere', 'shared.yaml'), 'utf8'), /kind: CoreProvider/);
  rmSync(path.join(dir, 'mc-providers.yaml'));
  assert.equal((await cli('-f', 'values.yaml', '-o', 'mc-providers.yaml')).code, 0);
  assert.ok(lstatSync(path.join(dir, 'mc-providers.yaml')).isFile());
});

test(
  'CLI: import -o naming a FIFO (not a regular file) is refused before anything is written',
  { skip: process.platform === 'win32' },
  async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'values.yaml'), 'core:\n  cluster-api:\n    version: v1.7.7\n');
    assert.equal(spawnSync('mkfifo', [path.join(dir, 'pipe')]).status, 0);
    const result = await runCli(['import', 'helm-values', '-f', 'values.yaml', '-o', 'pipe'], { cwd: dir });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /^pipe: error: the output is a FIFO, not a regular file\n/);
    assert.ok(lstatSync(path.join(dir, 'pipe')).isFIFO());
  },
);
