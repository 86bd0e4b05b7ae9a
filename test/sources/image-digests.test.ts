/**
 * Image digests (src/sources/oci/image-digests.ts) from a hostile registry on 127.0.0.1: a node:http
 * server answering the distribution API as no real registry should. Each answer is a problem at
 * the image, never a digest pinned for something that is not a manifest, and never more read than
 * a manifest may be (4 MiB: oras-go registry/remote/repository.go defaultMaxMetadataBytes,
 * distribution registry/handlers/manifests.go maxManifestBodySize).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { askImageDigests } from '../../src/sources/oci/image-digests.js';
import { forgetUnreachableHosts } from '../../src/sources/base/unreachable.js';
import { tempDir } from '../helpers/corpus-manifest.js';

const MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
const VALID = JSON.stringify({ schemaVersion: 2, mediaType: MANIFEST, config: {}, layers: [] });
const digestOf = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
/** Bytes the server wrote for the endless manifest, to show the client stopped early. */
let endlessWritten = 0;
/** GETs of the rate-limited repository's manifests: a pull counted against the limit (Docker Hub counts GET, not HEAD). */
let rateLimitedGets = 0;
let server: http.Server;
let host = '';

/** 64 MiB of spaces at most, whatever the client does (the test's own bound), counted in `endlessWritten`. */
function endless(res: http.ServerResponse, contentType: string): void {
  res.writeHead(200, { 'content-type': contentType });
  const chunk = Buffer.alloc(256 * 1024, 0x20);
  const write = (): void => {
    while (endlessWritten < 64 * 1024 * 1024 && !res.destroyed) {
      endlessWritten += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', write);
    }
    res.end();
  };
  res.on('error', () => undefined);
  write();
}

/** Each repository answers its manifests one way; HEAD never has a Docker-Content-Digest, so the digest is read by GET. */
function answer(req: http.IncomingMessage, res: http.ServerResponse): void {
  if (req.url === '/v2/') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  const repository = /^\/v2\/(.+)\/manifests\//.exec(req.url ?? '')?.[1];
  if (req.url?.startsWith('/huge-token')) return void endless(res, 'application/json');
  if (repository === 'token-huge') {
    // a Bearer challenge whose token service answers without end
    const challenge = `Bearer realm="http://${host}/huge-token",service="test",scope="repository:token-huge:pull"`;
    return void res.writeHead(401, { 'www-authenticate': challenge, 'content-type': 'application/json' }).end('{}');
  }
  if (repository === 'rate-limited') {
    if (req.method === 'GET') rateLimitedGets++;
    return void res.writeHead(429, { 'content-type': 'application/json' }).end('{"errors":[{"code":"TOOMANYREQUESTS"}]}');
  }
  if (repository === 'no-head') {
    // a proxy that refuses HEAD (405) and serves GET
    if (req.method === 'HEAD') return void res.writeHead(405, { allow: 'GET' }).end();
    return void res.writeHead(200, { 'content-type': MANIFEST, 'docker-content-digest': digestOf(VALID) }).end(VALID);
  }
  if (req.method === 'HEAD') return void res.writeHead(200, { 'content-type': MANIFEST }).end();
  if (repository === 'not-json') return void res.writeHead(200, { 'content-type': MANIFEST }).end('{"schemaVersion": 2, "config": ');
  if (repository === 'schema-1') return void res.writeHead(200, { 'content-type': MANIFEST }).end('{"schemaVersion": 1, "fsLayers": []}');
  if (repository === 'endless') return endless(res, MANIFEST);
  res.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":[{"code":"MANIFEST_UNKNOWN"}]}');
}

before(async () => {
  server = http.createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function ask(repository: string) {
  forgetUnreachableHosts();
  const image = `${host}/${repository}:v1.0.0`;
  const dockerConfig = tempDir('capi-gitops-docker-config-');
  const { digests, problems } = await askImageDigests([{ image, uses: [{ where: 'container manager of Deployment capi-system/x' }] }], {
    env: { DOCKER_CONFIG: dockerConfig, HOME: dockerConfig },
    http: { retries: 0 },
  });
  return { digest: digests.get(image), messages: problems.map((p) => `${p.diagnostic.message}\n  hint: ${p.diagnostic.hint ?? ''}`) };
}

test('a manifest body that is not JSON pins no digest: it is a problem at the image naming the registry', async () => {
  const { digest, messages } = await ask('not-json');
  assert.equal(digest, undefined, 'the sha256 of bytes that are no manifest is not a digest to pin');
  assert.equal(messages.length, 1);
  assert.match(
    messages[0]!,
    new RegExp(`image ${host}/not-json:v1\\.0\\.0 \\(container manager of Deployment capi-system/x\\): .*not JSON`),
  );
});

test('a schema 1 manifest (no stable digest) pins no digest', async () => {
  const { digest, messages } = await ask('schema-1');
  assert.equal(digest, undefined);
  assert.match(messages.join('\n'), /schemaVersion 1/);
  assert.match(messages.join('\n'), /push the image again with a current client/);
});

test('an endless manifest is cut at 4 MiB, as oras-go and distribution bound a manifest, not read to the 64 MiB download cap', async () => {
  endlessWritten = 0;
  const { digest, messages } = await ask('endless');
  assert.equal(digest, undefined);
  assert.match(messages.join('\n'), /larger than the 4 MiB/);
  assert.doesNotMatch(messages.join('\n'), /cannot reach registry/, 'the registry answered: it sent too much');
  assert.ok(endlessWritten < 32 * 1024 * 1024, `the server wrote ${endlessWritten} bytes before the client stopped`);
});

test('a host that is no registry (GET /v2/ answers 404, a web server on the port) is one problem naming it and its images, not every tag "not found"', async () => {
  const web = http.createServer((_req, res) => void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'));
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  const webHost = `127.0.0.1:${(web.address() as AddressInfo).port}`;
  try {
    forgetUnreachableHosts();
    const dockerConfig = tempDir('capi-gitops-docker-config-');
    const images = [`${webHost}/capi/a:v1`, `${webHost}/capi/b:v1`];
    const { digests, problems } = await askImageDigests(
      images.map((image) => ({ image, uses: [{ where: 'container manager', file: '/m/providers.yaml', line: 7, column: 3 }] })),
      { env: { DOCKER_CONFIG: dockerConfig, HOME: dockerConfig }, http: { retries: 0 } },
    );
    assert.equal(digests.size, 0);
    assert.equal(problems.length, 1, problems.map((p) => p.diagnostic.message).join('\n'));
    const [problem] = problems;
    assert.deepEqual(problem!.images, images);
    assert.match(problem!.diagnostic.message, new RegExp(`${webHost} is not a container registry: GET http://${webHost}/v2/ answered 404`));
    assert.match(problem!.diagnostic.hint ?? '', /check the registry host and port/);
    assert.deepEqual([problem!.diagnostic.file, problem!.diagnostic.line], ['/m/providers.yaml', 7]);
    assert.doesNotMatch(problem!.diagnostic.message, /not found in/);
  } finally {
    web.closeAllConnections();
    await new Promise<void>((resolve) => web.close(() => resolve()));
  }
});

test('a registry or proxy that refuses HEAD (405) is asked with GET, as crane digest falls back (go-containerregistry pkg/v1/remote)', async () => {
  const { digest, messages } = await ask('no-head');
  assert.deepEqual(messages, []);
  assert.equal(digest, digestOf(VALID));
});

test('a token service answering without end is cut at 128 KiB, as oras-go bounds a token response (registry/remote/auth/client.go)', async () => {
  endlessWritten = 0;
  const { digest, messages } = await ask('token-huge');
  assert.equal(digest, undefined);
  assert.match(messages.join('\n'), /\/huge-token: response is larger than the 131072 bytes download cap/);
  assert.ok(endlessWritten < 32 * 1024 * 1024, `the token service wrote ${endlessWritten} bytes before the client stopped`);
});

test('a registry whose API root (GET /v2/) answers without end is cut at 1 MiB: one problem for its images, saying it answered too much', async () => {
  endlessWritten = 0;
  const root = http.createServer((_req, res) => endless(res, 'application/json'));
  await new Promise<void>((resolve) => root.listen(0, '127.0.0.1', resolve));
  const rootHost = `127.0.0.1:${(root.address() as AddressInfo).port}`;
  try {
    forgetUnreachableHosts();
    const dockerConfig = tempDir('capi-gitops-docker-config-');
    const { problems } = await askImageDigests([{ image: `${rootHost}/capi/a:v1`, uses: [{ where: 'container manager' }] }], {
      env: { DOCKER_CONFIG: dockerConfig, HOME: dockerConfig },
      http: { retries: 0 },
    });
    assert.equal(problems.length, 1);
    assert.match(
      problems[0]!.diagnostic.message,
      new RegExp(`registry ${rootHost} answered too much .*GET http://${rootHost}/v2/: response is larger than the 1 MiB`),
    );
    assert.ok(endlessWritten < 32 * 1024 * 1024, `the registry wrote ${endlessWritten} bytes before the client stopped`);
  } finally {
    root.closeAllConnections();
    await new Promise<void>((resolve) => root.close(() => resolve()));
  }
});

test('a HEAD answered 429 (rate limited) is not asked again with GET, which registries such as Docker Hub count as a pull', async () => {
  rateLimitedGets = 0;
  const { digest, messages } = await ask('rate-limited');
  assert.equal(digest, undefined);
  assert.match(messages.join('\n'), /HEAD http:\/\/127\.0\.0\.1:\d+\/v2\/rate-limited\/manifests\/v1\.0\.0 answered HTTP 429/);
  assert.equal(rateLimitedGets, 0);
});
