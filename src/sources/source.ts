import type { RepositoryRequest, SourceContext } from './request.js';
import type { ProviderRepository } from '../core/repository.js';

/**
 * One interface for every place provider artifacts come from (Renovate's datasource model):
 * each source is a folder (`local/`, `configmap/`, `github/`, `gitlab/`, `oci/`, `https/`) whose
 * `index.ts` is a `SourceModule` and whose repository implements `ProviderRepository`. Network
 * sources make every request through `base/client.ts`; no source imports another.
 */

export { ArtifactNotFoundError, LATEST, METADATA_FILE, type Artifact, type ProviderRepository } from '../core/repository.js';

/** One source: it looks at a request and opens a repository, or answers null ("not mine"). */
export interface SourceModule {
  /** Matches the repositories' `sourceType`: 'local', 'configmap', 'github', … */
  readonly id: string;
  /** What it serves, for the message when nothing does, e.g. `file:// URLs and paths`. */
  readonly serves: string;
  /** The repository for this request, or null when the request is not this module's. */
  open(request: RepositoryRequest, context: SourceContext): Promise<ProviderRepository | null> | ProviderRepository | null;
}
