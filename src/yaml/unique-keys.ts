/**
 * Duplicate mapping keys, found with one Set per mapping. The `yaml` package's own check
 * (`uniqueKeys: true`) compares each key with every earlier one: a mapping of 300,000 keys, well
 * inside the node bound, took hours, deaf to SIGTERM. Parse with `uniqueKeys: false`, then call this.
 */
import YAML, { type Document, type LineCounter } from 'yaml';

/** Adds the library's DUPLICATE_KEY error, at the repeated key, to `doc.errors` for each repeated key. */
export function reportDuplicateKeys(doc: Document, lineCounter?: LineCounter): void {
  YAML.visit(doc, {
    Map(_, map) {
      // each key's first offset
      const seen = new Map<unknown, number>();
      for (const { key } of map.items) {
        // the library's equality: the same node, or scalars of equal value
        const identity = YAML.isScalar(key) ? key.value : key;
        const offset = (key as YAML.Node | null)?.range?.[0] ?? map.range?.[0] ?? 0;
        const first = seen.get(identity);
        if (first === undefined) {
          seen.set(identity, offset);
          continue;
        }
        // where the first one is, without quoting the key (messages never echo the input's text)
        const where = lineCounter ? ` (the first is at line ${lineCounter.linePos(first).line})` : '';
        const error = new YAML.YAMLParseError([offset, offset + 1], 'DUPLICATE_KEY', `Map keys must be unique${where}`);
        if (lineCounter) {
          const start = lineCounter.linePos(offset);
          error.linePos = [start];
        }
        doc.errors.push(error);
      }
    },
  });
}
