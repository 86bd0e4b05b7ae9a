import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import os from 'node:os';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { loadManifest } from '../../src/manifest/load.js';
import { buildProviderRegistry } from '../../src/resolve/registry.js';
import { MANIFEST_FIXTURES, loadText, loadTextError, summary, writeManifestDir, loadError } from '../fixtures/manifest/helpers.js';

const config = (body: string) => `apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\n${body}\n`;

test('the Config document loads into the tool settings with its position', async () => {
  const file = path.join(MANIFEST_FIXTURES, 'full', 'secrets-and-config.yaml');
  const manifest = await loadManifest([file]);
  assert.deepEqual(manifest.config, {
    position: { file, line: 29, column: 1 },
    repositories: [
      { name: 'docker', type: 'InfrastructureProvider', url: './repository/infrastructure-docker/v1.12.0/infrastructure-components.yaml' },
    ],
    images: { all: { repository: 'registry.example.com/capi' }, 'cluster-api/cluster-api-controller': { tag: 'v1.12.0' } },
    certManager: { enabled: true, version: 'v1.13.0' },
    variables: { EXP_MACHINE_POOL: 'true' },
    output: { layout: 'kustomize' },
  });
});

test('without a Config document the settings are empty', async () => {
  const { manifest } = await loadText('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: b}\n');
  assert.deepEqual(manifest.config, {});
});

test('variables must be strings: numbers and booleans are reported with a hint to quote them', async () => {
  const { error } = await loadTextError(
    config('variables:\n  KUBERNETES_VERSION: 1.30\n  EXP_MACHINE_POOL: true\n  WORKERS: 3\n  EMPTY:\n  NAME: ok'),
  );
  assert.deepEqual(
    error.diagnostics.map((d) => [`${d.line}:${d.column}`, d.path, d.message, d.hint]),
    [
      [
        '4:23',
        'variables.KUBERNETES_VERSION',
        'must be a string, got a number',
        'YAML reads the unquoted value as a number; quote it: "1.30"',
      ],
      [
        '5:21',
        'variables.EXP_MACHINE_POOL',
        'must be a string, got a boolean (true or false)',
        'YAML reads the unquoted value as a boolean; quote it: "true"',
      ],
      ['6:12', 'variables.WORKERS', 'must be a string, got an integer', 'YAML reads the unquoted value as a number; quote it: "3"'],
      ['7:3', 'variables.EMPTY', 'must be a string, got null', 'give a value; write "" for an empty string'],
    ],
  );
  assert.equal(error.diagnostics[0].object, 'Config');
});

test('a fleet cluster\'s variables (a string, or null to delete) get the same hints: quote a number or boolean, never "change the value to string,null"', async () => {
  const { error } = await loadTextError(
    config('clusters:\n  - name: eu-1\n    variables: {EXP_MACHINE_POOL: true, WORKERS: 3, OPTS: {a: b}}'),
  );
  assert.deepEqual(
    error.diagnostics.map((d) => [`${d.line}:${d.column}`, d.path, d.message, d.hint]),
    [
      [
        '5:35',
        'clusters[0].variables.EXP_MACHINE_POOL',
        'must be a string or null, got a boolean (true or false)',
        'YAML reads the unquoted value as a boolean; quote it: "true"',
      ],
      [
        '5:50',
        'clusters[0].variables.WORKERS',
        'must be a string or null, got an integer',
        'YAML reads the unquoted value as a number; quote it: "3"',
      ],
      [
        '5:59',
        'clusters[0].variables.OPTS',
        'must be a string or null, got a mapping (key: value lines)',
        'change the value to a string or null',
      ],
    ],
  );
});

test("a problem in a fleet cluster's entry names the cluster, not only its index (clusters[1])", async () => {
  const { error } = await loadTextError(
    config('clusters:\n  - name: eu-1\n  - name: us-1\n    pinImages: "yes"\n  - {name: lab-1, release: 7}'),
  );
  assert.deepEqual(
    error.diagnostics.map((d) => [d.object, d.path]),
    [
      ['cluster us-1, Config', 'clusters[1].pinImages'],
      ['cluster lab-1, Config', 'clusters[2].release'],
    ],
  );
  assert.match(error.message, /manifest\.yaml:6:16: error: cluster us-1, Config: clusters\[1\]\.pinImages: /);
});

test('unknown Config fields are rejected with suggestions, at the top level and inside', async () => {
  const { error } = await loadTextError(config('variable: {A: b}\ncertManager: {enable: true}\nspec: {}\nimages:\n  all: {tags: v1}'));
  assert.deepEqual(
    error.diagnostics.map((d) => [`${d.line}:${d.column}`, d.path, d.message, d.hint]),
    [
      ['3:1', 'variable', 'unknown field "variable"', 'did you mean "variables"?'],
      ['4:15', 'certManager.enable', 'unknown field "enable"', 'did you mean "enabled"?'],
      ['5:1', 'spec', 'unknown field "spec"', 'remove it, or check its spelling and indentation'],
      ['7:9', 'images.all.tags', 'unknown field "tags"', 'did you mean "tag"?'],
    ],
  );
  assert.equal(
    error.diagnostics[0].expected,
    'a field of Config: apiVersion, certManager, clusters, github, gitops, images, kind, namespace, network, operator, output, overrides, pinImages, release, repositories, secrets, turtles, variables',
  );
});

const VARIABLES_HINT = "clusterctl.yaml's variables are top-level keys; here they go under variables:";

test('clusterctl.yaml among the manifest files: one error naming it, whose hint, followed, gives a Config that loads', async () => {
  const clusterctl = [
    'providers:\n  - name: docker\n    url: file:///repo/infrastructure-docker/v1.12.0/infrastructure-components.yaml',
    '    type: InfrastructureProvider',
    'images:\n  all: {repository: mirror.example.com/capi}',
    'cert-manager:\n  version: v1.19.1',
    'EXP_CLUSTER_RESOURCE_SET: "true"',
  ].join('\n');
  const { error } = await loadTextError(clusterctl + '\n');
  assert.deepEqual(
    error.diagnostics.map((d) => [`${d.line}:${d.column}`, d.message]),
    [['1:1', "this is clusterctl's configuration (clusterctl.yaml), which capi-gitops does not read as it is"]],
  );
  assert.match(error.diagnostics[0]!.hint!, /rename providers: to repositories: and cert-manager: to certManager:, keep images: as it is/);
  // with apiVersion and kind only, each clusterctl key is told its name here
  const { error: typed } = await loadTextError(config(clusterctl));
  assert.deepEqual(
    typed.diagnostics.map((d) => [d.path, d.hint]),
    [
      ['providers', "clusterctl.yaml's providers: is repositories: the same list of {name, type, url}"],
      ['["cert-manager"]', "clusterctl.yaml's cert-manager: is certManager: {version, url} (and enabled: false to leave it out)"],
      ['EXP_CLUSTER_RESOURCE_SET', `${VARIABLES_HINT} (move EXP_CLUSTER_RESOURCE_SET there, its value quoted)`],
    ],
  );
  // the hint followed
  const followed = clusterctl
    .replace('providers:', 'repositories:')
    .replace('cert-manager:', 'certManager:')
    .replace('EXP_CLUSTER_RESOURCE_SET', 'variables:\n  EXP_CLUSTER_RESOURCE_SET');
  const { manifest } = await loadText(config(followed));
  assert.equal(manifest.config.repositories?.[0]?.name, 'docker');
  assert.deepEqual(manifest.config.variables, { EXP_CLUSTER_RESOURCE_SET: 'true' });
});

test('repositories need name, type and url, with type one of the provider kinds', async () => {
  const { error } = await loadTextError(
    config(
      'repositories:\n  - name: aws\n    type: InfrastructurProvider\n    url: https://example.com/releases/latest/infrastructure-components.yaml\n  - name: ""\n    type: CoreProvider',
    ),
  );
  assert.deepEqual(summary(error.diagnostics), [
    '5:11 repositories[0].type: must be one of: CoreProvider, BootstrapProvider, ControlPlaneProvider, InfrastructureProvider, IPAMProvider, RuntimeExtensionProvider, AddonProvider',
    '7:5 repositories[1].url: missing required field "url"',
    '7:11 repositories[1].name: must not be empty',
  ]);
  assert.equal(error.diagnostics[0].hint, 'did you mean "InfrastructureProvider"?');
});

test('a repository listed twice is reported at the second with the first position', async () => {
  const { error, file } = await loadTextError(
    config(
      'repositories:\n  - {name: aws, type: InfrastructureProvider, url: a}\n  - {name: aws, type: BootstrapProvider, url: b}\n  - {name: aws, type: InfrastructureProvider, url: c}',
    ),
  );
  assert.deepEqual(summary(error.diagnostics), [
    `6:5 repositories[2]: duplicate repository InfrastructureProvider "aws"; the first is at ${file}:4:5`,
  ]);
});

test('output.layout accepts kustomize, argocd, flux and operator only', async () => {
  const { error } = await loadTextError(config('output: {layout: argo}'));
  assert.deepEqual(summary(error.diagnostics), ['3:18 output.layout: must be one of: kustomize, argocd, flux, operator']);
});

test('Config.overrides needs kind, name and unmanaged: true', async () => {
  const { error } = await loadTextError(
    config('overrides:\n  - {kind: Deployment, name: x, unmanaged: false}\n  - {kind: Deployment, unmanaged: true}'),
  );
  assert.deepEqual(
    error.diagnostics.map((d) => d.path),
    ['overrides[0].unmanaged', 'overrides[1].name'],
  );
});

test('several Config documents merge in file order: mappings by key, lists appended, relative paths kept relative to their own file (issue #10)', async () => {
  const dir = await writeManifestDir({
    'a.yaml': config(
      'variables: {A: a, C: same}\ncertManager: {enabled: true}\nrepositories:\n  - {name: aws, type: InfrastructureProvider, url: repo/aws/latest/infrastructure-components.yaml}',
    ),
    'site/b.yaml': config(
      'variables: {B: b, C: same}\ncertManager: {url: mirror/cert-manager.yaml}\nrepositories:\n  - {name: vsphere, type: InfrastructureProvider, url: mirror/vsphere/latest/infrastructure-components.yaml}',
    ),
  });
  const manifest = await loadManifest([path.join(dir, 'a.yaml'), path.join(dir, 'site', 'b.yaml')]);
  assert.deepEqual(manifest.config.variables, { A: 'a', C: 'same', B: 'b' });
  assert.deepEqual(manifest.config.certManager, { enabled: true, url: 'site/mirror/cert-manager.yaml' });
  assert.deepEqual(
    manifest.config.repositories?.map((r) => r.url),
    ['repo/aws/latest/infrastructure-components.yaml', 'site/mirror/vsphere/latest/infrastructure-components.yaml'],
  );
  assert.equal(manifest.config.position?.file, path.join(dir, 'a.yaml'));
});

test("a repository two Config documents both list is reported at the later entry, in its own file, with the first one's position", async () => {
  const dir = await writeManifestDir({
    'a.yaml': config(
      'repositories:\n  - {name: aws, type: InfrastructureProvider, url: a}\n  - {name: gcp, type: InfrastructureProvider, url: g}',
    ),
    'b.yaml':
      '# second\n' +
      config(
        'repositories:\n  - {name: vsphere, type: InfrastructureProvider, url: v}\n  - {name: aws, type: InfrastructureProvider, url: b}',
      ),
  });
  const manifest = await loadManifest([dir]);
  // the merged list's [3] is the second document's [1]
  const at = manifest.config.locate?.(['repositories', 3]);
  assert.equal(`${at?.file}:${at?.line}:${at?.column}`, `${path.join(dir, 'b.yaml')}:6:5`);
  const { problems } = buildProviderRegistry(manifest.config.repositories, manifest.config.position, manifest.config.locate);
  assert.deepEqual(
    problems.map((d) => `${d.file}:${d.line}:${d.column} ${d.path}: ${d.message}`),
    [
      `${path.join(dir, 'b.yaml')}:6:5 repositories[3]: InfrastructureProvider "aws" is already declared at ${path.join(dir, 'a.yaml')}:4:5`,
    ],
  );
});

test("a scalar two Config documents set differently is a conflict, at the later one with the first one's position", async () => {
  const dir = await writeManifestDir({ 'a.yaml': config('variables: {A: a}'), 'b.yaml': '# second\n' + config('variables: {A: b}') });
  const error = await loadError([dir]);
  assert.deepEqual(
    error.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.path}: ${d.message}`),
    [`${path.join(dir, 'b.yaml')}:4:16 variables.A: variables.A is "b" here and "a" in the Config at ${path.join(dir, 'a.yaml')}:3:16`],
  );
});

test('Config needs apiVersion capi-gitops.dev/v1alpha1', async () => {
  const { error } = await loadTextError('apiVersion: capi-gitops.dev/v1\nkind: Config\n');
  assert.deepEqual(summary(error.diagnostics), ['1:13 apiVersion: apiVersion "capi-gitops.dev/v1" does not serve kind Config']);
  assert.equal(error.diagnostics[0].hint, 'set apiVersion: capi-gitops.dev/v1alpha1');
});

test('a plain HTTPS repository lists its versions one way: versions and versionsUrl together are refused', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'capi-gitops-config-'));
  const file = path.join(dir, 'config.yaml');
  writeFileSync(
    file,
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nrepositories:\n- name: acme\n  type: InfrastructureProvider\n  url: https://artifacts.example/acme/{version}/infrastructure-components.yaml\n  versions: [v1.0.0]\n  versionsUrl: https://artifacts.example/acme/versions.txt\n',
  );
  await assert.rejects(loadManifest([file]), (error: unknown) => {
    assert.ok(error instanceof CapiGitopsError);
    assert.match(error.message, /versions and versionsUrl are mutually exclusive/);
    assert.match(error.message, /config\.yaml:8:\d+/);
    return true;
  });
});
