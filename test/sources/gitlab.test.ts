import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { ArtifactCache } from '../../src/sources/cache.js';
import { sha256Hex } from '../../src/core/digest.js';
import { gitlabToken, openGitLabRepository, parseGitLabPackageUrl, type GitLabOptions } from '../../src/sources/gitlab/repository.js';
import { ArtifactNotFoundError, type ProviderRepository } from '../../src/sources/source.js';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';
import { openRepository } from '../../src/sources/index.js';
import { rejection } from '../helpers/assertions.js';
import { FakeGitLab, SLUG, type Package } from '../helpers/fake-gitlab.js';

const TOKEN = 'glpat-TopSecretGitLabToken0123';
const KUBEADM = (version: string, file: string) => readFileSync(path.join(CORPUS_REPOSITORY, 'bootstrap-kubeadm', version, file));

/** A package URL on the fake (http on 127.0.0.1, declared as a GitLab host). */
function packageUrl(fake: FakeGitLab, version: string, file = 'bootstrap-components.yaml', packageName = 'cluster-api'): string {
  return `${fake.url}/api/v4/projects/${SLUG}/packages/generic/${packageName}/${version}/${file}`;
}

function open(fake: FakeGitLab, url: string, options: Partial<GitLabOptions> = {}): ProviderRepository {
  const repository = openGitLabRepository(url, {
    hosts: [fake.host],
    env: {},
    origin: { file: 'providers.yaml', line: 2, column: 1, object: 'BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm' },
    ...options,
    http: { retries: 0, timeoutMs: 5_000, sleep: async () => undefined, ...options.http },
  });
  assert.ok(repository);
  return repository;
}

const kubeadmPackage = (version: string): Package => ({
  name: 'cluster-api',
  version,
  files: { 'bootstrap-components.yaml': KUBEADM(version, 'bootstrap-components.yaml'), 'metadata.yaml': KUBEADM(version, 'metadata.yaml') },
});

// ---- URL form --------------------------------------------------------------------------------

test('package URLs split as clusterctl splits them, the project slug kept escaped (clusterctl repository_gitlab.go NewGitLabRepository)', () => {
  assert.deepEqual(
    parseGitLabPackageUrl('https://gitlab.example.com/api/v4/projects/group%2Fproject/packages/generic/my-package/v0.4.1/file.yaml'),
    {
      origin: 'https://gitlab.example.com',
      projectSlug: 'group%2Fproject',
      packageName: 'my-package',
      version: 'v0.4.1',
      componentsFile: 'file.yaml',
    },
  );
});

test('only https URLs on gitlab.* hosts (or listed hosts) under /api/v4/projects/ are GitLab URLs (clusterctl client.go repositoryFactory)', () => {
  const form = 'https://gitlab.example.com/api/v4/projects/1/packages/generic/p/v1.0.0/c.yaml';
  assert.ok(parseGitLabPackageUrl(form));
  assert.equal(parseGitLabPackageUrl('https://github.com/kubernetes-sigs/cluster-api/releases/latest/core-components.yaml'), null);
  assert.equal(parseGitLabPackageUrl('https://git.example.com/api/v4/projects/1/packages/generic/p/v1.0.0/c.yaml'), null);
  assert.equal(parseGitLabPackageUrl('https://gitlab.example.com/group/project/-/raw/main/c.yaml'), null);
  assert.equal(parseGitLabPackageUrl('/repository/cluster-api/v1.0.0/core-components.yaml'), null);
  assert.ok(parseGitLabPackageUrl('https://git.example.com/api/v4/projects/1/packages/generic/p/v1.0.0/c.yaml', ['git.example.com']));
  assert.equal(openGitLabRepository('https://example.com/capi/{version}/core-components.yaml'), null);
});

test("a GitLab URL not in the package form is an error with clusterctl's expected form (repository_gitlab_test.go)", () => {
  const invalid: [string, RegExp][] = [
    ['https://gitlab.example.com/api/v4/projects/1/packages/generic/p/v1.0.0', /does not have the package form/],
    ['https://gitlab.example.com/api/v4/projects/1/packages/maven/p/v1.0.0/c.yaml', /does not have the package form/],
    ['https://gitlab.example.com/api/v4/projects/1/x/generic/p/v1.0.0/c.yaml', /does not have the package form/],
    ['https://gitlab.example.com/api/v4/projects/1/packages/generic/p//c.yaml', /does not have the package form/],
    ['http://gitlab.example.com/api/v4/projects/1/packages/generic/p/v1.0.0/c.yaml', /must use https/],
    ['https://gitlab.example.com/api/v4/projects/a%zz/packages/generic/p/v1.0.0/c.yaml', /invalid URL escape/],
  ];
  for (const [url, message] of invalid) {
    assert.throws(
      () => parseGitLabPackageUrl(url),
      (error: unknown) => {
        assert.ok(error instanceof CapiGitopsError);
        assert.match(error.message, message, url);
        assert.equal(
          error.diagnostics[0].expected,
          'https://{host}/api/v4/projects/{projectSlug}/packages/generic/{packageName}/{defaultVersion}/{componentsPath}',
        );
        return true;
      },
    );
  }
});

test("the token is the configSecret gitlab-access-token, else GITLAB_ACCESS_TOKEN (clusterctl variables_client.go GitLabAccessTokenVariable), else GITLAB_TOKEN; the environment's only for gitlab.com and CAPI_GITOPS_GITLAB_HOSTS", () => {
  const host = 'https://gitlab.example.com';
  const trusted = { CAPI_GITOPS_GITLAB_HOSTS: 'gitlab.example.com' };
  assert.deepEqual(gitlabToken({ 'gitlab-access-token': 'from-secret' }, { GITLAB_ACCESS_TOKEN: 'env', GITLAB_TOKEN: 'glab' }, host), {
    token: 'from-secret',
  });
  assert.deepEqual(gitlabToken({}, { ...trusted, GITLAB_ACCESS_TOKEN: ' env ', GITLAB_TOKEN: 'glab' }, host), { token: 'env' });
  assert.deepEqual(gitlabToken(undefined, { ...trusted, GITLAB_TOKEN: 'glab' }, host), { token: 'glab' });
  assert.deepEqual(gitlabToken(undefined, { GITLAB_TOKEN: 'glab' }, 'https://gitlab.com'), { token: 'glab' });
  assert.deepEqual(gitlabToken({}, {}, host), {});
  const withheld = gitlabToken({}, { GITLAB_TOKEN: 'glab' }, host);
  assert.equal(withheld.token, undefined);
  assert.match(
    withheld.withheld ?? '',
    /goes only to hosts listed in CAPI_GITOPS_GITLAB_HOSTS \(and gitlab\.com\), and gitlab\.example\.com is not listed/,
  );
});

// ---- against a fake GitLab -------------------------------------------------------------------

test("one package's providers share a release store (the run fetches each file once); another token, package or URL version is another; the token only as its sha256", async (t) => {
  const fake = await FakeGitLab.start(t, []);
  const store = (file: string, token = TOKEN, version = 'v1.12.0', packageName = 'cluster-api') =>
    open(fake, packageUrl(fake, version, file, packageName), { credentials: { 'gitlab-access-token': token } }).releaseStore;
  const core = store('core-components.yaml');
  assert.equal(store('bootstrap-components.yaml'), core);
  assert.ok(core?.includes(sha256Hex(TOKEN)) && !core.includes(TOKEN));
  for (const other of [
    store('core-components.yaml', `${TOKEN}-other`),
    store('core-components.yaml', TOKEN, 'v1.11.0'),
    store('c.yaml', TOKEN, 'v1.12.0', 'capd'),
  ])
    assert.notEqual(other, core);
  assert.equal(fake.requests.length, 0, 'opening asks nothing');
});

test('files are GET …/packages/generic/<package>/<version>/<file> with Authorization: Bearer <token>, byte for byte (clusterctl repository_gitlab.go GetFile, setClientToken)', async (t) => {
  const fake = await FakeGitLab.start(t, [kubeadmPackage('v1.12.0')], { token: TOKEN });
  const repository = open(fake, packageUrl(fake, 'v1.12.0'), { credentials: { 'gitlab-access-token': TOKEN } });
  assert.equal(repository.sourceType, 'gitlab');
  assert.equal(repository.defaultVersion, 'v1.12.0');
  assert.equal(repository.componentsFile, 'bootstrap-components.yaml');

  const components = await repository.getFile('v1.12.0', repository.componentsFile);
  const metadata = await repository.getFile('v1.12.0', 'metadata.yaml');
  assert.equal(components.sha256, sha256Hex(KUBEADM('v1.12.0', 'bootstrap-components.yaml')));
  assert.equal(metadata.text, KUBEADM('v1.12.0', 'metadata.yaml').toString('utf8'));
  assert.equal(metadata.url, `${fake.url}/api/v4/projects/${SLUG}/packages/generic/cluster-api/v1.12.0/metadata.yaml`);
  assert.deepEqual(
    fake.requests.map((request) => [request.url, request.authorization]),
    [
      [`/api/v4/projects/${SLUG}/packages/generic/cluster-api/v1.12.0/bootstrap-components.yaml`, `Bearer ${TOKEN}`],
      [`/api/v4/projects/${SLUG}/packages/generic/cluster-api/v1.12.0/metadata.yaml`, `Bearer ${TOKEN}`],
    ],
  );
});

test('a version in the URL is the only version listed, with no request (clusterctl repository_gitlab.go GetVersions)', async (t) => {
  const fake = await FakeGitLab.start(t, [kubeadmPackage('v1.12.0'), kubeadmPackage('v1.10.4')]);
  assert.deepEqual(await open(fake, packageUrl(fake, 'v1.12.0')).listVersions(), ['v1.12.0']);
  assert.equal(fake.requests.length, 0);
});

test('a "latest" URL lists the package versions through the packages API, across pages, exact name and usable packages only (extension)', async (t) => {
  const packages: Package[] = [
    kubeadmPackage('v1.10.4'),
    kubeadmPackage('v1.12.0'),
    { name: 'cluster-api', version: 'v1.13.0-beta.0', status: 'processing', files: {} },
    { name: 'cluster-api-extras', version: 'v9.0.0', files: {} },
    { name: 'cluster-api', version: 'v1.11.0', files: {} },
    { name: 'cluster-api', version: 'v1.11.0', files: {} },
  ];
  const fake = await FakeGitLab.start(t, packages, { token: TOKEN, pageSize: 2 });
  const repository = open(fake, packageUrl(fake, 'latest'), { env: { GITLAB_TOKEN: TOKEN, CAPI_GITOPS_GITLAB_HOSTS: fake.host } });
  assert.equal(repository.defaultVersion, 'latest');
  assert.deepEqual(await repository.listVersions(), ['v1.10.4', 'v1.12.0', 'v1.11.0']);
  assert.equal(fake.requests.length, 3);
  const first = new URL(fake.requests[0].url, fake.url);
  assert.equal(first.pathname, `/api/v4/projects/${SLUG}/packages`);
  assert.equal(first.searchParams.get('package_type'), 'generic');
  assert.equal(first.searchParams.get('package_name'), 'cluster-api');
  assert.ok(fake.requests.every((request) => request.authorization === `Bearer ${TOKEN}`));

  const unresolved = await rejection(repository.getFile('latest', 'metadata.yaml'));
  assert.match(unresolved.message, /"latest" .* has not been resolved/);
});

test('package list entries of the wrong type are skipped with one warning naming the project, the count and the first bad field; none usable is an error saying so', async (t) => {
  const wrong = (version: unknown): Package => ({ name: 'cluster-api', version: version as string, files: {} });
  const fake = await FakeGitLab.start(t, [kubeadmPackage('v1.12.0'), wrong(42), wrong(null)], { pageSize: 2 });
  const warnings: string[] = [];
  assert.deepEqual(await open(fake, packageUrl(fake, 'latest'), { warn: (line) => warnings.push(line) }).listVersions(), ['v1.12.0']);
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0]!, /group%2Fproject|group\/project/);
  assert.match(warnings[0]!, /skipped 2 entries of the wrong shape/);
  assert.match(warnings[0]!, /\[1\]\.version is a number/);

  const bad = await FakeGitLab.start(t, [wrong(42), wrong({ v: 1 })]);
  const error = await rejection(open(bad, packageUrl(bad, 'latest'), { warn: (line) => warnings.push(line) }).listVersions());
  assert.equal(error.diagnostics.length, 1, error.message);
  const [d] = error.diagnostics;
  assert.match(d!.message, /all 2 entries are of the wrong shape/);
  assert.match(d!.message, /\[0\]\.version is a number/);
  assert.match(d!.hint ?? '', /proxy/);
});

test('a next-page link to another host is refused, so the token cannot follow it', async (t) => {
  const fake = await FakeGitLab.start(t, [kubeadmPackage('v1.10.4'), kubeadmPackage('v1.12.0')], { pageSize: 1 });
  fake.nextLinkOrigin = 'http://localhost:9';
  const error = await rejection(open(fake, packageUrl(fake, 'latest')).listVersions());
  assert.match(error.message, /links its next page to another host \(http:\/\/localhost:9\//);
  assert.equal(fake.requests.length, 1);
});

test('a missing file or version is ArtifactNotFoundError naming file, version and URL', async (t) => {
  const fake = await FakeGitLab.start(t, [kubeadmPackage('v1.12.0')]);
  const repository = open(fake, packageUrl(fake, 'v1.12.0'));
  const error = await rejection(repository.getFile('v1.99.0', 'metadata.yaml'));
  assert.ok(error instanceof ArtifactNotFoundError);
  assert.match(
    error.message,
    new RegExp(
      `file metadata\\.yaml with version v1\\.99\\.0 not found: GET ${fake.url}/api/v4/projects/${SLUG}/packages/generic/cluster-api/v1\\.99\\.0/metadata\\.yaml answered 404`,
    ),
  );
  assert.equal(error.diagnostics[0].object, 'BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm');
});

test('a 401 says to check the credentials, names where the token goes, and never prints it (clusterctl repository_gitlab.go GetFile)', async (t) => {
  const fake = await FakeGitLab.start(t, [kubeadmPackage('v1.12.0')], { token: TOKEN });
  const anonymous = await rejection(open(fake, packageUrl(fake, 'v1.12.0')).getFile('v1.12.0', 'metadata.yaml'));
  assert.match(anonymous.message, /unauthorized access, please check your credentials \(HTTP 401\)/);
  assert.match(anonymous.diagnostics[0].hint ?? '', /gitlab-access-token in the provider's configSecret, or GITLAB_ACCESS_TOKEN/);

  const wrongToken = 'glpat-WrongToken-never-printed';
  const rejected = await rejection(
    open(fake, packageUrl(fake, 'v1.12.0'), { env: { GITLAB_ACCESS_TOKEN: wrongToken, CAPI_GITOPS_GITLAB_HOSTS: fake.host } }).getFile(
      'v1.12.0',
      'metadata.yaml',
    ),
  );
  assert.match(rejected.diagnostics[0].hint ?? '', /GitLab rejected the token/);
  assert.ok(!rejected.message.includes(wrongToken));

  const listing = await rejection(open(fake, packageUrl(fake, 'latest')).listVersions());
  assert.match(listing.message, /unauthorized access/);
});

test('a 404 to a request without a token says a private project hides itself so, and how to send one (GitLab answers 404, not 401, to anonymous requests for a private project)', async (t) => {
  const fake = await FakeGitLab.start(t, []);
  const slug = 'platform%2Fcapi%2Fproviders';
  const server = http.createServer((req, res) => {
    const allowed = req.headers.authorization === `Bearer ${TOKEN}`;
    res.writeHead(allowed ? 200 : 404, { 'content-type': 'application/json' });
    res.end(allowed ? 'apiVersion: v1\nkind: Namespace\nmetadata: {name: capi-system}\n' : '{"message":"404 Project Not Found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = `http://${host}/api/v4/projects/${slug}/packages/generic/cluster-api/v1.12.0/bootstrap-components.yaml`;

  const anonymous = await rejection(open(fake, url, { hosts: [host] }).getFile('v1.12.0', 'bootstrap-components.yaml'));
  assert.ok(anonymous instanceof ArtifactNotFoundError);
  assert.match(anonymous.diagnostics[0].hint ?? '', /a private project answers 404 to a request without a token/);
  assert.match(anonymous.diagnostics[0].hint ?? '', /gitlab-access-token in the provider's configSecret, or GITLAB_ACCESS_TOKEN/);

  const withheld = await rejection(
    open(fake, url, { hosts: [host], env: { GITLAB_TOKEN: TOKEN } }).getFile('v1.12.0', 'bootstrap-components.yaml'),
  );
  assert.match(withheld.diagnostics[0].hint ?? '', new RegExp(`add it to CAPI_GITOPS_GITLAB_HOSTS`));
  assert.ok(!withheld.message.includes(TOKEN));

  const followed = open(fake, url, { hosts: [host], env: { GITLAB_TOKEN: TOKEN, CAPI_GITOPS_GITLAB_HOSTS: host } });
  assert.match((await followed.getFile('v1.12.0', 'bootstrap-components.yaml')).text, /kind: Namespace/);
});

test('the hint of a 401 without a token, followed literally on a self-managed GitLab, sends one: the environment token needs its host in CAPI_GITOPS_GITLAB_HOSTS', async (t) => {
  const fake = await FakeGitLab.start(t, [kubeadmPackage('v1.12.0')], { token: TOKEN });
  const anonymous = await rejection(open(fake, packageUrl(fake, 'v1.12.0')).getFile('v1.12.0', 'metadata.yaml'));
  const hint = anonymous.diagnostics[0].hint ?? '';
  assert.match(hint, /GITLAB_ACCESS_TOKEN \(or GITLAB_TOKEN\) in the environment with 127\.0\.0\.1:\d+ in CAPI_GITOPS_GITLAB_HOSTS/);
  const followed = open(fake, packageUrl(fake, 'v1.12.0'), { env: { GITLAB_ACCESS_TOKEN: TOKEN, CAPI_GITOPS_GITLAB_HOSTS: fake.host } });
  assert.ok((await followed.getFile('v1.12.0', 'metadata.yaml')).text.length > 0);
});

test('a refused package listing explains the read_api scope', async (t) => {
  const fake = await FakeGitLab.start(t, []);
  const server = http.createServer((_req, res) => {
    res.writeHead(403, { 'content-type': 'application/json' });
    res.end('{"message":"403 Forbidden"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const error = await rejection(
    open(fake, `http://${host}/api/v4/projects/${SLUG}/packages/generic/cluster-api/latest/c.yaml`, { hosts: [host] }).listVersions(),
  );
  assert.match(error.message, /answered HTTP 403/);
  assert.match(error.diagnostics[0].hint ?? '', /read_api scope/);
});

test('cached files are revalidated with If-None-Match (304) and served offline with no request', async (t) => {
  const fake = await FakeGitLab.start(t, [kubeadmPackage('v1.12.0')]);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'capi-gitops-gitlab-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const cache = new ArtifactCache(dir);
  const url = packageUrl(fake, 'v1.12.0');

  const first = await open(fake, url, { cache }).getFile('v1.12.0', 'metadata.yaml');
  const second = await open(fake, url, { cache }).getFile('v1.12.0', 'metadata.yaml');
  assert.equal(second.sha256, first.sha256);
  assert.deepEqual(
    fake.requests.map((request) => request.status),
    [200, 304],
  );

  const offline = open(fake, url, { cache, offline: true });
  assert.equal((await offline.getFile('v1.12.0', 'metadata.yaml')).text, first.text);
  const miss = await rejection(offline.getFile('v1.12.0', 'bootstrap-components.yaml'));
  assert.match(miss.message, /offline: GET .*bootstrap-components\.yaml \(version v1\.12\.0\) is not in the cache/);
  assert.equal(fake.requests.length, 2);
});

test('a self-managed GitLab whose host is not called gitlab.* is served as GitLab when CAPI_GITOPS_GITLAB_HOSTS names it, through the source modules the CLI opens (its help calls the variable the GitLab hosts)', async (t) => {
  const fake = await FakeGitLab.start(t, [kubeadmPackage('v1.12.0')]);
  const request = {
    from: 'url' as const,
    url: packageUrl(fake, 'v1.12.0'),
    kind: 'BootstrapProvider' as const,
    name: 'kubeadm',
    label: 'bootstrap-kubeadm',
    baseDir: os.tmpdir(),
    origin: { file: 'providers.yaml', line: 2, column: 1 },
  };
  const http = { retries: 0, timeoutMs: 5_000, sleep: async () => undefined };
  const named = await openRepository(request, { configMaps: [], options: { env: { CAPI_GITOPS_GITLAB_HOSTS: fake.host }, http } });
  assert.equal(named.sourceType, 'gitlab');
  assert.equal((await named.getFile('v1.12.0', 'metadata.yaml')).text, KUBEADM('v1.12.0', 'metadata.yaml').toString('utf8'));
  // not named: not a GitLab URL (clusterctl's repositoryFactory takes gitlab.* hosts only)
  const unnamed = await openRepository(request, { configMaps: [], options: { env: {}, http } }).catch((error: unknown) => error);
  assert.ok(!(unnamed && typeof unnamed === 'object' && 'sourceType' in unnamed && unnamed.sourceType === 'gitlab'));
});
