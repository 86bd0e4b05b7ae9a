/**
 * The argocd and flux layouts on the real corpus: wiring validated against the real CRDs,
 * built by kubectl kustomize, ordered by install order, and deterministic.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { renderManagementCluster, type RenderOptions } from '../../src/app/cluster.js';
import { writeOutput } from '../../src/output/write.js';
import type { KObject } from '../../src/core/kobject.js';
import { corpusManifest, tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { kubectlAvailable, kubectlKustomize } from '../helpers/tree.js';
import { wiringProblems } from '../helpers/crd-schema.js';
import { rejection } from '../helpers/assertions.js';
import type { Diagnostic } from '../../src/core/diagnostics.js';

const REPO = 'https://git.example.com/platform/management.git';
const manifestDir = writeTempManifest({ 'providers.yaml': corpusManifest('v1.12.0', 'repository') });

function set(...expressions: string[]): RenderOptions['set'] {
  return expressions.map((expression) => ({ expression, forceString: false }));
}

async function render(options: Partial<RenderOptions> & Pick<RenderOptions, 'layout'>) {
  return renderManagementCluster({ manifestPaths: [manifestDir], ...options });
}

function wiringObjects(files: Map<string, string>, dir: string): KObject[] {
  return [...files]
    .filter(([f]) => f.startsWith(`${dir}/`) && !f.endsWith('kustomization.yaml'))
    .map(([, text]) => YAML.parse(text) as KObject);
}

function byKind(objects: KObject[], kind: string): KObject[] {
  return objects.filter((o) => o.kind === kind);
}

const argoDefault = render({ layout: 'argocd', set: set(`repoURL=${REPO}`, 'path=clusters/mgmt') });
const fluxDefault = render({ layout: 'flux', set: set('path=clusters/mgmt') });

test('argocd: one Application per component, sync waves in install order, each valid against the real Application CRD (argo-cd manifests/crds)', async () => {
  const { files } = await argoDefault;
  const objects = wiringObjects(files, 'argocd');
  for (const o of objects) assert.deepEqual(wiringProblems(o), [], `${o.kind} ${o.metadata.name}`);
  const apps = byKind(objects, 'Application').filter((a) => a.metadata.name !== 'capi-gitops');
  assert.deepEqual(
    apps.map((a) => [a.metadata.name, a.metadata.annotations?.['argocd.argoproj.io/sync-wave'], (a.spec as any).source.path]),
    [
      ['capi-gitops-00-cert-manager', '0', 'clusters/mgmt/00-cert-manager'],
      ['capi-gitops-01-cluster-api', '1', 'clusters/mgmt/01-cluster-api'],
      ['capi-gitops-02-bootstrap-kubeadm', '2', 'clusters/mgmt/02-bootstrap-kubeadm'],
      ['capi-gitops-03-control-plane-kubeadm', '2', 'clusters/mgmt/03-control-plane-kubeadm'],
    ],
  );
  for (const app of apps) {
    const spec = app.spec as any;
    assert.equal(spec.source.repoURL, REPO);
    assert.equal(spec.source.targetRevision, 'HEAD');
    assert.deepEqual(spec.syncPolicy.automated, { prune: true, selfHeal: true });
    assert.equal(spec.syncPolicy.retry.limit, 10);
    assert.ok(!spec.syncPolicy.syncOptions.includes('Replace=true'));
    assert.equal(app.metadata.finalizers, undefined, 'no resources finalizer: deleting the wiring never deletes providers');
  }
});

test('argocd: the app-of-apps parent syncs argocd/ and never uses server-side apply (argo-cd #13320)', async () => {
  const { files } = await argoDefault;
  const root = byKind(wiringObjects(files, 'argocd'), 'Application').find((a) => a.metadata.name === 'capi-gitops')!;
  assert.equal((root.spec as any).source.path, 'clusters/mgmt/argocd');
  assert.doesNotMatch(JSON.stringify(root), /ServerSideApply/);
});

test('argocd: the AppProject allows only the repository, the namespaces used and the cluster-scoped kinds the components contain', async () => {
  const { files, components } = await argoDefault;
  const project = byKind(wiringObjects(files, 'argocd'), 'AppProject')[0]!;
  const spec = project.spec as any;
  assert.deepEqual(spec.sourceRepos, [REPO]);
  assert.doesNotMatch(JSON.stringify(spec), /"\*"/);
  const clusterScoped = new Set(
    components.flatMap((c) =>
      c.objects
        .filter((o) => !o.metadata.namespace)
        .map((o) => `${o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : ''}/${o.kind}`),
    ),
  );
  assert.deepEqual(new Set(spec.clusterResourceWhitelist.map((r: any) => `${r.group}/${r.kind}`)), clusterScoped);
  assert.ok(clusterScoped.has('apiextensions.k8s.io/CustomResourceDefinition'));
  const namespaces = new Set(components.flatMap((c) => c.objects.map((o) => o.metadata.namespace).filter(Boolean)));
  assert.deepEqual(new Set(spec.destinations.map((d: any) => d.namespace)), namespaces);
});

test('argocd: every documented value set gives wiring that validates against the real CRDs', async () => {
  const { files } = await render({
    layout: 'argocd',
    set: set(
      `repoURL=${REPO}`,
      'path=mgmt',
      'targetRevision=v1.2.3',
      'releaseName=capi',
      'namespace=gitops',
      'project=platform',
      'createProject=true',
      'destination.name=mgmt-1',
      'root.enabled=true',
      'root.project=platform',
      'syncPolicy.automated.prune=false',
      'syncPolicy.automated.allowEmpty=true',
      'syncPolicy.syncOptions={RespectIgnoreDifferences=true,CreateNamespace=false}',
      'syncPolicy.retry.limit=3',
      'syncPolicy.retry.backoff.duration=5s',
    ),
  });
  const objects = wiringObjects(files, 'argocd');
  for (const o of objects) assert.deepEqual(wiringProblems(o), [], `${o.kind} ${o.metadata.name}`);
  const app = objects.find((o) => o.metadata.name === 'capi-01-cluster-api')!;
  assert.equal(app.metadata.namespace, 'gitops');
  assert.deepEqual((app.spec as any).destination, { name: 'mgmt-1', namespace: 'capi-system' });
  assert.equal((app.spec as any).source.targetRevision, 'v1.2.3');
  assert.equal((app.spec as any).project, 'platform');
});

test('argocd applicationSet: one ApplicationSet with a git directory generator, preserveResourcesOnDeletion, valid against the real CRD (argo-cd applicationset git generator)', async () => {
  const { files } = await render({ layout: 'argocd', set: set(`repoURL=${REPO}`, 'path=clusters/mgmt', 'applicationSet=true') });
  const objects = wiringObjects(files, 'argocd');
  for (const o of objects) assert.deepEqual(wiringProblems(o), [], `${o.kind} ${o.metadata.name}`);
  assert.deepEqual(objects.map((o) => o.kind).sort(), ['AppProject', 'Application', 'ApplicationSet']);
  const appSet = byKind(objects, 'ApplicationSet')[0]!.spec as any;
  assert.equal(appSet.syncPolicy.preserveResourcesOnDeletion, true);
  assert.deepEqual(
    appSet.generators[0].git.directories.map((d: any) => d.path),
    [
      'clusters/mgmt/00-cert-manager',
      'clusters/mgmt/01-cluster-api',
      'clusters/mgmt/02-bootstrap-kubeadm',
      'clusters/mgmt/03-control-plane-kubeadm',
    ],
  );
  assert.equal(appSet.template.spec.source.path, '{{.path.path}}');
  assert.equal(appSet.template.metadata.name, 'capi-gitops-{{.path.basename}}');
});

test('flux: one Kustomization per component, dependsOn following install order, wait, prune, Orphan deletion, no targetNamespace, valid against the real CRD (fluxcd kustomize-controller)', async () => {
  const { files } = await fluxDefault;
  const objects = wiringObjects(files, 'flux');
  for (const o of objects) assert.deepEqual(wiringProblems(o), [], `${o.kind} ${o.metadata.name}`);
  const ks = byKind(objects, 'Kustomization');
  assert.deepEqual(
    ks.map((k) => [k.metadata.name, (k.spec as any).path, ((k.spec as any).dependsOn ?? []).map((d: any) => d.name)]),
    [
      ['capi-gitops-00-cert-manager', './clusters/mgmt/00-cert-manager', []],
      ['capi-gitops-01-cluster-api', './clusters/mgmt/01-cluster-api', ['capi-gitops-00-cert-manager']],
      ['capi-gitops-02-bootstrap-kubeadm', './clusters/mgmt/02-bootstrap-kubeadm', ['capi-gitops-01-cluster-api']],
      ['capi-gitops-03-control-plane-kubeadm', './clusters/mgmt/03-control-plane-kubeadm', ['capi-gitops-01-cluster-api']],
      ['capi-gitops', './clusters/mgmt/flux', []],
    ],
  );
  for (const k of ks.filter((k) => k.metadata.name !== 'capi-gitops')) {
    const spec = k.spec as any;
    assert.equal(spec.wait, true);
    assert.equal(spec.prune, true);
    assert.equal(spec.deletionPolicy, 'Orphan');
    assert.equal(spec.targetNamespace, undefined);
    assert.deepEqual(spec.sourceRef, { kind: 'GitRepository', name: 'flux-system' });
    assert.equal(k.metadata.namespace, 'flux-system');
  }
});

test('flux: the root Kustomization reconciles the flux/ directory, prunes it, orphans on deletion, and can be turned off (fluxcd kustomize-controller)', async () => {
  const root = wiringObjects((await fluxDefault).files, 'flux').find((o) => o.metadata.name === 'capi-gitops')!;
  assert.deepEqual(root.spec, {
    interval: '10m',
    retryInterval: '1m',
    timeout: '5m',
    path: './clusters/mgmt/flux',
    prune: true,
    deletionPolicy: 'Orphan',
    sourceRef: { kind: 'GitRepository', name: 'flux-system' },
  });
  const { files } = await render({ layout: 'flux', set: set('path=clusters/mgmt', 'root.enabled=false') });
  assert.equal(wiringObjects(files, 'flux').filter((o) => o.metadata.name === 'capi-gitops').length, 0);
});

test('flux: gitRepository.url adds a GitRepository the Kustomizations read, valid against the real CRD (fluxcd source-controller)', async () => {
  const { files } = await render({
    layout: 'flux',
    set: set(
      'path=clusters/mgmt',
      'gitRepository.url=https://git.example.com/platform/management.git',
      'gitRepository.ref.branch=release',
      'gitRepository.secretRef.name=git-auth',
      'interval=5m',
      'retryInterval=30s',
      'timeout=10m',
      'namespace=gitops',
      'releaseName=capi',
    ),
  });
  const objects = wiringObjects(files, 'flux');
  for (const o of objects) assert.deepEqual(wiringProblems(o), [], `${o.kind} ${o.metadata.name}`);
  const repo = byKind(objects, 'GitRepository')[0]!;
  assert.deepEqual(repo.spec, {
    interval: '1m',
    url: 'https://git.example.com/platform/management.git',
    ref: { branch: 'release' },
    secretRef: { name: 'git-auth' },
  });
  for (const k of byKind(objects, 'Kustomization')) assert.deepEqual((k.spec as any).sourceRef, { kind: 'GitRepository', name: 'capi' });
});

test(
  'kubectl kustomize builds the kustomize root and each component and wiring directory Argo CD and Flux sync; their roots list the same directories',
  { skip: !kubectlAvailable() && 'kubectl not installed' },
  async () => {
    const kustomize = await render({ layout: 'kustomize' });
    for (const [layout, result] of [
      ['argocd', await argoDefault],
      ['flux', await fluxDefault],
      ['kustomize', kustomize],
    ] as const) {
      const out = path.join(tempDir(), 'out');
      await writeOutput(out, result.files);
      const dirs = new Set([...result.files.keys()].filter((f) => f.endsWith('/kustomization.yaml')).map((f) => path.dirname(f)));
      assert.ok(dirs.size >= (layout === 'kustomize' ? 4 : 5), layout);
      // The kustomize layout's root lists every component directory, so building it builds them
      // all. Argo CD and Flux sync each component directory on its own; their root lists the same
      // directories, holding the same objects with other annotations, so each builds as a whole
      // when its parts and the kustomize root do.
      if (layout !== 'kustomize') assert.equal(result.files.get('kustomization.yaml'), kustomize.files.get('kustomization.yaml'), layout);
      for (const dir of layout === 'kustomize' ? ['.'] : dirs) {
        assert.match(kubectlKustomize(path.join(out, dir)), /^kind: /m, `${layout} ${dir}`);
      }
    }
  },
);

test('every layout gives identical bytes across runs and -f orders', async () => {
  const text = corpusManifest('v1.12.0', 'repository');
  const [providers, config] = [text.slice(0, text.lastIndexOf('---\n')), text.slice(text.lastIndexOf('---\n') + 4)];
  const split = writeTempManifest({ 'a.yaml': providers, 'b.yaml': config });
  const splitReversed = writeTempManifest({ 'b.yaml': providers, 'a.yaml': config });
  for (const layout of ['kustomize', 'argocd', 'flux'] as const) {
    const options = {
      layout,
      set: layout === 'argocd' ? set(`repoURL=${REPO}`, 'path=clusters/mgmt') : layout === 'flux' ? set('path=clusters/mgmt') : [],
    };
    const a = await renderManagementCluster({ manifestPaths: [path.join(split, 'a.yaml'), path.join(split, 'b.yaml')], ...options });
    const b = await renderManagementCluster({
      manifestPaths: [path.join(splitReversed, 'a.yaml'), path.join(splitReversed, 'b.yaml')],
      ...options,
    });
    const c = await renderManagementCluster({ manifestPaths: [path.join(split, 'a.yaml'), path.join(split, 'b.yaml')], ...options });
    assert.deepEqual([...a.files], [...b.files], layout);
    assert.deepEqual([...a.files], [...c.files], layout);
  }
});

test('an upgrade of core v1.10.4 → v1.12.0 leaves byte-identical every object file whose object did not change', async () => {
  const old = await renderManagementCluster({
    manifestPaths: [writeTempManifest({ 'providers.yaml': corpusManifest('v1.10.4', 'repository') })],
  });
  const next = await renderManagementCluster({ manifestPaths: [manifestDir] });
  let unchangedObjects = 0;
  for (const [file, text] of old.files) {
    if (file.endsWith('kustomization.yaml') || !file.endsWith('.yaml') || !next.files.has(file)) continue;
    const after = next.files.get(file)!;
    if (after === text) unchangedObjects++;
    else assert.notEqual(JSON.stringify(YAML.parse(after)), JSON.stringify(YAML.parse(text)), `${file}: same object, different bytes`);
  }
  assert.ok(unchangedObjects >= 10, `expected many unchanged objects, got ${unchangedObjects}`);
  // the version still shows, once per component
  assert.match(next.files.get('01-cluster-api/kustomization.yaml')!, /cluster-api v1\.12\.0 \(sha256:/);
  assert.match(old.files.get('01-cluster-api/kustomization.yaml')!, /cluster-api v1\.10\.4 \(sha256:/);
});

test('the output root has a README naming components, versions, layout and the command, and a .gitattributes folding CRDs', async () => {
  const { files } = await render({
    layout: 'flux',
    set: set('path=clusters/mgmt'),
    command: 'capi-gitops render -f mgmt -o clusters/mgmt --layout flux',
  });
  const readme = files.get('README.md')!;
  assert.match(readme, /Do not edit|do not edit/);
  assert.match(readme, /capi-gitops render -f mgmt -o clusters\/mgmt --layout flux/);
  assert.match(readme, /\| `01-cluster-api\/` \| cluster-api \| v1\.12\.0 \| capi-system \|/);
  assert.match(readme, /Layout: \*\*flux\*\*/);
  assert.doesNotMatch(readme, /\/tmp\//);
  assert.equal(
    files.get('.gitattributes'),
    '# Generated by capi-gitops. Do not edit: the next run replaces this file.\n* -text\n**/crds/** linguist-generated=true\n',
  );
});

test('the wiring path comes from the output directory in its Git repository when gitops.path is unset', async () => {
  const repo = tempDir();
  writeFileSync(path.join(repo, '.git'), 'gitdir: elsewhere\n');
  const { files } = await render({ layout: 'flux', outputDir: path.join(repo, 'clusters', 'eu-1') });
  const ks = wiringObjects(files, 'flux').find((o) => o.metadata.name === 'capi-gitops-01-cluster-api')!;
  assert.equal((ks.spec as any).path, './clusters/eu-1/01-cluster-api');
});

test('flux: a Kustomization name over 63 characters, which kustomize-controller writes as the kustomize.toolkit.fluxcd.io/name label of every object it applies, is refused naming it; the hint followed renders (fluxcd/pkg ssa SetOwnerLabels)', async () => {
  const long = 'capi-gitops-production-eu-west-1-management';
  const error = await rejection(render({ layout: 'flux', set: set('path=clusters/mgmt', `releaseName=${long}`) }));
  const problems = error.diagnostics;
  assert.equal(problems.length, 1, error.message);
  const [problem] = problems;
  assert.equal(problem!.file, 'built-in chart flux: templates/kustomizations.yaml');
  // a built-in chart's template is precompiled: its file is named, with no line to edit
  assert.equal(problem!.path, 'metadata.name');
  assert.match(problem!.message, /capi-gitops-production-eu-west-1-management-03-control-plane-kubeadm/);
  assert.match(problem!.message, /68 characters/);
  const hinted = /--set releaseName=(\S+)/.exec(problem!.hint ?? '')?.[1];
  assert.ok(hinted, problem!.hint);
  const { files } = await render({ layout: 'flux', set: set('path=clusters/mgmt', `releaseName=${hinted}`) });
  for (const object of wiringObjects(files, 'flux')) assert.ok(object.metadata.name!.length <= 63, object.metadata.name);
});

test("argocd: syncPolicy.automated.enabled (automated sync paused, its settings kept) and syncPolicy.retry.refresh (a retry syncs the latest revision), fields of the real Application CRD, are values of the chart's syncPolicy (argo-cd manifests/crds/application-crd.yaml)", async () => {
  const { files } = await render({
    layout: 'argocd',
    set: set(`repoURL=${REPO}`, 'path=mgmt', 'syncPolicy.automated.enabled=false', 'syncPolicy.retry.refresh=true'),
  });
  const objects = wiringObjects(files, 'argocd');
  for (const o of objects) assert.deepEqual(wiringProblems(o), [], `${o.kind} ${o.metadata.name}`);
  const app = objects.find((o) => o.metadata.name === 'capi-gitops-01-cluster-api')!;
  const syncPolicy = (app.spec as { syncPolicy: { automated: unknown; retry: { refresh: unknown } } }).syncPolicy;
  assert.deepEqual(syncPolicy.automated, { prune: true, selfHeal: true, enabled: false });
  assert.equal(syncPolicy.retry.refresh, true);
});

test("flux: every source kind the real Kustomization CRD's sourceRef takes, ExternalArtifact included, is a sourceRef.kind of the chart (fluxcd/kustomize-controller config/crd/bases)", async () => {
  for (const kind of ['GitRepository', 'OCIRepository', 'Bucket', 'ExternalArtifact']) {
    const { files } = await render({ layout: 'flux', set: set('path=clusters/mgmt', `sourceRef.kind=${kind}`, 'sourceRef.name=platform') });
    for (const k of byKind(wiringObjects(files, 'flux'), 'Kustomization')) {
      assert.deepEqual(wiringProblems(k), [], `${kind} ${k.metadata.name}`);
      assert.deepEqual((k.spec as { sourceRef: unknown }).sourceRef, { kind, name: 'platform' });
    }
  }
});

test('flux: Kustomizations in a namespace of their own that read the bootstrap GitRepository flux-system with no sourceRef.namespace are warned: Flux looks for it in their namespace; the hint followed renders without the warning (fluxcd kustomize-controller api/v1 CrossNamespaceSourceReference)', async () => {
  const warnings: Diagnostic[] = [];
  const onWarning = (w: Diagnostic) => warnings.push(w);
  await render({ layout: 'flux', set: set('path=clusters/mgmt', 'namespace=gitops'), onWarning });
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  assert.equal(warnings[0]!.path, 'spec.sourceRef');
  assert.match(
    warnings[0]!.message,
    /^5 Kustomizations read the GitRepository flux-system in their own namespace gitops \(the sourceRef names no namespace\)/,
  );
  const hinted = /--set (sourceRef\.namespace=\S+)/.exec(warnings[0]!.hint ?? '')?.[1];
  assert.equal(hinted, 'sourceRef.namespace=flux-system');
  warnings.length = 0;
  await render({ layout: 'flux', set: set('path=clusters/mgmt', 'namespace=gitops', hinted!), onWarning });
  await render({
    layout: 'flux',
    set: set('path=clusters/mgmt', 'namespace=gitops', 'gitRepository.url=https://git.example.com/x.git'),
    onWarning,
  });
  await fluxDefault;
  assert.deepEqual(warnings, []);
});

test('a path written from the repository root with a leading slash (/clusters/mgmt/) gives the wiring relative paths: Argo CD refuses an absolute source path (argo-cd util/app/path Path: "app path is absolute"), and Flux reads ./clusters/mgmt/…', async () => {
  const argo = wiringObjects((await render({ layout: 'argocd', set: set(`repoURL=${REPO}`, 'path=/clusters/mgmt/') })).files, 'argocd');
  const paths = byKind(argo, 'Application').map((a) => (a.spec as { source: { path: string } }).source.path);
  assert.ok(paths.includes('clusters/mgmt/01-cluster-api') && paths.includes('clusters/mgmt/argocd'), paths.join(', '));
  assert.deepEqual(
    paths.filter((p) => !p.startsWith('clusters/mgmt/')),
    [],
  );
  const flux = wiringObjects((await render({ layout: 'flux', set: set('path=//clusters//mgmt/') })).files, 'flux');
  const fluxPaths = byKind(flux, 'Kustomization').map((k) => (k.spec as { path: string }).path);
  assert.ok(fluxPaths.includes('./clusters/mgmt/01-cluster-api') && fluxPaths.includes('./clusters/mgmt/flux'), fluxPaths.join(', '));
});
