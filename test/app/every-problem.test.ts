/**
 * Every problem of a run in one report (issue 25): a schema problem of one provider, a name
 * problem of another and a render problem of a third are reported together, each at its field;
 * a configSecret in another namespace than the provider's is named where it is.
 */
import { test } from 'node:test';
import path from 'node:path';
import assert from 'node:assert/strict';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { lockOutput, renderOutput } from '../../src/app/run.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { corpusManifest, writeTempManifest } from '../helpers/corpus-manifest.js';
import { exampleCopy } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/paths.js';

async function problemsOf(files: Record<string, string>): Promise<string[]> {
  const dir = writeTempManifest(files);
  const error = await renderOutput({ manifestPaths: [dir] }).then(
    () => assert.fail('the render succeeded'),
    (err: unknown) => err,
  );
  assert.ok(error instanceof CapiGitopsError, String(error));
  return error.diagnostics.map((d) => `${d.line ?? '-'}:${d.column ?? '-'} ${d.object ?? ''} ${d.path ?? ''} ${d.message}`);
}

test('a schema problem, a provider-name typo and a container-name typo of one manifest are reported in one run, each at its field', async () => {
  const manifest = corpusManifest('v1.12.0', 'repository', {
    CoreProvider: '  manager:\n    syncPeriod: 10 minutes\n',
    BootstrapProvider: '  deployment:\n    containers:\n    - name: managr\n      args: {"--v": "5"}\n',
  });
  const typo = `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata:
  name: vpshere
  namespace: capv-system
spec:
  version: v1.10.0
`;
  const problems = await problemsOf({ 'providers.yaml': manifest, 'infra.yaml': typo });
  assert.equal(problems.length, 3, problems.join('\n'));
  assert.match(
    problems.find((p) => p.includes('syncPeriod')) ?? '',
    /^\d+:\d+ CoreProvider\/capi-system\/cluster-api spec\.manager\.syncPeriod invalid duration/,
  );
  assert.match(problems.find((p) => p.includes('vpshere')) ?? '', /knows no InfrastructureProvider named "vpshere"/);
  assert.match(
    problems.find((p) => p.includes('managr')) ?? '',
    /^\d+:\d+ BootstrapProvider\/capi-kubeadm-bootstrap-system\/kubeadm spec\.deployment\.containers\[0\]\.name cannot find container "managr"/,
  );
});

test('a configSecret missing from the provider namespace names the namespace a Secret of that name is in, at spec.configSecret', async () => {
  const manifest = corpusManifest('v1.12.0', 'repository', { CoreProvider: '  configSecret:\n    name: capi-variables\n' });
  const secret =
    'apiVersion: v1\nkind: Secret\nmetadata:\n  name: capi-variables\n  namespace: default\nstringData:\n  EXP_MACHINE_POOL: "true"\n';
  const [problem, ...others] = await problemsOf({ 'providers.yaml': manifest, 'secret.yaml': secret });
  assert.deepEqual(others, []);
  assert.match(
    problem!,
    /^\d+:\d+ CoreProvider\/capi-system\/cluster-api spec\.configSecret Secret capi-system\/capi-variables is not in the input; a Secret capi-variables is in namespace default/,
  );
});

test('a configSecret and an additionalManifests ConfigMap given with a value that is not base64 are told at that value only, not as "not in the input" too', async () => {
  const manifest = corpusManifest('v1.12.0', 'repository', {
    CoreProvider: '  additionalManifests:\n    name: extra\n',
    BootstrapProvider: '  configSecret:\n    name: boot-vars\n',
  });
  const objects = [
    // base64 of "15m" would be MTVt: a plain value under data, as often written by hand
    'apiVersion: v1\nkind: Secret\nmetadata: {name: boot-vars, namespace: capi-kubeadm-bootstrap-system}\ndata:\n  KUBEADM_BOOTSTRAP_TOKEN_TTL: 15m\n',
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra, namespace: capi-system}\ndata: {manifests: ""}\nbinaryData: {extra.gz: "not base64!"}\n',
  ].join('---\n');
  const problems = await problemsOf({ 'providers.yaml': manifest, 'objects.yaml': objects });
  assert.deepEqual(
    problems.map((p) => p.replace(/^\d+:\d+ /, '')),
    [
      'Secret/capi-kubeadm-bootstrap-system/boot-vars data.KUBEADM_BOOTSTRAP_TOKEN_TTL is not valid base64',
      'ConfigMap/capi-system/extra binaryData["extra.gz"] is not valid base64',
    ],
  );
});

test('a provider missing both its configSecret and its additionalManifests ConfigMap is told both in one run, each at its field (operator phase_load.go reads both)', async () => {
  const manifest = corpusManifest('v1.12.0', 'repository', {
    CoreProvider: '  configSecret:\n    name: capi-variables\n  additionalManifests:\n    name: capi-extra\n',
  });
  const problems = await problemsOf({ 'providers.yaml': manifest });
  const at = (field: string) => {
    const line = manifest.split('\n').findIndex((l) => l.startsWith(`  ${field}:`)) + 2;
    return `${line}:5 CoreProvider/capi-system/cluster-api spec.${field} `;
  };
  assert.deepEqual(problems, [
    `${at('configSecret')}Secret capi-system/capi-variables is not in the input`,
    `${at('additionalManifests')}ConfigMap capi-system/capi-extra is not in the input`,
  ]);
});

test('a provider that does not render (a typo in its own fields, or a version not found) still has its missing configSecret and ConfigMap told in the same run', async () => {
  const manifest = corpusManifest('v1.12.0', 'repository', {
    CoreProvider: '  manager:\n    syncPeriod: 10 minutes\n  configSecret:\n    name: capi-variables\n',
    BootstrapProvider: '  additionalManifests:\n    name: bootstrap-extra\n',
  }).replace(/(kind: BootstrapProvider[\s\S]*?version: )v1\.12\.0/, '$1v1.99.0');
  const problems = await problemsOf({ 'providers.yaml': manifest });
  assert.deepEqual(
    problems.map((p) => p.replace(/^\d+:\d+ /, '').replace(/: "[^"]*" is not a directory$/, '')),
    [
      'CoreProvider/capi-system/cluster-api spec.manager.syncPeriod invalid duration "10 minutes"',
      'CoreProvider/capi-system/cluster-api spec.configSecret Secret capi-system/capi-variables is not in the input',
      'BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm spec.version version v1.99.0 not found',
      'BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm spec.additionalManifests ConfigMap capi-kubeadm-bootstrap-system/bootstrap-extra is not in the input',
    ],
  );
});

test('a provider and its configSecret without metadata.namespace (helm template output, no -n): each told once, at the object; no "Secret /name is not in the input" after it', async () => {
  const manifest = corpusManifest('v1.12.0', 'repository', { CoreProvider: '  configSecret:\n    name: capi-variables\n' }).replace(
    'name: cluster-api\n  namespace: capi-system\n',
    'name: cluster-api\n',
  );
  const secret = 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: capi-variables\nstringData:\n  EXP_MACHINE_POOL: "true"\n';
  const problems = await problemsOf({ 'providers.yaml': manifest, 'secret.yaml': secret });
  assert.deepEqual(
    problems.map((p) => p.replace(/^\d+:\d+ /, '')),
    [
      'CoreProvider/cluster-api metadata.namespace missing required field "namespace"',
      'Secret/capi-variables metadata.namespace missing required field "namespace"',
    ],
  );
});

/** The example's problems after `edit` of its providers.yaml (and `config` appended to its config.yaml). */
async function exampleProblems(edit: (providers: string) => string, config = ''): Promise<string[]> {
  const dir = path.join(exampleCopy(), 'management-cluster');
  const file = (name: string) => path.join(dir, name);
  writeFileSync(file('providers.yaml'), edit(readFileSync(file('providers.yaml'), 'utf8')));
  writeFileSync(file('config.yaml'), readFileSync(file('config.yaml'), 'utf8') + config);
  const error = await renderOutput({ manifestPaths: [dir] }).then(
    () => assert.fail('the render succeeded'),
    (err: unknown) => err,
  );
  assert.ok(error instanceof CapiGitopsError, String(error));
  return error.diagnostics.map((d) => `${d.line ?? '-'}:${d.column ?? '-'} ${d.object ?? ''} ${d.path ?? ''} ${d.message}`);
}

test('a provider whose metadata.namespace is not a string (true, a list) is told at it and not rendered: no positionless "Namespace/true: cannot name an output file" after it', async () => {
  for (const value of ['true', '[capex-control-plane-system]']) {
    const problems = await exampleProblems((text) => text.replace('namespace: capex-control-plane-system', `namespace: ${value}`));
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0]!, /^28:14 ControlPlaneProvider\/example metadata\.namespace must be a string/);
  }
});

test('with --layout operator too, a provider with a problem of its own is told and not laid out: no positionless "Namespace/: cannot name an output file" after it', async () => {
  const release = path.join(FIXTURES, 'operator-release', 'v0.28.0', 'operator-components.yaml');
  const problems = await exampleProblems(
    (text) => text.replace('  namespace: capex-bootstrap-system\n', ''),
    `output:\n  layout: operator\noperator:\n  version: v0.28.0\n  url: ${release}\n`,
  );
  assert.deepEqual(problems, ['18:1 BootstrapProvider/example metadata.namespace missing required field "namespace"']);
});

test('a provider whose deployment.containers is a map (or holds null) is told at it, with no internal error from the warnings that read its containers', async () => {
  for (const value of ['{}', '[null]']) {
    const problems = await exampleProblems((text) =>
      text.replace('    containers:\n    - name: manager\n      args:\n        --sync-period: 10m\n', `    containers: ${value}\n`),
    );
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0]!, /^\d+:\d+ InfrastructureProvider\/capex-system\/example spec\.deployment\.containers/);
  }
});

test('a provider whose metadata.name is no string (a number, a list) is told at it, with no internal error from the check of the names clusterctl knows', async () => {
  for (const value of ['2147483648', '[example]']) {
    const problems = await exampleProblems((text) =>
      text.replace('kind: ControlPlaneProvider\nmetadata:\n  name: example\n', `kind: ControlPlaneProvider\nmetadata:\n  name: ${value}\n`),
    );
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0]!, /^27:9 ControlPlaneProvider\/capex-control-plane-system\/<unnamed> metadata\.name must be a string/);
  }
});

test('a provider whose spec.fetchConfig the schema refuses (a map for url or oci, a selector of the wrong shape) is told at it, with no internal error from a source or lock entry made of it', async () => {
  const infrastructure = '    url: ../repository/infrastructure-example/latest/infrastructure-components.yaml\n';
  for (const [kind, edit] of [
    ['InfrastructureProvider', (text: string) => text.replace(infrastructure, '    url: {a: b}\n')],
    ['InfrastructureProvider', (text: string) => text.replace(infrastructure, '    selector: {matchExpressions: 7}\n')],
    [
      'InfrastructureProvider',
      (text: string) => text.replace(infrastructure, '    selector: {matchExpressions: [{key: [a], operator: In, values: 7}]}\n'),
    ],
    ['CoreProvider', (text: string) => text.replace('spec:\n', 'spec:\n  fetchConfig:\n    oci: {a: b}\n')],
  ] as const) {
    const problems = await exampleProblems(edit);
    assert.ok(problems.length > 0);
    for (const problem of problems) assert.match(problem, new RegExp(`^\\d+:\\d+ ${kind}/\\S+ spec\\.fetchConfig`), problems.join('\n'));
  }
});

test('a Rancher Turtles CAPIProvider with a field of the wrong type (imagePullSecrets, patches, a selector) is told at it and not rendered: the problems name it CAPIProvider/…, and the render knew it as InfrastructureProvider/…, so it rendered and threw', async () => {
  const capiProviders = (spec: string) => `apiVersion: turtles-capi.cattle.io/v1alpha1
kind: CAPIProvider
metadata:
  name: cluster-api
  namespace: capi-system
spec:
  type: core
---
apiVersion: turtles-capi.cattle.io/v1alpha1
kind: CAPIProvider
metadata:
  name: example
  namespace: capex-system
spec:
  type: infrastructure
  version: v0.2.0
  fetchConfig:
    url: ../repository/infrastructure-example/latest/infrastructure-components.yaml
${spec}`;
  for (const spec of [
    '  deployment:\n    imagePullSecrets: 7\n',
    '  patches: 7\n',
    '  patches:\n  - target: {labelSelector: false}\n    patch: "{}"\n',
    '  manifestPatches: {a: 1}\n',
  ]) {
    const problems = await exampleProblems(() => capiProviders(spec));
    assert.ok(problems.length > 0);
    for (const problem of problems) assert.match(problem, /^\d+:\d+ CAPIProvider\/capex-system\/example spec\./, problems.join('\n'));
  }
});

test('a fetchConfig with url and selector (the CRD rule "one and only one of {oci, url, selector}", api/v1alpha2/provider_types.go) and an unquoted version 1.12: one problem per field, not the preflight\'s again', async () => {
  const manifest = corpusManifest('v1.12.0', 'repository', {
    BootstrapProvider: '    selector:\n      matchLabels: {a: b}\n',
  }).replace(/(kind: BootstrapProvider[\s\S]*?version: )v1\.12\.0/, '$11.12');
  const problems = await problemsOf({ 'providers.yaml': manifest });
  assert.deepEqual(
    problems.map((p) => p.replace(/^\d+:\d+ /, '')),
    [
      'BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm spec.version must be a string, got a number',
      'BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm spec.fetchConfig fetchConfig sets url and selector together',
    ],
  );
});

test('one Config serves both layouts: a value of the argocd chart under gitops.argocd.values does not break --layout flux', async () => {
  const config = `apiVersion: capi-gitops.dev/v1alpha1
kind: Config
gitops:
  path: clusters/mgmt
  argocd:
    values:
      repoURL: https://git.example.com/platform/management.git
  flux:
    values:
      interval: 5m
`;
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest(), 'gitops.yaml': config });
  const argocd = await renderOutput({ manifestPaths: [dir], layout: 'argocd' });
  assert.ok([...argocd.files.values()].some((text) => text.includes('repoURL: https://git.example.com/platform/management.git')));
  const flux = await renderOutput({ manifestPaths: [dir], layout: 'flux' });
  assert.ok([...flux.files.values()].some((text) => text.includes('interval: 5m')));
  assert.ok(![...flux.files.values()].some((text) => text.includes('git.example.com')));
});

test('problems and warnings point at the field: a provider-name typo at metadata.name, an unused Config variable at its own line', async () => {
  const typo =
    'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  namespace: capv-system\n  name: vpshere\nspec:\n  version: v1.10.0\n';
  const [problem] = await problemsOf({ 'providers.yaml': corpusManifest(), 'infra.yaml': typo });
  assert.match(problem!, /^5:9 InfrastructureProvider\/capv-system\/vpshere metadata\.name /);

  const config = 'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nvariables:\n  EXP_MACHINE_POOL: "true"\n  NOT_A_VARIABLE: "1"\n';
  const warnings: { line?: number; path?: string; message: string }[] = [];
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest(), 'variables.yaml': config });
  await renderOutput({ manifestPaths: [dir], onWarning: (w) => warnings.push(w) });
  const unused = warnings.find((w) => w.message.includes('NOT_A_VARIABLE'));
  assert.deepEqual([unused?.line, unused?.path], [5, 'variables.NOT_A_VARIABLE']);
});

test('an input with no provider objects (an empty file, a Config alone) is an error before any request, not a render of cert-manager alone', async () => {
  for (const text of ['', 'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\n']) {
    const problems = await problemsOf({ 'providers.yaml': text });
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, /^-:- +the input has no provider objects \(CoreProvider, /);
  }
});

test('--fleet-layout on a single-cluster manifest is refused like --cluster, not kept in the README as a no-op', async () => {
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest('v1.12.0') });
  const error = await renderOutput({ manifestPaths: [dir], fleetLayout: 'full' }).then(
    () => assert.fail('the render succeeded'),
    (err: unknown) => err,
  );
  assert.ok(error instanceof CapiGitopsError);
  assert.deepEqual(
    error.diagnostics.map((d) => [d.message, d.hint]),
    [
      [
        '--fleet-layout was given, but the manifest declares no clusters',
        'drop --fleet-layout, or declare the clusters under clusters: in the Config document',
      ],
    ],
  );
});

test("a provider that does not resolve and another's render problem are reported in file, line and column order, as every command's problems are", async () => {
  const manifest = corpusManifest('v1.12.0', 'repository', { CoreProvider: '  configSecret:\n    name: capi-variables\n' });
  // the control plane (the last provider) asks for a release the repository does not have
  const at = manifest.lastIndexOf('version: v1.12.0');
  const problems = await problemsOf({ 'providers.yaml': `${manifest.slice(0, at)}version: v1.99.0${manifest.slice(at + 16)}` });
  assert.equal(problems.length, 2, problems.join('\n'));
  assert.match(problems[0]!, /CoreProvider\/capi-system\/cluster-api spec\.configSecret/);
  assert.match(problems[1]!, /ControlPlaneProvider\/capi-kubeadm-control-plane-system\/kubeadm/);
  const lines = problems.map((p) => Number(p.split(':')[0]));
  assert.ok(lines[0]! < lines[1]!, problems.join('\n'));
});

test('a spec.fetchConfig.url outside the local-repository layout is reported at the url, not at the provider object', async () => {
  const manifest = corpusManifest('v1.12.0').replace(
    /(kind: ControlPlaneProvider\n(?:.*\n)*?\s+url: )\S+/,
    '$1file:///tmp/pinned/control-plane-components.yaml',
  );
  const lines = manifest.split('\n');
  const line = lines.findIndex((l) => l.includes('file:///tmp/pinned/')) + 1;
  const column = lines[line - 1]!.indexOf('file:///tmp/pinned/') + 1;
  const problems = await problemsOf({ 'providers.yaml': manifest });
  const found = problems.filter((p) => /must be a version, found "pinned"/.test(p));
  assert.deepEqual(
    found.map((p) => p.split(' ').slice(0, 3).join(' ')),
    [`${line}:${column} ControlPlaneProvider/capi-kubeadm-control-plane-system/kubeadm spec.fetchConfig.url`],
    problems.join('\n'),
  );
});

test('a Config repositories url (clusterctl.yaml providers) outside the local-repository layout is reported at that url', async () => {
  const config = `apiVersion: capi-gitops.dev/v1alpha1
kind: Config
repositories:
- name: docker
  type: InfrastructureProvider
  url: file:///tmp/repository/docker/v1.12.0/infrastructure-components.yaml
`;
  const docker = `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata:
  name: docker
  namespace: capd-system
`;
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest('v1.12.0'), 'docker.yaml': docker, 'repositories.yaml': config });
  const error = await renderOutput({ manifestPaths: [dir] }).then(
    () => assert.fail('the render succeeded'),
    (err: unknown) => err,
  );
  assert.ok(error instanceof CapiGitopsError, String(error));
  assert.deepEqual(
    error.diagnostics.filter((d) => d.message.includes('provider label')).map((d) => [d.file, d.line, d.column, d.object]),
    [[path.join(dir, 'repositories.yaml'), 6, 8, 'InfrastructureProvider/capd-system/docker']],
    error.message,
  );
});

test("a configSecret several providers name and the input lacks is one problem, at the first provider's field, naming the others (as check and diff tell it)", async () => {
  const shared = '  configSecret:\n    name: capi-variables\n    namespace: capi-system\n';
  const manifest = corpusManifest('v1.12.0', 'repository', {
    CoreProvider: shared,
    BootstrapProvider: shared,
    ControlPlaneProvider: shared,
  });
  const problems = await problemsOf({ 'providers.yaml': manifest });
  const line = manifest.split('\n').findIndex((l) => l === '  configSecret:') + 2; // as above: the file's line
  assert.deepEqual(problems, [
    `${line}:5 CoreProvider/capi-system/cluster-api, BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm, ` +
      'ControlPlaneProvider/capi-kubeadm-control-plane-system/kubeadm spec.configSecret Secret capi-system/capi-variables is not in the input',
  ]);
});

test("lock tells a provider's schema problem with another provider's version that is not found, in one run, as render does", async () => {
  const manifest = corpusManifest('v1.12.0', 'repository', { CoreProvider: '  manager:\n    syncPeriod: 10 minutes\n' }).replace(
    /(kind: BootstrapProvider[\s\S]*?version: )v1\.12\.0/,
    '$1v9.9.9',
  );
  const dir = writeTempManifest({ 'providers.yaml': manifest });
  const error = await lockOutput({ manifestPaths: [dir] }).then(
    () => assert.fail('the lock succeeded'),
    (err: unknown) => err,
  );
  assert.ok(error instanceof CapiGitopsError, String(error));
  const told = error.diagnostics.map((d) => `${d.object ?? ''} ${d.path ?? ''} ${d.message}`).join('\n');
  assert.match(told, /CoreProvider\/capi-system\/cluster-api spec\.manager\.syncPeriod invalid duration/);
  assert.match(told, /BootstrapProvider\/capi-kubeadm-bootstrap-system\/kubeadm spec\.version version v9\.9\.9 not found/);
  assert.equal(error.diagnostics.length, 2, told);
});
