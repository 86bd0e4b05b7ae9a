/**
 * Call-outs on the GitOps wiring: a destination that moves the components to another cluster,
 * and a guard against deleting them that is gone. The trees are real renders of a small core
 * release in the argocd and flux layouts, the second side changed as a chart's values or a
 * user's edit would change it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import YAML from 'yaml';
import { renderManagementCluster } from '../../src/app/cluster.js';
import { reviewChanges } from '../../src/review/review.js';
import { formatText } from '../../src/review/format-text.js';
import type { DeletionFinding, DestinationFinding, ReviewReport } from '../../src/review/types.js';
import { CORE_MANAGER_DEPLOYMENT, coreManifest, localCoreRelease } from '../helpers/local-release.js';
import { writeTempManifest } from '../helpers/corpus-manifest.js';
import { PROJECT_ROOT } from '../helpers/paths.js';

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
`;
const url = localCoreRelease(`apiVersion: v1\nkind: Namespace\nmetadata: {name: capi-system}\n---\n${CRD}---\n${CORE_MANAGER_DEPLOYMENT}`);

async function renderWith(layout: 'argocd' | 'flux', values: string): Promise<Map<string, string>> {
  const manifest = coreManifest(
    url,
    `gitops:
  path: clusters/mgmt
  argocd:
    values: {repoURL: "https://git.example.com/platform.git"${values}}
`,
  );
  const dir = writeTempManifest({ 'providers.yaml': manifest });
  return (await renderManagementCluster({ manifestPaths: [path.join(dir, 'providers.yaml')], layout })).files;
}

/** `files` with the file whose name contains `name` edited as YAML. */
function edited(files: Map<string, string>, name: string, edit: (o: Record<string, any>) => void): Map<string, string> {
  const file = [...files.keys()].find((f) => f.includes(name));
  assert.ok(file, `${name} in ${[...files.keys()].join(', ')}`);
  const object = YAML.parse(files.get(file)!);
  edit(object);
  return new Map([...files, [file, YAML.stringify(object)]]);
}

const validateJson = new Ajv.default({ allErrors: true, strict: true }).compile(
  JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'schema', 'capi-gitops-diff.schema.json'), 'utf8')),
);

function review(before: Map<string, string>, after: Map<string, string>): ReviewReport {
  const report = reviewChanges({ label: 'before', files: before }, { label: 'after', files: after });
  assert.ok(validateJson(JSON.parse(JSON.stringify(report))), JSON.stringify(validateJson.errors, null, 2));
  return report;
}

const of = <T extends 'destination' | 'deletion'>(report: ReviewReport, type: T) =>
  report.findings.filter((f) => f.type === type) as (T extends 'destination' ? DestinationFinding : DeletionFinding)[];

test('argocd: an Application whose destination names another cluster is a warning with both names; a namespace alone is info (argo-cd pkg/apis/application/v1alpha1 ApplicationDestination)', async () => {
  const before = await renderWith('argocd', ', destination: {name: mgmt-a}');
  const after = await renderWith('argocd', ', destination: {name: mgmt-b}');
  const report = review(before, after);
  const [moved] = of(report, 'destination');
  assert.equal(of(report, 'destination').length, 1, formatText(report));
  assert.equal(moved!.risk, 'warning');
  assert.equal(moved!.object, 'Application/argocd/capi-gitops-01-cluster-api');
  assert.match(moved!.message, /destination name mgmt-a → mgmt-b: what it syncs is applied to another cluster/);
  assert.equal(moved!.from, 'name mgmt-a, namespace capi-system');
  assert.match(formatText(report), /risk: 1 risky change: 1 destination changed/);

  const namespaced = review(
    before,
    edited(before, 'application-capi-gitops-01', (app) => (app.spec.destination.namespace = 'capi-elsewhere')),
  );
  assert.deepEqual(
    of(namespaced, 'destination').map((f) => [f.risk, f.message]),
    [
      [
        'info',
        'Application/argocd/capi-gitops-01-cluster-api: destination namespace capi-system → capi-elsewhere: objects without a namespace of their own are applied to another namespace',
      ],
    ],
  );
});

test("argocd: a CRD or Namespace that loses Prune=false,Delete=false, and an Application that gains Argo CD's resources finalizer, are warnings (argo-cd docs sync-options, common.ResourcesFinalizerName)", async () => {
  const before = await renderWith('argocd', '');
  const unguarded = edited(
    before,
    'customresourcedefinition-widgets',
    (crd) => delete crd.metadata.annotations['argocd.argoproj.io/sync-options'],
  );
  const report = review(
    before,
    edited(unguarded, 'application-capi-gitops-01', (app) => (app.metadata.finalizers = ['resources-finalizer.argocd.argoproj.io'])),
  );
  const gone = of(report, 'deletion');
  assert.deepEqual(
    gone.map((f) => [f.risk, f.guard, f.object]),
    [
      ['warning', 'sync-options', 'CustomResourceDefinition/widgets.example.com'],
      ['warning', 'finalizer', 'Application/argocd/capi-gitops-01-cluster-api'],
    ],
    formatText(report),
  );
  assert.match(gone[0]!.message, /Prune=false,Delete=false is gone: .* every object of its kind/);
  assert.match(gone[1]!.message, /resources finalizer added: deleting the Application now deletes what it applied/);
});

test('flux: a Kustomization moved to another kubeConfig, one whose deletionPolicy leaves Orphan, and a CRD without kustomize.toolkit.fluxcd.io/prune: disabled are warnings (fluxcd kustomize-controller api/v1 KustomizationSpec)', async () => {
  const before = await renderWith('flux', '');
  let after = edited(before, 'kustomization-capi-gitops-01', (k) => {
    k.spec.kubeConfig = { secretRef: { name: 'mgmt-b-kubeconfig' } };
    k.spec.deletionPolicy = 'Delete';
  });
  after = edited(after, 'customresourcedefinition-widgets', (crd) => delete crd.metadata.annotations['kustomize.toolkit.fluxcd.io/prune']);
  const report = review(before, after);
  assert.deepEqual(
    report.findings.filter((f) => f.type === 'destination' || f.type === 'deletion').map((f) => [f.type, f.risk, f.object]),
    [
      ['deletion', 'warning', 'CustomResourceDefinition/widgets.example.com'],
      ['deletion', 'warning', 'Kustomization/flux-system/capi-gitops-01-cluster-api'],
      ['destination', 'warning', 'Kustomization/flux-system/capi-gitops-01-cluster-api'],
    ],
    formatText(report),
  );
  assert.match(of(report, 'destination')[0]!.message, /kubeConfig \(unset\) → \{"secretRef":\{"name":"mgmt-b-kubeconfig"\}\}/);
  assert.match(
    of(report, 'deletion')[1]!.message,
    /deletionPolicy: Orphan is gone: deleting the Kustomization now deletes what it applied/,
  );
});

test("a CRD that trades Flux's prune: disabled for Argo CD's Prune=false,Delete=false (a move from --layout flux to argocd) is still guarded: no deletion call-out", async () => {
  const before = await renderWith('flux', '');
  const moved = edited(before, 'customresourcedefinition-widgets', (crd) => {
    delete crd.metadata.annotations['kustomize.toolkit.fluxcd.io/prune'];
    crd.metadata.annotations['argocd.argoproj.io/sync-options'] = 'Prune=false,Delete=false';
  });
  assert.deepEqual(of(review(before, moved), 'deletion'), []);
});

test('a re-render with the same wiring has no wiring call-out', async () => {
  const files = await renderWith('argocd', ', destination: {name: mgmt-a}');
  const report = review(
    files,
    edited(files, 'deployment-capi-controller-manager', (d) => (d.spec.replicas = 2)),
  );
  assert.deepEqual(
    report.findings.map((f) => f.type),
    ['replicas'],
  );
});

test("a component removed with the Application or Kustomization that synced it is a warning that it stays installed: the wiring is deleted with deletionPolicy: Orphan or without Argo CD's resources finalizer, so nothing it applied is deleted (fluxcd kustomize-controller Deletion policy, argo-cd docs app_deletion.md)", async () => {
  for (const [layout, guard] of [
    ['flux', /Kustomization flux-system\/capi-gitops-01-cluster-api is deleted with deletionPolicy: Orphan/],
    ['argocd', /Application argocd\/capi-gitops-01-cluster-api is deleted with no resources finalizer/],
  ] as const) {
    const before = await renderWith(layout, '');
    const after = new Map([...before].filter(([file]) => !file.startsWith('01-cluster-api/') && !file.includes('-01-cluster-api.yaml')));
    const report = review(before, after);
    const removed = report.findings.find((f) => f.type === 'version' && f.component === '01-cluster-api')!;
    assert.equal(removed.risk, 'warning', formatText(report));
    assert.match(removed.message, /^cluster-api v0\.1\.0 removed: /);
    assert.match(formatText(report), /risk: \d+ risky changes: .*1 removed, stays installed/);
    assert.match(removed.message, guard);
    assert.match(
      removed.message,
      /nothing it applied is deleted: the provider stays installed, its controllers running; to uninstall it, delete its objects listed under 01-cluster-api by hand$/,
    );
  }
});
