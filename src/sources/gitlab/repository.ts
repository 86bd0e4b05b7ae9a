/**
 * Providers published as GitLab generic packages, with clusterctl's URL form
 * `https://gitlab.<host>/api/v4/projects/<project>/packages/generic/<package>/<version>/<file>`
 * (cmd/clusterctl/client/repository/repository_gitlab.go, and client.go repositoryFactory which
 * picks it for an https URL whose host starts with `gitlab.` and whose path starts with
 * `/api/v4/projects/`).
 *
 * As clusterctl: files are GET `…/packages/generic/<package>/<version>/<file>` on the URL's
 * host, with the project slug kept URL-escaped as written (`group%2Fproject`); the token is the
 * `gitlab-access-token` variable sent as `Authorization: Bearer <token>` (clusterctl's oauth2
 * static token source); a 401 says to check the credentials. clusterctl's GetVersions lists only
 * the URL's own version, and so does this source, except for a URL whose version is `latest`:
 * clusterctl cannot resolve that at all, here the project's packages API lists the versions of
 * the package (a capi-gitops extension).
 *
 * Extensions: `hosts` names self-managed GitLab hosts not called `gitlab.*`
 * (cluster-api-operator issue #705), and plain http:// is accepted for 127.0.0.1/localhost.
 */
import { CapiGitopsError } from '../../core/diagnostics.js';
import { sha256Hex } from '../../core/digest.js';
import { artifactFromBytes } from '../base/artifact.js';
import { parseJsonBody, SourceClient, type RevalidatedResponse } from '../base/client.js';
import { isLoopbackHost, redactUrl } from '../base/http.js';
import { entryShapeProblem, SkippedEntries } from '../base/listing-shape.js';
import type { NetworkSourceOptions } from '../request.js';
import { environmentCredentialProblem, GITLAB_HOSTS_VARIABLE } from '../credentials.js';
import { ArtifactNotFoundError, type Artifact, type ProviderRepository } from '../source.js';

/** clusterctl's variable (config.GitLabAccessTokenVariable); as an environment variable GITLAB_ACCESS_TOKEN. */
const GITLAB_TOKEN_VARIABLE = 'gitlab-access-token';
const URL_FORM = 'https://{host}/api/v4/projects/{projectSlug}/packages/generic/{packageName}/{defaultVersion}/{componentsPath}';
const API_PREFIX = '/api/v4/projects/';
const MAX_PAGES = 1000;

export interface GitLabOptions extends NetworkSourceOptions {
  /** Hosts (`host[:port]`) served as GitLab besides those named `gitlab.*`, for self-managed instances. */
  hosts?: string[];
  /** The provider's configSecret data; its `gitlab-access-token` is the token, as in clusterctl. */
  credentials?: Record<string, string>;
  /** Environment for GITLAB_ACCESS_TOKEN / GITLAB_TOKEN; process.env by default. */
  env?: Record<string, string | undefined>;
}

/** The parts of a clusterctl GitLab package URL. Slug, package and version are kept escaped as written. */
interface GitLabPackageUrl {
  /** `https://gitlab.example.com` */
  origin: string;
  projectSlug: string;
  packageName: string;
  version: string;
  componentsFile: string;
}

/** The public GitLab: the one host GITLAB_ACCESS_TOKEN/GITLAB_TOKEN go to without being listed. */
const PUBLIC_GITLAB_HOST = 'gitlab.com';

/**
 * The token for a GitLab at `origin`: the configSecret's `gitlab-access-token` (what the
 * operator's clusterctl reads), else GITLAB_ACCESS_TOKEN (clusterctl's environment form of that
 * variable), else GITLAB_TOKEN (the glab CLI's). An environment token goes to gitlab.com or a host
 * the runner lists in CAPI_GITOPS_GITLAB_HOSTS only (`withheld` says why it did not).
 */
export function gitlabToken(
  credentials: Record<string, string> = {},
  env: Record<string, string | undefined> = process.env,
  origin: string,
): { token?: string; withheld?: string } {
  const fromSecret = credentials[GITLAB_TOKEN_VARIABLE]?.trim();
  if (fromSecret) return { token: fromSecret };
  const fromEnv = [env.GITLAB_ACCESS_TOKEN, env.GITLAB_TOKEN].map((value) => value?.trim()).find(Boolean);
  if (!fromEnv) return {};
  const withheld = environmentCredentialProblem(new URL(origin), 'GITLAB_ACCESS_TOKEN (or GITLAB_TOKEN)', GITLAB_HOSTS_VARIABLE, env, [
    PUBLIC_GITLAB_HOST,
  ]);
  return withheld ? { withheld } : { token: fromEnv };
}

/**
 * Splits a GitLab package URL as clusterctl's NewGitLabRepository does. Null when it is not a
 * GitLab URL (host not `gitlab.*` nor in `hosts`, or path not under `/api/v4/projects/`); an
 * error when it is one but not in the package form, or not https.
 */
export function parseGitLabPackageUrl(url: string, hosts: readonly string[] = []): GitLabPackageUrl | null {
  const parsed = URL.parse(url);
  if (!parsed) return null;
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return null;
  const gitlabHost = parsed.hostname.startsWith('gitlab.') || hosts.includes(parsed.host);
  // URL.pathname keeps percent-escapes as written, like Go's EscapedPath.
  if (!gitlabHost || !parsed.pathname.startsWith(API_PREFIX)) return null;
  const invalid = (why: string, hint?: string) =>
    new CapiGitopsError({ message: `invalid GitLab package URL ${JSON.stringify(url)}: ${why}`, expected: URL_FORM, hint });
  if (parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname))
    throw invalid('GitLab URLs must use https', 'clusterctl only reads GitLab packages over https');
  if (parsed.search || parsed.hash) throw invalid('a query or fragment is not part of the form');
  const segments = parsed.pathname.slice(1).split('/');
  if (segments.length !== 9 || segments[4] !== 'packages' || segments[5] !== 'generic' || segments.some((segment) => segment === '')) {
    throw invalid(
      'the path does not have the package form',
      'e.g. https://gitlab.example.com/api/v4/projects/group%2Fproject/packages/generic/cluster-api/v1.12.0/core-components.yaml',
    );
  }
  for (const segment of segments) {
    try {
      decodeURIComponent(segment);
    } catch {
      throw invalid(`invalid URL escape in ${JSON.stringify(segment)}`);
    }
  }
  return { origin: parsed.origin, projectSlug: segments[3], packageName: segments[6], version: segments[7], componentsFile: segments[8] };
}

/** A `ProviderRepository` for a GitLab package URL, or null when the URL is not one. Creating it makes no request. */
export function openGitLabRepository(url: string, options: GitLabOptions = {}): ProviderRepository | null {
  const parts = parseGitLabPackageUrl(url, options.hosts);
  return parts ? new GitLabRepository(url, parts, options) : null;
}

/** One entry of GET /projects/:id/packages (the fields read). */
interface ApiPackage {
  name: string;
  version: string;
  package_type?: string;
  status?: string;
}

/** The first field of a package entry not of the type read, e.g. `[2].version is a number`; undefined when it is one. */
function packageShapeProblem(value: unknown, index: number): string | undefined {
  return entryShapeProblem(value, index, { name: 'string', version: 'string' }, { package_type: 'string', status: 'string' });
}

const PACKAGE_LIST_SHAPE =
  'a list of GitLab packages, each an object with name and version strings (package_type and status strings when present)';

class GitLabRepository implements ProviderRepository {
  readonly sourceType = 'gitlab';
  readonly defaultVersion: string;
  readonly componentsFile: string;
  readonly releaseStore: string;
  private readonly client: SourceClient;
  private readonly token: string | undefined;
  /** Why the environment's token was not given to this host, for the 401 hint. */
  private readonly withheld: string | undefined;
  private readonly projectUrl: string;

  constructor(
    readonly location: string,
    private readonly parts: GitLabPackageUrl,
    private readonly options: GitLabOptions,
  ) {
    this.defaultVersion = parts.version;
    this.componentsFile = parts.componentsFile;
    this.client = new SourceClient(options);
    const { token, withheld } = gitlabToken(options.credentials, options.env, parts.origin);
    this.token = token;
    this.withheld = withheld;
    if (withheld) options.log?.(`gitlab: ${withheld}`);
    this.projectUrl = `${parts.origin}${API_PREFIX}${parts.projectSlug}`;
    // every file of one package through one token is the same download (the core, kubeadm bootstrap
    // and control plane from one release); the URL's version too, since it is all listVersions lists
    const tokenSha256 = token === undefined ? '' : sha256Hex(token);
    this.releaseStore = [parts.origin, parts.projectSlug, parts.packageName, parts.version, tokenSha256].join('\0');
  }

  /** clusterctl GetVersions: the URL's version only; for `latest`, the packages API listing (extension). */
  async listVersions(): Promise<string[]> {
    if (this.defaultVersion !== 'latest') return [this.defaultVersion];
    this.options.onProgress?.({ type: 'resolve', source: this.location });
    const packageName = decodeURIComponent(this.parts.packageName);
    const query = new URLSearchParams({ package_type: 'generic', package_name: packageName, per_page: '100' });
    const versions: string[] = [];
    const first = `${this.projectUrl}/packages?${query}`;
    const skipped = new SkippedEntries();
    let entries = 0;
    let url: string | undefined = first;
    for (let page = 1; url; page++) {
      if (page > MAX_PAGES) throw this.client.error(`more than ${MAX_PAGES} pages of packages in ${this.location}`);
      const answer: RevalidatedResponse = await this.get(url, { action: `list the versions of package ${packageName}`, listing: true });
      const data = parseJsonBody(answer.body);
      if (!Array.isArray(data))
        throw this.client.error(`GET ${redactUrl(url)} did not answer a list of packages`, { hint: 'check the GitLab host in the URL' });
      for (const entry of data as ApiPackage[]) {
        const problem = packageShapeProblem(entry, entries++);
        if (problem !== undefined) skipped.skip(problem);
        // package_name matches by substring; only the exact, usable package counts.
        const usable =
          problem === undefined &&
          entry.name === packageName &&
          (entry.package_type ?? 'generic') === 'generic' &&
          (entry.status ?? 'default') === 'default';
        if (usable && !versions.includes(entry.version)) versions.push(entry.version);
      }
      url = this.client.nextPage(answer.headers.link, url, this.parts.origin, `GitLab's package list of ${this.location}`);
    }
    this.tellSkipped(skipped, versions.length, entries, first);
    return versions;
  }

  /** Entries skipped for their shape: a warning, or the error when no version is left. */
  private tellSkipped(skipped: SkippedEntries, versions: number, entries: number, url: string): void {
    const listing = `GitLab's list of package ${this.parts.packageName} in project ${this.parts.projectSlug} (GET ${redactUrl(url)})`;
    if (versions === 0 && skipped.count > 0) {
      throw this.client.error(skipped.noneUsable(listing, entries), {
        expected: PACKAGE_LIST_SHAPE,
        hint: `check that ${this.parts.origin} is a GitLab whose packages API (${this.projectUrl}/packages) answers, and any proxy between you and it`,
      });
    }
    const warning = skipped.warning(listing);
    if (warning !== undefined) this.options.warn?.(warning);
  }

  /** clusterctl GetFile: `<project>/packages/generic/<package>/<version>/<file>`. */
  fileUrl(version: string, fileName: string): string {
    return `${this.projectUrl}/packages/generic/${this.parts.packageName}/${encodeURIComponent(version)}/${fileName}`;
  }

  async getFile(version: string, fileName: string): Promise<Artifact> {
    if (version === 'latest') {
      throw this.client.error(`cannot fetch ${fileName}: version "latest" of ${this.location} has not been resolved to a version`, {
        hint: 'resolve the version with listVersions() first, as clusterctl does',
      });
    }
    const url = this.fileUrl(version, fileName);
    // the log names the file fetched, not the URL the provider was configured with
    this.options.onProgress?.({ type: 'fetch', source: redactUrl(url), version, file: fileName });
    const answer = await this.get(url, {
      action: `get file ${fileName} with version ${version}`,
      version,
      notFound: (status) =>
        new ArtifactNotFoundError(
          this.client.diagnostic(`file ${fileName} with version ${version} not found: GET ${redactUrl(url)} answered ${status}`, {
            expected: `a generic package ${decodeURIComponent(this.parts.packageName)} version ${version} holding ${fileName}`,
            // GitLab hides a private project from a request without a token behind a 404, not a 401
            hint: this.token
              ? 'check spec.version and the package URL'
              : `check spec.version and the package URL; a private project answers 404 to a request without a token: ${this.tokenHint()}`,
          }),
        ),
    });
    this.options.onProgress?.({
      type: 'done',
      source: redactUrl(url),
      version,
      file: fileName,
      bytes: answer.body.length,
      cached: answer.cached,
    });
    return artifactFromBytes(fileName, answer.body, url, redactUrl(url));
  }

  /** How to have a token sent to this host, for a request that went without one. */
  private tokenHint(): string {
    return this.withheld
      ? `${this.withheld}; if you trust ${new URL(this.parts.origin).host}, add it to ${GITLAB_HOSTS_VARIABLE}, or set ${GITLAB_TOKEN_VARIABLE} in the provider's configSecret`
      : `set ${GITLAB_TOKEN_VARIABLE} in the provider's configSecret, or GITLAB_ACCESS_TOKEN (or GITLAB_TOKEN) in the environment${this.hostsListNeeded()}`;
  }

  /** An environment token goes to a host other than gitlab.com only when the runner lists it. */
  private hostsListNeeded(): string {
    const host = new URL(this.parts.origin).host;
    return host === PUBLIC_GITLAB_HOST ? '' : ` with ${host} in ${GITLAB_HOSTS_VARIABLE}`;
  }

  private async get(
    url: string,
    context: { action: string; version?: string; listing?: boolean; notFound?: (status: number) => CapiGitopsError },
  ): Promise<RevalidatedResponse> {
    const headers: Record<string, string> = this.token ? { authorization: `Bearer ${this.token}` } : {};
    let answer: RevalidatedResponse;
    try {
      const what = `GET ${redactUrl(url)}${context.version ? ` (version ${context.version})` : ''}`;
      answer = await this.client.revalidatedGet(url, what, this.client.sendGet(url, headers, this.parts.origin), ['link']);
    } catch (error) {
      throw this.client.failure(error, `${context.action} from ${this.location}`);
    }
    if (answer.status === 200) return answer;
    if ((answer.status === 404 || answer.status === 410) && context.notFound) throw context.notFound(answer.status);
    if (answer.status === 401) {
      throw this.client.error(
        `cannot ${context.action} from ${this.location}: unauthorized access, please check your credentials (HTTP 401)`,
        {
          hint: this.token
            ? 'GitLab rejected the token: it may be expired, revoked or lack the read_package_registry scope'
            : this.tokenHint(),
        },
      );
    }
    const listingHint = context.listing
      ? 'listing versions for a "latest" URL uses the packages API, which needs a token with read_api scope; or put an exact version in the URL or spec.version'
      : undefined;
    throw this.client.error(`cannot ${context.action} from ${this.location}: GET ${redactUrl(url)} answered HTTP ${answer.status}`, {
      hint: listingHint,
    });
  }
}
