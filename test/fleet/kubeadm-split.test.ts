/**
 * A fleet cluster whose core provider an overlay moves off its kubeadm providers' minor: the
 * warning's hint says where a fleet sets versions, not `update`, which works on a single cluster.
 */
import { test } from 'node:test';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { corpusFleetManifest, writeTempManifest } from '../helpers/corpus-manifest.js';
import { runCli } from '../helpers/cli.js';

test("a fleet's kubeadm providers left on another minor than the core are hinted at the cluster's release or overlay, not at update (which refuses a fleet); the hint followed ends the warning (Cluster API docs/book/src/reference/versions.md: released together)", async () => {
  const fleet = corpusFleetManifest(['eu-1', 'lab-1'], 'r177', { r177: 'v1.7.7' });
  const overlay = (versions: string) => fleet.replace('  - name: lab-1\n', `  - name: lab-1\n    providers:\n${versions}`);
  const dir = writeTempManifest({ 'providers.yaml': fleet });
  assert.equal((await runCli(['lock', '-f', '.'], { cwd: dir })).code, 0);

  const core = '      CoreProvider/cluster-api: {spec: {version: v1.8.0}}\n';
  writeFileSync(path.join(dir, 'providers.yaml'), overlay(core));
  const split = await runCli(['lock', '-f', '.'], { cwd: dir });
  assert.equal(split.code, 0, split.stderr);
  const hints = split.stderr.split('\n').filter((line) => line.trimStart().startsWith('hint:'));
  assert.equal(hints.length, 2, split.stderr);
  for (const hint of hints) {
    assert.doesNotMatch(hint, /capi-gitops update/);
    assert.match(
      hint,
      /set it to v1\.8\.0 where cluster-api's version is set \(providers\.yaml:\d+:\d+\): a fleet's versions move in its releases and overlays/,
    );
  }

  // followed: the cluster's overlay moves the kubeadm providers with the core
  const kubeadm =
    '      BootstrapProvider/kubeadm: {spec: {version: v1.8.0}}\n      ControlPlaneProvider/kubeadm: {spec: {version: v1.8.0}}\n';
  writeFileSync(path.join(dir, 'providers.yaml'), overlay(core + kubeadm));
  const together = await runCli(['lock', '-f', '.'], { cwd: dir });
  assert.equal(together.code, 0, together.stderr);
  assert.doesNotMatch(together.stderr, /released together/);
});
