/**
 * A release several providers share (the core, kubeadm bootstrap and kubeadm control plane all
 * come from kubernetes-sigs/cluster-api) is fetched once per run, and when the network fails
 * there, the failure is one problem naming every provider that needed it, whether one cluster or
 * a fleet of them asked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeGitHub, corpusReleases } from './helpers/fake-github.js';
import { tempDir, writeTempManifest } from './helpers/corpus-manifest.js';
import { rejection } from './helpers/assertions.js';
import { runCli } from './helpers/cli.js';
import { ArtifactCache } from '../src/sources/cache.js';
import { renderOutput } from '../src/app/run.js';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { FakeGitLab, SLUG, type Hooks } from './helpers/fake-gitlab.js';
import { CORPUS_REPOSITORY } from './helpers/paths.js';
import { manifest as resolveManifest, provider } from './fixtures/resolve/builders.js';
import { RunContext } from '../src/app/context.js';
import { resolveEachProvider } from '../src/resolve/fetch-releases.js';
import { networkOptions } from '../src/sources/base/network-options.js';
import { openGitLabRepository } from '../src/sources/gitlab/repository.js';
import type { SourceModule } from '../src/sources/index.js';

const PROVIDERS = ['CoreProvider/capi-system/cluster-api', 'BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm'].concat(
  'ControlPlaneProvider/capi-kubeadm-control-plane-system/kubeadm',
);

function manifest(version: string, clusters = ''): string {
  const spec = version === 'latest' ? '{}' : `{version: ${version}}`;
  return `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec: ${spec}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: BootstrapProvider
metadata: {name: kubeadm, namespace: capi-kubeadm-bootstrap-system}
spec: ${spec}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: ControlPlaneProvider
metadata: {name: kubeadm, namespace: capi-kubeadm-control-plane-system}
spec: ${spec}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
network: {retries: 0}
${clusters}`;
}

async function failedRender(text: string, fault: (github: FakeGitHub) => void) {
  const github = await FakeGitHub.start({
    'kubernetes-sigs/cluster-api': corpusReleases(['cluster-api', 'bootstrap-kubeadm', 'control-plane-kubeadm']),
  });
  try {
    fault(github);
    const cache = new ArtifactCache(path.join(tempDir(), 'cache'));
    const dir = writeTempManifest({ 'providers.yaml': text });
    const error = await rejection(renderOutput({ manifestPaths: [dir], sources: { cache, github: { apiUrl: github.apiUrl } } }));
    return { github, problems: error.diagnostics };
  } finally {
    await github.close();
  }
}

test('metadata.yaml of kubernetes-sigs/cluster-api v1.12.0 cut off for every provider: downloaded once, one problem naming the three providers', async () => {
  const { github, problems } = await failedRender(manifest('v1.12.0'), (gh) =>
    gh.inject({ server: 'storage', path: /\/metadata\.yaml$/, reset: true, times: 100 }),
  );
  assert.equal(github.count(/\/metadata\.yaml$/, 'storage'), 1, 'metadata.yaml requested once');
  const shared = problems.filter((d) => /metadata\.yaml/.test(d.message));
  assert.equal(shared.length, 1, JSON.stringify(shared, null, 2));
  for (const provider of PROVIDERS) assert.ok(shared[0]!.object?.includes(provider), `${provider} in ${shared[0]!.object}`);
  assert.equal(shared[0]!.line, 1, 'at the first provider that needed it');
});

test('the release list of kubernetes-sigs/cluster-api failing (HTTP 503) for a fleet of three clusters: listed once, one problem naming the providers and the clusters', async () => {
  const clusters = 'clusters:\n- name: eu-1\n- name: us-1\n- name: ap-1\n';
  const { github, problems } = await failedRender(manifest('latest', clusters), (gh) =>
    gh.inject({ path: /\/releases$/, status: 503, times: 100 }),
  );
  assert.equal(github.count('/repos/kubernetes-sigs/cluster-api/releases'), 1, 'the releases listed once');
  const shared = problems.filter((d) => /cannot list the releases/.test(d.message));
  assert.equal(shared.length, 1, JSON.stringify(shared, null, 2));
  for (const provider of PROVIDERS) assert.ok(shared[0]!.object?.includes(provider), `${provider} in ${shared[0]!.object}`);
  assert.match(shared[0]!.object!, /^clusters /);
});

test('the core, kubeadm bootstrap and control plane of kubernetes-sigs/cluster-api v1.12.0 in a fleet of two clusters: GET releases/tags/v1.12.0 once, each asset downloaded once', async () => {
  const github = await FakeGitHub.start({
    'kubernetes-sigs/cluster-api': corpusReleases(['cluster-api', 'bootstrap-kubeadm', 'control-plane-kubeadm']),
  });
  try {
    const cache = new ArtifactCache(path.join(tempDir(), 'cache'));
    const dir = writeTempManifest({ 'providers.yaml': manifest('v1.12.0', 'clusters:\n- name: eu-1\n- name: us-1\n') });
    await renderOutput({ manifestPaths: [dir], sources: { cache, github: { apiUrl: github.apiUrl } } });
    assert.equal(github.count('/repos/kubernetes-sigs/cluster-api/releases/tags/v1.12.0'), 1, 'the release read once');
    for (const asset of ['metadata.yaml', 'core-components.yaml', 'bootstrap-components.yaml', 'control-plane-components.yaml'])
      assert.equal(github.count(new RegExp(`/${asset.replaceAll('.', '\\.')}$`), 'storage'), 1, `${asset} downloaded once`);
  } finally {
    await github.close();
  }
});

test('GET releases/tags/v1.12.0 failing (HTTP 503) for the core, kubeadm bootstrap and control plane: asked once, one problem naming the three providers', async () => {
  const { github, problems } = await failedRender(manifest('v1.12.0'), (gh) =>
    gh.inject({ path: '/repos/kubernetes-sigs/cluster-api/releases/tags/v1.12.0', status: 503, times: 100 }),
  );
  assert.equal(github.count('/repos/kubernetes-sigs/cluster-api/releases/tags/v1.12.0'), 1, 'the release asked once');
  const shared = problems.filter((d) => /get release v1\.12\.0/.test(d.message));
  assert.equal(shared.length, 1, JSON.stringify(problems, null, 2));
  for (const provider of PROVIDERS) assert.ok(shared[0]!.object?.includes(provider), `${provider} in ${shared[0]!.object}`);
});

// ---- GitLab: one package serves the three providers --------------------------------------------

const GITLAB_PROVIDERS = [
  ['CoreProvider', 'cluster-api', 'capi-system', 'core-components.yaml', 'cluster-api'],
  ['BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system', 'bootstrap-components.yaml', 'bootstrap-kubeadm'],
  ['ControlPlaneProvider', 'kubeadm', 'capi-kubeadm-control-plane-system', 'control-plane-components.yaml', 'control-plane-kubeadm'],
] as const;

/** The GitLab package cluster-api v1.12.0 holding the three providers' files (and metadata.yaml unless left out). */
async function gitlabPackage(t: Hooks, withMetadata = true): Promise<FakeGitLab> {
  const corpus = (label: string, file: string) => readFileSync(path.join(CORPUS_REPOSITORY, label, 'v1.12.0', file));
  const files: Record<string, Buffer> = withMetadata ? { 'metadata.yaml': corpus('cluster-api', 'metadata.yaml') } : {};
  for (const [, , , file, label] of GITLAB_PROVIDERS) files[file] = corpus(label, file);
  return FakeGitLab.start(t, [{ name: 'cluster-api', version: 'v1.12.0', files }]);
}

/** The three providers resolved from the fake GitLab through a run's context, as each cluster of a fleet resolves. */
function resolveFromGitLab(fake: FakeGitLab, context: RunContext) {
  const gitlab: SourceModule = {
    id: 'gitlab',
    serves: 'the fake GitLab',
    // the fake is on 127.0.0.1, not a gitlab.* host: named as a self-managed one
    open: (request, source) =>
      request.from === 'url'
        ? openGitLabRepository(request.url, { ...networkOptions(request, source), hosts: [fake.host], env: {} })
        : null,
  };
  const providers = GITLAB_PROVIDERS.map(([kind, name, namespace, file]) =>
    provider(kind, name, namespace, {
      fetchConfig: { url: `${fake.url}/api/v4/projects/${SLUG}/packages/generic/cluster-api/v1.12.0/${file}` },
    }),
  );
  return resolveEachProvider(resolveManifest(providers), {
    modules: [gitlab],
    sources: { http: { retries: 0 } },
    decorate: (repository) => context.repository(repository),
  });
}

const requestsFor = (fake: FakeGitLab, file: string) => fake.requests.filter((r) => r.url.endsWith(`/${file}`)).length;

test('the core, kubeadm bootstrap and control plane from one GitLab package, in two clusters of a run: every file requested once (metadata.yaml once, not three times)', async (t) => {
  const fake = await gitlabPackage(t);
  const context = new RunContext(undefined);
  for (const cluster of ['eu-1', 'us-1']) {
    const { providers, problems } = await resolveFromGitLab(fake, context);
    assert.deepEqual(problems, [], cluster);
    assert.equal(providers.length, 3);
  }
  assert.equal(requestsFor(fake, 'metadata.yaml'), 1);
  for (const [, , , file] of GITLAB_PROVIDERS) assert.equal(requestsFor(fake, file), 1, file);
  assert.equal(fake.requests.length, 4);
});

test('metadata.yaml missing from that GitLab package (HTTP 404): requested once, one problem naming the three providers', async (t) => {
  const fake = await gitlabPackage(t, false);
  const { problems } = await resolveFromGitLab(fake, new RunContext(undefined));
  assert.equal(requestsFor(fake, 'metadata.yaml'), 1);
  const shared = problems.filter((d) => /metadata\.yaml/.test(d.message));
  assert.equal(shared.length, 1, JSON.stringify(problems, null, 2));
  for (const [kind, name, namespace] of GITLAB_PROVIDERS)
    assert.ok(shared[0]!.object?.includes(`${kind}/${namespace}/${name}`), `${kind} in ${shared[0]!.object}`);
});

test('--offline with an empty cache, the core, kubeadm bootstrap and control plane locked from kubernetes-sigs/cluster-api v1.12.0: their one metadata.yaml missing is one problem naming the three providers', async () => {
  const github = await FakeGitHub.start({
    'kubernetes-sigs/cluster-api': corpusReleases(['cluster-api', 'bootstrap-kubeadm', 'control-plane-kubeadm']),
  });
  try {
    const dir = writeTempManifest({ 'providers.yaml': manifest('v1.12.0') });
    const env = { ...process.env, GITHUB_TOKEN: 'ghp_shared_release_token' };
    const run = (cache: string, ...args: string[]) =>
      runCli([...args, '-f', dir, '--cache-dir', path.join(dir, cache), '--github-api-url', github.apiUrl], { env });
    const locked = await run('cache', 'lock');
    assert.equal(locked.code, 0, locked.stderr);
    const offline = await run('empty-cache', 'render', '-o', path.join(dir, 'out'), '--frozen', '--offline');
    assert.equal(offline.code, 1);
    const misses = offline.stderr.split('\n').filter((line) => / error: .*--offline: the locked metadata\.yaml /.test(line));
    assert.equal(misses.length, 1, offline.stderr);
    assert.match(misses[0]!, new RegExp(`^\\S*providers\\.yaml:1:1: error: ${PROVIDERS.join(', ')}: `));
  } finally {
    await github.close();
  }
});
