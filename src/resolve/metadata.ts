/**
 * metadata.yaml parsed synchronously: the fast parser where it agrees with the `yaml` library,
 * the library otherwise (and for every message about the YAML itself). The render path reads
 * through metadata-read.ts instead, which loads the library only when it is needed.
 */
import YAML from 'yaml';
import { fastParseAgreeing } from '../yaml/fast-parse.js';
import { invalidMetadataYaml, metadataFromValue, type ProviderMetadata, type ReleaseSubject } from './metadata-model.js';

export * from './metadata-model.js';

/** Parses and validates metadata.yaml (metadataFromValue). */
export function parseMetadata(text: string, subject: ReleaseSubject): ProviderMetadata {
  const fast = fastParseAgreeing(text);
  if (fast !== undefined) return metadataFromValue(fast, subject);
  const document = YAML.parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (document.errors.length > 0) throw invalidMetadataYaml(subject, document.errors[0].message);
  return metadataFromValue(document.toJS({ maxAliasCount: 100 }), subject);
}
