import type { DiagnosticOrigin } from '../core/diagnostics.js';
import type { ProviderKind } from '../core/provider.js';
import type { ConfigMapObject, LabelSelector, SourcePosition, UserRepository } from '../manifest/types.js';
import type { ArtifactCache } from './cache.js';
import type { HttpPolicy, SourceProgressEvent } from './base/http.js';

export type { DiagnosticOrigin };

/** A plain HTTPS template's settings, as a Config repositories entry gives them. */
export type HttpsTemplateSettings = Pick<UserRepository, 'versions' | 'versionsUrl' | 'allowInsecure'> & {
  /** Where versionsUrl is written: a problem with the listing is told there. */
  versionsUrlAt?: SourcePosition;
};

/** What every request carries, whichever way the artifacts are fetched. */
interface RequestBase {
  /** Provider kind; undefined for cert-manager and the operator, which clusterctl fetches like a provider without a type. */
  kind?: ProviderKind;
  /** Provider name, e.g. `kubeadm`, or `cert-manager`. */
  name: string;
  /** clusterctl manifest label, e.g. `bootstrap-kubeadm`; local repositories are laid out by it. */
  label: string;
  /** The provider's namespace; the operator reads fetchConfig ConfigMaps from it only. */
  namespace?: string;
  /** Absolute directory that relative paths resolve against (the declaring manifest file's). */
  baseDir: string;
  /** Where the request was written, copied into every diagnostic about it. */
  origin: DiagnosticOrigin;
  /** How to fix it when no module serves the request; the resolver fills it per context. */
  noSourceHint?: string;
  /** The provider's configSecret data: OCI_*, github-token and gitlab-access-token credentials. Never printed. */
  credentials?: Readonly<Record<string, string>>;
}

/** A URL (fetchConfig.url, a Config repositories entry, certManager.url, operator.url): local, GitHub, GitLab or a plain HTTPS template. */
export interface UrlRequest extends RequestBase, HttpsTemplateSettings {
  from: 'url';
  url: string;
}

/** The operator's fetchConfig.selector: ConfigMaps given in the input. */
export interface SelectorRequest extends RequestBase {
  from: 'selector';
  selector: LabelSelector;
}

/** The operator's fetchConfig.oci: an OCI artifact, whose file names need the provider's kind. */
interface OciRequest extends RequestBase {
  from: 'oci';
  oci: string;
  kind: ProviderKind;
}

/** What a source module needs to open one provider's release repository: one of the operator's fetchConfig routes. */
export type RepositoryRequest = UrlRequest | SelectorRequest | OciRequest;

/** The GitHub API settings of a run (GitHub Enterprise, tests). */
export interface GitHubSettings {
  /** REST API root, octokit's `baseUrl`: GitHub Enterprise (`https://ghe.example.com/api/v3`) or a test server. */
  apiUrl?: string;
  /** Personal access token (see `githubTokenFromEnv`). Never logged or put in a message. */
  token?: string;
  /** Timeouts, retries, size cap, and the injectable sleep. */
  http?: Partial<HttpPolicy>;
  /** A rate limit that resets further away than this fails at once instead of waiting. Default 60. */
  maxRateLimitWaitSeconds?: number;
  /** Milliseconds per second of wait that octokit's throttling plugin uses. Default 1000; tests use 0. */
  retryAfterBaseMs?: number;
}

/**
 * The run's memo of requests several providers make on the way to their files (a GitHub
 * release's JSON): the first asker's promise, kept for the rest of the run under its key (a
 * failure too, so it is reported once). A key names the source, the repository and what was asked
 * of it; a token only as its sha256.
 */
export type RunMemo = <T>(key: string, load: () => Promise<T>) => Promise<T>;

/** Options every network source takes (GitHub, GitLab, OCI, plain HTTPS); the shared client reads them. */
export interface NetworkSourceOptions {
  /** Keeps ETags, responses and artifact bytes between runs. */
  cache?: ArtifactCache;
  /** Serve from the cache only; anything not cached is an error. */
  offline?: boolean;
  /** Timeouts, retries, the size cap and the run's deadline. */
  http?: Partial<HttpPolicy>;
  log?: (line: string) => void;
  /** A warning about an answer (entries of a listing skipped for their shape): told even with --quiet. */
  warn?: (line: string) => void;
  onProgress?: (event: SourceProgressEvent) => void;
  /** Where the request was declared, copied into every diagnostic. */
  origin?: DiagnosticOrigin;
  /** Shares requests between the providers of a run; without it (library use), each repository asks for itself. */
  runMemo?: RunMemo;
}

/**
 * Inputs shared by all modules: the network sources' options, one `NetworkDeadline` per run in
 * `http`, and each request's origin left to the request; a source with settings of its own adds a
 * field (e.g. `github`).
 */
export interface SourceOptions extends Omit<NetworkSourceOptions, 'origin'> {
  /** GitHub API root and token (GitHub Enterprise, tests). */
  github?: GitHubSettings;
  /** Environment the credential variables are read from (OCI_*, GITLAB_*); process.env by default. */
  env?: Record<string, string | undefined>;
}

export interface SourceContext {
  /** ConfigMaps given in the input, for the operator's fetchConfig.selector route. */
  configMaps: readonly ConfigMapObject[];
  options: SourceOptions;
}

/**
 * Prefix for messages about a request: empty when the diagnostic already names the object
 * (formatDiagnostic prints it), else the manifest label.
 */
export function messagePrefix(request: Pick<RepositoryRequest, 'origin' | 'label'>): string {
  return request.origin.object ? '' : `${request.label}: `;
}
