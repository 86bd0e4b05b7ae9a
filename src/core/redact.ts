/**
 * The one function every line the tool prints goes through (`safeText`): known secrets and URL
 * credentials are redacted, then control characters are escaped. Error text from octokit, undici
 * or a server's answer can echo an Authorization header or a URL's `?private_token=`; input can
 * carry ESC, CR or NUL to hide its own error in a terminal or CI log. Both are handled here, once,
 * rather than at each place that builds a message.
 */
import { clearedEachRun } from './run-state.js';
import { StringIndex } from './string-index.js';

/** What a secret value is shown as. */
export const MASK = '********';
/**
 * Shorter values are not redacted: replacing every "abc" in a message would garble it, and such a
 * value is no credential worth guessing.
 */
const MIN_SECRET_LENGTH = 6;

// indexed: a fleet registers every cluster's values and prints a line per object
const secrets = clearedEachRun(new StringIndex());

/** Environment variables that hold credentials the tool reads; their values are redacted everywhere. */
export const CREDENTIAL_ENV_VARIABLES = [
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'GITLAB_ACCESS_TOKEN',
  'GITLAB_TOKEN',
  'OCI_PASSWORD',
  'OCI_ACCESS_TOKEN',
  'OCI_REFRESH_TOKEN',
  'CAPI_GITOPS_CACHE_KEY',
  'CAPI_GITOPS_HTTPS_AUTHORIZATION',
] as const;

/** Remembers a credential so that no message prints it. Its base64 and URL-encoded forms are remembered too. */
export function registerSecret(value: string | undefined): void {
  if (value === undefined) return;
  const trimmed = value.trim();
  if (trimmed.length < MIN_SECRET_LENGTH) return;
  secrets.add(trimmed);
  secrets.add(encodeURIComponent(trimmed));
  secrets.add(Buffer.from(trimmed, 'utf8').toString('base64'));
  // An Authorization header value: the credential after the scheme word is the secret part.
  const scheme = /^(?:Bearer|Basic|token|Token)\s+(\S+)$/.exec(trimmed);
  if (scheme?.[1]) registerSecret(scheme[1]);
}

/**
 * Remembers text that no printed line may hold, exactly as given: the secrets stage's forms of
 * each secret value (raw and base64), which it has already filtered by length and commonness.
 */
export function registerSecretForms(forms: Iterable<string>): void {
  for (const form of forms) if (form) secrets.add(form);
}

/** Every string inside `value` (a report about to be printed) redacted; keys too. */
export function redactStrings<T>(value: T): T {
  if (typeof value === 'string') return redactText(value) as T;
  if (Array.isArray(value)) return value.map(redactStrings) as T;
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redactText(k), redactStrings(v)])) as T;
  return value;
}

/** Registers the credential variables of the environment. */
export function registerEnvironmentSecrets(): void {
  for (const name of CREDENTIAL_ENV_VARIABLES) registerSecret(process.env[name]);
}

const URL_IN_TEXT = /\b[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s"'<>`]+/g;

/**
 * An oci:// URL's fragment is the layer title the OCI source names a file by (`#core-components.yaml`,
 * as the lockfile records it): shown when it is a YAML or JSON file name, masked like any other
 * fragment otherwise (an https fragment can carry a token, e.g. `#access_token=…`; a bare word
 * may be a token too).
 */
function shownFragment(scheme: string, fragment: string): string {
  // a URL found in a sentence ends at white space, so it may carry the sentence's `:`, `;`, `,`, `.` or `)`
  return /^oci:\/\/$/i.test(scheme) && /^#[A-Za-z0-9._+-]+\.(?:ya?ml|json)[:;,.)]*$/.test(fragment) ? fragment : `#${MASK}`;
}

/** A URL with its userinfo and the values of its query parameters replaced; fragments masked, but for an oci:// file name. */
export function redactUrlCredentials(url: string): string {
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/.exec(url);
  if (!match) return url;
  const [, scheme, authority, pathPart, query, fragment] = match;
  const at = authority!.lastIndexOf('@');
  const host = at >= 0 ? `${MASK}@${authority!.slice(at + 1)}` : authority!;
  const redactedQuery = query
    ? '?' +
      query
        .slice(1)
        .split('&')
        .map((pair) => {
          const eq = pair.indexOf('=');
          return eq < 0 ? pair : `${pair.slice(0, eq)}=${MASK}`;
        })
        .join('&')
    : '';
  return `${scheme}${host}${pathPart}${redactedQuery}${fragment ? shownFragment(scheme!, fragment) : ''}`;
}

/** Known secrets and URL credentials replaced by a mask. */
function redactText(text: string): string {
  let out = text.replace(URL_IN_TEXT, (url) => redactUrlCredentials(url));
  // Longest first, so a secret that contains another is masked whole.
  for (const secret of secrets.foundIn(out)) {
    if (out.includes(secret)) out = out.split(secret).join(MASK);
  }
  // Header lines a server echoed back, whatever the token: `Authorization: Bearer x`.
  return out.replace(
    /\b((?:proxy-)?authorization|private-token|job-token|deploy-token|x-api-key|cookie)(["']?\s*[:=]\s*["']?)(?:(?:Bearer|Basic|token)\s+)?[^\s"',;]+/gi,
    `$1$2${MASK}`,
  );
}

/**
 * C0 controls (except newline and tab), DEL, C1 controls and the bidirectional overrides that
 * can reorder a line on screen, written as visible escapes (`\x1b`, `\u202e`).
 */
function escapeControl(text: string, options: { keepNewlines?: boolean } = {}): string {
  const keep = options.keepNewlines ?? true;
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g, (c) => {
    if (c === '\t' || (keep && c === '\n')) return c;
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** What every printed line goes through: redaction, then escaping. */
export function safeText(text: string, options: { keepNewlines?: boolean } = {}): string {
  return escapeControl(redactText(text), options);
}
