/**
 * The client every network source (github, gitlab, https, oci) makes its requests through, so
 * that retries, deadlines, progress, ETag revalidation, paging and the offline-miss message are
 * written once:
 *
 * - `send`: one request with retries and backoff inside the request's and the run's deadline
 *   (`http.ts`), credential headers kept to their origin across redirects, progress reported;
 * - `revalidatedGet`: a GET through the cache, revalidated with If-None-Match; offline, the
 *   cached answer or the offline-miss error;
 * - `nextPage`: the `rel="next"` Link of a listing, only when it stays on the origin the
 *   credentials are for;
 * - `failure`: a transport failure as a diagnostic, with the hint for its kind.
 */
import path from 'node:path';
import { CapiGitopsError, type Diagnostic } from '../../core/diagnostics.js';
import { defaultCacheKeyFile } from '../cache.js';
import type { NetworkSourceOptions } from '../request.js';
import { httpFetch, httpPolicy, HttpError, redactUrl, type HttpPolicy, type HttpRequest, type HttpResponse } from './http.js';
import { networkFailureHint } from './unreachable.js';

/** An answer from `revalidatedGet`: the server's, or the cached one it confirmed (304) or that offline mode used. */
export interface RevalidatedResponse {
  status: number;
  body: Buffer;
  /** The headers named in `keepHeaders`, lower-case; restored from the cache for a cached answer. */
  headers: Record<string, string>;
  /** True when the body came from the cache. */
  cached: boolean;
}

/** What `revalidatedGet` needs of an answer; a 304 may have an empty body. */
export type PlainResponse = Pick<HttpResponse, 'status' | 'body' | 'headers'>;

export class SourceClient {
  readonly policy: HttpPolicy;

  constructor(private readonly options: NetworkSourceOptions) {
    this.policy = httpPolicy(options.http);
  }

  get offline(): boolean {
    return this.options.offline === true;
  }

  /**
   * One request, retried inside its deadline, with retry progress and (unless `reportBytes` is
   * false, as for small API answers) byte progress. Throws `HttpError`.
   */
  send(request: HttpRequest, reportBytes = true): Promise<HttpResponse> {
    const onProgress = this.options.onProgress;
    const url = redactUrl(request.url);
    const onBytes = onProgress && reportBytes ? (received: number) => onProgress({ type: 'bytes', url, received }) : undefined;
    return httpFetch({ ...request, onBytes }, this.policy, onProgress && ((notice) => onProgress({ type: 'retry', ...notice })));
  }

  /** `send` for a GET, with `conditional` (If-None-Match) added to the headers. */
  sendGet(
    url: string,
    headers: Record<string, string>,
    credentialOrigin: string,
    extra: Partial<HttpRequest> = {},
  ): (conditional: Record<string, string>) => Promise<HttpResponse> {
    return (conditional) => this.send({ ...extra, url, headers: { ...headers, ...conditional }, credentialOrigin });
  }

  /**
   * A GET through the cache, the one ETag path of every source. The cached answer is revalidated
   * with If-None-Match and reused on 304; a 200 is stored with its ETag and `keepHeaders` (a 304
   * does not repeat them, e.g. `link`). Offline, the cached answer or the offline-miss error
   * naming `what`. Only the request is sent by `send`, so a source keeps its own auth.
   */
  async revalidatedGet(
    url: string,
    what: string,
    send: (conditional: Record<string, string>) => Promise<PlainResponse>,
    keepHeaders: readonly string[] = [],
  ): Promise<RevalidatedResponse> {
    const cache = this.options.cache;
    const record = cache ? await cache.getHttpRecord(url) : undefined;
    const cachedBody = record && cache ? await cache.getBlob(record.sha256) : undefined;
    const fromCache = (): RevalidatedResponse => ({ status: 200, body: cachedBody!, headers: { ...record!.headers }, cached: true });

    if (this.offline) {
      if (cachedBody) return fromCache();
      throw this.offlineMiss(what, await cache?.keyMadeByThisRun());
    }
    const conditional: Record<string, string> = record?.etag && cachedBody ? { 'if-none-match': record.etag } : {};
    const response = await send(conditional);
    if (response.status === 304 && cachedBody) return fromCache();
    const headers: Record<string, string> = {};
    for (const name of keepHeaders) {
      const value = response.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    if (response.status === 200 && cache) {
      const sha256 = await cache.putBlob(response.body);
      await cache.putHttpRecord({
        url,
        sha256,
        etag: response.headers.get('etag') ?? undefined,
        headers: Object.keys(headers).length ? headers : undefined,
      });
    }
    return { status: response.status, body: response.body, headers, cached: false };
  }

  /**
   * The error for something offline mode needs and the cache lacks; `what` names it, e.g. `GET <url> (version v1.2.3)`.
   * `newKey`: this run made the key that signs HTTP records, so it reads none an earlier run wrote (a new CI runner).
   */
  offlineMiss(what: string, newKey = false): CapiGitopsError {
    const cache = this.options.cache;
    // the same command online asks for exactly what this one missed, and caches it where this one looks
    const fill = cache
      ? `run the same command once without --offline, on a machine with network access, to fill the cache at ${cache.dir}; then retry`
      : 'offline mode needs a cache directory';
    // Filling the cache alone does not help a runner that starts without the key every time.
    const keep = `keep ${path.dirname(defaultCacheKeyFile())} between runs too, or set CAPI_GITOPS_CACHE_KEY (16 characters or more) in every run`;
    return this.error(`offline: ${what} is not in the cache`, {
      hint:
        cache && newKey
          ? `this run had no key to read the cache's HTTP records with (they are signed by a key kept outside the cache): ${keep}; then ${fill}`
          : fill,
    });
  }

  /**
   * The next page of a listing from its Link header, resolved against `current`; undefined on
   * the last page. A next page on another origin is refused (not requested): it would be sent the
   * listing's credentials. `what` says who links it, e.g. `GitHub's release list of o/r`.
   */
  nextPage(link: string | undefined, current: string, allowedOrigin: string, what: string): string | undefined {
    const next = nextPageUrl(link);
    if (next === undefined) return undefined;
    const absolute = new URL(next, current);
    if (absolute.origin !== allowedOrigin) {
      throw this.error(`${what} links its next page to another host (${redactUrl(absolute)})`, {
        expected: `a URL on ${allowedOrigin}`,
        hint: 'the request was not sent',
      });
    }
    return absolute.href;
  }

  /** A transport failure (`HttpError`) as a CapiGitopsError saying what could not be done; anything else as it is. */
  failure(error: unknown, action: string): unknown {
    if (!(error instanceof HttpError)) return error;
    return this.error(`cannot ${action}: ${error.message}`, { hint: networkFailureHint(error.failure) });
  }

  diagnostic(message: string, extra: Omit<Diagnostic, 'message'> = {}): Diagnostic {
    return { ...this.options.origin, message, ...extra };
  }

  /** A CapiGitopsError of one `diagnostic`. */
  error(message: string, extra: Omit<Diagnostic, 'message'> = {}): CapiGitopsError {
    return new CapiGitopsError(this.diagnostic(message, extra));
  }
}

/** The `rel="next"` URL of a Link header (RFC 8288), as written. */
export function nextPageUrl(link: string | undefined): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?([^";]+)"?/.exec(part.trim());
    if (match && match[2].split(/\s+/).includes('next')) return match[1];
  }
  return undefined;
}

/** `make()`'s promise for `key`, made once while it has not failed: a failure is forgotten, so a later call tries again. */
export function onceUntilFailure<T>(pending: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let promise = pending.get(key);
  if (!promise) {
    promise = make();
    pending.set(key, promise);
    promise.catch(() => pending.delete(key));
  }
  return promise;
}

/** JSON from a response body, or undefined when it is not JSON. */
export function parseJsonBody(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
