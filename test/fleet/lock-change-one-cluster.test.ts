/**
 * The lockfile's changes are told named after the clusters they concern, as their resolutions
 * are (`cluster lab-1 (release …)`, `clusters eu-1, us-1 …`): a change of one cluster is
 * `cluster lab-1: …`, not a bare name that reads like a component.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { corpusFleetManifest, writeTempManifest } from '../helpers/corpus-manifest.js';
import { runCli } from '../helpers/cli.js';

test("a lock change of one cluster is named 'cluster <name>', as several are 'clusters <names>'", async () => {
  const dir = writeTempManifest({
    'providers.yaml': corpusFleetManifest(['eu-1', 'lab-1'], 'r-1.8', { 'r-1.8': 'v1.8.0', 'r-1.10': 'v1.10.4' }),
  });
  assert.equal((await runCli(['lock', '-f', '.'], { cwd: dir })).code, 0);
  const file = path.join(dir, 'providers.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('  - name: lab-1\n', '  - name: lab-1\n    release: r-1.10\n'));
  const run = await runCli(['lock', '-f', '.'], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stdout,
    /^ {2}cluster lab-1: ~ cluster-api v1\.8\.0 → v1\.10\.4: requested version "v1\.8\.0" → "v1\.10\.4"$/m,
    run.stdout,
  );
});
