/**
 * metadata.yaml for the render path: read by the fast parser, and by the `yaml` library
 * (loaded then) only when the fast parser cannot be sure (issue 13: a render does not load it).
 */
import { fastParseAgreeing } from '../yaml/fast-parse.js';
import { metadataFromValue, type ProviderMetadata, type ReleaseSubject } from './metadata-model.js';

/** parseMetadata (metadata.ts), loading the library only for a text the fast parser declines. */
export async function readMetadata(text: string, subject: ReleaseSubject): Promise<ProviderMetadata> {
  const fast = fastParseAgreeing(text);
  if (fast !== undefined) return metadataFromValue(fast, subject);
  return (await import('./metadata.js')).parseMetadata(text, subject);
}
