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
import { ArtifactCache } from '../src/sources/cache.js';
import { renderOutput } from '../src/app/run.js';
import path from 'node:path';

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
