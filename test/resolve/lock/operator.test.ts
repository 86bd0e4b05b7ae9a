/**
 * The operator layout's cluster-api-operator release is pinned in the lockfile like a provider's
 * artifacts (issue #12): its digest recorded, a pinned release served from the cache, a changed
 * or tampered manifest refused, and its moves shown by `plan` and made by `update`.
 * Real file trees, the CLI in a child process, and a fake GitHub on 127.0.0.1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { corpusManifest, tempDir } from '../../helpers/corpus-manifest.js';
import { FIXTURES } from '../../helpers/paths.js';
import { FakeGitHub } from '../../helpers/fake-github.js';
import { ArtifactCache } from '../../../src/sources/cache.js';
import { renderManagementCluster } from '../../../src/app/cluster.js';
import { planManagementCluster, updateManagementCluster } from '../../../src/app/upgrade.js';
import { renderUpgradePlanText } from '../../../src/resolve/upgrade-plan.js';
import { parseLockfile, serializeLockfile } from '../../../src/resolve/lock/lockfile.js';
import { runCli } from '../../helpers/cli.js';

const RELEASE = readFileSync(path.join(FIXTURES, 'operator-release', 'v0.28.0', 'operator-components.yaml'), 'utf8');

interface LockEntryData {
  kind: string;
  name: string;
  namespace: string;
  requestedVersion: string;
  version: string;
  contract?: string;
  source: Record<string, string>;
  files: { name: string; url: string; sha256: string }[];
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The corpus manifest, a local copy of the operator release at operator/<version>/, and Config.operator.url naming it. */
function operatorTree(version = 'v0.28.0'): string {
  const dir = tempDir('capi-gitops-operator-lock-');
  mkdirSync(path.join(dir, 'operator', version), { recursive: true });
  writeFileSync(path.join(dir, 'operator', version, 'operator-components.yaml'), RELEASE);
  writeFileSync(
    path.join(dir, 'm.yaml'),
    corpusManifest('v1.12.0').replace('certManager:', `operator:\n  url: operator/${version}/operator-components.yaml\ncertManager:`),
  );
  return dir;
}

async function cli(dir: string, ...args: string[]) {
  return await runCli([...args], { cwd: dir });
}

/** What `render` and `update` write after a successful run. */
function writeLock(dir: string, lock: Parameters<typeof serializeLockfile>[0]): void {
  writeFileSync(path.join(dir, 'capi-gitops.lock.yaml'), serializeLockfile(lock));
}

function lockEntries(dir: string): LockEntryData[] {
  return (parse(readFileSync(path.join(dir, 'capi-gitops.lock.yaml'), 'utf8')) as { entries: LockEntryData[] }).entries;
}

test('render --layout operator pins the operator release in the lockfile with its digest, after cert-manager and before the providers', async () => {
  const dir = operatorTree();
  const run = await cli(dir, 'render', '-f', 'm.yaml', '-o', 'out', '--layout', 'operator');
  assert.equal(run.code, 0, run.stderr);
  const entries = lockEntries(dir);
  assert.deepEqual(
    entries.map((e) => e.kind),
    ['CertManager', 'Operator', 'CoreProvider', 'BootstrapProvider', 'ControlPlaneProvider'],
  );
  const operator = entries[1]!;
  assert.deepEqual(operator, {
    kind: 'Operator',
    name: 'cluster-api-operator',
    namespace: 'capi-operator-system',
    requestedVersion: '',
    version: 'v0.28.0',
    source: { url: 'operator/v0.28.0/operator-components.yaml' },
    files: [{ name: 'operator-components.yaml', url: 'operator/v0.28.0/operator-components.yaml', sha256: sha256(RELEASE) }],
  });
  // The lock reads back to the same bytes (the reader knows the Operator kind, without a contract).
  const text = readFileSync(path.join(dir, 'capi-gitops.lock.yaml'), 'utf8');
  assert.equal(serializeLockfile(parseLockfile(text, 'capi-gitops.lock.yaml')), text);
  // The provenance of the operator's directory names the same digest.
  assert.match(
    readFileSync(path.join(dir, 'out', '01-cluster-api-operator', 'kustomization.yaml'), 'utf8'),
    new RegExp(`cluster-api-operator v0\\.28\\.0 \\(sha256:${sha256(RELEASE)}\\)`),
  );
  // --frozen holds: the lock already says exactly this.
  const frozen = await cli(dir, 'render', '-f', 'm.yaml', '-o', 'out', '--layout', 'operator', '--frozen');
  assert.equal(frozen.code, 0, frozen.stderr);
});

test('a tampered operator manifest fails under --frozen (and without it) naming both digests; nothing is written', async () => {
  const dir = operatorTree();
  assert.equal((await cli(dir, 'render', '-f', 'm.yaml', '-o', 'out', '--layout', 'operator')).code, 0);
  const lockBefore = readFileSync(path.join(dir, 'capi-gitops.lock.yaml'), 'utf8');
  const deployment = path.join(dir, 'out', '01-cluster-api-operator', 'deployment-capi-operator-controller-manager.yaml');
  const outBefore = readFileSync(deployment, 'utf8');
  const file = path.join(dir, 'operator', 'v0.28.0', 'operator-components.yaml');
  const tampered = RELEASE.replace(
    'image: registry.k8s.io/capi-operator/cluster-api-operator:v0.28.0',
    'image: attacker.example/cluster-api-operator:v0.28.0',
  );
  assert.notEqual(tampered, RELEASE);
  writeFileSync(file, tampered);
  for (const flags of [['--frozen'], []]) {
    const run = await cli(dir, 'render', '-f', 'm.yaml', '-o', 'out', '--layout', 'operator', ...flags);
    assert.equal(run.code, 1, run.stderr);
    assert.match(
      run.stderr,
      new RegExp(
        `cluster-api-operator v0\\.28\\.0: operator-components\\.yaml from operator/v0\\.28\\.0/operator-components\\.yaml has sha256 ${sha256(tampered)}, but the lockfile recorded sha256 ${sha256(RELEASE)}`,
      ),
    );
    assert.match(run.stderr, /nothing was written/);
    assert.equal(readFileSync(path.join(dir, 'capi-gitops.lock.yaml'), 'utf8'), lockBefore);
    assert.equal(readFileSync(deployment, 'utf8'), outBefore);
  }
});

test('another operator release under --frozen fails naming the change; without --frozen the lock records it', async () => {
  const dir = operatorTree();
  assert.equal((await cli(dir, 'render', '-f', 'm.yaml', '-o', 'out', '--layout', 'operator')).code, 0);
  mkdirSync(path.join(dir, 'operator', 'v0.29.0'));
  writeFileSync(path.join(dir, 'operator', 'v0.29.0', 'operator-components.yaml'), RELEASE.replaceAll('v0.28.0', 'v0.29.0'));
  writeFileSync(path.join(dir, 'm.yaml'), readFileSync(path.join(dir, 'm.yaml'), 'utf8').replace('operator/v0.28.0/', 'operator/v0.29.0/'));
  const frozen = await cli(dir, 'render', '-f', 'm.yaml', '-o', 'out', '--layout', 'operator', '--frozen');
  assert.equal(frozen.code, 1, frozen.stderr);
  assert.match(
    frozen.stderr,
    /--frozen \(or check, which implies it\): the lockfile would change: ~ cluster-api-operator v0\.28\.0 → v0\.29\.0: source url operator\/v0\.28\.0\/operator-components\.yaml → url operator\/v0\.29\.0\/operator-components\.yaml/,
  );
  const run = await cli(dir, 'render', '-f', 'm.yaml', '-o', 'out', '--layout', 'operator');
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /~ cluster-api-operator v0\.28\.0 → v0\.29\.0/);
  assert.equal(lockEntries(dir).find((e) => e.kind === 'Operator')?.version, 'v0.29.0');
});

test('Config.operator or output.layout: operator makes every command pin the operator release (lock takes no --layout); a manifest with neither never locks it', async () => {
  const dir = operatorTree();
  assert.equal((await cli(dir, 'render', '-f', 'm.yaml', '-o', 'out')).code, 0);
  // Config.operator is set, so `lock` (which takes no --layout) pins the release the layout would use.
  assert.ok(lockEntries(dir).some((e) => e.kind === 'Operator'));
  const plain = tempDir('capi-gitops-operator-lock-');
  writeFileSync(path.join(plain, 'm.yaml'), corpusManifest('v1.12.0'));
  assert.equal((await cli(plain, 'lock', '-f', 'm.yaml')).code, 0);
  assert.ok(!lockEntries(plain).some((e) => e.kind === 'Operator'));
  writeFileSync(
    path.join(plain, 'm.yaml'),
    corpusManifest('v1.12.0').replace(
      'certManager:',
      `output:\n  layout: operator\noperator:\n  url: ${path.join(dir, 'operator', 'v0.28.0', 'operator-components.yaml')}\ncertManager:`,
    ),
  );
  const lock = await cli(plain, 'lock', '-f', 'm.yaml');
  assert.equal(lock.code, 0, lock.stderr);
  assert.match(lock.stdout, /\+ cluster-api-operator v0\.28\.0/);
});

test('from GitHub: the locked release is served from the cache by digest (no request), plan shows a newer one and update moves the lock to it', async () => {
  const v027 = RELEASE.replaceAll('v0.28.0', 'v0.27.0');
  const dir = tempDir('capi-gitops-operator-lock-');
  writeFileSync(
    path.join(dir, 'm.yaml'),
    corpusManifest('v1.12.0').replace('certManager:', 'output:\n  layout: operator\noperator: {}\ncertManager:'),
  );
  const cache = new ArtifactCache(path.join(dir, 'cache'));
  const options = (apiUrl: string, offline = false) => ({
    manifestPaths: [dir],
    command: 'x',
    sources: { cache, offline, github: { apiUrl } },
  });
  // 1. Only v0.27.0 is published: `latest` resolves to it, and the lock pins it.
  const before = await FakeGitHub.start({
    'kubernetes-sigs/cluster-api-operator': [{ tag: 'v0.27.0', assets: { 'operator-components.yaml': v027 } }],
  });
  try {
    const first = await renderManagementCluster(options(before.apiUrl));
    assert.deepEqual(
      first.lock.changes.map((c) => c.line).filter((l) => l.includes('operator')),
      ['+ cluster-api-operator v0.27.0'],
    );
    writeLock(dir, first.lock.lock);
  } finally {
    await before.close();
  }
  // 2. v0.28.0 is out. The pinned v0.27.0 still renders, from the cache, with no request.
  const after = await FakeGitHub.start({
    'kubernetes-sigs/cluster-api-operator': [
      { tag: 'v0.27.0', assets: { 'operator-components.yaml': v027 } },
      { tag: 'v0.28.0', assets: { 'operator-components.yaml': RELEASE } },
    ],
  });
  try {
    const pinned = await renderManagementCluster({ ...options(after.apiUrl), frozen: true });
    assert.equal(pinned.components.find((c) => c.label === 'cluster-api-operator')?.version, 'v0.27.0');
    assert.equal(after.requests.length, 0, 'the pinned release came from the cache');
    // 3. plan shows the move, as it shows cert-manager's (clusterctl upgrade_plan.go prints cert-manager first).
    const { plan } = await planManagementCluster(options(after.apiUrl));
    assert.deepEqual(plan.operator, { installed: 'v0.27.0', target: 'v0.28.0', shouldUpgrade: true });
    assert.match(
      renderUpgradePlanText(plan),
      /^Cert-Manager is at "v1\.13\.0", pinned by certManager\.version and certManager\.url; "v1\.19\.1" is available .*\n\nThe cluster-api-operator will be upgraded from "v0\.27\.0" to "v0\.28\.0"\n\n/,
    );
    // 4. update moves the lock (Config.operator names no version, so only the lock changes).
    const updated = await updateManagementCluster(options(after.apiUrl), {});
    assert.deepEqual(
      updated.resolution.lock.changes.map((c) => c.line),
      ['~ cluster-api-operator v0.27.0 → v0.28.0'],
    );
    assert.deepEqual(updated.files, []);
    writeLock(dir, updated.resolution.lock.lock);
    const moved = await renderManagementCluster({ ...options(after.apiUrl), frozen: true });
    assert.equal(moved.components.find((c) => c.label === 'cluster-api-operator')?.version, 'v0.28.0');
    const { plan: current } = await planManagementCluster(options(after.apiUrl));
    assert.equal(current.operator?.shouldUpgrade, false);
  } finally {
    await after.close();
  }
});
