/**
 * A fleet's clusters share the cache: over a real (loopback) GitHub, each download is stored once
 * and, on the next render, each locked file is read from the cache, checked and decoded once,
 * however many clusters pin it; the two renders give the same bytes.
 */
import { after, test } from 'node:test';
import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FakeGitHub, corpusReleases } from '../helpers/fake-github.js';
import { tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';
import { ArtifactCache } from '../../src/sources/cache.js';
import { renderOutput } from '../../src/app/run.js';
import { lockfilePath, readLockfile, serializeLockfile } from '../../src/resolve/lock/lockfile.js';
import { writeLockfile } from '../../src/resolve/lock/lockfile.js';

const github = await FakeGitHub.start({
  'kubernetes-sigs/cluster-api': corpusReleases(['cluster-api', 'bootstrap-kubeadm', 'control-plane-kubeadm']),
  'cert-manager/cert-manager': [
    {
      tag: 'v1.13.0',
      assets: { 'cert-manager.yaml': readFileSync(path.join(CORPUS_REPOSITORY, 'cert-manager', 'v1.13.0', 'cert-manager.yaml')) },
    },
  ],
});
after(() => github.close());

/** Counts what the clusters ask of the cache. */
class CountingCache extends ArtifactCache {
  readonly gets = new Map<string, number>();
  readonly puts = new Map<string, number>();
  override async getBlob(sha256: string): Promise<Buffer | undefined> {
    this.gets.set(sha256, (this.gets.get(sha256) ?? 0) + 1);
    return super.getBlob(sha256);
  }
  override async putBlob(bytes: Uint8Array): Promise<string> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    this.puts.set(sha256, (this.puts.get(sha256) ?? 0) + 1);
    return super.putBlob(bytes);
  }
}

const FLEET = `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec: {version: v1.12.0}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: BootstrapProvider
metadata: {name: kubeadm, namespace: capi-kubeadm-bootstrap-system}
spec: {version: v1.12.0}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
clusters:
- name: eu-1
  variables: {CLUSTER_TOPOLOGY: "true"}
- name: us-1
  variables: {CLUSTER_TOPOLOGY: "false"}
- name: ap-1
  variables: {CLUSTER_TOPOLOGY: "false"}
`;

/** Renders twice with one cache (the lock written between), counting the cache's work. */
async function twice(fleet: string) {
  const dir = writeTempManifest({ 'fleet.yaml': fleet });
  const cacheDir = path.join(tempDir(), 'cache');
  const render = async () => {
    const cache = new CountingCache(cacheDir);
    const result = await renderOutput({ manifestPaths: [dir], sources: { cache, github: { apiUrl: github.apiUrl } } });
    assert.ok(result.fleet);
    return { result, cache };
  };
  const first = await render();
  await writeLockfile(lockfilePath(dir), first.result.lock.lock);
  const second = await render();
  return { first, second, lock: (await readLockfile(lockfilePath(dir)))! };
}

const sorted = (m: Map<string, number>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

test('three clusters pinning the same files do the cache work of one: each download stored once, each locked file read, checked and decoded once; the same bytes', async () => {
  const three = await twice(FLEET);
  const one = await twice(FLEET.replace(/- name: us-1[\s\S]*$/, ''));
  assert.deepEqual(
    three.lock.entries.map((e) => e.clusters),
    [
      ['ap-1', 'eu-1', 'us-1'],
      ['ap-1', 'eu-1', 'us-1'],
    ],
  );
  assert.ok(three.first.result.fetching.requested >= 3 * three.first.result.fetching.fetched, JSON.stringify(three.first.result.fetching));
  assert.deepEqual(sorted(three.first.cache.puts), sorted(one.first.cache.puts));
  const lockedFiles = [...new Set(three.lock.entries.flatMap((e) => e.files.map((f) => f.sha256)))];
  assert.ok(lockedFiles.length >= 2);
  // the second render serves every locked file from the cache: one read each, as for one cluster
  for (const sha of lockedFiles) assert.equal(three.second.cache.gets.get(sha), 1, sha);
  assert.deepEqual(sorted(three.second.cache.gets), sorted(one.second.cache.gets));
  assert.equal(three.second.cache.puts.size, 0);
  assert.equal(three.second.result.fetching.fetched, 0);
  assert.deepEqual([...three.second.result.files], [...three.first.result.files]);
  assert.equal(serializeLockfile(three.second.result.lock.lock), serializeLockfile(three.first.result.lock.lock));
});
