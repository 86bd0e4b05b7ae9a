/**
 * Parsing of provider artifacts (multi-document YAML) into Kubernetes objects, with the
 * meaning clusterctl and the cluster-api-operator give them: documents split like
 * apimachinery's YAMLReader, scalars typed like go-yaml v2 (YAML 1.1: `yes`/`on` booleans,
 * `0644` octal, timestamps kept as strings), keys converted like sigs.k8s.io/yaml.
 *
 * Each document goes through the fast path (fast-parse.ts) and, if that declines, through the
 * full parser (library-parse.ts); both give the same values. Anchors and aliases are refused,
 * the artifact size is bounded, and every problem becomes a positioned Diagnostic.
 */
import { CapiGitopsError, DiagnosticBag } from '../core/diagnostics.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { isPlainObject } from '../core/kobject.js';
import type { KObject } from '../core/kobject.js';
import { fastParseDocument } from './fast-parse.js';
import { libraryParseDocument } from './library-parse.js';
import { LineIndex, lineColumnAt, splitDocuments } from './split.js';
import type { DocumentChunk } from './split.js';

/**
 * Identifies what parseArtifact produces for a given text: change it whenever the parser's
 * output could change, so parsed forms cached under the old version are not reused.
 */
export const PARSER_VERSION = 'capi-gitops-yaml/3';

/** Default bound on an artifact's size: far above any real provider release (~2 MB). */
export const DEFAULT_MAX_ARTIFACT_BYTES = 64 * 1024 * 1024;

interface ParseArtifactOptions {
  /** Where the text came from (file path or URL); used as the diagnostics' file. */
  source: string;
  /** Upper bound on the UTF-8 size of `text`; default DEFAULT_MAX_ARTIFACT_BYTES. */
  maxBytes?: number;
  /** Skip the fast path and read every document with the full parser (tests, diagnosis). */
  fullParserOnly?: boolean;
}

interface ParseArtifactResult {
  objects: KObject[];
  /** Documents the fast path declined and the full parser read (0 for released artifacts). */
  fullParserDocuments: number;
}

/** One artifact to parse: its text and where it came from. */
export interface ParseInput {
  text: string;
  source: string;
}

/**
 * Parses several artifacts in order on this thread (a worker pool measured slower than this even
 * for 9 MB on 2 cores), gathering every artifact's problems into one error.
 */
export function parseArtifacts(inputs: readonly ParseInput[]): KObject[][] {
  const bag = new DiagnosticBag();
  const results = inputs.map(({ text, source }) => {
    try {
      return parseArtifact(text, { source });
    } catch (err) {
      bag.addError(err);
      return [];
    }
  });
  bag.throwIfAny();
  return results;
}

/** Parses a multi-document artifact into its objects; empty and null documents are skipped. */
export function parseArtifact(text: string, opts: ParseArtifactOptions): KObject[] {
  return parseArtifactDetailed(text, opts).objects;
}

/** parseArtifact, also reporting how much of the text needed the full parser. */
export function parseArtifactDetailed(text: string, opts: ParseArtifactOptions): ParseArtifactResult {
  const { source } = opts;
  checkSize(text, source, opts.maxBytes ?? DEFAULT_MAX_ARTIFACT_BYTES);
  checkCharacters(text, source);
  const bag = new DiagnosticBag();
  const { chunks, problems } = splitDocuments(text, source);
  for (const p of problems) bag.add(p);
  // CRLF line ends and stray byte-order marks are rare enough to leave to the full parser.
  const useFast = !opts.fullParserOnly && text.indexOf('\r') < 0 && text.indexOf('\ufeff', 1) < 0;
  const objects: KObject[] = [];
  const positions = new LineIndex(text);
  let fullParserDocuments = 0;
  for (const chunk of chunks) {
    let value = useFast ? fastParseDocument(text, chunk.start, chunk.end) : undefined;
    if (value === undefined) {
      fullParserDocuments++;
      const result = libraryParseDocument(text.slice(chunk.start, chunk.end));
      if (!result.ok) {
        for (const p of result.problems) {
          const { line, column } = positions.at(chunk.start + p.offset);
          bag.add({ file: source, line, column, message: p.message, expected: p.expected, hint: p.hint });
        }
        continue;
      }
      value = result.value;
    }
    if (value === null) continue;
    if (!isPlainObject(value)) {
      bag.add(notAMapping(text, chunk, source, value, positions));
      continue;
    }
    objects.push(value as KObject);
  }
  bag.throwIfAny();
  return { objects, fullParserDocuments };
}

function checkSize(text: string, source: string, maxBytes: number): void {
  // UTF-8 needs at most 3 bytes per UTF-16 unit: only measure when the bound could be hit.
  if (text.length * 3 <= maxBytes) return;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= maxBytes) return;
  throw new CapiGitopsError({
    file: source,
    message: `artifact is ${bytes} bytes, over the ${maxBytes}-byte limit`,
    expected: `at most ${maxBytes} bytes`,
    hint: 'check that the source really is a provider artifact; raise maxBytes if it is',
  });
}

// go-yaml accepts only printable characters: tab, LF, CR, U+0020–U+007E, U+0085, U+00A0 and up,
// except U+FFFE and U+FFFF (yaml_parser_update_buffer: "control characters are not allowed").
const FORBIDDEN_CHARACTER = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ufffe\uffff]/;

export function checkCharacters(text: string, source: string): void {
  const m = FORBIDDEN_CHARACTER.exec(text);
  if (!m) return;
  const code = m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
  throw new CapiGitopsError({
    file: source,
    ...lineColumnAt(text, m.index),
    message: `control character U+${code} is not allowed in YAML`,
    hint: `the Kubernetes YAML parser rejects it; write it as an escape inside a double-quoted string ("\\u${code}")`,
  });
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'a sequence';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`;
  return `the ${typeof value} ${String(value)}`;
}

function notAMapping(text: string, chunk: DocumentChunk, source: string, value: unknown, positions: LineIndex): Diagnostic {
  // Point at the document's first content line.
  const body = text.slice(chunk.start, chunk.end);
  const m = /^(?:[ \t]*(?:#.*)?\n)*[ \t]*/.exec(body);
  const { line, column } = positions.at(chunk.start + (m ? m[0].length : 0));
  return {
    file: source,
    line,
    column,
    message: `document is ${describeValue(value)}, not a mapping`,
    expected: 'a Kubernetes object (a mapping with apiVersion, kind and metadata)',
    hint: 'each document between "---" lines must be one object; check the indentation of the first line',
  };
}
