/**
 * The HTTP transport every network source shares (through `client.ts`).
 *
 * - `httpFetchOnce`: one attempt with a timeout, a body size cap, truncation detection and
 *   redirects followed by hand, so credential headers only ever reach the origin they were
 *   meant for.
 * - `httpFetch`: `httpFetchOnce` with bounded retries (exponential backoff with jitter) on 5xx,
 *   408/429, connection failures, timeouts and truncated bodies, all inside one deadline (the
 *   request's budget or the run's, `deadline.ts`).
 * - `fetchAdapter`: a request behind the `fetch` signature, for octokit's `request.fetch`.
 *
 * Bodies are read completely into memory: artifacts are YAML files of a few MB, and a complete
 * read is what lets us check the length and the cap before anyone parses a byte.
 */

import type { NetworkDeadline } from './deadline.js';
import { markUnreachable, unreachableCode, unreachableReason } from './unreachable.js';

/** How requests are made and retried. Every field has a default (`DEFAULT_HTTP_POLICY`). */
export interface HttpPolicy {
  /** One attempt (all redirect hops, headers and body) must finish within this many ms. */
  timeoutMs: number;
  /** Attempts after the first one. */
  retries: number;
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /** Backoff before retry n is baseDelayMs·2^(n-1), capped at maxDelayMs, then jittered. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the response is returned as it is. */
  maxRetryAfterMs: number;
  maxRedirects: number;
  /** The run's budget, shared by every request of the run; none when unset (library use). */
  runDeadline?: NetworkDeadline;
  /** Injected so tests never wait for real. */
  sleep: (ms: number) => Promise<void>;
  /** [0, 1); injected so tests can pin the jitter. */
  random: () => number;
}

const DEFAULT_HTTP_POLICY: Readonly<HttpPolicy> = Object.freeze({
  timeoutMs: 120_000,
  retries: 3,
  maxBytes: 64 * 1024 * 1024,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  maxRedirects: 10,
  sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
});

export function httpPolicy(overrides: Partial<HttpPolicy> = {}): HttpPolicy {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  return { ...DEFAULT_HTTP_POLICY, ...defined };
}

/** Progress of network sources, for the terminal display. URLs are redacted (`redactUrl`). */
export type SourceProgressEvent =
  /** Listing the versions of a repository. */
  | { type: 'resolve'; source: string }
  /** Starting to get one file of one version. */
  | { type: 'fetch'; source: string; version: string; file: string }
  /** Bytes of a download received so far. */
  | { type: 'bytes'; url: string; received: number }
  /** A file is available; `cached` when no download was needed. */
  | { type: 'done'; source: string; version: string; file: string; bytes: number; cached: boolean }
  /** A failed attempt will be retried after `delayMs`. */
  | { type: 'retry'; url: string; attempt: number; delayMs: number; reason: string };

type HttpFailure =
  | 'network'
  | 'timeout'
  | 'deadline'
  | 'truncated'
  | 'too-large'
  | 'redirect'
  | 'refused'
  | 'unreachable'
  | 'not-tls'
  | 'certificate';

/** A request that did not produce a complete response. Messages carry redacted URLs only. */
export class HttpError extends Error {
  readonly failure: HttpFailure;
  /** Redacted URL of the hop that failed. */
  readonly url: string;
  constructor(failure: HttpFailure, message: string, url: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HttpError';
    this.failure = failure;
    this.url = url;
  }
  /** Transient failures worth another attempt; a size cap, a redirect loop or an unreachable host is not. */
  get retryable(): boolean {
    return this.failure === 'network' || this.failure === 'timeout' || this.failure === 'truncated';
  }
}

/** 127.0.0.0/8, localhost and ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/**
 * `CAPI_GITOPS_NETWORK=loopback` confines every request to this machine: the test suite sets it
 * so that no test can reach the internet, and it proves a run stays inside an air gap.
 */
function refuseUnlessAllowed(url: URL, method: string): void {
  if (process.env.CAPI_GITOPS_NETWORK === 'loopback' && !isLoopbackHost(url.hostname)) {
    throw new HttpError(
      'refused',
      `${method} ${redactUrl(url)}: refused, CAPI_GITOPS_NETWORK=loopback allows loopback hosts only`,
      redactUrl(url),
    );
  }
}

export interface HttpRequest {
  url: string;
  /** GET unless told. */
  method?: string;
  headers?: Record<string, string>;
  /**
   * Sent again on each attempt. Only the OCI OAuth2 token POST has one; as its form carries a
   * credential, a request with a body follows no redirect and gets the 3xx back.
   */
  body?: string;
  /**
   * The origin (`scheme://host:port`) the credential headers are meant for; defaults to the
   * origin of `url`. Any hop to another origin is sent without them.
   */
  credentialOrigin?: string;
  /** `manual` returns a 3xx response as it is instead of following it. */
  redirect?: 'follow' | 'manual';
  /**
   * Plain http:// to a host other than loopback is accepted for this request (Config
   * `repositories[].allowInsecure`, an OCI reference written `http://`). Without it, a redirect
   * to such a URL is refused: each hop keeps the rule the first URL was checked by.
   */
  allowInsecure?: boolean;
  signal?: AbortSignal;
  /** Which statuses `httpFetch` retries; `isRetryableStatus` by default. */
  retryableStatus?: (status: number) => boolean;
  onBytes?: (received: number) => void;
  /** A cap below the policy's for this request's body (an image manifest's 4 MiB). */
  maxBytes?: number;
}

export interface HttpResponse {
  /** The URL that answered, after redirects. Not redacted: callers may need its query. */
  url: string;
  status: number;
  statusText: string;
  headers: Headers;
  body: Buffer;
}

/** Headers that authenticate a request; they never follow a redirect to another origin. */
const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'private-token',
  'job-token',
  'deploy-token',
  'x-api-key',
]);

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** `scheme://host/path` with user info, query and fragment removed (they may hold tokens or signatures). */
export function redactUrl(url: string | URL): string {
  const parsed = URL.parse(String(url));
  return parsed ? `${parsed.origin}${parsed.pathname}` : '<invalid URL>';
}

/** Request headers for a hop: credential headers only when the hop goes to their origin. */
export function headersForHop(headers: Record<string, string>, hopUrl: URL, credentialOrigin: string): Record<string, string> {
  if (hopUrl.origin === credentialOrigin) return { ...headers };
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.has(name.toLowerCase())));
}

/** Exponential backoff with "equal jitter": half the step is fixed, half random, so retries spread out but never collapse to 0. */
export function backoffDelay(retryNumber: number, policy: Pick<HttpPolicy, 'baseDelayMs' | 'maxDelayMs' | 'random'>): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retryNumber - 1));
  return Math.round(step / 2 + policy.random() * (step / 2));
}

/** `Retry-After` in ms: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** Short reason from a fetch failure: undici hides the socket error in `cause`. */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code && cause.message) return `${cause.message} (${cause.code})`;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/**
 * OpenSSL's codes for an answer that is not TLS at all: https:// to a plain-HTTP server (a local
 * registry written without http://). The server will not speak TLS on a retry.
 */
const NOT_TLS_CODES = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG']);

/**
 * Node's and OpenSSL's codes for a certificate that does not verify: a private CA (a proxy that
 * inspects TLS, an in-house mirror), an expired certificate, another host's. A retry gets the
 * same certificate.
 */
const CERTIFICATE_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
]);

/** A TLS failure a retry cannot mend, by its OpenSSL code: an answer without TLS, or a certificate not accepted. */
function tlsFailure(url: URL, where: string, error: unknown): HttpError | undefined {
  const code = (error as { cause?: { code?: unknown } })?.cause?.code;
  const final = (failure: HttpFailure, reason: string, retry: string) =>
    new HttpError(failure, `${where}: ${reason}; not retried, as a retry ${retry}`, redactUrl(url), { cause: error });
  if (typeof code !== 'string') return undefined;
  if (NOT_TLS_CODES.has(code)) return final('not-tls', `the server answered without TLS (${code})`, 'will not change that');
  if (CERTIFICATE_CODES.has(code))
    return final('certificate', `the server's certificate was not accepted: ${networkReason(error)}`, 'gets the same certificate');
  return undefined;
}

/** A DNS failure or refused connection: final for the host for the rest of the run (`unreachable.ts`). */
function unreachableFailure(url: URL, where: string, error: unknown): HttpError | undefined {
  if (unreachableCode(error) === undefined) return undefined;
  const reason = networkReason(error);
  markUnreachable(url, reason);
  return new HttpError(
    'unreachable',
    `${where}: ${reason}; not retried, as a host that cannot be reached will not answer a retry`,
    redactUrl(url),
    { cause: error },
  );
}

function refuseIfUnreachable(url: URL, method: string): void {
  const reason = unreachableReason(url);
  if (reason !== undefined) {
    throw new HttpError(
      'unreachable',
      `${method} ${redactUrl(url)}: not sent, ${url.host} could not be reached earlier in this run (${reason})`,
      redactUrl(url),
    );
  }
}

function capText(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

/**
 * A hop to plain http on a host other than loopback, where neither the request allows it nor its
 * own URL already was one (which its source accepted).
 */
function plainHttpRefused(hop: URL, request: HttpRequest): boolean {
  if (hop.protocol !== 'http:' || isLoopbackHost(hop.hostname) || request.allowInsecure) return false;
  const first = new URL(request.url);
  return first.protocol !== 'http:' || isLoopbackHost(first.hostname);
}

/** One attempt: follows redirects by hand, reads the whole body within the cap, checks its length. */
export async function httpFetchOnce(request: HttpRequest, policy: HttpPolicy): Promise<HttpResponse> {
  request.signal?.throwIfAborted();
  const method = request.method ?? 'GET';
  const headers = request.headers ?? {};
  let hopUrl = new URL(request.url);
  const credentialOrigin = request.credentialOrigin ?? hopUrl.origin;

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, policy.timeoutMs);
  timer.unref?.();
  const forwardAbort = () => controller.abort(request.signal?.reason);
  request.signal?.addEventListener('abort', forwardAbort, { once: true });

  const failure = (error: unknown, during: 'request' | 'body', received = 0, total?: number): Error => {
    if (request.signal?.aborted) return request.signal.reason instanceof Error ? request.signal.reason : new Error('request aborted');
    const where = `${method} ${redactUrl(hopUrl)}`;
    if (timedOut)
      return new HttpError('timeout', `${where}: no complete answer within ${policy.timeoutMs} ms`, redactUrl(hopUrl), { cause: error });
    // failures a retry cannot mend
    const final = during === 'request' ? (unreachableFailure(hopUrl, where, error) ?? tlsFailure(hopUrl, where, error)) : undefined;
    if (final) return final;
    if (during === 'body') {
      const of = total !== undefined ? ` of ${total}` : '';
      return new HttpError(
        'truncated',
        `${where}: response body ended after ${received}${of} bytes (${networkReason(error)})`,
        redactUrl(hopUrl),
        { cause: error },
      );
    }
    return new HttpError('network', `${where}: ${networkReason(error)}`, redactUrl(hopUrl), { cause: error });
  };

  try {
    for (let hops = 0; ; hops++) {
      refuseUnlessAllowed(hopUrl, method);
      refuseIfUnreachable(hopUrl, method);
      let response: Response;
      try {
        response = await fetch(hopUrl, {
          method,
          headers: headersForHop(headers, hopUrl, credentialOrigin),
          body: request.body,
          redirect: 'manual',
          signal: controller.signal,
        });
      } catch (error) {
        throw failure(error, 'request');
      }

      const location = response.headers.get('location');
      if (REDIRECT_STATUSES.has(response.status) && location && request.redirect !== 'manual' && request.body === undefined) {
        await response.body?.cancel().catch(() => undefined);
        if (hops >= policy.maxRedirects) {
          throw new HttpError(
            'redirect',
            `${method} ${redactUrl(request.url)}: more than ${policy.maxRedirects} redirects`,
            redactUrl(hopUrl),
          );
        }
        const next = new URL(location, hopUrl);
        if (plainHttpRefused(next, request)) {
          throw new HttpError(
            'redirect',
            `${method} ${redactUrl(hopUrl)}: redirected to plain http (${redactUrl(next)}), not followed: a request leaves this machine over https only, unless its source allows plain http (allowInsecure: true on a Config repository, an http:// OCI reference)`,
            redactUrl(next),
          );
        }
        hopUrl = next;
        continue;
      }

      const cap = request.maxBytes === undefined ? policy : { ...policy, maxBytes: Math.min(request.maxBytes, policy.maxBytes) };
      const body = await readBody(response, hopUrl, method, cap, request.onBytes, failure);
      return { url: hopUrl.href, status: response.status, statusText: response.statusText, headers: response.headers, body };
    }
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', forwardAbort);
  }
}

async function readBody(
  response: Response,
  url: URL,
  method: string,
  policy: HttpPolicy,
  onBytes: HttpRequest['onBytes'],
  failure: (error: unknown, during: 'body', received: number, total?: number) => Error,
): Promise<Buffer> {
  const lengthHeader = response.headers.get('content-length');
  // A decoded (gzip, br) body is longer than the Content-Length of the encoded one.
  const encoded = (response.headers.get('content-encoding') ?? 'identity').toLowerCase() !== 'identity';
  const declared = lengthHeader !== null && /^\d+$/.test(lengthHeader) && !encoded ? Number(lengthHeader) : undefined;
  const tooLarge = () =>
    new HttpError(
      'too-large',
      `${method} ${redactUrl(url)}: response is larger than the ${capText(policy.maxBytes)} download cap`,
      redactUrl(url),
    );

  if (declared !== undefined && declared > policy.maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body || method === 'HEAD') return Buffer.alloc(0);

  const chunks: Buffer[] = [];
  let received = 0;
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      if (received > policy.maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge();
      }
      chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
      onBytes?.(received);
    }
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw failure(error, 'body', received, declared);
  }
  if (declared !== undefined && received !== declared) {
    throw failure(new Error('Content-Length mismatch'), 'body', received, declared);
  }
  return Buffer.concat(chunks, received);
}

export interface RetryNotice {
  url: string;
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  reason: string;
}

/**
 * `httpFetchOnce` with bounded retries inside one deadline: the request's own budget
 * (`timeoutMs`, retries included) or the run's (`runDeadline`), whichever ends first. A server
 * that stalls every attempt fails once, when the budget ends, not after (retries + 1) × timeout;
 * a backoff that would end past the deadline is not waited for. A retryable status is retried
 * and, once attempts are used up, returned to the caller (who knows what the status means); a
 * transport failure is thrown as `HttpError` naming the number of attempts.
 */
export async function httpFetch(request: HttpRequest, policy: HttpPolicy, onRetry?: (notice: RetryNotice) => void): Promise<HttpResponse> {
  const method = request.method ?? 'GET';
  const shown = `${method} ${redactUrl(request.url)}`;
  const requestEnd = Date.now() + policy.timeoutMs;
  const runEnd = policy.runDeadline?.end();
  const deadline = Math.min(requestEnd, runEnd ?? Infinity);
  const runBound = runEnd !== undefined && runEnd <= requestEnd;
  /** The deadline ended the request: say which one, after how many attempts, and the last failure. */
  const expired = (attempts: number, last?: { reason: string; cause?: unknown }): HttpError => {
    const tried = attempts === 0 ? 'not sent' : `gave up after ${attempts} attempt${attempts === 1 ? '' : 's'}`;
    const lastFailure = last ? ` (last: ${last.reason.replace(`${shown}: `, '')})` : '';
    const ended = runBound ? `${policy.runDeadline!.describe()} was reached` : `no complete answer within ${policy.timeoutMs} ms`;
    return new HttpError(runBound ? 'deadline' : 'timeout', `${shown}: ${ended}; ${tried}${lastFailure}`, redactUrl(request.url), {
      cause: last?.cause,
    });
  };
  const retryableStatus = request.retryableStatus ?? isRetryableStatus;

  let last: { reason: string; cause?: unknown } | undefined;
  for (let attempt = 1; ; attempt++) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw expired(attempt - 1, last);
    let delayMs: number;
    let reason: string;
    let cause: unknown;
    try {
      // the first attempt has the request's whole budget (the clock started a moment ago), so its
      // timeout message names the budget as configured
      const limited =
        attempt === 1 && (!runBound || remaining >= policy.timeoutMs) ? policy : { ...policy, timeoutMs: Math.max(1, remaining) };
      const response = await httpFetchOnce(request, limited);
      if (!retryableStatus(response.status) || attempt > policy.retries) return response;
      const asked = retryAfterMs(response.headers.get('retry-after'));
      if (asked !== undefined && asked > policy.maxRetryAfterMs) return response;
      delayMs = asked ?? backoffDelay(attempt, policy);
      reason = `HTTP ${response.status}`;
    } catch (error) {
      if (!(error instanceof HttpError) || !error.retryable) throw error;
      // Each attempt's timeout is what is left of the deadline, so a timeout means it is spent; the
      // server's last answer, if any, says more than the moment of budget the final attempt had.
      if (error.failure === 'timeout')
        throw attempt === 1 && !runBound ? error : expired(attempt, last ?? { reason: error.message, cause: error.cause });
      if (attempt > policy.retries) {
        throw new HttpError(error.failure, `${error.message}; gave up after ${attempt} attempts`, error.url, { cause: error.cause });
      }
      delayMs = backoffDelay(attempt, policy);
      reason = error.message;
      cause = error.cause;
    }
    last = { reason, cause };
    if (Date.now() + delayMs >= deadline) throw expired(attempt, last);
    onRetry?.({ url: redactUrl(request.url), attempt, delayMs, reason });
    await policy.sleep(delayMs);
  }
}

/** What `fetch` accepts as its first argument. */
type FetchInput = string | URL | { url: string };

function headerRecord(init: ConstructorParameters<typeof Headers>[0]): Record<string, string> {
  return Object.fromEntries(new Headers(init ?? {}).entries());
}

/**
 * A `fetch` made of `send` (the shared client's request, retries and deadline included), for
 * libraries that take a fetch (octokit's `request.fetch`). The library's own retries must be off,
 * or attempts multiply and the deadline no longer bounds them.
 */
export function fetchAdapter(
  send: (request: HttpRequest) => Promise<HttpResponse>,
): (input: FetchInput, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    if (init?.body !== undefined && init.body !== null) throw new Error('capi-gitops HTTP layer: request bodies are not supported');
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const result = await send({
      url,
      method: init?.method,
      headers: headerRecord(init?.headers),
      redirect: init?.redirect === 'manual' ? 'manual' : 'follow',
      signal: init?.signal ?? undefined,
    });
    const response = new Response(NULL_BODY_STATUSES.has(result.status) ? null : result.body, {
      status: result.status,
      statusText: result.statusText,
      headers: result.headers,
    });
    Object.defineProperty(response, 'url', { value: result.url });
    return response;
  };
}
