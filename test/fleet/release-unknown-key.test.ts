/**
 * A Release's provider key that names no provider of the fleet (a typo such as
 * `ControlPlaneProvider/kubeadmm`) pins nothing: the clusters on the release keep the shared
 * manifest's version of the provider it meant. As an overlay's key naming none is told with a
 * suggestion (docs/fleets.md), a release's is warned of at its line, with the key it may mean.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { corpusFleetManifest, writeTempManifest } from '../helpers/corpus-manifest.js';
import { assertNoStackTrace, runCli } from '../helpers/cli.js';

test("a release's provider key that names no provider of the fleet is warned of at its line, with the key it may mean", async () => {
  const manifest = corpusFleetManifest(['eu-1'], 'r-1.10', { 'r-1.10': 'v1.10.4' }).replace(
    'ControlPlaneProvider/kubeadm: v1.10.4',
    'ControlPlaneProvider/kubeadmm: v1.10.4',
  );
  const dir = writeTempManifest({ 'providers.yaml': manifest });
  const run = await runCli(['lock', '-f', '.'], { cwd: dir });
  assertNoStackTrace(run);
  const lines = readFileSync(path.join(dir, 'providers.yaml'), 'utf8').split('\n');
  const row = lines.findIndex((l) => l.includes('ControlPlaneProvider/kubeadmm')) + 1;
  assert.match(
    run.stderr,
    new RegExp(
      `providers\\.yaml:${row}:\\d+: warning: release r-1\\.10: providers\\.ControlPlaneProvider/kubeadmm: names no provider of the fleet, so it pins nothing\\n` +
        "  expected: a provider of the shared manifest or of a cluster's overlay \\(CoreProvider/cluster-api, BootstrapProvider/kubeadm, ControlPlaneProvider/kubeadm\\)\\n" +
        '  hint: did you mean "ControlPlaneProvider/kubeadm"\\?',
    ),
    run.stderr,
  );
});
