/**
 * A real HTTP server on 127.0.0.1 that speaks the parts of the GitHub REST API capi-gitops uses,
 * plus a second "storage" server on `localhost` (another host and port) that asset downloads
 * redirect to, as GitHub redirects to its release-asset storage.
 *
 * API: GET /repos/{o}/{r}/releases (Link pagination through /repositories/{id}/releases),
 *      GET /repos/{o}/{r}/releases/tags/{tag}, GET /repos/{o}/{r}/releases/assets/{id}
 *      (JSON, or with Accept: application/octet-stream a 302 to the storage server).
 * Every JSON answer has an ETag and honours If-None-Match with 304, which — as on GitHub — is
 * not counted in `rateLimitSpent`. Requests are recorded with their headers; `inject` queues
 * faults (any status and headers, a truncated body, a reset connection).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import semver from 'semver';
import { CORPUS_REPOSITORY } from './paths.js';

export interface FakeRelease {
  tag: string;
  draft?: boolean;
  prerelease?: boolean;
  /** Asset name → content. */
  assets: Record<string, string | Uint8Array>;
  /** Asset name → the `digest` to publish instead of the true one; null publishes none. */
  digests?: Record<string, string | null>;
}

export type FakeServer = 'api' | 'storage';

export interface Fault {
  server?: FakeServer;
  /** Request path without the query: exact, or a pattern. */
  path: string | RegExp;
  /** How many matching requests it answers (default 1). */
  times?: number;
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Announce the full Content-Length of the real answer, send half, then close the connection. */
  truncate?: boolean;
  /** Close the connection without answering. */
  reset?: boolean;
}

export interface RecordedRequest {
  server: FakeServer;
  method: string;
  /** Path with query. */
  url: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  status: number;
}

interface StoredAsset {
  id: number;
  name: string;
  bytes: Buffer;
  digest: string | null;
}

interface StoredRelease {
  id: number;
  tag: string;
  draft: boolean;
  prerelease: boolean;
  assets: StoredAsset[];
}

interface StoredRepository {
  id: number;
  slug: string;
  releases: StoredRelease[];
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A primary rate limit as GitHub answers it: remaining 0 and the reset as epoch seconds. */
export function rateLimitFault(
  pathPattern: string | RegExp,
  options: { status: 403 | 429; resetInSeconds: number; server?: FakeServer },
): Fault {
  const reset = Math.floor(Date.now() / 1000) + options.resetInSeconds;
  return {
    path: pathPattern,
    server: options.server,
    status: options.status,
    headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset), 'x-ratelimit-used': '60' },
    body: JSON.stringify({
      message: 'API rate limit exceeded for 127.0.0.1.',
      documentation_url: 'https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting',
    }),
  };
}

/** A secondary rate limit: Retry-After in seconds and GitHub's wording. */
export function secondaryRateLimitFault(pathPattern: string | RegExp, options: { status: 403 | 429; retryAfterSeconds: number }): Fault {
  return {
    path: pathPattern,
    status: options.status,
    headers: { 'retry-after': String(options.retryAfterSeconds) },
    body: JSON.stringify({ message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' }),
  };
}

export class FakeGitHub {
  /** e.g. http://127.0.0.1:41234 — octokit's baseUrl. */
  apiUrl = '';
  /** e.g. http://localhost:41235 — where asset downloads redirect. */
  storageUrl = '';
  readonly requests: RecordedRequest[] = [];
  /** Requests GitHub would count against the rate limit (answers other than 304). */
  rateLimitSpent = 0;

  private readonly repositories = new Map<string, StoredRepository>();
  private readonly faults: Fault[] = [];
  private nextId = 1;
  private readonly api: http.Server;
  private readonly storage: http.Server;

  private constructor() {
    this.api = http.createServer((req, res) => this.handle('api', req, res));
    this.storage = http.createServer((req, res) => this.handle('storage', req, res));
  }

  static async start(repositories: Record<string, FakeRelease[]> = {}): Promise<FakeGitHub> {
    const fake = new FakeGitHub();
    for (const [slug, releases] of Object.entries(repositories)) fake.setReleases(slug, releases);
    fake.apiUrl = `http://127.0.0.1:${await listen(fake.api, '127.0.0.1')}`;
    fake.storageUrl = `http://localhost:${await listen(fake.storage, 'localhost')}`;
    return fake;
  }

  /** Replaces the releases of `owner/repo`, listed in the given order (GitHub lists newest first). */
  setReleases(slug: string, releases: FakeRelease[]): void {
    const existing = this.repositories.get(slug);
    this.repositories.set(slug, {
      id: existing?.id ?? this.nextId++,
      slug,
      releases: releases.map((release) => ({
        id: this.nextId++,
        tag: release.tag,
        draft: release.draft ?? false,
        prerelease: release.prerelease ?? false,
        assets: Object.entries(release.assets).map(([name, content]) => {
          const bytes = Buffer.from(content);
          const override = release.digests?.[name];
          return { id: this.nextId++, name, bytes, digest: override === undefined ? `sha256:${sha256(bytes)}` : override };
        }),
      })),
    });
  }

  /** Queues a fault; the first matching fault answers a request instead of the normal handler. */
  inject(fault: Fault): void {
    this.faults.push({ times: 1, ...fault });
  }

  /** Requests received on `path` (query ignored), or matching a pattern. */
  count(pathPattern: string | RegExp, server: FakeServer = 'api'): number {
    return this.requests.filter((request) => request.server === server && matches(pathPattern, request.path)).length;
  }

  async close(): Promise<void> {
    for (const server of [this.api, this.storage]) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  private handle(server: FakeServer, req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const record: RecordedRequest = {
      server,
      method: req.method ?? 'GET',
      url: url.pathname + url.search,
      path: url.pathname,
      headers: req.headers,
      status: 0,
    };
    this.requests.push(record);

    const answer = server === 'api' ? this.answerApi(req, url) : this.answerStorage(url);
    const fault = this.takeFault(server, url.pathname);
    if (fault?.reset) {
      record.status = -1;
      req.socket.destroy();
      return;
    }
    const final = fault && !fault.truncate ? faultAnswer(fault) : answer;
    record.status = final.status;

    if (server === 'api' && final.status !== 304) this.rateLimitSpent++;
    const headers = {
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': String(Math.max(0, 5000 - this.rateLimitSpent)),
      ...final.headers,
    };
    if (final.status === 304 || final.status === 204) {
      res.writeHead(final.status, headers).end();
      return;
    }
    res.writeHead(final.status, { ...headers, 'content-length': String(final.body.length) });
    if (fault?.truncate) {
      res.write(final.body.subarray(0, Math.floor(final.body.length / 2)), () => req.socket.destroy());
      return;
    }
    res.end(final.body);
  }

  private takeFault(server: FakeServer, pathname: string): Fault | undefined {
    const index = this.faults.findIndex((fault) => (fault.server ?? 'api') === server && matches(fault.path, pathname));
    if (index < 0) return undefined;
    const fault = this.faults[index];
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) this.faults.splice(index, 1);
    return fault;
  }

  private answerApi(req: http.IncomingMessage, url: URL): Answer {
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    let repository: StoredRepository | undefined;
    let rest: string[];
    if (parts[0] === 'repos' && parts.length >= 4) {
      repository = this.repositories.get(`${parts[1]}/${parts[2]}`);
      rest = parts.slice(3);
    } else if (parts[0] === 'repositories' && parts.length >= 3) {
      repository = [...this.repositories.values()].find((candidate) => String(candidate.id) === parts[1]);
      rest = parts.slice(2);
    } else {
      return notFound();
    }
    if (!repository || rest[0] !== 'releases') return notFound();

    if (rest.length === 1) return this.conditional(req, this.releasePage(repository, url));
    if (rest[1] === 'tags' && rest.length === 3) {
      const release = repository.releases.find((candidate) => candidate.tag === rest[2] && !candidate.draft);
      return release ? this.conditional(req, json(200, this.releaseJson(repository, release))) : notFound();
    }
    if (rest[1] === 'assets' && rest.length === 3) {
      const asset = repository.releases.flatMap((release) => release.assets).find((candidate) => String(candidate.id) === rest[2]);
      if (!asset) return notFound();
      if ((req.headers.accept ?? '').includes('application/octet-stream')) {
        const location = `${this.storageUrl}/assets/${asset.id}/${encodeURIComponent(asset.name)}?sig=fake-signature`;
        return { status: 302, headers: { location }, body: Buffer.alloc(0) };
      }
      return this.conditional(req, json(200, this.assetJson(repository, this.releaseOf(repository, asset), asset)));
    }
    return notFound();
  }

  private answerStorage(url: URL): Answer {
    const match = /^\/assets\/(\d+)\//.exec(url.pathname);
    const asset = match
      ? [...this.repositories.values()]
          .flatMap((repo) => repo.releases.flatMap((release) => release.assets))
          .find((candidate) => String(candidate.id) === match[1])
      : undefined;
    if (!asset) return { status: 404, headers: { 'content-type': 'text/plain' }, body: Buffer.from('not found') };
    return { status: 200, headers: { 'content-type': 'application/octet-stream' }, body: asset.bytes };
  }

  private releasePage(repository: StoredRepository, url: URL): Answer {
    const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 30)));
    const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
    const pages = Math.max(1, Math.ceil(repository.releases.length / perPage));
    const items = repository.releases.slice((page - 1) * perPage, page * perPage);
    const pageUrl = (n: number) => `${this.apiUrl}/repositories/${repository.id}/releases?per_page=${perPage}&page=${n}`;
    const links: string[] = [];
    if (page > 1) links.push(`<${pageUrl(page - 1)}>; rel="prev"`, `<${pageUrl(1)}>; rel="first"`);
    if (page < pages) links.push(`<${pageUrl(page + 1)}>; rel="next"`, `<${pageUrl(pages)}>; rel="last"`);
    const answer = json(
      200,
      items.map((release) => this.releaseJson(repository, release)),
    );
    if (links.length) answer.headers.link = links.join(', ');
    return answer;
  }

  private releaseOf(repository: StoredRepository, asset: StoredAsset): StoredRelease {
    return repository.releases.find((release) => release.assets.includes(asset))!;
  }

  private releaseJson(repository: StoredRepository, release: StoredRelease): object {
    return {
      url: `${this.apiUrl}/repos/${repository.slug}/releases/${release.id}`,
      id: release.id,
      tag_name: release.tag,
      name: release.tag,
      draft: release.draft,
      prerelease: release.prerelease,
      assets: release.assets.map((asset) => this.assetJson(repository, release, asset)),
    };
  }

  private assetJson(repository: StoredRepository, release: StoredRelease, asset: StoredAsset): object {
    return {
      url: `${this.apiUrl}/repos/${repository.slug}/releases/assets/${asset.id}`,
      id: asset.id,
      name: asset.name,
      state: 'uploaded',
      content_type: 'application/octet-stream',
      size: asset.bytes.length,
      digest: asset.digest,
      browser_download_url: `https://github.com/${repository.slug}/releases/download/${release.tag}/${asset.name}`,
    };
  }

  /** Adds an ETag and answers 304 when the client already has it. */
  private conditional(req: http.IncomingMessage, answer: Answer): Answer {
    const etag = `"${sha256(answer.body).slice(0, 32)}"`;
    if (req.headers['if-none-match'] === etag)
      return { status: 304, headers: { etag, ...(answer.headers.link ? { link: answer.headers.link } : {}) }, body: Buffer.alloc(0) };
    return { ...answer, headers: { ...answer.headers, etag } };
  }
}

function listen(server: http.Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function matches(pattern: string | RegExp, pathname: string): boolean {
  return typeof pattern === 'string' ? pattern === pathname : pattern.test(pathname);
}

function json(status: number, value: unknown): Answer {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: Buffer.from(JSON.stringify(value)) };
}

function notFound(): Answer {
  return json(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });
}

function faultAnswer(fault: Fault): Answer {
  const body = Buffer.from(fault.body ?? '');
  const contentType = fault.body?.startsWith('{') ? 'application/json; charset=utf-8' : 'text/plain';
  return { status: fault.status ?? 500, headers: { 'content-type': contentType, ...fault.headers }, body };
}

/**
 * The corpus (`repository/<label>/<version>/<file>`) as GitHub releases: one release per version,
 * holding the files of every given label, newest first. For the CAPI repository pass
 * `['cluster-api', 'bootstrap-kubeadm', 'control-plane-kubeadm']`, as kubernetes-sigs/cluster-api
 * publishes all three in one release. A file name present under several labels is published from
 * the first label that has it: the real CAPI release has one metadata.yaml, the core's (the
 * corpus's kubeadm copies of v1.7.7 and v1.8.0 differ from it). To serve each label's own
 * metadata.yaml, give each label its own repository.
 */
export function corpusReleases(labels: string[], root: string = CORPUS_REPOSITORY): FakeRelease[] {
  const byVersion = new Map<string, Record<string, Buffer>>();
  for (const label of labels) {
    for (const version of readdirSync(path.join(root, label))) {
      const assets = byVersion.get(version) ?? {};
      for (const file of readdirSync(path.join(root, label, version))) {
        assets[file] ??= readFileSync(path.join(root, label, version, file));
      }
      byVersion.set(version, assets);
    }
  }
  return [...byVersion.entries()]
    .sort(([a], [b]) => semver.rcompare(a, b))
    .map(([tag, assets]) => ({ tag, prerelease: semver.prerelease(tag) !== null, assets }));
}

/** Serves the corpus as releases of the given repositories, e.g. `{ 'kubernetes-sigs/cluster-api': ['cluster-api', …] }`. */
export async function startCorpusGitHub(repositories: Record<string, string[]>, root: string = CORPUS_REPOSITORY): Promise<FakeGitHub> {
  return FakeGitHub.start(Object.fromEntries(Object.entries(repositories).map(([slug, labels]) => [slug, corpusReleases(labels, root)])));
}
