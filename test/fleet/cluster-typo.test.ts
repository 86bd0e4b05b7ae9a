/**
 * `--cluster` with a name the fleet does not have: numbered clusters (c01, c02, …) are all one
 * edit apart, so the nearest name by edits alone is often another cluster, not the one meant.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli, exampleCopy } from '../helpers/cli.js';

async function renderCluster(names: string[], wanted: string) {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const list = names.map((n) => `- name: ${n}\n`).join('');
  writeFileSync(path.join(manifest, 'fleet.yaml'), `apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n${list}`);
  const out = path.join(example, 'out');
  return await runCli(['render', '-f', manifest, '-o', out, '--cache-dir', path.join(example, 'cache'), '--cluster', wanted]);
}

test('--cluster c09 after c09 was renamed c09b suggests c09b, not c01 (as near by edits)', async () => {
  const r = await renderCluster(['c01', 'c02', 'c09b'], 'c09');
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /--cluster c09: no such cluster/);
  assert.match(r.stderr, /hint: did you mean --cluster c09b\?/);
});

test('--cluster c4 among c1, c2, c3: no cluster is the likely one, so the hint offers every tie rather than one at random', async () => {
  const r = await renderCluster(['c1', 'c2', 'c3'], 'c4');
  assert.equal(r.code, 1, r.stderr);
  assert.doesNotMatch(r.stderr, /did you mean --cluster c1\?/);
  assert.match(r.stderr, /hint: did you mean --cluster c1, --cluster c2 or --cluster c3\?/);
});

test('--cluster with a plain typo still suggests the one near name', async () => {
  const r = await renderCluster(['eu-1', 'us-1', 'lab-1'], 'lab1');
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /hint: did you mean --cluster lab-1\?/);
});

test("an overlay keyed by a Rancher Turtles CAPIProvider's kind says which keys an overlay takes, and that a CAPIProvider goes by the kind its type stands for", async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  writeFileSync(
    path.join(manifest, 'fleet.yaml'),
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: eu-1\n  providers:\n    CAPIProvider/cluster-api: {spec: {version: v0.1.0}}\n',
  );
  const r = await runCli(['render', '-f', manifest, '-o', path.join(example, 'out'), '--offline']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /fleet\.yaml:6:5: error: cluster eu-1, Config: clusters\[0\]\.providers\["CAPIProvider\/cluster-api"\]: invalid key/,
  );
  assert.match(
    r.stderr,
    /expected: `<Kind>\/<name>`, or `<Kind>\/<namespace>\/<name>` when the name is not unique, Kind one of CoreProvider, /,
  );
  assert.match(r.stderr, /a Rancher Turtles CAPIProvider by the kind its spec\.type stands for \(type: core is CoreProvider\/<its name>\)/);
});
