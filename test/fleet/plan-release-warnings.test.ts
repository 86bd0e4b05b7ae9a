/**
 * `plan --release` on the corpus's core and kubeadm releases: what moving to the release warns of
 * (minors skipped) is told by the plan, as the single-cluster plan and the render that follows do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { corpusFleetManifest, writeTempManifest } from '../helpers/corpus-manifest.js';
import { assertNoStackTrace, exampleCopy, runCli } from '../helpers/cli.js';

/** Two clusters on v1.7.7, locked, and releases at v1.10.4 and v1.12.0. */
async function lockedFleet(): Promise<string> {
  const dir = writeTempManifest({
    'providers.yaml': corpusFleetManifest(['eu-1', 'lab-1'], 'r177', { r177: 'v1.7.7', r1104: 'v1.10.4', r1120: 'v1.12.0' }),
  });
  const locked = await runCli(['lock', '-f', '.'], { cwd: dir });
  assert.equal(locked.code, 0, locked.stderr);
  return dir;
}

test('plan --release warns at the release when it moves core and kubeadm more than 3 minors, as render then does (cluster-api cmd/clusterctl/client/cluster/upgrader.go doUpgrade)', async () => {
  const dir = await lockedFleet();
  const skip = await runCli(['plan', '-f', '.', '--release', 'r1120'], { cwd: dir });
  assert.equal(skip.code, 0, skip.stderr);
  assertNoStackTrace(skip);
  assert.match(
    skip.stdout,
    /cluster lab-1: r177 → r1120\n {2}cluster-api \(capi-system\): v1\.7\.7 → v1\.12\.0, contract v1beta1 → v1beta2\n/,
  );
  const warnings = skip.stderr.split('\n').filter((line) => / warning: /.test(line));
  assert.deepEqual(
    warnings.map((line) => line.replace(/^providers\.yaml:\d+:\d+: warning: clusters eu-1, lab-1: (\S+): .*$/, '$1')),
    [
      'CoreProvider/capi-system/cluster-api',
      'BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm',
      'ControlPlaneProvider/capi-kubeadm-control-plane-system/kubeadm',
    ],
    skip.stderr,
  );
  assert.match(skip.stderr, /v1\.7\.7 → v1\.12\.0 skips more than 3 minor versions/);
  // the fleet has a release on the way: the hint names it
  assert.match(skip.stderr, /hint: move to release r1104 first \(CoreProvider\/cluster-api: v1\.10\.4\)/);

  // three minors is within the policy: nothing to warn of
  const within = await runCli(['plan', '-f', '.', '--release', 'r1104'], { cwd: dir });
  assert.equal(within.code, 0, within.stderr);
  assert.doesNotMatch(within.stderr, /warning/);
});

test('plan --release names the contract a move changes, as the single-cluster plan heads a column per contract (cluster-api cmd/clusterctl/client/cluster/upgrader.go Plan: one plan per contract)', async () => {
  const dir = await lockedFleet();
  const plan = await runCli(['plan', '-f', '.', '--release', 'r1120', '--cluster', 'eu-1'], { cwd: dir });
  assert.equal(plan.code, 0, plan.stderr);
  assert.equal(
    plan.stdout,
    'cluster eu-1: r177 → r1120\n' +
      '  cluster-api (capi-system): v1.7.7 → v1.12.0, contract v1beta1 → v1beta2\n' +
      '  bootstrap-kubeadm (capi-kubeadm-bootstrap-system): v1.7.7 → v1.12.0, contract v1beta1 → v1beta2\n' +
      '  control-plane-kubeadm (capi-kubeadm-control-plane-system): v1.7.7 → v1.12.0, contract v1beta1 → v1beta2\n',
  );
  const json = await runCli(['plan', '-f', '.', '--release', 'r1104', '--cluster', 'eu-1', '--json'], { cwd: dir });
  const [core] = (JSON.parse(json.stdout) as { clusters: { moves: Record<string, unknown>[] }[] }).clusters[0]!.moves;
  // within one contract: no contract fields
  assert.deepEqual(core, { cluster: 'eu-1', component: 'cluster-api (capi-system)', from: 'v1.7.7', to: 'v1.10.4' });
  const crossing = await runCli(['plan', '-f', '.', '--release', 'r1120', '--cluster', 'eu-1', '--json'], { cwd: dir });
  const [moved] = (JSON.parse(crossing.stdout) as { clusters: { moves: Record<string, unknown>[] }[] }).clusters[0]!.moves;
  assert.deepEqual([moved?.fromContract, moved?.toContract], ['v1beta1', 'v1beta2']);
});

test('plan --release --cluster warns of the selected clusters only: the others are not moved', async () => {
  const dir = await lockedFleet();
  const plan = await runCli(['plan', '-f', '.', '--release', 'r1120', '--cluster', 'lab-1'], { cwd: dir });
  assert.equal(plan.code, 0, plan.stderr);
  const warnings = plan.stderr.split('\n').filter((line) => / warning: /.test(line));
  assert.equal(warnings.length, 3, plan.stderr);
  for (const line of warnings) assert.match(line, /: warning: cluster lab-1: /);
  assert.doesNotMatch(plan.stderr, /eu-1/);
});

test('plan --release --cluster says what the move would do: a cluster not yet on a deprecated release is not said to run it, and one cluster is not "the clusters"', async () => {
  const dir = writeTempManifest({
    'providers.yaml': corpusFleetManifest(['eu-1', 'lab-1'], 'r177', { r177: 'v1.7.7', r1120: 'v1.12.0' }).replace(
      'metadata: {name: r1120}',
      'metadata: {name: r1120}\ndeprecated: true',
    ),
  });
  assert.equal((await runCli(['lock', '-f', '.'], { cwd: dir })).code, 0);
  const plan = await runCli(['plan', '-f', '.', '--release', 'r1120', '--cluster', 'lab-1'], { cwd: dir });
  assert.equal(plan.code, 0, plan.stderr);
  assert.match(
    plan.stderr,
    /warning: cluster lab-1 would move to release r1120, which is deprecated; plan its move to a current release instead\n/,
  );
  assert.doesNotMatch(plan.stderr, /runs release r1120|the clusters|their entries|move them/);
  assert.match(
    plan.stderr,
    /hint: move to a release with CoreProvider\/cluster-api: v1\.10\.x \(or lower\) first .*named in each cluster's release:\)/,
  );
});

test("plan --release tells a cluster's unsupportedOverrides once, at its line (also with --cluster, which selects by index); it was told again at the Config's first line", async () => {
  const dir = path.join(exampleCopy(), 'management-cluster');
  const config = readFileSync(path.join(dir, 'config.yaml'), 'utf8');
  const fleet = `release: r1
clusters:
- name: eu-1
- name: us-1
  unsupportedOverrides:
    variables: {EXTRA: "1"}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Release
metadata: {name: r1}
providers: {CoreProvider/cluster-api: v0.2.0}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Release
metadata: {name: r2}
providers: {CoreProvider/cluster-api: v0.2.0}
`;
  writeFileSync(path.join(dir, 'config.yaml'), config + fleet);
  const line = config.split('\n').length - 1 + 5;
  for (const args of [[], ['--cluster', 'us-1']]) {
    const plan = await runCli(['plan', '-f', '.', '--release', 'r2', ...args], { cwd: dir });
    assert.equal(plan.code, 0, plan.stderr);
    const told = plan.stderr.split('\n').filter((l) => l.includes('unsupportedOverrides sets'));
    assert.deepEqual(
      told.map((l) => l.replace(/: warning: .*/, '')),
      [`config.yaml:${line + 1}:5`],
      plan.stderr,
    );
  }
});
