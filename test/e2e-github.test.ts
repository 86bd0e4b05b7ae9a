/**
 * End to end against a fake GitHub on 127.0.0.1 serving the real corpus as releases: resolve
 * `latest`, lock, re-render offline and frozen with zero requests, refuse a changed manifest
 * under --frozen, catch a re-tagged release, and plan upgrades like clusterctl.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CORPUS_REPOSITORY } from './helpers/paths.js';
import { tempDir } from './helpers/corpus-manifest.js';
import { readTree } from './helpers/tree.js';
import { corpusReleases, FakeGitHub } from './helpers/fake-github.js';
import { CLI, runCliAsync, type CliResult } from './helpers/cli.js';

/** Runs the CLI without blocking the event loop (the fake GitHub answers in this process). */
async function run(args: string[]): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, GITHUB_TOKEN: 'ghp_e2e_secret_token', CI: 'true' };
  delete env.GH_TOKEN;
  return await runCliAsync(args, env);
}

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

/** Built-in providers only: every URL is clusterctl's GitHub default. */
function manifest(versions: { core?: string; kubeadm?: string }): string {
  const version = (v?: string) => (v ? `\nspec:\n  version: ${v}` : '\nspec: {}');
  return `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
  namespace: capi-system${version(versions.core)}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: BootstrapProvider
metadata:
  name: kubeadm
  namespace: capi-kubeadm-bootstrap-system${version(versions.kubeadm)}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: ControlPlaneProvider
metadata:
  name: kubeadm
  namespace: capi-kubeadm-control-plane-system${version(versions.kubeadm)}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager:
  version: v1.13.0
`;
}

function workspace(text: string): { dir: string; manifest: string; out: string; cache: string; common: string[] } {
  const dir = tempDir('capi-gitops-e2e-');
  const file = path.join(dir, 'providers.yaml');
  writeFileSync(file, text);
  const cache = path.join(dir, 'cache');
  return {
    dir,
    manifest: file,
    out: path.join(dir, 'out'),
    cache,
    common: ['-f', file, '--cache-dir', cache, '--github-api-url', github.apiUrl],
  };
}

test('render resolves latest on GitHub and writes the lock; render --offline --frozen then makes zero requests and the same bytes; a changed manifest fails --frozen', async () => {
  const ws = workspace(manifest({}));
  const first = await run(['render', ...ws.common, '-o', ws.out]);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /resolved cluster-api v1\.12\.0 \(requested latest\), contract v1beta2, from github/);
  assert.match(first.stdout, /resolved bootstrap-kubeadm v1\.12\.0/);
  assert.ok(!first.stdout.includes('ghp_e2e_secret_token') && !first.stderr.includes('ghp_e2e_secret_token'), 'the token was printed');
  const lock = readFileSync(path.join(ws.dir, 'capi-gitops.lock.yaml'), 'utf8');
  assert.match(lock, /requestedVersion: ""\n\s+version: v1\.12\.0\n\s+contract: v1beta2/);
  assert.match(lock, /url: https:\/\/github\.com\/kubernetes-sigs\/cluster-api\/releases\/download\/v1\.12\.0\/core-components\.yaml/);
  const before = readTree(ws.out);
  assert.ok(before.size > 100);

  const requestsBefore = github.requests.length;
  const second = await run(['render', ...ws.common, '-o', ws.out, '--offline', '--frozen']);
  assert.equal(second.code, 0, second.stderr);
  assert.equal(github.requests.length, requestsBefore, 'an offline, locked render made requests');
  assert.deepEqual(readTree(ws.out), before);
  assert.equal(readFileSync(path.join(ws.dir, 'capi-gitops.lock.yaml'), 'utf8'), lock, 'the lock changed');

  writeFileSync(ws.manifest, manifest({ kubeadm: 'v1.10.4' }));
  const requestsBeforeFrozen = github.requests.length;
  const frozen = await run(['render', ...ws.common, '-o', ws.out, '--frozen']);
  assert.equal(frozen.code, 1);
  // what the lock does not answer is told before any request: a frozen lock must not change
  assert.equal(github.requests.length, requestsBeforeFrozen, 'a --frozen render asked GitHub for what its lock does not answer');
  assert.match(frozen.stderr, /providers\.yaml:\d+:\d+: error: BootstrapProvider\/capi-kubeadm-bootstrap-system\/kubeadm: spec\.version: /);
  assert.match(frozen.stderr, /bootstrap-kubeadm/);
  assert.match(frozen.stderr, /v1\.12\.0 → v1\.10\.4/);
  assert.match(frozen.stderr, /frozen/i);
  assert.deepEqual(readTree(ws.out), before, 'the output changed');
  assert.equal(readFileSync(path.join(ws.dir, 'capi-gitops.lock.yaml'), 'utf8'), lock, 'the lock changed');
});

test('render --frozen with another cert-manager version than the lock makes no request and names certManager.version in the Config', async () => {
  const ws = workspace(manifest({ core: 'v1.12.0', kubeadm: 'v1.12.0' }));
  assert.equal((await run(['lock', ...ws.common])).code, 0);
  writeFileSync(ws.manifest, manifest({ core: 'v1.12.0', kubeadm: 'v1.12.0' }).replace('version: v1.13.0', 'version: v1.12.0'));
  const requests = github.requests.length;
  const frozen = await run(['render', ...ws.common, '-o', ws.out, '--frozen']);
  assert.equal(frozen.code, 1, frozen.stderr);
  assert.equal(github.requests.length, requests, 'a --frozen render asked GitHub for the cert-manager its lock does not answer');
  assert.match(
    frozen.stderr,
    /providers\.yaml:28:12: error: Config: certManager\.version: --frozen \(or check, which implies it\): the lockfile would change: ~ cert-manager v1\.13\.0 → v1\.12\.0: /,
  );
});

test('offline without a cache fails naming what is missing', async () => {
  const ws = workspace(manifest({ core: 'v1.12.0', kubeadm: 'v1.12.0' }));
  const result = await run(['lock', ...ws.common, '--offline']);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /offline/i);
  assert.match(result.stderr, /cluster-api/);
});

test('a re-tagged release (a file whose sha256 differs from the lock) is a hard failure naming both digests', async () => {
  const ws = workspace(manifest({ core: 'v1.12.0', kubeadm: 'v1.12.0' }));
  assert.equal((await run(['lock', ...ws.common])).code, 0);
  const lock = readFileSync(path.join(ws.dir, 'capi-gitops.lock.yaml'), 'utf8');
  // the same tag now serves different bytes; a fresh cache forces a download
  const releases = corpusReleases(['cluster-api', 'bootstrap-kubeadm', 'control-plane-kubeadm']).map((r) =>
    r.tag === 'v1.12.0'
      ? {
          ...r,
          assets: {
            ...r.assets,
            'core-components.yaml': `${readFileSync(path.join(CORPUS_REPOSITORY, 'cluster-api', 'v1.12.0', 'core-components.yaml'), 'utf8')}\n# re-tagged\n`,
          },
        }
      : r,
  );
  github.setReleases('kubernetes-sigs/cluster-api', releases);
  try {
    const result = await run([
      'render',
      '-f',
      ws.manifest,
      '--cache-dir',
      path.join(ws.dir, 'fresh-cache'),
      '--github-api-url',
      github.apiUrl,
      '-o',
      ws.out,
    ]);
    assert.equal(result.code, 1, result.stderr);
    const locked = /core-components\.yaml\n\s+url: \S+\n\s+sha256: ([0-9a-f]{64})/.exec(lock)![1]!;
    assert.ok(result.stderr.includes(locked), 'the locked digest is not named');
    assert.match(result.stderr, /sha256 [0-9a-f]{64}/);
    assert.match(result.stderr, /re-tagged/);
  } finally {
    github.setReleases('kubernetes-sigs/cluster-api', corpusReleases(['cluster-api', 'bootstrap-kubeadm', 'control-plane-kubeadm']));
  }
});

test('plan on the corpus: core and kubeadm at v1.8.0 list v1.10.4 under v1beta1 and v1.12.0 under v1beta2 (clusterctl upgrade plan)', async () => {
  const ws = workspace(manifest({ core: 'v1.8.0', kubeadm: 'v1.8.0' }));
  assert.equal((await run(['lock', ...ws.common])).code, 0);
  const json = await run(['plan', ...ws.common, '--json']);
  assert.equal(json.code, 0, json.stderr);
  const plan = JSON.parse(json.stdout);
  assert.equal(plan.currentContract, 'v1beta1');
  assert.equal(plan.newestContract, 'v1beta2');
  for (const p of plan.providers) {
    assert.equal(p.installed, 'v1.8.0', p.label);
    assert.equal(p.sameContract.version, 'v1.10.4', p.label);
    assert.equal(p.newestContract.version, 'v1.12.0', p.label);
  }
  const table = await run(['plan', ...ws.common]);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /cluster-api\s+capi-system\s+CoreProvider\s+v1\.8\.0\s+v1beta1\s+v1\.10\.4/);
});

test('update moves exact pins in the manifest (comments kept) and the lock with them', async () => {
  const text = `# our management cluster\n${manifest({ core: 'v1.8.0', kubeadm: 'v1.8.0' })}`;
  const ws = workspace(text);
  assert.equal((await run(['lock', ...ws.common])).code, 0);
  const result = await run(['update', ...ws.common]);
  assert.equal(result.code, 0, result.stderr);
  const updated = readFileSync(ws.manifest, 'utf8');
  assert.equal(updated, text.replaceAll('version: v1.8.0', 'version: v1.10.4'));
  assert.match(result.stdout, /spec\.version v1\.8\.0 → v1\.10\.4/);
  const lock = readFileSync(path.join(ws.dir, 'capi-gitops.lock.yaml'), 'utf8');
  assert.ok(!lock.includes('version: v1.8.0'));
  assert.match(lock, /version: v1\.10\.4/);
  const toV1beta2 = await run(['update', ...ws.common, '--contract', 'v1beta2']);
  assert.equal(toV1beta2.code, 0, toV1beta2.stderr);
  assert.match(readFileSync(ws.manifest, 'utf8'), /version: v1\.12\.0/);
});

/** `script` (util-linux, in every Debian base system) gives the CLI a pseudo-terminal. */
function runOnTerminal(args: string[]): Promise<{ code: number | null; output: string }> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, GITHUB_TOKEN: 'ghp_e2e_secret_token', TERM: 'xterm' };
    delete env.CI;
    delete env.GH_TOKEN;
    const command = [process.execPath, CLI, ...args].map(quote).join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], { env });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ code, output }));
  });
}

test('on a terminal outside CI a live progress bar is drawn and cleared; the token is never shown', async () => {
  const ws = workspace(manifest({ core: 'v1.12.0', kubeadm: 'v1.12.0' }));
  const result = await runOnTerminal(['render', ...ws.common, '-o', ws.out]);
  assert.equal(result.code, 0, result.output);
  assert.match(result.output, /\d+\/\d+ files \| [\d.]+ (B|KiB|MiB) \|/, 'the bar was drawn');
  assert.match(result.output, /\u001b\[\?25l/, 'the cursor was hidden while the bar ran');
  assert.match(result.output, /wrote .*: \d+ written/);
  assert.ok(!result.output.includes('ghp_e2e_secret_token'));
});
