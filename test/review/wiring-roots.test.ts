/**
 * A fleet cluster removed or renamed (or a single-cluster tree become a fleet): Git loses its
 * wiring, but the root was applied by hand, so it and what it applied stay in the management
 * cluster; a new cluster's root must be applied once. render says which objects to delete, and
 * that it is safe only when each Kustomization or Application has the guard that keeps what it applied: Flux's
 * `deletionPolicy: Orphan` (fluxcd/kustomize-controller docs/spec/v1/kustomizations.md, Deletion
 * policy), Argo CD's Application without `resources-finalizer.argocd.argoproj.io`
 * (argoproj/argo-cd docs/user-guide/app_deletion.md).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exampleCopy, runCli } from '../helpers/cli.js';
import { wiringRootNotes } from '../../src/review/wiring-roots.js';

const CONFIG = 'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\n';

function fleetExample(config: string): { example: string; fleet: string; run: (...args: string[]) => ReturnType<typeof runCli> } {
  const example = exampleCopy();
  const fleet = path.join(example, 'management-cluster', 'fleet.yaml');
  writeFileSync(fleet, config);
  const run = async (...args: string[]) => await runCli([...args, '-f', 'management-cluster'], { cwd: example });
  return { example, fleet, run };
}

const warnings = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('warning: '));

test('render after a flux fleet cluster is removed and another renamed: one note per cluster gone, naming the kubectl delete of its root and Kustomizations (deletionPolicy Orphan), and the kubectl apply of the new root', async () => {
  const flux = `${CONFIG}output: {layout: flux}\ngitops: {path: out}\nclusters:\n`;
  const { example, fleet, run } = fleetExample(`${flux}- name: c1\n- name: c2\n- name: c3\n`);
  const first = await run('render', '-o', 'out');
  assert.equal(first.code, 0, first.stderr);
  // a first render: nothing else says to apply the roots (the output's README does not); the
  // clusters' notes, alike but for their names, are one
  assert.deepEqual(warnings(first.stderr), [
    "warning: clusters c1–c3 are new in the output: after pushing, apply each one's root Kustomization flux-system/capi-gitops-<cluster> once " +
      '(nothing reconciles it until then): kubectl apply -f out/clusters/<cluster>/flux/kustomization-capi-gitops-<cluster>.yaml',
  ]);

  writeFileSync(fleet, `${flux}- name: c1\n- name: c4\n`);
  assert.equal((await run('lock')).code, 0);
  const render = await run('render', '-o', 'out');
  assert.equal(render.code, 0, render.stderr);
  const notes = warnings(render.stderr);
  assert.equal(notes.length, 3, render.stderr);
  for (const [i, cluster] of ['c2', 'c3'].entries()) {
    const root = `capi-gitops-${cluster}`;
    assert.match(
      notes[i]!,
      new RegExp(`^warning: cluster ${cluster} left the output, but its root Kustomization flux-system/${root} \\(applied by hand\\)`),
    );
    assert.match(notes[i]!, /which is safe: the 6 Kustomizations each have deletionPolicy: Orphan, so what they applied stays: kubectl/);
    const command = notes[i]!.slice(notes[i]!.indexOf('kubectl delete'));
    const kustomization = (name: string) => `kustomization.kustomize.toolkit.fluxcd.io/${name}`;
    // the root first, so it cannot apply a deleted child again
    assert.equal(
      command,
      `kubectl delete -n flux-system ${kustomization(root)} ${['00-cert-manager', '01-cluster-api', '02-bootstrap-example', '03-control-plane-example', '04-infrastructure-example'].map((c) => kustomization(`${root}-${c}`)).join(' ')}`,
    );
  }
  const apply = 'kubectl apply -f out/clusters/c4/flux/kustomization-capi-gitops-c4.yaml';
  assert.match(
    notes[2]!,
    /^warning: cluster c4 is new in the output: after pushing, apply its root Kustomization flux-system\/capi-gitops-c4 once/,
  );
  assert.ok(notes[2]!.endsWith(apply), notes[2]);
  assert.match(readFileSync(path.join(example, apply.split(' ').at(-1)!), 'utf8'), /name: "?capi-gitops-c4"?\n/);

  const again = await run('render', '-o', 'out');
  assert.deepEqual(warnings(again.stderr), [], 'told once, by the render that removed or added them');
});

test("render after a flux fleet cluster with its own GitRepository (gitRepository.url) is removed: the note says which of the listed objects have deletionPolicy: Orphan, and that the GitRepository applies nothing (source-controller's GitRepository has no such field)", async () => {
  const flux = `${CONFIG}output: {layout: flux}\ngitops: {path: out, values: {gitRepository: {url: https://git.example.com/p.git}}}\nclusters:\n`;
  const { fleet, run } = fleetExample(`${flux}- name: c1\n- name: c2\n`);
  assert.equal((await run('render', '-o', 'out')).code, 0);
  writeFileSync(fleet, `${flux}- name: c1\n`);
  assert.equal((await run('lock')).code, 0);
  const render = await run('render', '-o', 'out');
  assert.equal(render.code, 0, render.stderr);
  const [note, ...more] = warnings(render.stderr);
  assert.deepEqual(more, []);
  assert.match(
    note!,
    /, which is safe: the 6 Kustomizations each have deletionPolicy: Orphan, so what they applied stays, and the GitRepository applies nothing: kubectl delete /,
  );
  assert.match(note!, / gitrepository\.source\.toolkit\.fluxcd\.io\/capi-gitops-c2$/);
});

test('render after an Argo CD fleet cluster is removed: the note names its root Application, the component Applications and the AppProject, safe as none has the resources finalizer', async () => {
  const argocd = `${CONFIG}output: {layout: argocd}\ngitops: {path: out, values: {repoURL: https://git.example.com/platform.git}}\nclusters:\n`;
  const { fleet, run } = fleetExample(`${argocd}- name: c1\n- name: c2\n`);
  assert.equal((await run('render', '-o', 'out')).code, 0);
  writeFileSync(fleet, `${argocd}- name: c1\n`);
  assert.equal((await run('lock')).code, 0);
  const render = await run('render', '-o', 'out');
  assert.equal(render.code, 0, render.stderr);
  const [note, ...more] = warnings(render.stderr);
  assert.deepEqual(more, []);
  assert.match(note!, /^warning: cluster c2 left the output, but its root Application argocd\/capi-gitops-c2 \(applied by hand\)/);
  assert.match(
    note!,
    /which is safe: the 6 Applications each have no resources finalizer, so what they applied stays, and the AppProject applies nothing: kubectl/,
  );
  assert.match(
    note!,
    /kubectl delete -n argocd application\.argoproj\.io\/capi-gitops-c2 application\.argoproj\.io\/capi-gitops-c2-00-cert-manager .* appproject\.argoproj\.io\/capi-gitops-c2$/,
  );
});

test("a fleet's first render with one ApplicationSet (applicationSet: true): nothing syncs the output's argocd/, so the notes apply the ApplicationSet too (fleets.md: register it once, with each cluster's root), by a command that works as printed", async () => {
  const argocd = `${CONFIG}output: {layout: argocd}\ngitops: {path: out, values: {repoURL: https://git.example.com/platform.git, applicationSet: true}}\n`;
  const fleetText = `${argocd}clusters:\n- name: c1\n  argocd: {values: {destination: {name: c1}}}\n- name: c2\n  argocd: {values: {destination: {name: c2}}}\n`;
  const { example, fleet, run } = fleetExample(fleetText);
  const render = await run('render', '-o', 'out');
  assert.equal(render.code, 0, render.stderr);
  const notes = warnings(render.stderr);
  assert.equal(notes.length, 2, render.stderr);
  assert.match(notes[0]!, /^warning: clusters c1, c2 are new in the output: after pushing, apply each one's root Application/);
  const apply = 'kubectl apply -f out/argocd/applicationset-capi-gitops-fleet.yaml';
  assert.equal(
    notes[1],
    'warning: argocd/ is new in the output: after pushing, apply its ApplicationSet argocd/capi-gitops-fleet once ' +
      `(nothing syncs argocd/, so no Application it generates exists until then): ${apply}`,
  );
  assert.match(readFileSync(path.join(example, apply.split(' ').at(-1)!), 'utf8'), /kind: ApplicationSet\n/);
  const again = await run('render', '-o', 'out');
  assert.deepEqual(warnings(again.stderr), [], 'told once, by the render that added it');

  // applicationSet turned off: the ApplicationSet applied by hand stays, generating the Applications the clusters' roots now apply too
  writeFileSync(fleet, fleetText.replace(', applicationSet: true', ''));
  const off = await run('render', '-o', 'out');
  assert.equal(off.code, 0, off.stderr);
  assert.deepEqual(warnings(off.stderr), [
    'warning: argocd/ left the output, but its ApplicationSet argocd/capi-gitops-fleet (applied by hand) stays in the management ' +
      "cluster, where it keeps generating the Applications the clusters' roots apply now; delete it there, which is safe: it has " +
      'preserveResourcesOnDeletion, so what its Applications applied stays: kubectl delete -n argocd applicationset.argoproj.io/capi-gitops-fleet',
  ]);
});

test('render of a single-cluster flux output become a fleet: the old root is to be deleted, each cluster root to be applied', async () => {
  const { example, fleet, run } = fleetExample(`${CONFIG}output: {layout: flux}\ngitops: {path: out}\n`);
  assert.equal((await run('render', '-o', 'out')).code, 0);
  writeFileSync(fleet, `${CONFIG}output: {layout: flux}\ngitops: {path: out}\nclusters:\n- name: c1\n- name: c2\n`);
  assert.equal((await run('lock')).code, 0);
  const render = await run('render', '-o', 'out');
  assert.equal(render.code, 0, render.stderr);
  const notes = warnings(render.stderr);
  assert.equal(notes.length, 2, render.stderr);
  assert.match(notes[0]!, /^warning: flux\/ left the output, but its root Kustomization flux-system\/capi-gitops \(applied by hand\)/);
  assert.match(notes[0]!, /kubectl delete -n flux-system kustomization\.kustomize\.toolkit\.fluxcd\.io\/capi-gitops kustomization/);
  // one note for the clusters alike, <cluster> where each one's name goes
  assert.match(notes[1]!, /^warning: clusters c1, c2 are new in the output: /);
  assert.ok(notes[1]!.endsWith('kubectl apply -f out/clusters/<cluster>/flux/kustomization-capi-gitops-<cluster>.yaml'), notes[1]);
  for (const cluster of ['c1', 'c2']) {
    const file = `out/clusters/${cluster}/flux/kustomization-capi-gitops-${cluster}.yaml`;
    assert.ok(existsSync(path.join(example, file)), file);
  }
});

test('a removed root whose Kustomization keeps no deletionPolicy: Orphan (a chart of your own): the note does not call deleting it safe, and names it', () => {
  const root = [
    'apiVersion: kustomize.toolkit.fluxcd.io/v1',
    'kind: Kustomization',
    'metadata: {name: platform-eu, namespace: flux-system}',
    'spec: {path: ./fleet/clusters/eu/flux, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}',
  ].join('\n');
  const notes = wiringRootNotes({
    removed: new Map([['clusters/eu/flux/kustomization-platform-eu.yaml', root]]),
    created: { paths: [], read: () => '' },
    newPaths: new Set(['clusters/us/flux/kustomization-platform-us.yaml']),
    oldPaths: new Set(['clusters/eu/flux/kustomization-platform-eu.yaml', 'clusters/us/flux/kustomization-platform-us.yaml']),
    shown: (file) => file,
  });
  assert.deepEqual(notes, [
    'cluster eu left the output, but its root Kustomization flux-system/platform-eu (applied by hand) stays in the management cluster, ' +
      'failing on a path Git no longer has; delete it there, but deleting Kustomization flux-system/platform-eu deletes what it applied too: ' +
      'kubectl delete -n flux-system kustomization.kustomize.toolkit.fluxcd.io/platform-eu',
  ]);
});

test("a new flux cluster whose root reads the chart's own GitRepository (gitRepository.url): the note applies that GitRepository with the root, which cannot fetch its directory before it exists (fluxcd/kustomize-controller: source not found)", async () => {
  const flux = `${CONFIG}output: {layout: flux}\ngitops: {path: out, flux: {values: {gitRepository: {url: "https://git.example.com/platform.git"}}}}\nclusters:\n`;
  const { example, fleet, run } = fleetExample(`${flux}- name: c1\n`);
  assert.equal((await run('render', '-o', 'out')).code, 0);
  writeFileSync(fleet, `${flux}- name: c1\n- name: c2\n`);
  assert.equal((await run('lock')).code, 0);
  const render = await run('render', '-o', 'out');
  assert.equal(render.code, 0, render.stderr);
  const [note, ...more] = warnings(render.stderr);
  assert.deepEqual(more, []);
  const dir = 'out/clusters/c2/flux';
  assert.ok(note!.endsWith(`kubectl apply -f ${dir}/gitrepository-capi-gitops-c2.yaml -f ${dir}/kustomization-capi-gitops-c2.yaml`), note);
  assert.match(
    readFileSync(path.join(example, dir, 'kustomization-capi-gitops-c2.yaml'), 'utf8'),
    /kind: GitRepository\n\s+name: "?capi-gitops-c2"?\n/,
  );
});
