/**
 * `update` (src/app/upgrade.ts): a provider the update refuses to move, or to leave behind, is
 * told at its spec.version, where the move is written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { corpusManifest, tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { assertNoStackTrace, runCli } from '../helpers/cli.js';
import { localReleases, managerDeployment } from '../helpers/local-release.js';

const SERIES = '- {major: 1, minor: 10, contract: v1beta1}\n- {major: 1, minor: 11, contract: v1beta2}\n';

/**
 * Core and kubeadm bootstrap released as `tags` (of `series`), the manifest asking for `versions`
 * (core, then bootstrap), in a new directory.
 */
function coreAndBootstrap(tags: string[], series: string, versions: [string, string]): { dir: string; manifest: string } {
  const root = tempDir();
  const [core, bootstrap] = [
    ['cluster-api', 'core-components.yaml', 'capi-controller-manager', 'capi-system'],
    ['bootstrap-kubeadm', 'bootstrap-components.yaml', 'capi-kubeadm-bootstrap-controller-manager', 'capi-kubeadm-bootstrap-system'],
  ].map(([label, file, deployment, namespace]) =>
    localReleases(root, label!, file!, tags, series, (tag) => managerDeployment(deployment!, namespace!, label!, tag)),
  );
  const dir = tempDir();
  const manifest = `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec:
  version: ${versions[0]}
  fetchConfig: {url: ${core}}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: BootstrapProvider
metadata: {name: kubeadm, namespace: capi-kubeadm-bootstrap-system}
spec:
  version: ${versions[1]}
  fetchConfig: {url: ${bootstrap}}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
`;
  writeFileSync(path.join(dir, 'providers.yaml'), manifest);
  return { dir, manifest };
}

/** Core and kubeadm bootstrap at v1.10.0 (v1.11.0, contract v1beta2, released too), locked. */
async function lockedAtV110(): Promise<{ dir: string; manifest: string; cache: string[] }> {
  const { dir, manifest } = coreAndBootstrap(['v1.10.0', 'v1.11.0'], SERIES, ['v1.10.0', 'v1.10.0']);
  const cache = ['--cache-dir', path.join(tempDir(), 'cache')];
  assert.equal((await runCli(['lock', '-f', dir, ...cache])).code, 0);
  return { dir, manifest, cache };
}

test('update of the kubeadm bootstrap provider alone onto a contract the core provider does not accept is refused at its spec.version (clusterctl cmd/clusterctl/client/cluster/upgrader.go createCustomPlan)', async () => {
  const { dir, manifest, cache } = await lockedAtV110();
  const lock = readFileSync(path.join(dir, 'capi-gitops.lock.yaml'), 'utf8');

  const refused = await runCli(['update', '-f', dir, ...cache, '--contract', 'v1beta2', 'bootstrap-kubeadm']);
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(
    refused.stderr,
    /providers\.yaml:12:12: error: BootstrapProvider\/capi-kubeadm-bootstrap-system\/kubeadm: spec\.version: bootstrap-kubeadm would implement contract v1beta2 while the core provider implements v1beta1/,
  );
  // an unknown provider is a mistake on the command line: no manifest position
  const unknown = await runCli(['update', '-f', dir, ...cache, '--contract', 'v1beta2', 'bootstrap-kubeadmm']);
  assert.match(unknown.stderr, /^error: no provider "bootstrap-kubeadmm" in the manifest/m);
  assert.equal(readFileSync(path.join(dir, 'providers.yaml'), 'utf8'), manifest);
  assert.equal(readFileSync(path.join(dir, 'capi-gitops.lock.yaml'), 'utf8'), lock);
});

test('update of the core provider alone leaves the kubeadm providers on another minor: a warning at their spec.version whose hint, followed, moves them (Cluster API docs/book/src/reference/versions.md: released together)', async () => {
  const { dir, cache } = await lockedAtV110();
  const alone = await runCli(['update', '-f', dir, ...cache, '--contract', 'v1beta2', 'cluster-api']);
  assert.equal(alone.code, 0, alone.stderr);
  assert.match(
    alone.stderr,
    /providers\.yaml:12:12: warning: BootstrapProvider\/capi-kubeadm-bootstrap-system\/kubeadm: spec\.version: bootstrap-kubeadm v1\.10\.0 while cluster-api is at v1\.11\.0: the core and kubeadm providers are released together\b.*\n\s+hint: set spec\.version to v1\.11\.0, as cluster-api's; `capi-gitops update -f [^`]+` naming no provider moves them together/,
  );
  // the split is in the lock now: a render that moves nothing says nothing more
  const render = await runCli(['render', '-f', dir, '-o', path.join(tempDir(), 'out'), ...cache]);
  assert.equal(render.code, 0, render.stderr);
  assert.doesNotMatch(render.stderr, /released together/);
  const together = await runCli(['update', '-f', dir, ...cache]);
  assert.equal(together.code, 0, together.stderr);
  assert.doesNotMatch(together.stderr, /released together/);
  assert.match(readFileSync(path.join(dir, 'providers.yaml'), 'utf8'), /kind: BootstrapProvider\n[^]*version: v1\.11\.0/);
});

test('a kubeadm provider moved ahead of the core alone is hinted to move the core up to it, not to go back (a downgrade the operator refuses)', async () => {
  const series = '- {major: 1, minor: 9, contract: v1beta1}\n- {major: 1, minor: 10, contract: v1beta1}\n';
  const { dir } = coreAndBootstrap(['v1.9.0', 'v1.10.0'], series, ['v1.9.0', 'v1.10.0']);
  const render = await runCli(['render', '-f', dir, '-o', path.join(tempDir(), 'out'), '--cache-dir', path.join(tempDir(), 'cache')]);
  assert.equal(render.code, 0, render.stderr);
  assert.match(
    render.stderr,
    /providers\.yaml:12:12: warning: BootstrapProvider\/capi-kubeadm-bootstrap-system\/kubeadm: spec\.version: bootstrap-kubeadm v1\.10\.0 while cluster-api is at v1\.9\.0: .*\n\s+hint: set cluster-api's spec\.version to v1\.10\.0 as well, so the core moves with it\n/,
  );
});

test('plan does not offer, and update refuses, lowering an exact pin raised by hand above its plan (v1.12.0 asked, v1.7.7 locked, the v1beta1 plan v1.10.4), writes nothing, and its hint works as written (clusterctl cmd/clusterctl/client/cluster/upgrader_info.go getUpgradeInfo: only newer versions)', async () => {
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest('v1.7.7') });
  assert.equal((await runCli(['lock', '-f', '.'], { cwd: dir })).code, 0);
  const file = path.join(dir, 'providers.yaml');
  const lockFile = path.join(dir, 'capi-gitops.lock.yaml');
  // the core's pin, raised by hand and not yet locked
  writeFileSync(file, readFileSync(file, 'utf8').replace('version: v1.7.7', 'version: v1.12.0'));
  const coreLine = readFileSync(file, 'utf8').split('\n').indexOf('  version: v1.12.0') + 1;
  const [manifest, lock] = [readFileSync(file, 'utf8'), readFileSync(lockFile, 'utf8')];

  // plan offers only the update that keeps the pin: v1beta2's v1.12.0
  const plan = await runCli(['plan', '-f', '.'], { cwd: dir });
  assert.equal(plan.code, 0, plan.stderr);
  assert.doesNotMatch(plan.stdout, /To update: capi-gitops update -f \. --contract v1beta1/);
  assert.match(plan.stdout, /To update: capi-gitops update -f \. --contract v1beta2\n/);
  assert.match(plan.stdout, new RegExp(`\\n {2}v1beta1: providers\\.yaml:${coreLine}:12: v1\\.12\\.0 is not locked yet`));

  const update = await runCli(['update', '-f', '.'], { cwd: dir });
  assert.equal(update.code, 1, update.stderr);
  assertNoStackTrace(update);
  assert.match(update.stderr, new RegExp(`providers\\.yaml:${coreLine}:12: error: CoreProvider/capi-system/cluster-api: spec\\.version: `));
  assert.match(update.stderr, /v1\.12\.0.*lower.*v1\.10\.4/);
  assert.match(update.stderr, /nothing was written/);
  // no warning sends the user to the update that lowers the pin
  assert.doesNotMatch(update.stderr, /naming no provider moves them together/);
  assert.equal(readFileSync(file, 'utf8'), manifest, 'the manifest changed');
  assert.equal(readFileSync(lockFile, 'utf8'), lock, 'the lockfile changed');

  // the hint, followed as written: lock the manifest as it asks, then update moves kubeadm up to the core
  const hint = /hint: [^\n]*`(capi-gitops lock -f \.)`/.exec(update.stderr);
  assert.ok(hint, update.stderr);
  assert.equal((await runCli(hint[1]!.split(' ').slice(1), { cwd: dir })).code, 0);
  const again = await runCli(['update', '-f', '.'], { cwd: dir });
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual([...readFileSync(lockFile, 'utf8').matchAll(/^ {4}version: (\S+)$/gm)].map((m) => m[1]).slice(1), [
    'v1.12.0',
    'v1.12.0',
    'v1.12.0',
  ]);
});
