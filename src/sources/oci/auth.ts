/**
 * Registry credentials and the token flows, as the operator (OCIAuthentication) and oras-go's
 * auth client use them: OCI_USERNAME / OCI_PASSWORD / OCI_ACCESS_TOKEN / OCI_REFRESH_TOKEN; a
 * Basic challenge gets username and password; a Bearer challenge the access token as it is, else
 * a token from the challenge's realm (OAuth2 POST with a refresh token, else the distribution GET).
 */
import { isLoopbackHost, type HttpRequest } from '../base/http.js';
import { setOwnValue } from '../../core/own-keys.js';
import { environmentCredentialProblem, OCI_REGISTRIES_VARIABLE } from '../credentials.js';

/** configSecret keys (and environment variables) holding registry credentials. */
export const OCI_CREDENTIAL_KEYS = {
  username: 'OCI_USERNAME',
  password: 'OCI_PASSWORD',
  accessToken: 'OCI_ACCESS_TOKEN',
  refreshToken: 'OCI_REFRESH_TOKEN',
} as const;

export interface OciCredentials {
  username?: string;
  password?: string;
  accessToken?: string;
  refreshToken?: string;
}

/** oras-go sends its own name as the OAuth2 client_id; so do we. */
const OAUTH2_CLIENT_ID = 'capi-gitops';

function pickCredentials(source: Record<string, string | undefined> | undefined): OciCredentials | undefined {
  if (!source) return undefined;
  const credentials: OciCredentials = {};
  for (const [field, key] of Object.entries(OCI_CREDENTIAL_KEYS) as [keyof OciCredentials, string][]) {
    const value = source[key];
    if (value) credentials[field] = value;
  }
  return Object.keys(credentials).length > 0 ? credentials : undefined;
}

/** The credentials a registry gets, and why the environment's were not given to it. */
interface OciCredentialChoice {
  credentials?: OciCredentials;
  /** Set when the environment has OCI_* credentials that this registry may not have. */
  withheld?: string;
}

/**
 * Registry credentials: the configSecret's OCI_* keys when it has any (the operator reads them
 * from there, OCIAuthentication), else the same variables from the environment, for a registry
 * the runner lists in CAPI_GITOPS_OCI_REGISTRIES and over https (or loopback) only. The two are
 * not mixed, so a stray environment variable never joins a secret's credentials.
 */
export function ociCredentials(
  secretData: Record<string, string> | undefined,
  env: Record<string, string | undefined>,
  registry: URL,
): OciCredentialChoice {
  const fromSecret = pickCredentials(secretData);
  if (fromSecret) return { credentials: fromSecret };
  const fromEnv = pickCredentials(env);
  if (!fromEnv) return {};
  const withheld = environmentCredentialProblem(registry, 'OCI_* (OCI_USERNAME, OCI_PASSWORD, …)', OCI_REGISTRIES_VARIABLE, env);
  return withheld ? { withheld } : { credentials: fromEnv };
}

/** A WWW-Authenticate challenge: scheme (lower-case) and parameters (keys lower-case). */
export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/** Reads `Bearer realm="…",service="…",scope="…"` (quoted values may hold commas and escapes). */
export function parseChallenge(header: string | null | undefined): Challenge | undefined {
  const match = /^\s*([A-Za-z][A-Za-z0-9_-]*)(?:\s+([\s\S]*))?$/.exec(header ?? '');
  if (!match) return undefined;
  const params: Record<string, string> = {};
  const pair = /\s*([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))\s*(?:,|$)/y;
  const rest = match[2] ?? '';
  while (pair.lastIndex < rest.length) {
    const found = pair.exec(rest);
    if (!found) break;
    setOwnValue(params, found[1].toLowerCase(), found[2] !== undefined ? found[2].replace(/\\(.)/g, '$1') : found[3]);
  }
  return { scheme: match[1].toLowerCase(), params };
}

/**
 * Whether Basic credentials may be sent to a token realm: only over https, or to a loopback
 * host, or when the registry itself was declared plain HTTP.
 */
export function realmAcceptable(realm: URL, plainHttpRegistry: boolean): boolean {
  if (realm.protocol === 'https:') return true;
  return realm.protocol === 'http:' && (plainHttpRegistry || isLoopbackHost(realm.hostname));
}

/** A token request, with the words that describe it in logs and errors. */
interface TokenAttempt {
  request: HttpRequest;
  /** How the token is asked for, for the log line. */
  using: string;
  /** What the service refused, for the error. */
  presented: string;
  refusedStatuses: number[];
  /** What was presented, to pick a hint for where the credentials came from. */
  presentedKind: keyof TokenRefusedHints;
  hint: string;
}

/** What to do when a token service refuses each kind of presentation. */
export interface TokenRefusedHints {
  credentials: string;
  anonymous: string;
  refreshToken: string;
}

/** The OAuth2 flow (oras-go fetchOAuth2Token): a form POST with grant_type=refresh_token. */
export function oauth2TokenRequest(realm: URL, challenge: Challenge, scopes: string[], refreshToken: string): TokenAttempt {
  const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: OAUTH2_CLIENT_ID });
  if (challenge.params.service) form.set('service', challenge.params.service);
  form.set('scope', scopes.join(' '));
  return {
    request: {
      url: realm.href,
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
      credentialOrigin: realm.origin,
    },
    using: `with ${OCI_CREDENTIAL_KEYS.refreshToken} (OAuth2)`,
    presented: OCI_CREDENTIAL_KEYS.refreshToken,
    // OAuth2 answers a bad or expired refresh token with 400 invalid_grant.
    refusedStatuses: [400, 401, 403],
    presentedKind: 'refreshToken',
    hint: `check ${OCI_CREDENTIAL_KEYS.refreshToken}; refresh tokens expire, so get a new one from the registry`,
  };
}

/** The distribution flow: GET realm?service=…&scope=…, Basic-authenticated when credentials exist. */
export function distributionTokenRequest(realm: URL, challenge: Challenge, scopes: string[], credentials: OciCredentials): TokenAttempt {
  const url = new URL(realm);
  if (challenge.params.service) url.searchParams.set('service', challenge.params.service);
  for (const scope of scopes) url.searchParams.append('scope', scope);
  const headers: Record<string, string> = { accept: 'application/json' };
  const withCredentials = Boolean(credentials.username || credentials.password);
  if (withCredentials)
    headers.authorization = `Basic ${Buffer.from(`${credentials.username ?? ''}:${credentials.password ?? ''}`).toString('base64')}`;
  return {
    request: { url: url.href, headers, credentialOrigin: url.origin },
    using: withCredentials ? 'with the configured credentials' : 'anonymously',
    presented: withCredentials ? 'the credentials' : 'an anonymous token',
    refusedStatuses: [401, 403],
    presentedKind: withCredentials ? 'credentials' : 'anonymous',
    hint: withCredentials
      ? `check ${OCI_CREDENTIAL_KEYS.username} and ${OCI_CREDENTIAL_KEYS.password}`
      : `set ${OCI_CREDENTIAL_KEYS.username} and ${OCI_CREDENTIAL_KEYS.password} (or ${OCI_CREDENTIAL_KEYS.accessToken}) in the provider's configSecret or the environment`,
  };
}
