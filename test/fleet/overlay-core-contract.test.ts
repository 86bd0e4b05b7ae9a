/**
 * A cluster whose overlay holds the core provider back (v1.10.4, contract v1beta1) on a release
 * that moves the kubeadm providers to v1.12.0 (v1beta2): clusterctl's installer refuses the
 * contracts (cluster-api cmd/clusterctl/client/cluster/installer.go Validate). The problem is told
 * at the release's line, which other clusters share: the hint must name the overlay's line, where
 * the cluster's own core version is, so that following it does not change the release for all.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { corpusFleetManifest, writeTempManifest } from '../helpers/corpus-manifest.js';
import { assertNoStackTrace, runCli } from '../helpers/cli.js';

test("a contract the core provider refuses names the overlay line that holds the core back, not only the release's line", async () => {
  const manifest = corpusFleetManifest(['eu-1', 'lab-1'], 'r-1.12', { 'r-1.12': 'v1.12.0' }).replace(
    '  - name: lab-1\n',
    '  - name: lab-1\n    providers:\n      CoreProvider/cluster-api: {spec: {version: v1.10.4}}\n',
  );
  const dir = writeTempManifest({ 'providers.yaml': manifest });
  const run = await runCli(['render', '-f', '.', '-o', 'out'], { cwd: dir });
  assert.equal(run.code, 1, run.stderr);
  assertNoStackTrace(run);
  const lines = readFileSync(path.join(dir, 'providers.yaml'), 'utf8').split('\n');
  const row = lines.findIndex((l) => l.includes('CoreProvider/cluster-api: {spec: {version: v1.10.4}}')) + 1;
  const column = lines[row - 1]!.indexOf('v1.10.4') + 1;
  const hints = run.stderr.split('\n').filter((l) => l.startsWith('  hint: '));
  assert.equal(hints.length, 2, run.stderr);
  for (const hint of hints)
    assert.match(
      hint,
      new RegExp(`or change the core provider's version \\(cluster lab-1's overlay sets it at providers\\.yaml:${row}:${column}\\)$`),
      run.stderr,
    );
});
