import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { isLocalRepositoryUrl, openLocalRepository, parseLocalRepositoryUrl } from '../../src/sources/local/repository.js';
import type { UrlRequest } from '../../src/sources/request.js';
import { ArtifactNotFoundError } from '../../src/sources/source.js';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';
import { temporaryTree } from '../fixtures/resolve/builders.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/corpus-manifest.js';

const origin = {
  file: '/m/providers.yaml',
  line: 4,
  column: 3,
  object: 'CoreProvider/capi-system/cluster-api',
  path: 'spec.fetchConfig.url',
};

function request(url: string, label = 'cluster-api', baseDir = '/nonexistent'): UrlRequest {
  return { from: 'url', kind: 'CoreProvider', name: 'cluster-api', label, url, baseDir, origin };
}

function rejects(fn: () => unknown, pattern: RegExp): void {
  assert.throws(
    fn,
    (error: unknown) =>
      error instanceof CapiGitopsError && pattern.test(error.message) && error.diagnostics[0].file === '/m/providers.yaml',
  );
}

test('file:// and plain paths are local; other schemes are not (clusterctl client.go repositoryFactory)', () => {
  assert.equal(isLocalRepositoryUrl('file:///repo/cluster-api/v1.0.0/core-components.yaml'), true);
  assert.equal(isLocalRepositoryUrl('FILE:///repo/x'), true);
  assert.equal(isLocalRepositoryUrl('/abs/cluster-api/v1.0.0/core-components.yaml'), true);
  assert.equal(isLocalRepositoryUrl('../repo/cluster-api/v1.0.0/core-components.yaml'), true);
  assert.equal(isLocalRepositoryUrl('https://github.com/kubernetes-sigs/cluster-api/releases/latest/core-components.yaml'), false);
  assert.equal(isLocalRepositoryUrl('oci://registry/x'), false);
});

test('the URL splits into base path, label, version and components file (clusterctl repository_local.go newLocalRepository)', () => {
  const layout = parseLocalRepositoryUrl('file:///home/u/repo/cluster-api/v1.12.0/core-components.yaml', 'cluster-api', '/x', origin);
  assert.deepEqual(layout, {
    basePath: '/home/u/repo',
    label: 'cluster-api',
    defaultVersion: 'v1.12.0',
    componentsFile: 'core-components.yaml',
  });
  assert.equal(parseLocalRepositoryUrl('/cluster-api/latest/core-components.yaml', 'cluster-api', '/x', origin).basePath, '/');
  // percent-escapes in file URLs are decoded
  assert.equal(parseLocalRepositoryUrl('file:///my%20repo/cluster-api/latest/c.yaml', 'cluster-api', '/x', origin).basePath, '/my repo');
});

test('a relative path resolves against the declaring manifest directory (capi-gitops extension)', () => {
  const layout = parseLocalRepositoryUrl(
    '../repo/bootstrap-kubeadm/latest/bootstrap-components.yaml',
    'bootstrap-kubeadm',
    '/work/gitops/manifests',
    origin,
  );
  assert.equal(layout.basePath, '/work/gitops/repo');
  assert.equal(layout.defaultVersion, 'latest');
});

test('a path starting with ~ is refused as the shell would have expanded it, not read as a directory named ~ (the render runs in CI, where home differs)', () => {
  for (const url of ['~/repo/cluster-api/v1.0.0/core-components.yaml', '~']) {
    try {
      parseLocalRepositoryUrl(url, 'cluster-api', '/work/gitops', origin);
      assert.fail(`${url} was accepted`);
    } catch (error) {
      assert.ok(error instanceof CapiGitopsError, String(error));
      const [d] = error.diagnostics;
      assert.match(d!.message, /starts with "~", which is not expanded/);
      assert.match(d!.hint ?? '', /relative to the manifest file/);
    }
  }
  // a directory really named ~something is a path like any other
  assert.equal(parseLocalRepositoryUrl('~repo/cluster-api/v1.0.0/c.yaml', 'cluster-api', '/w', origin).basePath, '/w/~repo');
});

test('malformed local URLs are refused with clear messages (clusterctl newLocalRepository checks)', () => {
  rejects(
    () => parseLocalRepositoryUrl('/repo/cluster-api/main/core-components.yaml', 'cluster-api', '/x', origin),
    /must be a version, found "main"/,
  );
  rejects(
    () => parseLocalRepositoryUrl('/repo/capi/v1.0.0/core-components.yaml', 'cluster-api', '/x', origin),
    /must have the provider label "cluster-api" .* found "capi"/,
  );
  rejects(() => parseLocalRepositoryUrl('/v1.0.0/core-components.yaml', 'cluster-api', '/x', origin), /too short/);
  rejects(() => parseLocalRepositoryUrl('/repo/cluster-api/v1.0.0/', 'cluster-api', '/x', origin), /ends with a directory/);
  rejects(() => parseLocalRepositoryUrl('file:repo/cluster-api/v1.0.0/c.yaml', 'cluster-api', '/x', origin), /no "\/\/" after "file:"/);
  rejects(
    () => parseLocalRepositoryUrl('file://server/repo/cluster-api/v1.0.0/c.yaml', 'cluster-api', '/x', origin),
    /does not name a local path/,
  );
});

test('versions are the semantic-version directories, sorted; files and other names are ignored (repository_local.go GetVersions)', async (t) => {
  const tree = await temporaryTree({
    'bootstrap-acme/v1.0.0/metadata.yaml': 'x',
    'bootstrap-acme/v1.10.0/metadata.yaml': 'x',
    'bootstrap-acme/v1.2.0-rc.1/metadata.yaml': 'x',
    'bootstrap-acme/latest/metadata.yaml': 'x',
    'bootstrap-acme/main/metadata.yaml': 'x',
    'bootstrap-acme/v9.9.9': 'a file, not a release directory',
  });
  t.after(tree.cleanup);
  const repo = await openLocalRepository({ ...request(`${tree.root}/bootstrap-acme/latest/bootstrap-components.yaml`, 'bootstrap-acme') });
  assert.deepEqual(await repo.listVersions(), ['v1.0.0', 'v1.2.0-rc.1', 'v1.10.0']);
  assert.equal(repo.defaultVersion, 'latest');
  assert.equal(repo.componentsFile, 'bootstrap-components.yaml');
  assert.equal(repo.sourceType, 'local');
});

test('getFile reads the corpus file with its sha256 and file URL', async () => {
  const repo = await openLocalRepository(request(`file://${CORPUS_REPOSITORY}/cluster-api/v1.12.0/core-components.yaml`));
  const artifact = await repo.getFile('v1.8.0', 'core-components.yaml');
  const filePath = path.join(CORPUS_REPOSITORY, 'cluster-api', 'v1.8.0', 'core-components.yaml');
  const bytes = readFileSync(filePath);
  assert.equal(artifact.name, 'core-components.yaml');
  assert.equal(artifact.sha256, createHash('sha256').update(bytes).digest('hex'));
  assert.equal(artifact.text, bytes.toString('utf8'));
  assert.equal(artifact.url, pathToFileURL(filePath).href);
  assert.deepEqual(await repo.listVersions(), ['v1.7.7', 'v1.8.0', 'v1.10.4', 'v1.12.0']);
});

test('a missing base directory is reported when the repository is opened', async () => {
  await assert.rejects(
    openLocalRepository(request('/nonexistent/repo/cluster-api/latest/core-components.yaml')),
    (error: unknown) =>
      error instanceof CapiGitopsError &&
      /local repository directory "\/nonexistent\/repo\/cluster-api" does not exist/.test(error.message),
  );
  await assert.rejects(
    openLocalRepository(request('missing/cluster-api/latest/core-components.yaml', 'cluster-api', '/work/declaring-dir')),
    (error: unknown) => error instanceof CapiGitopsError && /relative paths resolve against \/work\/declaring-dir/.test(error.message),
  );
});

test('a missing version lists the versions that exist; a missing file names the path; both are not-found errors', async () => {
  const repo = await openLocalRepository(request(`${CORPUS_REPOSITORY}/cluster-api/latest/core-components.yaml`));
  await assert.rejects(repo.getFile('v9.9.9', 'metadata.yaml'), (error: unknown) => {
    assert.ok(error instanceof ArtifactNotFoundError);
    assert.match(error.message, /version v9\.9\.9 not found/);
    assert.match(error.message, /versions available in .*cluster-api: v1\.7\.7, v1\.8\.0, v1\.10\.4, v1\.12\.0/);
    assert.equal(error.diagnostics[0].object, origin.object);
    return true;
  });
  await assert.rejects(repo.getFile('v1.12.0', 'clusterclass-quick-start.yaml'), (error: unknown) => {
    assert.ok(error instanceof ArtifactNotFoundError);
    assert.match(
      error.message,
      /file clusterclass-quick-start\.yaml of version v1\.12\.0 not found: ".*\/cluster-api\/v1\.12\.0\/clusterclass-quick-start\.yaml" does not exist/,
    );
    return true;
  });
});

test('a directory where a file is expected, and path traversal, are errors but not not-found', async (t) => {
  const tree = await temporaryTree({ 'cluster-api/v1.0.0/metadata.yaml/inner': 'x' });
  t.after(tree.cleanup);
  const repo = await openLocalRepository(request(`${tree.root}/cluster-api/v1.0.0/core-components.yaml`));
  await assert.rejects(
    repo.getFile('v1.0.0', 'metadata.yaml'),
    (error: unknown) =>
      error instanceof CapiGitopsError && !(error instanceof ArtifactNotFoundError) && /it is a directory/.test(error.message),
  );
  await assert.rejects(repo.getFile('..', 'metadata.yaml'), /single path segment/);
  await assert.rejects(repo.getFile('v1.0.0', '../../etc/passwd'), /single path segment/);
});

test('BootstrapProvider bootstrap-rke2 reading the folder bootstrap-rke2/: the hint names the name to set, which renders', async () => {
  const dir = tempDir();
  const url = (label: string, file: string) => path.join(CORPUS_REPOSITORY, label, label === 'cluster-api' ? 'v1.12.0' : 'v0.11.0', file);
  const manifest = (name: string) =>
    [
      'apiVersion: operator.cluster.x-k8s.io/v1alpha2',
      'kind: CoreProvider',
      'metadata: {name: cluster-api, namespace: capi-system}',
      `spec: {fetchConfig: {url: ${url('cluster-api', 'core-components.yaml')}}}`,
      '---',
      'apiVersion: operator.cluster.x-k8s.io/v1alpha2',
      'kind: BootstrapProvider',
      'metadata:',
      `  name: ${name}`,
      '  namespace: rke2-bootstrap-system',
      `spec: {fetchConfig: {url: ${url('bootstrap-rke2', 'bootstrap-components.yaml')}}}`,
      '---',
      'apiVersion: capi-gitops.dev/v1alpha1',
      'kind: Config',
      'certManager: {enabled: false}',
      '',
    ].join('\n');
  writeFileSync(path.join(dir, 'providers.yaml'), manifest('bootstrap-rke2'));
  const refused = await runCli(['render', '-f', 'providers.yaml', '-o', 'out'], { cwd: dir });
  assert.equal(refused.code, 1, refused.stdout);
  const hint = /hint: .*: set metadata\.name: (\S+)\n/.exec(refused.stderr);
  assert.equal(hint?.[1], 'rke2', refused.stderr);
  writeFileSync(path.join(dir, 'providers.yaml'), manifest(hint[1]));
  const rendered = await runCli(['render', '-f', 'providers.yaml', '-o', 'out'], { cwd: dir });
  assert.equal(rendered.code, 0, rendered.stderr);
  assert.match(rendered.stdout, /resolved bootstrap-rke2 v0\.11\.0, contract v1beta1/);
});
