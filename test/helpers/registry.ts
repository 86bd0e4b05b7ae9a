/**
 * A real OCI registry for the OCI source tests: Debian's `docker-registry` (the CNCF
 * distribution registry, v2.8) started on 127.0.0.1 with a free port, a temporary storage
 * directory and a generated config, optionally with htpasswd basic auth. Installed by
 * `.ci/install-test-deps.sh`; `registrySkipReason()` says why tests must skip without it.
 *
 * Also here:
 * - `pushArtifact`: pushes files as an OCI artifact through the registry's HTTP API (monolithic
 *   blob upload POST+PUT, manifest PUT), each layer annotated with its
 *   `org.opencontainers.image.title`, as `oras push` does;
 * - `AuthProxy`: a node:http front for the real registry that demands Bearer tokens (issued by
 *   its own token server, a second origin, as Docker Hub's auth.docker.io), Basic auth or
 *   nothing, can tamper with blob or manifest bodies, and records every request it sees.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const REGISTRY_BINARY = '/usr/bin/docker-registry';
const INSTALL_HINT = 'run .ci/install-test-deps.sh (apt-get install docker-registry apache2-utils)';

/** Why the real-registry tests cannot run here, or undefined when they can. */
export function registrySkipReason(): string | undefined {
  return existsSync(REGISTRY_BINARY) ? undefined : `${REGISTRY_BINARY} is not installed; ${INSTALL_HINT}`;
}

/** Why the basic-auth registry cannot run here (needs htpasswd for bcrypt), or undefined. */
export function htpasswdSkipReason(): string | undefined {
  return registrySkipReason() ?? (commandExists('htpasswd') ? undefined : `htpasswd is not installed; ${INSTALL_HINT}`);
}

function commandExists(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

export interface BasicUser {
  username: string;
  password: string;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function registryConfig(dir: string, port: number, htpasswdFile?: string): string {
  const lines = [
    'version: 0.1',
    'log:',
    '  level: error',
    '  accesslog:',
    '    disabled: true',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${JSON.stringify(path.join(dir, 'data'))}`,
    '  delete:',
    '    enabled: true',
    'http:',
    `  addr: 127.0.0.1:${port}`,
    `  secret: ${randomBytes(16).toString('hex')}`,
  ];
  if (htpasswdFile) lines.push('auth:', '  htpasswd:', '    realm: capi-gitops-test', `    path: ${JSON.stringify(htpasswdFile)}`);
  return lines.join('\n') + '\n';
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A running docker-registry; `stop()` ends it and removes its storage. */
export class Registry {
  private constructor(
    /** `127.0.0.1:<port>`, the registry part of a reference. */
    readonly host: string,
    /** `http://127.0.0.1:<port>` */
    readonly url: string,
    readonly user: BasicUser | undefined,
    private readonly child: ChildProcess,
    private readonly dir: string,
    private readonly stderr: () => string,
  ) {}

  /** Starts a registry, retrying on another port if the chosen one was taken meanwhile. */
  static async start(options: { user?: BasicUser } = {}): Promise<Registry> {
    let lastError: unknown;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        return await Registry.startOnce(options.user);
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  }

  private static async startOnce(user: BasicUser | undefined): Promise<Registry> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'capi-gitops-registry-'));
    let htpasswdFile: string | undefined;
    if (user) {
      htpasswdFile = path.join(dir, 'htpasswd');
      const generated = spawnSync('htpasswd', ['-Bbn', user.username, user.password], { encoding: 'utf8' });
      if (generated.status !== 0) throw new Error(`htpasswd failed: ${generated.stderr}`);
      await writeFile(htpasswdFile, generated.stdout);
    }
    const port = await freePort();
    const configFile = path.join(dir, 'config.yml');
    await writeFile(configFile, registryConfig(dir, port, htpasswdFile));

    const child = spawn(REGISTRY_BINARY, ['serve', configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
    const registry = new Registry(`127.0.0.1:${port}`, `http://127.0.0.1:${port}`, user, child, dir, () => stderr);
    try {
      await registry.waitReady();
    } catch (error) {
      await registry.stop();
      throw error;
    }
    return registry;
  }

  /** Polls GET /v2/ until the registry answers (200, or 401 with auth). */
  private async waitReady(): Promise<void> {
    for (let attempt = 0; attempt < 200; attempt++) {
      if (this.child.exitCode !== null) throw new Error(`docker-registry exited with ${this.child.exitCode}: ${this.stderr()}`);
      try {
        const response = await fetch(`${this.url}/v2/`);
        await response.arrayBuffer();
        if (response.status === 200 || response.status === 401) return;
      } catch {
        // not listening yet
      }
      await sleep(50);
    }
    throw new Error(`docker-registry did not become ready on ${this.url}: ${this.stderr()}`);
  }

  /** Authorization header for the htpasswd user, when there is one. */
  get authorization(): string | undefined {
    return this.user ? basicAuthorization(this.user) : undefined;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
      this.child.kill('SIGTERM');
      await exited;
    }
    await rm(this.dir, { recursive: true, force: true });
  }
}

export function basicAuthorization(user: BasicUser): string {
  return `Basic ${Buffer.from(`${user.username}:${user.password}`).toString('base64')}`;
}

// ---- pushing ---------------------------------------------------------------------------------

export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
export const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
export const OCI_EMPTY_CONFIG = 'application/vnd.oci.empty.v1+json';
const TITLE = 'org.opencontainers.image.title';

export interface PushFile {
  /** The `org.opencontainers.image.title` annotation; omitted when undefined. */
  title?: string;
  content: string | Uint8Array;
  mediaType?: string;
}

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

export function digestOf(bytes: Uint8Array | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

async function expectStatus(response: Response, expected: number, what: string): Promise<void> {
  if (response.status !== expected) throw new Error(`${what}: HTTP ${response.status} ${await response.text()}`);
}

/** Uploads one blob (POST to open an upload, PUT with the digest to finish it); returns its descriptor. */
export async function pushBlob(
  registryUrl: string,
  repository: string,
  content: Uint8Array | string,
  mediaType: string,
  authorization?: string,
): Promise<Descriptor> {
  const bytes = typeof content === 'string' ? Buffer.from(content) : Buffer.from(content);
  const digest = digestOf(bytes);
  const auth: Record<string, string> = authorization ? { authorization } : {};
  const opened = await fetch(`${registryUrl}/v2/${repository}/blobs/uploads/`, { method: 'POST', headers: auth });
  await expectStatus(opened, 202, `open blob upload in ${repository}`);
  await opened.arrayBuffer();
  const location = new URL(opened.headers.get('location')!, registryUrl);
  location.searchParams.set('digest', digest);
  const put = await fetch(location, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) },
    body: bytes,
  });
  await expectStatus(put, 201, `upload blob ${digest}`);
  await put.arrayBuffer();
  return { mediaType, digest, size: bytes.length };
}

/** PUTs a manifest (any JSON value) under a tag or digest; returns its descriptor. */
export async function pushManifest(
  registryUrl: string,
  repository: string,
  reference: string,
  manifest: unknown,
  mediaType: string,
  authorization?: string,
): Promise<Descriptor> {
  const bytes = Buffer.from(JSON.stringify(manifest));
  const response = await fetch(`${registryUrl}/v2/${repository}/manifests/${reference}`, {
    method: 'PUT',
    headers: { 'content-type': mediaType, ...(authorization ? { authorization } : {}) },
    body: bytes,
  });
  await expectStatus(response, 201, `push manifest ${repository}:${reference}`);
  await response.arrayBuffer();
  return { mediaType, digest: digestOf(bytes), size: bytes.length };
}

/**
 * Pushes files as one OCI artifact (as `oras push <ref> file…` does: an empty config, one layer
 * per file titled with its name) and tags it. Returns the manifest's descriptor and its layers.
 */
export async function pushArtifact(
  registryUrl: string,
  repository: string,
  tag: string,
  files: PushFile[],
  options: { authorization?: string } = {},
): Promise<{ manifest: Descriptor; layers: Descriptor[] }> {
  const config = await pushBlob(registryUrl, repository, '{}', OCI_EMPTY_CONFIG, options.authorization);
  const layers: Descriptor[] = [];
  for (const file of files) {
    const layer = await pushBlob(
      registryUrl,
      repository,
      file.content,
      file.mediaType ?? 'application/vnd.oci.image.layer.v1.tar',
      options.authorization,
    );
    layers.push(file.title === undefined ? layer : { ...layer, annotations: { [TITLE]: file.title } });
  }
  const manifest = { schemaVersion: 2, mediaType: OCI_MANIFEST, config, layers };
  return { manifest: await pushManifest(registryUrl, repository, tag, manifest, OCI_MANIFEST, options.authorization), layers };
}

// ---- container images ---------------------------------------------------------------------------

export const OCI_IMAGE_CONFIG = 'application/vnd.oci.image.config.v1+json';
export const OCI_LAYER = 'application/vnd.oci.image.layer.v1.tar+gzip';
export const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
export const DOCKER_MANIFEST_LIST = 'application/vnd.docker.distribution.manifest.list.v2+json';
const DOCKER_IMAGE_CONFIG = 'application/vnd.docker.container.image.v1+json';
const DOCKER_LAYER = 'application/vnd.docker.image.rootfs.diff.tar.gzip';

export interface PushedImage {
  /** What the tag serves: the index (multi-architecture) or the one manifest. */
  digest: string;
  /** The per-architecture manifests, by architecture. */
  platforms: Record<string, string>;
}

/**
 * Pushes a small container image under `repository:tag` by the distribution API: per
 * architecture a config blob, one layer (bytes derived from `content`, so a new `content` is a
 * new image) and a manifest; with several architectures an index over them. `docker` uses the
 * Docker schema 2 media types (manifest list) instead of OCI's.
 */
export async function pushImage(
  registryUrl: string,
  repository: string,
  tag: string,
  options: { architectures?: string[]; content?: string; docker?: boolean; authorization?: string } = {},
): Promise<PushedImage> {
  const architectures = options.architectures ?? ['amd64'];
  const docker = options.docker ?? false;
  const platforms: Record<string, string> = {};
  const manifests: Descriptor[] = [];
  for (const architecture of architectures) {
    const layerBytes = Buffer.from(`${repository}:${tag} ${architecture} ${options.content ?? 'v1'}`);
    const layer = await pushBlob(registryUrl, repository, layerBytes, docker ? DOCKER_LAYER : OCI_LAYER, options.authorization);
    const configJson = JSON.stringify({ architecture, os: 'linux', rootfs: { type: 'layers', diff_ids: [layer.digest] } });
    const config = await pushBlob(
      registryUrl,
      repository,
      configJson,
      docker ? DOCKER_IMAGE_CONFIG : OCI_IMAGE_CONFIG,
      options.authorization,
    );
    const mediaType = docker ? DOCKER_MANIFEST : OCI_MANIFEST;
    const manifest = { schemaVersion: 2, mediaType, config, layers: [layer] };
    // a single-architecture image is the manifest under the tag; several are pushed by digest for the index
    const reference = architectures.length === 1 ? tag : digestOf(JSON.stringify(manifest));
    const pushed = await pushManifest(registryUrl, repository, reference, manifest, mediaType, options.authorization);
    platforms[architecture] = pushed.digest;
    manifests.push({ ...pushed, platform: { architecture, os: 'linux' } } as Descriptor);
  }
  if (architectures.length === 1) return { digest: manifests[0]!.digest, platforms };
  const indexType = docker ? DOCKER_MANIFEST_LIST : OCI_INDEX;
  const index = await pushManifest(
    registryUrl,
    repository,
    tag,
    { schemaVersion: 2, mediaType: indexType, manifests },
    indexType,
    options.authorization,
  );
  return { digest: index.digest, platforms };
}

// ---- an authenticating front for the real registry -------------------------------------------

export interface ProxiedRequest {
  method: string;
  url: string;
  authorization?: string;
  status: number;
  /** The form of an OAuth2 POST to the token server. */
  form?: Record<string, string>;
}

export interface AuthProxyOptions {
  /** What the front demands: a Bearer token from its token server, Basic credentials, or nothing. */
  scheme: 'bearer' | 'basic' | 'none';
  /** The only account the token server (bearer) or the front (basic) accepts. */
  user?: BasicUser;
  /** The bearer token the token server issues. */
  token?: string;
  /** The OAuth2 refresh token the token server accepts on POST (grant_type=refresh_token). */
  refreshToken?: string;
  /** Token server answer field: `token` (the distribution spec) or `access_token` (OAuth2). */
  tokenField?: 'token' | 'access_token';
  /** Flip every byte of blob (or manifest) bodies, keeping their length and headers. */
  tamper?: 'blobs' | 'manifests';
  /** Answer HEAD without Docker-Content-Digest, as some registries and proxies do. */
  omitDigestOnHead?: boolean;
  /**
   * Serve tag lists in pages of this many, as newer registries do (distribution 2.8 ignores
   * `n`): tags in lexical order, `last` to continue, a `Link: <…>; rel="next"` while more remain.
   */
  tagsPageSize?: number;
}

/**
 * node:http front for a real registry that enforces auth the way hosted registries do: an
 * unauthenticated request gets 401 with a `WWW-Authenticate` challenge; a Bearer challenge
 * points at a token server on another origin, which checks Basic credentials and issues a
 * token. Authenticated requests are forwarded to the registry and its answer relayed.
 */
export class AuthProxy {
  /** `http://127.0.0.1:<port>` */
  url = '';
  /** `127.0.0.1:<port>` */
  host = '';
  /** `http://localhost:<port>` — the token server (another origin). */
  tokenUrl = '';
  readonly requests: ProxiedRequest[] = [];
  readonly tokenRequests: ProxiedRequest[] = [];
  private readonly front: http.Server;
  private readonly tokens: http.Server;

  private constructor(
    private readonly upstream: Registry,
    private readonly options: AuthProxyOptions,
  ) {
    this.front = http.createServer((req, res) => void this.handleFront(req, res));
    this.tokens = http.createServer((req, res) => this.handleToken(req, res));
  }

  static async start(upstream: Registry, options: AuthProxyOptions): Promise<AuthProxy> {
    const proxy = new AuthProxy(upstream, options);
    const port = await listen(proxy.front, '127.0.0.1');
    proxy.host = `127.0.0.1:${port}`;
    proxy.url = `http://${proxy.host}`;
    proxy.tokenUrl = `http://localhost:${await listen(proxy.tokens, 'localhost')}`;
    return proxy;
  }

  private get token(): string {
    return this.options.token ?? 'issued-bearer-token';
  }

  private challenge(repository: string | undefined): string {
    if (this.options.scheme === 'basic') return 'Basic realm="capi-gitops-test"';
    const scope = repository ? `,scope="repository:${repository}:pull"` : '';
    return `Bearer realm="${this.tokenUrl}/token",service="capi-gitops-test"${scope}`;
  }

  private authorized(header: string | undefined): boolean {
    if (this.options.scheme === 'none') return true;
    const expected = this.options.scheme === 'basic' ? basicAuthorization(this.options.user!) : `Bearer ${this.token}`;
    return header === expected;
  }

  private async handleFront(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const record: ProxiedRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      authorization: req.headers.authorization,
      status: 0,
    };
    this.requests.push(record);
    const repository = /^\/v2\/(.+?)\/(?:manifests|blobs|tags)\//.exec(record.url)?.[1];
    if (!this.authorized(req.headers.authorization)) {
      record.status = 401;
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': this.challenge(repository) });
      res.end(JSON.stringify({ errors: [{ code: 'UNAUTHORIZED', message: 'authentication required' }] }));
      return;
    }
    const headers: Record<string, string> = {};
    if (req.headers.accept) headers.accept = req.headers.accept;
    if (typeof req.headers['if-none-match'] === 'string') headers['if-none-match'] = req.headers['if-none-match'];
    if (this.upstream.authorization) headers.authorization = this.upstream.authorization;
    const tagsList = /^\/v2\/(.+)\/tags\/list(?:\?.*)?$/.exec(record.url);
    if (tagsList && this.options.tagsPageSize) {
      await this.pageTags(tagsList[1], record, headers, res);
      return;
    }
    const answer = await fetch(`${this.upstream.url}${record.url}`, { method: record.method, headers, redirect: 'manual' });
    let body = Buffer.from(await answer.arrayBuffer());
    const tampered = this.options.tamper && record.url.includes(`/${this.options.tamper}/`);
    if (tampered && body.length > 0) body = Buffer.from(body.map((byte) => byte ^ 0xff));
    const relayed: Record<string, string> = {};
    for (const name of ['content-type', 'docker-content-digest', 'link', 'etag', 'location']) {
      const value = answer.headers.get(name);
      if (value !== null) relayed[name] = value;
    }
    if (this.options.omitDigestOnHead && record.method === 'HEAD') delete relayed['docker-content-digest'];
    record.status = answer.status;
    if (answer.status === 304) {
      res.writeHead(304, relayed);
      res.end();
      return;
    }
    res.writeHead(answer.status, { ...relayed, 'content-length': String(body.length) });
    res.end(body);
  }

  private async pageTags(
    repository: string,
    record: ProxiedRequest,
    headers: Record<string, string>,
    res: http.ServerResponse,
  ): Promise<void> {
    const answer = await fetch(`${this.upstream.url}/v2/${repository}/tags/list`, { headers });
    const { tags } = (await answer.json()) as { tags: string[] };
    const query = new URL(record.url, this.url).searchParams;
    const last = query.get('last');
    const remaining = tags.sort().filter((tag) => last === null || tag > last);
    const page = remaining.slice(0, this.options.tagsPageSize);
    const reply: Record<string, string> = { 'content-type': 'application/json' };
    if (remaining.length > page.length)
      reply.link = `</v2/${repository}/tags/list?n=${this.options.tagsPageSize}&last=${encodeURIComponent(page.at(-1)!)}>; rel="next"`;
    record.status = 200;
    res.writeHead(200, reply);
    res.end(JSON.stringify({ name: repository, tags: page }));
  }

  private handleToken(req: http.IncomingMessage, res: http.ServerResponse): void {
    const record: ProxiedRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      authorization: req.headers.authorization,
      status: 200,
    };
    this.tokenRequests.push(record);
    if (record.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => this.handleOAuth2(record, req.headers['content-type'], Buffer.concat(chunks).toString('utf8'), res));
      return;
    }
    if (!this.options.user || req.headers.authorization !== basicAuthorization(this.options.user)) {
      record.status = 401;
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ details: 'incorrect username or password' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ [this.options.tokenField ?? 'token']: this.token, expires_in: 300 }));
  }

  /** The distribution OAuth2 spec: a form POST; a bad grant is 400 invalid_grant. */
  private handleOAuth2(record: ProxiedRequest, contentType: string | undefined, body: string, res: http.ServerResponse): void {
    record.form = Object.fromEntries(new URLSearchParams(body));
    const valid =
      contentType === 'application/x-www-form-urlencoded' &&
      record.form.grant_type === 'refresh_token' &&
      this.options.refreshToken !== undefined &&
      record.form.refresh_token === this.options.refreshToken;
    record.status = valid ? 200 : 400;
    res.writeHead(record.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(valid ? { access_token: this.token, expires_in: 300 } : { error: 'invalid_grant' }));
  }

  async close(): Promise<void> {
    for (const server of [this.front, this.tokens]) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }
}

function listen(server: http.Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port));
  });
}
