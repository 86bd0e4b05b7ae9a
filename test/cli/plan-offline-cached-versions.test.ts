/**
 * `plan --offline` answers from the release listings an earlier online run cached, of any age.
 * It says so, as it says that images were not asked of their registries: a warning naming the
 * providers, `versionsFromCache` in --json, and no "listing versions of …" line for a request it
 * did not make.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/corpus-manifest.js';
import { CORE_MANAGER_DEPLOYMENT, localCoreRelease, localReleases, serveDirectory } from '../helpers/local-release.js';
import { runCliAsync } from '../helpers/cli.js';

const TALOS_DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: talos-bootstrap-controller-manager, namespace: talos-bootstrap-system}
spec:
  selector: {matchLabels: {app: talos}}
  template:
    metadata: {labels: {app: talos}}
    spec:
      containers:
      - {name: manager, image: registry.example/talos-bootstrap:v0.1.0}
`;
/** The core from a local release and talos from the server's {version} template, listed by versions.txt. */
function talosManifest(serverUrl: string, version: string): string {
  return `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec:
  fetchConfig: {url: ${localCoreRelease(CORE_MANAGER_DEPLOYMENT)}}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: BootstrapProvider
metadata: {name: talos, namespace: talos-bootstrap-system}
spec: {version: ${version}}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
repositories:
- {name: talos, type: BootstrapProvider, url: '${serverUrl}/bootstrap-talos/{version}/bootstrap-components.yaml', versionsUrl: '${serverUrl}/versions.txt'}
`;
}

const SERIES = '- {major: 0, minor: 1, contract: v1beta2}\n- {major: 0, minor: 2, contract: v1beta2}\n';

test("plan --offline says its release lists are the cache's copy of an earlier listing (warning, --json versionsFromCache), not that it listed them", async () => {
  const root = tempDir();
  localReleases(root, 'bootstrap-talos', 'bootstrap-components.yaml', ['v0.1.0', 'v0.2.0'], SERIES, () => TALOS_DEPLOYMENT);
  writeFileSync(path.join(root, 'versions.txt'), 'v0.1.0\n');
  const server = await serveDirectory(root);
  try {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'providers.yaml'), talosManifest(server.url, 'v0.1.0'));
    const args = ['-f', dir, '--cache-dir', path.join(dir, 'cache')];
    assert.equal((await runCliAsync(['render', ...args, '-o', path.join(dir, 'out')], process.env)).code, 0);
    // an online plan caches the listing; then v0.2.0 is published
    const online = await runCliAsync(['plan', ...args], process.env);
    assert.equal(online.code, 0, online.stderr);
    assert.match(online.stderr, /^listing versions of http:\/\/127\.0\.0\.1:\d+\/bootstrap-talos\/\{version\}/m);
    assert.doesNotMatch(online.stderr, /from the cache|earlier online listing/);
    writeFileSync(path.join(root, 'versions.txt'), 'v0.1.0\nv0.2.0\n');

    const offline = await runCliAsync(['plan', '--offline', ...args], process.env);
    assert.equal(offline.code, 0, offline.stderr);
    assert.doesNotMatch(offline.stderr, /listing versions of/);
    assert.match(
      offline.stderr,
      /^looking in the cache for the versions of http:\/\/127\.0\.0\.1:\d+\/bootstrap-talos\/\{version\}.* \(--offline\)$/m,
    );
    // only the provider listed from the cache: the core's local repository is read as it is now
    assert.match(
      offline.stderr,
      /warning: --offline: the releases of bootstrap-talos are the cache's copy of an earlier online listing, so a newer release is not listed\n\s+hint: run without --offline to list the current releases/,
    );
    const json = await runCliAsync(['plan', '--offline', '--json', ...args], process.env);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual((JSON.parse(json.stdout) as { versionsFromCache?: string[] }).versionsFromCache, ['bootstrap-talos']);

    // online, the field is absent and the new release is offered
    const current = await runCliAsync(['plan', '--json', ...args], process.env);
    const plan = JSON.parse(current.stdout) as { versionsFromCache?: string[] };
    assert.equal(plan.versionsFromCache, undefined);
    assert.match(current.stdout, /v0\.2\.0/);
  } finally {
    server.close();
  }
});

test('plan --offline offers the update that applies the plan it printed: with --offline, so followed literally it moves to the listed release, not to one published since', async () => {
  const root = tempDir();
  localReleases(root, 'bootstrap-talos', 'bootstrap-components.yaml', ['v0.1.0', 'v0.2.0', 'v0.2.1'], SERIES, () => TALOS_DEPLOYMENT);
  writeFileSync(path.join(root, 'versions.txt'), 'v0.1.0\nv0.2.0\n');
  const server = await serveDirectory(root);
  try {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'providers.yaml'), talosManifest(server.url, '"~0.1"'));
    const args = ['-f', dir, '--cache-dir', path.join(dir, 'cache')];
    assert.equal((await runCliAsync(['render', ...args, '-o', path.join(dir, 'out')], process.env)).code, 0);
    writeFileSync(path.join(dir, 'providers.yaml'), readFileSync(path.join(dir, 'providers.yaml'), 'utf8').replace('"~0.1"', '""'));
    assert.equal((await runCliAsync(['plan', ...args], process.env)).code, 0, 'an online plan caches the listing');
    writeFileSync(path.join(root, 'versions.txt'), 'v0.1.0\nv0.2.0\nv0.2.1\n');

    const offline = await runCliAsync(['plan', '--offline', ...args], process.env);
    assert.equal(offline.code, 0, offline.stderr);
    const suggested = /^To update: capi-gitops (.*)$/m.exec(offline.stdout)?.[1] ?? '';
    assert.ok(suggested?.split(' ').includes('--offline'), offline.stdout);
    const updated = await runCliAsync(suggested.split(' '), process.env);
    assert.equal(updated.code, 0, updated.stderr);
    assert.match(readFileSync(path.join(dir, 'capi-gitops.lock.yaml'), 'utf8'), /version: v0\.2\.0\n/, 'the plan printed, not v0.2.1');
  } finally {
    server.close();
  }
});
