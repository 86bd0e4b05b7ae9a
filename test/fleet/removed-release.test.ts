/**
 * A Release removed while clusters still run it: the hint must not send them to a release named
 * alike that moves their locked providers down (Cluster API does not support downgrades: the
 * operator's internal/controller/preflight_checks.go checkProviderVersion refuses them), and must
 * work when followed literally.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { corpusFleetManifest, writeTempManifest } from '../helpers/corpus-manifest.js';
import { assertNoStackTrace, runCli } from '../helpers/cli.js';

/** eu-1 on the default release, lab-1 on its own: both r-1.12 (v1.12.0), locked; r-1.10 (v1.10.4) beside it. */
async function lockedFleet(): Promise<{ dir: string; withRelease: string }> {
  const withRelease = corpusFleetManifest(['eu-1', 'lab-1'], 'r-1.12', { 'r-1.10': 'v1.10.4', 'r-1.12': 'v1.12.0' }).replace(
    '  - name: lab-1\n',
    '  - name: lab-1\n    release: r-1.12\n',
  );
  const dir = writeTempManifest({ 'providers.yaml': withRelease });
  const locked = await runCli(['lock', '-f', '.'], { cwd: dir });
  assert.equal(locked.code, 0, locked.stderr);
  return { dir, withRelease };
}

test('a removed release that clusters still run is not answered with a similar name that downgrades them', async () => {
  const { dir, withRelease } = await lockedFleet();
  const [head] = withRelease.split(/\n---\napiVersion: capi-gitops\.dev\/v1alpha1\nkind: Release\nmetadata: \{name: r-1\.12\}/);
  writeFileSync(path.join(dir, 'providers.yaml'), head!);
  const run = await runCli(['render', '-f', '.', '-o', 'out'], { cwd: dir });
  assert.equal(run.code, 1, run.stderr);
  assertNoStackTrace(run);
  assert.doesNotMatch(run.stderr, /did you mean "r-1\.10"/, run.stderr);
  const errors = run.stderr.split('\n').filter((line) => / error: /.test(line));
  assert.equal(errors.length, 2, run.stderr);
  for (const cluster of ['eu-1', 'lab-1']) {
    const at = run.stderr.indexOf(`error: cluster ${cluster}`);
    assert.ok(at >= 0, run.stderr);
    const hint = run.stderr.slice(at).split('\n')[2]!;
    assert.match(hint, /hint: .*put the kind: Release document r-1\.12 back/, run.stderr);
    assert.match(hint, /CoreProvider\/cluster-api at v1\.12\.0/, run.stderr);
    assert.match(hint, /r-1\.10 would downgrade it to v1\.10\.4/, run.stderr);
  }

  // followed literally (the document put back), the run renders, and nothing moved
  writeFileSync(path.join(dir, 'providers.yaml'), withRelease);
  const again = await runCli(['render', '-f', '.', '-o', 'out'], { cwd: dir });
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stderr, /warning/);
});

test('a release name mistyped is still answered with the release named alike when that moves nothing down', async () => {
  const { dir, withRelease } = await lockedFleet();
  writeFileSync(path.join(dir, 'providers.yaml'), withRelease.replace('    release: r-1.12\n', '    release: r-1.13\n'));
  const run = await runCli(['render', '-f', '.', '-o', 'out'], { cwd: dir });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /error: cluster lab-1: clusters\[1\]\.release: release "r-1\.13" is not in the input/);
  assert.match(run.stderr, /hint: did you mean "r-1\.12"\?/);
});
