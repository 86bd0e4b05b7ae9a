/**
 * A release's problem is found twice: by the release's own check and in each cluster on it. It is
 * reported once, at the release's line, naming the clusters it reaches, in the same order every run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exampleCopy, runCli } from '../helpers/cli.js';

// the example's core provider v0.1.0 implements v1beta1; its other providers' v0.2.0, v1beta2
const RELEASES = `apiVersion: capi-gitops.dev/v1alpha1
kind: Release
metadata: {name: "2026.05.0"}
providers:
  CoreProvider/cluster-api: v0.2.0
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Release
metadata: {name: "2026.11.0"}
providers:
  CoreProvider/cluster-api: v0.1.0
  InfrastructureProvider/example: v0.2.0
`;

/** A run's arguments: the manifest and an output beside it (no run here writes one). */
async function run(manifest: string, ...args: string[]) {
  return await runCli(['render', '-f', manifest, '-o', path.join(manifest, '..', 'out'), '--offline', ...args]);
}

function fleet(clusters: string): string {
  const manifest = path.join(exampleCopy(), 'management-cluster');
  rmSync(path.join(manifest, 'capi-gitops.lock.yaml'));
  writeFileSync(path.join(manifest, 'releases.yaml'), RELEASES);
  writeFileSync(
    path.join(manifest, 'fleet.yaml'),
    `apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nrelease: "2026.05.0"\nclusters:\n${clusters}`,
  );
  return manifest;
}

const INFRASTRUCTURE =
  /error: [^\n]*InfrastructureProvider\/capex-system\/example: spec\.version: infrastructure-example v0\.2\.0 implements contract v1beta2/g;

for (const command of [
  ['plan', '--release', '2026.11.0'],
  ['render', '-o'],
]) {
  test(`${command.join(' ')}: a release's contract problem in a cluster on it is reported once, naming the cluster`, async () => {
    const manifest = fleet('- name: lab-1\n  release: "2026.11.0"\n- name: eu-1\n');
    const args = [...command, ...(command[0] === 'render' ? [path.join(manifest, '..', 'out')] : []), '-f', manifest, '--offline'];
    const first = await runCli(args);
    assert.equal(first.code, 1, first.stderr);
    const found = first.stderr.match(INFRASTRUCTURE) ?? [];
    assert.equal(found.length, 1, first.stderr);
    assert.match(found[0]!, /^error: cluster lab-1, release 2026\.11\.0: InfrastructureProvider/);
    assert.match(first.stderr, /releases\.yaml:12:35: error: cluster lab-1, release 2026\.11\.0: InfrastructureProvider/);
    assert.match(first.stderr, /expected: an infrastructure-example release implementing v1beta1/);
    assert.doesNotMatch(first.stderr, /\ba infrastructure-example/);
    // the same bytes every run, whichever check finished first
    assert.equal((await runCli(args)).stderr, first.stderr);
  });
}

test("a release no cluster runs reports its problem once, as the release's; several clusters on it are named together", async () => {
  const unused = await run(fleet('- name: eu-1\n'));
  assert.equal(unused.code, 1, unused.stderr);
  assert.deepEqual(
    unused.stderr.match(INFRASTRUCTURE)?.map((e) => e.split(':')[1]),
    [' release 2026.11.0'],
  );

  const manifest = fleet('- name: lab-1\n  release: "2026.11.0"\n- name: lab-2\n  release: "2026.11.0"\n- name: eu-1\n');
  const shared = await run(manifest);
  assert.equal(shared.code, 1, shared.stderr);
  const found = shared.stderr.match(INFRASTRUCTURE) ?? [];
  assert.equal(found.length, 1, shared.stderr);
  assert.match(found[0]!, /^error: clusters lab-1, lab-2, release 2026\.11\.0: /);
});
