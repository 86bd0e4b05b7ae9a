/**
 * The digest a registry serves for each container image, through the OCI distribution API with
 * the OCI source's registry client (auth challenges, token flows, anonymous pulls):
 *
 * - `HEAD /v2/<name>/manifests/<tag>` accepting the OCI index and manifest and the Docker manifest
 *   list and v2 manifest, so a multi-architecture image answers with its index's digest (what
 *   every node architecture pulls through); the digest is `Docker-Content-Digest`. A registry
 *   that does not send it is asked with GET, and the body's sha256 is the digest (checked against
 *   the header when the GET has one).
 * - an image that already names a digest is checked: the registry must serve that digest;
 * - a registry on a loopback address is spoken to over plain HTTP, as Docker treats it; any other
 *   over HTTPS. Docker Hub (`docker.io`) is reached at registry-1.docker.io.
 * - credentials: the Docker config file's `auths` entry for the registry, else the OCI_*
 *   variables of the environment (`ociCredentials`). Credential helpers are not run; a config
 *   that names one for a registry this run asks is warned about.
 *
 * Every problem is reported together: an unreachable registry once, naming its images; a tag or
 * digest the registry does not have at the object and container that use it.
 */
import { CapiGitopsError, compareStrings, type Diagnostic } from '../../core/diagnostics.js';
import { DOCKER_HUB, parseImage } from '../../core/image-reference.js';
import { sha256Hex } from '../../core/digest.js';
import { isPlainObject } from '../../core/kobject.js';
import { parseJsonBody, SourceClient } from '../base/client.js';
import { HttpError, isLoopbackHost, redactUrl, type HttpResponse } from '../base/http.js';
import { networkFailureHint } from '../base/unreachable.js';
import type { NetworkSourceOptions } from '../request.js';
import { ociCredentials, OCI_CREDENTIAL_KEYS, type OciCredentials } from './auth.js';
import { OCI_REGISTRIES_VARIABLE } from '../credentials.js';
import { RegistryClient, type CredentialHints } from './client.js';
import { readDockerConfig, type DockerConfig } from './docker-config.js';
import { SHA256_DIGEST } from './reference.js';
import { imageCopyCommands } from './image-copy.js';

/** What a registry may answer for an image: the OCI and Docker manifest and index types. */
const IMAGE_MANIFEST_TYPES = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.docker.distribution.manifest.v2+json',
];
const ACCEPT = IMAGE_MANIFEST_TYPES.join(', ');
/**
 * The largest manifest read: oras-go's defaultMaxMetadataBytes (registry/remote/repository.go) and
 * distribution's maxManifestBodySize (registry/handlers/manifests.go), 4 MiB. A real image's
 * manifest or index is a few KB; the run's 64 MiB download cap is for artifacts.
 */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
/** The API root's answer is `{}` or an error: 1 MiB is room for any proxy's page. */
const MAX_API_ROOT_BYTES = 1024 * 1024;
const DOCKER_HUB_API = 'registry-1.docker.io';
const DOCKER_CONFIG_FILE = 'the Docker config file ($DOCKER_CONFIG/config.json, else ~/.docker/config.json)';

/** Image pulls have no configSecret: the Docker config file, or OCI_* for a registry the runner lists. */
function imageCredentialHints(registry: string, host: string, repository: string): CredentialHints {
  const { username, password, refreshToken } = OCI_CREDENTIAL_KEYS;
  const login = `run \`docker login ${registry}\` (with no credsStore it writes an auths entry to ${DOCKER_CONFIG_FILE}), or set ${username} and ${password} and ${OCI_REGISTRIES_VARIABLE}=${host}`;
  const check = `check the auths entry for ${registry} in ${DOCKER_CONFIG_FILE} (or ${username}/${password}) and its pull access to ${repository}`;
  return {
    set: login,
    check,
    elsewhere: `run \`docker login ${registry}\` to write an auths entry to ${DOCKER_CONFIG_FILE}`,
    // the token service's own words name only OCI_* and the provider's configSecret, which image pulls do not read
    tokenRefused: {
      credentials: check,
      anonymous: login,
      refreshToken: `run \`docker login ${registry}\` again: the identitytoken of its auths entry in ${DOCKER_CONFIG_FILE} (or ${refreshToken}) was refused, and refresh tokens expire`,
    },
  };
}

/** Where an image is used, for messages: `container manager of Deployment capi-system/x in core-components.yaml (cluster-api v1.12.0)`. */
export interface ImageUse {
  where: string;
  /** The object and field, so the diagnostic points at them. */
  object?: string;
  path?: string;
  /** The image as the components wrote it, when an image override (a mirror) rewrote it; read only for a hint. */
  source?: () => string | undefined;
  /** Where the manifest chose the image: the Config images key that rewrote it, else the provider object. */
  file?: string;
  line?: number;
  column?: number;
}

export interface ImageDigestRequest {
  /** The reference as rendered: `[registry/]path[:tag][@digest]`. */
  image: string;
  uses: readonly ImageUse[];
}

export interface ImageDigestOptions extends NetworkSourceOptions {
  /** Where DOCKER_CONFIG, HOME and the OCI_* variables are read; process.env by default. */
  env?: Record<string, string | undefined>;
  /** Told that the Docker config names a credential helper for a registry asked. */
  onWarning?: (warning: Diagnostic) => void;
  /** Why the digests are asked, for messages: to pin images (the default), or to check locked ones (`plan`). */
  purpose?: 'pin' | 'check';
}

/** A problem, and the requested images it leaves without a digest. */
export interface ImageDigestProblem {
  images: string[];
  diagnostic: Diagnostic;
}

/** An image's place in the distribution API. */
interface ImageLocation {
  request: ImageDigestRequest;
  /** The registry as the image names it (`docker.io` for Docker Hub). */
  registry: string;
  repository: string;
  /** The tag (`latest` when none is written), or the digest the image names. */
  reference: string;
  digest?: string;
}

/** `host[:port]` the API is reached at. */
function apiHost(registry: string): string {
  return registry === DOCKER_HUB ? DOCKER_HUB_API : registry;
}

function plainHttp(host: string): boolean {
  return isLoopbackHost(host.replace(/:\d+$/, ''));
}

function useDiagnostic(request: ImageDigestRequest, message: string, extra: Omit<Diagnostic, 'message'> = {}): Diagnostic {
  const first = request.uses[0];
  const where = request.uses.map((use) => use.where).join('; ');
  return {
    ...(first?.file ? { file: first.file, line: first.line, column: first.column } : {}),
    ...(first?.object ? { object: first.object } : {}),
    ...(first?.path ? { path: first.path } : {}),
    message: `image ${request.image} (${where}): ${message}`,
    ...extra,
  };
}

/** The digests the registries answered, keyed by the image as requested, and a problem for each image they did not. */
export interface ImageDigestAnswer {
  digests: Map<string, string>;
  problems: ImageDigestProblem[];
}

/**
 * Asks each registry for the digests of its images; a registry down answers for none of them.
 * Throws only under `offline`: the caller decides what a problem means (a render and
 * `update --images` fail on it; `plan` lists what it could not check). Makes one request to each
 * registry's API root, then one HEAD per image.
 */
export async function askImageDigests(requests: readonly ImageDigestRequest[], options: ImageDigestOptions): Promise<ImageDigestAnswer> {
  const problems: ImageDigestProblem[] = [];
  const byRegistry = new Map<string, ImageLocation[]>();
  for (const request of requests) {
    const parsed = parseImage(request.image);
    if (!parsed.ok) {
      problems.push({
        images: [request.image],
        diagnostic: useDiagnostic(request, `cannot parse the reference: ${parsed.message}`, {
          hint: 'fix the image in the components or the image overrides',
        }),
      });
      continue;
    }
    const { domain, path, tag, digest } = parsed.reference;
    const location: ImageLocation = {
      request,
      registry: domain,
      repository: path,
      reference: digest || tag || 'latest',
      digest: digest || undefined,
    };
    byRegistry.set(domain, [...(byRegistry.get(domain) ?? []), location]);
  }
  const digests = new Map<string, string>();
  if (byRegistry.size === 0) return { digests, problems };
  if (options.offline)
    throw new CapiGitopsError({
      message: 'offline: image digests cannot be asked of a registry',
      hint: 'run once online to record them in the lockfile',
    });
  const env = options.env ?? process.env;
  const docker = await readDockerConfig(env);
  if (docker.warning) options.onWarning?.(docker.warning);
  const http = new SourceClient(options);
  await Promise.all(
    [...byRegistry]
      .sort(([a], [b]) => compareStrings(a, b))
      .map(([registry, locations]) => resolveRegistry(registry, locations, { http, docker, env, options, problems, digests })),
  );
  return { digests, problems };
}

interface RegistryRun {
  http: SourceClient;
  docker: DockerConfig;
  env: Record<string, string | undefined>;
  options: ImageDigestOptions;
  problems: ImageDigestProblem[];
  digests: Map<string, string>;
}

async function resolveRegistry(registry: string, locations: ImageLocation[], run: RegistryRun): Promise<void> {
  const host = apiHost(registry);
  const base = `${plainHttp(host) ? 'http' : 'https'}://${host}`;
  const images = locations.map((l) => l.request.image).sort(compareStrings);
  const unanswered = await apiRootProblem(run, registry, base, locations, images);
  if (unanswered) {
    run.problems.push({ images, diagnostic: unanswered });
    return;
  }
  let dockerCredentials: OciCredentials | undefined;
  try {
    dockerCredentials = run.docker.credentials(registry);
  } catch (error) {
    if (!(error instanceof CapiGitopsError)) throw error;
    for (const diagnostic of error.diagnostics) run.problems.push({ images, diagnostic });
    return;
  }
  const helper = dockerCredentials ? undefined : run.docker.helperFor(registry);
  if (helper)
    run.options.onWarning?.({
      file: run.docker.file,
      message: `the Docker config file names the credential helper docker-credential-${helper} for ${registry}; capi-gitops does not run credential helpers, so it asks ${registry} without those credentials`,
      hint: `if ${registry} needs them, add an auths entry for it (docker login with no credsStore writes one) or set ${OCI_CREDENTIAL_KEYS.username} and ${OCI_CREDENTIAL_KEYS.password} and ${OCI_REGISTRIES_VARIABLE}=${host}`,
    });
  // the environment's OCI_* go only to registries the runner named (CAPI_GITOPS_OCI_REGISTRIES)
  const fromEnv = dockerCredentials ? {} : ociCredentials(undefined, run.env, new URL(`${plainHttp(host) ? 'http' : 'https'}://${host}`));
  const credentials = dockerCredentials ?? fromEnv.credentials;
  const byRepository = new Map<string, ImageLocation[]>();
  for (const location of locations) byRepository.set(location.repository, [...(byRepository.get(location.repository) ?? []), location]);
  await Promise.all(
    [...byRepository].map(async ([repository, inRepository]) => {
      // one client per repository: a token's scope is one repository
      const client = new RegistryClient(
        { registry: host, repository, plainHttp: plainHttp(host) },
        credentials,
        fromEnv.withheld,
        run.http,
        run.options.log,
        imageCredentialHints(registry, host, repository),
      );
      for (const location of inRepository) {
        try {
          run.digests.set(location.request.image, await digestOf(client, base, location));
        } catch (error) {
          if (!(error instanceof CapiGitopsError)) throw error;
          for (const { message, ...extra } of error.diagnostics)
            run.problems.push({ images: [location.request.image], diagnostic: useDiagnostic(location.request, message, extra) });
        }
      }
    }),
  );
}

/**
 * Whether the registry is there at all: its API root answers 200, or 401 asking for credentials
 * (the OCI distribution spec's end-1: a 200 says it implements the API). A host that cannot be
 * reached, or that answers 404 (a web server, another service on the port), is one problem for
 * all its images, told where the manifest chose the registry (the Config images key of a mirror).
 */
async function apiRootProblem(
  run: RegistryRun,
  registry: string,
  base: string,
  locations: readonly ImageLocation[],
  images: readonly string[],
): Promise<Diagnostic | undefined> {
  const chosen = locations.map((l) => l.request.uses[0]).find((use) => use?.file);
  const at = chosen ? { file: chosen.file, line: chosen.line, column: chosen.column } : {};
  const what = images.length === 1 ? 'image' : `${images.length} images`;
  const url = `${base}/v2/`;
  try {
    const root = await run.http.send({ url, headers: {}, maxBytes: MAX_API_ROOT_BYTES }, false);
    if (root.status !== 404) return undefined;
    return {
      ...at,
      message:
        `${registry} is not a container registry: GET ${redactUrl(url)} answered 404 (a registry answers 200, or 401 asking for credentials), ` +
        `so the ${what} ${images.join(', ')} cannot be ${run.options.purpose === 'check' ? 'checked' : 'pinned'}`,
      hint: 'check the registry host and port in the image overrides (Config images), or in the components',
    };
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    const network = networkFailureHint(error.failure)?.split(';')[0] ?? 'check the registry address';
    if (error.failure === 'too-large')
      return {
        ...at,
        message: `registry ${registry} answered too much to ${run.options.purpose === 'check' ? 'check the locked' : 'pin'} ${what} ${images.join(', ')}: ${error.message}`,
        hint: 'check the registry host and port in the image overrides (Config images): a registry answers GET /v2/ with a few bytes',
      };
    if (run.options.purpose === 'check')
      return {
        ...at,
        message: `cannot reach registry ${registry} to check the locked ${what} ${images.join(', ')}: ${error.message}`,
        hint: `${network}; whether ${images.length === 1 ? 'its tag' : 'their tags'} moved is not known until it answers`,
      };
    return {
      ...at,
      message: `cannot reach registry ${registry} to pin ${what} ${images.join(', ')}: ${error.message}`,
      // not the sources' hint: a registry has no local copy, and --offline pins only from the lockfile
      hint: `${network}; check the image overrides (Config images); --offline renders from the lockfile once it pins every image`,
    };
  }
}

/** The digest the registry serves for one image; throws a CapiGitopsError whose message is about the image. */
async function digestOf(client: RegistryClient, base: string, location: ImageLocation): Promise<string> {
  const url = `${base}/v2/${location.repository}/manifests/${location.reference}`;
  const named = `${location.registry}/${location.repository}`;
  const head = await client.head(url, { accept: ACCEPT });
  // a HEAD refused (405 from a proxy, …) is asked again with GET, as crane digest does; a missing
  // tag, a registry failing (5xx, already retried) or rate limiting is not (Docker Hub counts a GET as a pull)
  const refusedHead = head.status !== 200 && head.status !== 404 && head.status !== 429 && (head.status < 500 || head.status === 501);
  if (!refusedHead) check(head, 'HEAD', url, named, location);
  const announced = (!refusedHead && head.headers.get('docker-content-digest')) || '';
  let digest = SHA256_DIGEST.test(announced) ? announced : undefined;
  if (digest === undefined) {
    // No usable Docker-Content-Digest (or no HEAD): the manifest's own bytes say it.
    const got = await client.get(url, { accept: ACCEPT }, MAX_MANIFEST_BYTES);
    check(got, 'GET', url, named, location);
    digest = `sha256:${sha256Hex(got.body)}`;
    const header = got.headers.get('docker-content-digest');
    if (header && header !== digest)
      throw new CapiGitopsError({
        message: `the manifest ${named} serves for ${location.reference} does not match its digest`,
        expected: `${header} (Docker-Content-Digest)`,
        hint: `received bytes have ${digest}; the registry or something in between altered it — do not use it`,
      });
    checkManifestBody(got.body, named, location);
  }
  if (location.digest !== undefined && digest !== location.digest)
    throw new CapiGitopsError({
      message: `${named} answered ${digest} for the digest ${location.digest}`,
      hint: 'the registry or something in between is not serving content by its digest; do not use it',
    });
  return digest;
}

/**
 * What fills a mirror that lacks an image: the copy of the image the components wrote into it,
 * every architecture, as a command to run (skopeo or crane; skopeo is told a plain-HTTP mirror,
 * crane knows a loopback one). Without the image the components wrote, the tag and the overrides.
 */
function missingImageHint(location: ImageLocation): string {
  const source = location.request.uses.map((use) => use.source?.()).find((written) => written !== undefined);
  const check = 'check the tag and the image overrides (Config images)';
  if (source === undefined)
    return `${check}: a mirror must hold every image the components run, all architectures (e.g. \`skopeo copy --all\` or \`crane copy\`)`;
  // a digest is pushed under the image's tag
  const tag = parseImage(location.request.image);
  const destination = `${location.registry}/${location.repository}${tag.ok && tag.reference.tag ? `:${tag.reference.tag}` : ''}`;
  return `copy ${source} into the mirror, all architectures: ${imageCopyCommands(source, destination)}; else ${check}`;
}

/** A 200 with a manifest type, or the error for the status. */
function check(response: HttpResponse, method: string, url: string, named: string, location: ImageLocation): void {
  if (response.status === 404) {
    const what = location.digest ? `digest ${location.digest}` : `tag ${location.reference}`;
    throw new CapiGitopsError({
      message: `${what} not found in ${named} (${method} ${redactUrl(url)} answered 404)`,
      expected: `${named} holding ${what}`,
      hint: missingImageHint(location),
    });
  }
  if (response.status !== 200)
    throw new CapiGitopsError({
      message: `cannot read the manifest of ${named}:${location.reference}: ${method} ${redactUrl(url)} answered HTTP ${response.status}`,
      hint: response.status === 403 ? `the credentials lack pull access to ${named}` : undefined,
    });
  const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (type && !IMAGE_MANIFEST_TYPES.includes(type))
    throw new CapiGitopsError({
      message: `${named}:${location.reference} is served as ${type}, which is not an image manifest or index`,
      expected: `one of ${IMAGE_MANIFEST_TYPES.join(', ')}`,
      hint: 'push the image again with a current client (schema 1 manifests have no stable digest)',
    });
}

/**
 * The bytes a digest is taken of must be an image manifest or index (schema 2): the sha256 of
 * anything else pins what no node can pull.
 */
function checkManifestBody(body: Buffer, named: string, location: ImageLocation): void {
  const document = parseJsonBody(body);
  if (!isPlainObject(document))
    throw new CapiGitopsError({
      message: `the manifest ${named} serves for ${location.reference} is not JSON`,
      expected: 'an image manifest or index (JSON)',
      hint: 'check the registry address and the image overrides (Config images): a proxy or a web server may be answering in its place',
    });
  if (document.schemaVersion !== 2)
    throw new CapiGitopsError({
      message: `the manifest ${named} serves for ${location.reference} has schemaVersion ${JSON.stringify(document.schemaVersion ?? null)}, not 2`,
      expected: 'an image manifest or index of schema 2',
      hint: 'push the image again with a current client (schema 1 manifests have no stable digest)',
    });
}
