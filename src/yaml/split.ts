/**
 * Splits a multi-document artifact the way clusterctl does before it parses anything
 * (cluster-api util/yaml/yaml.go ToUnstructured → k8s.io/apimachinery/pkg/util/yaml
 * YAMLReader.Read): a line that starts with `---` ends the current document. Only white space
 * or a comment may follow the `---`; anything else is a syntax error there, so it is here too.
 * Empty chunks (two separators in a row) are dropped, as YAMLReader does.
 */
import type { Diagnostic } from '../model/diagnostics.js';

/** A document's text: `text.slice(start, end)`, starting on line `line` (1-based). */
export interface DocumentChunk {
  start: number;
  end: number;
  line: number;
}

export interface SplitResult {
  chunks: DocumentChunk[];
  problems: Diagnostic[];
}

/** White space as Go's unicode.IsSpace sees it (what strings.TrimSpace removes). */
const GO_SPACE_RUN =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

export function splitDocuments(text: string, source: string): SplitResult {
  const chunks: DocumentChunk[] = [];
  const problems: Diagnostic[] = [];
  let chunkStart = 0;
  let chunkLine = 1;
  let line = 1;
  let lineStart = 0;
  const n = text.length;
  while (lineStart < n) {
    const nl = text.indexOf('\n', lineStart);
    const lineEnd = nl < 0 ? n : nl;
    const next = nl < 0 ? n : nl + 1;
    if (text.startsWith('---', lineStart)) {
      const rest = text.slice(lineStart + 3, lineEnd);
      const trimmed = rest.replace(GO_SPACE_RUN, '');
      if (trimmed.length > 0 && trimmed[0] !== '#') {
        problems.push({
          file: source,
          line,
          column: 4,
          message: `invalid YAML document separator: ${JSON.stringify(trimmed.slice(0, 40))} follows "---"`,
          expected: 'a line that is exactly "---", optionally followed by a comment',
          hint: 'clusterctl (apimachinery YAMLReader) rejects content after "---"; move it to the next line',
        });
      }
      if (lineStart > chunkStart) chunks.push({ start: chunkStart, end: lineStart, line: chunkLine });
      chunkStart = next;
      chunkLine = line + 1;
    }
    lineStart = next;
    line++;
  }
  if (n > chunkStart) chunks.push({ start: chunkStart, end: n, line: chunkLine });
  return { chunks, problems };
}
