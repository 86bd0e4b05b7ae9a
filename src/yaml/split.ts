/**
 * Splits a multi-document artifact the way clusterctl does before it parses anything
 * (cluster-api util/yaml/yaml.go ToUnstructured → k8s.io/apimachinery/pkg/util/yaml
 * YAMLReader.Read): a line that starts with `---` ends the current document. Only white space
 * or a comment may follow the `---`; anything else is a syntax error there, so it is here too.
 * Empty chunks (two separators in a row) are dropped, as YAMLReader does.
 */
import type { Diagnostic } from '../core/diagnostics.js';

/** A document's text: `text.slice(start, end)`. */
export interface DocumentChunk {
  start: number;
  end: number;
}

interface SplitResult {
  chunks: DocumentChunk[];
  problems: Diagnostic[];
}

/** White space as Go's unicode.IsSpace sees it (what strings.TrimSpace removes). */
const GO_SPACE_RUN =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

export function splitDocuments(text: string, source: string): SplitResult {
  const chunks: DocumentChunk[] = [];
  const problems: Diagnostic[] = [];
  const n = text.length;
  let chunkStart = 0;
  // Only lines that start with "---" matter: they are found natively, not line by line (the
  // artifacts have 59,000 lines and 100 separators).
  let lineStart = text.startsWith('---') ? 0 : nextSeparator(text, 0);
  while (lineStart >= 0) {
    const nl = text.indexOf('\n', lineStart);
    const lineEnd = nl < 0 ? n : nl;
    const rest = text.slice(lineStart + 3, lineEnd);
    const trimmed = rest.replace(GO_SPACE_RUN, '');
    if (trimmed.length > 0 && trimmed[0] !== '#') {
      problems.push({
        file: source,
        line: lineColumnAt(text, lineStart).line,
        column: 4,
        message: `invalid YAML document separator: ${JSON.stringify(trimmed.slice(0, 40))} follows "---"`,
        expected: 'a line that is exactly "---", optionally followed by a comment',
        hint: 'clusterctl (apimachinery YAMLReader) rejects content after "---"; move it to the next line',
      });
    }
    if (lineStart > chunkStart) chunks.push({ start: chunkStart, end: lineStart });
    if (nl < 0) return { chunks, problems };
    chunkStart = nl + 1;
    lineStart = nextSeparator(text, nl);
  }
  if (n > chunkStart) chunks.push({ start: chunkStart, end: n });
  return { chunks, problems };
}

/** Start of the first line after `from` that starts with "---", or -1. */
function nextSeparator(text: string, from: number): number {
  const i = text.indexOf('\n---', from);
  return i < 0 ? -1 : i + 1;
}

/** Line and column (1-based) of offsets in a text, as the `yaml` library's LineCounter counts them: a line starts after each LF. */
export class LineIndex {
  private starts: number[] | undefined;
  constructor(private readonly text: string) {}

  at(offset: number): { line: number; column: number } {
    if (this.starts === undefined) {
      this.starts = [0];
      for (let i = this.text.indexOf('\n'); i >= 0; i = this.text.indexOf('\n', i + 1)) this.starts.push(i + 1);
    }
    // The last line start at or before the offset.
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - this.starts[lo]! + 1 };
  }
}

/** 1-based line and column (in UTF-16 units) of one offset (for one problem; many offsets of one text: a LineIndex). */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  return new LineIndex(text).at(offset);
}
