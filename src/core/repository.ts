/**
 * The contract between the stages that read releases (resolve, lock) and the sources that
 * serve them: every source implements ProviderRepository (sources/), and the resolver picks
 * versions over it without knowing which source it is (Renovate's datasource model).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CapiGitopsError } from './diagnostics.js';

/** A file fetched from a source: its text, its sha256 and where it came from. */
export interface Artifact {
  /** File name inside the release, e.g. `core-components.yaml` or `metadata.yaml`. */
  name: string;
  text: string;
  /** Lower-case hex sha256 of the text (for a compressed ConfigMap: of the decompressed text). */
  sha256: string;
  /** Where it was read from. For logs and the lockfile, never for rendered output. */
  url: string;
}

/** Where an artifact came from, for messages: a path relative to the working directory, or the URL. */
export function artifactDisplayName(artifact: Pick<Artifact, 'url' | 'name'>): string {
  if (artifact.url.startsWith('file://')) {
    const relative = path.relative(process.cwd(), fileURLToPath(artifact.url));
    return relative.startsWith('..') ? fileURLToPath(artifact.url) : relative;
  }
  return artifact.url || artifact.name;
}

/** The file of every release that names its release series and their contracts (clusterctl's metadata.yaml). */
export const METADATA_FILE = 'metadata.yaml';
/** The version that means the newest release. */
export const LATEST = 'latest';

/**
 * A provider's release repository, as clusterctl's repository.Repository: it lists versions and
 * serves files of one version. `defaultVersion` and `componentsFile` come from the URL.
 */
export interface ProviderRepository {
  /** Which module serves it: 'local', 'configmap', 'github', … */
  readonly sourceType: string;
  /** Its files are read where they are (a local file, a ConfigMap of the input): the artifact cache never holds them. */
  readonly readsInPlace?: boolean;
  /** Human-readable location for messages, e.g. the URL with `{version}`. */
  readonly location: string;
  /** The version named by the URL: a tag, or `latest`. */
  readonly defaultVersion: string;
  /** The components file name, e.g. `core-components.yaml`. */
  readonly componentsFile: string;
  /**
   * What the versions and files come from, when repositories of several providers share it (a
   * GitHub repository's releases: kubernetes-sigs/cluster-api serves the core, kubeadm bootstrap
   * and control plane; a GitLab generic package): equal keys list the same versions and serve the same file for a version
   * and name, so a run fetches each once. Undefined: `location` alone says that.
   */
  readonly releaseStore?: string;
  /** Every published version tag (raw tags, e.g. `v1.12.0`); the caller filters semver. */
  listVersions(): Promise<string[]>;
  /** One file of one version; throws CapiGitopsError naming provider, version and location on failure. */
  getFile(version: string, fileName: string): Promise<Artifact>;
}

/**
 * `getFile` throws this when the version or the file does not exist (a missing directory, an
 * HTTP 404). clusterctl's latest-release search skips such versions and stops on any other
 * failure, so a transient error never silently selects an older release.
 */
export class ArtifactNotFoundError extends CapiGitopsError {
  constructor(diagnostics: ConstructorParameters<typeof CapiGitopsError>[0]) {
    super(diagnostics);
    this.name = 'ArtifactNotFoundError';
  }
}
