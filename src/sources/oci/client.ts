/**
 * Speaks the distribution API to one registry for one repository through the shared client,
 * answering auth challenges as oras-go's auth client does (`auth.ts`).
 */
import { parseJsonBody, type SourceClient } from '../base/client.js';
import { HttpError, isLoopbackHost, redactUrl, type HttpResponse } from '../base/http.js';
import {
  distributionTokenRequest,
  oauth2TokenRequest,
  OCI_CREDENTIAL_KEYS,
  parseChallenge,
  realmAcceptable,
  type Challenge,
  type OciCredentials,
  type TokenRefusedHints,
} from './auth.js';
import type { OciReference } from './reference.js';
import { OCI_REGISTRIES_VARIABLE } from '../credentials.js';

/**
 * The largest token service answer read: oras-go's maxResponseBytes (registry/remote/auth/client.go),
 * 128 KiB. A token fits in a header (16 KiB), and an answer may hold it twice.
 */
const MAX_TOKEN_RESPONSE_BYTES = 128 * 1024;

/** Hints that work literally where the credentials come from (a provider's configSecret, a Docker config file). */
export interface CredentialHints {
  /** None were given and the registry asks for them. */
  set: string;
  /** The registry rejected them. */
  check: string;
  /** The environment's were withheld from this registry: the other place to give them. */
  elsewhere: string;
  /** A token service refused what was presented; the OCI_* wording of auth.ts where absent. */
  tokenRefused?: Partial<TokenRefusedHints>;
}

/**
 * The hints of a provider's OCI source: its configSecret, or the environment with the registry
 * listed in CAPI_GITOPS_OCI_REGISTRIES (the environment's credentials go nowhere else, and never
 * over plain http to a host other than loopback, where only the configSecret is named).
 */
function providerCredentialHints(ref: OciReference): CredentialHints {
  const { username, password, accessToken } = OCI_CREDENTIAL_KEYS;
  const registry = new URL(`${ref.plainHttp ? 'http' : 'https'}://${ref.registry}`);
  const fromEnvironment = !ref.plainHttp || isLoopbackHost(registry.hostname);
  const inSecret = `in the provider's configSecret`;
  const set = (keys: string) =>
    fromEnvironment
      ? `set ${keys} ${inSecret}, or set ${keys} and ${OCI_REGISTRIES_VARIABLE}=${registry.host} in the environment`
      : `set ${keys} ${inSecret}`;
  return {
    set: set(`${username} and ${password}`),
    check: `check ${username}/${password} or ${accessToken} ${inSecret} (or the environment) and their access to ${ref.repository}`,
    elsewhere: "give the credentials in the provider's configSecret",
    tokenRefused: { anonymous: set(`${username} and ${password} (or ${accessToken})`) },
  };
}

/** Speaks to one registry for one repository, answering auth challenges as oras-go's auth client. */
export class RegistryClient {
  readonly base: string;
  private authorization: string | undefined;
  private readonly origin: string;

  constructor(
    private readonly ref: OciReference,
    private readonly credentials: OciCredentials | undefined,
    /** Why the environment's OCI_* credentials were not given to this registry, for the hints. */
    private readonly withheld: string | undefined,
    private readonly client: SourceClient,
    private readonly log: ((line: string) => void) | undefined,
    /** What to do about missing, rejected or withheld credentials: the provider's configSecret by default. */
    private readonly credentialHints: CredentialHints = providerCredentialHints(ref),
  ) {
    this.base = `${ref.plainHttp ? 'http' : 'https'}://${ref.registry}`;
    this.origin = new URL(this.base).origin;
  }

  /**
   * GET with the current authorization; one 401 is answered by authenticating and asking again.
   * `maxBytes` caps the body below the run's download cap (a manifest).
   */
  get(url: string, headers: Record<string, string>, maxBytes?: number): Promise<HttpResponse> {
    return this.request('GET', url, headers, maxBytes);
  }

  /** HEAD, authenticated as `get` (a manifest's digest without its body). */
  head(url: string, headers: Record<string, string>): Promise<HttpResponse> {
    return this.request('HEAD', url, headers);
  }

  private async request(method: 'GET' | 'HEAD', url: string, headers: Record<string, string>, maxBytes?: number): Promise<HttpResponse> {
    let response = await this.send(method, url, headers, maxBytes);
    if (response.status !== 401) return response;
    this.authorization = await this.authenticate(parseChallenge(response.headers.get('www-authenticate')), method, url);
    response = await this.send(method, url, headers, maxBytes);
    if (response.status === 401) {
      throw this.client.error(`registry ${this.ref.registry} rejected the credentials (HTTP 401 on ${method} ${redactUrl(url)})`, {
        hint: this.withheldHint() ?? this.credentialHints.check,
      });
    }
    return response;
  }

  private send(method: 'GET' | 'HEAD', url: string, headers: Record<string, string>, maxBytes?: number): Promise<HttpResponse> {
    return this.transport(() =>
      this.client.send({
        url,
        method,
        maxBytes,
        headers: this.authorization ? { ...headers, authorization: this.authorization } : headers,
        credentialOrigin: this.origin,
        allowInsecure: this.ref.plainHttp,
      }),
    );
  }

  /** Transport failures as CapiGitopsError, with the http:// hint when TLS met a plain-HTTP server. */
  private async transport(request: () => Promise<HttpResponse>): Promise<HttpResponse> {
    try {
      return await request();
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      const tlsToPlain = !this.ref.plainHttp && /EPROTO|wrong version number|ssl/i.test(error.message);
      // a registry that sent more than a body may hold was reached: it answered too much
      const failed =
        error.failure === 'too-large' ? `registry ${this.ref.registry} answered too much` : `cannot reach registry ${this.ref.registry}`;
      throw this.client.error(`${failed}: ${error.message}`, {
        hint: tlsToPlain
          ? `the registry does not speak TLS; for a plain-HTTP registry write the reference as ${plainHttpReference(this.ref)}`
          : undefined,
      });
    }
  }

  /** What to do when the environment's credentials were kept from this registry. */
  private withheldHint(): string | undefined {
    if (!this.withheld) return undefined;
    // plain http to another host: the environment's credentials never go there, listed or not
    if (this.ref.plainHttp && !isLoopbackHost(new URL(this.base).hostname)) {
      const overHttps = referenceWithoutScheme(this.ref);
      return `${this.withheld}; ${this.credentialHints.elsewhere}, or reach the registry over https (the reference without http://: ${overHttps}) or through a mirror on a loopback address, and list that host in ${OCI_REGISTRIES_VARIABLE} (e.g. ${OCI_REGISTRIES_VARIABLE}=${this.ref.registry} for https)`;
    }
    return `${this.withheld}; if you trust ${this.ref.registry}, add it to ${OCI_REGISTRIES_VARIABLE} (e.g. ${OCI_REGISTRIES_VARIABLE}=${this.ref.registry}), or ${this.credentialHints.elsewhere}`;
  }

  private async authenticate(challenge: Challenge | undefined, method: string, url: string): Promise<string> {
    const credentials = this.credentials ?? {};
    if (challenge?.scheme === 'basic') {
      this.log?.(`oci: ${this.ref.registry} asks for Basic authentication`);
      if (!credentials.username || !credentials.password) {
        throw this.client.error(
          `registry ${this.ref.registry} requires a username and password (Basic authentication) for ${method} ${redactUrl(url)}`,
          {
            hint: this.withheldHint() ?? this.credentialHints.set,
          },
        );
      }
      return `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
    }
    if (challenge?.scheme === 'bearer') {
      if (credentials.accessToken) {
        this.log?.(`oci: ${this.ref.registry} asks for a Bearer token; using ${OCI_CREDENTIAL_KEYS.accessToken}`);
        return `Bearer ${credentials.accessToken}`;
      }
      return `Bearer ${await this.fetchToken(challenge, credentials)}`;
    }
    throw this.client.error(
      `registry ${this.ref.registry} answered HTTP 401 to ${method} ${redactUrl(url)} without a Basic or Bearer challenge`,
      {
        hint: 'check the registry address; a proxy in between may be rejecting the request',
      },
    );
  }

  /**
   * The token flows, as oras-go (the operator's client) chooses them: with OCI_REFRESH_TOKEN the
   * OAuth2 flow, POST realm with grant_type=refresh_token; otherwise the distribution flow,
   * GET realm?service=…&scope=…, Basic-authenticated when credentials exist.
   */
  private async fetchToken(challenge: Challenge, credentials: OciCredentials): Promise<string> {
    const realm = URL.parse(challenge.params.realm ?? '');
    if (!realm) throw this.client.error(`registry ${this.ref.registry} sent a Bearer challenge without a valid realm`);
    if (!realmAcceptable(realm, this.ref.plainHttp)) {
      throw this.client.error(`registry ${this.ref.registry} points its token service at ${redactUrl(realm)}, which is not https`, {
        hint: 'credentials are not sent over plain HTTP to a token service of a TLS registry; the request was not sent',
      });
    }
    const scopes = [
      ...new Set([`repository:${this.ref.repository}:pull`, ...(challenge.params.scope ?? '').split(' ').filter(Boolean)]),
    ].sort();
    const attempt = credentials.refreshToken
      ? oauth2TokenRequest(realm, challenge, scopes, credentials.refreshToken)
      : distributionTokenRequest(realm, challenge, scopes, credentials);
    this.log?.(`oci: ${this.ref.registry} asks for a Bearer token; requesting one from ${redactUrl(realm)} ${attempt.using}`);

    const response = await this.transport(() =>
      this.client.send({ ...attempt.request, allowInsecure: this.ref.plainHttp, maxBytes: MAX_TOKEN_RESPONSE_BYTES }, false),
    );
    if (attempt.refusedStatuses.includes(response.status)) {
      throw this.client.error(
        `the token service of ${this.ref.registry} (${redactUrl(realm)}) refused ${attempt.presented} (HTTP ${response.status})`,
        { hint: this.withheldHint() ?? this.credentialHints.tokenRefused?.[attempt.presentedKind] ?? attempt.hint },
      );
    }
    if (response.status !== 200)
      throw this.client.error(`the token service of ${this.ref.registry} (${redactUrl(realm)}) answered HTTP ${response.status}`);
    const answer = parseJsonBody(response.body) as { token?: unknown; access_token?: unknown } | null | undefined;
    // The token spec: `token`, or `access_token` for OAuth2 compatibility; equal when both are sent.
    const token = typeof answer?.access_token === 'string' && answer.access_token ? answer.access_token : answer?.token;
    if (typeof token !== 'string' || token === '')
      throw this.client.error(`the token service of ${this.ref.registry} (${redactUrl(realm)}) answered no token`);
    return token;
  }
}

/** The reference as written, tag and digest kept, without `http://` (so over https): a hint must name the same artifact. */
function referenceWithoutScheme(ref: OciReference): string {
  return `${ref.registry}/${ref.repository}${ref.tag ? `:${ref.tag}` : ''}${ref.digest ? `@${ref.digest}` : ''}`;
}

/** The reference as written, tag and digest kept, over plain HTTP: the hint must name the same artifact. */
function plainHttpReference(ref: OciReference): string {
  return `http://${referenceWithoutScheme(ref)}`;
}
