/**
 * One interface for every place provider artifacts come from (Renovate's datasource model):
 * a local repository, ConfigMaps given in the input, and later GitHub, GitLab, HTTPS and OCI.
 */

export { ArtifactNotFoundError, type Artifact, type ProviderRepository } from '../model/repository.js';
