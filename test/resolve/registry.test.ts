import { test } from 'node:test';
import assert from 'node:assert/strict';
import { manifestLabel, PROVIDER_KINDS } from '../../src/core/provider.js';
import { BUILT_IN_PROVIDERS, buildProviderRegistry, urlProblem } from '../../src/resolve/registry.js';

const builtIns = buildProviderRegistry().registry;

test('the built-in registry holds the 61 providers of clusterctl v1.12.0 (providers_client.go defaults)', () => {
  assert.equal(BUILT_IN_PROVIDERS.length, 61);
  const perKind = Object.fromEntries(PROVIDER_KINDS.map((kind) => [kind, BUILT_IN_PROVIDERS.filter((e) => e.kind === kind).length]));
  assert.deepEqual(perKind, {
    CoreProvider: 1,
    BootstrapProvider: 7,
    ControlPlaneProvider: 10,
    InfrastructureProvider: 36,
    IPAMProvider: 3,
    RuntimeExtensionProvider: 1,
    AddonProvider: 3,
  });
  assert.ok(BUILT_IN_PROVIDERS.every((e) => e.builtIn));
});

test('sample built-in entries carry clusterctl URLs, including the odd asset names (providers_client.go)', () => {
  assert.equal(
    builtIns.lookup('InfrastructureProvider', 'aws')?.url,
    'https://github.com/kubernetes-sigs/cluster-api-provider-aws/releases/latest/infrastructure-components.yaml',
  );
  assert.equal(
    builtIns.lookup('CoreProvider', 'cluster-api')?.url,
    'https://github.com/kubernetes-sigs/cluster-api/releases/latest/core-components.yaml',
  );
  assert.equal(
    builtIns.lookup('InfrastructureProvider', 'docker')?.url,
    'https://github.com/kubernetes-sigs/cluster-api/releases/latest/infrastructure-components-development.yaml',
  );
  assert.equal(
    builtIns.lookup('RuntimeExtensionProvider', 'nutanix')?.url,
    'https://github.com/nutanix-cloud-native/cluster-api-runtime-extensions-nutanix/releases/latest/runtime-extensions-components.yaml',
  );
  assert.equal(
    builtIns.lookup('IPAMProvider', 'in-cluster')?.url,
    'https://github.com/kubernetes-sigs/cluster-api-ipam-provider-in-cluster/releases/latest/ipam-components.yaml',
  );
  assert.equal(
    builtIns.lookup('AddonProvider', 'helm')?.url,
    'https://github.com/kubernetes-sigs/cluster-api-addon-provider-helm/releases/latest/addon-components.yaml',
  );
  assert.equal(
    builtIns.lookup('ControlPlaneProvider', 'hosted-control-plane')?.url,
    'https://github.com/teutonet/cluster-api-provider-hosted-control-plane/releases/latest/control-plane-components.yaml',
  );
  // same name, different type: a separate entry
  assert.equal(builtIns.lookup('BootstrapProvider', 'aws'), undefined);
  assert.equal(builtIns.lookup('InfrastructureProvider', 'nonexistent'), undefined);
});

test('entries get clusterctl manifest labels for every type (provider_type.go ManifestLabel)', () => {
  const label = (kind: (typeof PROVIDER_KINDS)[number], name: string): string => manifestLabel(builtIns.lookup(kind, name)!.kind, name);
  assert.equal(label('CoreProvider', 'cluster-api'), 'cluster-api');
  assert.equal(label('BootstrapProvider', 'kubeadm'), 'bootstrap-kubeadm');
  assert.equal(label('ControlPlaneProvider', 'kubeadm'), 'control-plane-kubeadm');
  assert.equal(label('InfrastructureProvider', 'aws'), 'infrastructure-aws');
  assert.equal(label('IPAMProvider', 'in-cluster'), 'ipam-in-cluster');
  assert.equal(label('RuntimeExtensionProvider', 'nutanix'), 'runtime-extension-nutanix');
  assert.equal(label('AddonProvider', 'helm'), 'addon-helm');
});

test('entries are sorted by type order then name (clusterctl provider.go Less)', () => {
  const { registry } = buildProviderRegistry([{ name: 'aaa', type: 'AddonProvider', url: '/repo/addon-aaa/v1.0.0/addon-components.yaml' }]);
  const keys = registry.entries.map((e) => `${e.kind}/${e.name}`);
  assert.equal(keys[0], 'CoreProvider/cluster-api');
  assert.deepEqual(keys.slice(1, 4), [
    'BootstrapProvider/canonical-kubernetes',
    'BootstrapProvider/k0sproject-k0smotron',
    'BootstrapProvider/kubeadm',
  ]);
  assert.equal(
    keys.indexOf('AddonProvider/aaa'),
    keys.findIndex((k) => k.startsWith('AddonProvider/')),
  );
  assert.equal(keys.at(-1), 'AddonProvider/rancher-fleet');
});

test('a user repository with the same name and type replaces the built-in one; others are added (providers_client.go List)', () => {
  const declaredAt = { file: '/m/config.yaml', line: 1, column: 1 };
  const { registry } = buildProviderRegistry(
    [
      { name: 'aws', type: 'InfrastructureProvider', url: 'file:///mirror/infrastructure-aws/v2.0.0/infrastructure-components.yaml' },
      { name: 'acme', type: 'InfrastructureProvider', url: './repo/infrastructure-acme/latest/infrastructure-components.yaml' },
    ],
    declaredAt,
  );
  assert.equal(registry.entries.length, 62);
  const aws = registry.lookup('InfrastructureProvider', 'aws')!;
  assert.equal(aws.url, 'file:///mirror/infrastructure-aws/v2.0.0/infrastructure-components.yaml');
  assert.equal(aws.builtIn, false);
  assert.deepEqual(aws.declaredAt, declaredAt);
  assert.equal(registry.lookup('InfrastructureProvider', 'acme')?.url, './repo/infrastructure-acme/latest/infrastructure-components.yaml');
  // the built-in list itself is untouched
  assert.equal(builtIns.lookup('InfrastructureProvider', 'aws')?.builtIn, true);
});

test('user repositories are validated like clusterctl validateProvider, all problems at once', () => {
  const { problems } = buildProviderRegistry(
    [
      { name: '', type: 'BootstrapProvider', url: '/a/bootstrap-x/v1.0.0/b.yaml' },
      { name: 'MyProvider', type: 'BootstrapProvider', url: '/a' },
      { name: 'bad_name', type: 'BootstrapProvider', url: '/a' },
      { name: 'capi', type: 'CoreProvider', url: '/a' },
      { name: 'cluster-api', type: 'InfrastructureProvider', url: '/a' },
      { name: 'ok', type: 'BootstrapProvider', url: '' },
      { name: 'ok2', type: 'BootstrapProvider', url: 'https://example.com/%zz/x.yaml' },
      { name: 'ok3', type: 'Widget' as never, url: '/a' },
      { name: 'ok4', type: 'BootstrapProvider', url: '${HOME}/repo/bootstrap-ok4/v1.0.0/bootstrap-components.yaml' },
    ],
    { file: '/m/config.yaml', line: 3, column: 1 },
  );
  const summary = problems.map((p) => `${p.path}: ${p.message}`);
  assert.deepEqual(summary, [
    'repositories[0].name: name is empty',
    'repositories[1].name: name "MyProvider" must be lower case',
    'repositories[2].name: name "bad_name" is not a DNS-1123 subdomain',
    'repositories[3].name: a CoreProvider entry must be named "cluster-api", found "capi"',
    'repositories[4].type: name "cluster-api" is reserved for the CoreProvider, found type InfrastructureProvider',
    'repositories[5].url: url is empty',
    'repositories[6].url: url "https://example.com/%zz/x.yaml" cannot be parsed: it contains a "%" that does not start a %XX escape',
    'repositories[7].type: type "Widget" is not a provider kind',
    'repositories[8].url: url "${HOME}/repo/bootstrap-ok4/v1.0.0/bootstrap-components.yaml" contains a ${…} variable',
  ]);
  assert.ok(problems.every((p) => p.file === '/m/config.yaml' && p.line === 3 && p.object === 'Config'));
  assert.equal(problems[1].hint, 'use "myprovider"');
});

test('a repeated user repository is an error naming the first entry', () => {
  const { problems } = buildProviderRegistry([
    { name: 'acme', type: 'InfrastructureProvider', url: '/a/infrastructure-acme/v1.0.0/i.yaml' },
    { name: 'acme', type: 'InfrastructureProvider', url: '/b/infrastructure-acme/v1.0.0/i.yaml' },
  ]);
  assert.deepEqual(
    problems.map((p) => `${p.path}: ${p.message}`),
    ['repositories[1]: InfrastructureProvider "acme" is already declared at repositories[0]'],
  );
});

test('URL parsing refuses what Go url.Parse refuses and accepts paths', () => {
  assert.equal(urlProblem('file:///abs/cluster-api/v1.0.0/core-components.yaml'), undefined);
  assert.equal(urlProblem('relative/cluster-api/v1.0.0/core-components.yaml'), undefined);
  assert.equal(urlProblem('https://github.com/o/r/releases/latest/x.yaml'), undefined);
  assert.match(urlProblem('https://exa mple.com/x')!, /not a valid URL/);
  assert.match(urlProblem('/repo/\u0007/x')!, /control character/);
  assert.match(urlProblem('://x')!, /missing scheme/);
});
