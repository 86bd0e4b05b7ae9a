/** How a render's lock session pins providers: which lock entries still answer the manifest. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CORPUS_CONFIGMAPS, FIXTURES } from '../../helpers/paths.js';
import { FakeGitHub } from '../../helpers/fake-github.js';
import { assertNoStackTrace, runCli } from '../../helpers/cli.js';
import { corpusManifest, tempDir } from '../../helpers/corpus-manifest.js';

const OPERATOR_RELEASE = path.join(FIXTURES, 'operator-release', 'v0.28.0', 'operator-components.yaml');

const PROVIDER = [
  'apiVersion: operator.cluster.x-k8s.io/v1alpha2',
  'kind: CoreProvider',
  'metadata: {name: cluster-api, namespace: capi-system}',
  'spec:',
  '  fetchConfig:',
  '    selector:',
  '      matchLabels: {provider.cluster.x-k8s.io/name: cluster-api}',
  '---',
  'apiVersion: capi-gitops.dev/v1alpha1',
  'kind: Config',
  'certManager: {enabled: false}',
  '',
].join('\n');

/** The corpus core ConfigMap relabelled as a pre-release, its metadata given that series. */
function preRelease(): string {
  return readFileSync(path.join(CORPUS_CONFIGMAPS, 'core-cluster-api-v1.12.0.yaml'), 'utf8')
    .replace('provider.cluster.x-k8s.io/version: v1.12.0', 'provider.cluster.x-k8s.io/version: v1.13.0-beta.0')
    .replace('name: core-cluster-api-v1.12.0', 'name: core-cluster-api-v1.13.0-beta.0')
    .replace(
      '      - major: 1\n        minor: 12\n',
      '      - major: 1\n        minor: 13\n        contract: v1beta2\n      - major: 1\n        minor: 12\n',
    );
}

test('a version-less provider whose locked release was a ConfigMap dropped from the input resolves again among the ConfigMaps given, as the operator picks the newest (internal/controller/phase_load.go getLatestVersion), with the downgrade warned; --frozen tells the lock change', async () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'providers.yaml'), PROVIDER);
  writeFileSync(path.join(dir, 'core-v1.12.0.yaml'), readFileSync(path.join(CORPUS_CONFIGMAPS, 'core-cluster-api-v1.12.0.yaml')));
  writeFileSync(path.join(dir, 'core-v1.13.0-beta.0.yaml'), preRelease());
  const first = await runCli(['render', '-f', '.', '-o', 'out'], { cwd: dir });
  assert.equal(first.code, 0, first.stderr);
  assert.match(readFileSync(path.join(dir, 'capi-gitops.lock.yaml'), 'utf8'), /version: v1\.13\.0-beta\.0/);

  rmSync(path.join(dir, 'core-v1.13.0-beta.0.yaml'));
  const frozen = await runCli(['render', '-f', '.', '-o', 'out', '--frozen'], { cwd: dir });
  assertNoStackTrace(frozen);
  assert.equal(frozen.code, 1);
  assert.match(frozen.stderr, /the lockfile would change: ~ cluster-api v1\.13\.0-beta\.0/);

  const again = await runCli(['render', '-f', '.', '-o', 'out'], { cwd: dir });
  assertNoStackTrace(again);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /warning: .*v1\.12\.0 is below the locked v1\.13\.0-beta\.0: a downgrade/);
  assert.match(again.stdout + again.stderr, /~ cluster-api v1\.13\.0-beta\.0 → v1\.12\.0/);
  const lock = readFileSync(path.join(dir, 'capi-gitops.lock.yaml'), 'utf8');
  assert.match(lock, /version: v1\.12\.0/);
  assert.doesNotMatch(lock, /v1\.13/);
});

test('--frozen with --layout operator alone: the hint does not send to `capi-gitops lock` as it is (no --layout there, so it never pins the operator release); followed (output.layout: operator in the Config, then lock), the frozen render passes', async () => {
  const github = await FakeGitHub.start({
    'kubernetes-sigs/cluster-api-operator': [{ tag: 'v0.28.0', assets: { 'operator-components.yaml': readFileSync(OPERATOR_RELEASE) } }],
  });
  try {
    const dir = tempDir();
    const manifest = corpusManifest('v1.12.0');
    writeFileSync(path.join(dir, 'm.yaml'), manifest);
    const api = ['--cache-dir', 'cache', '--github-api-url', github.apiUrl];
    const lock = () => runCli(['lock', '-f', 'm.yaml', ...api], { cwd: dir });
    const frozen = () => runCli(['render', '-f', 'm.yaml', '-o', 'out', '--layout', 'operator', '--frozen', ...api], { cwd: dir });
    assert.equal((await lock()).code, 0);
    const refused = await frozen();
    assertNoStackTrace(refused);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /the lockfile would change: \+ cluster-api-operator \(not in the lockfile\)\n/);
    assert.match(refused.stderr, /hint: set output\.layout: operator in the Config document, so that `capi-gitops lock -f m\.yaml/);
    writeFileSync(path.join(dir, 'm.yaml'), manifest.replace('certManager:', 'output:\n  layout: operator\ncertManager:'));
    assert.equal((await lock()).code, 0);
    const passed = await frozen();
    assert.equal(passed.code, 0, passed.stderr);
  } finally {
    await github.close();
  }
});
