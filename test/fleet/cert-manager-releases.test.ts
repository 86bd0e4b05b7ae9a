/**
 * An air-gapped fleet keeps cert-manager releases in a local repository, one `<version>/`
 * directory each, as clusterctl's local repository does, with `certManager.url` naming one of
 * them. A release's `certManager.version` reads that version's directory beside it, as
 * clusterctl does: it asks the repository made of the URL for the configured version
 * (cluster-api cmd/clusterctl/client/cluster/cert_manager.go getManifestObjs,
 * cmd/clusterctl/client/repository/repository_local.go).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exampleCopy, runCli } from '../helpers/cli.js';

const RELEASES = `apiVersion: capi-gitops.dev/v1alpha1
kind: Release
metadata: {name: "2026.05.0"}
providers:
  CoreProvider/cluster-api: v0.2.0
certManager: {version: v0.1.0}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Release
metadata: {name: "2026.11.0"}
providers:
  CoreProvider/cluster-api: v0.2.0
certManager: {version: v0.2.0}
`;

/** The example's management cluster as a fleet of two clusters on two releases, with cert-manager v0.2.0 beside v0.1.0. */
function fleet(): string {
  const manifest = path.join(exampleCopy(), 'management-cluster');
  rmSync(path.join(manifest, 'capi-gitops.lock.yaml'));
  const repository = path.join(manifest, '..', 'repository', 'cert-manager');
  mkdirSync(path.join(repository, 'v0.2.0'));
  const v1 = readFileSync(path.join(repository, 'v0.1.0', 'cert-manager.yaml'), 'utf8');
  writeFileSync(path.join(repository, 'v0.2.0', 'cert-manager.yaml'), v1.replaceAll('v0.1.0', 'v0.2.0'));
  writeFileSync(path.join(manifest, 'releases.yaml'), RELEASES);
  writeFileSync(
    path.join(manifest, 'fleet.yaml'),
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: eu-1\n  release: "2026.05.0"\n- name: lab-1\n  release: "2026.11.0"\n',
  );
  return manifest;
}

/** Every image of the cert-manager files a cluster's tree holds. */
function certManagerImages(out: string, cluster: string): string[] {
  const images = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else for (const [, image] of readFileSync(file, 'utf8').matchAll(/image: (\S*cert-manager\S*)/g)) images.add(image!);
    }
  };
  walk(path.join(out, 'clusters', cluster));
  return [...images].sort();
}

test("a release's certManager.version reads that version's directory beside certManager.url's, as clusterctl's local repository does (cert_manager.go getManifestObjs)", async () => {
  const manifest = fleet();
  const out = path.join(manifest, '..', 'out');
  const result = await runCli(['render', '-f', manifest, '-o', out, '--offline']);
  assert.equal(result.code, 0, result.stderr);
  const eu = certManagerImages(out, 'eu-1');
  const lab = certManagerImages(out, 'lab-1');
  assert.ok(eu.length > 0 && eu.every((image) => image.endsWith(':v0.1.0-example')), eu.join(', '));
  assert.ok(lab.length > 0 && lab.every((image) => image.endsWith(':v0.2.0-example')), lab.join(', '));
  const lock = readFileSync(path.join(manifest, 'capi-gitops.lock.yaml'), 'utf8');
  assert.match(lock, /cert-manager\/v0\.2\.0\/cert-manager\.yaml/);
});

test('a certManager.version with no directory beside certManager.url is told at the version, with the path it read', async () => {
  const manifest = fleet();
  writeFileSync(path.join(manifest, 'releases.yaml'), RELEASES.replace('{version: v0.2.0}', '{version: v0.3.0}'));
  const result = await runCli(['render', '-f', manifest, '-o', path.join(manifest, '..', 'out'), '--offline']);
  assert.equal(result.code, 1, result.stderr);
  // once, at the release's version line, naming the cluster on it
  assert.match(result.stderr, /^\S*releases\.yaml:13:24: error: cluster lab-1, release 2026\.11\.0: Config: certManager\.version: /m);
  assert.equal(result.stderr.match(/error:/g)?.length, 1, result.stderr);
  assert.match(result.stderr, /cert-manager\/v0\.3\.0\/cert-manager\.yaml" does not exist/);
  assert.match(
    result.stderr,
    /hint: put cert-manager v0\.3\.0's cert-manager\.yaml in .*cert-manager\/v0\.3\.0\/, beside certManager\.url's v0\.1\.0\//,
  );
});

test("two releases asking for one missing cert-manager version: each told once, at its own certManager.version line (fleets.md: a problem points at the release's line, once)", async () => {
  const manifest = fleet();
  writeFileSync(path.join(manifest, 'releases.yaml'), RELEASES.replaceAll(/\{version: v0\.[12]\.0\}/g, '{version: v0.3.0}'));
  const result = await runCli(['render', '-f', manifest, '-o', path.join(manifest, '..', 'out'), '--offline']);
  assert.equal(result.code, 1, result.stderr);
  const errors = result.stderr.split('\n').filter((line) => line.includes(': error: '));
  // the second release's own check reads the failure the first one met: still told at its line, with lab-1's
  assert.deepEqual(
    errors.map((line) => /releases\.yaml:(\d+:\d+): error: ([^:]+): /.exec(line)?.slice(1)),
    [
      ['6:24', 'cluster eu-1, release 2026.05.0'],
      ['13:24', 'cluster lab-1, release 2026.11.0'],
    ],
    result.stderr,
  );
});
