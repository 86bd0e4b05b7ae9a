/**
 * A local cert-manager file without certManager.version, outside a `<version>/` directory: its
 * release is what its images and app.kubernetes.io/version labels all say, or the run is refused
 * (it used to be stamped with the default release, v1.19.1, whatever the file was).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { resolveCertManager } from '../../src/resolve/fetch-releases.js';
import { loadManifest } from '../../src/manifest/load.js';
import { certManagerManifestVersions } from '../../src/resolve/cert-manager-version.js';
import { parseArtifact } from '../../src/yaml/parse.js';
import { ArtifactCache } from '../../src/sources/cache.js';
import type { ProviderRepository } from '../../src/core/repository.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';

const CORPUS_CERT_MANAGER = path.join(CORPUS_REPOSITORY, 'cert-manager', 'v1.13.0', 'cert-manager.yaml');

/** A manifest directory whose Config names `./cert-manager.yaml` without a version; `place` puts the file there. */
async function configWithLocalFile(place: (file: string) => void, extra = '') {
  const dir = tempDir();
  place(path.join(dir, 'cert-manager.yaml'));
  const config = path.join(dir, 'config.yaml');
  writeFileSync(config, `apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\ncertManager:\n  url: ./cert-manager.yaml\n${extra}`);
  const manifest = await loadManifest([config]);
  return { manifest, config };
}

test('the corpus cert-manager v1.13.0, read in place through a link with no version in its path, resolves as v1.13.0', async () => {
  const { manifest } = await configWithLocalFile((file) => symlinkSync(CORPUS_CERT_MANAGER, file));
  const resolved = await resolveCertManager(manifest.config, manifest.baseDir);
  assert.equal(resolved?.version, 'v1.13.0');
});

const deployment = (name: string, image: string, version: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: cert-manager
  labels:
    app.kubernetes.io/version: "${version}"
spec:
  template:
    metadata:
      labels:
        app.kubernetes.io/version: "${version}"
    spec:
      containers:
      - name: ${name}
        image: "${image}"
`;

test('the versions a cert-manager manifest names: image tags and app.kubernetes.io/version labels, digests naming none', () => {
  const objects = parseArtifact(
    [
      deployment('cert-manager', 'mirror.example.com/jetstack/cert-manager-controller:v1.16.2', 'v1.16.2'),
      deployment('cert-manager-webhook', `quay.io/jetstack/cert-manager-webhook@sha256:${'a'.repeat(64)}`, 'v1.16.2'),
    ].join('---\n'),
    { source: 'cert-manager.yaml' },
  );
  assert.deepEqual(certManagerManifestVersions(objects), ['v1.16.2']);
});

test('a file whose images and labels disagree is refused at certManager.url, with a hint to set certManager.version', async () => {
  const text = [
    deployment('cert-manager', 'quay.io/jetstack/cert-manager-controller:v1.13.0', 'v1.13.0'),
    deployment('cert-manager-webhook', 'quay.io/jetstack/cert-manager-webhook:v1.13.1', 'v1.13.0'),
  ].join('---\n');
  const { manifest, config } = await configWithLocalFile((file) => writeFileSync(file, text));
  await assert.rejects(resolveCertManager(manifest.config, manifest.baseDir), (err: unknown) => {
    assert.ok(err instanceof CapiGitopsError);
    const [d] = err.diagnostics;
    assert.equal(`${d!.file}:${d!.line}:${d!.column}`, `${config}:4:8`);
    assert.equal(d!.path, 'certManager.url');
    assert.match(d!.message, /names several releases v1\.13\.0, v1\.13\.1/);
    assert.match(d!.hint!, /add version: <tag> .* under certManager:/);
    return true;
  });
});

test('a file that names no release is refused; with certManager.version set it is that release', async () => {
  const text = deployment('cert-manager', `quay.io/jetstack/cert-manager-controller@sha256:${'b'.repeat(64)}`, '').replace(
    /\n *labels:\n *app\.kubernetes\.io\/version: ""/g,
    '',
  );
  const unnamed = await configWithLocalFile((file) => writeFileSync(file, text));
  await assert.rejects(resolveCertManager(unnamed.manifest.config, unnamed.manifest.baseDir), /names no release in its image tags/);
  const pinned = await configWithLocalFile((file) => writeFileSync(file, text), '  version: v1.13.0\n');
  assert.equal((await resolveCertManager(pinned.manifest.config, pinned.manifest.baseDir))?.version, 'v1.13.0');
});

test('--offline without cert-manager in the cache: the hint says to run once online, not to pass --offline', async () => {
  const cache = new ArtifactCache(tempDir());
  await assert.rejects(resolveCertManager({}, tempDir(), { sources: { offline: true, cache } }), (err: unknown) => {
    assert.ok(err instanceof CapiGitopsError);
    const [d] = err.diagnostics;
    assert.match(d!.message, /offline: .* is not in the cache/);
    assert.doesNotMatch(d!.hint!, /pass --offline/);
    assert.match(d!.hint!, /^run once without --offline/);
    return true;
  });
});

test('--offline with a locked cert-manager file not cached: the problem is told at certManager.version, where the release is named', async () => {
  const dir = tempDir();
  const config = path.join(dir, 'config.yaml');
  writeFileSync(config, 'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\ncertManager:\n  version: v1.13.0\n');
  const manifest = await loadManifest([config]);
  const cache = new ArtifactCache(tempDir());
  // as the lock session (resolve/lock/session.ts decorate) fails a locked file missing from the cache
  const decorate = (repository: ProviderRepository): ProviderRepository => ({
    ...repository,
    listVersions: () => repository.listVersions(),
    getFile: async () => {
      throw new CapiGitopsError({ message: '--offline: cert-manager.yaml of cert-manager v1.13.0 (sha256 …) is not in the cache' });
    },
  });
  await assert.rejects(
    resolveCertManager(manifest.config, manifest.baseDir, { sources: { offline: true, cache }, decorate }),
    (err: unknown) => {
      assert.ok(err instanceof CapiGitopsError);
      const [d] = err.diagnostics;
      assert.equal(`${d!.file}:${d!.line}:${d!.column}`, `${config}:4:12`);
      assert.equal(d!.path, 'certManager.version');
      assert.match(d!.hint!, /^run once without --offline/);
      return true;
    },
  );
});
