import { test } from 'node:test';
import assert from 'node:assert/strict';
import { preflightProblems } from '../../src/resolve/preflight.js';
import { buildProviderRegistry } from '../../src/resolve/registry.js';
import { provider } from '../fixtures/resolve/builders.js';
import { loadManifest } from '../../src/manifest/load.js';
import { corpusUrl, writeTempManifest } from '../helpers/corpus-manifest.js';
import { runCli } from '../helpers/cli.js';

const builtIns = buildProviderRegistry().registry;

/** What a render of `providers.yaml` prints (its warnings), the render succeeding. */
async function renderWarnings(text: string): Promise<string> {
  const dir = writeTempManifest({ 'providers.yaml': text });
  const result = await runCli(['render', '-f', 'providers.yaml', '-o', 'out', '--quiet'], { cwd: dir });
  assert.equal(result.code, 0, result.stderr);
  return result.stderr;
}
const core = () => provider('CoreProvider', 'cluster-api', 'capi-system');
const messages = (providers: ReturnType<typeof provider>[], registry = builtIns) =>
  preflightProblems(providers, registry).map((d) => `${d.object} ${d.path ?? ''}: ${d.message}`);

test('a valid set of built-in providers passes', () => {
  assert.deepEqual(
    messages([
      core(),
      provider('BootstrapProvider', 'kubeadm', 'b'),
      provider('ControlPlaneProvider', 'kubeadm', 'c', { version: '~1.12' }),
      provider('InfrastructureProvider', 'aws', 'i', { version: 'v2.8.0' }),
    ]),
    [],
  );
});

test('the CoreProvider must be named cluster-api (operator preflight_checks.go incorrectCoreProviderName)', () => {
  const problems = preflightProblems([provider('CoreProvider', 'capi', 'capi-system')], builtIns);
  assert.equal(problems.length, 1, 'reported once, not also as an unknown provider');
  assert.equal(problems[0].message, 'the CoreProvider must be named "cluster-api", found "capi"');
  assert.equal(problems[0].path, 'metadata.name');
  assert.equal(problems[0].file?.endsWith('providers.yaml'), true);
});

test('at most one CoreProvider, the second pointing at the first (operator preflight_checks.go moreThanOneCoreProviderInstanceExists)', () => {
  const first = core();
  const second = provider('CoreProvider', 'cluster-api', 'other-system');
  const problems = preflightProblems([first, second], builtIns);
  assert.equal(problems.length, 1);
  assert.equal(problems[0].object, 'CoreProvider/other-system/cluster-api');
  assert.equal(problems[0].line, second.position.line);
  assert.match(
    problems[0].message,
    new RegExp(`the first is CoreProvider/capi-system/cluster-api at .*providers\\.yaml:${first.position.line}:1`),
  );
});

test('at most one provider per kind and name, in any namespace (operator preflight_checks.go moreThanOneProviderInstanceExists)', () => {
  const first = provider('InfrastructureProvider', 'aws', 'a');
  const problems = preflightProblems(
    [
      core(),
      first,
      provider('InfrastructureProvider', 'aws', 'b'),
      provider('BootstrapProvider', 'aws', 'a', { fetchConfig: { url: '/r/bootstrap-aws/v1.0.0/b.yaml' } }),
    ],
    builtIns,
  );
  assert.deepEqual(
    problems.map((p) => `${p.object} ${p.path}: ${p.message}`),
    [
      `InfrastructureProvider/b/aws metadata.name: InfrastructureProvider "aws" is already declared as InfrastructureProvider/a/aws at ${first.position.file}:${first.position.line}:1`,
    ],
  );
});

test('no CoreProvider at all is an error (clusterctl installer.go Validate: one core provider)', () => {
  assert.deepEqual(messages([provider('BootstrapProvider', 'kubeadm', 'b')]), ['undefined : the input has no CoreProvider']);
  assert.deepEqual(messages([]), []);
});

test('a provider clusterctl does not know needs a fetchConfig or a repositories entry (operator preflight_checks.go isPredefinedProvider)', () => {
  assert.deepEqual(messages([core(), provider('InfrastructureProvider', 'acme', 'acme-system')]), [
    'InfrastructureProvider/acme-system/acme metadata.name: clusterctl v1.12.0 knows no InfrastructureProvider named "acme", and it has no fetchConfig',
  ]);
  assert.deepEqual(
    messages([
      core(),
      provider('InfrastructureProvider', 'acme', 'acme-system', { fetchConfig: { selector: { matchLabels: { a: 'b' } } } }),
    ]),
    [],
  );
  assert.deepEqual(
    messages([core(), provider('InfrastructureProvider', 'acme', 'acme-system', { fetchConfig: { oci: 'registry/acme:v1' } })]),
    [],
  );
  const withRepository = buildProviderRegistry([
    { name: 'acme', type: 'InfrastructureProvider', url: '/r/infrastructure-acme/latest/infrastructure-components.yaml' },
  ]).registry;
  assert.deepEqual(messages([core(), provider('InfrastructureProvider', 'acme', 'acme-system')], withRepository), []);
});

test('fetchConfig takes exactly one of url, selector, oci (operator preflight_checks.go, CRD exists_one rule)', () => {
  assert.deepEqual(
    messages([
      core(),
      provider('InfrastructureProvider', 'aws', 'a', { fetchConfig: { url: '/r/infrastructure-aws/v1.0.0/i.yaml', selector: {} } }),
    ]),
    ['InfrastructureProvider/a/aws spec.fetchConfig: fetchConfig sets url and selector; it takes exactly one source'],
  );
  assert.match(
    messages([core(), provider('InfrastructureProvider', 'aws', 'a', { fetchConfig: { url: '/x', oci: 'r/x:v1' } })])[0],
    /sets url and oci/,
  );
});

test('spec.version must be a semantic version or a range (operator preflight_checks.go checkProviderVersion)', () => {
  const problems = preflightProblems(
    [
      provider('CoreProvider', 'cluster-api', 'capi-system', { version: 'latest' }),
      provider('BootstrapProvider', 'kubeadm', 'b', { version: 'release-1.12' }),
    ],
    builtIns,
  );
  assert.deepEqual(
    problems.map((p) => `${p.path}: ${p.message}`),
    [
      'spec.version: version "latest" is neither a semantic version nor a version range',
      'spec.version: version "release-1.12" is neither a semantic version nor a version range',
    ],
  );
  assert.equal(problems[0].hint, 'leave spec.version out to get the latest release');
});

test('every violation is reported together', () => {
  const problems = preflightProblems(
    [
      provider('CoreProvider', 'capi', 'a', { version: 'foo' }),
      provider('CoreProvider', 'cluster-api', 'b'),
      provider('InfrastructureProvider', 'acme', 'c'),
    ],
    builtIns,
  );
  assert.deepEqual(
    problems.map((d) => `${d.object} ${d.path}`),
    [
      'CoreProvider/a/capi metadata.name',
      'CoreProvider/b/cluster-api undefined',
      'CoreProvider/a/capi spec.version',
      'InfrastructureProvider/c/acme metadata.name',
    ],
  );
});

test('preflight problems point at their field, as every problem does: spec.version "latest", a misnamed core, a provider declared twice (operator preflight_checks.go)', async () => {
  const text = [
    'apiVersion: operator.cluster.x-k8s.io/v1alpha2',
    'kind: CoreProvider',
    'metadata:',
    '  name: capi',
    '  namespace: capi-system',
    'spec:',
    '  version: latest',
    '---',
    'apiVersion: operator.cluster.x-k8s.io/v1alpha2',
    'kind: BootstrapProvider',
    'metadata: {name: kubeadm, namespace: one-system}',
    '---',
    'apiVersion: operator.cluster.x-k8s.io/v1alpha2',
    'kind: BootstrapProvider',
    'metadata: {namespace: two-system, name: kubeadm}',
    '',
  ].join('\n');
  const manifest = await loadManifest([writeTempManifest({ 'providers.yaml': text })]);
  assert.deepEqual(
    preflightProblems(manifest.providers, builtIns).map((d) => `${d.line}:${d.column} ${d.path}`),
    ['4:9 metadata.name', '15:41 metadata.name', '7:12 spec.version'],
  );
});

test('an exported provider whose spec.version is below its status.installedVersion (minor or major) is a downgrade warning at spec.version, as the operator refuses it (preflight_checks.go checkProviderVersion); an upgrade or a patch downgrade is not', async () => {
  const exported = (spec: string, installed: string) =>
    [
      'apiVersion: v1',
      'kind: List',
      'items:',
      '- apiVersion: operator.cluster.x-k8s.io/v1alpha2',
      '  kind: CoreProvider',
      '  metadata: {name: cluster-api, namespace: capi-system, uid: 4e0c9c9a-0000-4000-8000-000000000001}',
      '  spec:',
      `    version: ${spec}`,
      `    fetchConfig: {url: ${corpusUrl('cluster-api', 'latest', 'core-components.yaml')}}`,
      '  status:',
      `    installedVersion: ${installed}`,
      '    conditions: [{type: Ready, status: "True", lastTransitionTime: "2025-03-04T10:12:00Z"}]',
      '---',
      'apiVersion: capi-gitops.dev/v1alpha1',
      'kind: Config',
      'certManager: {enabled: false}',
      '',
    ].join('\n');
  const render = (spec: string, installed: string) => renderWarnings(exported(spec, installed));
  assert.equal(
    await render('v1.10.4', 'v1.12.0'),
    "providers.yaml:8:14: warning: CoreProvider/capi-system/cluster-api: spec.version: v1.10.4 is below v1.12.0, which the object's status.installedVersion says the operator installed: " +
      'a downgrade, which Cluster API does not support and the operator refuses (preflight_checks.go checkProviderVersion)\n' +
      '  hint: set spec.version to v1.12.0 or later; to roll back on purpose, make sure no object was stored at a newer API version first\n',
  );
  assert.equal(await render('v1.12.0', 'v1.10.4'), '', 'an upgrade');
  assert.equal(await render('v1.12.0', 'v1.12.3'), '', 'a patch downgrade passes, as in the operator');
});

test("a manager container's imageUrl tagged with another minor release than the provider's version is a warning at imageUrl: the operator runs that image as given (component_customizer.go customizeContainer), an old controller against the new CRDs; a patch tag, a build of the same minor, a tag that is no version are not", async () => {
  const manifest = (version: string, containers: string) =>
    [
      'apiVersion: operator.cluster.x-k8s.io/v1alpha2',
      'kind: CoreProvider',
      'metadata: {name: cluster-api, namespace: capi-system}',
      'spec:',
      `  version: ${version}`,
      `  fetchConfig: {url: ${corpusUrl('cluster-api', 'latest', 'core-components.yaml')}}`,
      '  deployment:',
      `    containers: ${containers}`,
      '---',
      'apiVersion: capi-gitops.dev/v1alpha1',
      'kind: Config',
      'certManager: {enabled: false}',
      '',
    ].join('\n');
  const render = (version: string, containers: string) => renderWarnings(manifest(version, containers));
  const manager = (imageUrl: string) => `[{name: manager, imageUrl: "${imageUrl}"}]`;
  assert.equal(
    await render('v1.12.0', manager('mirror.example.com:5000/capi/cluster-api-controller:v1.10.4')),
    'providers.yaml:8:44: warning: CoreProvider/capi-system/cluster-api: spec.deployment.containers[0].imageUrl: ' +
      'the manager container runs mirror.example.com:5000/capi/cluster-api-controller:v1.10.4, a v1.10 image, while the provider is rendered at v1.12.0: ' +
      "the operator runs the image as given, so the v1.10 controller would serve v1.12.0's CRDs and webhooks\n" +
      "  hint: tag the image v1.12.0 (or leave imageUrl out to run the release's own image); update and hand edits move spec.version, not imageUrl\n",
  );
  assert.equal(await render('v1.12.0', manager('mirror.example.com/capi/cluster-api-controller:v1.12.1')), '', 'a patch hotfix');
  assert.equal(await render('v1.12.0', manager('mirror.example.com/capi/cluster-api-controller:latest')), '', 'no version');
  assert.equal(
    await render('v1.12.0', manager('mirror.example.com/capi/cluster-api-controller:v1.12.0-fips')),
    '',
    'a build of this minor',
  );
});
