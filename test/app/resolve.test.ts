/**
 * What a resolution tells about the move from the lock to the manifest (src/app/resolve.ts): a
 * core provider moved more than 3 minors in one step is a warning at its spec.version, whether
 * the manifest was edited by hand (render, lock) or by `update`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { corpusCoreProvider, tempDir } from '../helpers/corpus-manifest.js';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';
import { runCli } from '../helpers/cli.js';
import { localReleases, managerDeployment } from '../helpers/local-release.js';

const RELEASES = ['v1.7.0', 'v1.11.0', 'v1.15.0'];

/** A local repository of core provider releases, all of contract v1beta1; returns its `latest` URL. */
function coreReleases(): string {
  const series = RELEASES.map((tag) => `- {major: 1, minor: ${tag.split('.')[1]}, contract: v1beta1}\n`).join('');
  return localReleases(tempDir(), 'cluster-api', 'core-components.yaml', RELEASES, series, (tag) =>
    managerDeployment('capi-controller-manager', 'capi-system', 'capi', tag),
  );
}

/** A manifest directory pinning the core provider at `version` (spec.version on line 7, column 12). */
function writeManifest(dir: string, url: string, version: string): void {
  writeFileSync(
    path.join(dir, 'providers.yaml'),
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
  namespace: capi-system
spec:
  version: ${version}
  fetchConfig:
    url: ${url}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
`,
  );
}

const SKIP = /skips more than 3 minor versions/;

test('a core provider moved more than 3 minors above the lock warns at its spec.version: unsupported before v1.10, refused by clusterctl from v1.10 (cmd/clusterctl/client/cluster/upgrader.go doUpgrade)', async () => {
  const url = coreReleases();
  const dir = tempDir();
  const cache = ['--cache-dir', path.join(tempDir(), 'cache')];
  writeManifest(dir, url, 'v1.7.0');
  const first = await runCli(['lock', '-f', dir, ...cache]);
  assert.equal(first.code, 0, first.stderr);
  assert.doesNotMatch(first.stderr, SKIP);

  writeManifest(dir, url, 'v1.11.0');
  const unsupported = await runCli(['lock', '-f', dir, ...cache]);
  assert.equal(unsupported.code, 0, unsupported.stderr);
  assert.match(
    unsupported.stderr,
    /providers\.yaml:7:12: warning: CoreProvider\/capi-system\/cluster-api: spec\.version: v1\.7\.0 → v1\.11\.0 skips more than 3 minor versions: Cluster API supports at most 3 per upgrade\n\s+hint: set spec\.version to a v1\.10 release \(or lower\) first/,
  );

  writeManifest(dir, url, 'v1.15.0');
  const refused = await runCli(['lock', '-f', dir, ...cache]);
  assert.equal(refused.code, 0, refused.stderr);
  assert.match(refused.stderr, /v1\.11\.0 → v1\.15\.0 skips more than 3 minor versions: clusterctl refuses such an upgrade/);

  // the lock now holds v1.15.0: nothing moves, nothing to warn about
  const again = await runCli(['lock', '-f', dir, ...cache]);
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stderr, SKIP);
});

test('update warns as plan does when it moves core more than 3 minors (plan lists the same warning; Cluster API docs/book/src/reference/versions.md)', async () => {
  const url = coreReleases();
  const dir = tempDir();
  const cache = ['--cache-dir', path.join(tempDir(), 'cache')];
  writeManifest(dir, url, 'v1.7.0');
  assert.equal((await runCli(['lock', '-f', dir, ...cache])).code, 0);
  const plan = await runCli(['plan', '-f', dir, ...cache]);
  assert.match(plan.stdout, /v1\.7\.0 → v1\.15\.0 skips more than 3 minor versions/);
  const update = await runCli(['update', '-f', dir, ...cache]);
  assert.equal(update.code, 0, update.stderr);
  assert.match(update.stderr, /providers\.yaml:7:12: warning: .*v1\.7\.0 → v1\.15\.0 skips more than 3 minor versions/);
});

test('a contract edited by hand in the lockfile is not kept: check fails at its line, lock puts it right from metadata.yaml (whose digest the lock checks)', async () => {
  const url = coreReleases();
  const dir = tempDir();
  const cache = ['--cache-dir', path.join(tempDir(), 'cache')];
  writeManifest(dir, url, 'v1.7.0');
  assert.equal((await runCli(['lock', '-f', dir, ...cache])).code, 0);
  const lockFile = path.join(dir, 'capi-gitops.lock.yaml');
  const locked = readFileSync(lockFile, 'utf8');
  assert.match(locked, /contract: v1beta1/);
  writeFileSync(lockFile, locked.replace('contract: v1beta1', 'contract: v1beta2'));
  const line = locked.split('\n').findIndex((l) => l.includes('contract: v1beta1')) + 1;

  const frozen = await runCli(['render', '-f', dir, '-o', path.join(tempDir(), 'out'), ...cache, '--frozen']);
  assert.equal(frozen.code, 1, frozen.stderr);
  assert.match(
    frozen.stderr,
    new RegExp(
      `capi-gitops\\.lock\\.yaml:${line}:15: error: .*the lockfile would change: ~ cluster-api v1\\.7\\.0: contract v1beta2 → v1beta1`,
    ),
  );
  const relock = await runCli(['lock', '-f', dir, ...cache]);
  assert.equal(relock.code, 0, relock.stderr);
  assert.match(relock.stdout, /~ cluster-api v1\.7\.0: contract v1beta2 → v1beta1/);
  assert.equal(readFileSync(lockFile, 'utf8'), locked);
});

test("in a fleet, a move of more than 3 minors that a Release's entry makes is hinted as a release to put the clusters on first: a Release has no spec.version", async () => {
  const url = coreReleases();
  const dir = tempDir();
  const cache = ['--cache-dir', path.join(tempDir(), 'cache')];
  const write = (release: string) =>
    writeFileSync(
      path.join(dir, 'providers.yaml'),
      `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec:
  fetchConfig: {url: ${url}}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Release
metadata: {name: r2024}
providers:
  CoreProvider/cluster-api: v1.7.0
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Release
metadata: {name: r2026}
providers:
  CoreProvider/cluster-api: v1.11.0
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
release: r2024
clusters:
- name: c1
  release: ${release}
- name: c2
`,
    );
  write('r2024');
  const first = await runCli(['lock', '-f', dir, ...cache]);
  assert.equal(first.code, 0, first.stderr);
  write('r2026');
  const moved = await runCli(['lock', '-f', dir, ...cache]);
  assert.equal(moved.code, 0, moved.stderr);
  assert.match(
    moved.stderr,
    /providers\.yaml:17:29: warning: cluster c1.*: spec\.version: v1\.7\.0 → v1\.11\.0 skips more than 3 minor versions: Cluster API supports at most 3 per upgrade\n\s+hint: move to a release with CoreProvider\/cluster-api: v1\.10\.x \(or lower\) first \(a Release of its own, or an older one, named in each cluster's release:\), render and roll it out, then move on to r2026\n/,
  );
  assert.doesNotMatch(moved.stderr, /set spec\.version/);
});

/** A local cert-manager release of one Deployment, in clusterctl's layout: `<root>/cert-manager/<tag>/cert-manager.yaml`. */
function certManagerRelease(root: string, tag: string): string {
  const dir = path.join(root, 'cert-manager', tag);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'cert-manager.yaml'),
    `apiVersion: apps/v1
kind: Deployment
metadata:
  name: cert-manager
  namespace: cert-manager
  labels: {app.kubernetes.io/version: ${tag}}
spec:
  selector: {matchLabels: {app: cert-manager}}
  template:
    metadata: {labels: {app: cert-manager}}
    spec:
      containers:
        - name: cert-manager-controller
          image: quay.io/jetstack/cert-manager-controller:${tag}
`,
  );
  return path.join(dir, 'cert-manager.yaml');
}

test('cert-manager asked below the locked release warns at certManager.version: clusterctl leaves a newer cert-manager in place (cmd/clusterctl/client/cluster/cert_manager.go shouldUpgrade)', async () => {
  const url = coreReleases();
  const mirror = tempDir();
  const newer = certManagerRelease(mirror, 'v1.14.0');
  certManagerRelease(mirror, 'v1.13.0');
  const dir = tempDir();
  const cache = ['--cache-dir', path.join(tempDir(), 'cache')];
  const withCertManager = (version: string) => {
    writeManifest(dir, url, 'v1.7.0');
    const file = path.join(dir, 'providers.yaml');
    const config = `certManager:\n  version: ${version}\n  url: ${pathToFileURL(newer).href}\n`;
    writeFileSync(file, readFileSync(file, 'utf8').replace('certManager: {enabled: false}\n', config));
  };
  withCertManager('v1.14.0');
  assert.equal((await runCli(['lock', '-f', dir, ...cache])).code, 0);

  withCertManager('v1.13.0');
  const back = await runCli(['lock', '-f', dir, ...cache]);
  assert.equal(back.code, 0, back.stderr);
  assert.match(
    back.stderr,
    /providers\.yaml:14:12: warning: Config: certManager\.version: v1\.13\.0 is below the locked v1\.14\.0: a downgrade[^\n]*cert_manager\.go shouldUpgrade/,
  );
  // locked there now: nothing more to say
  const again = await runCli(['lock', '-f', dir, ...cache]);
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stderr, /downgrade/);
});

test('a selector that matches a ConfigMap left out for a problem of its own tells that problem alone, not "no ConfigMap matches" with a hint to select another ConfigMap (as a configSecret left out is not told again as missing)', async () => {
  const metadata = readFileSync(path.join(CORPUS_REPOSITORY, 'bootstrap-rke2', 'v0.11.0', 'metadata.yaml'), 'utf8');
  const configMap = (name: string, type: string, extra: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  namespace: rke2-system
  labels:
    provider.cluster.x-k8s.io/name: rke2
    provider.cluster.x-k8s.io/type: ${type}
    provider.cluster.x-k8s.io/version: v0.11.0
data:
  components: "apiVersion: v1\\nkind: Namespace\\nmetadata:\\n  name: rke2-system\\n"
  metadata: ${JSON.stringify(metadata)}
${extra}`;
  const dir = tempDir();
  writeFileSync(
    path.join(dir, 'providers.yaml'),
    [
      corpusCoreProvider(),
      `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: BootstrapProvider
metadata:
  name: rke2
  namespace: rke2-system
spec:
  version: v0.11.0
  fetchConfig:
    selector:
      matchLabels:
        provider.cluster.x-k8s.io/name: rke2
        provider.cluster.x-k8s.io/type: bootstrap
`,
      // the API server refuses a key in both data and binaryData: this ConfigMap is left out
      configMap('bootstrap-rke2-v0.11.0', 'bootstrap', `binaryData:\n  components: ${Buffer.from('x').toString('base64')}\n`),
      configMap('controlplane-rke2-v0.11.0', 'controlplane', ''),
      'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\ncertManager: {enabled: false}\n',
    ].join('---\n'),
  );
  const result = await runCli(['render', '-f', dir, '-o', path.join(dir, 'out')]);
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stderr,
    /ConfigMap\/rke2-system\/bootstrap-rke2-v0\.11\.0: binaryData\.components: key "components" is in both data and binaryData/,
  );
  assert.doesNotMatch(result.stderr, /no ConfigMap in namespace/);
  assert.doesNotMatch(result.stderr, /fix the selector or the label/);
});
