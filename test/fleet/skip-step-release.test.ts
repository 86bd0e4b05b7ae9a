/**
 * A move of core and kubeadm by more than 3 minors (cluster-api cmd/clusterctl/client/cluster/upgrader.go
 * doUpgrade refuses it from v1.10): when the fleet already has a Release on the way, the hint
 * names it, so followed literally it is one edit of the cluster's release:.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpusFleetManifest, writeTempManifest } from '../helpers/corpus-manifest.js';
import { runCli } from '../helpers/cli.js';

test('the hint of a move that skips more than 3 minors names the release on the way, when the fleet has one', async () => {
  const dir = writeTempManifest({
    'providers.yaml': corpusFleetManifest(['eu-1'], 'r-1.8', { 'r-1.8': 'v1.8.0', 'r-1.10': 'v1.10.4', 'r-1.12': 'v1.12.0' }),
  });
  const locked = await runCli(['lock', '-f', '.'], { cwd: dir });
  assert.equal(locked.code, 0, locked.stderr);
  const plan = await runCli(['plan', '-f', '.', '--release', 'r-1.12'], { cwd: dir });
  assert.equal(plan.code, 0, plan.stderr);
  assert.match(
    plan.stderr,
    /hint: move to release r-1\.10 first \(CoreProvider\/cluster-api: v1\.10\.4\), named in each cluster's release:, render and roll it out, then move on to r-1\.12/,
  );
});
