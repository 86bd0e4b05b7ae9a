/**
 * The fleet stage's layering: defaults < shared manifest < release < overlay <
 * unsupportedOverrides, Helm's merge rules, validation of the merged result only, and errors
 * that name the cluster, the layer and the place the value was written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { loadManifest } from '../../src/manifest/load.js';
import { expandFleet, type FleetCluster } from '../../src/manifest/fleet-expand.js';
import { throwsDiagnostics } from '../helpers/assertions.js';
import { writeTempManifest } from '../helpers/corpus-manifest.js';

const PROVIDERS = `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec:
  version: v1.12.0
  manager: {verbosity: 2, syncPeriod: 10m}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: BootstrapProvider
metadata: {name: kubeadm, namespace: capi-kubeadm-bootstrap-system}
spec: {version: v1.12.0}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata: {name: aws, namespace: capa-system}
spec: {version: v2.9.0}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Release
metadata: {name: "2026.11.0"}
providers:
  CoreProvider/cluster-api: v1.10.4
  BootstrapProvider/kubeadm: v1.10.4
certManager: {version: v1.18.0}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Release
metadata: {name: "2026.05.0"}
deprecated: true
providers:
  CoreProvider/cluster-api: v1.8.0
`;

async function expand(config: string, extra = ''): Promise<FleetCluster[]> {
  const dir = writeTempManifest({ 'fleet.yaml': `${PROVIDERS}${extra}---\napiVersion: capi-gitops.dev/v1alpha1\nkind: Config\n${config}` });
  return expandFleet(await loadManifest([dir])).clusters;
}

async function expandError(config: string) {
  const dir = writeTempManifest({ 'fleet.yaml': `${PROVIDERS}---\napiVersion: capi-gitops.dev/v1alpha1\nkind: Config\n${config}` });
  const manifest = await loadManifest([dir]);
  return { error: throwsDiagnostics(() => expandFleet(manifest)), file: path.join(dir, 'fleet.yaml') };
}

function provider(cluster: FleetCluster, kind: string) {
  const found = cluster.manifest.providers.find((p) => p.kind === kind);
  assert.ok(found, `${cluster.name} has a ${kind}`);
  return found;
}

/** Line of the first line of `fleet.yaml` that contains `text`, 1-based. */
function lineOf(config: string, text: string): number {
  const all = `${PROVIDERS}---\napiVersion: capi-gitops.dev/v1alpha1\nkind: Config\n${config}`.split('\n');
  return all.findIndex((l) => l.includes(text)) + 1;
}

test('layer 2 wins over layer 1: the shared Config turns off the default cert-manager (openshift library-go config layering: observed config over defaults)', async () => {
  const [on] = await expand('clusters: [{name: a}]\n');
  assert.equal(on!.manifest.config.certManager?.enabled, true);
  const [off] = await expand('certManager: {enabled: false}\nclusters: [{name: a}]\n');
  assert.equal(off!.manifest.config.certManager?.enabled, false);
});

test('layer 3 wins over layer 2: a cluster on a release gets its versions, the others the shared ones', async () => {
  const [plain, onRelease] = await expand('clusters:\n- name: a\n- name: b\n  release: "2026.11.0"\n');
  assert.equal(provider(plain!, 'CoreProvider').spec.version, 'v1.12.0');
  assert.equal(provider(onRelease!, 'CoreProvider').spec.version, 'v1.10.4');
  assert.equal(provider(onRelease!, 'BootstrapProvider').spec.version, 'v1.10.4');
  // a provider the release does not pin keeps the shared version
  assert.equal(provider(onRelease!, 'InfrastructureProvider').spec.version, 'v2.9.0');
  assert.equal(onRelease!.manifest.config.certManager?.version, 'v1.18.0');
  // the rest of the spec is the shared manifest's
  assert.equal(provider(onRelease!, 'CoreProvider').spec.manager?.syncPeriod, '10m');
});

test("Config.release is the default release, a cluster's own release wins", async () => {
  const config = 'release: "2026.11.0"\nclusters:\n- name: a\n- name: b\n  release: "2026.05.0"\n';
  const [byDefault, own] = await expand(config);
  assert.equal(provider(byDefault!, 'CoreProvider').spec.version, 'v1.10.4');
  assert.equal(provider(own!, 'CoreProvider').spec.version, 'v1.8.0');
  // at the cluster's own `release:`, the line that chose the deprecated release
  assert.deepEqual(
    own!.warnings.map((w) => `${w.line} ${w.message}`),
    [`${lineOf(config, '  release: "2026.05.0"')} cluster b runs release 2026.05.0, which is deprecated; move it to a current release`],
  );
  assert.deepEqual(byDefault!.warnings, []);
});

test('layer 4 wins over layer 3: the overlay pins a version over the release, and merges into the spec (maps deep-merge)', async () => {
  const [c] = await expand(`clusters:
- name: eu-1
  release: "2026.11.0"
  providers:
    CoreProvider/cluster-api: {spec: {version: v1.10.5, manager: {verbosity: 4}}}
  variables: {AWS_REGION: eu-west-1}
  images: {all: {repository: mirror.eu.example/capi}}
  certManager: {version: v1.19.1}
  gitops: {destination: {name: eu-1}}
`);
  const core = provider(c!, 'CoreProvider');
  assert.equal(core.spec.version, 'v1.10.5');
  assert.equal(core.spec.manager?.verbosity, 4);
  assert.equal(core.spec.manager?.syncPeriod, '10m');
  assert.equal(provider(c!, 'BootstrapProvider').spec.version, 'v1.10.4');
  assert.deepEqual(c!.manifest.config.variables, { AWS_REGION: 'eu-west-1' });
  assert.deepEqual(c!.manifest.config.images, { all: { repository: 'mirror.eu.example/capi' } });
  assert.equal(c!.manifest.config.certManager?.version, 'v1.19.1');
  assert.deepEqual(c!.manifest.config.gitops?.values, { destination: { name: 'eu-1' } });
});

test("a cluster's images keys are read lowercased, as the Config's (clusterctl reads clusterctl.yaml through viper, which lowercases keys: spf13/viper util.go insensitiviseMap), so ALL merges over the Config's all; two alike but for case are an error at the later one", async () => {
  const [c] = await expand(`images: {all: {repository: mirror.example/capi, tag: v1.0.0}}
clusters:
- name: eu-1
  images: {ALL: {tag: v2.0.0}, Cluster-API: {name: capi}}
`);
  assert.deepEqual(c!.manifest.config.images, {
    all: { repository: 'mirror.example/capi', tag: 'v2.0.0' },
    'cluster-api': { name: 'capi' },
  });
  const config = `clusters:
- name: eu-1
  images:
    all: {tag: v1.0.0}
    All: {tag: v2.0.0}
`;
  const { error, file } = await expandError(config);
  assert.deepEqual(
    error.diagnostics.map((d) => [d.file, d.line, d.column, d.message]),
    [
      [
        file,
        lineOf(config, '    All:'),
        5,
        "All and all are one images key to clusterctl, which reads clusterctl.yaml's keys lowercased (viper): which of the two it applies is left to chance",
      ],
    ],
  );
});

test('lists replace, they do not merge (helm pkg/chart/common/util/coalesce.go)', async () => {
  const [c] = await expand(`clusters:
- name: a
  providers:
    CoreProvider/cluster-api: {spec: {manifestPatches: ["{\\"metadata\\": {\\"labels\\": {\\"b\\": \\"1\\"}}}"]}}
`);
  assert.deepEqual(provider(c!, 'CoreProvider').spec.manifestPatches, ['{"metadata": {"labels": {"b": "1"}}}']);
});

test('layer 5 wins over layer 4, and is reported with a warning on every run', async () => {
  const [c] = await expand(`variables: {A: shared}
clusters:
- name: eu-1
  variables: {A: overlay, B: overlay}
  unsupportedOverrides:
    variables: {A: escape}
`);
  assert.deepEqual(c!.manifest.config.variables, { A: 'escape', B: 'overlay' });
  assert.deepEqual(
    c!.warnings.map((w) => w.message),
    ["cluster eu-1: unsupportedOverrides sets variables.A; these bypass the overlay's checks and are not supported"],
  );
});

test('null removes a provider and a field (helm coalesce.go: a user null deletes the key)', async () => {
  const [c] = await expand(`clusters:
- name: eu-1
  providers:
    InfrastructureProvider/aws: null
    CoreProvider/cluster-api: {spec: {manager: {syncPeriod: null}}}
`);
  assert.deepEqual(c!.manifest.providers.map((p) => p.kind).sort(), ['BootstrapProvider', 'CoreProvider']);
  const manager = provider(c!, 'CoreProvider').spec.manager!;
  assert.equal(manager.syncPeriod, undefined);
  assert.equal(manager.verbosity, 2);
});

test('an overlay adds a provider only its cluster has, as a whole object', async () => {
  const [c, other] = await expand(`clusters:
- name: eu-1
  providers:
    InfrastructureProvider/vsphere:
      metadata: {namespace: capv-system}
      spec: {version: v1.13.0}
- name: us-1
`);
  const vsphere = c!.manifest.providers.find((p) => p.name === 'vsphere');
  assert.deepEqual(vsphere && { namespace: vsphere.namespace, version: vsphere.spec.version }, {
    namespace: 'capv-system',
    version: 'v1.13.0',
  });
  assert.equal(
    other!.manifest.providers.some((p) => p.name === 'vsphere'),
    false,
  );
});

test('moving an existing provider is refused in the overlay (layer 4) and accepted in unsupportedOverrides (layer 5) with a warning', async () => {
  const overlay = `clusters:
- name: eu-1
  providers:
    CoreProvider/cluster-api: {metadata: {namespace: capi-eu}}
`;
  const { error, file } = await expandError(overlay);
  assert.equal(error.diagnostics.length, 1);
  const d = error.diagnostics[0]!;
  assert.equal(d.object, 'cluster eu-1 (overlay)');
  assert.equal(d.path, 'clusters[0].providers["CoreProvider/cluster-api"].metadata');
  assert.equal(d.file, file);
  assert.equal(d.line, lineOf(overlay, '{metadata: {namespace: capi-eu}}'));
  assert.match(d.hint!, /unsupportedOverrides/);

  const escape = `clusters:
- name: eu-1
  unsupportedOverrides:
    providers:
      CoreProvider/cluster-api: {metadata: {namespace: capi-eu}}
`;
  const [c] = await expand(escape);
  assert.equal(provider(c!, 'CoreProvider').namespace, 'capi-eu');
  assert.match(
    c!.warnings[0]!.message,
    /^cluster eu-1: unsupportedOverrides sets providers\.CoreProvider\/cluster-api\.metadata\.namespace;/,
  );
  // in the cluster's unsupportedOverrides, at what it sets: a warning the user can find
  assert.equal(c!.warnings[0]!.line, lineOf(escape, '    providers:'));
});

test("Config fields beyond the overlay's are ignored in the overlay shape and taken from unsupportedOverrides", async () => {
  const [c] = await expand(`clusters:
- name: eu-1
  unsupportedOverrides:
    github: {apiUrl: https://github.example.com/api/v3}
`);
  assert.deepEqual(c!.manifest.config.github, { apiUrl: 'https://github.example.com/api/v3' });
});

test('the merged result is validated: an error names the cluster and the layer, at the line the value was written', async () => {
  const config = `clusters:
- name: eu-1
  providers:
    CoreProvider/cluster-api: {spec: {manager: {verbosity: many}}}
- name: us-1
  unsupportedOverrides:
    providers:
      BootstrapProvider/kubeadm: {spec: {fetchConfig: {}}}
`;
  const { error, file } = await expandError(config);
  const shown = error.diagnostics.map((d) => [d.object, d.path, d.file === file, d.line]);
  assert.deepEqual(shown, [
    ['cluster eu-1, overlay: CoreProvider/capi-system/cluster-api', 'spec.manager.verbosity', true, lineOf(config, 'verbosity: many')],
    [
      'cluster us-1, unsupportedOverrides: BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm',
      'spec.fetchConfig',
      true,
      lineOf(config, 'fetchConfig: {}'),
    ],
  ]);
  assert.match(error.diagnostics[1]!.message, /fetchConfig sets none of url, selector and oci/);
});

test('an overlay naming a provider that does not exist is an error with a suggestion', async () => {
  const { error } = await expandError(`clusters:
- name: eu-1
  providers:
    CoreProvider/cluster-apu: {spec: {version: v1.12.0}}
`);
  assert.equal(error.diagnostics.length, 1);
  assert.match(error.diagnostics[0]!.message, /CoreProvider\/cluster-apu is not a provider of the shared manifest/);
  assert.equal(error.diagnostics[0]!.hint, 'did you mean "CoreProvider/cluster-api"?');
});

test('removing with null a provider the shared manifest lacks (no close name) hints to drop the key, not to declare the provider', async () => {
  const { error } = await expandError(`clusters:
- name: eu-1
  providers:
    IPAMProvider/in-cluster: null
`);
  assert.equal(error.diagnostics.length, 1);
  assert.match(
    error.diagnostics[0]!.message,
    /IPAMProvider\/in-cluster is not a provider of the shared manifest, so there is nothing to remove/,
  );
  assert.equal(error.diagnostics[0]!.hint, 'remove the key: this cluster has no IPAMProvider/in-cluster to remove');
});

test('a provider key of an overlay that names no provider (to change it, or to remove it with null) is told at the key, not at its value', async () => {
  const config = `clusters:
- name: eu-1
  providers:
    CoreProvider/cluster-apu: {spec: {version: v1.12.0}}
    BootstrapProvider/kubeadmm: null
`;
  const { error, file } = await expandError(config);
  const at = (key: string) => [
    lineOf(config, key),
    config
      .split('\n')
      .find((l) => l.includes(key))!
      .indexOf(key) + 1,
  ];
  assert.deepEqual(
    error.diagnostics.map((d) => [d.file === file, d.line, d.column]),
    [
      [true, ...at('CoreProvider/cluster-apu')],
      [true, ...at('BootstrapProvider/kubeadmm')],
    ],
  );
});

test('an unknown release, and a duplicate cluster name, are errors naming the cluster', async () => {
  const { error } = await expandError(`clusters:
- name: eu-1
  release: "2026.11.1"
- name: eu-1
`);
  const messages = error.diagnostics.map((d) => d.message);
  assert.ok(
    messages.some((m) => m.startsWith('release "2026.11.1" is not in the input')),
    messages.join('\n'),
  );
  assert.ok(
    messages.some((m) => m.startsWith('duplicate cluster "eu-1"')),
    messages.join('\n'),
  );
  assert.equal(error.diagnostics.find((d) => d.message.startsWith('release'))!.hint, 'did you mean "2026.11.0"?');
});

test("the overlay's shape is checked by the schema when the manifest is read", async () => {
  const dir = writeTempManifest({
    'fleet.yaml': `${PROVIDERS}---\napiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: EU_1\n  colour: blue\n`,
  });
  const error = await loadManifest([dir]).then(
    () => undefined,
    (e: { diagnostics?: { path?: string }[] }) => e,
  );
  const paths = (error?.diagnostics ?? []).map((d) => d.path);
  assert.ok(paths.includes('clusters[0].name'), JSON.stringify(paths));
  assert.ok(
    paths.some((p) => p?.startsWith('clusters[0]')),
    JSON.stringify(paths),
  );
});

test('an overlay changes the secrets settings: maps deep-merge, lists replace, null deletes, and the merged settings are validated with the cluster and layer named', async () => {
  const shared = `secrets:
  strategy: external-secrets
  public: [AWS_REGION]
  externalSecrets: {secretStoreRef: {name: vault}}
`;
  const [eu, us, lab] = await expand(`${shared}clusters:
- name: eu-1
  secrets: {externalSecrets: {secretStoreRef: {kind: SecretStore}}, public: [EXP_FLAG]}
- name: us-1
- name: lab-1
  secrets: null
`);
  assert.deepEqual(eu!.manifest.config.secrets, {
    strategy: 'external-secrets',
    public: ['EXP_FLAG'],
    externalSecrets: { secretStoreRef: { name: 'vault', kind: 'SecretStore' } },
  });
  assert.deepEqual(us!.manifest.config.secrets, {
    strategy: 'external-secrets',
    public: ['AWS_REGION'],
    externalSecrets: { secretStoreRef: { name: 'vault' } },
  });
  assert.equal(lab!.manifest.config.secrets, undefined);
  const config = `${shared}clusters:\n- name: eu-1\n  secrets: {strategy: plaintext}\n`;
  const { error, file } = await expandError(config);
  assert.equal(error.diagnostics.length, 1);
  const d = error.diagnostics[0]!;
  assert.match(d.object ?? '', /^cluster eu-1, overlay/);
  assert.equal(d.path, 'secrets.strategy');
  assert.equal(`${d.file}:${d.line}`, `${file}:${lineOf(config, 'strategy: plaintext')}`);
});

test('an unknown field in an overlay is told at its key, as in a single manifest, block or flow style (a wrong value stays at the value)', async () => {
  const overlay = `clusters:
- name: eu-1
  providers:
    CoreProvider/cluster-api:
      spec:
        manager:
          verbosty: 5
        deployment: {replcas: 2}
        version: [v1.12.0]
`;
  const { error } = await expandError(overlay);
  const at = (text: string, column: string) =>
    `${lineOf(overlay, text)}:${
      overlay
        .split('\n')
        .find((l) => l.includes(text))!
        .indexOf(column) + 1
    }`;
  assert.deepEqual(
    error.diagnostics.map((d) => `${d.line}:${d.column} ${d.path}`).sort(),
    [
      `${at('verbosty', 'verbosty')} spec.manager.verbosty`,
      `${at('replcas', 'replcas')} spec.deployment.replcas`,
      `${at('version: [', '[')} spec.version`,
    ].sort(),
  );
});

test("a shared provider's labels and annotations reach every cluster's provider object (the operator layout writes them)", async () => {
  const dir = writeTempManifest({
    'fleet.yaml': `${PROVIDERS.replace(
      'metadata: {name: cluster-api, namespace: capi-system}',
      'metadata: {name: cluster-api, namespace: capi-system, labels: {team: platform}, annotations: {example.com/owner: platform-team}}',
    )}---\napiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n  - name: eu-1\n    release: "2026.11.0"\n`,
  });
  const [cluster] = expandFleet(await loadManifest([dir])).clusters;
  const core = provider(cluster!, 'CoreProvider');
  assert.deepEqual(core.labels, { team: 'platform' });
  assert.deepEqual(core.annotations, { 'example.com/owner': 'platform-team' });
  assert.equal(provider(cluster!, 'BootstrapProvider').labels, undefined);
});
