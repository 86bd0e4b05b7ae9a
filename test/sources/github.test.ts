import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { ArtifactNotFoundError } from '../../src/sources/source.js';
import { ArtifactCache } from '../../src/sources/cache.js';
import { sha256Hex } from '../../src/core/digest.js';
import { RunContext } from '../../src/app/context.js';
import type { RunMemo } from '../../src/sources/request.js';
import { nextPageUrl } from '../../src/sources/base/client.js';
import { githubTokenFromEnv } from '../../src/sources/credentials.js';
import {
  openGitHubRepository,
  parseGitHubReleaseUrl,
  publishedSha256,
  type GitHubOptions,
  type GitHubReleaseRepository,
} from '../../src/sources/github/repository.js';
import type { SourceProgressEvent } from '../../src/sources/base/http.js';
import { lineFor } from '../../src/cli/progress.js';
import { githubSource } from '../../src/sources/github/index.js';
import { FakeGitHub, rateLimitFault, secondaryRateLimitFault, startCorpusGitHub, type FakeRelease } from '../helpers/fake-github.js';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';
import { rejection } from '../helpers/assertions.js';

const CAPI_URL = 'https://github.com/kubernetes-sigs/cluster-api/releases/latest/core-components.yaml';
const TOKEN = 'ghp_TopSecretToken0123456789abcdefABCDEF';
const METADATA =
  'apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: 12\n  contract: v1beta2\n';
const COMPONENTS = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: capi-system\n';

function capiRelease(tag: string, extra: Partial<FakeRelease> = {}): FakeRelease {
  return { tag, assets: { 'metadata.yaml': METADATA, 'core-components.yaml': `${COMPONENTS}# ${tag}\n` }, ...extra };
}

interface Harness {
  fake: FakeGitHub;
  logs: string[];
  events: SourceProgressEvent[];
  open(options?: Partial<GitHubOptions>, url?: string): GitHubReleaseRepository;
}

/** A fake GitHub per test; repositories opened against it never sleep for real. */
async function harness(t: { after: (fn: () => Promise<void>) => void }, releases: Record<string, FakeRelease[]>): Promise<Harness> {
  const fake = await FakeGitHub.start(releases);
  t.after(() => fake.close());
  const logs: string[] = [];
  const events: SourceProgressEvent[] = [];
  return {
    fake,
    logs,
    events,
    open: (options = {}, url = CAPI_URL) => {
      const repository = openGitHubRepository(url, {
        apiUrl: fake.apiUrl,
        retryAfterBaseMs: 0,
        origin: { file: 'providers.yaml', line: 3, column: 1, object: 'CoreProvider/capi-system/cluster-api' },
        log: (line) => logs.push(line),
        onProgress: (event) => events.push(event),
        ...options,
        http: { sleep: async () => undefined, timeoutMs: 5_000, ...options.http },
      });
      assert.ok(repository);
      return repository;
    },
  };
}

async function tempCache(t: { after: (fn: () => Promise<void>) => void }, log?: (line: string) => void): Promise<ArtifactCache> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'capi-gitops-gh-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return new ArtifactCache(dir, { log });
}

const RELEASES_PATH = '/repos/kubernetes-sigs/cluster-api/releases';
const TAG_PATH = (tag: string) => `${RELEASES_PATH}/tags/${tag}`;

// ---- URL form --------------------------------------------------------------------------------

test('release URLs split as clusterctl does (clusterctl repository_github.go NewGitHubRepository)', () => {
  assert.deepEqual(parseGitHubReleaseUrl(CAPI_URL), {
    owner: 'kubernetes-sigs',
    repo: 'cluster-api',
    version: 'latest',
    rootPath: '.',
    componentsFile: 'core-components.yaml',
  });
  assert.deepEqual(parseGitHubReleaseUrl('https://github.com/o/r/releases/v1.2.3/sub/dir/infrastructure-components.yaml'), {
    owner: 'o',
    repo: 'r',
    version: 'v1.2.3',
    rootPath: 'sub/dir',
    componentsFile: 'infrastructure-components.yaml',
  });
  // Not GitHub releases: another source may take them.
  assert.equal(parseGitHubReleaseUrl('http://github.com/o/r/releases/latest/c.yaml'), null);
  assert.equal(parseGitHubReleaseUrl('https://gitlab.com/o/r/releases/latest/c.yaml'), null);
  assert.equal(parseGitHubReleaseUrl('https://github.com/o/r/raw/main/c.yaml'), null);
  assert.equal(parseGitHubReleaseUrl('not a url'), null);
  // Release URLs that cannot work are errors naming the expected form.
  assert.throws(
    () => parseGitHubReleaseUrl('https://github.com/o/r/releases/latest'),
    (error: unknown) => {
      assert.ok(error instanceof CapiGitopsError);
      assert.match(
        error.message,
        /expected: https:\/\/github.com\/\{owner\}\/\{repository\}\/releases\/\{latest\|version-tag\}\/\{components file\}/,
      );
      return true;
    },
  );
  assert.throws(
    () => parseGitHubReleaseUrl('https://github.com/o/r/releases/download/v1.0.0/c.yaml'),
    /hint: drop "download\/": https:\/\/github.com\/o\/r\/releases\/v1.0.0\/c.yaml/,
  );
});

test('openGitHubRepository: null for other URLs, the apiUrl host accepted for GitHub Enterprise', () => {
  assert.equal(openGitHubRepository('https://example.com/o/r/releases/latest/c.yaml'), null);
  const repository = openGitHubRepository('https://ghe.example.com/team/provider/releases/v0.3.0/infrastructure-components.yaml', {
    apiUrl: 'https://ghe.example.com/api/v3',
  });
  assert.ok(repository);
  assert.equal(repository.sourceType, 'github');
  assert.equal(repository.defaultVersion, 'v0.3.0');
  assert.equal(repository.componentsFile, 'infrastructure-components.yaml');
  assert.equal(repository.location, 'https://ghe.example.com/team/provider/releases/v0.3.0/infrastructure-components.yaml');
  assert.equal(`${repository.owner}/${repository.repo}`, 'team/provider');
  assert.throws(() => openGitHubRepository(CAPI_URL, { apiUrl: 'api.github.com' }), /invalid GitHub API URL "api.github.com"/);
});

test('the token comes from GITHUB_TOKEN (clusterctl), else GH_TOKEN', () => {
  assert.equal(githubTokenFromEnv({ GITHUB_TOKEN: ' a ', GH_TOKEN: 'b' }), 'a');
  assert.equal(githubTokenFromEnv({ GITHUB_TOKEN: '', GH_TOKEN: 'b' }), 'b');
  assert.equal(githubTokenFromEnv({}), undefined);
});

test('Link headers and published digests are read', () => {
  assert.equal(
    nextPageUrl(
      '<https://api.github.com/repositories/1/releases?page=2>; rel="next", <https://api.github.com/repositories/1/releases?page=5>; rel="last"',
    ),
    'https://api.github.com/repositories/1/releases?page=2',
  );
  assert.equal(nextPageUrl('<https://x/?page=1>; rel="prev"'), undefined);
  assert.equal(nextPageUrl(undefined), undefined);
  assert.equal(publishedSha256(`sha256:${'AB'.repeat(32)}`), 'ab'.repeat(32));
  assert.equal(publishedSha256('sha512:abc'), undefined);
  assert.equal(publishedSha256(null), undefined);
});

// ---- listing ---------------------------------------------------------------------------------

test('all releases are listed across Link-paginated pages of 100; drafts skipped, pre-releases kept (clusterctl repository_github.go getVersions)', async (t) => {
  const releases: FakeRelease[] = Array.from({ length: 250 }, (_, i) => ({
    tag: `v1.${249 - i}.0${i % 50 === 7 ? '-rc.1' : ''}`,
    draft: i % 40 === 3,
    prerelease: i % 50 === 7,
    assets: {},
  }));
  releases.push({ tag: 'nightly', assets: {} });
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': releases });
  const repository = h.open();

  const listed = await repository.listVersions();
  assert.deepEqual(
    listed,
    releases.filter((release) => !release.draft).map((release) => release.tag),
    'raw tags, non-semver kept for the caller to filter',
  );
  assert.equal(listed.length, 251 - 7);
  assert.deepEqual(
    listed.filter((tag) => tag.endsWith('-rc.1')),
    ['v1.242.0-rc.1', 'v1.192.0-rc.1', 'v1.142.0-rc.1', 'v1.92.0-rc.1', 'v1.42.0-rc.1'],
  );

  const pages = h.fake.requests.map((request) => request.url);
  assert.equal(pages.length, 3);
  assert.equal(pages[0], `${RELEASES_PATH}?per_page=100`);
  assert.match(pages[1], /^\/repositories\/\d+\/releases\?per_page=100&page=2$/);
  assert.match(pages[2], /page=3$/);
  assert.deepEqual(h.events, [{ type: 'resolve', source: CAPI_URL }]);
});

test('release list entries of the wrong type are skipped with one warning naming the repository, the count and the first bad field; none usable is an error saying so, never "no versions"', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0')] });
  const good = { tag_name: 'v1.12.0', draft: false, prerelease: false, assets: [] };
  h.fake.inject({ path: RELEASES_PATH, status: 200, body: JSON.stringify([good, { tag_name: 42, draft: false }, 'v1.11.0']) });
  const warnings: string[] = [];
  assert.deepEqual(await h.open({ warn: (line) => warnings.push(line) }).listVersions(), ['v1.12.0']);
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0]!, /kubernetes-sigs\/cluster-api/);
  assert.match(warnings[0]!, /skipped 2 entries of the wrong shape/);
  assert.match(warnings[0]!, /\[1\]\.tag_name is a number/);

  h.fake.inject({ path: RELEASES_PATH, status: 200, body: JSON.stringify([{ tag_name: { name: 'v1.12.0' } }, { tag_name: null }]) });
  const error = await rejection(h.open({ warn: (line) => warnings.push(line) }).listVersions());
  assert.equal(error.diagnostics.length, 1, error.message);
  const [d] = error.diagnostics;
  assert.match(d!.message, /kubernetes-sigs\/cluster-api/);
  assert.match(d!.message, /all 2 entries are of the wrong shape/);
  assert.match(d!.message, /\[0\]\.tag_name is an object/);
  assert.match(d!.expected ?? '', /tag_name a string/);
  assert.match(d!.hint ?? '', /--github-api-url/);
  assert.match(d!.hint ?? '', /proxy/);
});

test('a next-page Link to another host is refused, so the token cannot follow it', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0')] });
  h.fake.inject({ path: RELEASES_PATH, status: 200, headers: { link: `<${h.fake.storageUrl}/steal?page=2>; rel="next"` }, body: '[]' });
  const error = await rejection(h.open({ token: TOKEN }).listVersions());
  assert.match(error.message, /links its next page to another host \(http:\/\/localhost:\d+\/steal\)/);
  assert.equal(h.fake.requests.filter((request) => request.server === 'storage').length, 0);
});

test('an asset API URL on another host is refused, so the token cannot follow it', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0')] });
  const release = {
    tag_name: 'v1.12.0',
    draft: false,
    prerelease: false,
    assets: [{ id: 1, name: 'metadata.yaml', url: `${h.fake.storageUrl}/collect`, digest: null }],
  };
  h.fake.inject({ path: TAG_PATH('v1.12.0'), status: 200, body: JSON.stringify(release) });
  const error = await rejection(h.open({ token: TOKEN }).getFile('v1.12.0', 'metadata.yaml'));
  assert.match(
    error.message,
    /release v1.12.0 of kubernetes-sigs\/cluster-api points asset metadata.yaml to another host \(http:\/\/localhost:\d+\/collect\)/,
  );
  assert.equal(h.fake.requests.filter((request) => request.server === 'storage').length, 0);
});

test('a release answer whose fields have the wrong type is one problem naming the repository, the release, the field and what was expected, never "[object Object]" or a crash', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0')] });
  const asset = (name: string) => ({
    id: 1,
    name,
    url: `${h.fake.apiUrl}/repos/kubernetes-sigs/cluster-api/releases/assets/1`,
    browser_download_url: `https://github.com/kubernetes-sigs/cluster-api/releases/download/v1.12.0/${name}`,
    digest: null,
  });
  const release = (change: (r: Record<string, unknown>, a: Record<string, unknown>) => void) => {
    const a: Record<string, unknown> = asset('metadata.yaml');
    const r: Record<string, unknown> = { tag_name: 'v1.12.0', draft: false, prerelease: false, assets: [a, asset('core-components.yaml')] };
    change(r, a);
    return r;
  };
  const cases: [string, (r: Record<string, unknown>, a: Record<string, unknown>) => void, RegExp][] = [
    ['tag_name', (r) => (r.tag_name = { name: 'v1.12.0' }), /tag_name is an object/],
    ['assets', (r) => (r.assets = { 0: 'metadata.yaml' }), /assets is an object/],
    ['an asset', (r) => (r.assets = [null]), /assets\[0\] is null/],
    ['name', (_r, a) => (a.name = { text: 'metadata.yaml' }), /assets\[0\]\.name is an object/],
    ['url', (_r, a) => (a.url = ['x']), /assets\[0\]\.url is an array/],
    ['browser_download_url', (_r, a) => (a.browser_download_url = { href: 'x' }), /assets\[0\]\.browser_download_url is an object/],
    ['digest', (_r, a) => (a.digest = 42), /assets\[0\]\.digest is a number/],
  ];
  for (const [field, change, named] of cases) {
    h.fake.inject({ path: TAG_PATH('v1.12.0'), status: 200, body: JSON.stringify(release(change)) });
    const error = await rejection(h.open().getFile('v1.12.0', 'metadata.yaml'));
    assert.equal(error.diagnostics.length, 1, field);
    const [d] = error.diagnostics;
    assert.match(
      d!.message,
      /^GitHub's answer for release v1\.12\.0 of kubernetes-sigs\/cluster-api \(GET http:\/\/127\.0\.0\.1:\d+\/repos\/kubernetes-sigs\/cluster-api\/releases\/tags\/v1\.12\.0\) is not a release: /,
      field,
    );
    assert.match(d!.message, named, field);
    assert.match(d!.expected ?? '', /tag_name a string, assets a list of objects/, field);
    assert.match(d!.hint ?? '', /--github-api-url/, field);
    assert.ok(!JSON.stringify(d).includes('[object Object]'), `${field}: ${d!.message}`);
  }
});

test("providers of one repository share a run's GET releases/tags/<tag> (one per repository and tag), keyed by the token's sha256, never the token", async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0'), capiRelease('v1.11.0')] });
  const context = new RunContext(undefined);
  const keys: string[] = [];
  const runMemo: RunMemo = (key, load) => {
    keys.push(key);
    return context.runMemo(key, load);
  };
  const core = h.open({ token: TOKEN, runMemo });
  const bootstrap = h.open({ token: TOKEN, runMemo }, CAPI_URL.replace('latest/core-components', 'latest/bootstrap-components'));
  await Promise.all([core.getFile('v1.12.0', 'metadata.yaml'), bootstrap.getFile('v1.12.0', 'metadata.yaml')]);
  await core.getFile('v1.11.0', 'metadata.yaml');
  assert.equal(h.fake.count(TAG_PATH('v1.12.0')), 1, 'v1.12.0 read once for both providers');
  assert.equal(h.fake.count(TAG_PATH('v1.11.0')), 1);
  // another token may see other releases (a private repository): its own request
  await h.open({ token: `${TOKEN}-other`, runMemo }).getFile('v1.12.0', 'metadata.yaml');
  assert.equal(h.fake.count(TAG_PATH('v1.12.0')), 2);
  assert.ok(keys.length >= 4);
  assert.ok(
    keys.every((key) => !key.includes(TOKEN)),
    'no key holds the token',
  );
  assert.ok(keys.some((key) => key.includes(sha256Hex(TOKEN))));
});

// ---- downloads -------------------------------------------------------------------------------

test('files are downloaded through the release-asset API, redirected to storage, and the token is not forwarded there', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0'), capiRelease('v1.11.0')] });
  const repository = h.open({ token: TOKEN });

  const metadata = await repository.getFile('v1.12.0', 'metadata.yaml');
  assert.equal(metadata.name, 'metadata.yaml');
  assert.equal(metadata.text, METADATA);
  assert.equal(metadata.sha256, sha256Hex(METADATA));
  assert.equal(metadata.url, 'https://github.com/kubernetes-sigs/cluster-api/releases/download/v1.12.0/metadata.yaml');
  const components = await repository.getFile('v1.12.0', repository.componentsFile);
  assert.equal(components.text, `${COMPONENTS}# v1.12.0\n`);

  const api = h.fake.requests.filter((request) => request.server === 'api');
  const storage = h.fake.requests.filter((request) => request.server === 'storage');
  assert.equal(h.fake.count(TAG_PATH('v1.12.0')), 1, 'the release is read once per tag');
  assert.equal(api.filter((request) => request.path.includes('/releases/assets/')).length, 2);
  assert.ok(
    api.every((request) => request.headers.authorization === `token ${TOKEN}`),
    'the API got the token',
  );
  assert.equal(storage.length, 2);
  for (const request of storage) {
    assert.equal(request.headers.authorization, undefined, 'the storage host never sees the token');
    assert.equal(request.headers.accept, 'application/octet-stream');
  }

  const kinds = h.events.map((event) => event.type);
  assert.deepEqual(
    kinds.filter((kind) => kind !== 'bytes'),
    ['fetch', 'done', 'fetch', 'done'],
  );
  // the log line names the file fetched, not the configured URL (`releases/latest/core-components.yaml`)
  assert.deepEqual(
    h.events.flatMap((event) => (event.type === 'fetch' ? [lineFor(event)] : [])),
    [
      'fetching metadata.yaml v1.12.0 from https://github.com/kubernetes-sigs/cluster-api/releases/download/v1.12.0/metadata.yaml',
      'fetching core-components.yaml v1.12.0 from https://github.com/kubernetes-sigs/cluster-api/releases/download/v1.12.0/core-components.yaml',
    ],
  );
  const bytes = h.events.filter((event) => event.type === 'bytes');
  assert.ok(bytes.length >= 2);
  assert.ok(
    bytes.every((event) => !event.url.includes('sig=')),
    'signed query strings are not reported',
  );
  assert.deepEqual(
    h.events.find((event) => event.type === 'done'),
    {
      type: 'done',
      source: 'https://github.com/kubernetes-sigs/cluster-api/releases/download/v1.12.0/metadata.yaml',
      version: 'v1.12.0',
      file: 'metadata.yaml',
      bytes: METADATA.length,
      cached: false,
    },
  );
});

test('the real corpus served as kubernetes-sigs/cluster-api releases downloads byte for byte', async (t) => {
  const fake = await startCorpusGitHub({ 'kubernetes-sigs/cluster-api': ['cluster-api', 'bootstrap-kubeadm', 'control-plane-kubeadm'] });
  t.after(() => fake.close());
  const open = (url: string) => openGitHubRepository(url, { apiUrl: fake.apiUrl, retryAfterBaseMs: 0 })!;
  const core = open(CAPI_URL);
  assert.deepEqual(await core.listVersions(), ['v1.12.0', 'v1.10.4', 'v1.8.0', 'v1.7.7']);
  const coreFile = await core.getFile('v1.12.0', 'core-components.yaml');
  const expected = await readFile(path.join(CORPUS_REPOSITORY, 'cluster-api', 'v1.12.0', 'core-components.yaml'));
  assert.equal(coreFile.sha256, sha256Hex(expected));
  assert.equal(coreFile.text, expected.toString('utf8'));
  const bootstrap = open('https://github.com/kubernetes-sigs/cluster-api/releases/latest/bootstrap-components.yaml');
  const kubeadm = await bootstrap.getFile('v1.10.4', bootstrap.componentsFile);
  assert.equal(
    kubeadm.sha256,
    sha256Hex(await readFile(path.join(CORPUS_REPOSITORY, 'bootstrap-kubeadm', 'v1.10.4', 'bootstrap-components.yaml'))),
  );
});

test('ETags are revalidated with If-None-Match: a repeated resolve is all 304s, spends no rate limit, downloads nothing', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0'), capiRelease('v1.11.0')] });
  const cache = await tempCache(t);
  const resolve = async () => {
    const repository = h.open({ cache });
    await repository.listVersions();
    await repository.getFile('v1.12.0', 'metadata.yaml');
    return repository.getFile('v1.12.0', 'core-components.yaml');
  };

  const first = await resolve();
  const spent = h.fake.rateLimitSpent;
  const requestsBefore = h.fake.requests.length;
  assert.equal(spent, 4, 'list + release + 2 asset redirects');

  const second = await resolve();
  assert.deepEqual(second, first);
  const repeated = h.fake.requests.slice(requestsBefore);
  assert.deepEqual(
    repeated.map((request) => [request.path, request.status]),
    [
      [RELEASES_PATH, 304],
      [TAG_PATH('v1.12.0'), 304],
    ],
  );
  assert.ok(repeated.every((request) => typeof request.headers['if-none-match'] === 'string'));
  assert.equal(h.fake.rateLimitSpent, spent, 'GitHub does not count 304s');
  assert.deepEqual(
    h.events.filter((event) => event.type === 'done').map((event) => event.type === 'done' && event.cached),
    [false, false, true, true],
  );
});

test('pagination survives 304s: the cached Link header leads to the next pages', async (t) => {
  const releases = Array.from({ length: 150 }, (_, i) => capiRelease(`v1.${i}.0`));
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': releases });
  const cache = await tempCache(t);
  const first = await h.open({ cache }).listVersions();
  const second = await h.open({ cache }).listVersions();
  assert.equal(second.length, 150);
  assert.deepEqual(second, first);
  assert.deepEqual(
    h.fake.requests.map((request) => request.status),
    [200, 200, 304, 304],
  );
});

test('a release changed on the server is picked up: its new ETag no longer matches', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.11.0')] });
  const cache = await tempCache(t);
  assert.deepEqual(await h.open({ cache }).listVersions(), ['v1.11.0']);
  h.fake.setReleases('kubernetes-sigs/cluster-api', [capiRelease('v1.12.0'), capiRelease('v1.11.0')]);
  assert.deepEqual(await h.open({ cache }).listVersions(), ['v1.12.0', 'v1.11.0']);
});

test('offline mode serves everything from the cache with no request, and names what is missing', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0')] });
  const cache = await tempCache(t);
  const online = h.open({ cache });
  await online.listVersions();
  const file = await online.getFile('v1.12.0', 'core-components.yaml');
  const requests = h.fake.requests.length;

  const offline = h.open({ cache, offline: true });
  assert.deepEqual(await offline.listVersions(), ['v1.12.0']);
  assert.deepEqual(await offline.getFile('v1.12.0', 'core-components.yaml'), file);
  assert.equal(h.fake.requests.length, requests);

  const missing = await rejection(offline.getFile('v1.12.0', 'metadata.yaml'));
  assert.match(missing.message, /offline: asset metadata.yaml for version v1.12.0 of kubernetes-sigs\/cluster-api is not in the cache/);
  assert.match(
    missing.message,
    new RegExp(
      `hint: run the same command once without --offline, on a machine with network access, to fill the cache at ${cache.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; then retry`,
    ),
  );
  assert.equal(h.fake.requests.length, requests);
});

test('an asset without a published digest is cached by its asset id and not downloaded again', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.6.0', { digests: { 'core-components.yaml': null } })] });
  const cache = await tempCache(t);
  const first = await h.open({ cache }).getFile('v1.6.0', 'core-components.yaml');
  const second = await h.open({ cache }).getFile('v1.6.0', 'core-components.yaml');
  assert.deepEqual(second, first);
  assert.equal(h.fake.count(/^\/assets\//, 'storage'), 1);
});

test('a corrupt cached asset is detected, reported and downloaded again', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0')] });
  const cacheLog: string[] = [];
  const cache = await tempCache(t, (line) => cacheLog.push(line));
  const file = await h.open({ cache }).getFile('v1.12.0', 'core-components.yaml');
  await writeFile(cache.blobPath(file.sha256), 'tampered');
  const again = await h.open({ cache }).getFile('v1.12.0', 'core-components.yaml');
  assert.equal(again.text, file.text);
  assert.equal(h.fake.count(/^\/assets\//, 'storage'), 2);
  assert.match(cacheLog.join('\n'), new RegExp(`blob sha256:${file.sha256} does not match its content`));
});

test('a published digest that does not match the bytes is a hard error naming both digests; nothing is cached', async (t) => {
  const wrong = `sha256:${'0'.repeat(64)}`;
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0', { digests: { 'core-components.yaml': wrong } })] });
  const cache = await tempCache(t);
  const error = await rejection(h.open({ cache }).getFile('v1.12.0', 'core-components.yaml'));
  const actual = sha256Hex(`${COMPONENTS}# v1.12.0\n`);
  assert.match(
    error.message,
    /asset core-components.yaml of release v1.12.0 of kubernetes-sigs\/cluster-api does not match its published digest/,
  );
  assert.ok(error.message.includes(`expected: ${wrong} (published by GitHub)`));
  assert.ok(error.message.includes(`sha256:${actual}`));
  assert.equal(await cache.getBlob(actual), undefined);
  assert.equal(h.fake.count(/^\/assets\//, 'storage'), 1, 'not retried');
});

// ---- failures --------------------------------------------------------------------------------

test('a missing release names the provider, the repository, the version and the URL tried', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0')] });
  const error = await rejection(h.open().getFile('v9.9.9', 'core-components.yaml'));
  assert.ok(error instanceof ArtifactNotFoundError, 'the latest-release search may skip it');
  assert.match(
    error.message,
    /^providers\.yaml:3:1: error: CoreProvider\/capi-system\/cluster-api: no GitHub release v9\.9\.9 in kubernetes-sigs\/cluster-api \(GET http:\/\/127\.0\.0\.1:\d+\/repos\/kubernetes-sigs\/cluster-api\/releases\/tags\/v9\.9\.9 answered 404\)/,
  );
  // the hint names releases that exist, so it can be followed as written
  assert.match(error.message, /hint: the newest releases of kubernetes-sigs\/cluster-api: v1\.12\.0; set spec\.version to one of them/);
  assert.equal(h.fake.count(TAG_PATH('v9.9.9')), 1, 'a 404 is not retried');
});

test('a missing patch release: the hint names the newest releases of its series, newest first, drafts and pre-releases left out', async (t) => {
  const h = await harness(t, {
    'kubernetes-sigs/cluster-api': [
      capiRelease('v1.11.0-rc.0', { prerelease: true }),
      capiRelease('v1.10.6', { draft: true }),
      capiRelease('v1.12.0'),
      capiRelease('v1.10.2'),
      capiRelease('v1.10.5'),
      capiRelease('v1.10.4'),
      capiRelease('v1.10.3'),
    ],
  });
  const error = await rejection(h.open().getFile('v1.10.9', 'core-components.yaml'));
  assert.ok(error instanceof ArtifactNotFoundError);
  assert.equal(
    error.diagnostics[0]!.hint,
    'the newest 1.10 releases of kubernetes-sigs/cluster-api: v1.10.5, v1.10.4, v1.10.3; set spec.version to one of them (a tag without a published release, or a draft, cannot be fetched)',
  );
});

test('a release without metadata.yaml is told so, with a hint that does not ask to check a file name the user did not choose', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [{ tag: 'v1.12.0', assets: { 'core-components.yaml': COMPONENTS } }] });
  const error = await rejection(h.open().getFile('v1.12.0', 'metadata.yaml'));
  assert.ok(error instanceof ArtifactNotFoundError);
  assert.match(error.message, /release v1\.12\.0 of kubernetes-sigs\/cluster-api has no asset named metadata\.yaml/);
  const hint = error.diagnostics[0]!.hint ?? '';
  assert.doesNotMatch(hint, /check the file name/);
  assert.match(hint, /every clusterctl provider release publishes metadata\.yaml.*set spec\.version to a release that has it/);
});

test('a missing repository and a missing asset are named too', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0')] });
  const noRepo = await rejection(h.open({}, 'https://github.com/nobody/nothing/releases/latest/core-components.yaml').listVersions());
  assert.ok(!(noRepo instanceof ArtifactNotFoundError), 'a missing repository is not a missing version');
  assert.match(
    noRepo.message,
    /GitHub repository nobody\/nothing not found \(GET http:\/\/127\.0\.0\.1:\d+\/repos\/nobody\/nothing\/releases answered 404\)/,
  );
  const noAsset = await rejection(h.open().getFile('v1.12.0', 'infrastructure-components.yaml'));
  assert.ok(noAsset instanceof ArtifactNotFoundError);
  assert.match(
    noAsset.message,
    /release v1\.12\.0 of kubernetes-sigs\/cluster-api has no asset named infrastructure-components\.yaml\n  expected: one of: core-components\.yaml, metadata\.yaml/,
  );
  h.fake.inject({ server: 'storage', path: /^\/assets\//, status: 404, body: 'gone' });
  const goneFromStorage = await rejection(h.open().getFile('v1.12.0', 'metadata.yaml'));
  assert.ok(goneFromStorage instanceof ArtifactNotFoundError);
  assert.match(goneFromStorage.message, /asset metadata.yaml of release v1.12.0 of kubernetes-sigs\/cluster-api not found/);
  const unresolved = await rejection(h.open().getFile('latest', 'metadata.yaml'));
  assert.match(unresolved.message, /version "latest" of kubernetes-sigs\/cluster-api has not been resolved to a tag/);
});

test('a 403 rate limit resetting far away fails at once with the reset time and the GITHUB_TOKEN hint', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0')] });
  const fault = rateLimitFault(RELEASES_PATH, { status: 403, resetInSeconds: 3600 });
  h.fake.inject(fault);
  const error = await rejection(h.open().listVersions());
  assert.ok(!(error instanceof ArtifactNotFoundError), 'a rate limit must stop a latest-release search, not be skipped');
  const reset = new Date(Number(fault.headers!['x-ratelimit-reset']) * 1000).toISOString().replace('.000Z', 'Z');
  assert.match(error.message, /GitHub API rate limit exceeded \(HTTP 403\) trying to list the releases of kubernetes-sigs\/cluster-api/);
  assert.ok(error.message.includes(`it resets at ${reset}`), error.message);
  assert.match(error.message, /hint: set GITHUB_TOKEN \(or GH_TOKEN\)/);
  assert.equal(h.fake.count(RELEASES_PATH), 1, 'no retry');
});

test('a 429 rate limit far away fails at once; with a token the hint says its quota is used up', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0')] });
  const fault = rateLimitFault(TAG_PATH('v1.12.0'), { status: 429, resetInSeconds: 7200 });
  h.fake.inject(fault);
  const error = await rejection(h.open({ token: TOKEN }).getFile('v1.12.0', 'metadata.yaml'));
  const reset = new Date(Number(fault.headers!['x-ratelimit-reset']) * 1000).toISOString().replace('.000Z', 'Z');
  assert.match(
    error.message,
    /rate limit exceeded \(HTTP 429\) trying to get release v1.12.0 of kubernetes-sigs\/cluster-api; it resets at /,
  );
  assert.ok(error.message.includes(`hint: the token's quota is used up: wait until ${reset}`));
  assert.ok(!error.message.includes(TOKEN));
  assert.equal(h.fake.count(TAG_PATH('v1.12.0')), 1, 'neither the retry plugin nor throttling retried it');
});

test('a secondary rate limit with a long Retry-After fails at once and says when to come back', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0')] });
  h.fake.inject(secondaryRateLimitFault(RELEASES_PATH, { status: 403, retryAfterSeconds: 900 }));
  const error = await rejection(h.open().listVersions());
  assert.match(error.message, /rate limit exceeded \(HTTP 403\).*; it resets at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/);
  assert.equal(h.fake.count(RELEASES_PATH), 1);
});

test('rate limits that reset soon (403, 429, secondary) are waited for and retried', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0')] });
  h.fake.inject(rateLimitFault(RELEASES_PATH, { status: 403, resetInSeconds: 1 }));
  assert.deepEqual(await h.open().listVersions(), ['v1.12.0']);
  assert.equal(h.fake.count(RELEASES_PATH), 2);

  h.fake.inject(rateLimitFault(TAG_PATH('v1.12.0'), { status: 429, resetInSeconds: 2 }));
  await h.open().getFile('v1.12.0', 'metadata.yaml');
  assert.equal(h.fake.count(TAG_PATH('v1.12.0')), 2);

  h.fake.inject(secondaryRateLimitFault(RELEASES_PATH, { status: 429, retryAfterSeconds: 5 }));
  assert.deepEqual(await h.open().listVersions(), ['v1.12.0']);
  assert.equal(h.fake.count(RELEASES_PATH), 4);
  assert.equal(h.logs.filter((line) => /GitHub rate limit on GET .*: retrying in \d+ s/.test(line)).length, 3);
});

test('the longest rate-limit wait is an option', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0')] });
  h.fake.inject(rateLimitFault(RELEASES_PATH, { status: 403, resetInSeconds: 120 }));
  assert.deepEqual(await h.open({ maxRateLimitWaitSeconds: 300 }).listVersions(), ['v1.12.0']);
  h.fake.inject(rateLimitFault(RELEASES_PATH, { status: 403, resetInSeconds: 120 }));
  await rejection(h.open({ maxRateLimitWaitSeconds: 30 }).listVersions());
});

test('a 500 followed by success is retried, on the API and on storage, both by the shared client', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0')] });
  h.fake.inject({ path: TAG_PATH('v1.12.0'), status: 500, body: '{"message":"Server Error"}' });
  h.fake.inject({ server: 'storage', path: /^\/assets\//, status: 502, body: 'bad gateway' });
  const file = await h.open().getFile('v1.12.0', 'core-components.yaml');
  assert.equal(file.text, `${COMPONENTS}# v1.12.0\n`);
  assert.equal(h.fake.count(TAG_PATH('v1.12.0')), 2);
  assert.equal(h.fake.count(/^\/assets\//, 'storage'), 2);
  assert.deepEqual(
    h.events.filter((event) => event.type === 'retry').map((event) => event.type === 'retry' && event.reason),
    ['HTTP 500', 'HTTP 502'],
  );

  h.fake.inject({ server: 'storage', path: /^\/assets\//, reset: true });
  h.fake.inject({ path: TAG_PATH('v1.12.0'), reset: true });
  assert.equal((await h.open().getFile('v1.12.0', 'metadata.yaml')).text, METADATA, 'connection resets are retried too');
  assert.equal(h.fake.count(TAG_PATH('v1.12.0')), 4);
  assert.equal(h.fake.count(/^\/assets\//, 'storage'), 4);
});

test('persistent 5xx gives up after the bounded attempts and names the status', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0')] });
  h.fake.inject({ path: RELEASES_PATH, status: 503, body: '{"message":"Unavailable"}', times: 10 });
  const error = await rejection(h.open({ http: { retries: 2 } }).listVersions());
  assert.match(
    error.message,
    /cannot list the releases of kubernetes-sigs\/cluster-api: GET http:\/\/127\.0\.0\.1:\d+\/repos\/kubernetes-sigs\/cluster-api\/releases answered HTTP 503: Unavailable/,
  );
  assert.equal(h.fake.count(RELEASES_PATH), 3);
});

test('a truncated body is retried (API and storage), and reported when it keeps happening', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0')] });
  h.fake.inject({ path: TAG_PATH('v1.12.0'), truncate: true });
  h.fake.inject({ server: 'storage', path: /^\/assets\//, truncate: true });
  const file = await h.open().getFile('v1.12.0', 'core-components.yaml');
  assert.equal(file.text, `${COMPONENTS}# v1.12.0\n`);
  assert.equal(h.fake.count(TAG_PATH('v1.12.0')), 2);
  assert.equal(h.fake.count(/^\/assets\//, 'storage'), 2);

  h.fake.inject({ server: 'storage', path: /^\/assets\//, truncate: true, times: 10 });
  const error = await rejection(h.open().getFile('v1.12.0', 'metadata.yaml'));
  assert.match(
    error.message,
    /cannot download metadata.yaml of release v1.12.0 of kubernetes-sigs\/cluster-api: GET http:\/\/localhost:\d+\/assets\/\d+\/metadata.yaml: response body ended after \d+ of \d+ bytes .*; gave up after 4 attempts/,
  );
  assert.ok(!error.message.includes('sig='), 'the signed query is not printed');

  h.fake.inject({ path: TAG_PATH('v1.12.0'), truncate: true, times: 10 });
  const api = await rejection(h.open({ http: { retries: 1 } }).getFile('v1.12.0', 'metadata.yaml'));
  assert.match(
    api.message,
    /^providers\.yaml:3:1: error: CoreProvider\/capi-system\/cluster-api: cannot get release v1.12.0 of kubernetes-sigs\/cluster-api: GET http:\/\/127\.0\.0\.1:\d+\/repos\/kubernetes-sigs\/cluster-api\/releases\/tags\/v1.12.0: response body ended after \d+ of \d+ bytes/,
  );
});

test('a failed listing or release lookup is not remembered: the same repository can try again', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0')] });
  const repository = h.open();
  h.fake.inject(rateLimitFault(RELEASES_PATH, { status: 403, resetInSeconds: 3600 }));
  h.fake.inject(rateLimitFault(TAG_PATH('v1.12.0'), { status: 403, resetInSeconds: 3600 }));
  await rejection(repository.listVersions());
  await rejection(repository.getFile('v1.12.0', 'metadata.yaml'));
  assert.deepEqual(await repository.listVersions(), ['v1.12.0']);
  assert.equal((await repository.getFile('v1.12.0', 'metadata.yaml')).text, METADATA);
  await repository.listVersions();
  await repository.getFile('v1.12.0', 'core-components.yaml');
  assert.equal(h.fake.count(RELEASES_PATH), 2, 'a success is remembered');
  assert.equal(h.fake.count(TAG_PATH('v1.12.0')), 2);
});

test('a 401 to a run without a token asks for one, not to check a token that was never sent (a GitHub Enterprise that requires sign-in)', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0')] });
  h.fake.inject({ path: RELEASES_PATH, status: 401, body: '{"message":"Requires authentication"}' });
  const error = await rejection(h.open().listVersions());
  assert.equal(h.fake.requests[0].headers.authorization, undefined, 'no token was sent');
  assert.match(error.message, /cannot list the releases of kubernetes-sigs\/cluster-api: GitHub requires a token \(HTTP 401\)/);
  assert.doesNotMatch(error.message, /rejected the token|expired or revoked/);
  assert.match(error.message, /hint: set GITHUB_TOKEN \(or GH_TOKEN\) to a token that can read kubernetes-sigs\/cluster-api/);
  assert.match(error.message, /--github-api-url/, 'a host other than api.github.com gets the token only when named on the command line');
});

test("a rejected token from a provider's configSecret is hinted at that Secret's github-token, not at GITHUB_TOKEN (which the run may not even set)", async (t) => {
  const fake = await FakeGitHub.start({ 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0')] });
  t.after(() => fake.close());
  fake.inject({ path: RELEASES_PATH, status: 401, body: '{"message":"Bad credentials"}' });
  const repository = await githubSource.open(
    {
      from: 'url',
      url: CAPI_URL,
      kind: 'CoreProvider',
      name: 'cluster-api',
      label: 'cluster-api',
      baseDir: '/',
      origin: { file: 'providers.yaml', line: 3, column: 1 },
      credentials: { 'github-token': TOKEN },
    },
    {
      configMaps: [],
      options: { env: {}, github: { apiUrl: fake.apiUrl, retryAfterBaseMs: 0, http: { sleep: async () => undefined, timeoutMs: 5_000 } } },
    },
  );
  assert.ok(repository);
  const error = await rejection(repository.listVersions());
  assert.match(error.message, /GitHub rejected the token \(HTTP 401\)/);
  assert.equal(error.diagnostics[0].hint, 'check the github-token of the configSecret of cluster-api: it may be expired or revoked');
  assert.ok(!error.message.includes(TOKEN));
});

test('a 403 that is no rate limit says the token cannot read the repository and which permission it needs (a token with too few scopes)', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0')] });
  h.fake.inject({ path: TAG_PATH('v1.12.0'), status: 403, body: '{"message":"Resource not accessible by personal access token"}' });
  const error = await rejection(h.open({ token: TOKEN }).getFile('v1.12.0', 'metadata.yaml'));
  assert.match(error.message, /answered HTTP 403: Resource not accessible by personal access token/);
  assert.match(error.diagnostics[0].hint ?? '', /the token cannot read kubernetes-sigs\/cluster-api: .*Contents.*repo scope/);
  assert.ok(!error.message.includes(TOKEN));
});

test('the token never appears in errors, logs or progress events', async (t) => {
  const h = await harness(t, { 'kubernetes-sigs/cluster-api': [capiRelease('v1.12.0')] });
  const repository = () => h.open({ token: TOKEN });
  const messages: string[] = [];
  const collect = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      messages.push(String(error), (error as Error).stack ?? '', JSON.stringify((error as CapiGitopsError).diagnostics));
    }
  };
  await collect(repository().getFile('v1.12.0', 'core-components.yaml'));
  h.fake.inject({ path: RELEASES_PATH, status: 401, body: '{"message":"Bad credentials"}' });
  await collect(repository().listVersions());
  h.fake.inject(rateLimitFault(RELEASES_PATH, { status: 403, resetInSeconds: 1 }));
  await collect(repository().listVersions());
  h.fake.inject(rateLimitFault(RELEASES_PATH, { status: 403, resetInSeconds: 3600 }));
  await collect(repository().listVersions());
  h.fake.inject({ server: 'storage', path: /^\/assets\//, truncate: true, times: 10 });
  await collect(repository().getFile('v1.12.0', 'metadata.yaml'));
  await collect(repository().getFile('v0.0.1', 'metadata.yaml'));

  assert.ok(messages.length >= 4 * 3);
  assert.match(messages.join('\n'), /GitHub rejected the token \(HTTP 401\)/);
  assert.ok(h.logs.length > 0 && h.events.length > 0);
  const everything = [...messages, ...h.logs, ...h.events.map((event) => JSON.stringify(event))].join('\n');
  assert.ok(!everything.includes(TOKEN), 'token leaked');
  assert.ok(!everything.includes(TOKEN.slice(4, 20)), 'part of the token leaked');
  assert.ok(
    h.fake.requests.some((request) => request.headers.authorization === `token ${TOKEN}`),
    'the token was in use',
  );
});
