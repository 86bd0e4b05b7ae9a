/**
 * `--offline` tells only what happened: a file is said to be read from the cache once the cache
 * gave it, a listing is looked for there, and a file or listing the cache lacks fails with a hint
 * that, followed literally, fills the cache for the same offline run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/corpus-manifest.js';
import { CORE_MANAGER_DEPLOYMENT, localReleases, serveDirectory } from '../helpers/local-release.js';
import { runCliAsync } from '../helpers/cli.js';

function manifest(serverUrl: string, version = '"~0.1"'): string {
  return `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec: {version: ${version}}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
repositories:
- {name: cluster-api, type: CoreProvider, url: '${serverUrl}/cluster-api/{version}/core-components.yaml', versionsUrl: '${serverUrl}/versions.txt'}
`;
}

test('--offline on an empty cache claims no read it did not make; its hint, followed literally, fills the cache and the offline run then says what it read', async () => {
  const root = tempDir();
  localReleases(
    root,
    'cluster-api',
    'core-components.yaml',
    ['v0.1.0'],
    '- {major: 0, minor: 1, contract: v1beta2}\n',
    () => CORE_MANAGER_DEPLOYMENT,
  );
  writeFileSync(path.join(root, 'versions.txt'), 'v0.1.0\n');
  const server = await serveDirectory(root);
  try {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'providers.yaml'), manifest(server.url));
    const args = ['render', '-f', dir, '-o', path.join(dir, 'out'), '--cache-dir', path.join(dir, 'cache')];

    // an exact version needs no listing: its files are missed, and not said to be read
    const exact = path.join(tempDir(), 'providers.yaml');
    writeFileSync(exact, manifest(server.url, 'v0.1.0'));
    const missed = await runCliAsync(
      ['render', '-f', exact, '-o', path.join(dir, 'exact'), '--offline', '--cache-dir', path.join(dir, 'c')],
      process.env,
    );
    assert.equal(missed.code, 1, missed.stderr);
    assert.match(missed.stderr, /error: .*offline: GET \S+ \(version v0\.1\.0\) is not in the cache/);
    assert.doesNotMatch(missed.stderr, /^read/m);

    // nothing cached: the listing is looked for, not said to be read, and the failure says how to fill the cache
    const empty = await runCliAsync([...args, '--offline'], process.env);
    assert.equal(empty.code, 1, empty.stderr);
    assert.match(
      empty.stderr,
      /^looking in the cache for the versions of http:\/\/127\.0\.0\.1:\d+\/cluster-api\/\{version\}\S* \(--offline\)$/m,
    );
    assert.doesNotMatch(empty.stderr, /^reading /m);
    assert.match(empty.stderr, /error: .*offline: GET http:\/\/127\.0\.0\.1:\d+\/versions\.txt is not in the cache/);
    assert.match(
      empty.stderr,
      /hint: run the same command once without --offline, on a machine with network access, to fill the cache at \S+; then retry/,
    );

    // the hint followed: the same command without --offline, then the offline run passes
    const online = await runCliAsync(args, process.env);
    assert.equal(online.code, 0, online.stderr);
    assert.equal((await runCliAsync([...args, '--offline'], process.env)).code, 0);

    // a file the lock does not pin yet is said to be read from the cache once the cache gave it
    rmSync(path.join(dir, 'capi-gitops.lock.yaml'));
    const cached = await runCliAsync([...args, '--offline'], process.env);
    assert.equal(cached.code, 0, cached.stderr);
    assert.match(
      cached.stderr,
      /^read core-components\.yaml v0\.1\.0 of http:\/\/127\.0\.0\.1:\d+\/\S+ from the cache \(\d+ B, --offline\)$/m,
    );
    assert.doesNotMatch(cached.stderr, /^fetch/m);
  } finally {
    server.close();
  }
});
