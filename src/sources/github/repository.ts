/**
 * Providers published as GitHub releases, with clusterctl's URL form
 * `https://github.com/<owner>/<repo>/releases/{latest|<tag>}/<file>`
 * (cmd/clusterctl/client/repository/repository_github.go).
 *
 * API calls go through octokit, whose fetch is the shared client (`base/client.ts`): it retries
 * 5xx and connection failures inside the request's and the run's deadline, with the size cap,
 * truncation check and credential-safe redirects. Octokit's retry plugin is off (its attempts
 * would multiply the deadline); its throttling plugin handles rate limits (a short wait is
 * retried, a long one or one past the run's deadline fails at once). Every JSON response goes
 * through the client's one ETag path, revalidated with If-None-Match: GitHub does not count a 304 against the rate
 * limit, so a repeated run spends none. Asset bytes are content-addressed: once cached, an asset
 * whose published digest (or asset id) is known is never downloaded again.
 */
import { Octokit, RequestError } from 'octokit';
import { CapiGitopsError } from '../../core/diagnostics.js';
import type { SemVer } from 'semver';
import { compareSemantic, parseSemantic } from '../../core/versions.js';
import { artifactFromBytes } from '../base/artifact.js';
import { sha256Hex } from '../../core/digest.js';
import { onceUntilFailure, parseJsonBody, SourceClient, type PlainResponse, type RevalidatedResponse } from '../base/client.js';
import { fetchAdapter, HttpError, redactUrl } from '../base/http.js';
import { entryShapeProblem, jsonType, SkippedEntries } from '../base/listing-shape.js';
import type { GitHubSettings, NetworkSourceOptions } from '../request.js';
import { ArtifactNotFoundError, type Artifact, type ProviderRepository } from '../source.js';

export interface GitHubOptions extends NetworkSourceOptions, GitHubSettings {
  /** Where the token came from, for a hint about a rejected one (never the token): GITHUB_TOKEN by default. */
  tokenFrom?: string;
}

/** A GitHub release repository: the common interface plus the repository's owner and name. */
export interface GitHubReleaseRepository extends ProviderRepository {
  readonly owner: string;
  readonly repo: string;
}

/** The parts of a clusterctl GitHub release URL. */
interface GitHubReleaseUrl {
  owner: string;
  repo: string;
  /** `latest` or a tag. */
  version: string;
  /** Directory part of the file path ("." when none), joined to file names as clusterctl does. */
  rootPath: string;
  componentsFile: string;
}

const RELEASE_URL_FORM = 'https://github.com/{owner}/{repository}/releases/{latest|version-tag}/{components file}';

/**
 * Splits a release URL as clusterctl's NewGitHubRepository does. Null when it is not an https
 * URL on one of `hosts`, or its path is not under `/<owner>/<repo>/releases/` (so another source
 * may take it); a release path too short to name a version and a file is an error.
 */
export function parseGitHubReleaseUrl(url: string, hosts: readonly string[] = ['github.com']): GitHubReleaseUrl | null {
  const parsed = URL.parse(url);
  if (!parsed) return null;
  if (parsed.protocol !== 'https:' || !hosts.includes(parsed.host)) return null;
  const segments = parsed.pathname.replace(/^\//, '').split('/');
  if (segments[2] !== 'releases') return null;
  if (segments.length < 5 || segments.slice(0, 5).some((segment) => segment === '')) {
    throw new CapiGitopsError({
      message: `invalid GitHub release URL ${JSON.stringify(url)}`,
      expected: RELEASE_URL_FORM,
      hint: 'e.g. https://github.com/kubernetes-sigs/cluster-api/releases/latest/core-components.yaml',
    });
  }
  if (segments[3] === 'download') {
    throw new CapiGitopsError({
      message: `${JSON.stringify(url)} is a release download link, not a clusterctl provider URL`,
      expected: RELEASE_URL_FORM,
      hint: `drop "download/": https://${parsed.host}/${segments[0]}/${segments[1]}/releases/${segments.slice(4).join('/')}`,
    });
  }
  const filePath = segments.slice(4).join('/');
  const slash = filePath.lastIndexOf('/');
  return {
    owner: segments[0],
    repo: segments[1],
    version: segments[3],
    rootPath: slash < 0 ? '.' : filePath.slice(0, slash),
    componentsFile: slash < 0 ? filePath : filePath.slice(slash + 1),
  };
}

/**
 * A `ProviderRepository` for a GitHub release URL, or null when the URL is not one. Creating it
 * makes no request. `https://github.com` is always accepted; with `apiUrl`, so is that host
 * (GitHub Enterprise serves both from one host).
 */
export function openGitHubRepository(url: string, options: GitHubOptions = {}): GitHubReleaseRepository | null {
  const hosts = ['github.com'];
  if (options.apiUrl) hosts.push(apiHost(options.apiUrl));
  const parts = parseGitHubReleaseUrl(url, hosts);
  return parts ? new GitHubRepository(url, parts, options) : null;
}

function apiHost(apiUrl: string): string {
  const parsed = URL.parse(apiUrl);
  if (parsed) return parsed.host;
  throw new CapiGitopsError({
    message: `invalid GitHub API URL ${JSON.stringify(apiUrl)}`,
    expected: 'an absolute URL such as https://api.github.com or https://ghe.example.com/api/v3',
  });
}

// ---- GitHub API shapes (the fields we read) ------------------------------------------------

interface ApiAsset {
  name: string;
  /** API URL of the asset (`…/releases/assets/<id>`). */
  url: string;
  browser_download_url?: string;
  /** `sha256:<hex>` on assets uploaded since mid-2025. */
  digest?: string | null;
}

interface ApiRelease {
  tag_name: string;
  draft: boolean;
  assets: ApiAsset[];
}

/** The first field of a listed release (a tag to offer; its assets are read when its tag is asked for) not of the type read. */
function listedReleaseProblem(value: unknown, index: number): string | undefined {
  return entryShapeProblem(value, index, { tag_name: 'string' }, { draft: 'boolean' });
}

const LISTED_RELEASE_SHAPE = 'a list of GitHub releases, each an object with tag_name a string (draft a boolean when present)';

const RELEASE_SHAPE =
  'a GitHub release: tag_name a string, assets a list of objects each with a string name and url (browser_download_url and digest strings when present)';

/** The first field of a release answer that is not of the type read, e.g. `assets[0].name is an object`; undefined when it is a release. */
function releaseShapeProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `the answer is ${jsonType(value)}`;
  const release = value as Record<string, unknown>;
  if (typeof release.tag_name !== 'string') return `tag_name is ${jsonType(release.tag_name)}`;
  if (!Array.isArray(release.assets)) return `assets is ${jsonType(release.assets)}`;
  for (const [index, asset] of release.assets.entries()) {
    const at = `assets[${index}]`;
    if (typeof asset !== 'object' || asset === null || Array.isArray(asset)) return `${at} is ${jsonType(asset)}`;
    const fields = asset as Record<string, unknown>;
    for (const field of ['name', 'url']) if (typeof fields[field] !== 'string') return `${at}.${field} is ${jsonType(fields[field])}`;
    for (const field of ['browser_download_url', 'digest']) {
      const optional = fields[field];
      if (optional !== undefined && optional !== null && typeof optional !== 'string') return `${at}.${field} is ${jsonType(optional)}`;
    }
  }
  return undefined;
}

/** The hex of a published `sha256:<hex>` digest; undefined for none or another algorithm. */
export function publishedSha256(digest: string | null | undefined): string | undefined {
  const match = /^sha256:([0-9a-fA-F]{64})$/.exec(digest ?? '');
  return match ? match[1].toLowerCase() : undefined;
}

/** Whether a 403/429 is a rate limit (primary: remaining 0; secondary: retry-after or its message). */
function isRateLimit(error: RequestError): boolean {
  if (error.status !== 403 && error.status !== 429) return false;
  const headers = error.response?.headers ?? {};
  return headers['x-ratelimit-remaining'] === '0' || headers['retry-after'] !== undefined || /rate limit/i.test(error.message);
}

/** When a rate limit ends, from `x-ratelimit-reset` (epoch seconds) or `retry-after`. */
function rateLimitReset(error: RequestError, now: number): Date | undefined {
  const headers = error.response?.headers ?? {};
  const reset = Number(headers['x-ratelimit-reset']);
  if (headers['x-ratelimit-remaining'] === '0' && Number.isFinite(reset) && reset > 0) return new Date(reset * 1000);
  const after = Number(headers['retry-after']);
  return Number.isFinite(after) && headers['retry-after'] !== undefined ? new Date(now + after * 1000) : undefined;
}

/** ISO 8601 UTC to the second, e.g. 2025-01-02T03:04:05Z. */
function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const MAX_RATE_LIMIT_RETRIES = 2;
const MAX_PAGES = 1000;

/** What a request was for, to word its failure. */
interface RequestContext {
  /** e.g. `list the releases of kubernetes-sigs/cluster-api` */
  action: string;
  url: string;
  version?: string;
  /** The error for a 404: ArtifactNotFoundError when a version or file is missing, so the latest-release search can skip it. */
  notFound: () => CapiGitopsError;
}

class GitHubRepository implements GitHubReleaseRepository {
  readonly sourceType = 'github';
  readonly location: string;
  readonly defaultVersion: string;
  readonly componentsFile: string;
  readonly owner: string;
  readonly repo: string;
  readonly releaseStore: string;

  private readonly rootPath: string;
  /** The token's sha256 ('' for none): what keys memos shared by providers, never the token. */
  private readonly tokenSha256: string;
  private readonly apiBase: string;
  private readonly apiOrigin: string;
  private readonly octokit: InstanceType<typeof Octokit>;
  private readonly client: SourceClient;
  private readonly options: GitHubOptions;
  private readonly releases = new Map<string, Promise<string[]>>();
  private readonly releasesByTag = new Map<string, Promise<ApiRelease>>();

  constructor(url: string, parts: GitHubReleaseUrl, options: GitHubOptions) {
    this.location = url;
    this.owner = parts.owner;
    this.repo = parts.repo;
    this.defaultVersion = parts.version;
    this.componentsFile = parts.componentsFile;
    this.rootPath = parts.rootPath;
    this.options = options;
    this.apiBase = (options.apiUrl ?? 'https://api.github.com').replace(/\/+$/, '');
    this.apiOrigin = new URL(this.apiBase).origin;
    this.client = new SourceClient(options);
    this.octokit = this.createOctokit();
    // every provider URL of one repository, through one API with one token, lists and serves the same
    const host = URL.parse(url)?.origin ?? '';
    this.tokenSha256 = options.token === undefined ? '' : sha256Hex(options.token);
    this.releaseStore = [this.apiBase, host, this.slug, this.rootPath, this.tokenSha256].join('\0');
  }

  private get slug(): string {
    return `${this.owner}/${this.repo}`;
  }

  private createOctokit(): InstanceType<typeof Octokit> {
    const log = this.options.log ?? (() => undefined);
    const maxWait = this.options.maxRateLimitWaitSeconds ?? 60;
    const scale = this.options.retryAfterBaseMs ?? 1000;
    const onLimit = (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number): boolean => {
      // A wait that outlasts the run's network deadline fails now rather than when it ends.
      const left = this.client.policy.runDeadline?.remainingMs() ?? Infinity;
      const wait = retryAfter <= maxWait && retryCount < MAX_RATE_LIMIT_RETRIES && retryAfter * scale < left;
      if (wait) log(`GitHub rate limit on ${request.method} ${redactUrl(new URL(request.url, this.apiBase))}: retrying in ${retryAfter} s`);
      return wait;
    };
    return new Octokit({
      auth: this.options.token,
      baseUrl: this.apiBase,
      userAgent: 'capi-gitops',
      // Retries are the client's, inside its deadline; 429 (and 403) rate limits are the throttling plugin's.
      request: {
        fetch: fetchAdapter((request) =>
          this.client.send({ ...request, retryableStatus: (status) => status >= 500 || status === 408 }, false),
        ),
      },
      retry: { enabled: false },
      throttle: { onRateLimit: onLimit, onSecondaryRateLimit: onLimit, retryAfterBaseValue: scale },
      log: {
        debug: () => undefined,
        info: () => undefined,
        warn: (message: string) => log(message),
        error: (message: string) => log(message),
      },
    });
  }

  /** The tags of the non-draft releases, in the order GitHub lists them (newest first); the resolver reads pre-releases from the tags. */
  listVersions(): Promise<string[]> {
    // Remember successes only (as clusterctl's caches do), so a later call can try again.
    return onceUntilFailure(this.releases, this.slug, () => this.fetchReleases());
  }

  /** Where a release's file is downloaded from, as the log names it (not the configured URL, which may say `latest`). */
  private downloadUrl(version: string, assetName: string): string {
    const origin = URL.parse(this.location)?.origin ?? 'https://github.com';
    return `${origin}/${this.slug}/releases/download/${version}/${assetName}`;
  }

  async getFile(version: string, fileName: string): Promise<Artifact> {
    const assetName = this.rootPath === '.' ? fileName : `${this.rootPath}/${fileName}`;
    const source = this.downloadUrl(version, assetName);
    this.options.onProgress?.({ type: 'fetch', source, version, file: fileName });
    if (version === 'latest') {
      throw this.client.error(`cannot fetch ${fileName}: version "latest" of ${this.slug} has not been resolved to a tag`, {
        hint: 'resolve the version with listVersions() first, as clusterctl does',
      });
    }
    const release = await this.releaseByTag(version).catch(async (error: unknown) => {
      throw error instanceof ArtifactNotFoundError ? await this.withNearestReleases(error, version) : error;
    });
    const asset = release.assets.find((candidate) => candidate.name === assetName);
    if (!asset) {
      const names = release.assets.map((candidate) => candidate.name).sort();
      throw new ArtifactNotFoundError(
        this.client.diagnostic(`release ${version} of ${this.slug} has no asset named ${assetName}`, {
          expected: names.length ? `one of: ${names.join(', ')}` : 'a release with assets',
          hint:
            fileName === 'metadata.yaml'
              ? `every clusterctl provider release publishes metadata.yaml beside its components, and ${version} has none: set spec.version to a release that has it`
              : `check the file name in ${this.location}`,
        }),
      );
    }
    const { bytes, cached } = await this.assetBytes(asset, version);
    this.options.onProgress?.({ type: 'done', source, version, file: fileName, bytes: bytes.length, cached });
    const url = asset.browser_download_url ?? `https://github.com/${this.slug}/releases/download/${version}/${assetName}`;
    // named by its download URL, not this provider's: providers of one repository share the file
    return artifactFromBytes(fileName, bytes, url, source);
  }

  /**
   * The release of a tag, asked once per run for every provider of this GitHub repository (the
   * core, kubeadm bootstrap and control plane are one kubernetes-sigs/cluster-api release); without
   * the run's memo, once per provider's repository until it fails.
   */
  private releaseByTag(tag: string): Promise<ApiRelease> {
    const fetch = () => this.fetchReleaseByTag(tag);
    // one API, one repository, one token (as its sha256): its rootPath and the URL's host do not change the release
    const key = ['github-release', this.apiBase, this.slug, this.tokenSha256, tag].join('\0');
    return this.options.runMemo?.(key, fetch) ?? onceUntilFailure(this.releasesByTag, tag, fetch);
  }

  private async fetchReleases(): Promise<string[]> {
    this.options.onProgress?.({ type: 'resolve', source: this.location });
    const releases: string[] = [];
    const first = `${this.apiBase}/repos/${this.slug}/releases?per_page=100`;
    const skipped = new SkippedEntries();
    let entries = 0;
    let url: string | undefined = first;
    for (let page = 1; url; page++) {
      if (page > MAX_PAGES) throw this.client.error(`more than ${MAX_PAGES} pages of releases in ${this.slug}`);
      const { data, link }: { data: unknown; link?: string } = await this.getJson(url, {
        action: `list the releases of ${this.slug}`,
        url,
        notFound: () =>
          this.client.error(`GitHub repository ${this.slug} not found (GET ${redactUrl(url!)} answered 404)`, {
            hint: `check the owner and repository in ${this.location}; a private repository needs GITHUB_TOKEN`,
          }),
      });
      if (!Array.isArray(data)) throw this.client.error(`GET ${redactUrl(url)} did not answer a list of releases`);
      for (const release of data) {
        const problem = listedReleaseProblem(release, entries++);
        if (problem !== undefined) skipped.skip(problem);
        else if (!(release as ApiRelease).draft) releases.push((release as ApiRelease).tag_name);
      }
      url = this.client.nextPage(link, url, this.apiOrigin, `GitHub's release list of ${this.slug}`);
    }
    const listing = `GitHub's list of releases of ${this.slug} (GET ${redactUrl(first)})`;
    if (releases.length === 0 && skipped.count > 0)
      throw this.client.error(skipped.noneUsable(listing, entries), { expected: LISTED_RELEASE_SHAPE, hint: this.answerHint });
    const warning = skipped.warning(listing);
    if (warning !== undefined) this.options.warn?.(warning);
    return releases;
  }

  /** What to check when an answer of the API is not of the shape read. */
  private get answerHint(): string {
    return this.options.apiUrl
      ? `check that ${this.apiBase} (--github-api-url, or Config github.apiUrl) is a GitHub REST API root, and any proxy between you and it`
      : `check any proxy between you and ${this.apiBase}`;
  }

  /** URLs taken from API answers are requested with the token, so they must stay on the API's origin. */
  private onApiOrigin(url: string, what: string): string {
    const absolute = new URL(url, this.apiBase);
    if (absolute.origin !== this.apiOrigin) {
      throw this.client.error(`${what} to another host (${redactUrl(absolute)})`, {
        expected: `a URL on ${this.apiOrigin}`,
        hint: 'check apiUrl; the request was not sent',
      });
    }
    return absolute.href;
  }

  /**
   * A version without a release: the hint names the newest releases of its series (else of the
   * repository), so it can be followed as written. The listing is asked only on this error path.
   */
  private async withNearestReleases(error: ArtifactNotFoundError, version: string): Promise<ArtifactNotFoundError> {
    const wanted = parseSemantic(version);
    const tags = await this.listVersions().catch(() => []);
    const released = tags
      .map((tag) => ({ tag, semantic: parseSemantic(tag) }))
      .filter((t): t is { tag: string; semantic: SemVer } => t.semantic !== null && t.semantic.prerelease.length === 0)
      .sort((a, b) => compareSemantic(b.semantic, a.semantic));
    const series = released.filter((t) => t.semantic.major === wanted?.major && t.semantic.minor === wanted.minor);
    const nearest = (series.length > 0 ? series : released).slice(0, 3).map((t) => t.tag);
    if (nearest.length === 0) return error;
    const of = series.length > 0 ? ` ${wanted!.major}.${wanted!.minor}` : '';
    const hint = `the newest${of} releases of ${this.slug}: ${nearest.join(', ')}; set spec.version to one of them (a tag without a published release, or a draft, cannot be fetched)`;
    return new ArtifactNotFoundError(error.diagnostics.map((d) => ({ ...d, hint })));
  }

  private async fetchReleaseByTag(tag: string): Promise<ApiRelease> {
    const url = `${this.apiBase}/repos/${this.slug}/releases/tags/${encodeURIComponent(tag)}`;
    const { data } = await this.getJson(url, {
      action: `get release ${tag} of ${this.slug}`,
      url,
      version: tag,
      notFound: () =>
        new ArtifactNotFoundError(
          this.client.diagnostic(`no GitHub release ${tag} in ${this.slug} (GET ${redactUrl(url)} answered 404)`, {
            expected: 'a published release whose tag is the version',
            hint: 'check spec.version; a tag without a published release (or a draft) cannot be fetched',
          }),
        ),
    });
    const problem = releaseShapeProblem(data);
    if (problem !== undefined) {
      throw this.client.error(`GitHub's answer for release ${tag} of ${this.slug} (GET ${redactUrl(url)}) is not a release: ${problem}`, {
        expected: RELEASE_SHAPE,
        hint: this.answerHint,
      });
    }
    return data as ApiRelease;
  }

  /** A JSON GET through the client's ETag path: GitHub does not count a 304 against the rate limit. */
  private async getJson(url: string, context: RequestContext): Promise<{ data: unknown; link?: string }> {
    const of = context.version ? ` for version ${context.version}` : '';
    let answer: RevalidatedResponse;
    try {
      answer = await this.client.revalidatedGet(
        url,
        `the answer to GET ${redactUrl(url)}${of} of ${this.slug}`,
        (conditional) => this.apiGet(url, conditional),
        ['link'],
      );
    } catch (error) {
      throw this.failure(error, context);
    }
    if (answer.status !== 200) throw this.client.error(`cannot ${context.action}: GET ${redactUrl(url)} answered HTTP ${answer.status}`);
    const data = parseJsonBody(answer.body);
    if (data === undefined)
      throw this.client.error(`GET ${redactUrl(url)} did not answer JSON`, { hint: 'check apiUrl, or a proxy between you and GitHub' });
    return { data, link: answer.headers.link };
  }

  /** A GET through octokit (auth, rate limits), as a plain response; octokit throws a 304, which is an answer here. */
  private async apiGet(url: string, headers: Record<string, string>): Promise<PlainResponse> {
    try {
      const response = await this.octokit.request({ method: 'GET', url, headers, request: { parseSuccessResponseBody: false } });
      const kept = Object.entries(response.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
      return { status: response.status, body: await bodyBytes(response.data), headers: new Headers(kept) };
    } catch (error) {
      if (error instanceof RequestError && error.status === 304) return { status: 304, body: Buffer.alloc(0), headers: new Headers() };
      throw error;
    }
  }

  /** Asset bytes, from the cache when its digest (or, lacking one, its asset id) is known there. */
  private async assetBytes(asset: ApiAsset, version: string): Promise<{ bytes: Buffer; cached: boolean }> {
    const cache = this.options.cache;
    const published = publishedSha256(asset.digest);
    if (cache) {
      const known = published ?? (await cache.getHttpRecord(asset.url))?.sha256;
      const bytes = known ? await cache.getBlob(known) : undefined;
      if (bytes) return { bytes, cached: true };
    }
    if (this.client.offline) throw this.client.offlineMiss(`asset ${asset.name} for version ${version} of ${this.slug}`);

    const bytes = await this.downloadAsset(asset, version);
    const actual = sha256Hex(bytes);
    if (published && actual !== published) {
      throw this.client.error(`asset ${asset.name} of release ${version} of ${this.slug} does not match its published digest`, {
        expected: `sha256:${published} (published by GitHub)`,
        hint: `downloaded bytes have sha256:${actual}; the download or the release was tampered with or corrupted — do not use it`,
      });
    }
    if (cache) {
      await cache.putBlob(bytes);
      // Asset ids are never reused, so id → sha256 stays true when no digest is published.
      if (!published) await cache.putHttpRecord({ url: asset.url, sha256: actual });
    }
    return { bytes, cached: false };
  }

  /**
   * `GET …/releases/assets/{id}` with Accept octet-stream answers a redirect to a storage host
   * with a pre-signed URL. The API call goes through octokit (rate limits); the storage download
   * through the shared client (retries, cap, deadline), sending the token only if the storage is the API's own origin.
   */
  private async downloadAsset(asset: ApiAsset, version: string): Promise<Buffer> {
    const context: RequestContext = {
      action: `download ${asset.name} of release ${version} of ${this.slug}`,
      url: asset.url,
      version,
      notFound: () =>
        new ArtifactNotFoundError(
          this.client.diagnostic(
            `asset ${asset.name} of release ${version} of ${this.slug} not found (GET ${redactUrl(asset.url)} answered 404)`,
          ),
        ),
    };
    const accept = 'application/octet-stream';
    const assetUrl = this.onApiOrigin(asset.url, `release ${version} of ${this.slug} points asset ${asset.name}`);
    let response;
    try {
      response = await this.octokit.request({
        method: 'GET',
        url: assetUrl,
        headers: { accept },
        request: { redirect: 'manual', parseSuccessResponseBody: false },
      });
    } catch (error) {
      throw this.failure(error, context);
    }
    if (response.status >= 200 && response.status < 300) return bodyBytes(response.data);
    const location = response.headers.location;
    if (!location) {
      throw this.client.error(`cannot ${context.action}: GET ${redactUrl(asset.url)} answered HTTP ${response.status} without a Location`);
    }

    const storageUrl = new URL(location, asset.url).href;
    const headers: Record<string, string> = { accept };
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    try {
      const download = await this.client.send({ url: storageUrl, headers, credentialOrigin: this.apiOrigin });
      if (download.status === 404) throw context.notFound();
      if (download.status !== 200) {
        throw this.client.error(`cannot ${context.action}: GET ${redactUrl(storageUrl)} answered HTTP ${download.status}`, {
          hint: 'retry later',
        });
      }
      return download.body;
    } catch (error) {
      throw this.failure(error, context);
    }
  }

  /** A failed request as a CapiGitopsError, never mentioning the token. */
  private failure(error: unknown, context: RequestContext): CapiGitopsError {
    if (error instanceof CapiGitopsError) return error;
    if (error instanceof HttpError) return this.client.failure(error, context.action) as CapiGitopsError;
    if (!(error instanceof RequestError)) {
      return this.client.error(`cannot ${context.action}: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (isRateLimit(error)) return this.rateLimited(error, context);
    if (error.status === 404) return context.notFound();
    if (error.status === 401 && this.options.token === undefined) {
      // no token was sent: a GitHub Enterprise that requires sign-in answers every anonymous request so
      return this.client.error(`cannot ${context.action}: GitHub requires a token (HTTP 401)`, {
        hint: `set GITHUB_TOKEN (or GH_TOKEN) to a token that can read ${this.slug}; a host other than api.github.com gets it only when named with --github-api-url`,
      });
    }
    if (error.status === 401) {
      return this.client.error(`cannot ${context.action}: GitHub rejected the token (HTTP 401)`, {
        hint: `check ${this.options.tokenFrom ?? 'GITHUB_TOKEN / GH_TOKEN'}: it may be expired or revoked`,
      });
    }
    // Transport failures reach us wrapped by octokit as status 500 with our HttpError as cause.
    if (error.cause instanceof HttpError) return this.client.failure(error.cause, context.action) as CapiGitopsError;
    const denied =
      error.status === 403 && this.options.token !== undefined
        ? `the token cannot read ${this.slug}: a fine-grained token needs read access to its Contents, a classic one the repo scope (public_repo for a public repository)`
        : undefined;
    return this.client.error(`cannot ${context.action}: GET ${redactUrl(context.url)} answered HTTP ${error.status}: ${error.message}`, {
      hint: denied,
    });
  }

  private rateLimited(error: RequestError, context: RequestContext): CapiGitopsError {
    const reset = rateLimitReset(error, Date.now());
    const when = reset ? `it resets at ${isoSeconds(reset)}` : 'GitHub did not say when it resets';
    const hint = this.options.token
      ? `the token's quota is used up: wait until ${reset ? isoSeconds(reset) : 'the limit resets'} or use another token`
      : 'set GITHUB_TOKEN (or GH_TOKEN) to a GitHub token: authenticated requests get 5,000 per hour instead of 60';
    return this.client.error(`GitHub API rate limit exceeded (HTTP ${error.status}) trying to ${context.action}; ${when}`, { hint });
  }
}

/** Octokit's unparsed body (a stream of our in-memory Response, or nothing) as bytes. */
async function bodyBytes(data: unknown): Promise<Buffer> {
  if (data === null || data === undefined || data === '') return Buffer.alloc(0);
  return Buffer.from(await new Response(data as ReadableStream).arrayBuffer());
}
