// Placeholder until the fast emitter lands: same contract, library implementation.
import YAML from 'yaml';

/** One YAML document for one object: 2-space indent, no anchors, no folding, final newline. */
export function emitYamlDocument(value: unknown): string {
  return YAML.stringify(value, { lineWidth: 0, indent: 2, aliasDuplicateObjects: false, version: '1.1' });
}
