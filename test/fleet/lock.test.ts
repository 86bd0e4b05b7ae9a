/**
 * A fleet's lockfile: entries carry the clusters they pin; one component may have one entry per
 * set of clusters, never two for one cluster.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLockfile, serializeLockfile } from '../../src/resolve/lock/lockfile.js';
import { type LockEntry } from '../../src/resolve/lock/types.js';
import { clusterLockView, mergeClusterLocks } from '../../src/resolve/lock/fleet.js';
import { throwsDiagnostics } from '../helpers/assertions.js';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { corpusFleetManifest, writeTempManifest } from '../helpers/corpus-manifest.js';
import { runCli } from '../helpers/cli.js';

const SHA = (c: string) => c.repeat(64);

function entry(version: string, sha: string, clusters?: string[]): LockEntry {
  return {
    kind: 'CoreProvider',
    name: 'cluster-api',
    namespace: 'capi-system',
    ...(clusters ? { clusters } : {}),
    requestedVersion: version,
    version,
    contract: 'v1beta2',
    source: { type: 'url', url: 'https://github.com/kubernetes-sigs/cluster-api/releases/latest/core-components.yaml' },
    files: [{ name: 'core-components.yaml', url: `https://example.invalid/${version}/core-components.yaml`, sha256: SHA(sha) }],
  };
}

test('identical entries of several clusters are merged into one; each cluster reads back its own', () => {
  const lock = mergeClusterLocks(
    new Map([
      ['us-1', { apiVersion: 'capi-gitops.dev/v1alpha1', kind: 'Lock', entries: [entry('v1.12.0', 'a')] }],
      ['eu-1', { apiVersion: 'capi-gitops.dev/v1alpha1', kind: 'Lock', entries: [entry('v1.12.0', 'a')] }],
      ['old-1', { apiVersion: 'capi-gitops.dev/v1alpha1', kind: 'Lock', entries: [entry('v1.10.4', 'b')] }],
    ]),
  );
  assert.deepEqual(
    lock.entries.map((e) => [e.version, e.clusters]),
    [
      ['v1.12.0', ['eu-1', 'us-1']],
      ['v1.10.4', ['old-1']],
    ],
  );
  const text = serializeLockfile(lock);
  assert.deepEqual(parseLockfile(text, 'capi-gitops.lock.yaml'), lock);
  assert.deepEqual(clusterLockView(lock, 'old-1')!.entries, [entry('v1.10.4', 'b')]);
  assert.deepEqual(clusterLockView(lock, 'eu-1')!.entries, [entry('v1.12.0', 'a')]);
  // a single cluster's lock (no clusters field) pins every cluster of a new fleet
  assert.deepEqual(
    clusterLockView({ apiVersion: 'capi-gitops.dev/v1alpha1', kind: 'Lock', entries: [entry('v1.12.0', 'a')] }, 'eu-1')!.entries,
    [entry('v1.12.0', 'a')],
  );
});

test('a lockfile pinning one component twice for one cluster is refused at the second entry', () => {
  const twice = serializeLockfile({ entries: [entry('v1.12.0', 'a', ['eu-1', 'us-1']), entry('v1.10.4', 'b', ['old-1', 'us-1'])] });
  const error = throwsDiagnostics(() => parseLockfile(twice, 'capi-gitops.lock.yaml'));
  assert.equal(error.diagnostics.length, 1);
  assert.match(error.diagnostics[0]!.message, /CoreProvider capi-system\/cluster-api appears twice for one cluster/);
  assert.equal(
    error.diagnostics[0]!.line,
    twice.split('\n').findIndex((l, i, all) => l === '  - kind: CoreProvider' && all.slice(0, i).includes('  - kind: CoreProvider')) + 1,
  );
  const empty = serializeLockfile({ entries: [entry('v1.12.0', 'a', ['eu-1'])] })
    .replace('      - eu-1\n', '')
    .replace('clusters:\n', 'clusters: []\n');
  assert.match(throwsDiagnostics(() => parseLockfile(empty, 'capi-gitops.lock.yaml')).message, /expected at least one cluster name/);
});

test('lock of a fleet tells a lockfile change several clusters make alike once, naming them; --json names the cluster of each change (identical, anonymous changes before)', async () => {
  const dir = writeTempManifest({
    'providers.yaml': corpusFleetManifest(['ap-1', 'eu-1', 'lab-1'], 'r177', { r177: 'v1.7.7', r1104: 'v1.10.4' }),
  });
  assert.equal((await runCli(['lock', '-f', '.'], { cwd: dir })).code, 0);
  const locked = readFileSync(path.join(dir, 'capi-gitops.lock.yaml'), 'utf8');
  const file = path.join(dir, 'providers.yaml');
  // every cluster but lab-1 moves to r1104
  writeFileSync(
    file,
    readFileSync(file, 'utf8')
      .replace('release: r177\n', 'release: r1104\n')
      .replace('  - name: lab-1\n', '  - name: lab-1\n    release: r177\n'),
  );
  const text = await runCli(['lock', '-f', '.'], { cwd: dir });
  assert.equal(text.code, 0, text.stderr);
  // told once for the clusters that changed alike, as their resolutions are
  assert.deepEqual(
    text.stdout.split('\n').filter((line) => /^ {2}.*?: [~+-] /.test(line)),
    [
      '  clusters ap-1, eu-1: ~ cluster-api v1.7.7 → v1.10.4: requested version "v1.7.7" → "v1.10.4"',
      '  clusters ap-1, eu-1: ~ bootstrap-kubeadm v1.7.7 → v1.10.4: requested version "v1.7.7" → "v1.10.4"',
      '  clusters ap-1, eu-1: ~ control-plane-kubeadm v1.7.7 → v1.10.4: requested version "v1.7.7" → "v1.10.4"',
    ],
    text.stdout,
  );
  writeFileSync(path.join(dir, 'capi-gitops.lock.yaml'), locked);
  const moved = await runCli(['lock', '-f', '.', '--json'], { cwd: dir });
  assert.equal(moved.code, 0, moved.stderr);
  const changes = (
    JSON.parse(moved.stdout) as { lockfile: { changes: { cluster?: string; name: string; kind: string; toVersion?: string }[] } }
  ).lockfile.changes;
  assert.deepEqual(
    changes.map((c) => `${c.cluster} ${c.kind}/${c.name} ${c.toVersion}`),
    ['ap-1', 'eu-1'].flatMap((cluster) =>
      ['CoreProvider/cluster-api', 'BootstrapProvider/kubeadm', 'ControlPlaneProvider/kubeadm'].map((p) => `${cluster} ${p} v1.10.4`),
    ),
  );
});
