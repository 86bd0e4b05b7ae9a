/**
 * A Release is checked as a whole on every run, whether a cluster runs it or not (docs/fleets.md).
 * What that check warns of is the release's: named after it, and with a hint a fleet can follow
 * (a fleet refuses `update`, so "capi-gitops update" is no answer). The core and kubeadm providers
 * are released together (cluster-api docs/book/src/reference/versions.md).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpusFleetManifest, writeTempManifest } from '../helpers/corpus-manifest.js';
import { assertNoStackTrace, runCli } from '../helpers/cli.js';

test('a release that leaves the kubeadm control plane on another minor than its core is warned of as the release, with a hint a fleet can follow', async () => {
  const manifest = `${corpusFleetManifest(['eu-1'], 'r-1.8', { 'r-1.8': 'v1.8.0' })}---
apiVersion: capi-gitops.dev/v1alpha1
kind: Release
metadata: {name: r-next}
providers:
  CoreProvider/cluster-api: v1.12.0
  BootstrapProvider/kubeadm: v1.12.0
`;
  const dir = writeTempManifest({ 'providers.yaml': manifest });
  const run = await runCli(['lock', '-f', '.'], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  assertNoStackTrace(run);
  const warnings = run.stderr.split('\n').filter((l) => / warning: /.test(l));
  assert.equal(warnings.length, 1, run.stderr);
  assert.match(
    warnings[0]!,
    /warning: release r-next: ControlPlaneProvider\/capi-kubeadm-control-plane-system\/kubeadm: spec\.version: control-plane-kubeadm v1\.8\.0 while cluster-api is at v1\.12\.0/,
  );
  assert.doesNotMatch(run.stderr, /capi-gitops update/, run.stderr);
  assert.match(run.stderr, /hint: set it to v1\.12\.0 where cluster-api's version is set \(providers\.yaml:\d+:\d+, release r-next\)/);
});
