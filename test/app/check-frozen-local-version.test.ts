/**
 * check (which implies --frozen) on a version the lock does not answer, from a local repository or the input's artifact ConfigMaps:
 * reading it makes no request, so a version that is not there is told at spec.version in the same
 * run, as render would tell it, not only "the lockfile would change".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { corpusManifest, writeTempManifest } from '../helpers/corpus-manifest.js';
import { assertNoStackTrace, exampleCopy, runCli } from '../helpers/cli.js';
import { CORPUS_CONFIGMAPS } from '../helpers/paths.js';

async function rendered(): Promise<{ dir: string; pin: (version: string) => void }> {
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest('v1.10.4') });
  const render = await runCli(['render', '-f', '.', '-o', 'out'], { cwd: dir });
  assert.equal(render.code, 0, render.stderr);
  const file = path.join(dir, 'providers.yaml');
  const text = readFileSync(file, 'utf8');
  // the core provider's version only: the kubeadm providers stay on v1.10.4
  const pin = (version: string) => writeFileSync(file, text.replace('version: v1.10.4', `version: ${version}`));
  return { dir, pin };
}

test('check: a spec.version with no release in the local repository is told at spec.version in the same run, not only as a lock change', async () => {
  const { dir, pin } = await rendered();
  pin('v1.9.0');
  for (const command of [['check'], ['render', '--check']]) {
    const check = await runCli([...command, '-f', '.', '-o', 'out'], { cwd: dir });
    assert.equal(check.code, 1, check.stderr);
    assertNoStackTrace(check);
    assert.match(
      check.stderr,
      /^providers\.yaml:7:12: error: CoreProvider\/capi-system\/cluster-api: spec\.version: version v1\.9\.0 not found/m,
      check.stderr,
    );
    // the render that hint would suggest fails on the same version: not suggested for it
    assert.doesNotMatch(check.stderr, /the lockfile would change: ~ cluster-api/, check.stderr);
  }
});

test('check: a spec.version the local repository has is still a lock change, with the render that records it', async () => {
  const { dir, pin } = await rendered();
  pin('v1.8.0');
  const check = await runCli(['check', '-f', '.', '-o', 'out'], { cwd: dir });
  assert.equal(check.code, 1, check.stderr);
  assert.match(check.stderr, /providers\.yaml:7:12: error: .*the lockfile would change: ~ cluster-api v1\.10\.4 → v1\.8\.0/);
  assert.doesNotMatch(check.stderr, /not found/);
});

test('check: a spec.version no ConfigMap selected by fetchConfig.selector provides is told at spec.version in the same run, not only as a lock change (the ConfigMaps are read from the input, without a request)', async () => {
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest('v1.12.0', 'configmap') });
  for (const file of readdirSync(CORPUS_CONFIGMAPS)) copyFileSync(path.join(CORPUS_CONFIGMAPS, file), path.join(dir, file));
  const render = await runCli(['render', '-f', '.', '-o', 'out'], { cwd: dir });
  assert.equal(render.code, 0, render.stderr);
  const file = path.join(dir, 'providers.yaml');
  // the core provider's version only
  writeFileSync(file, readFileSync(file, 'utf8').replace('version: v1.12.0', 'version: v1.10.4'));
  const check = await runCli(['check', '-f', '.', '-o', 'out'], { cwd: dir });
  assert.equal(check.code, 1, check.stderr);
  assertNoStackTrace(check);
  assert.match(
    check.stderr,
    /^providers\.yaml:7:12: error: CoreProvider\/capi-system\/cluster-api: spec\.version: no selected ConfigMap provides version v1\.10\.4/m,
    check.stderr,
  );
  assert.doesNotMatch(check.stderr, /the lockfile would change: ~ cluster-api/, check.stderr);
});

test('check with no Config document any more (its file emptied): the cert-manager change is told at its lock entry, not without a position', async () => {
  const dir = path.join(exampleCopy(), 'management-cluster');
  const render = await runCli(['render', '-f', '.', '-o', 'out'], { cwd: dir });
  assert.equal(render.code, 0, render.stderr);
  rmSync(path.join(dir, 'config.yaml'));
  const check = await runCli(['check', '-f', '.', '-o', 'out'], { cwd: dir });
  assert.equal(check.code, 1, check.stderr);
  assertNoStackTrace(check);
  assert.match(
    check.stderr,
    /^capi-gitops\.lock\.yaml:5:5: error: Config: certManager: .*the lockfile would change: ~ cert-manager v0\.1\.0/m,
  );
  assert.deepEqual(
    check.stderr.split('\n').filter((line) => /error: /.test(line) && !/^[^ ]+:\d+:\d+: error: /.test(line)),
    [],
  );
});
