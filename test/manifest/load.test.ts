import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { loadManifest } from '../../src/manifest/load.js';
import { compareStrings } from '../../src/core/diagnostics.js';
import {
  MANIFEST_FIXTURES,
  loadError,
  loadText,
  loadTextError,
  provider,
  summary,
  writeManifestDir,
} from '../fixtures/manifest/helpers.js';

const FULL = path.join(MANIFEST_FIXTURES, 'full');
const EXPORTED = path.join(MANIFEST_FIXTURES, 'exported');
const ERRORS = path.join(MANIFEST_FIXTURES, 'errors');

test('a manifest using every ProviderSpec, ManagerSpec, DeploymentSpec and ContainerSpec field loads', async () => {
  const manifest = await loadManifest([FULL]);
  assert.deepEqual(
    manifest.providers.map((p) => `${p.kind}/${p.namespace}/${p.name}`),
    [
      'CoreProvider/capi-system/cluster-api',
      'BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm',
      'ControlPlaneProvider/capi-kubeadm-control-plane-system/kubeadm',
      'InfrastructureProvider/capd-system/docker',
      'IPAMProvider/capi-ipam-in-cluster-system/in-cluster',
      'RuntimeExtensionProvider/runtime-extension-system/example-extension',
      'AddonProvider/caaph-system/helm',
    ],
  );
  const core = manifest.providers[0];
  assert.equal(core.spec.version, 'v1.12.0');
  assert.equal(core.spec.manager?.maxConcurrentReconciles, 5);
  assert.deepEqual(core.spec.manager?.featureGates, { MachinePool: true, ClusterTopology: true });
  assert.deepEqual(core.spec.manager?.additionalArgs, { '--kube-api-qps': '50' });
  assert.equal(core.spec.manager?.leaderElection?.resourceName, 'controller-leader-election-capi');
  assert.equal(core.spec.manager?.controller?.cacheSyncTimeout, 120000000000);
  assert.equal(core.spec.deployment?.containers?.[0].imageUrl, 'registry.example.com/capi/cluster-api-controller:v1.12.0');
  assert.equal(core.spec.deployment?.containers?.[0].env?.length, 6);
  assert.deepEqual(core.spec.deployment?.containers?.[0].resources, {
    limits: { cpu: '1', memory: '512Mi' },
    requests: { cpu: '100m', memory: 128 },
    claims: [{ name: 'gpu', request: 'small' }],
  });
  assert.equal(core.spec.patches?.[0].target?.labelSelector, 'cluster.x-k8s.io/provider=cluster-api');
  // The YAML aliases give the additional deployment the same settings, as separate values.
  const extra = core.spec.additionalDeployments?.['capi-extra-controller'];
  assert.deepEqual(extra?.manager, core.spec.manager);
  assert.deepEqual(extra?.deployment, core.spec.deployment);
  assert.notEqual(extra?.manager, core.spec.manager);
  assert.deepEqual(manifest.providers[1].spec.fetchConfig?.selector?.matchExpressions, [
    { key: 'provider.cluster.x-k8s.io/type', operator: 'In', values: ['bootstrap'] },
  ]);
  assert.equal(manifest.providers[1].spec.manifestPatches?.length, 1);
  assert.equal(manifest.providers[2].spec.fetchConfig?.oci, 'registry.example.com/capi/control-plane-kubeadm:v1.12.0');
  assert.deepEqual(core.position, { file: path.join(FULL, 'providers.yaml'), line: 7, column: 1 });
  assert.equal(manifest.baseDir, FULL);
});

test('CRD defaults are applied where their parent object is set (CRD default: manager.verbosity 1, keyRef and imagePullSecrets names "")', async () => {
  const { manifest } = await loadText(
    provider(`
manager: {}
deployment:
  imagePullSecrets:
    - {}
  containers:
    - name: manager
      env:
        - name: A
          valueFrom:
            secretKeyRef: {key: a}
        - name: B
          valueFrom:
            configMapKeyRef: {key: b}
        - name: C
          valueFrom:
            fileKeyRef: {key: c, path: p, volumeName: v}
additionalDeployments:
  second:
    manager: {maxConcurrentReconciles: 2}
`) +
      '---\n' +
      provider('version: v1.12.0', 'InfrastructureProvider', 'docker', 'capd-system') +
      '---\n' +
      provider('manager: {verbosity: 0}', 'BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system'),
  );
  const [core, docker, kubeadm] = manifest.providers;
  assert.equal(core.spec.manager?.verbosity, 1);
  assert.deepEqual(core.spec.deployment?.imagePullSecrets, [{ name: '' }]);
  const env = core.spec.deployment?.containers?.[0].env as { valueFrom: Record<string, Record<string, unknown>> }[];
  assert.deepEqual(env[0].valueFrom.secretKeyRef, { key: 'a', name: '' });
  assert.deepEqual(env[1].valueFrom.configMapKeyRef, { key: 'b', name: '' });
  assert.deepEqual(env[2].valueFrom.fileKeyRef, { key: 'c', path: 'p', volumeName: 'v', optional: false });
  assert.deepEqual(core.spec.additionalDeployments?.second.manager, { maxConcurrentReconciles: 2, verbosity: 1 });
  // No manager given: the API server does not create one to default.
  assert.equal(docker.spec.manager, undefined);
  assert.equal(kubeadm.spec.manager?.verbosity, 0);
});

test('configSecret and additionalManifests default to the provider namespace (operator webhook setDefaultProviderSpec)', async () => {
  const manifest = await loadManifest([FULL]);
  const core = manifest.providers[0];
  assert.deepEqual(core.spec.configSecret, { name: 'capi-variables', namespace: 'capi-system' });
  assert.deepEqual(core.spec.additionalManifests, { name: 'capi-extra-manifests', namespace: 'capi-system' });
  // An explicit namespace is kept.
  const controlPlane = manifest.providers[2];
  assert.equal(controlPlane.namespace, 'capi-kubeadm-control-plane-system');
  assert.deepEqual(controlPlane.spec.configSecret, { name: 'capi-variables', namespace: 'capi-system' });
  // An empty namespace is defaulted too (the webhook tests for "").
  const { manifest: empty } = await loadText(provider('configSecret: {name: s, namespace: ""}'));
  assert.deepEqual(empty.providers[0].spec.configSecret, { name: 's', namespace: 'capi-system' });
});

test('a directory is read as its *.yaml and *.yml files in code-unit order, not recursively', async () => {
  const dir = await writeManifestDir({
    'b.yaml': provider('', 'BootstrapProvider', 'b', 'ns-b'),
    'B.yml': provider('', 'BootstrapProvider', 'upper-b', 'ns-b'),
    'a.yml': provider('', 'BootstrapProvider', 'a-yml', 'ns-a'),
    'a.yaml': provider('', 'BootstrapProvider', 'a-yaml', 'ns-a'),
    'notes.txt': 'not: yaml: at: all',
    'nested/deeper.yaml': provider('', 'BootstrapProvider', 'nested', 'ns-n'),
  });
  const manifest = await loadManifest([dir]);
  assert.deepEqual(
    manifest.providers.map((p) => p.name),
    ['upper-b', 'a-yaml', 'a-yml', 'b'],
  );
  assert.equal(manifest.baseDir, dir);
});

test('files given one by one keep their order, a file named twice is read once, and any extension is read when named', async () => {
  const dir = await writeManifestDir({
    'z.yaml': provider('', 'BootstrapProvider', 'z', 'ns'),
    'providers.txt': provider('', 'BootstrapProvider', 'txt', 'ns'),
  });
  const z = path.join(dir, 'z.yaml');
  const manifest = await loadManifest([z, path.join(dir, 'providers.txt'), dir]);
  assert.deepEqual(
    manifest.providers.map((p) => p.name),
    ['z', 'txt'],
  );
});

test('a missing path and an empty directory are reported with the other problems', async () => {
  const empty = await writeManifestDir({ 'readme.md': '# nothing' });
  const error = await loadError([path.join(empty, 'missing.yaml'), empty, path.join(ERRORS, 'b-secrets.yaml')]);
  assert.deepEqual(
    error.diagnostics.map((d) => [d.file, d.message]),
    // Diagnostics are ordered by file path; the temp dir may sort before or after the checkout.
    [
      [empty, 'directory has no *.yaml or *.yml files'],
      [path.join(empty, 'missing.yaml'), 'no such file or directory'],
      [path.join(ERRORS, 'b-secrets.yaml'), 'is not valid base64'],
    ].sort((a, b) => compareStrings(a[0], b[0])),
  );
});

test('problems in several files are reported together, each with file, line, column, field and object', async () => {
  const error = await loadError([ERRORS]);
  const at = (name: string) => path.join(ERRORS, name);
  assert.deepEqual(
    error.diagnostics.map((d) => [d.file, d.line, d.column, d.path, d.object, d.message]),
    [
      [at('a-providers.yaml'), 7, 3, 'spec.versoin', 'CoreProvider/capi-system/cluster-api', 'unknown field "versoin"'],
      [at('a-providers.yaml'), 9, 30, 'spec.manager.maxConcurrentReconciles', 'CoreProvider/capi-system/cluster-api', 'must be >= 1'],
      [at('a-providers.yaml'), 13, 1, 'metadata.namespace', 'InfrastructureProvider/aws', 'missing required field "namespace"'],
      [at('a-providers.yaml'), 17, 15, 'spec.deployment.replicas', 'InfrastructureProvider/aws', 'must be >= 0'],
      [at('b-secrets.yaml'), 7, 31, 'data.AWS_B64ENCODED_CREDENTIALS', 'Secret/capa-system/aws-variables', 'is not valid base64'],
      [at('c-broken.yaml'), 4, 9, undefined, undefined, 'invalid YAML: implicit keys need to be on a single line'],
      [at('c-broken.yaml'), 4, 9, undefined, undefined, 'invalid YAML: nested mappings are not allowed in compact mappings'],
    ],
  );
  assert.match(
    error.message,
    /^.*a-providers\.yaml:7:3: error: CoreProvider\/capi-system\/cluster-api: spec\.versoin: unknown field "versoin"$/m,
  );
  for (const d of error.diagnostics) assert.ok(d.expected && d.hint, `${d.message}: expected and hint`);
});

test('the namespace is required for providers, and the hint says it is where components are installed', async () => {
  const { error } = await loadTextError(
    'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n---\napiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: BootstrapProvider\n',
  );
  assert.deepEqual(summary(error.diagnostics), [
    '3:1 metadata.namespace: missing required field "namespace"',
    '6:1 metadata: missing required field "metadata"',
  ]);
  assert.match(error.diagnostics[0].hint ?? '', /namespace the provider's components are installed into/);
  assert.match(error.diagnostics[1].hint ?? '', /metadata\.namespace/);
});

test('malformed YAML gives one diagnostic per syntax error with its line and column, and other documents are still checked', async () => {
  const { error, file } = await loadTextError(
    provider('version: v1.12.0\n manager: {}') +
      '---\n' +
      provider('versio: v1', 'BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system'),
  );
  assert.deepEqual(summary(error.diagnostics), [
    '7:12 -: invalid YAML: implicit keys need to be on a single line',
    '7:12 -: invalid YAML: nested mappings are not allowed in compact mappings',
    '16:3 spec.versio: unknown field "versio"',
  ]);
  assert.equal(error.diagnostics[0].file, file);
});

test('Git conflict markers left by a merge are one problem per conflict at its <<<<<<< line, not a dozen YAML syntax errors', async () => {
  const conflicted = (ours: string, theirs: string) => `<<<<<<< HEAD\n  version: ${ours}\n=======\n  version: ${theirs}\n>>>>>>> feat-b\n`;
  const { error, file } = await loadTextError(
    provider('').replace(/\n$/, '\nspec:\n') +
      conflicted('v1.10.4', 'v1.12.0') +
      '---\n' +
      provider('', 'BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system') +
      'spec:\n' +
      conflicted('v1.10.4', 'v1.12.0'),
  );
  assert.deepEqual(summary(error.diagnostics), [
    '7:1 -: unresolved Git merge conflict (lines 7-11)',
    '19:1 -: unresolved Git merge conflict (lines 19-23)',
  ]);
  assert.equal(error.diagnostics[0].file, file);
  assert.match(error.diagnostics[0].hint ?? '', /delete the <<<<<<<, ======= and >>>>>>> lines/);
});

test('a kubectl List export with status, managedFields and server metadata loads (kubectl get -o yaml)', async () => {
  const manifest = await loadManifest([path.join(EXPORTED, 'coreprovider-list.yaml')]);
  assert.deepEqual(manifest.providers, [
    {
      kind: 'CoreProvider',
      name: 'cluster-api',
      namespace: 'capi-system',
      spec: { configSecret: { name: 'capi-variables', namespace: 'capi-system' }, manager: { verbosity: 1 }, version: 'v1.12.0' },
      position: { file: path.join(EXPORTED, 'coreprovider-list.yaml'), line: 4, column: 3 },
    },
  ]);
  assert.deepEqual(
    manifest.secrets.map((s) => [s.namespace, s.name, s.data]),
    [['capi-system', 'capi-variables', { CLUSTER_TOPOLOGY: 'true' }]],
  );
});

test('an export from a Flux- and Helm-managed cluster loses their tracking metadata, and the Flux Kustomization to suspend is told once (helm pkg/action/validate.go, fluxcd/pkg ssa)', async () => {
  const { manifest, file } = await loadText(`apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
  namespace: capi-system
  labels:
    app.kubernetes.io/managed-by: Helm
    kustomize.toolkit.fluxcd.io/name: capi
    kustomize.toolkit.fluxcd.io/namespace: flux-system
    team: platform
  annotations:
    meta.helm.sh/release-name: capi-operator
    meta.helm.sh/release-namespace: capi-operator-system
spec:
  version: v1.12.0
  additionalManifests: {name: capi-extra}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: capi-extra
  namespace: capi-system
  labels:
    app.kubernetes.io/managed-by: Helm
    kustomize.toolkit.fluxcd.io/name: capi
    kustomize.toolkit.fluxcd.io/namespace: flux-system
  annotations:
    meta.helm.sh/release-name: capi-operator
    meta.helm.sh/release-namespace: capi-operator-system
    argocd.argoproj.io/tracking-id: "argocd_capi-extras:/ConfigMap:capi-system/capi-extra"
data:
  manifests: ""
`);
  const [configMap] = manifest.configMaps;
  // Helm adopts an object carrying its ownership metadata; Git must not claim it for the old release
  assert.deepEqual([configMap!.labels, configMap!.annotations], [{}, {}]);
  assert.deepEqual(
    manifest.warnings?.map((w) => `${w.line}:${w.column} ${w.message}\n${w.hint}`),
    [
      '8:5 exported from a cluster where Flux Kustomization flux-system/capi applies it (and 1 more object of the input); ' +
        'its tracking metadata is left out of the output\n' +
        'suspend it before the move: flux suspend kustomization capi -n flux-system, or it re-creates the provider objects the move deletes; ' +
        'then take these objects out of its source, and these labels and annotations out of the export',
      '30:5 exported from a cluster where Argo CD Application argocd/capi-extras applies it; its tracking metadata is left out of the output\n' +
        'turn off its automated sync before the move: argocd app set argocd/capi-extras --sync-policy none, ' +
        'or it re-creates the provider objects the move deletes; then take these objects out of its source, and these labels and annotations out of the export',
    ],
  );
  assert.equal(manifest.warnings?.[0]?.file, file);
});

test("an export from a cluster Argo CD applied it to with label tracking (app.kubernetes.io/instance, the default before Argo CD 3.0) names that Application to stop and loses the label; a Helm release's own instance label, or one written for Git, is not taken for it (argo-cd docs user-guide/resource_tracking.md, release-2.9)", async () => {
  const { manifest } = await loadText(`apiVersion: v1
kind: List
items:
- apiVersion: operator.cluster.x-k8s.io/v1alpha2
  kind: CoreProvider
  metadata:
    name: cluster-api
    namespace: capi-system
    resourceVersion: "48213"
    labels:
      app.kubernetes.io/instance: capi-providers
      team: platform
  spec:
    version: v1.12.0
- apiVersion: operator.cluster.x-k8s.io/v1alpha2
  kind: BootstrapProvider
  metadata:
    name: kubeadm
    namespace: capi-kubeadm-bootstrap-system
    labels:
      app.kubernetes.io/instance: capi-bootstrap
  spec:
    version: v1.12.0
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: capi-extra
    namespace: capi-system
    uid: 0b4c9d2e-5f0a-4c1e-9d7b-2a6f8e3c1b40
    labels:
      app.kubernetes.io/instance: capi-operator
    annotations:
      meta.helm.sh/release-name: capi-operator
      meta.helm.sh/release-namespace: capi-operator-system
  data:
    manifests: ""
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: capi-templated
    namespace: capi-system
    uid: 7e1f3a9c-2b8d-4f6e-a0c5-9d3b1e7f2a64
    labels:
      app.kubernetes.io/instance: platform
      helm.sh/chart: platform-1.0.0
  data:
    manifests: ""
`);
  assert.deepEqual(manifest.providers[0]!.labels, { team: 'platform' });
  // written by hand (no server-set metadata): the team's own label, kept and not warned about
  assert.deepEqual(manifest.providers[1]!.labels, { 'app.kubernetes.io/instance': 'capi-bootstrap' });
  assert.deepEqual(manifest.configMaps[0]!.labels, { 'app.kubernetes.io/instance': 'capi-operator' });
  // exported too (a uid): a chart's instance label names its release, not an Application (helm template prints no release annotation)
  assert.deepEqual(manifest.configMaps[1]!.labels, { 'app.kubernetes.io/instance': 'platform', 'helm.sh/chart': 'platform-1.0.0' });
  assert.deepEqual(
    manifest.warnings?.map((w) => `${w.line}:${w.column} ${w.message}\n${w.hint}`),
    [
      '11:7 exported from a cluster where Argo CD Application capi-providers applies it; its tracking metadata is left out of the output\n' +
        'turn off its automated sync before the move: argocd app set capi-providers --sync-policy none, ' +
        'or it re-creates the provider objects the move deletes; then take these objects out of its source, and these labels and annotations out of the export',
    ],
  );
});

test('the suspend command quotes an Application name read from the tracking annotation, free text, for the shell (core/shell.ts shellWord)', async () => {
  const { manifest } = await loadText(`apiVersion: v1
kind: ConfigMap
metadata:
  name: extra
  namespace: capi-system
  annotations: {argocd.argoproj.io/tracking-id: "capi;rm -rf ~:/ConfigMap:capi-system/extra"}
data: {manifests: ""}
`);
  assert.match(manifest.warnings?.[0]?.hint ?? '', /argocd app set 'capi;rm -rf ~' --sync-policy none,/);
});

test('a typed provider list whose items have no apiVersion or kind loads, taking them from the list', async () => {
  const manifest = await loadManifest([path.join(EXPORTED, 'bootstrap-typed-list.yaml')]);
  assert.deepEqual(
    manifest.providers.map((p) => [p.kind, p.namespace, p.name, p.spec]),
    [['BootstrapProvider', 'capi-kubeadm-bootstrap-system', 'kubeadm', { version: 'v1.12.0' }]],
  );
});

test('problems inside List items name the item and point into it', async () => {
  const { error } = await loadTextError(`apiVersion: v1
kind: List
items:
- apiVersion: operator.cluster.x-k8s.io/v1alpha2
  kind: CoreProvider
  metadata: {name: cluster-api, namespace: capi-system}
  spec:
    replica: 1
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: default}
  spec: {replicas: "x"}
- apiVersion: operator.cluster.x-k8s.io/v1alpha2
  kind: CoreProviderList
  items: []
- apiVersion: v1
  kind: ConfigMap
`);
  assert.deepEqual(
    error.diagnostics.map((d) => `${d.line}:${d.column} ${d.object} ${d.path}: ${d.message}`),
    [
      '8:5 CoreProvider/capi-system/cluster-api spec.replica: unknown field "replica"',
      '10:9 Deployment/default/web kind: unsupported kind "Deployment" in a List',
      '14:9 CoreProviderList kind: unsupported kind "CoreProviderList" in a List',
      '16:3 ConfigMap/<unnamed> metadata: missing required field "metadata"',
    ],
  );
  assert.match(error.diagnostics[3].hint ?? '', /-n\/--namespace or namespace: in the Config document/);
  // A typed list holds only its own kind.
  const mixed = await loadTextError('apiVersion: v1\nkind: SecretList\nitems:\n- kind: ConfigMap\n  metadata: {name: a, namespace: b}\n');
  assert.deepEqual(summary(mixed.error.diagnostics), ['4:9 kind: a SecretList holds only Secret objects']);
  // Its hint followed literally: `kind: List` alone under the list's apiVersion is refused next.
  assert.match(mixed.error.diagnostics[0]!.hint ?? '', /apiVersion: v1, kind: List/);
});

test('operator.cluster.x-k8s.io/v1alpha1 objects and typed lists are read and converted to v1alpha2 (api/v1alpha1/provider_conversion.go)', async () => {
  const { manifest } = await loadText(
    'apiVersion: operator.cluster.x-k8s.io/v1alpha1\nkind: InfrastructureProviderList\nitems:\n- metadata: {name: aws, namespace: capa-system}\n  spec:\n    secretName: aws-variables\n',
  );
  assert.deepEqual(manifest.providers[0].spec.configSecret, { name: 'aws-variables', namespace: 'capa-system' });
  assert.equal(manifest.warnings?.length, 1);
});

test('other kinds and apiVersions are rejected, naming the supported kinds', async () => {
  const { error } = await loadTextError(
    'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n---\napiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: Coreprovider\n---\napiVersion: v2\nkind: Secret\n---\nkind: ConfigMap\n---\n- a list\n',
  );
  assert.deepEqual(summary(error.diagnostics), [
    '2:7 kind: unsupported kind "Deployment"',
    '6:7 kind: unsupported kind "Coreprovider"',
    '8:13 apiVersion: apiVersion "v2" does not serve kind Secret',
    '11:1 -: missing "apiVersion"',
    '13:1 -: expected a Kubernetes object (a mapping with apiVersion and kind)',
  ]);
  assert.match(
    error.diagnostics[0].expected ?? '',
    /^one of CoreProvider, BootstrapProvider, .*Secret, ConfigMap, Namespace, CAPIProvider, List, Config, Release$/,
  );
  for (const d of error.diagnostics) assert.ok(d.expected && d.hint, `${d.message}: expected and hint`);
  assert.equal(error.diagnostics[1].hint, 'did you mean "CoreProvider"?');
});

test('duplicate Secrets and ConfigMaps across files are reported at the second with the first position', async () => {
  const secret = 'apiVersion: v1\nkind: Secret\nmetadata: {name: creds, namespace: capi-system}\nstringData: {A: b}\n';
  const configMap = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra, namespace: capi-system}\n';
  const dir = await writeManifestDir({ 'a.yaml': secret + '---\n' + configMap, 'b.yaml': '# again\n' + configMap + '---\n' + secret });
  const error = await loadError([dir]);
  const a = path.join(dir, 'a.yaml');
  assert.deepEqual(
    error.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.message}`),
    [
      `${path.join(dir, 'b.yaml')}:2:1 duplicate ConfigMap capi-system/extra; the first is at ${a}:6:1`,
      `${path.join(dir, 'b.yaml')}:6:1 duplicate Secret capi-system/creds; the first is at ${a}:1:1`,
    ],
  );
  // Same name in another namespace is a different object.
  const other = await writeManifestDir({ 'a.yaml': secret + '---\n' + secret.replace('capi-system', 'other') });
  assert.equal((await loadManifest([other])).secrets.length, 2);
});

test('empty documents and comment-only files are skipped', async () => {
  const dir = await writeManifestDir({
    'a.yaml': '# only a comment\n',
    'b.yaml': '---\n---\n# nothing\n---\n' + provider('version: v1.12.0') + '---\n',
  });
  const manifest = await loadManifest([dir]);
  assert.equal(manifest.providers.length, 1);
});

test('null fields are dropped before validation, as the API server prunes them', async () => {
  const { manifest } = await loadText(provider('version: ~\nmanager: null\ndeployment:\n  replicas: 1\n  nodeSelector:\n') + 'status:\n');
  assert.deepEqual(manifest.providers[0].spec, { deployment: { replicas: 1 } });
});

test('YAML 1.1 scalars resolve as Kubernetes (go-yaml v2 resolve.go) reads them', async () => {
  const { manifest } = await loadText(
    provider(
      'version: 2026-01-14\nmanager:\n  cacheNamespace: 1:30\n  featureGates: {A: on, B: off, C: y, D: No, yes: true}\n  webhook: {port: 0x24E3}\n  controller: {cacheSyncTimeout: 0o17}\ndeployment: {replicas: 010, serviceAccountName: !!str 12}',
    ),
  );
  const spec = manifest.providers[0].spec;
  // Timestamps and sexagesimal numbers stay strings; yes/no/on/off/y/n are booleans (also as keys);
  // 0x, 0o and 0 prefixes are hex and octal; !!str keeps text.
  assert.equal(spec.version, '2026-01-14');
  assert.equal(spec.manager?.cacheNamespace, '1:30');
  assert.deepEqual(spec.manager?.featureGates, { A: true, B: false, C: true, D: false, true: true });
  assert.equal(spec.manager?.webhook?.port, 9443);
  assert.equal(spec.manager?.controller?.cacheSyncTimeout, 15);
  assert.equal(spec.deployment?.replicas, 8);
  assert.equal(spec.deployment?.serviceAccountName, '12');
  const { error } = await loadTextError(provider('version: !!int v1'));
  assert.deepEqual(summary(error.diagnostics), ['7:18 -: invalid YAML: the value cannot be read as !!int']);
});

test('alias bombs, alias loops and keys without a JSON form are refused', async () => {
  const level = (i: number) =>
    `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`;
  const bomb = ['a: &a [x, x]', ...Array.from({ length: 12 }, (_, i) => level(i))].join('\n');
  const { error } = await loadTextError(`${bomb}\n---\nloop: &loop [*loop]\n---\n? [a, b]\n: c\n`);
  assert.deepEqual(summary(error.diagnostics), [
    '2:12 -: invalid YAML: too many alias references',
    '15:14 -: invalid YAML: an alias refers to a node that contains it',
    '17:3 -: invalid YAML: this mapping key has no JSON form (null, a collection, or an integer beyond int64)',
  ]);
});

test('an alias to an anchor of another document (anchors stop at ---) or to none is refused at the alias, as kubectl refuses it, not read as null (a spec.version of null is the newest release)', async () => {
  const { error } = await loadTextError(
    `${provider('version: &pinned v1.8.0')}---\n${provider('version: *pinned', 'BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system')}---\nlabels: {a: *nowhere}\n`,
  );
  assert.deepEqual(
    summary(error.diagnostics).filter((line) => /alias/.test(line)),
    [
      '15:12 -: invalid YAML: the alias *pinned names no anchor before it in this document',
      '17:13 -: invalid YAML: the alias *nowhere names no anchor before it in this document',
    ],
  );
});

test('a tab indenting a line is told at the tab, with a hint to indent with spaces', async () => {
  const { error } = await loadTextError(provider('version: v1.10.4').replace('  version', '\tversion'));
  assert.equal(error.diagnostics.length, 1, error.message);
  const [tab] = error.diagnostics;
  assert.deepEqual([tab!.line, tab!.column, tab!.message], [7, 1, 'invalid YAML: tabs are not allowed as indentation']);
  assert.match(tab!.hint!, /replace the tab at the start of line 7 with spaces/);
});

test('merge keys (<<) merge where they stand and later keys win, as go-yaml v2 does', async () => {
  const { manifest } = await loadText(
    provider(
      'manager: &defaults\n  verbosity: 2\n  syncPeriod: 5m\nadditionalDeployments:\n  extra:\n    manager:\n      <<: *defaults\n      verbosity: 4',
    ),
  );
  assert.deepEqual(manifest.providers[0].spec.additionalDeployments?.extra.manager, { verbosity: 4, syncPeriod: '5m' });
});

test("an export Argo CD tracks by annotation and label (annotation+label) is told at its tracking annotation; one Flux applied, at Flux's label, whatever label names the same (argo-cd docs user-guide/resource_tracking.md)", async () => {
  const { manifest } = await loadText(`apiVersion: v1
kind: List
items:
- apiVersion: operator.cluster.x-k8s.io/v1alpha2
  kind: CoreProvider
  metadata:
    name: cluster-api
    namespace: capi-system
    resourceVersion: "48213"
    labels:
      app.kubernetes.io/instance: capi
    annotations:
      argocd.argoproj.io/tracking-id: capi:operator.cluster.x-k8s.io/CoreProvider:capi-system/cluster-api
  spec:
    version: v1.12.0
- apiVersion: operator.cluster.x-k8s.io/v1alpha2
  kind: BootstrapProvider
  metadata:
    name: kubeadm
    namespace: capi-kubeadm-bootstrap-system
    labels:
      app.kubernetes.io/instance: providers
      kustomize.toolkit.fluxcd.io/name: providers
      kustomize.toolkit.fluxcd.io/namespace: flux-system
  spec:
    version: v1.12.0
`);
  assert.deepEqual(
    manifest.warnings?.map((w) => `${w.line}:${w.column} ${w.message.split(';')[0]}`),
    [
      '13:7 exported from a cluster where Argo CD Application capi applies it',
      '23:7 exported from a cluster where Flux Kustomization flux-system/providers applies it',
    ],
  );
});

test("Config gitops.values (and a layout's values) are read as Helm reads a values file, YAML 1.1's scalars typed by go-yaml v2: yes/on/y true, 0644 420, 0o17 15, dates text (helm pkg/chart/common/values.go ReadValues → sigs.k8s.io/yaml yaml.go Unmarshal; kubectl reads the manifest through the same)", async () => {
  const { manifest } = await loadText(
    [
      'apiVersion: capi-gitops.dev/v1alpha1',
      'kind: Config',
      'gitops:',
      '  values:',
      '    createProject: no',
      '    syncPolicy: {automated: {prune: on, selfHeal: y}}',
      '    mode: 0644',
      '    octal: 0o17',
      '    since: 2024-01-01',
      '    quoted: "yes"',
      '  argocd:',
      '    values:',
      '      applicationSet: yes',
      '',
    ].join('\n'),
  );
  assert.deepEqual(manifest.config.gitops?.values, {
    createProject: false,
    syncPolicy: { automated: { prune: true, selfHeal: true } },
    mode: 420,
    octal: 15,
    since: '2024-01-01',
    quoted: 'yes',
  });
  assert.deepEqual(manifest.config.gitops?.argocd?.values, { applicationSet: true });
});
