/**
 * A fleet's one ApplicationSet holds every cluster's destination, project and prefix in lookups:
 * a change there retargets some clusters' Applications, so the review must name those clusters.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import type { ClusterLeavesFinding, ReviewReport } from '../../src/review/types.js';
import { runCli, exampleCopy } from '../helpers/cli.js';
import { PROJECT_ROOT } from '../helpers/paths.js';

const fleet = (c2: string) => `apiVersion: capi-gitops.dev/v1alpha1
kind: Config
output: {layout: argocd}
gitops: {values: {path: out}, argocd: {values: {applicationSet: true, repoURL: https://git.example.com/fleet.git}}}
clusters:
- name: c1
  argocd: {values: {destination: {name: c1}}}
- name: c2
  argocd: {values: {destination: {name: ${c2}}}}
- name: c3
  argocd: {values: {destination: {name: c3}}}
`;

test("diff names the cluster whose destination changed in the fleet's ApplicationSet, and calls the move out as a warning for that cluster alone", async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const out = path.join(example, 'out');
  const run = async (...args: string[]) => await runCli([...args, '-f', manifest, '-o', out, '--cache-dir', path.join(example, 'cache')]);
  writeFileSync(path.join(manifest, 'fleet.yaml'), fleet('c2'));
  const rendered = await run('render');
  assert.equal(rendered.code, 0, rendered.stderr);
  writeFileSync(path.join(manifest, 'fleet.yaml'), fleet('c2-new'));
  const json = await run('diff', '--format', 'json');
  assert.equal(json.code, 0, json.stderr);
  const report = JSON.parse(json.stdout);
  const set = report.components.find((c: { directory: string }) => c.directory === 'argocd');
  const object = set.kinds[0].objects[0];
  assert.equal(object.kind, 'ApplicationSet');
  assert.deepEqual(object.clusters, ['c2']);
  const moved = report.findings.filter((f: { type: string }) => f.type === 'destination');
  assert.equal(moved.length, 1, json.stdout);
  assert.equal(moved[0].risk, 'warning');
  assert.deepEqual(moved[0].clusters, ['c2']);
  assert.match(moved[0].message, /destination cluster c2: name c2 → c2-new: what it syncs is applied to another cluster/);
  const markdown = await run('diff', '--format', 'markdown');
  assert.match(markdown.stdout, /\| `argocd` \(cluster c2\) \|/);
  const text = await run('diff');
  assert.match(text.stdout, /~ argocd\/capi-gitops-fleet \(clusters c2\)/);
});

const validateJson = new Ajv.default({ allErrors: true, strict: true }).compile(
  JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'schema', 'capi-gitops-diff.schema.json'), 'utf8')),
);

test('a cluster that leaves the fleet is one info call-out: its CRDs stay (the ApplicationSet orphans what its Applications applied: no resources finalizer, preserveResourcesOnDeletion), and its root Application and AppProject, applied by hand, are named to delete by hand (argo-cd applicationset/controllers/applicationset_controller.go)', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const out = path.join(example, 'out');
  const run = async (...args: string[]) => await runCli([...args, '-f', manifest, '-o', out, '--cache-dir', path.join(example, 'cache')]);
  writeFileSync(path.join(manifest, 'fleet.yaml'), fleet('c2'));
  const rendered = await run('render');
  assert.equal(rendered.code, 0, rendered.stderr);
  writeFileSync(path.join(manifest, 'fleet.yaml'), fleet('c2').replace('- name: c2\n  argocd: {values: {destination: {name: c2}}}\n', ''));
  const json = await run('diff', '--format', 'json');
  assert.equal(json.code, 0, json.stderr);
  const report = JSON.parse(json.stdout) as ReviewReport;
  assert.ok(validateJson(report), JSON.stringify(validateJson.errors, null, 2));
  assert.ok(report.components.some((c) => c.directory.startsWith('clusters/c2/') && c.removed > 0));
  assert.deepEqual(
    report.findings.filter((f) => f.risk === 'warning'),
    [],
  );
  assert.deepEqual(
    report.findings.filter((f) => f.type === 'crd'),
    [],
  );
  const leaves = report.findings.filter((f): f is ClusterLeavesFinding => f.type === 'cluster-leaves');
  assert.deepEqual(
    leaves.map((f) => [f.risk, f.component, f.cluster, f.byHand]),
    [['info', 'clusters/c2', 'c2', ['AppProject/argocd/capi-gitops-c2', 'Application/argocd/capi-gitops-c2']]],
  );
  assert.match(
    leaves[0]!.message,
    /^cluster c2 leaves the fleet: its providers, CRDs and Namespaces stay on it, as the fleet's ApplicationSet deletes its Applications, which orphan .*; nothing deletes its wiring \(what clusters\/c2\/argocd held\): delete it by hand, which is safe: the Application has no resources finalizer, so what it applied stays, and the AppProject applies nothing: kubectl delete -n argocd application\.argoproj\.io\/capi-gitops-c2 appproject\.argoproj\.io\/capi-gitops-c2$/,
  );
});
