/**
 * A fleet cluster moved below the version its lockfile pins, by a line other clusters read too
 * (the shared manifest's, a release's): the downgrade warning's hint says where to keep the locked
 * version for that cluster alone, not "keep it" at a line that would move every other cluster.
 */
import { test } from 'node:test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { corpusFleetManifest, corpusManifest, writeTempManifest } from '../helpers/corpus-manifest.js';
import { exampleCopy, runCli } from '../helpers/cli.js';

const AT_1_12 = ['CoreProvider/cluster-api', 'BootstrapProvider/kubeadm', 'ControlPlaneProvider/kubeadm']
  .map((key) => `      ${key}: {spec: {version: v1.12.0}}\n`)
  .join('');

/** The warnings' hints of a run. */
function hints(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.trimStart().startsWith('hint:'));
}

test("a cluster the shared manifest's version moves below its lock is told to keep the locked version in its own entry of clusters: (the shared line moves every cluster); the hint followed ends the warning (cluster-api-operator preflight_checks.go checkProviderVersion)", async () => {
  const shared = `${corpusManifest('v1.10.4')}clusters:\n  - name: eu-1\n  - name: lab-1\n`;
  const dir = writeTempManifest({ 'providers.yaml': shared.replace('  - name: lab-1\n', `  - name: lab-1\n    providers:\n${AT_1_12}`) });
  const locked = await runCli(['lock', '-f', '.'], { cwd: dir });
  assert.equal(locked.code, 0, locked.stderr);

  writeFileSync(path.join(dir, 'providers.yaml'), shared);
  const down = await runCli(['lock', '-f', '.'], { cwd: dir });
  assert.equal(down.code, 0, down.stderr);
  assert.match(
    down.stderr,
    /warning: cluster lab-1: CoreProvider\/capi-system\/cluster-api: spec\.version: v1\.10\.4 is below the locked v1\.12\.0/,
  );
  const told = hints(down.stderr);
  assert.equal(told.length, 3, down.stderr);
  for (const hint of told) {
    assert.doesNotMatch(hint, /hint: keep v1\.12\.0 or move forward/);
    assert.match(
      hint,
      /keep v1\.12\.0 for the clusters named: here if every cluster that reads this line should run it, else in each one's entry of clusters: \(providers: \{\w+\/[\w-]+: \{spec: \{version: v1\.12\.0\}\}\}\)/,
    );
  }

  // followed: lab-1's own entry keeps v1.12.0
  writeFileSync(path.join(dir, 'providers.yaml'), shared.replace('  - name: lab-1\n', `  - name: lab-1\n    providers:\n${AT_1_12}`));
  const kept = await runCli(['lock', '-f', '.'], { cwd: dir });
  assert.equal(kept.code, 0, kept.stderr);
  assert.doesNotMatch(kept.stderr, /below the locked/);
});

test("a cluster a release's version moves below its lock is told to keep the locked version in that release only if every cluster on it should run it, else on another release (its release:); followed, the warning ends", async () => {
  const fleet = corpusFleetManifest(['eu-1', 'lab-1'], 'r1104', { r1104: 'v1.10.4', r1120: 'v1.12.0' });
  const onNext = fleet.replace('  - name: lab-1\n', '  - name: lab-1\n    release: r1120\n');
  const dir = writeTempManifest({ 'providers.yaml': onNext });
  const locked = await runCli(['lock', '-f', '.'], { cwd: dir });
  assert.equal(locked.code, 0, locked.stderr);

  writeFileSync(path.join(dir, 'providers.yaml'), fleet);
  const down = await runCli(['lock', '-f', '.'], { cwd: dir });
  assert.equal(down.code, 0, down.stderr);
  assert.match(
    down.stderr,
    /warning: cluster lab-1: CoreProvider\/capi-system\/cluster-api: spec\.version: v1\.10\.4 is below the locked v1\.12\.0/,
  );
  const told = hints(down.stderr);
  assert.equal(told.length, 3, down.stderr);
  for (const hint of told) {
    assert.doesNotMatch(hint, /hint: keep v1\.12\.0 or move forward/);
    assert.match(
      hint,
      /keep v1\.12\.0 for the clusters named: in release r1104 \(\w+\/[\w-]+: v1\.12\.0\) if every cluster on it should run it, else on another release with it \(release:\)/,
    );
  }

  // followed: lab-1 on a release with v1.12.0 again
  writeFileSync(path.join(dir, 'providers.yaml'), onNext);
  const back = await runCli(['lock', '-f', '.'], { cwd: dir });
  assert.equal(back.code, 0, back.stderr);
  assert.doesNotMatch(back.stderr, /below the locked/);
});

test("a cluster the shared Config's cert-manager moves below its lock is told to keep the locked release in its own entry of clusters: (certManager), not at the shared line; followed, the warning ends (clusterctl cert_manager.go shouldUpgrade)", async () => {
  const example = exampleCopy();
  const releases = path.join(example, 'repository', 'cert-manager');
  mkdirSync(path.join(releases, 'v0.2.0'));
  const v010 = readFileSync(path.join(releases, 'v0.1.0', 'cert-manager.yaml'), 'utf8');
  writeFileSync(path.join(releases, 'v0.2.0', 'cert-manager.yaml'), v010.replaceAll('v0.1.0', 'v0.2.0'));
  const dir = path.join(example, 'management-cluster');
  const config = readFileSync(path.join(dir, 'config.yaml'), 'utf8');
  const fleet = (lab: string) =>
    `${config}clusters:\n  - name: eu-1\n  - name: lab-1\n${lab}---\napiVersion: capi-gitops.dev/v1alpha1\nkind: Release\n` +
    'metadata: {name: next}\nproviders: {}\ncertManager: {version: v0.2.0}\n';
  writeFileSync(path.join(dir, 'config.yaml'), fleet('    release: next\n'));
  const locked = await runCli(['lock', '-f', '.'], { cwd: dir });
  assert.equal(locked.code, 0, locked.stderr);

  writeFileSync(path.join(dir, 'config.yaml'), fleet(''));
  const lock = readFileSync(path.join(dir, 'capi-gitops.lock.yaml'), 'utf8');
  const down = await runCli(['lock', '-f', '.'], { cwd: dir });
  assert.equal(down.code, 0, down.stderr);
  assert.match(down.stderr, /warning: cluster lab-1: Config: certManager\.version: v0\.1\.0 is below the locked v0\.2\.0/);
  const [hint] = hints(down.stderr);
  assert.match(
    hint!,
    /keep v0\.2\.0 for the clusters named: here if every cluster that reads this line should run it, else in each one's entry of clusters: \(certManager: \{version: v0\.2\.0\}\)/,
  );

  // followed: lab-1's own entry keeps v0.2.0 (from the lock before the downgrade)
  writeFileSync(path.join(dir, 'capi-gitops.lock.yaml'), lock);
  writeFileSync(path.join(dir, 'config.yaml'), fleet('    certManager: {version: v0.2.0}\n'));
  const kept = await runCli(['lock', '-f', '.'], { cwd: dir });
  assert.equal(kept.code, 0, kept.stderr);
  assert.doesNotMatch(kept.stderr, /below the locked/);
});
