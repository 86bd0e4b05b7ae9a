/**
 * `latest` passes over newer releases that publish no metadata.yaml, as clusterctl does
 * (repository_versions.go latestPatchRelease): the resolution says which, so an older release in
 * the lockfile's diff is not a mystery.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/corpus-manifest.js';
import { CORE_MANAGER_DEPLOYMENT, coreManifest, localReleases } from '../helpers/local-release.js';
import { runCli } from '../helpers/cli.js';

test('render with latest says which newer releases it skipped for publishing no metadata.yaml', async () => {
  const root = tempDir();
  const url = localReleases(
    root,
    'cluster-api',
    'core-components.yaml',
    ['v0.1.0', 'v0.2.0'],
    '- {major: 0, minor: 1, contract: v1beta2}\n',
    () => CORE_MANAGER_DEPLOYMENT,
  );
  rmSync(path.join(root, 'cluster-api', 'v0.2.0', 'metadata.yaml'));
  const dir = tempDir();
  writeFileSync(path.join(dir, 'providers.yaml'), coreManifest(url).replace('  version: v0.1.0\n', ''));
  const result = await runCli(['render', '-f', dir, '-o', path.join(dir, 'out')]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^resolved cluster-api v0\.1\.0 \(requested latest\), contract v1beta2, from local$/m);
  assert.match(
    result.stdout,
    /^ {2}cluster-api: v0\.2\.0 skipped: it publishes no metadata\.yaml \(clusterctl skips such releases too\)$/m,
  );
  // --json carries them too (a manifest of its own: the lock now pins v0.1.0, and a pinned release skips nothing)
  const again = tempDir();
  writeFileSync(path.join(again, 'providers.yaml'), coreManifest(url).replace('  version: v0.1.0\n', ''));
  const json = await runCli(['lock', '-f', again, '--json']);
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout).providers[0].skippedReleases, ['v0.2.0']);
});
