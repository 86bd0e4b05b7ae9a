/**
 * Checks on credentials before any request is made with them.
 *
 * - A token with a newline, NUL or another character a header cannot carry would make undici
 *   throw mid-run (or, worse, split a header); it is refused up front, with no retries.
 * - `GITHUB_TOKEN` goes to api.github.com, or to another host only when that host is also named
 *   by whoever runs the tool (`--github-api-url`, `GITHUB_API_URL`): a manifest is input, and a
 *   pull request that edits `Config.github.apiUrl` must not be able to send CI's token elsewhere.
 * - Every other credential from the environment (OCI_*, GITLAB_*, CAPI_GITOPS_HTTPS_AUTHORIZATION)
 *   follows the same rule (`environmentCredentialProblem`): only to a host the runner lists in a
 *   variable, and never over plain http except to loopback.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import { registerSecret } from '../core/redact.js';
import { isLoopbackHost } from './base/http.js';

/** Visible ASCII, space and tab: what every credential header value here is made of. */
const HEADER_SAFE = /^[\x20-\x7e\t]*$/;

/** Why `value` cannot be sent as (part of) a header value, or undefined when it can. */
function headerValueProblem(value: string): string | undefined {
  if (HEADER_SAFE.test(value)) return undefined;
  const bad = [...value].find((c) => !HEADER_SAFE.test(c))!;
  const code = bad.codePointAt(0)!;
  const name =
    code === 0x0a
      ? 'a newline'
      : code === 0x0d
        ? 'a carriage return'
        : code === 0
          ? 'a NUL byte'
          : `the character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return `it contains ${name}, which an HTTP header cannot carry`;
}

/**
 * Problems with the credential variables of an environment, each `NAME: why`. Values are
 * trimmed first, as the sources trim them (a trailing newline from `$(cat token)` is fine).
 */
export function credentialEnvironmentProblems(env: Record<string, string | undefined>, names: readonly string[]): string[] {
  const problems: string[] = [];
  for (const name of names) {
    const value = env[name]?.trim();
    if (!value) continue;
    const problem = headerValueProblem(value);
    if (problem) problems.push(`${name} cannot be used as a token: ${problem}; check how it is set (e.g. a file with two lines)`);
  }
  return problems;
}

/** Diagnostics for the token-like keys of a configSecret; also registers every value for redaction. */
export function configSecretCredentialProblems(data: Record<string, string>, origin: Omit<Diagnostic, 'message'>): Diagnostic[] {
  const problems: Diagnostic[] = [];
  for (const [key, value] of Object.entries(data)) {
    registerSecret(value);
    if (!/TOKEN|AUTHORIZATION/i.test(key)) continue;
    const problem = headerValueProblem(value.trim());
    if (problem)
      problems.push({
        ...origin,
        message: `configSecret key ${key} cannot be used as a token: ${problem}`,
        expected: 'a token of printable ASCII characters',
        hint: `fix the value of ${key} in the Secret (a stray newline when it was encoded?)`,
      });
  }
  return problems;
}

/** The token from `GITHUB_TOKEN` (clusterctl's variable) or else `GH_TOKEN` (the gh CLI's). */
export function githubTokenFromEnv(env: Record<string, string | undefined> = process.env): string | undefined {
  for (const name of ['GITHUB_TOKEN', 'GH_TOKEN']) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

const PUBLIC_GITHUB_API_HOST = 'api.github.com';

function hostOf(url: string | undefined): string | undefined {
  return url ? URL.parse(url)?.host.toLowerCase() : undefined;
}

/**
 * Undefined when the GitHub token may go to `apiUrl`; else why not. `trusted` are the API URLs
 * the person running the tool named (`--github-api-url`, `GITHUB_API_URL`); `holder` says where
 * the token is.
 */
function githubTokenHostProblem(
  apiUrl: string | undefined,
  trusted: ReadonlyArray<string | undefined>,
  holder = 'GITHUB_TOKEN (or GH_TOKEN) is set',
): string | undefined {
  const host = hostOf(apiUrl ?? `https://${PUBLIC_GITHUB_API_HOST}`);
  if (host === undefined || host === PUBLIC_GITHUB_API_HOST) return undefined;
  if (trusted.some((url) => hostOf(url) === host)) return undefined;
  return `Config github.apiUrl names ${host}, and ${holder}: the token is sent to a host other than ${PUBLIC_GITHUB_API_HOST} only when that host is also given with --github-api-url or GITHUB_API_URL, so that an edit to the manifest (a pull request) cannot send CI's token to a server of its choosing`;
}

/**
 * configSecret key of a GitHub token, as the operator reads it: the Secret's data become
 * clusterctl's configuration variables (operator internal/controller/phase_initialize.go
 * initReaderVariables), and clusterctl's GitHub repository authenticates with the variable
 * `github-token` (cmd/clusterctl/client/config/variables_client.go GitHubTokenVariable,
 * client/repository/repository_github.go NewGitHubRepository). Not a variable of the components.
 */
export const GITHUB_TOKEN_KEY = 'github-token';

/** The GitHub token of one provider's configSecret, if it has one. */
export function githubTokenFromSecret(credentials: Readonly<Record<string, string>> | undefined): string | undefined {
  return credentials?.[GITHUB_TOKEN_KEY]?.trim() || undefined;
}

/**
 * Why no GitHub token may go to `apiUrl` in this run, or undefined: the run's token, else the
 * first Secret of the input holding a `github-token` (a configSecret's token is as much CI's as
 * GITHUB_TOKEN is), with the hint that fixes it.
 */
export function githubTokenGuard(
  apiUrl: string | undefined,
  trusted: ReadonlyArray<string | undefined>,
  runToken: string | undefined,
  secrets: readonly { namespace: string; name: string; data: Readonly<Record<string, string>> }[],
): { message: string; hint: string } | undefined {
  const secret = runToken ? undefined : secrets.find((s) => githubTokenFromSecret(s.data));
  if (!runToken && !secret) return undefined;
  const holder = secret ? `Secret ${secret.namespace}/${secret.name} holds a ${GITHUB_TOKEN_KEY}` : undefined;
  const message = githubTokenHostProblem(apiUrl, trusted, holder);
  if (!message) return undefined;
  const drop = secret ? `remove ${GITHUB_TOKEN_KEY} from Secret ${secret.namespace}/${secret.name}` : 'unset GITHUB_TOKEN for this run';
  return { message, hint: `run with --github-api-url ${apiUrl} if you trust that host, or ${drop}` };
}

/** Registries (`host[:port]`) the runner trusts with OCI_USERNAME/OCI_PASSWORD/OCI_*_TOKEN from the environment. */
export const OCI_REGISTRIES_VARIABLE = 'CAPI_GITOPS_OCI_REGISTRIES';
/** GitLab hosts the runner trusts with GITLAB_ACCESS_TOKEN/GITLAB_TOKEN from the environment (gitlab.com always). */
export const GITLAB_HOSTS_VARIABLE = 'CAPI_GITOPS_GITLAB_HOSTS';

/** The `host[:port]` of each entry of a list the runner gives (comma- or space-separated; URLs too), lower-case. */
export function namedHosts(list: string | undefined): string[] {
  const hosts: string[] = [];
  for (const entry of (list ?? '').split(/[\s,]+/)) {
    if (entry === '') continue;
    const host = hostOf(entry.includes('://') ? entry : `https://${entry}`);
    if (host !== undefined) hosts.push(host);
  }
  return hosts;
}

/**
 * Why a credential from the environment must not go to `target`, or undefined when it may. The
 * manifest is input (a pull request can change it), so it cannot choose where the runner's
 * credentials go: the host must be in `defaults` or in the list the runner gave in `variable`,
 * and plain http crosses no network (loopback only).
 */
export function environmentCredentialProblem(
  target: URL,
  credential: string,
  variable: string,
  env: Record<string, string | undefined>,
  defaults: readonly string[] = [],
): string | undefined {
  const host = target.host.toLowerCase();
  if (target.protocol === 'http:' && !isLoopbackHost(target.hostname))
    return `${credential} from the environment is not sent to ${host} over plain http (https only, or a loopback address)`;
  if (defaults.includes(host) || namedHosts(env[variable]).includes(host)) return undefined;
  return `${credential} from the environment goes only to hosts listed in ${variable}${defaults.length ? ` (and ${defaults.join(', ')})` : ''}, and ${host} is not listed: the manifest alone cannot choose where the runner's credentials go`;
}

/** configSecret key holding an Authorization header value for a plain-HTTPS repository. */
const HTTPS_AUTHORIZATION_KEY = 'HTTPS_AUTHORIZATION';

/**
 * The Authorization header value for a plain-HTTPS repository at `url`: the configSecret's
 * HTTPS_AUTHORIZATION, else CAPI_GITOPS_HTTPS_AUTHORIZATION — the latter only when
 * CAPI_GITOPS_HTTPS_AUTHORIZATION_HOST names the URL's host, so the manifest cannot steer an
 * environment credential to a host of its choosing. A bare token becomes `Bearer <token>`.
 */
export function httpsAuthorization(
  url: string,
  credentials: Record<string, string> | undefined,
  env: Record<string, string | undefined>,
): string | undefined {
  const fromSecret = credentials?.[HTTPS_AUTHORIZATION_KEY]?.trim();
  const host = hostOf(url);
  const trustedHost = env.CAPI_GITOPS_HTTPS_AUTHORIZATION_HOST?.trim().toLowerCase();
  // over https, or plain http to loopback only (environmentCredentialProblem's rule)
  const secure = /^https:/i.test(url) || (host !== undefined && isLoopbackHost(new URL(url).hostname));
  const fromEnv = host !== undefined && trustedHost === host && secure ? env.CAPI_GITOPS_HTTPS_AUTHORIZATION?.trim() : undefined;
  const value = fromSecret || fromEnv;
  if (!value) return undefined;
  registerSecret(value);
  return /^[A-Za-z][A-Za-z0-9-]*\s+\S/.test(value) ? value : `Bearer ${value}`;
}
