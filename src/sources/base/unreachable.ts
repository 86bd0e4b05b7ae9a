/**
 * Hosts this run could not reach at all. A DNS failure or a refused connection does not heal in
 * the seconds a retry waits (no network, a typo in a host name, a mirror that is down), so such a
 * failure is final for the host: it is not retried, and later requests to the same host in the
 * same process fail at once with the first reason instead of asking again.
 */
import { clearedEachRun } from '../../core/run-state.js';

/** Socket error codes that say the host cannot be reached, as opposed to a transient failure. */
const UNREACHABLE_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH']);

/** host (hostname:port) → the reason of its first failure. */
const unreachableHosts = clearedEachRun(new Map<string, string>());

interface ErrorLike {
  code?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/**
 * The unreachable code in a fetch failure, if any: undici wraps the socket error in `cause`, and
 * a host with several addresses gives an AggregateError whose `errors` all must be unreachable.
 */
export function unreachableCode(error: unknown, depth = 0): string | undefined {
  if (depth > 4 || typeof error !== 'object' || error === null) return undefined;
  const e = error as ErrorLike;
  if (typeof e.code === 'string' && UNREACHABLE_CODES.has(e.code)) return e.code;
  if (Array.isArray(e.errors) && e.errors.length > 0) {
    const codes = e.errors.map((inner) => unreachableCode(inner, depth + 1));
    if (codes.every((code) => code !== undefined)) return codes[0];
  }
  return unreachableCode(e.cause, depth + 1);
}

/** Remembers that `url`'s host could not be reached, with the reason to repeat. */
export function markUnreachable(url: URL, reason: string): void {
  if (!unreachableHosts.has(url.host)) unreachableHosts.set(url.host, reason);
}

/** Why `url`'s host was found unreachable earlier in this run, or undefined. */
export function unreachableReason(url: URL): string | undefined {
  return unreachableHosts.get(url.host);
}

/** Forgets every host (a new run in the same process, e.g. a test). */
export function forgetUnreachableHosts(): void {
  unreachableHosts.clear();
}

/** The hint for a request that got no answer, by HttpError failure kind; undefined for other kinds. */
export function networkFailureHint(failure: string): string | undefined {
  const offline = 'with no network, point the source at a local copy, or pass --offline after one online run has filled the cache';
  if (failure === 'unreachable') return `check the host name and the network (proxy, DNS); ${offline}`;
  if (failure === 'timeout')
    return `raise --http-timeout (or Config network.timeoutSeconds) on a slow network, or run again later; ${offline}`;
  if (failure === 'network' || failure === 'truncated') return `run again later; ${offline}`;
  if (failure === 'not-tls') return "the server answers without TLS: check the URL's port, or its scheme where the source allows http://";
  if (failure === 'certificate')
    return (
      "for a private CA (a proxy that inspects TLS, an in-house mirror), set NODE_EXTRA_CA_CERTS to that CA's PEM file " +
      'before running capi-gitops; a certificate that has expired or names another host must be fixed on the server'
    );
  if (failure === 'deadline')
    return `raise --network-deadline (or CAPI_GITOPS_NETWORK_DEADLINE) on a slow network, or run again later; ${offline}`;
  return undefined;
}
