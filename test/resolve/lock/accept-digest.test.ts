/**
 * A re-tagged release (its files replaced under the same version) has a way forward:
 * `capi-gitops lock --accept-digest <provider>` records the new digests of that provider's files
 * only, printing both, and `render --frozen` fails until the new lockfile is there.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { acceptDigests, acceptNameProblems, namesComponent } from '../../../src/resolve/lock/accept-digests.js';
import type { LockEntry } from '../../../src/resolve/lock/types.js';
import { assertNoStackTrace, CLI, exampleCopy, runCli } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/corpus-manifest.js';
import { corpusReleases, FakeGitHub } from '../../helpers/fake-github.js';
import { CORPUS_REPOSITORY } from '../../helpers/paths.js';

const OLD = 'a'.repeat(64);
const NEW = 'b'.repeat(64);

const pin: LockEntry = {
  kind: 'CoreProvider',
  name: 'cluster-api',
  namespace: 'capi-system',
  requestedVersion: 'v1.12.0',
  version: 'v1.12.0',
  contract: 'v1beta2',
  source: { type: 'registry', url: 'https://github.com/kubernetes-sigs/cluster-api/releases/latest/core-components.yaml' },
  files: [
    { name: 'core-components.yaml', url: 'https://example.invalid/core-components.yaml', sha256: OLD },
    { name: 'metadata.yaml', url: 'https://example.invalid/metadata.yaml', sha256: 'c'.repeat(64) },
  ],
};

test('acceptDigests takes the new sha256 of the files that changed and the URLs they were fetched from, keeps the rest of the pin, and says what it accepted', () => {
  const fetchedUrl = 'https://example.invalid/v2/core-components.yaml';
  const { entry, accepted } = acceptDigests(
    pin,
    [
      { name: 'core-components.yaml', sha256: NEW.toUpperCase(), url: fetchedUrl },
      { name: 'metadata.yaml', sha256: 'c'.repeat(64), url: pin.files[1]!.url },
    ],
    '/lock-dir',
  );
  assert.deepEqual(entry, { ...pin, files: [{ ...pin.files[0]!, url: fetchedUrl, sha256: NEW }, pin.files[1]!] });
  assert.deepEqual(accepted, [
    { label: 'cluster-api', version: 'v1.12.0', file: 'core-components.yaml', url: fetchedUrl, from: OLD, to: NEW },
  ]);
  const same = acceptDigests(pin, [{ name: 'core-components.yaml', sha256: OLD, url: fetchedUrl }], '/lock-dir');
  assert.equal(same.entry, pin);
  assert.deepEqual(same.accepted, []);
});

test('--accept-digest names a component by label or namespace/label; an unknown or ambiguous name is a problem naming the choices', () => {
  const kubeadm = (namespace: string) => ({ kind: 'BootstrapProvider' as const, name: 'kubeadm', namespace });
  assert.ok(namesComponent(['cluster-api'], pin));
  assert.ok(namesComponent(['capi-system/cluster-api'], pin));
  assert.ok(!namesComponent(['other/cluster-api', 'core-cluster-api'], pin));
  assert.ok(namesComponent(['cert-manager'], { kind: 'CertManager', name: 'cert-manager', namespace: 'cert-manager' }));
  const problems = acceptNameProblems(
    ['bootstrap-kubeadm', 'capi-kubeadm/bootstrap-kubeadm', 'infrastructure-aws'],
    [pin, kubeadm('a'), kubeadm('capi-kubeadm')],
  );
  assert.deepEqual(
    problems.map((p) => [p.message, p.expected ?? p.hint]),
    [
      ['--accept-digest bootstrap-kubeadm: names 2 components', 'use namespace/label: a/bootstrap-kubeadm, capi-kubeadm/bootstrap-kubeadm'],
      ['--accept-digest infrastructure-aws: no component of the manifest has this name', 'one of cluster-api, bootstrap-kubeadm'],
    ],
  );
});

test('a re-tagged local release: render, lock and render --frozen fail with a hint naming `lock --accept-digest`; it accepts the named provider only, printing both digests', async () => {
  const dir = exampleCopy();
  const run = async (...args: string[]) => await runCli(args, { cwd: dir });
  const lockFile = path.join(dir, 'management-cluster', 'capi-gitops.lock.yaml');
  const lockBefore = readFileSync(lockFile, 'utf8');
  const digestOf = (lock: string, file: string) => new RegExp(`/${file}\\n\\s+sha256: ([0-9a-f]{64})`).exec(lock)![1]!;
  const core = 'repository/cluster-api/v0.2.0/core-components.yaml';
  const bootstrap = 'repository/bootstrap-example/v0.2.0/bootstrap-components.yaml';
  appendFileSync(path.join(dir, core), '# re-tagged\n');
  appendFileSync(path.join(dir, bootstrap), '# re-tagged too\n');

  const hint = /hint: .*accept it for this component only with `capi-gitops lock -f management-cluster --accept-digest cluster-api`/;
  // told at the digest the lockfile recorded
  const recorded = digestOf(lockBefore, core);
  const lines = lockBefore.split('\n');
  const line = lines.findIndex((l) => l.includes(recorded));
  const at = `management-cluster${path.sep}capi-gitops.lock.yaml:${line + 1}:${lines[line]!.indexOf(recorded) + 1}: error: cluster-api v0.2.0`;
  for (const args of [
    ['render', '-f', 'management-cluster', '-o', 'out'],
    ['render', '-f', 'management-cluster', '-o', 'out', '--frozen'],
    ['lock', '-f', 'management-cluster'],
  ]) {
    const failed = await run(...args);
    assert.equal(failed.code, 1, args.join(' '));
    assertNoStackTrace(failed);
    // the file by its path from where the command runs (the lockfile keeps it relative to itself)
    assert.match(
      failed.stderr,
      new RegExp(`cluster-api v0\\.2\\.0: core-components\\.yaml from ${core} has sha256 [0-9a-f]{64}, but the lockfile recorded sha256`),
    );
    assert.match(failed.stderr, hint);
    assert.ok(failed.stderr.includes(at), failed.stderr);
    assert.match(failed.stderr, /--accept-digest bootstrap-example`/);
  }
  assert.equal(readFileSync(lockFile, 'utf8'), lockBefore);

  const unknown = await run('lock', '-f', 'management-cluster', '--accept-digest', 'core');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /--accept-digest core: no component of the manifest has this name\n\s+expected: one of cluster-api, /);

  // accepting one provider leaves the other failing, and writes nothing
  const one = await run('lock', '-f', 'management-cluster', '--accept-digest', 'cluster-api');
  assert.equal(one.code, 1);
  assert.match(one.stderr, /bootstrap-example v0\.2\.0: bootstrap-components\.yaml/);
  assert.doesNotMatch(one.stderr, /cluster-api v0\.2\.0: core-components\.yaml/);
  assert.equal(readFileSync(lockFile, 'utf8'), lockBefore);

  writeFileSync(path.join(dir, bootstrap), readFileSync(path.join(dir, bootstrap), 'utf8').replace('# re-tagged too\n', ''));
  const accepted = await run('lock', '-f', 'management-cluster', '--accept-digest', 'capi-system/cluster-api');
  assert.equal(accepted.code, 0, accepted.stderr);
  const lockAfter = readFileSync(lockFile, 'utf8');
  const from = digestOf(lockBefore, 'core-components.yaml');
  const to = digestOf(lockAfter, 'core-components.yaml');
  assert.notEqual(from, to);
  assert.ok(
    accepted.stdout.includes(
      // the file by the same path as the error that asked for --accept-digest (the lockfile keeps it relative to itself)
      `accepted cluster-api v0.2.0 core-components.yaml from ${core}: sha256 ${from} → ${to}\n`,
    ),
    accepted.stdout,
  );
  assert.equal(lockAfter, lockBefore.replace(from, to), 'only that digest changed');
  const frozen = await run('render', '-f', 'management-cluster', '-o', 'out', '--frozen');
  assert.equal(frozen.code, 0, frozen.stderr);
  const again = await run('lock', '-f', 'management-cluster', '--accept-digest', 'cluster-api', '--json');
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(JSON.parse(again.stdout).acceptedDigests, []);
});

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

/** The CLI without blocking the event loop: the fake GitHub answers in this process. */
function runAsync(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, GITHUB_TOKEN: 'ghp_accept_digest_token' };
    delete env.GH_TOKEN;
    const child = spawn(process.execPath, [CLI, ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('a re-tagged GitHub release with the old file in the cache: --accept-digest fetches anew rather than trust the cached bytes; then an offline --frozen render passes', async () => {
  const dir = tempDir('capi-gitops-accept-');
  const manifest = path.join(dir, 'providers.yaml');
  writeFileSync(
    manifest,
    'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  version: v1.12.0\n' +
      '---\napiVersion: capi-gitops.dev/v1alpha1\nkind: Config\ncertManager:\n  version: v1.13.0\n',
  );
  const common = ['-f', manifest, '--cache-dir', path.join(dir, 'cache'), '--github-api-url', github.apiUrl];
  const locked = await runAsync(['lock', ...common]);
  assert.equal(locked.code, 0, locked.stderr);
  const lockFile = path.join(dir, 'capi-gitops.lock.yaml');
  const before = readFileSync(lockFile, 'utf8');
  const retagged = corpusReleases(['cluster-api', 'bootstrap-kubeadm', 'control-plane-kubeadm']).map((r) =>
    r.tag === 'v1.12.0'
      ? {
          ...r,
          assets: {
            ...r.assets,
            'core-components.yaml': `${readFileSync(path.join(CORPUS_REPOSITORY, 'cluster-api', 'v1.12.0', 'core-components.yaml'), 'utf8')}# re-tagged\n`,
          },
        }
      : r,
  );
  github.setReleases('kubernetes-sigs/cluster-api', retagged);
  try {
    // the warm cache serves the locked bytes: a plain lock sees nothing
    const plain = await runAsync(['lock', ...common]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /the lockfile is up to date/);
    const accepted = await runAsync(['lock', ...common, '--accept-digest', 'cluster-api']);
    assert.equal(accepted.code, 0, accepted.stderr);
    assert.match(
      accepted.stdout,
      /accepted cluster-api v1\.12\.0 core-components\.yaml from https:\/\/github\.com\/\S+: sha256 [0-9a-f]{64} → [0-9a-f]{64}\n/,
    );
    assert.match(accepted.stdout, /~ cluster-api v1\.12\.0: core-components\.yaml sha256 /);
    assert.notEqual(readFileSync(lockFile, 'utf8'), before);
    const requests = github.requests.length;
    const render = await runAsync(['render', ...common, '-o', path.join(dir, 'out'), '--offline', '--frozen']);
    assert.equal(render.code, 0, render.stderr);
    assert.equal(github.requests.length, requests);
    assert.ok(!(accepted.stdout + accepted.stderr).includes('ghp_accept_digest_token'));
  } finally {
    github.setReleases('kubernetes-sigs/cluster-api', corpusReleases(['cluster-api', 'bootstrap-kubeadm', 'control-plane-kubeadm']));
  }
});

test('a fleet: --accept-digest takes a provider only one cluster has (the hint followed as printed), and an unknown name is one problem, not one per cluster and release', async () => {
  const dir = exampleCopy();
  const run = async (...args: string[]) => await runCli(args, { cwd: dir });
  appendFileSync(
    path.join(dir, 'management-cluster', 'config.yaml'),
    'clusters:\n  - name: eu-1\n    providers: {InfrastructureProvider/example: null}\n  - name: lab-1\n',
  );
  writeFileSync(
    path.join(dir, 'management-cluster', 'release.yaml'),
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Release\nmetadata: {name: "2026.11.0"}\nproviders:\n  CoreProvider/cluster-api: v0.2.0\n',
  );
  assert.equal((await run('lock', '-f', 'management-cluster')).code, 0);
  appendFileSync(path.join(dir, 'repository/infrastructure-example/v0.2.0/infrastructure-components.yaml'), '# re-tagged\n');

  const failed = await run('render', '-f', 'management-cluster', '-o', 'out');
  assert.equal(failed.code, 1);
  const hint =
    /accept it for this component only with `capi-gitops lock (-f management-cluster --accept-digest infrastructure-example)`/.exec(
      failed.stderr,
    );
  assert.ok(hint, failed.stderr);
  const accepted = await run('lock', ...hint[1]!.split(' '));
  assert.equal(accepted.code, 0, accepted.stderr);
  assert.match(accepted.stdout, /cluster lab-1: ~ infrastructure-example v0\.2\.0: infrastructure-components\.yaml sha256/);
  assert.equal((await run('render', '-f', 'management-cluster', '-o', 'out', '--frozen')).code, 0);

  const unknown = await run('lock', '-f', 'management-cluster', '--accept-digest', 'infrastructure-sample');
  assert.equal(unknown.code, 1);
  assertNoStackTrace(unknown);
  assert.equal(unknown.stderr.match(/no component of the manifest has this name/g)?.length, 1, unknown.stderr);
  assert.match(
    unknown.stderr,
    /^error: --accept-digest infrastructure-sample: no component .*\n\s+expected: one of .*infrastructure-example/m,
  );
});

test('a re-tagged release read from a ConfigMap (fetchConfig.selector): lock --accept-digest names it by its configmap: URL, as the error does, not as a path', async () => {
  const dir = exampleCopy();
  const addon = path.join(dir, 'management-cluster', 'addon.yaml');
  // several providers' ConfigMaps exported beside the providers, as teams keep them
  writeFileSync(
    addon,
    [
      'apiVersion: operator.cluster.x-k8s.io/v1alpha2',
      'kind: AddonProvider',
      'metadata: {name: helm, namespace: caaph-system}',
      'spec:',
      '  version: v0.2.0',
      '  fetchConfig: {selector: {matchLabels: {provider.cluster.x-k8s.io/name: helm}}}',
      '---',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: addon-helm-v0.2.0',
      '  namespace: caaph-system',
      '  labels: {provider.cluster.x-k8s.io/name: helm, provider.cluster.x-k8s.io/type: addon, provider.cluster.x-k8s.io/version: v0.2.0}',
      'data:',
      '  metadata: |',
      '    apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3',
      '    kind: Metadata',
      '    releaseSeries: [{major: 0, minor: 2, contract: v1beta2}]',
      '  components: |',
      '    apiVersion: v1',
      '    kind: ServiceAccount',
      '    metadata: {name: caaph-manager, namespace: caaph-system}',
      '',
    ].join('\n'),
  );
  const run = async (...args: string[]) => await runCli(args, { cwd: dir });
  assert.equal((await run('lock', '-f', 'management-cluster')).code, 0);
  writeFileSync(addon, readFileSync(addon, 'utf8').replace('name: caaph-manager', 'name: caaph-controller-manager'));
  const url = 'configmap:caaph-system/addon-helm-v0.2.0#components';
  const failed = await run('lock', '-f', 'management-cluster');
  assert.equal(failed.code, 1);
  assert.ok(failed.stderr.includes(`addon-components.yaml from ${url} has sha256`), failed.stderr);
  const accepted = await run('lock', '-f', 'management-cluster', '--accept-digest', 'addon-helm');
  assert.equal(accepted.code, 0, accepted.stderr);
  assert.match(accepted.stdout, new RegExp(`^accepted addon-helm v0\\.2\\.0 addon-components\\.yaml from ${url}: sha256 `, 'm'));
});

test('a local release file Git checked out with CRLF line endings (core.autocrlf) is told as that, not as a re-tag to accept; the hint, run as printed, restores the locked bytes', async () => {
  const example = exampleCopy();
  const git = (...args: string[]) => {
    const r = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: example, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  };
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'example');
  const file = path.join(example, 'repository', 'cluster-api', 'v0.2.0', 'core-components.yaml');
  // what a checkout with core.autocrlf=true writes
  writeFileSync(file, readFileSync(file, 'utf8').replace(/\n/g, '\r\n'));
  const args = ['check', '-f', 'management-cluster', '-o', 'out'];
  const result = await runCli(args, { cwd: example });
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /core-components\.yaml .*has CRLF line endings/);
  assert.doesNotMatch(result.stderr, /re-tagged|--accept-digest/);
  const hint = /hint: .*?: (echo .*)\n/.exec(result.stderr)?.[1];
  assert.ok(hint, result.stderr);
  const followed = spawnSync('bash', ['-c', hint], { cwd: example, encoding: 'utf8' });
  assert.equal(followed.status, 0, followed.stderr);
  assert.doesNotMatch(readFileSync(file, 'utf8'), /\r/);
  assert.doesNotMatch((await runCli(args, { cwd: example })).stderr, /CRLF/);
});
