import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import type { ConfigMapObject, LabelSelector } from '../../src/manifest/types.js';
import { openConfigMapRepository, selectConfigMaps } from '../../src/sources/configmap/repository.js';
import { formatSelector, matchesSelector, selectorProblems } from '../../src/core/label-selector.js';
import { openLocalRepository } from '../../src/sources/local/repository.js';
import type { SelectorRequest } from '../../src/sources/request.js';
import { ArtifactNotFoundError } from '../../src/sources/source.js';
import { CORPUS_CONFIGMAPS, CORPUS_REPOSITORY } from '../helpers/paths.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { corpusConfigMap } from '../fixtures/resolve/builders.js';

const origin = {
  file: '/m/providers.yaml',
  line: 7,
  column: 1,
  object: 'CoreProvider/capi-system/cluster-api',
  path: 'spec.fetchConfig.selector',
};

function request(
  selector: LabelSelector,
  namespace = 'capi-system',
  kind: SelectorRequest['kind'] = 'CoreProvider',
  name = 'cluster-api',
  label = 'cluster-api',
): SelectorRequest {
  return { from: 'selector', kind, name, label, namespace, selector, baseDir: '/m', origin };
}

function cm(name: string, namespace: string, labels: Record<string, string>, extra: Partial<ConfigMapObject> = {}): ConfigMapObject {
  return {
    name,
    namespace,
    labels,
    annotations: {},
    data: { components: `kind: Namespace # ${name}\n`, metadata: 'apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\n' },
    binaryData: {},
    position: { file: '/m/cms.yaml', line: 1, column: 1 },
    ...extra,
  };
}

/** The corpus ConfigMap with components moved, gzip-compressed, into binaryData (operator manifests_downloader.go compressData). */
function compressed(configMap: ConfigMapObject): ConfigMapObject {
  const { components, ...rest } = configMap.data;
  return {
    ...configMap,
    annotations: { ...configMap.annotations, 'provider.cluster.x-k8s.io/compressed': 'true' },
    data: rest,
    binaryData: { components: gzipSync(Buffer.from(components, 'utf8')).toString('base64') },
  };
}

test('label selectors follow Kubernetes semantics: matchLabels and In, NotIn, Exists, DoesNotExist', () => {
  const labels = { app: 'capi', tier: 'core' };
  assert.equal(matchesSelector(labels, {}), true, 'an empty selector matches everything');
  assert.equal(matchesSelector(labels, { matchLabels: { app: 'capi' } }), true);
  assert.equal(matchesSelector(labels, { matchLabels: { app: 'capi', tier: 'infra' } }), false);
  assert.equal(matchesSelector(labels, { matchExpressions: [{ key: 'tier', operator: 'In', values: ['core', 'infra'] }] }), true);
  assert.equal(matchesSelector(labels, { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }), false, 'In needs the key');
  assert.equal(matchesSelector(labels, { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['core'] }] }), false);
  assert.equal(
    matchesSelector(labels, { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }),
    true,
    'NotIn holds when the key is absent',
  );
  assert.equal(matchesSelector(labels, { matchExpressions: [{ key: 'app', operator: 'Exists' }] }), true);
  assert.equal(matchesSelector(labels, { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }), false);
  assert.equal(matchesSelector(labels, { matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }), true);
  assert.equal(
    matchesSelector(labels, { matchLabels: { app: 'capi' }, matchExpressions: [{ key: 'zone', operator: 'Exists' }] }),
    false,
    'all requirements must hold',
  );
});

test('invalid selectors are described (apimachinery LabelSelectorAsSelector validation)', () => {
  assert.deepEqual(selectorProblems({ matchLabels: { app: 'capi' }, matchExpressions: [{ key: 'a', operator: 'In', values: ['x'] }] }), []);
  assert.deepEqual(
    selectorProblems({
      matchLabels: { 'bad key!': 'x', ok: 'bad value!' },
      matchExpressions: [
        { key: 'a', operator: 'In', values: [] },
        { key: 'b', operator: 'Exists', values: ['x'] },
        { key: 'c', operator: 'Equals' as never },
      ],
    }),
    [
      'matchLabels key "bad key!" is not a valid label key',
      'matchLabels value "bad value!" of "ok" is not a valid label value',
      'matchExpressions[0]: operator In needs at least one value',
      'matchExpressions[1]: operator Exists takes no values',
      'matchExpressions[2]: operator "Equals" is not one of In, NotIn, Exists, DoesNotExist',
    ],
  );
  assert.equal(
    formatSelector({
      matchLabels: { z: '1' },
      matchExpressions: [
        { key: 'a', operator: 'NotIn', values: ['y', 'x'] },
        { key: 'm', operator: 'DoesNotExist' },
      ],
    }),
    'a notin (x,y),!m,z=1',
  );
});

test('only ConfigMaps in the provider namespace are selected (operator phase_load.go configmapRepository InNamespace)', () => {
  const all = [cm('v1.0.0', 'capi-system', { p: 'core' }), cm('v1.1.0', 'other', { p: 'core' })];
  assert.deepEqual(
    selectConfigMaps(all, { matchLabels: { p: 'core' } }, 'capi-system').map((c) => c.name),
    ['v1.0.0'],
  );
  assert.throws(
    () => openConfigMapRepository(request({ matchLabels: { p: 'core' } }, 'capi-kubeadm-bootstrap-system'), all),
    (error: unknown) =>
      error instanceof CapiGitopsError &&
      /no ConfigMap in namespace "capi-kubeadm-bootstrap-system" matches the selector p=core/.test(error.message) &&
      /capi-system\/v1\.0\.0, other\/v1\.1\.0 match but live in another namespace/.test(error.message) &&
      /set their metadata\.namespace to capi-kubeadm-bootstrap-system, or move the provider to theirs/.test(error.message) &&
      error.diagnostics[0].line === 7,
  );
});

test('a selector that the namespace\'s artifact ConfigMap misses by one label (the operator labels it type: controlplane) names that label, not "add the ConfigMaps"', () => {
  const configMaps = [corpusConfigMap('controlplane-kubeadm-v1.12.0.yaml')];
  const selector = { matchLabels: { 'provider.cluster.x-k8s.io/name': 'kubeadm', 'provider.cluster.x-k8s.io/type': 'control-plane' } };
  const { namespace, name } = configMaps[0]!;
  assert.throws(
    () => openConfigMapRepository(request(selector, namespace, 'ControlPlaneProvider', 'kubeadm', 'control-plane-kubeadm'), configMaps),
    (error: unknown) =>
      error instanceof CapiGitopsError &&
      error.diagnostics[0]!.hint ===
        `${namespace}/${name} has provider.cluster.x-k8s.io/type=controlplane, not control-plane: every other label matches; fix the selector or the label`,
  );
  // two labels off: not named as a near miss
  const far = { matchLabels: { 'provider.cluster.x-k8s.io/name': 'kubeadmx', 'provider.cluster.x-k8s.io/type': 'control-plane' } };
  assert.throws(() => openConfigMapRepository(request(far, namespace), configMaps), /hint: add the artifact ConfigMaps to the input/);
});

test("providers sharing capi-system, the corpus artifact ConfigMaps in their own namespaces: the control plane's selector names the one spelled controlplane and its namespace, not the bootstrap one (operator phase_load.go configmapRepository InNamespace)", () => {
  const configMaps = [corpusConfigMap('bootstrap-kubeadm-v1.12.0.yaml'), corpusConfigMap('controlplane-kubeadm-v1.12.0.yaml')];
  const selector = { matchLabels: { 'provider.cluster.x-k8s.io/name': 'kubeadm', 'provider.cluster.x-k8s.io/type': 'control-plane' } };
  assert.throws(
    () => openConfigMapRepository(request(selector, 'capi-system', 'ControlPlaneProvider', 'kubeadm', 'control-plane-kubeadm'), configMaps),
    (error: unknown) =>
      error instanceof CapiGitopsError &&
      error.diagnostics[0]!.hint ===
        'capi-kubeadm-control-plane-system/controlplane-kubeadm-v1.12.0 has provider.cluster.x-k8s.io/type=controlplane, not control-plane, ' +
          'and lives in namespace capi-kubeadm-control-plane-system, which the operator does not read for this provider: every other label matches; ' +
          'fix the selector or the label',
  );
});

test('corpus ConfigMaps selected by labels give the repository file byte for byte (same sha256)', async () => {
  const configMaps = [
    corpusConfigMap('core-cluster-api-v1.12.0.yaml'),
    corpusConfigMap('bootstrap-kubeadm-v1.12.0.yaml'),
    corpusConfigMap('controlplane-kubeadm-v1.12.0.yaml'),
  ];
  const repo = openConfigMapRepository(
    request({ matchLabels: { 'provider.cluster.x-k8s.io/type': 'core', 'provider.cluster.x-k8s.io/name': 'cluster-api' } }),
    configMaps,
  );
  assert.deepEqual(await repo.listVersions(), ['v1.12.0']);
  assert.equal(repo.defaultVersion, 'v1.12.0');
  assert.equal(repo.sourceType, 'configmap');
  const components = await repo.getFile('v1.12.0', repo.componentsFile);
  const metadata = await repo.getFile('v1.12.0', 'metadata.yaml');
  const local = await openLocalRepository({
    kind: 'CoreProvider',
    name: 'cluster-api',
    label: 'cluster-api',
    url: `${CORPUS_REPOSITORY}/cluster-api/v1.12.0/core-components.yaml`,
    baseDir: '/',
    origin,
  });
  assert.equal(components.name, 'core-components.yaml');
  assert.equal(components.sha256, (await local.getFile('v1.12.0', 'core-components.yaml')).sha256);
  assert.equal(metadata.sha256, (await local.getFile('v1.12.0', 'metadata.yaml')).sha256);
  assert.equal(components.url, 'configmap:capi-system/core-cluster-api-v1.12.0#components');

  // the real quirk: the control plane ConfigMap is typed `controlplane`
  const cp = openConfigMapRepository(
    request(
      { matchExpressions: [{ key: 'provider.cluster.x-k8s.io/type', operator: 'In', values: ['controlplane'] }] },
      'capi-kubeadm-control-plane-system',
      'ControlPlaneProvider',
      'kubeadm',
      'control-plane-kubeadm',
    ),
    configMaps,
  );
  assert.equal((await cp.getFile('v1.12.0', cp.componentsFile)).name, 'control-plane-components.yaml');
});

test('a gzip-compressed ConfigMap gives the same artifact sha256 as the repository file (operator manifests_downloader.go getComponentsData)', async () => {
  const plain = corpusConfigMap('bootstrap-kubeadm-v1.12.0.yaml');
  const selector = { matchLabels: { 'provider.cluster.x-k8s.io/type': 'bootstrap' } };
  const bootstrapRequest = request(selector, 'capi-kubeadm-bootstrap-system', 'BootstrapProvider', 'kubeadm', 'bootstrap-kubeadm');
  const fromGzip = await openConfigMapRepository(bootstrapRequest, [compressed(plain)]).getFile('v1.12.0', 'bootstrap-components.yaml');
  const fromPlain = await openConfigMapRepository(bootstrapRequest, [plain]).getFile('v1.12.0', 'bootstrap-components.yaml');
  const { selector: _selector, from: _from, ...common } = bootstrapRequest;
  const local = await openLocalRepository({
    ...common,
    url: path.join(CORPUS_REPOSITORY, 'bootstrap-kubeadm/v1.12.0/bootstrap-components.yaml'),
  });
  const fromFile = await local.getFile('v1.12.0', 'bootstrap-components.yaml');
  assert.equal(fromGzip.sha256, fromFile.sha256);
  assert.equal(fromPlain.sha256, fromFile.sha256);
  assert.equal(fromGzip.text, fromFile.text);
});

test('the version comes from the version label, else from the ConfigMap name (operator phase_load.go configmapRepository)', async () => {
  const repo = openConfigMapRepository(request({ matchLabels: { p: 'core' } }), [
    cm('v1.1.0', 'capi-system', { p: 'core' }),
    cm('anything', 'capi-system', { p: 'core', 'provider.cluster.x-k8s.io/version': 'v1.3.0-rc.0' }),
    cm('v1.2.0', 'capi-system', { p: 'core' }),
  ]);
  assert.deepEqual(await repo.listVersions(), ['v1.1.0', 'v1.2.0', 'v1.3.0-rc.0']);
  // operator getLatestVersion: the highest semantic version, pre-releases included
  assert.equal(repo.defaultVersion, 'v1.3.0-rc.0');
  assert.match((await repo.getFile('v1.2.0', 'core-components.yaml')).text, /# v1\.2\.0/);
  assert.match((await repo.getFile('v1.3.0-rc.0', 'components.yaml')).text, /# anything/);
  await assert.rejects(
    repo.getFile('v9.0.0', 'metadata.yaml'),
    (error: unknown) =>
      error instanceof ArtifactNotFoundError &&
      /provides version v9\.0\.0/.test(error.message) &&
      /v1\.1\.0, v1\.2\.0, v1\.3\.0-rc\.0/.test(error.message),
  );
});

test('broken ConfigMaps are all reported at their positions: bad version, duplicate version, missing keys, bad gzip', () => {
  const at = (line: number) => ({ position: { file: '/m/cms.yaml', line, column: 1 } });
  const configMaps = [
    cm('core-cluster-api', 'capi-system', { p: 'core' }, at(1)),
    cm('a', 'capi-system', { p: 'core', 'provider.cluster.x-k8s.io/version': 'v1.0.0' }, at(10)),
    cm('b', 'capi-system', { p: 'core', 'provider.cluster.x-k8s.io/version': 'v1.0.0' }, at(20)),
    cm('c', 'capi-system', { p: 'core', 'provider.cluster.x-k8s.io/version': 'v1.1.0' }, { ...at(30), data: { components: 'x' } }),
    cm('d', 'capi-system', { p: 'core', 'provider.cluster.x-k8s.io/version': 'v1.2.0' }, { ...at(40), data: { metadata: 'x' } }),
    cm(
      'e',
      'capi-system',
      { p: 'core', 'provider.cluster.x-k8s.io/version': 'v1.3.0' },
      {
        ...at(50),
        annotations: { 'provider.cluster.x-k8s.io/compressed': 'true' },
        data: { metadata: 'x' },
        binaryData: { components: Buffer.from('not gzip').toString('base64') },
      },
    ),
    cm(
      'f',
      'capi-system',
      { p: 'core', 'provider.cluster.x-k8s.io/version': 'v1.4.0' },
      { ...at(60), annotations: { 'provider.cluster.x-k8s.io/compressed': 'true' }, data: { metadata: 'x' } },
    ),
  ];
  assert.throws(
    () => openConfigMapRepository(request({ matchLabels: { p: 'core' } }), configMaps),
    (error: unknown) => {
      assert.ok(error instanceof CapiGitopsError);
      const byLine = error.diagnostics.map((d) => [d.line, d.object, d.message.replace(/ \(selected by .*\)$/, '')]);
      // in ConfigMap name order, as the operator lists them
      assert.deepEqual(byLine, [
        [20, 'ConfigMap/capi-system/b', 'version v1.0.0 is also provided by ConfigMap capi-system/a'],
        [30, 'ConfigMap/capi-system/c', 'the ConfigMap has no data.metadata'],
        [
          1,
          'ConfigMap/capi-system/core-cluster-api',
          'version "core-cluster-api" (from the ConfigMap name (it has no version label)) is not a semantic version',
        ],
        [40, 'ConfigMap/capi-system/d', 'the ConfigMap has no data.components'],
        [50, 'ConfigMap/capi-system/e', byLine[4][2]],
        [
          60,
          'ConfigMap/capi-system/f',
          'the ConfigMap is annotated provider.cluster.x-k8s.io/compressed: "true" but has no binaryData.components',
        ],
      ]);
      assert.match(String(byLine[4][2]), /binaryData\.components cannot be gunzipped/);
      assert.ok(error.diagnostics.every((d) => d.message.endsWith('(selected by CoreProvider/capi-system/cluster-api)')));
      return true;
    },
  );
});

test('an invalid selector is reported at the provider before any ConfigMap is read', () => {
  assert.throws(
    () => openConfigMapRepository(request({ matchExpressions: [{ key: 'a', operator: 'In' }] }), []),
    (error: unknown) =>
      error instanceof CapiGitopsError &&
      /invalid selector: matchExpressions\[0\]: operator In needs at least one value/.test(error.message) &&
      error.diagnostics[0].path === 'spec.fetchConfig.selector',
  );
});

test('no artifact ConfigMap in the input: the hint names the kubectl command that exports what the selector finds, and its file given with -f, as kubectl prints it (a List), renders', async () => {
  const dir = tempDir();
  const selector = 'provider.cluster.x-k8s.io/name=cluster-api,provider.cluster.x-k8s.io/type=core';
  writeFileSync(
    path.join(dir, 'providers.yaml'),
    [
      'apiVersion: operator.cluster.x-k8s.io/v1alpha2',
      'kind: CoreProvider',
      'metadata: {name: cluster-api, namespace: capi-system}',
      'spec:',
      '  version: v1.12.0',
      '  fetchConfig:',
      '    selector:',
      '      matchLabels: {provider.cluster.x-k8s.io/name: cluster-api, provider.cluster.x-k8s.io/type: core}',
      '---',
      'apiVersion: capi-gitops.dev/v1alpha1',
      'kind: Config',
      'certManager: {enabled: false}',
      '',
    ].join('\n'),
  );
  const refused = await runCli(['render', '-f', 'providers.yaml', '-o', 'out'], { cwd: dir });
  assert.equal(refused.code, 1);
  const command = `kubectl get configmaps -n capi-system -l ${selector} -o yaml > capi-system-artifacts.yaml`;
  assert.match(
    refused.stderr,
    new RegExp(
      `hint: add the artifact ConfigMaps to the input, or fix the selector; from the cluster the operator ran in: ${command.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, then add -f capi-system-artifacts.yaml\n`,
    ),
  );
  // what that command prints: a List holding the ConfigMap
  const configMap = readFileSync(path.join(CORPUS_CONFIGMAPS, 'core-cluster-api-v1.12.0.yaml'), 'utf8');
  const item = configMap
    .trimEnd()
    .split('\n')
    .map((line, i) => (i === 0 ? `- ${line}` : `  ${line}`))
    .join('\n');
  writeFileSync(
    path.join(dir, 'capi-system-artifacts.yaml'),
    `apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: ""\nitems:\n${item}\n`,
  );
  const rendered = await runCli(['render', '-f', 'providers.yaml', '-o', 'out', '-f', 'capi-system-artifacts.yaml'], { cwd: dir });
  assert.equal(rendered.code, 0, rendered.stderr);
});

/** The corpus core, and an RKE2 bootstrap provider whose artifacts are ConfigMaps in its namespace. */
const RKE2_FROM_CONFIGMAPS = [
  'apiVersion: operator.cluster.x-k8s.io/v1alpha2',
  'kind: CoreProvider',
  'metadata: {name: cluster-api, namespace: capi-system}',
  `spec: {fetchConfig: {url: ${path.join(CORPUS_REPOSITORY, 'cluster-api', 'v1.12.0', 'core-components.yaml')}}}`,
  '---',
  'apiVersion: operator.cluster.x-k8s.io/v1alpha2',
  'kind: BootstrapProvider',
  'metadata: {name: rke2, namespace: rke2-bootstrap-system}',
  'spec: {fetchConfig: {selector: {matchLabels: {provider.cluster.x-k8s.io/name: rke2}}}}',
  '---',
  'apiVersion: capi-gitops.dev/v1alpha1',
  'kind: Config',
  'certManager: {enabled: false}',
  '',
].join('\n');

/** An RKE2 bootstrap release as kubectl exports its ConfigMap (data first); `labels`: lines before its name label. */
function rke2ConfigMap(name: string, labels: string): string {
  return [
    'apiVersion: v1',
    'data:',
    '  components: |',
    '    apiVersion: v1',
    '    kind: Namespace',
    '    metadata: {name: rke2-bootstrap-system}',
    '  metadata: |',
    '    apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3',
    '    releaseSeries: [{major: 0, minor: 11, contract: v1beta1}]',
    'kind: ConfigMap',
    'metadata:',
    '  labels:',
    `${labels}    provider.cluster.x-k8s.io/name: rke2`,
    `  name: ${name}`,
    '  namespace: rke2-bootstrap-system',
    '',
  ].join('\n');
}

test('an exported ConfigMap without its version label or its components key is told at its labels and data lines, not its first', async () => {
  const dir = tempDir();
  const metadata =
    '      apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\n      releaseSeries: [{major: 0, minor: 11, contract: v1beta1}]';
  // as `kubectl get configmap -o yaml` writes it: data (the whole components text) before metadata
  const exported = (name: string, data: string, labels: string) =>
    `apiVersion: v1\ndata:\n${data}kind: ConfigMap\nmetadata:\n  labels:\n${labels}  name: ${name}\n  namespace: rke2-bootstrap-system\n`;
  const labels = '    provider.cluster.x-k8s.io/name: rke2\n    provider.cluster.x-k8s.io/type: bootstrap\n';
  writeFileSync(
    path.join(dir, 'artifacts.yaml'),
    [
      exported('bootstrap-rke2-v0.11.0', `  components: |\n      kind: Namespace\n  metadata: |\n${metadata}\n`, labels),
      exported('bootstrap-rke2-v0.12.0', `  metadata: |\n${metadata}\n`, `${labels}    provider.cluster.x-k8s.io/version: v0.12.0\n`),
    ].join('---\n'),
  );
  writeFileSync(path.join(dir, 'providers.yaml'), RKE2_FROM_CONFIGMAPS);
  const result = await runCli(['render', '-f', 'providers.yaml', '-f', 'artifacts.yaml', '-o', 'out'], { cwd: dir });
  assert.equal(result.code, 1, result.stdout);
  // the first ConfigMap's labels: line 10; the second's data: line 17
  assert.match(
    result.stderr,
    /^artifacts\.yaml:10:3: error: ConfigMap\/rke2-bootstrap-system\/bootstrap-rke2-v0\.11\.0: version "bootstrap-rke2-v0\.11\.0"/m,
  );
  assert.match(
    result.stderr,
    /^artifacts\.yaml:17:1: error: ConfigMap\/rke2-bootstrap-system\/bootstrap-rke2-v0\.12\.0: data\.components: /m,
  );
});

test('an artifact ConfigMap named bootstrap-rke2-v0.11.0 without its version label: the hint gives the label to add, which renders', async () => {
  const dir = tempDir();
  const configMap = (labels: string) => rke2ConfigMap('bootstrap-rke2-v0.11.0', labels);
  writeFileSync(path.join(dir, 'artifacts.yaml'), configMap(''));
  writeFileSync(path.join(dir, 'providers.yaml'), RKE2_FROM_CONFIGMAPS);
  const args = ['render', '-f', 'providers.yaml', '-f', 'artifacts.yaml', '-o', 'out'];
  const refused = await runCli(args, { cwd: dir });
  assert.equal(refused.code, 1, refused.stdout);
  const hint = /hint: label the ConfigMap (provider\.cluster\.x-k8s\.io\/version: \S+) .*under metadata\.labels\n/.exec(refused.stderr);
  assert.equal(hint?.[1], 'provider.cluster.x-k8s.io/version: v0.11.0', refused.stderr);
  writeFileSync(path.join(dir, 'artifacts.yaml'), configMap(`    ${hint[1]}\n`));
  const rendered = await runCli(args, { cwd: dir });
  assert.equal(rendered.code, 0, rendered.stderr);
  assert.match(rendered.stdout, /resolved bootstrap-rke2 v0\.11\.0, contract v1beta1, from configmap/);
});

test('no spec.version and a ConfigMap labelled 0.11.0 without its v: refused as the operator fails (operator phase_load.go getLatestVersion adds the v), each hint renders', async () => {
  const dir = tempDir();
  const configMap = (version: string) => rke2ConfigMap('bootstrap-rke2', `    provider.cluster.x-k8s.io/version: ${version}\n`);
  writeFileSync(path.join(dir, 'artifacts.yaml'), configMap('0.11.0'));
  writeFileSync(path.join(dir, 'providers.yaml'), RKE2_FROM_CONFIGMAPS);
  const args = ['render', '-f', 'providers.yaml', '-f', 'artifacts.yaml', '-o', 'out'];
  const refused = await runCli(args, { cwd: dir });
  assert.equal(refused.code, 1, refused.stdout);
  assert.match(refused.stderr, /artifacts\.yaml:13:40: .*v0\.11\.0.*0\.11\.0/, refused.stderr);
  assert.match(
    refused.stderr,
    /hint: label the ConfigMap provider\.cluster\.x-k8s\.io\/version: v0\.11\.0, or set spec\.version: 0\.11\.0 on BootstrapProvider\/rke2-bootstrap-system\/rke2\n/,
  );
  assert.ok(!existsSync(path.join(dir, 'out')));
  // the first hint
  writeFileSync(path.join(dir, 'artifacts.yaml'), configMap('v0.11.0'));
  const labelled = await runCli(args, { cwd: dir });
  assert.equal(labelled.code, 0, labelled.stderr);
  assert.match(labelled.stdout, /resolved bootstrap-rke2 v0\.11\.0, contract v1beta1, from configmap/);
  // the second
  writeFileSync(path.join(dir, 'artifacts.yaml'), configMap('0.11.0'));
  writeFileSync(
    path.join(dir, 'providers.yaml'),
    RKE2_FROM_CONFIGMAPS.replace('spec: {fetchConfig: {selector:', 'spec: {version: 0.11.0, fetchConfig: {selector:'),
  );
  const pinned = await runCli([...args, '-o', 'out2'], { cwd: dir });
  assert.equal(pinned.code, 0, pinned.stderr);
  assert.match(pinned.stdout, /resolved bootstrap-rke2 0\.11\.0, contract v1beta1, from configmap/);
});
