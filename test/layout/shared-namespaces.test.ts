/**
 * Several providers in one namespace (k0rdent: every provider in `kcm-system`; Intel: the RKE2
 * bootstrap and control plane in `capr-system`): one Namespace object per namespace in every
 * layout, held by the first component in install order, and every directory still builds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { KObject } from '../../src/core/kobject.js';
import type { RenderedComponent } from '../../src/render/types.js';
import type { NamespaceObject } from '../../src/manifest/types.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { shareNamespaces } from '../../src/layout/shared-namespaces.js';
import { renderManagementCluster, type RenderOptions } from '../../src/app/cluster.js';
import { renderOutput } from '../../src/app/run.js';
import { writeOutput } from '../../src/output/write.js';
import { EXAMPLE } from '../helpers/cli.js';
import { corpusUrl, tempDir } from '../helpers/corpus-manifest.js';
import { FIXTURES } from '../helpers/paths.js';
import { kubectlAvailable, kubectlKustomize } from '../helpers/tree.js';

const KUBECTL = kubectlAvailable();
const REPOSITORY = path.join(EXAMPLE, 'repository');
const OPERATOR_RELEASE = path.join(FIXTURES, 'operator-release', 'v0.28.0', 'operator-components.yaml');

function namespaceObject(name: string, labels: Record<string, string>): KObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } };
}

function component(
  type: RenderedComponent['type'],
  label: string,
  namespace: string,
  extraLabels: Record<string, string> = {},
): RenderedComponent {
  return {
    label,
    type,
    name: label,
    version: 'v0.1.0',
    namespace,
    artifactSha256: '0'.repeat(64),
    objects: [
      namespaceObject(namespace, { 'clusterctl.cluster.x-k8s.io': '', 'cluster.x-k8s.io/provider': label, ...extraLabels }),
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: `${label}-manager`, namespace } },
    ],
  };
}

const namespacesOf = (c: RenderedComponent) => c.objects.filter((o) => o.kind === 'Namespace');

function namespaceDocument(name: string, labels: Record<string, string>, annotations: Record<string, string> = {}): NamespaceObject {
  return { name, labels, annotations, position: { file: 'namespaces.yaml', line: 3, column: 1 } };
}

test('one Namespace per namespace, held by the first component in install order with its provider label; what the others add is kept', () => {
  // given out of install order: the owner is decided by install order, not input order
  const infra = component('InfrastructureProvider', 'infrastructure-acme', 'kcm-system', {
    'pod-security.kubernetes.io/enforce': 'privileged',
  });
  const controlPlane = component('ControlPlaneProvider', 'control-plane-kubeadm', 'kcm-system');
  const core = component('CoreProvider', 'cluster-api', 'kcm-system', { 'control-plane': 'controller-manager' });
  const bootstrap = component('BootstrapProvider', 'bootstrap-kubeadm', 'kcm-system', { 'control-plane': 'other' });
  const [i, cp, c, b] = shareNamespaces([infra, controlPlane, core, bootstrap]);
  assert.deepEqual(
    [i, cp, b].map((x) => namespacesOf(x!).length),
    [0, 0, 0],
  );
  assert.deepEqual(namespacesOf(c!), [
    namespaceObject('kcm-system', {
      'clusterctl.cluster.x-k8s.io': '',
      'cluster.x-k8s.io/provider': 'cluster-api',
      'control-plane': 'controller-manager',
      'pod-security.kubernetes.io/enforce': 'privileged',
    }),
  ]);
  // every other object stays where it was
  assert.deepEqual(
    [i, cp, c, b].map((x) => x!.objects.filter((o) => o.kind === 'ServiceAccount').length),
    [1, 1, 1, 1],
  );
});

test('components in namespaces of their own come back as the same objects (a fleet caches laid-out components by identity)', () => {
  const core = component('CoreProvider', 'cluster-api', 'capi-system');
  const bootstrap = component('BootstrapProvider', 'bootstrap-rke2', 'capr-system');
  const controlPlane = component('ControlPlaneProvider', 'control-plane-rke2', 'capr-system');
  const [c, b, cp] = shareNamespaces([core, bootstrap, controlPlane]);
  assert.equal(c, core);
  assert.equal(b, bootstrap, 'the owner keeps its identity when nothing is merged into its Namespace');
  assert.notEqual(cp, controlPlane);
  assert.equal(namespacesOf(cp!).length, 0);
});

test('a Namespace document: merged into the provider namespace (its labels and annotations win), any other written as given in the first component', () => {
  const certManager = component('CertManager', 'cert-manager', 'cert-manager');
  const core = component('CoreProvider', 'cluster-api', 'kcm-system', { 'pod-security.kubernetes.io/enforce': 'baseline' });
  const [c, cm] = shareNamespaces(
    [core, certManager],
    [
      namespaceDocument('kcm-system', { 'pod-security.kubernetes.io/enforce': 'privileged' }, { 'owner.example.com/team': 'platform' }),
      namespaceDocument('capi-secrets', { team: 'platform' }),
    ],
  );
  assert.deepEqual(namespacesOf(c!), [
    {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: 'kcm-system',
        labels: {
          'clusterctl.cluster.x-k8s.io': '',
          'cluster.x-k8s.io/provider': 'cluster-api',
          'pod-security.kubernetes.io/enforce': 'privileged',
        },
        annotations: { 'owner.example.com/team': 'platform' },
      },
    },
  ]);
  assert.deepEqual(namespacesOf(cm!).at(-1), {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'capi-secrets', labels: { team: 'platform' } },
  });
});

test("a Namespace document may not change clusterctl's provider label; the problem is at the document", () => {
  const core = component('CoreProvider', 'cluster-api', 'kcm-system');
  assert.throws(
    () => shareNamespaces([core], [namespaceDocument('kcm-system', { 'cluster.x-k8s.io/provider': 'infrastructure-aws' })]),
    (err: unknown) => {
      assert.ok(err instanceof CapiGitopsError);
      const [d] = err.diagnostics;
      assert.equal(`${d!.file}:${d!.line}`, 'namespaces.yaml:3');
      assert.equal(d!.path, 'metadata.labels["cluster.x-k8s.io/provider"]');
      assert.match(d!.message, /"cluster-api".*"infrastructure-aws"/);
      assert.match(d!.hint!, /remove cluster\.x-k8s\.io\/provider from the Namespace document/);
      return true;
    },
  );
});

test("a Namespace document of the manifest that changes clusterctl's label: the problem is at the label's line and column, not the document's start", async () => {
  const dir = manifestDir(
    kcmManifest('kcm-system').replace(
      '  labels:\n    pod-security.kubernetes.io/enforce: privileged',
      '  labels:\n    pod-security.kubernetes.io/enforce: privileged\n    cluster.x-k8s.io/provider: mine',
    ),
  );
  const text = readFileSync(path.join(dir, 'providers.yaml'), 'utf8');
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.includes('cluster.x-k8s.io/provider: mine')) + 1;
  await assert.rejects(renderManagementCluster({ manifestPaths: [dir] }), (err: unknown) => {
    assert.ok(err instanceof CapiGitopsError);
    const [d] = err.diagnostics;
    assert.equal(d!.path, 'metadata.labels["cluster.x-k8s.io/provider"]');
    assert.equal(`${path.basename(d!.file!)}:${d!.line}:${d!.column}`, `providers.yaml:${line}:5`);
    return true;
  });
});

/** The example repository's four providers and cert-manager, every provider in `namespace`. */
function kcmManifest(namespace: string, extra = ''): string {
  const provider = (kind: string, name: string, label: string, file: string) => `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: ${kind}
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  version: v0.2.0
  fetchConfig:
    url: ${path.join(REPOSITORY, label, 'latest', file)}
`;
  return [
    provider('CoreProvider', 'cluster-api', 'cluster-api', 'core-components.yaml'),
    provider('BootstrapProvider', 'example', 'bootstrap-example', 'bootstrap-components.yaml'),
    provider('ControlPlaneProvider', 'example', 'control-plane-example', 'control-plane-components.yaml'),
    provider('InfrastructureProvider', 'example', 'infrastructure-example', 'infrastructure-components.yaml'),
    `apiVersion: capi-gitops.dev/v1alpha1
kind: Config
variables:
  EXAMPLE_REGION: eu-west-1
certManager:
  url: ${path.join(REPOSITORY, 'cert-manager', 'v0.1.0', 'cert-manager.yaml')}
${extra}`,
    // what the operator's docs, the Flux guide and k0rdent's chart put beside the providers
    `apiVersion: v1
kind: Namespace
metadata:
  name: ${namespace}
  labels:
    pod-security.kubernetes.io/enforce: privileged
`,
  ].join('---\n');
}

function manifestDir(text: string): string {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'providers.yaml'), text);
  return dir;
}

const set = (...expressions: string[]): RenderOptions['set'] => expressions.map((expression) => ({ expression, forceString: false }));

const LAYOUT_OPTIONS = {
  kustomize: {},
  argocd: { set: set('repoURL=https://git.example.com/platform/management.git', 'path=clusters/mgmt') },
  flux: { set: set('path=clusters/mgmt') },
} as const;

/** Every directory with a kustomization.yaml, and the root. */
function kustomizeDirectories(files: ReadonlyMap<string, string>): string[] {
  return ['.', ...new Set([...files.keys()].filter((f) => f.endsWith('/kustomization.yaml')).map((f) => path.dirname(f)))];
}

/** kubectl kustomize of `dir` in the written tree: its Namespace objects. */
function builtNamespaces(out: string, dir: string): KObject[] {
  // only the Namespace documents are read: the yaml package over the providers' CRDs is slow
  return kubectlKustomize(path.join(out, dir))
    .split('\n---\n')
    .filter((d) => /^kind: Namespace$/m.test(d))
    .map((d) => YAML.parse(d) as KObject)
    .filter((o) => o.kind === 'Namespace');
}

async function assertBuilds(files: ReadonlyMap<string, string>, namespace: string, root = '.'): Promise<void> {
  const out = path.join(tempDir(), 'out');
  await writeOutput(out, files);
  const whole = builtNamespaces(out, root).filter((n) => n.metadata.name === namespace);
  assert.equal(whole.length, 1, `${root}: one Namespace ${namespace}`);
  assert.equal(whole[0]!.metadata.labels?.['pod-security.kubernetes.io/enforce'], 'privileged', "the document's label is merged in");
  for (const dir of kustomizeDirectories(files).filter((d) => d !== '.' && d !== root && d.startsWith(root === '.' ? '' : root)))
    assert.ok(builtNamespaces(out, dir).length <= 1, `${dir} builds on its own`);
}

test(
  'four providers in one namespace (k0rdent kcm-system): kustomize, argocd and flux layouts build whole and per directory, with one Namespace',
  { skip: !KUBECTL && 'kubectl not installed' },
  async () => {
    const dir = manifestDir(kcmManifest('kcm-system'));
    for (const layout of ['kustomize', 'argocd', 'flux'] as const) {
      const { files } = await renderManagementCluster({ manifestPaths: [dir], layout, ...LAYOUT_OPTIONS[layout] });
      const holders = [...files.keys()].filter((f) => /\/namespace-kcm-system\.yaml$/.test(f));
      assert.deepEqual(holders, ['01-cluster-api/namespace-kcm-system.yaml'], layout);
      const namespace = YAML.parse(files.get(holders[0]!)!) as KObject;
      assert.equal(namespace.metadata.labels?.['cluster.x-k8s.io/provider'], 'cluster-api', 'the first in install order labels it');
      assert.match(
        files.get('README.md')!,
        /\| kcm-system \| `01-cluster-api\/` \| `02-bootstrap-example\/`, `03-control-plane-example\/`, `04-infrastructure-example\/` \|/,
      );
      await assertBuilds(files, 'kcm-system');
    }
  },
);

test(
  'four providers in one namespace: the operator layout and a fleet build with one Namespace',
  { skip: !KUBECTL && 'kubectl not installed' },
  async () => {
    const operator = await renderManagementCluster({
      manifestPaths: [manifestDir(kcmManifest('kcm-system', `operator:\n  url: ${OPERATOR_RELEASE}\n`))],
      layout: 'operator',
    });
    await assertBuilds(operator.files, 'kcm-system');
    // a provider in the operator's own namespace uses the operator's Namespace
    const inOperatorNamespace = await renderManagementCluster({
      manifestPaths: [manifestDir(kcmManifest('capi-operator-system', `operator:\n  url: ${OPERATOR_RELEASE}\n`))],
      layout: 'operator',
    });
    assert.deepEqual(
      [...inOperatorNamespace.files.keys()].filter((f) => f.endsWith('namespace-capi-operator-system.yaml')),
      ['01-cluster-api-operator/namespace-capi-operator-system.yaml'],
    );
    await assertBuilds(inOperatorNamespace.files, 'capi-operator-system');

    const fleet = await renderOutput({
      manifestPaths: [manifestDir(kcmManifest('kcm-system', 'clusters:\n- name: eu-1\n- name: us-1\n'))],
    });
    for (const cluster of ['eu-1', 'us-1']) await assertBuilds(fleet.files, 'kcm-system', `clusters/${cluster}`);
  },
);

test('a component that shares its namespace with another of its wave syncs a wave later (Argo CD sync-wave, Flux dependsOn)', async () => {
  const waves = async (text: string) => {
    const { files } = await renderManagementCluster({ manifestPaths: [manifestDir(text)], layout: 'argocd', ...LAYOUT_OPTIONS.argocd });
    return [...files]
      .filter(([f]) => /^argocd\/application-capi-gitops-\d/.test(f))
      .map(([, text]) => YAML.parse(text) as KObject)
      .map((a) => `${a.metadata.name} ${a.metadata.annotations?.['argocd.argoproj.io/sync-wave']}`);
  };
  // core holds kcm-system: everything after it is in a later wave already
  assert.deepEqual(await waves(kcmManifest('kcm-system')), [
    'capi-gitops-00-cert-manager 0',
    'capi-gitops-01-cluster-api 1',
    'capi-gitops-02-bootstrap-example 2',
    'capi-gitops-03-control-plane-example 2',
    'capi-gitops-04-infrastructure-example 3',
  ]);
  // core in capi-system: the bootstrap provider holds kcm-system, so the control plane waits a wave
  const coreApart = kcmManifest('kcm-system').replace('namespace: kcm-system', 'namespace: capi-system');
  assert.deepEqual(await waves(coreApart), [
    'capi-gitops-00-cert-manager 0',
    'capi-gitops-01-cluster-api 1',
    'capi-gitops-02-bootstrap-example 2',
    'capi-gitops-03-control-plane-example 3',
    'capi-gitops-04-infrastructure-example 3',
  ]);
  const { files } = await renderManagementCluster({ manifestPaths: [manifestDir(coreApart)], layout: 'flux', ...LAYOUT_OPTIONS.flux });
  const dependsOn = (directory: string) =>
    (YAML.parse(files.get(`flux/kustomization-capi-gitops-${directory}.yaml`)!) as { spec: { dependsOn?: { name: string }[] } }).spec
      .dependsOn;
  assert.deepEqual(dependsOn('03-control-plane-example'), [{ name: 'capi-gitops-02-bootstrap-example' }]);
  assert.deepEqual(dependsOn('04-infrastructure-example'), [{ name: 'capi-gitops-02-bootstrap-example' }]);
});

test(
  "Intel's shape: RKE2 bootstrap and control plane in capr-system; the control plane waits for the bootstrap provider, which holds the Namespace",
  { skip: !KUBECTL && 'kubectl not installed' },
  async () => {
    const rke2 = (kind: string, label: string, file: string) => `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: ${kind}
metadata:
  name: rke2
  namespace: capr-system
spec:
  version: v0.11.0
  fetchConfig:
    url: ${corpusUrl(label, 'latest', file)}
`;
    const dir = manifestDir(
      [
        `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
  namespace: capi-system
spec:
  version: v1.10.4
  fetchConfig:
    url: ${corpusUrl('cluster-api', 'latest', 'core-components.yaml')}
`,
        rke2('BootstrapProvider', 'bootstrap-rke2', 'bootstrap-components.yaml'),
        rke2('ControlPlaneProvider', 'control-plane-rke2', 'control-plane-components.yaml'),
        'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\ncertManager:\n  enabled: false\n',
      ].join('---\n'),
    );
    const flux = await renderManagementCluster({ manifestPaths: [dir], layout: 'flux', ...LAYOUT_OPTIONS.flux });
    assert.deepEqual(
      [...flux.files.keys()].filter((f) => f.endsWith('namespace-capr-system.yaml')),
      ['02-bootstrap-rke2/namespace-capr-system.yaml'],
    );
    const dependsOn = (directory: string) =>
      (YAML.parse(flux.files.get(`flux/kustomization-capi-gitops-${directory}.yaml`)!) as { spec: { dependsOn?: { name: string }[] } }).spec
        .dependsOn;
    assert.deepEqual(dependsOn('02-bootstrap-rke2'), [{ name: 'capi-gitops-01-cluster-api' }]);
    assert.deepEqual(dependsOn('03-control-plane-rke2'), [{ name: 'capi-gitops-02-bootstrap-rke2' }]);
    const out = path.join(tempDir(), 'out');
    await writeOutput(out, flux.files);
    assert.equal(builtNamespaces(out, '.').filter((n) => n.metadata.name === 'capr-system').length, 1);
    assert.deepEqual(builtNamespaces(out, '03-control-plane-rke2'), [], 'the control plane directory builds without the Namespace');
  },
);
