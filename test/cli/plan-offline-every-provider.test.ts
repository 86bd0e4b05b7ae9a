/**
 * `plan --offline` in CI from a cache that lacks the release listings (a runner without the key
 * that signed them, or a cache pruned by hand): every provider whose releases cannot be listed is
 * told in the one run, as DEVELOPERS.md asks (collect all problems, then throw once), not only the
 * first one to fail.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/corpus-manifest.js';
import { CORE_MANAGER_DEPLOYMENT, localCoreRelease, localRelease, serveDirectory } from '../helpers/local-release.js';
import { assertNoStackTrace, runCliAsync } from '../helpers/cli.js';

const deployment = (name: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}-controller-manager, namespace: ${name}-system}
spec:
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
      - {name: manager, image: registry.example/${name}:v0.1.0}
`;

test('plan --offline without the release listings in the cache tells every provider that needs one, in one run', async () => {
  const root = tempDir();
  localRelease(root, 'bootstrap-talos', 'bootstrap-components.yaml', deployment('talos-bootstrap'));
  localRelease(root, 'control-plane-talos', 'control-plane-components.yaml', deployment('talos-control-plane'));
  writeFileSync(path.join(root, 'versions.txt'), 'v0.1.0\n');
  const server = await serveDirectory(root);
  try {
    const dir = tempDir();
    const entry = (type: string, label: string, file: string) =>
      `- {name: talos, type: ${type}, url: '${server.url}/${label}/{version}/${file}', versionsUrl: '${server.url}/versions.txt'}`;
    writeFileSync(
      path.join(dir, 'providers.yaml'),
      `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec:
  fetchConfig: {url: ${localCoreRelease(CORE_MANAGER_DEPLOYMENT)}}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: BootstrapProvider
metadata: {name: talos, namespace: talos-bootstrap-system}
spec: {version: v0.1.0}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: ControlPlaneProvider
metadata: {name: talos, namespace: talos-control-plane-system}
spec: {version: v0.1.0}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
repositories:
${entry('BootstrapProvider', 'bootstrap-talos', 'bootstrap-components.yaml')}
${entry('ControlPlaneProvider', 'control-plane-talos', 'control-plane-components.yaml')}
`,
    );
    const cache = path.join(dir, 'cache');
    const args = ['-f', dir, '--cache-dir', cache];
    const render = await runCliAsync(['render', ...args, '-o', path.join(dir, 'out')], process.env);
    assert.equal(render.code, 0, render.stderr);
    assert.equal((await runCliAsync(['plan', ...args], process.env)).code, 0);
    const warm = await runCliAsync(['plan', '--offline', ...args], process.env);
    assert.equal(warm.code, 0, warm.stderr);

    rmSync(path.join(cache, 'http'), { recursive: true });
    const plan = await runCliAsync(['plan', '--offline', ...args], process.env);
    assertNoStackTrace(plan, 'plan');
    assert.equal(plan.code, 1, plan.stdout);
    assert.match(
      plan.stderr,
      /providers\.yaml:\d+:\d+: error: BootstrapProvider\/talos-bootstrap-system\/talos: .*offline: .* is not in the cache/,
    );
    assert.match(
      plan.stderr,
      /providers\.yaml:\d+:\d+: error: ControlPlaneProvider\/talos-control-plane-system\/talos: .*offline: .* is not in the cache/,
    );
  } finally {
    server.close();
  }
});
