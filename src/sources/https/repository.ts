/**
 * Plain HTTPS artifact servers (Artifactory, Nexus, an nginx directory, a Bitbucket raw link):
 * the servers clusterctl and the cluster-api-operator reject because they are neither GitHub
 * nor GitLab (cluster-api-operator issues #394 and #488).
 *
 * ---- README: plain HTTPS sources ---------------------------------------------------------------
 * A provider URL that is not a GitHub release or GitLab package URL is a URL template with
 * `{version}` where the release tag goes, in the path or the query:
 *
 *     https://artifacts.internal/capi/{version}/core-components.yaml
 *     https://bitbucket.internal/projects/P/repos/capi/raw/core-components.yaml?at={version}
 *
 * The components file is the last path segment (it may contain `{version}` too). metadata.yaml
 * is fetched from the same directory with the same query: the last path segment replaced by
 * `metadata.yaml`, e.g. https://artifacts.internal/capi/v1.12.0/metadata.yaml.
 *
 * A plain server cannot list its releases, so an exact `spec.version` needs nothing more; an
 * empty version (latest) or a range needs the versions from the Config document's
 * `repositories` entry of the provider, exactly one of:
 *
 *     repositories:
 *     - name: cluster-api
 *       type: CoreProvider
 *       url: https://artifacts.internal/capi/{version}/core-components.yaml
 *       versions: [v1.11.3, v1.12.0]                       # an explicit list, or
 *       versionsUrl: https://artifacts.internal/capi/versions.txt
 *
 * `versionsUrl` answers one tag per line (blank lines and `#` comments ignored) or a JSON array
 * of strings. Tags that are not semantic versions are ignored, as clusterctl ignores them.
 * `http://` is refused except for 127.0.0.1/localhost/::1, unless `allowInsecure: true` is set
 * on the entry. Credentials never go in the URL: an Authorization header value is given
 * separately and is only ever sent to the template's own scheme, host and port.
 * ------------------------------------------------------------------------------------------------
 */
import { CapiGitopsError } from '../../core/diagnostics.js';
import { artifactFromBytes } from '../base/artifact.js';
import { SourceClient, type RevalidatedResponse } from '../base/client.js';
import { isLoopbackHost, redactUrl } from '../base/http.js';
import type { HttpsTemplateSettings, NetworkSourceOptions } from '../request.js';
import { ArtifactNotFoundError, METADATA_FILE, type Artifact, type ProviderRepository } from '../source.js';

// ---- the plain HTTPS repository --------------------------------------------------------------

const VERSION_PLACEHOLDER = '{version}';
/** A release tag that is safe in a path segment and a query value. */
const VERSION_TAG = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;
const TEMPLATE_FORM =
  'https://<host>/<path with {version}>/<components file>, e.g. https://artifacts.internal/capi/{version}/core-components.yaml';

export interface HttpsOptions extends NetworkSourceOptions, HttpsTemplateSettings {
  /** An Authorization header value for the template's origin, e.g. `Bearer …`. Never logged or put in a message. */
  authorization?: string;
}

/** A URL template split where file names are substituted. */
interface HttpsTemplate {
  /** Everything up to and including the last `/` of the path. */
  directory: string;
  /** The last path segment, possibly containing `{version}`. */
  componentsFile: string;
  /** `?query#fragment` as written, possibly containing `{version}`; empty when none. */
  suffix: string;
  /** `scheme://host:port`, where an Authorization header may be sent. */
  origin: string;
}

const VERSIONS_URL_FORM = 'an https:// URL answering one tag per line or a JSON array of tags';

function templateError(template: string, message: string, hint?: string, expected: string = TEMPLATE_FORM): CapiGitopsError {
  return new CapiGitopsError({ message: `${message}: ${JSON.stringify(template)}`, expected, hint });
}

function schemeOf(url: string): string | undefined {
  return /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1].toLowerCase();
}

/** Checks an http(s) URL (a template with `{version}` replaced, or the versions URL) and returns it parsed. */
function checkedHttpUrl(url: string, what: string, allowInsecure: boolean, shown: string, expected: string = TEMPLATE_FORM): URL {
  const parsed = URL.parse(url);
  if (!parsed) throw templateError(shown, `${what} is not a valid URL`, undefined, expected);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw templateError(shown, `${what} must be an https:// URL`, undefined, expected);
  if (parsed.username || parsed.password) {
    throw templateError(
      shown,
      `${what} must not carry credentials`,
      'remove user:password@ from the URL and give the credentials as an Authorization header value',
      expected,
    );
  }
  if (parsed.protocol === 'http:' && !allowInsecure && !isLoopbackHost(parsed.hostname)) {
    throw templateError(
      shown,
      `${what} uses plain http:// to a host other than 127.0.0.1/localhost`,
      'use https://, or set allowInsecure: true on the repository if the network is trusted',
      expected,
    );
  }
  return parsed;
}

/**
 * Splits a URL template. Null when it is neither an http(s) URL nor has `{version}` (another
 * source's); an error when it is one but not the other, or `{version}` is in the host.
 */
export function parseHttpsTemplate(template: string, allowInsecure = false): HttpsTemplate | null {
  const scheme = schemeOf(template);
  const isHttp = scheme === 'http' || scheme === 'https';
  const hasVersion = template.includes(VERSION_PLACEHOLDER);
  if (!isHttp && !hasVersion) return null;
  if (!isHttp) throw templateError(template, 'a URL template with {version} must be an http(s):// URL');
  if (!hasVersion) {
    // a GitHub Enterprise release URL is a GitHub one only once its API is named
    const enterprise = URL.parse(template);
    const githubForm = enterprise !== null && /^\/[^/]+\/[^/]+\/releases\/[^/]+\/./.test(enterprise.pathname);
    throw templateError(
      template,
      'this https URL is neither a GitHub release URL, a GitLab package URL nor a template with {version}',
      githubForm
        ? `a GitHub Enterprise release URL: run with --github-api-url https://${enterprise.host}/api/v3 (or set Config github.apiUrl)`
        : 'for an internal artifact server write {version} where the release tag goes; GitHub URLs look like https://github.com/<owner>/<repo>/releases/<tag|latest>/<file>; GitLab ones like https://gitlab.<host>/api/v4/projects/<project>/packages/generic/<package>/<tag>/<file>',
    );
  }
  const marker = 'v0.0.0-capi-gitops-version';
  const sample = checkedHttpUrl(template.replaceAll(VERSION_PLACEHOLDER, marker), 'the URL template', allowInsecure, template);
  if (sample.host.includes(marker.toLowerCase())) throw templateError(template, '{version} must be in the path or the query, not the host');

  const suffixStart = template.slice(scheme!.length + 3).search(/[?#]/);
  const base = suffixStart < 0 ? template : template.slice(0, scheme!.length + 3 + suffixStart);
  const suffix = template.slice(base.length);
  const slash = base.lastIndexOf('/');
  const componentsFile = base.slice(slash + 1);
  if (slash < scheme!.length + 3 || componentsFile === '')
    throw templateError(template, 'the URL template must end with the components file name');
  return { directory: base.slice(0, slash + 1), componentsFile, suffix, origin: sample.origin };
}

/** An HTML document where YAML (or a versions list) was asked for: `<!DOCTYPE html` or `<html` first. */
function looksLikeHtml(body: Buffer): boolean {
  return /^\s*<(!doctype\s+html|html[\s>])/i.test(
    body
      .subarray(0, 512)
      .toString('utf8')
      .replace(/^\uFEFF/, ''),
  );
}

/**
 * A bad entry of a versions file, short: never stringified whole, as a JSON array nested a
 * million deep overflows the stack of JSON.stringify.
 */
function describeEntry(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
  if (Array.isArray(value)) return 'an array';
  if (value !== null && typeof value === 'object') return 'an object';
  return String(value);
}

/** How many bad entries of a versions file an error names; the rest are counted. */
const SHOWN_PROBLEMS = 5;

/** The versions in a versions file: a JSON array of strings, else one tag per line (blank lines and `#` comments skipped). */
export function parseVersionsList(text: string, source: string): string[] {
  const trimmed = text.trim();
  const problems: string[] = [];
  let entries: { value: unknown; where: string }[];
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new CapiGitopsError({
        message: `${source} starts with "[" but is not valid JSON: ${(error as Error).message}`,
        expected: 'a JSON array of version tags, or one tag per line',
      });
    }
    if (!Array.isArray(parsed))
      throw new CapiGitopsError({
        message: `${source} is not a JSON array`,
        expected: 'a JSON array of version tags, or one tag per line',
      });
    entries = parsed.map((value, index) => ({ value, where: `item ${index}` }));
  } else {
    entries = text
      .split(/\r?\n/)
      .map((line, index) => ({ value: line.trim(), where: `line ${index + 1}` }))
      .filter((entry) => entry.value !== '' && !entry.value.startsWith('#'));
  }
  // a Set, not a list scanned per tag: a hostile listing of 600,000 tags took minutes
  const versions = new Set<string>();
  let bad = 0;
  for (const { value, where } of entries) {
    if (typeof value === 'string' && VERSION_TAG.test(value)) versions.add(value);
    else if (++bad <= SHOWN_PROBLEMS) problems.push(`${where}: ${describeEntry(value)}`);
  }
  if (bad > 0) {
    const more = bad > SHOWN_PROBLEMS ? ` and ${bad - SHOWN_PROBLEMS} more` : '';
    throw new CapiGitopsError({
      message: `${source} lists entries that are not version tags: ${problems.join('; ')}${more}`,
      expected: 'tags such as v1.12.0: letters, digits, ".", "_", "+" and "-"',
    });
  }
  return [...versions];
}

/**
 * A `ProviderRepository` for a plain HTTPS URL template. Null when the URL is neither http(s)
 * nor has `{version}`; throws when it is one but not the other (register this module after the
 * GitHub and GitLab ones, which claim their own https URLs). Creating it makes no request.
 */
export function openHttpsRepository(urlTemplate: string, options: HttpsOptions = {}): ProviderRepository | null {
  const template = parseHttpsTemplate(urlTemplate, options.allowInsecure);
  if (template === null) return null;
  if (options.versions !== undefined && options.versionsUrl !== undefined) {
    throw new CapiGitopsError({
      ...options.origin,
      message: `${urlTemplate}: give versions or versionsUrl, not both`,
      hint: 'versions is a fixed list; versionsUrl is fetched on each run',
    });
  }
  if (options.versionsUrl !== undefined)
    checkedHttpUrl(options.versionsUrl, 'versionsUrl', options.allowInsecure ?? false, options.versionsUrl, VERSIONS_URL_FORM);
  const versions =
    options.versions === undefined ? undefined : parseVersionsList(JSON.stringify(options.versions), `versions of ${urlTemplate}`);
  return new HttpsRepository(urlTemplate, template, versions, options);
}

class HttpsRepository implements ProviderRepository {
  readonly sourceType = 'https';
  /** A template names no version: an empty spec.version means the latest listed one. */
  readonly defaultVersion = 'latest';
  readonly componentsFile: string;
  private readonly client: SourceClient;

  constructor(
    readonly location: string,
    private readonly template: HttpsTemplate,
    /** The checked `versions` option. */
    private readonly versions: string[] | undefined,
    private readonly options: HttpsOptions,
  ) {
    this.componentsFile = template.componentsFile;
    this.client = new SourceClient(options);
  }

  async listVersions(): Promise<string[]> {
    if (this.versions !== undefined) return [...this.versions];
    const versionsUrl = this.options.versionsUrl;
    if (versionsUrl === undefined) {
      throw this.client.error(`cannot list the versions of ${this.location}: a plain HTTPS server has no release listing`, {
        expected: 'an exact spec.version, or versions / versionsUrl on the Config repositories entry for this provider',
        hint: 'set spec.version to a published tag (e.g. v1.12.0), or list the tags in the Config document',
      });
    }
    this.options.onProgress?.({ type: 'resolve', source: this.location });
    try {
      const { body } = await this.get(versionsUrl, {
        action: `list the versions of ${this.location}`,
        notFound: (status) =>
          this.client.error(`versionsUrl ${redactUrl(versionsUrl)} not found (HTTP ${status})`, { hint: 'check versionsUrl' }),
      });
      return parseVersionsList(body.toString('utf8'), `versionsUrl ${redactUrl(versionsUrl)}`);
    } catch (error) {
      const at = this.options.versionsUrlAt;
      if (!at || !(error instanceof CapiGitopsError)) throw error;
      throw new CapiGitopsError(error.diagnostics.map((d) => ({ ...d, file: at.file, line: at.line, column: at.column })));
    }
  }

  /** The URL of one file of one version: the template's last path segment replaced by `fileName`. */
  fileUrl(version: string, fileName: string): string {
    if (fileName === '' || /[/?#]/.test(fileName))
      throw this.client.error(`invalid file name ${JSON.stringify(fileName)}`, { expected: 'a file name without "/", "?" or "#"' });
    return `${this.template.directory}${fileName}${this.template.suffix}`.replaceAll(VERSION_PLACEHOLDER, encodeURIComponent(version));
  }

  async getFile(version: string, fileName: string): Promise<Artifact> {
    if (!VERSION_TAG.test(version) || version === 'latest') {
      throw this.client.error(`cannot fetch ${fileName}: "${version}" is not a release tag of ${this.location}`, {
        expected: 'a resolved tag such as v1.12.0',
        hint:
          version === 'latest' ? 'resolve the version with listVersions() first' : 'tags may hold letters, digits, ".", "_", "+" and "-"',
      });
    }
    const url = this.fileUrl(version, fileName);
    // the log names the file fetched, not the template
    this.options.onProgress?.({ type: 'fetch', source: redactUrl(url), version, file: fileName });
    const name = fileName.replaceAll(VERSION_PLACEHOLDER, version);
    const { body, cached } = await this.get(url, {
      action: `fetch ${name} of version ${version}`,
      version,
      notFound: (status) =>
        new ArtifactNotFoundError(
          this.client.diagnostic(`${name} of version ${version} not found: GET ${redactUrl(url)} answered ${status}`, {
            expected:
              fileName === METADATA_FILE ? `metadata.yaml next to the components file (${this.location})` : `a file at ${this.location}`,
            hint: 'check spec.version and the URL template',
          }),
        ),
    });
    this.options.onProgress?.({ type: 'done', source: redactUrl(url), version, file: fileName, bytes: body.length, cached });
    return artifactFromBytes(name, body, url, redactUrl(url));
  }

  private credentialsHint(url: string): string {
    const template = new URL(this.template.origin);
    const parsed = new URL(url);
    if (parsed.origin !== template.origin)
      return `note that an Authorization header goes only to ${template.host}, the template's host: serve this file from there`;
    if (this.options.authorization) return 'check the Authorization header value given for this repository';
    // credentials from the environment never go over plain http but to loopback (credentials.ts)
    if (parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname))
      return `set HTTPS_AUTHORIZATION in the provider's configSecret (CAPI_GITOPS_HTTPS_AUTHORIZATION from the environment is never sent over plain http to ${parsed.host}; serve the files over https to use it)`;
    return `set HTTPS_AUTHORIZATION in the provider's configSecret, or CAPI_GITOPS_HTTPS_AUTHORIZATION with CAPI_GITOPS_HTTPS_AUTHORIZATION_HOST=${parsed.host} in the environment`;
  }

  private async get(
    url: string,
    context: { action: string; version?: string; notFound: (status: number) => CapiGitopsError },
  ): Promise<RevalidatedResponse> {
    const headers: Record<string, string> = this.options.authorization ? { authorization: this.options.authorization } : {};
    let answer: RevalidatedResponse;
    try {
      const what = `GET ${redactUrl(url)}${context.version ? ` (version ${context.version})` : ''}`;
      const send = this.client.sendGet(url, headers, this.template.origin, { allowInsecure: this.options.allowInsecure });
      answer = await this.client.revalidatedGet(url, what, send);
    } catch (error) {
      throw this.client.failure(error, context.action);
    }
    if (answer.status === 200 && looksLikeHtml(answer.body)) {
      // a sign-in page (an artifact server behind SSO) or a proxy's error page, answered 200
      throw this.client.error(`cannot ${context.action}: GET ${redactUrl(url)} answered an HTML page, not the file`, {
        hint: `that is often a sign-in or error page: open the URL in a browser to see it; if the server wants credentials, ${this.credentialsHint(url)}; else check the URL`,
      });
    }
    if (answer.status === 200) return answer;
    if (answer.status === 404 || answer.status === 410) throw context.notFound(answer.status);
    if (answer.status === 401 || answer.status === 403) {
      throw this.client.error(`cannot ${context.action}: GET ${redactUrl(url)} answered HTTP ${answer.status}`, {
        hint: this.options.authorization
          ? 'the server rejected the Authorization header: check the credentials'
          : `the server wants credentials: ${this.credentialsHint(url)}`,
      });
    }
    throw this.client.error(`cannot ${context.action}: GET ${redactUrl(url)} answered HTTP ${answer.status}`);
  }
}
