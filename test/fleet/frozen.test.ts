/**
 * A fleet under --frozen (and check) against a fake GitHub on 127.0.0.1: what the fleet's lock
 * does not answer is told before any request, at the field of the layer that chose it, once for
 * every cluster it reaches; a fleet whose lock answers everything renders offline.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/corpus-manifest.js';
import { readTree } from '../helpers/tree.js';
import { corpusReleases, FakeGitHub } from '../helpers/fake-github.js';
import { runCliAsync, type CliResult } from '../helpers/cli.js';

/** Runs the CLI without blocking the event loop (the fake GitHub answers in this process). */
async function run(args: string[]): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true' };
  delete env.GITHUB_TOKEN;
  delete env.GH_TOKEN;
  return await runCliAsync(args, env);
}

const github = await FakeGitHub.start({
  'kubernetes-sigs/cluster-api': corpusReleases(['cluster-api', 'bootstrap-kubeadm', 'control-plane-kubeadm']),
});
after(() => github.close());

const PROVIDERS = `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec: {version: v1.12.0}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: BootstrapProvider
metadata: {name: kubeadm, namespace: capi-kubeadm-bootstrap-system}
spec: {version: v1.12.0}
`;

const RELEASES = `apiVersion: capi-gitops.dev/v1alpha1
kind: Release
metadata: {name: "2025.05.0"}
providers:
  CoreProvider/cluster-api: v1.10.4
  BootstrapProvider/kubeadm: v1.10.4
`;

function fleet(clusters: string): string {
  return `apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
clusters:
${clusters}`;
}

const CLUSTERS = `- name: eu-1
- name: us-1
- name: lab-1
  release: "2025.05.0"
`;

function workspace() {
  const dir = tempDir('capi-gitops-frozen-fleet-');
  writeFileSync(path.join(dir, 'providers.yaml'), PROVIDERS);
  writeFileSync(path.join(dir, 'releases.yaml'), RELEASES);
  writeFileSync(path.join(dir, 'fleet.yaml'), fleet(CLUSTERS));
  const out = path.join(dir, 'out');
  return { dir, out, common: ['-f', dir, '--cache-dir', path.join(dir, 'cache'), '--github-api-url', github.apiUrl] };
}

test('a fleet whose lock answers every cluster renders --frozen (and --offline) and checks with zero requests and the same bytes', async () => {
  const ws = workspace();
  const first = await run(['render', ...ws.common, '-o', ws.out]);
  assert.equal(first.code, 0, first.stderr);
  const lock = readFileSync(path.join(ws.dir, 'capi-gitops.lock.yaml'), 'utf8');
  const before = readTree(ws.out);
  const requests = github.requests.length;
  // the release is checked from the lock's pins too, as the clusters on it are
  for (const args of [['render', '--frozen'], ['render', '--frozen', '--offline'], ['check'], ['check', '--offline']]) {
    const result = await run([...args, ...ws.common, '-o', ws.out]);
    assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  }
  assert.equal(github.requests.length, requests, 'a locked fleet made requests');
  assert.deepEqual(readTree(ws.out), before);
  assert.equal(readFileSync(path.join(ws.dir, 'capi-gitops.lock.yaml'), 'utf8'), lock);
});

for (const command of ['render', 'check']) {
  test(`${command} of a fleet: what its lock does not answer is told before any request, at the layer's field, once for the clusters it reaches`, async () => {
    const ws = workspace();
    assert.equal((await run(['render', ...ws.common, '-o', ws.out])).code, 0);
    const lock = readFileSync(path.join(ws.dir, 'capi-gitops.lock.yaml'), 'utf8');
    const before = readTree(ws.out);
    // the shared manifest moves kubeadm for eu-1 and us-1; lab-1's overlay moves its core
    writeFileSync(path.join(ws.dir, 'providers.yaml'), PROVIDERS.replace(/v1\.12\.0}\n$/, 'v1.10.4}\n'));
    writeFileSync(
      path.join(ws.dir, 'fleet.yaml'),
      fleet(CLUSTERS + '  providers:\n    CoreProvider/cluster-api: {spec: {version: v1.12.0}}\n'),
    );
    const requests = github.requests.length;
    const result = await run([command, ...ws.common, '-o', ws.out, ...(command === 'render' ? ['--frozen'] : [])]);
    assert.equal(result.code, 1, result.stderr);
    assert.equal(github.requests.length, requests, `a frozen fleet ${command} asked GitHub for what its lock does not answer`);
    const errors = result.stderr
      .split('\n')
      .filter((l) => l.includes('error: '))
      .map((l) => l.replace(`${ws.dir}${path.sep}`, ''));
    assert.deepEqual(errors, [
      'fleet.yaml:10:48: error: cluster lab-1, overlay: CoreProvider/capi-system/cluster-api: spec.version: --frozen (or check, which implies it): the lockfile would change: ~ cluster-api v1.10.4 → v1.12.0',
      'providers.yaml:9:17: error: clusters eu-1, us-1, shared manifest: BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm: spec.version: --frozen (or check, which implies it): the lockfile would change: ~ bootstrap-kubeadm v1.12.0 → v1.10.4',
    ]);
    assert.deepEqual(readTree(ws.out), before, 'the output changed');
    assert.equal(readFileSync(path.join(ws.dir, 'capi-gitops.lock.yaml'), 'utf8'), lock, 'the lock changed');
    // the hint, followed literally, moves the lock (check's, with the output: one step); then the same run passes
    const hint =
      command === 'render'
        ? /hint: run `capi-gitops (lock [^`]+)` \(or render without --frozen\), review the change and commit the lockfile/.exec(
            result.stderr,
          )
        : /hint: run `capi-gitops (render [^`]+)`, which updates the lockfile and the output together, review the change and commit both/.exec(
            result.stderr,
          );
    assert.ok(hint, result.stderr);
    assert.equal((await run(hint[1]!.split(' '))).code, 0);
    const again = await run([command, ...ws.common, '-o', ws.out, ...(command === 'render' ? ['--frozen'] : [])]);
    assert.equal(again.code, 0, again.stdout + again.stderr);
  });
}

test('a fleet under --frozen without a lockfile fails once, before any request', async () => {
  const ws = workspace();
  const requests = github.requests.length;
  const result = await run(['render', ...ws.common, '-o', ws.out, '--frozen']);
  assert.equal(result.code, 1, result.stderr);
  assert.equal(github.requests.length, requests, 'a frozen fleet without a lock made requests');
  assert.deepEqual(
    result.stderr.split('\n').filter((l) => l.includes('error: ')),
    [
      `${path.join(ws.dir, 'capi-gitops.lock.yaml')}: error: clusters eu-1, lab-1, us-1: there is no lockfile, and --frozen (or check, which implies it) needs one`,
    ],
  );
});

test("check --cluster of a fleet whose lock is stale: the hint, followed literally, renders the whole fleet (the lock is all clusters'), so a full check then passes", async () => {
  const ws = workspace();
  assert.equal((await run(['render', ...ws.common, '-o', ws.out])).code, 0);
  writeFileSync(path.join(ws.dir, 'providers.yaml'), PROVIDERS.replace(/v1\.12\.0}\n$/, 'v1.10.4}\n'));
  const result = await run(['check', ...ws.common, '-o', ws.out, '--cluster', 'eu-1']);
  assert.equal(result.code, 1, result.stderr);
  const hint = /hint: run `capi-gitops (render [^`]+)`, which updates the lockfile and the output together/.exec(result.stderr);
  assert.ok(hint, result.stderr);
  assert.doesNotMatch(hint[1]!, /--cluster/);
  assert.equal((await run(hint[1]!.split(' '))).code, 0);
  const again = await run(['check', ...ws.common, '-o', ws.out]);
  assert.equal(again.code, 0, again.stdout + again.stderr);
});
