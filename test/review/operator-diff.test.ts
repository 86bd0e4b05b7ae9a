/**
 * `diff` in the operator layout: core and kubeadm v1.10.4 → v1.12.0 from the corpus, rendered by
 * the layout itself (with the stand-in operator release of test/fixtures/operator-release). The
 * objects the operator applies are the artifact text in each ConfigMap's `components`
 * (cluster-api-operator internal/controller/manifests_downloader.go), gzipped in
 * `binaryData.components` when large: core v1.12.0 is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { renderManagementCluster } from '../../src/app/cluster.js';
import { reviewChanges } from '../../src/review/review.js';
import type { CapiGitopsError } from '../../src/core/diagnostics.js';
import { formatText } from '../../src/review/format-text.js';
import type { CrdFinding, ReviewReport } from '../../src/review/types.js';
import { corpusManifest, tempDir } from '../helpers/corpus-manifest.js';
import { FIXTURES, PROJECT_ROOT } from '../helpers/paths.js';

const OPERATOR_RELEASE = path.join(FIXTURES, 'operator-release', 'v0.28.0', 'operator-components.yaml');

async function renderTree(version: string, layout: 'operator' | 'kustomize' = 'operator'): Promise<Map<string, string>> {
  const dir = tempDir();
  writeFileSync(
    path.join(dir, 'm.yaml'),
    corpusManifest(version).replace('certManager:', `operator:\n  url: ${OPERATOR_RELEASE}\ncertManager:`),
  );
  const result = await renderManagementCluster({
    manifestPaths: [dir],
    layout,
    command: 'capi-gitops render -f m.yaml -o out',
  });
  return result.files;
}

const [before, after] = [await renderTree('v1.10.4'), await renderTree('v1.12.0')];
const report = reviewChanges({ label: 'v1.10.4', files: before }, { label: 'v1.12.0', files: after });

const diffSchema = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'schema', 'capi-gitops-diff.schema.json'), 'utf8'));
const validateJson = new Ajv.default({ allErrors: true, strict: true }).compile(diffSchema);

function crd(r: ReviewReport, name: string): CrdFinding | undefined {
  return r.findings.find((f): f is CrdFinding => f.type === 'crd' && f.object === `CustomResourceDefinition/${name}`);
}

test('operator layout: one component row and one version finding per provider, named and versioned by its ConfigMap labels, in install order (core first)', () => {
  assert.ok(after.get('02-providers/configmap-core-cluster-api-v1.12.0.yaml')?.includes('provider.cluster.x-k8s.io/compressed: "true"'));
  const rows = report.components.filter((c) => c.directory.startsWith('02-providers'));
  assert.deepEqual(
    rows.map((c) => [c.directory, c.name, c.oldVersion, c.newVersion]),
    [
      ['02-providers/core-cluster-api', 'cluster-api', 'v1.10.4', 'v1.12.0'],
      ['02-providers/bootstrap-kubeadm', 'bootstrap-kubeadm', 'v1.10.4', 'v1.12.0'],
      ['02-providers/control-plane-kubeadm', 'control-plane-kubeadm', 'v1.10.4', 'v1.12.0'],
    ],
  );
  const versions = report.findings.filter((f) => f.type === 'version');
  assert.deepEqual(
    versions.map((f) => [f.message, f.file]),
    [
      ['cluster-api upgraded v1.10.4 → v1.12.0', '02-providers/configmap-core-cluster-api-v1.12.0.yaml'],
      ['bootstrap-kubeadm upgraded v1.10.4 → v1.12.0', '02-providers/configmap-bootstrap-kubeadm-v1.12.0.yaml'],
      ['control-plane-kubeadm upgraded v1.10.4 → v1.12.0', '02-providers/configmap-control-plane-kubeadm-v1.12.0.yaml'],
    ],
  );
  // the ConfigMap and the provider object are the provider's, not a component of their own
  const core = rows.find((c) => c.name === 'cluster-api')!;
  assert.deepEqual(
    core.kinds
      .filter((k) => k.kind === 'ConfigMap' || k.kind === 'CoreProvider')
      .flatMap((k) => k.objects.map((o) => `${o.change} ${o.name}`)),
    ['removed core-cluster-api-v1.10.4', 'added core-cluster-api-v1.12.0', 'changed cluster-api'],
  );
  assert.ok(validateJson(JSON.parse(JSON.stringify(report))), JSON.stringify(validateJson.errors, null, 2));
});

test('operator layout: the contract each provider moves to is read from its ConfigMap metadata, with no render beside the trees (diff --from --to)', () => {
  assert.deepEqual(
    report.findings.filter((f) => f.type === 'contract').map((f) => [f.component, f.from, f.to, f.risk]),
    [
      ['02-providers/core-cluster-api', 'v1beta1', 'v1beta2', 'info'],
      ['02-providers/bootstrap-kubeadm', 'v1beta1', 'v1beta2', 'info'],
      ['02-providers/control-plane-kubeadm', 'v1beta1', 'v1beta2', 'info'],
    ],
  );
});

test('operator layout: the call-outs are those of the artifacts the operator applies (storage flips of core, gzipped, and kubeadm), as in the other layouts', () => {
  const clusters = crd(report, 'clusters.cluster.x-k8s.io');
  assert.ok(clusters, 'the core CRD, read from the gzipped binaryData.components');
  assert.equal(clusters.risk, 'warning');
  assert.deepEqual(clusters.storage, [{ version: 'v1beta1', from: true, to: false }]);
  assert.equal(clusters.component, '02-providers/core-cluster-api');
  assert.equal(clusters.file, '02-providers/configmap-core-cluster-api-v1.12.0.yaml');
  assert.equal(crd(report, 'kubeadmconfigs.bootstrap.cluster.x-k8s.io')?.risk, 'warning');
  const storageFlips = report.findings.filter((f) => f.type === 'crd' && f.storage.length > 0).length;
  assert.equal(storageFlips, 17);
  assert.ok(report.findings.some((f) => f.type === 'image' && f.component === '02-providers/core-cluster-api'));
  // the provider's Namespace is the tree's own: no error for the one its artifact holds too
  assert.equal(report.summary.risk, 'warning');
  assert.match(formatText(report), /^cluster-api v1\.10\.4 → v1\.12\.0 {2}\(02-providers\/core-cluster-api: /m);
});

test('a switch from the kustomize layout to the operator layout: each provider continues at its version in its new place, and the CRDs the operator now applies have lost no guard of the wiring', async () => {
  const kustomize = await renderTree('v1.12.0', 'kustomize');
  assert.match(kustomize.get('01-cluster-api/crds/customresourcedefinition-clusters.cluster.x-k8s.io.yaml')!, /Prune=false/);
  const switched = reviewChanges({ label: 'kustomize', files: kustomize }, { label: 'operator', files: after });
  assert.deepEqual(
    switched.findings.filter((f) => f.type === 'version').map((f) => f.message),
    ['cluster-api-operator v0.28.0 added'],
  );
  const rows = (directory: string) => switched.components.find((c) => c.directory === directory);
  assert.deepEqual([rows('01-cluster-api')?.oldVersion, rows('01-cluster-api')?.newVersion], ['v1.12.0', 'v1.12.0']);
  assert.deepEqual(
    [rows('02-providers/core-cluster-api')?.oldVersion, rows('02-providers/core-cluster-api')?.newVersion],
    ['v1.12.0', 'v1.12.0'],
  );
  // Argo CD and Flux no longer apply the CRDs: the operator does, from the ConfigMap
  assert.deepEqual(
    switched.findings.filter((f) => f.type === 'deletion'),
    [],
  );
  assert.equal(crd(switched, 'clusters.cluster.x-k8s.io'), undefined, 'the same CRD, applied by the operator');
});

test('an artifact ConfigMap edited by hand so that its components no longer read: an error at its components key, with the fix', () => {
  const file = '02-providers/configmap-core-cluster-api-v1.12.0.yaml';
  const text = after.get(file)!;
  const edited = new Map(after).set(file, text.replace(/^( {2}components: )\S{4}/m, '$1AAAA'));
  const line = text.split('\n').findIndex((l) => /^ {2}components: /.test(l)) + 1;
  assert.ok(line > 1);
  assert.throws(
    () => reviewChanges({ label: 'before', files: before }, { label: 'after', files: edited }),
    (err: CapiGitopsError) => {
      assert.deepEqual(
        err.diagnostics.map((d) => [d.file, d.line, d.column, d.path, d.message]),
        [[file, line, 3, 'binaryData.components', 'cannot be gunzipped: incorrect header check']],
      );
      assert.match(err.diagnostics[0]!.hint!, /render again/);
      return true;
    },
  );
});
