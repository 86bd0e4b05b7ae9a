/**
 * `plan --release` on the corpus's core and kubeadm releases: what moving to the release warns of
 * (minors skipped) is told by the plan, as the single-cluster plan and the render that follows do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpusFleetManifest, writeTempManifest } from '../helpers/corpus-manifest.js';
import { assertNoStackTrace, runCli } from '../helpers/cli.js';

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
  assert.match(skip.stdout, /cluster lab-1: r177 → r1120\n {2}cluster-api \(capi-system\): v1\.7\.7 → v1\.12\.0\n/);
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
  assert.match(skip.stderr, /hint: put the clusters on a release with CoreProvider\/cluster-api: v1\.10\.x \(or lower\) first/);

  // three minors is within the policy: nothing to warn of
  const within = await runCli(['plan', '-f', '.', '--release', 'r1104'], { cwd: dir });
  assert.equal(within.code, 0, within.stderr);
  assert.doesNotMatch(within.stderr, /warning/);
});
