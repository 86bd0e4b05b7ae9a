/**
 * Providers published as OCI artifacts (`spec.fetchConfig.oci`), read as the
 * cluster-api-operator reads them (internal/controller/oci_source.go, called from
 * manifests_downloader.go):
 *
 * - the reference is `[http://]registry[:port]/repository[:tag]` (parseOCISource); the tag
 *   defaults to the provider's version, and an `http://` prefix means plain HTTP;
 * - files are the layers (any node of the manifest graph) whose `org.opencontainers.image.title`
 *   annotation names them (mapStore); an empty one counts as absent;
 * - metadata is `<type>-<name>-<version>-metadata.yaml`, else `metadata.yaml` (GetMetadata);
 *   components are `<type>-<name>-<version>-components.yaml`, else `<type>-components.yaml`,
 *   else `components.yaml` (GetComponents), with the operator's type names (`core`,
 *   `control-plane`, `runtimeextension`, … — GetType in api/v1alpha2/*_wrapper.go) and the
 *   provider version (not the tag) in the names;
 * - credentials are OCI_USERNAME / OCI_PASSWORD / OCI_ACCESS_TOKEN / OCI_REFRESH_TOKEN
 *   (OCIAuthentication), used as oras-go's auth client uses them: a Basic challenge gets
 *   username and password; a Bearer challenge gets the access token as it is, else a token from
 *   the challenge's realm: with a refresh token by the OAuth2 POST, otherwise by GET with
 *   service and scope, Basic-authenticated when a username or password is given, anonymous
 *   otherwise.
 *
 * Split in four: `reference.ts` (parsing), `auth.ts` (credentials, challenges, token flows),
 * `client.ts` (one registry, auth answered) and this repository. The distribution API is spoken
 * through the shared client (`base/client.ts`): GET /v2/<name>/manifests/<ref> (OCI and
 * Docker media types), GET /v2/<name>/blobs/<digest> (each blob checked against its
 * descriptor's size and sha256), GET /v2/<name>/tags/list following `Link` for listVersions.
 *
 * Beyond the operator: `registry/repository@sha256:<hex>` pins a manifest by digest (the
 * operator's parser cannot read one); `latest` or a range lists the repository's tags; two
 * layers with the same title and different content are an error (the operator keeps whichever
 * it copied last, which is not deterministic).
 */
import { CapiGitopsError } from '../../core/diagnostics.js';
import {
  DEFAULT_COMPONENTS_FILE,
  OPERATOR_REPOSITORY_COMPONENTS_FILE,
  OPERATOR_PROVIDER_TYPE,
  type ProviderKind,
} from '../../core/provider.js';
import { artifactFromBytes } from '../base/artifact.js';
import { sha256Hex } from '../../core/digest.js';
import { onceUntilFailure, parseJsonBody, SourceClient, type RevalidatedResponse } from '../base/client.js';
import { redactUrl } from '../base/http.js';
import type { NetworkSourceOptions } from '../request.js';
import { ArtifactNotFoundError, METADATA_FILE, type Artifact, type ProviderRepository } from '../source.js';
import { ociCredentials } from './auth.js';
import { RegistryClient } from './client.js';
import { parseOciReference, SHA256_DIGEST, TAG, type OciReference } from './reference.js';

const TITLE_ANNOTATION = 'org.opencontainers.image.title';
const MANIFEST_TYPES = [
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
];
const ACCEPT_MANIFESTS = MANIFEST_TYPES.join(', ');
/** How deep an index of indexes is followed. */
const MAX_INDEX_DEPTH = 3;
/**
 * How many distinct manifests one artifact may reach (its own included): a multi-platform index
 * has a handful; an index fanning out to hundreds at each level is refused, not walked.
 */
export const MAX_ARTIFACT_MANIFESTS = 64;
const MAX_TAG_PAGES = 1000;

export interface OciOptions extends NetworkSourceOptions {
  providerType: ProviderKind;
  /** Provider name as in the file names, e.g. `kubeadm` (`cluster-api` for the core provider). */
  providerName: string;
  /** The provider's configSecret data; its OCI_* keys are the credentials (see `ociCredentials`). */
  credentials?: Record<string, string>;
  /** Environment the OCI_* variables are read from when the configSecret has none; process.env by default. */
  env?: Record<string, string | undefined>;
}

/** The file names the operator looks for, in order (oci_source.go GetMetadata / GetComponents). */
export function ociFileNames(kind: ProviderKind, name: string, version: string): { metadata: string[]; components: string[] } {
  const type = OPERATOR_PROVIDER_TYPE[kind];
  return {
    metadata: [`${type}-${name}-${version}-metadata.yaml`, METADATA_FILE],
    components: [`${type}-${name}-${version}-components.yaml`, `${type}-components.yaml`, OPERATOR_REPOSITORY_COMPONENTS_FILE],
  };
}

interface Descriptor {
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

function isDescriptor(value: unknown): value is Descriptor {
  const entry = value as Descriptor;
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof entry.digest === 'string' &&
    typeof entry.size === 'number' &&
    Number.isSafeInteger(entry.size) &&
    entry.size >= 0
  );
}

/** The titled nodes of an artifact, by title, and the digest of the manifest that was resolved. */
interface ResolvedArtifact {
  digest: string;
  files: Map<string, Descriptor>;
}

/**
 * A `ProviderRepository` for an OCI reference. Throws on a malformed reference; makes no request.
 * `defaultVersion` is the reference's tag, or `latest` when it has none.
 */
export function openOciRepository(ref: string, options: OciOptions): ProviderRepository {
  return new OciRepository(ref, parseOciReference(ref), options);
}

class OciRepository implements ProviderRepository {
  readonly sourceType = 'oci';
  readonly location: string;
  readonly defaultVersion: string;
  readonly componentsFile: string;
  private readonly client: RegistryClient;
  private readonly http: SourceClient;
  private readonly artifacts = new Map<string, Promise<ResolvedArtifact>>();

  constructor(
    written: string,
    private readonly ref: OciReference,
    private readonly options: OciOptions,
  ) {
    this.location = written.trim();
    this.defaultVersion = this.ref.tag ?? 'latest';
    this.componentsFile = DEFAULT_COMPONENTS_FILE[options.providerType];
    const registry = new URL(`${this.ref.plainHttp ? 'http' : 'https'}://${this.ref.registry}`);
    const { credentials, withheld } = ociCredentials(options.credentials, options.env ?? process.env, registry);
    if (withheld) options.log?.(`oci: ${withheld}`);
    this.http = new SourceClient(options);
    this.client = new RegistryClient(this.ref, credentials, withheld, this.http, options.log);
  }

  private get provider(): string {
    return `${this.options.providerType} ${this.options.providerName}`;
  }

  private get repositoryUrl(): string {
    return `${this.client.base}/v2/${this.ref.repository}`;
  }

  /** `registry/repository:reference`, as a user would write it. */
  private named(reference: string): string {
    return `${this.ref.registry}/${this.ref.repository}${reference.startsWith('sha256:') ? '@' : ':'}${reference}`;
  }

  /**
   * A pinned reference names one artifact, so it is the only version; otherwise the
   * repository's tags, following `Link` pages (the distribution spec's tag listing).
   */
  async listVersions(): Promise<string[]> {
    if (this.ref.tag !== undefined) return [this.ref.tag];
    if (this.ref.digest !== undefined) {
      throw this.http.error(`${this.location} pins one artifact by digest, so it has no versions to choose from`, {
        hint: 'set spec.version to the version that artifact holds',
      });
    }
    this.options.onProgress?.({ type: 'resolve', source: this.location });
    const tags: string[] = [];
    // No `n`: as oras, take the registry's page size and follow its Link headers.
    let url: string | undefined = `${this.repositoryUrl}/tags/list`;
    for (let page = 1; url; page++) {
      if (page > MAX_TAG_PAGES) throw this.http.error(`more than ${MAX_TAG_PAGES} pages of tags in ${this.location}`);
      const answer: RevalidatedResponse = await this.revalidated(url, 'application/json', ['link'], {
        what: `the tag list of ${this.ref.registry}/${this.ref.repository}`,
        notFound: () =>
          this.http.error(`repository ${this.ref.repository} not found on ${this.ref.registry} (GET ${redactUrl(url!)} answered 404)`, {
            hint: 'check spec.fetchConfig.oci',
          }),
      });
      const data = parseJsonBody(answer.body) as { tags?: unknown } | undefined;
      if (data === undefined || (data.tags !== null && data.tags !== undefined && !Array.isArray(data.tags))) {
        throw this.http.error(`GET ${redactUrl(url)} did not answer a tag list`);
      }
      for (const tag of data.tags ?? []) if (typeof tag === 'string' && !tags.includes(tag)) tags.push(tag);
      url = this.http.nextPage(
        answer.headers.link,
        url,
        new URL(this.client.base).origin,
        `${this.ref.registry}'s tag list of ${this.ref.repository}`,
      );
    }
    return tags;
  }

  /** The names tried for a file, in the operator's order; other names are looked up as written. */
  private candidates(version: string, fileName: string): string[] {
    const names = ociFileNames(this.options.providerType, this.options.providerName, version);
    if (fileName === METADATA_FILE) return names.metadata;
    const type = OPERATOR_PROVIDER_TYPE[this.options.providerType];
    if ([this.componentsFile, OPERATOR_REPOSITORY_COMPONENTS_FILE, `${type}-components.yaml`].includes(fileName)) return names.components;
    return [fileName];
  }

  async getFile(version: string, fileName: string): Promise<Artifact> {
    this.options.onProgress?.({ type: 'fetch', source: this.location, version, file: fileName });
    const reference = this.ref.digest ?? this.ref.tag ?? version;
    if (reference === 'latest' && this.ref.tag === undefined) {
      throw this.http.error(
        `cannot fetch ${fileName} for ${this.provider}: version "latest" has not been resolved to a tag of ${this.location}`,
        {
          hint: 'resolve the version with listVersions() first',
        },
      );
    }
    if (!TAG.test(reference) && !SHA256_DIGEST.test(reference)) {
      throw this.http.error(`${this.provider} version ${version} is not a valid OCI tag`, {
        expected: 'letters, digits, "_", "." and "-", at most 128 characters (a "+" is not allowed in tags)',
        hint: `put the tag in the reference (${this.location}:<tag>) if it differs from the version`,
      });
    }
    // The manifest graph, read once per repository object (a failure is not remembered).
    const artifact = await onceUntilFailure(this.artifacts, reference, () => this.readArtifact(reference, version));
    const names = this.candidates(version, fileName);
    // The operator treats an empty file as missing and tries the next name.
    const title = names.find((name) => (artifact.files.get(name)?.size ?? 0) > 0);
    if (title === undefined) {
      const present = [...artifact.files.keys()].sort();
      throw new ArtifactNotFoundError(
        this.http.diagnostic(
          `OCI artifact ${this.named(reference)} has no ${fileName === METADATA_FILE ? 'metadata' : names.length > 1 ? 'components' : fileName} for ${this.provider} version ${version}`,
          {
            expected: `a non-empty layer titled (${TITLE_ANNOTATION}) ${names.join(' or ')}`,
            hint: present.length
              ? `the artifact's titled layers: ${present.join(', ')}`
              : 'the artifact has no layer with a title annotation; push files with `oras push`, which titles them',
          },
        ),
      );
    }
    const { bytes, cached } = await this.blob(artifact.files.get(title)!, `${title} of ${this.named(reference)}`);
    this.options.onProgress?.({ type: 'done', source: this.location, version, file: fileName, bytes: bytes.length, cached });
    const url = `oci://${this.ref.registry}/${this.ref.repository}@${artifact.digest}#${title}`;
    return artifactFromBytes(fileName, bytes, url, `oci://${this.ref.registry}/${this.ref.repository}#${title}`);
  }

  private async readArtifact(reference: string, version: string): Promise<ResolvedArtifact> {
    const top = await this.manifest(reference, version);
    const files = new Map<string, Descriptor>();
    // Each manifest is visited once however many indexes list it, and at most
    // MAX_ARTIFACT_MANIFESTS of them: a graph read from the cache makes no request, so neither the
    // request deadlines nor the network's would bound it otherwise.
    const visited = new Set<string>([top.digest]);
    const deadline = this.options.http?.runDeadline;
    const visit = async (manifest: unknown, depth: number, from: string): Promise<void> => {
      const document = manifest as { manifests?: unknown; layers?: unknown; config?: unknown };
      if (Array.isArray(document.manifests)) {
        if (depth >= MAX_INDEX_DEPTH) throw this.http.error(`${from}: indexes nested deeper than ${MAX_INDEX_DEPTH}`);
        for (const child of document.manifests) {
          if (!isDescriptor(child) || !SHA256_DIGEST.test(child.digest))
            throw this.http.error(`${from}: an index entry is not a sha256 descriptor`);
          if (visited.has(child.digest)) continue;
          visited.add(child.digest);
          if (visited.size > MAX_ARTIFACT_MANIFESTS)
            throw this.http.error(`${this.named(reference)} reaches more than ${MAX_ARTIFACT_MANIFESTS} manifests through its indexes`, {
              expected: `an artifact of at most ${MAX_ARTIFACT_MANIFESTS} manifests (a provider's files, or a multi-platform index of them)`,
              hint: 'check spec.fetchConfig.oci: the index fans out further than a provider release does',
            });
          if (deadline !== undefined && deadline.remainingMs() === 0)
            throw this.http.error(`${deadline.describe()} was reached while reading the indexes of ${this.named(reference)}`, {
              hint: 'raise --network-deadline (or CAPI_GITOPS_NETWORK_DEADLINE), or check spec.fetchConfig.oci',
            });
          const { document: childDocument } = await this.manifest(child.digest, version);
          await visit(childDocument, depth + 1, this.named(child.digest));
        }
        return;
      }
      if (!Array.isArray(document.layers))
        throw this.http.error(`${from} is neither an image manifest nor an index`, { expected: `one of ${MANIFEST_TYPES.join(', ')}` });
      for (const node of [document.config, ...document.layers]) {
        if (!isDescriptor(node)) continue;
        const title = node.annotations?.[TITLE_ANNOTATION];
        if (typeof title !== 'string') continue;
        const seen = files.get(title);
        if (seen && seen.digest !== node.digest) {
          throw this.http.error(`${from}: two layers are titled ${title} with different content (${seen.digest}, ${node.digest})`, {
            hint: 'which one the operator would use depends on copy order; publish one file per title',
          });
        }
        files.set(title, node);
      }
    };
    await visit(top.document, 0, this.named(reference));
    return { digest: top.digest, files };
  }

  /** One manifest by tag (revalidated) or by digest (content-addressed), its digest checked. */
  private async manifest(reference: string, version: string): Promise<{ document: unknown; digest: string }> {
    const url = `${this.repositoryUrl}/manifests/${reference}`;
    const pinned = SHA256_DIGEST.exec(reference)?.[1];
    let body: Buffer;
    let announced: string | undefined;
    const cached = pinned && this.options.cache ? await this.options.cache.getBlob(pinned) : undefined;
    if (cached) {
      body = cached;
    } else {
      const answer = await this.revalidated(url, ACCEPT_MANIFESTS, ['docker-content-digest'], {
        what: `the manifest of ${this.named(reference)}`,
        version,
        notFound: (code) =>
          new ArtifactNotFoundError(
            this.http.diagnostic(
              `OCI artifact ${this.named(reference)} not found for ${this.provider} version ${version} (GET ${redactUrl(url)} answered 404${code ? ` ${code}` : ''})`,
              {
                expected:
                  this.ref.tag === undefined && this.ref.digest === undefined
                    ? `a tag ${version} (the tag defaults to the provider version)`
                    : `the artifact ${this.location}`,
                hint: 'check spec.version and spec.fetchConfig.oci',
              },
            ),
          ),
      });
      body = answer.body;
      announced = answer.headers['docker-content-digest'];
    }
    const digest = `sha256:${sha256Hex(body)}`;
    const expected = pinned ? `sha256:${pinned}` : SHA256_DIGEST.test(announced ?? '') ? announced : undefined;
    if (expected !== undefined && expected !== digest) {
      throw this.http.error(`the manifest of ${this.named(reference)} does not match its digest`, {
        expected: `${expected}${pinned ? '' : ' (Docker-Content-Digest)'}`,
        hint: `received bytes have ${digest}; the registry or something in between altered it — do not use it`,
      });
    }
    if (pinned && !cached && this.options.cache) await this.options.cache.putBlob(body);
    const document = parseJsonBody(body);
    if (typeof document !== 'object' || document === null) throw this.http.error(`the manifest of ${this.named(reference)} is not JSON`);
    return { document, digest };
  }

  /** A blob, from the cache when its digest is there, else downloaded and checked against its descriptor. */
  private async blob(descriptor: Descriptor, what: string): Promise<{ bytes: Buffer; cached: boolean }> {
    const hex = SHA256_DIGEST.exec(descriptor.digest)?.[1];
    if (hex === undefined) {
      throw this.http.error(`${what}: digest ${descriptor.digest} is not sha256`, { expected: 'sha256:<64 lower-case hex digits>' });
    }
    const cache = this.options.cache;
    const cached = cache ? await cache.getBlob(hex) : undefined;
    if (cached) return { bytes: cached, cached: true };
    if (this.http.offline) throw this.http.offlineMiss(what);

    const url = `${this.repositoryUrl}/blobs/${descriptor.digest}`;
    const response = await this.client.get(url, {});
    if (response.status === 404)
      throw this.http.error(`${what}: blob ${descriptor.digest} not found (GET ${redactUrl(url)} answered 404)`, {
        hint: 'the artifact is incomplete on the registry',
      });
    if (response.status !== 200)
      throw this.http.error(
        `cannot download ${what}: GET ${redactUrl(url)} answered HTTP ${response.status}${registryErrorCode(response.body)}`,
      );
    const actual = `sha256:${sha256Hex(response.body)}`;
    if (actual !== descriptor.digest || response.body.length !== descriptor.size) {
      throw this.http.error(`${what} does not match its digest`, {
        expected: `${descriptor.digest}, ${descriptor.size} bytes (from the manifest)`,
        hint: `received ${response.body.length} bytes with ${actual}; the download or the registry was tampered with or corrupted — do not use it`,
      });
    }
    if (cache) await cache.putBlob(response.body);
    return { bytes: response.body, cached: false };
  }

  /** A manifest or tag-list GET through the cache, with the registry's auth; 200 or an error. */
  private async revalidated(
    url: string,
    accept: string,
    keepHeaders: string[],
    context: { what: string; version?: string; notFound: (code: string) => CapiGitopsError },
  ): Promise<RevalidatedResponse> {
    const what = `${context.what}${context.version ? ` (${this.provider} version ${context.version})` : ''}`;
    const answer = await this.http.revalidatedGet(
      url,
      what,
      (conditional) => this.client.get(url, { accept, ...conditional }),
      keepHeaders,
    );
    if (answer.status === 200) return answer;
    if (answer.status === 404) throw context.notFound(registryErrorCode(answer.body).trim());
    throw this.http.error(
      `cannot read ${context.what}: GET ${redactUrl(url)} answered HTTP ${answer.status}${registryErrorCode(answer.body)}`,
      {
        hint: answer.status === 403 ? 'the credentials lack pull access to this repository' : undefined,
      },
    );
  }
}

/** ` MANIFEST_UNKNOWN`-style code from a distribution error body, or ''. Codes only: messages may echo request details. */
function registryErrorCode(body: Buffer): string {
  const errors = (parseJsonBody(body) as { errors?: { code?: unknown }[] } | undefined)?.errors;
  const codes = Array.isArray(errors)
    ? errors.map((error) => error?.code).filter((code): code is string => typeof code === 'string' && /^[A-Z_]+$/.test(code))
    : [];
  return codes.length ? ` ${codes.join(', ')}` : '';
}
