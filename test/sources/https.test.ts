import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { resolveVersion } from '../../src/resolve/versions.js';
import { ArtifactCache } from '../../src/sources/cache.js';
import { sha256Hex } from '../../src/core/digest.js';
import { isLoopbackHost } from '../../src/sources/base/http.js';
import { httpsAuthorization } from '../../src/sources/credentials.js';
import { openGitHubRepository } from '../../src/sources/github/repository.js';
import { openHttpsRepository, parseHttpsTemplate, parseVersionsList, type HttpsOptions } from '../../src/sources/https/repository.js';
import { ArtifactNotFoundError, type ProviderRepository } from '../../src/sources/source.js';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';
import { rejection } from '../helpers/assertions.js';

type Hooks = { after: (fn: () => Promise<void> | void) => void };

const AUTHORIZATION = 'Bearer artifact-server-secret-token';
const corpus = (label: string, version: string, file: string) => readFileSync(path.join(CORPUS_REPOSITORY, label, version, file));

interface Recorded {
  server: 'main' | 'other';
  url: string;
  authorization?: string;
  status: number;
}

/**
 * An internal artifact server on 127.0.0.1: files at /<path>, ETags with If-None-Match, and an
 * optional Authorization requirement. A second server on localhost (another origin) is where
 * redirects and foreign versions files point.
 */
class ArtifactServer {
  url = '';
  otherUrl = '';
  readonly requests: Recorded[] = [];
  private readonly main = http.createServer((req, res) => this.handle('main', req, res));
  private readonly other = http.createServer((req, res) => this.handle('other', req, res));

  constructor(
    /** Path with query → content, or `{ redirect }` to send a 302. */
    readonly files: Map<string, string | Buffer | { redirect: string }>,
    private readonly requireAuthorization?: string,
  ) {}

  static async start(
    t: Hooks,
    files: Record<string, string | Buffer | { redirect: string }>,
    requireAuthorization?: string,
  ): Promise<ArtifactServer> {
    const server = new ArtifactServer(new Map(Object.entries(files)), requireAuthorization);
    server.url = `http://127.0.0.1:${await listen(server.main, '127.0.0.1')}`;
    server.otherUrl = `http://localhost:${await listen(server.other, 'localhost')}`;
    t.after(async () => {
      for (const each of [server.main, server.other]) {
        each.closeAllConnections();
        await new Promise<void>((resolve) => each.close(() => resolve()));
      }
    });
    return server;
  }

  private handle(which: 'main' | 'other', req: http.IncomingMessage, res: http.ServerResponse): void {
    const record: Recorded = { server: which, url: req.url ?? '', authorization: req.headers.authorization, status: 200 };
    this.requests.push(record);
    const reply = (status: number, body: string | Buffer = '', headers: Record<string, string> = {}) => {
      record.status = status;
      res.writeHead(status, headers);
      res.end(body);
    };
    if (which === 'main' && this.requireAuthorization && req.headers.authorization !== this.requireAuthorization)
      return reply(401, 'unauthorized');
    const content = this.files.get(`${which === 'other' ? 'other:' : ''}${record.url}`);
    if (content === undefined) return reply(404, 'not found');
    if (typeof content === 'object' && 'redirect' in content) return reply(302, '', { location: content.redirect });
    const etag = `"${sha256Hex(content).slice(0, 16)}"`;
    if (req.headers['if-none-match'] === etag) return reply(304, '', { etag });
    reply(200, content, { etag, 'content-type': 'application/octet-stream' });
  }
}

function listen(server: http.Server, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as AddressInfo).port)));
}

function open(template: string, options: HttpsOptions = {}): ProviderRepository {
  const repository = openHttpsRepository(template, {
    origin: { file: 'config.yaml', line: 4, column: 3, object: 'ControlPlaneProvider/capi-kubeadm-control-plane-system/kubeadm' },
    ...options,
    http: { retries: 0, timeoutMs: 5_000, sleep: async () => undefined, ...options.http },
  });
  assert.ok(repository);
  return repository;
}

function throwsDiagnostic(fn: () => unknown, message: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof CapiGitopsError, String(error));
    assert.match(error.message, message);
    return true;
  });
}

function kubeadmFiles(...versions: string[]): Record<string, Buffer> {
  const files: Record<string, Buffer> = {};
  for (const version of versions) {
    files[`/capi/${version}/control-plane-components.yaml`] = corpus('control-plane-kubeadm', version, 'control-plane-components.yaml');
    files[`/capi/${version}/metadata.yaml`] = corpus('control-plane-kubeadm', version, 'metadata.yaml');
  }
  return files;
}

// ---- the template ------------------------------------------------------------------------------

test('a template splits into directory, components file and query; metadata.yaml comes from the same directory with the same query', () => {
  assert.deepEqual(parseHttpsTemplate('https://artifacts.internal/capi/{version}/core-components.yaml'), {
    directory: 'https://artifacts.internal/capi/{version}/',
    componentsFile: 'core-components.yaml',
    suffix: '',
    origin: 'https://artifacts.internal',
  });
  assert.deepEqual(parseHttpsTemplate('https://bitbucket.internal:8443/projects/P/repos/capi/raw/core-components.yaml?at={version}'), {
    directory: 'https://bitbucket.internal:8443/projects/P/repos/capi/raw/',
    componentsFile: 'core-components.yaml',
    suffix: '?at={version}',
    origin: 'https://bitbucket.internal:8443',
  });
  const repository = openHttpsRepository('https://bitbucket.internal/raw/core-components.yaml?at={version}&raw') as ProviderRepository & {
    fileUrl(v: string, f: string): string;
  };
  assert.equal(repository.fileUrl('v1.12.0', 'metadata.yaml'), 'https://bitbucket.internal/raw/metadata.yaml?at=v1.12.0&raw');
  const named = openHttpsRepository('https://artifacts.internal/capi/core-components-{version}.yaml') as ProviderRepository & {
    fileUrl(v: string, f: string): string;
  };
  assert.equal(named.componentsFile, 'core-components-{version}.yaml');
  assert.equal(
    named.fileUrl('v1.0.0+build.1', named.componentsFile),
    'https://artifacts.internal/capi/core-components-v1.0.0%2Bbuild.1.yaml',
  );
});

test("null for what is not this source's (neither http(s) nor {version}); an error for half of it", () => {
  assert.equal(parseHttpsTemplate('ghcr.io/org/cluster-api:v1.12.0'), null);
  assert.equal(parseHttpsTemplate('/repository/cluster-api/v1.12.0/core-components.yaml'), null);
  assert.equal(openHttpsRepository('file:///repository/cluster-api/latest/core-components.yaml'), null);
  throwsDiagnostic(
    () => parseHttpsTemplate('https://example.com/stash/projects/E-C/repos/cluster-api/browse/core-components.yaml?at=development'),
    /neither a GitHub release URL, a GitLab package URL nor a template with \{version\}/,
  );
  throwsDiagnostic(() => parseHttpsTemplate('ftp://artifacts.internal/{version}/core-components.yaml'), /must be an http\(s\):\/\/ URL/);
  throwsDiagnostic(() => parseHttpsTemplate('https://{version}.artifacts.internal/core-components.yaml'), /not the host/);
  throwsDiagnostic(() => parseHttpsTemplate('https://artifacts.internal/{version}/'), /must end with the components file name/);
  throwsDiagnostic(() => parseHttpsTemplate('https://user:pass@artifacts.internal/{version}/c.yaml'), /must not carry credentials/);
});

test('a GitHub Enterprise release URL without its API named: the hint gives the --github-api-url that, followed literally, opens it as a GitHub release', () => {
  const url = 'https://ghe.corp.example/platform/cluster-api/releases/latest/core-components.yaml';
  assert.equal(openGitHubRepository(url), null, 'github.com is the only GitHub host without an API URL');
  throwsDiagnostic(
    () => parseHttpsTemplate(url),
    /hint: a GitHub Enterprise release URL: run with --github-api-url https:\/\/ghe\.corp\.example\/api\/v3 \(or set Config github\.apiUrl\)/,
  );
  assert.ok(openGitHubRepository(url, { apiUrl: 'https://ghe.corp.example/api/v3' }), 'the hint followed literally');
});

test('http:// is accepted for 127.0.0.1/localhost/::1 only, unless allowInsecure', () => {
  assert.ok(parseHttpsTemplate('http://127.0.0.1:8080/{version}/c.yaml'));
  assert.ok(parseHttpsTemplate('http://localhost/{version}/c.yaml'));
  assert.ok(parseHttpsTemplate('http://[::1]:8080/{version}/c.yaml'));
  throwsDiagnostic(
    () => parseHttpsTemplate('http://artifacts.internal/{version}/c.yaml'),
    /plain http:\/\/ to a host other than 127\.0\.0\.1\/localhost/,
  );
  assert.ok(parseHttpsTemplate('http://artifacts.internal/{version}/c.yaml', true));
  throwsDiagnostic(
    () => openHttpsRepository('https://a.internal/{version}/c.yaml', { versionsUrl: 'http://a.internal/versions.txt' }),
    /versionsUrl uses plain http/,
  );
  assert.equal(isLoopbackHost('127.1.2.3'), true);
  assert.equal(isLoopbackHost('128.0.0.1'), false);
});

test('versions files: one tag per line with comments and blank lines, or a JSON array; bad entries are named', () => {
  assert.deepEqual(parseVersionsList('# published\nv1.10.4\n\n  v1.12.0  \r\nv1.12.0\n', 'x'), ['v1.10.4', 'v1.12.0']);
  assert.deepEqual(parseVersionsList(' ["v1.10.4", "v1.12.0"] ', 'x'), ['v1.10.4', 'v1.12.0']);
  throwsDiagnostic(
    () => parseVersionsList('v1.10.4\nv1 12\n../etc\n', 'versions.txt'),
    /versions\.txt lists entries that are not version tags: line 2: "v1 12"; line 3: "\.\.\/etc"/,
  );
  throwsDiagnostic(() => parseVersionsList('["v1", 3]', 'versions.json'), /item 1: 3/);
  throwsDiagnostic(() => parseVersionsList('[oops', 'versions.json'), /starts with "\[" but is not valid JSON/);
  throwsDiagnostic(
    () => openHttpsRepository('https://a.internal/{version}/c.yaml', { versions: ['v1.0.0'], versionsUrl: 'https://a.internal/v.txt' }),
    /versions or versionsUrl, not both/,
  );
  throwsDiagnostic(
    () => openHttpsRepository('https://a.internal/{version}/c.yaml', { versions: ['v1.0.0', 'a/b'] }),
    /not version tags: item 1/,
  );
});

test('a hostile versions file (a 60 MB listing) is read in linear time, and its bad entries are counted, not all printed', () => {
  // 300,000 distinct tags: a list scanned for each tag took minutes on such a listing
  const tags = Array.from({ length: 300_000 }, (_, i) => `v0.${i % 1000}.${i}`);
  const versions = parseVersionsList(`${tags.join('\n')}\n${tags.join('\n')}\n`, 'versions.txt');
  assert.equal(versions.length, tags.length);
  assert.deepEqual(versions.slice(0, 2), ['v0.0.0', 'v0.1.1']);
  // an HTML page of 100,000 lines: five are named, the rest counted
  const html = Array.from({ length: 100_000 }, (_, i) => `<p>${i}</p>`).join('\n');
  let message = '';
  try {
    parseVersionsList(html, 'versions.txt');
  } catch (error) {
    message = (error as Error).message;
  }
  assert.match(message, /not version tags: line 1: "<p>0<\/p>"; .*line 5: "<p>4<\/p>" and 99995 more/);
  assert.ok(message.length < 1000, `message of ${message.length} characters`);
});

test('a versions file that is a deeply nested JSON array is an error naming the entry, not an internal error', () => {
  const deep = `[${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}, {"a": 1}, 3, "${'x '.repeat(500)}"]`;
  let message = '';
  try {
    parseVersionsList(deep, 'versions.json');
  } catch (error) {
    message = (error as Error).message;
  }
  assert.match(
    message,
    /versions\.json lists entries that are not version tags: item 0: an array; item 1: an object; item 2: 3; item 3: "(x ){50}…"/,
  );
  assert.ok(message.length < 1000, `message of ${message.length} characters`);
});

// ---- against a server --------------------------------------------------------------------------

test("files of a version are fetched byte for byte, metadata.yaml from the components file's directory", async (t) => {
  const server = await ArtifactServer.start(t, kubeadmFiles('v1.12.0'));
  const fetching: string[] = [];
  const repository = open(`${server.url}/capi/{version}/control-plane-components.yaml`, {
    onProgress: (event) => (event.type === 'fetch' ? fetching.push(`${event.file} ${event.source}`) : undefined),
  });
  assert.equal(repository.sourceType, 'https');
  assert.equal(repository.defaultVersion, 'latest');
  assert.equal(repository.componentsFile, 'control-plane-components.yaml');
  const components = await repository.getFile('v1.12.0', repository.componentsFile);
  const metadata = await repository.getFile('v1.12.0', 'metadata.yaml');
  assert.equal(components.sha256, sha256Hex(corpus('control-plane-kubeadm', 'v1.12.0', 'control-plane-components.yaml')));
  assert.equal(metadata.text, corpus('control-plane-kubeadm', 'v1.12.0', 'metadata.yaml').toString('utf8'));
  assert.equal(metadata.url, `${server.url}/capi/v1.12.0/metadata.yaml`);
  assert.deepEqual(
    server.requests.map((request) => request.url),
    ['/capi/v1.12.0/control-plane-components.yaml', '/capi/v1.12.0/metadata.yaml'],
  );
  // progress names the file fetched, not the template
  assert.deepEqual(fetching, [
    `control-plane-components.yaml ${server.url}/capi/v1.12.0/control-plane-components.yaml`,
    `metadata.yaml ${server.url}/capi/v1.12.0/metadata.yaml`,
  ]);
});

test('a query template (Bitbucket raw ?at=, cluster-api-operator issue #488) keeps its query for every file', async (t) => {
  const server = await ArtifactServer.start(t, {
    '/raw/core-components.yaml?at=v1.0.0': 'components',
    '/raw/metadata.yaml?at=v1.0.0': 'metadata',
  });
  const repository = open(`${server.url}/raw/core-components.yaml?at={version}`);
  assert.equal((await repository.getFile('v1.0.0', 'core-components.yaml')).text, 'components');
  assert.equal((await repository.getFile('v1.0.0', 'metadata.yaml')).text, 'metadata');
});

test('versions come from the explicit list, or from versionsUrl; without either, listing names both fixes', async (t) => {
  const server = await ArtifactServer.start(t, { '/capi/versions.txt': '# tags\nv1.10.4\nv1.12.0\n', '/capi/versions.json': '["v1.8.0"]' });
  const template = `${server.url}/capi/{version}/control-plane-components.yaml`;
  assert.deepEqual(await open(template, { versions: ['v1.10.4', 'v1.12.0'] }).listVersions(), ['v1.10.4', 'v1.12.0']);
  assert.deepEqual(await open(template, { versionsUrl: `${server.url}/capi/versions.txt` }).listVersions(), ['v1.10.4', 'v1.12.0']);
  assert.deepEqual(await open(template, { versionsUrl: `${server.url}/capi/versions.json` }).listVersions(), ['v1.8.0']);
  const none = await rejection(open(template).listVersions());
  assert.match(none.message, /a plain HTTPS server has no release listing/);
  assert.match(none.diagnostics[0].expected ?? '', /versions \/ versionsUrl on the Config repositories entry/);
  const missing = await rejection(open(template, { versionsUrl: `${server.url}/capi/nope.txt` }).listVersions());
  assert.match(missing.message, /versionsUrl http:\/\/127\.0\.0\.1:\d+\/capi\/nope\.txt not found \(HTTP 404\)/);
});

test('an empty spec.version resolves to the latest listed release that has metadata.yaml (clusterctl repository_versions.go latestContractRelease)', async (t) => {
  const server = await ArtifactServer.start(t, {
    ...kubeadmFiles('v1.10.4', 'v1.12.0'),
    '/capi/versions.txt': 'v1.10.4\nv1.12.0\nv1.13.0\n',
  });
  const repository = open(`${server.url}/capi/{version}/control-plane-components.yaml`, { versionsUrl: `${server.url}/capi/versions.txt` });
  assert.deepEqual(await resolveVersion(repository, ''), { requested: 'latest', version: 'v1.12.0', skipped: ['v1.13.0'] });
});

test('a missing file is ArtifactNotFoundError naming file, version and URL; an unresolved or unsafe version is refused before any request', async (t) => {
  const server = await ArtifactServer.start(t, kubeadmFiles('v1.12.0'));
  const repository = open(`${server.url}/capi/{version}/control-plane-components.yaml`);
  const error = await rejection(repository.getFile('v1.11.0', 'metadata.yaml'));
  assert.ok(error instanceof ArtifactNotFoundError);
  assert.match(
    error.message,
    new RegExp(`metadata\\.yaml of version v1\\.11\\.0 not found: GET ${server.url}/capi/v1\\.11\\.0/metadata\\.yaml answered 404`),
  );
  assert.equal(error.diagnostics[0].file, 'config.yaml');
  const count = server.requests.length;
  assert.match((await rejection(repository.getFile('latest', 'metadata.yaml'))).diagnostics[0].hint ?? '', /resolve the version/);
  assert.match((await rejection(repository.getFile('../../etc', 'metadata.yaml'))).message, /is not a release tag/);
  assert.equal(server.requests.length, count);
});

test('an HTML page where a file should be (a sign-in page of an artifact server behind SSO) is named as such, with a hint that fits it', async (t) => {
  const page = '\n<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Login</body></html>\n';
  const server = await ArtifactServer.start(t, { '/capi/v1.12.0/metadata.yaml': page, '/capi/v1.12.0/core-components.yaml': page });
  const repository = open(`${server.url}/capi/{version}/core-components.yaml`);
  for (const file of ['metadata.yaml', 'core-components.yaml']) {
    const error = await rejection(repository.getFile('v1.12.0', file));
    assert.match(
      error.message,
      new RegExp(
        `cannot fetch ${file.replace('.', '\\.')} of version v1\\.12\\.0: GET ${server.url}/capi/v1\\.12\\.0/${file.replace('.', '\\.')} answered an HTML page, not the file`,
      ),
    );
    const hint = error.diagnostics[0].hint ?? '';
    assert.match(hint, /a sign-in or error page/);
    assert.match(hint, /CAPI_GITOPS_HTTPS_AUTHORIZATION_HOST=127\.0\.0\.1:\d+/);
    assert.doesNotMatch(hint, /indentation/);
  }
  // a versionsUrl elsewhere: the Authorization header does not go there, and the hint says so
  server.files.set('other:/versions.txt', '<html><body>Sign in</body></html>');
  const listed = open(`${server.url}/capi/{version}/core-components.yaml`, { versionsUrl: `${server.otherUrl}/versions.txt` });
  const error = await rejection(listed.listVersions());
  assert.match(error.message, /versions\.txt answered an HTML page, not the file/);
  assert.match(error.diagnostics[0].hint ?? '', /an Authorization header goes only to 127\.0\.0\.1:\d+, the template's host/);
});

test("the Authorization header goes to the template's origin only: not to a versionsUrl or a redirect elsewhere, and never into messages", async (t) => {
  const server = await ArtifactServer.start(t, {}, AUTHORIZATION);
  server.files.set('/capi/v1.0.0/core-components.yaml', 'components');
  server.files.set('/capi/v1.0.0/metadata.yaml', { redirect: `${server.otherUrl}/metadata.yaml` });
  server.files.set('other:/metadata.yaml', 'metadata');
  server.files.set('other:/versions.txt', 'v1.0.0\n');

  const template = `${server.url}/capi/{version}/core-components.yaml`;
  const repository = open(template, { authorization: AUTHORIZATION, versionsUrl: `${server.otherUrl}/versions.txt` });
  assert.deepEqual(await repository.listVersions(), ['v1.0.0']);
  assert.equal((await repository.getFile('v1.0.0', 'core-components.yaml')).text, 'components');
  assert.equal((await repository.getFile('v1.0.0', 'metadata.yaml')).text, 'metadata');
  for (const request of server.requests)
    assert.equal(request.authorization, request.server === 'main' ? AUTHORIZATION : undefined, `${request.server} ${request.url}`);

  const anonymous = await rejection(open(template).getFile('v1.0.0', 'core-components.yaml'));
  assert.match(anonymous.message, /answered HTTP 401/);
  assert.match(anonymous.diagnostics[0].hint ?? '', /wants credentials/);
  const wrong = await rejection(open(template, { authorization: 'Bearer wrong-secret' }).getFile('v1.0.0', 'core-components.yaml'));
  assert.match(wrong.diagnostics[0].hint ?? '', /rejected the Authorization header/);
  assert.ok(!wrong.message.includes('wrong-secret') && !anonymous.message.includes('artifact-server-secret-token'));
});

test('a 401 without credentials names the variables that send them, with this host, so the hint followed literally renders (a corporate mirror)', async (t) => {
  const server = await ArtifactServer.start(t, {}, AUTHORIZATION);
  server.files.set('/capi/v1.0.0/core-components.yaml', 'components');
  const template = `${server.url}/capi/{version}/core-components.yaml`;
  const host = new URL(server.url).host;
  const anonymous = await rejection(open(template).getFile('v1.0.0', 'core-components.yaml'));
  const hint = anonymous.diagnostics[0].hint ?? '';
  assert.match(hint, /HTTPS_AUTHORIZATION in the provider's configSecret/);
  assert.ok(hint.includes(`CAPI_GITOPS_HTTPS_AUTHORIZATION with CAPI_GITOPS_HTTPS_AUTHORIZATION_HOST=${host}`), hint);
  const env = { CAPI_GITOPS_HTTPS_AUTHORIZATION: 'artifact-server-secret-token', CAPI_GITOPS_HTTPS_AUTHORIZATION_HOST: host };
  const followed = open(template, { authorization: httpsAuthorization(template, undefined, env) });
  assert.equal((await followed.getFile('v1.0.0', 'core-components.yaml')).text, 'components');
});

test('a 401 from a plain-http mirror elsewhere (allowInsecure) names only the configSecret: the environment variable is never sent over plain http', async (t) => {
  const server = await ArtifactServer.start(t, {}, AUTHORIZATION);
  server.files.set('/capi/v1.0.0/core-components.yaml', 'components');
  // artifacts.test resolves to this server, as a mirror on the LAN would
  const lookup = dns.lookup;
  (dns as { lookup: unknown }).lookup = (hostname: string, ...rest: unknown[]) =>
    (lookup as (...args: unknown[]) => void).call(dns, hostname === 'artifacts.test' ? '127.0.0.1' : hostname, ...rest);
  // the suite's loopback guard goes by name; this name leads to 127.0.0.1 only
  const guard = process.env.CAPI_GITOPS_NETWORK;
  delete process.env.CAPI_GITOPS_NETWORK;
  t.after(() => {
    (dns as { lookup: unknown }).lookup = lookup;
    if (guard !== undefined) process.env.CAPI_GITOPS_NETWORK = guard;
  });
  const host = `artifacts.test:${new URL(server.url).port}`;
  const template = `http://${host}/capi/{version}/core-components.yaml`;
  const anonymous = await rejection(open(template, { allowInsecure: true }).getFile('v1.0.0', 'core-components.yaml'));
  assert.match(anonymous.message, /answered HTTP 401/);
  const hint = anonymous.diagnostics[0].hint ?? '';
  assert.match(hint, /HTTPS_AUTHORIZATION in the provider's configSecret/);
  assert.doesNotMatch(hint, /CAPI_GITOPS_HTTPS_AUTHORIZATION_HOST/);
  assert.match(hint, /never sent over plain http/);
  // the variable the old hint named, followed literally, sends nothing
  const env = { CAPI_GITOPS_HTTPS_AUTHORIZATION: 'artifact-server-secret-token', CAPI_GITOPS_HTTPS_AUTHORIZATION_HOST: host };
  assert.equal(httpsAuthorization(template, undefined, env), undefined);
});

test('cached files are revalidated with If-None-Match (304) and served offline with no request', async (t) => {
  const server = await ArtifactServer.start(t, kubeadmFiles('v1.12.0'));
  const dir = await mkdtemp(path.join(os.tmpdir(), 'capi-gitops-https-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const cache = new ArtifactCache(dir);
  const template = `${server.url}/capi/{version}/control-plane-components.yaml`;

  const first = await open(template, { cache }).getFile('v1.12.0', 'metadata.yaml');
  assert.equal((await open(template, { cache }).getFile('v1.12.0', 'metadata.yaml')).sha256, first.sha256);
  assert.deepEqual(
    server.requests.map((request) => request.status),
    [200, 304],
  );

  const offline = open(template, { cache, offline: true });
  assert.equal((await offline.getFile('v1.12.0', 'metadata.yaml')).text, first.text);
  assert.match(
    (await rejection(offline.getFile('v1.12.0', 'control-plane-components.yaml'))).message,
    /offline: GET .* \(version v1\.12\.0\) is not in the cache/,
  );
  assert.equal(server.requests.length, 2);
});

/** Runs `body` with the environment of a new CI runner: its own state directory, and CAPI_GITOPS_CACHE_KEY as given. */
async function asRunner<T>(cacheKey: string | undefined, body: (stateDir: string) => Promise<T>): Promise<T> {
  const saved = { state: process.env.XDG_STATE_HOME, key: process.env.CAPI_GITOPS_CACHE_KEY };
  const stateDir = await mkdtemp(path.join(os.tmpdir(), 'capi-gitops-runner-state-'));
  process.env.XDG_STATE_HOME = stateDir;
  if (cacheKey === undefined) delete process.env.CAPI_GITOPS_CACHE_KEY;
  else process.env.CAPI_GITOPS_CACHE_KEY = cacheKey;
  try {
    return await body(stateDir);
  } finally {
    for (const [name, value] of [
      ['XDG_STATE_HOME', saved.state],
      ['CAPI_GITOPS_CACHE_KEY', saved.key],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await rm(stateDir, { recursive: true, force: true });
  }
}

test('offline on a new runner with a restored cache: the hint names the signing key, and following it works', async (t) => {
  const server = await ArtifactServer.start(t, kubeadmFiles('v1.12.0'));
  const dir = await mkdtemp(path.join(os.tmpdir(), 'capi-gitops-https-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const template = `${server.url}/capi/{version}/control-plane-components.yaml`;
  const fetchMetadata = (offline: boolean) =>
    open(template, { cache: new ArtifactCache(dir), offline }).getFile('v1.12.0', 'metadata.yaml');

  await asRunner(undefined, () => fetchMetadata(false));
  const miss = await asRunner(undefined, async (stateDir) => {
    const error = await rejection(fetchMetadata(true));
    return { hint: error.diagnostics[0].hint ?? '', stateDir };
  });
  assert.match(miss.hint, /CAPI_GITOPS_CACHE_KEY/);
  assert.ok(miss.hint.includes(path.join(miss.stateDir, 'capi-gitops')), miss.hint);

  // the hint, followed: one key for every runner, one online run, then offline on yet another runner
  const key = 'a-ci-secret-of-32-characters-abc';
  await asRunner(key, () => fetchMetadata(false));
  assert.equal(
    (await asRunner(key, () => fetchMetadata(true))).text,
    corpus('control-plane-kubeadm', 'v1.12.0', 'metadata.yaml').toString(),
  );
});
