import type { Document, LineCounter, Node as YamlNode, Scalar, YAMLError } from 'yaml';
import type { Diagnostic } from '../core/diagnostics.js';
import { mergeConflictProblems } from '../core/merge-conflicts.js';
import { setOwnValue } from '../core/own-keys.js';
import { reportDuplicateKeys } from '../yaml/unique-keys.js';
import { lineColumnAt } from '../yaml/split.js';
import { shellWord } from '../core/shell.js';
import { MERGE_KEY, jsonKeyOf, resolvePlainScalarTyped, type PlainScalar } from '../yaml/scalar.js';
import YAML from 'yaml';
import type { SourcePosition } from './types.js';

/** A field path inside one object: map keys and sequence indexes. */
export type FieldPath = readonly (string | number)[];

/** One parsed YAML document of one manifest file, with what is needed to map paths to positions. */
export interface SourceDocument {
  file: string;
  text: string;
  readonly lineCounter: LineCounter;
  readonly doc: Document.Parsed;
  /** With `repeatedKeys: 'keep'`: each key given twice in a map, as the error a manifest has for it. */
  readonly repeatedKeyProblems?: Diagnostic[];
}

/**
 * The `yaml` package reads the syntax (YAML 1.1) and keeps every scalar as text (failsafe
 * schema); scalars are then typed as go-yaml v2 types them (src/yaml/scalar.ts), which is what
 * kubectl and the API server read: `yes`/`on` are booleans, `0755` is octal, timestamps stay text.
 */
export const PARSE_OPTIONS = {
  version: '1.1',
  schema: 'failsafe',
  // repeated keys are found by reportDuplicateKeys: the library's own check is quadratic
  uniqueKeys: false,
  // Pretty errors quote the source line, which may hold a Secret value.
  prettyErrors: false,
} as const;

/** Anchors and aliases are allowed (kubectl accepts them) but bounded against alias bombs. */
export const MAX_ALIAS_EXPANSIONS = 1000;

export interface ParsedFile {
  documents: SourceDocument[];
  syntaxErrors: Diagnostic[];
}

/**
 * Parses a multi-document file; documents with syntax errors are reported and left out. A key given
 * twice in a map is one of them, unless `repeatedKeys` is 'keep' (a values document, which Helm
 * reads with the last): the document is kept, the problem in its `repeatedKeyProblems`.
 */
export function parseManifestFile(file: string, text: string, options: { repeatedKeys?: 'refuse' | 'keep' } = {}): ParsedFile {
  // Git's markers, which the parser would report as a dozen unrelated syntax errors
  const conflicts = mergeConflictProblems(
    text,
    file,
    'well-formed YAML, without conflict markers',
    'keep the side you want (or combine both) and delete the <<<<<<<, ======= and >>>>>>> lines',
  );
  if (conflicts.length > 0) return { documents: [], syntaxErrors: conflicts };
  const nul = text.indexOf('\0');
  if (nul >= 0) return { documents: [], syntaxErrors: [nulDiagnostic(file, text, nul)] };
  const lineCounter = new YAML.LineCounter();
  const parsed = YAML.parseAllDocuments(text, { ...PARSE_OPTIONS, lineCounter });
  const documents: SourceDocument[] = [];
  const syntaxErrors: Diagnostic[] = [];
  for (const doc of parsed) {
    reportDuplicateKeys(doc, lineCounter);
    const repeated = options.repeatedKeys === 'keep' ? doc.errors.filter((error) => error.code === 'DUPLICATE_KEY') : [];
    if (repeated.length > 0) doc.errors = doc.errors.filter((error) => error.code !== 'DUPLICATE_KEY');
    if (doc.errors.length > 0) {
      for (const error of doc.errors) syntaxErrors.push(syntaxDiagnostic(file, lineCounter, error));
      continue;
    }
    const repeatedKeyProblems = repeated.map((error) => syntaxDiagnostic(file, lineCounter, error));
    documents.push({ file, text, lineCounter, doc, ...(repeatedKeyProblems.length > 0 && { repeatedKeyProblems }) });
  }
  return { documents, syntaxErrors };
}

/** Where a document's root node starts: what a problem about the whole object points at. */
export function documentPosition(source: SourceDocument): SourcePosition {
  return nodePosition(source, source.doc.contents as YamlNode | null);
}

function syntaxDiagnostic(file: string, lineCounter: LineCounter, error: YAMLError): Diagnostic {
  const { line, col } = lineCounter.linePos(error.pos[0]);
  return {
    file,
    line,
    column: col,
    message: `invalid YAML: ${safeYamlMessage(error)}`,
    expected: 'well-formed YAML',
    hint:
      error.code === 'DUPLICATE_KEY'
        ? 'keep one of the two: keys of one mapping must differ (kubectl refuses a repeated key too), or check the indentation of this one'
        : error.code === 'TAB_AS_INDENT'
          ? `replace the tab at the start of line ${line} with spaces: YAML indents with spaces only`
          : 'check indentation, quoting and the `key: value` spacing at this position',
  };
}

/** A NUL byte, which YAML text cannot hold and the parser reports as a misplaced key. */
function nulDiagnostic(file: string, text: string, offset: number): Diagnostic {
  return {
    file,
    ...lineColumnAt(text, offset),
    message: 'holds a NUL byte (U+0000), which YAML text cannot hold',
    expected: 'text: a file with no NUL byte',
    hint: `check that the file is the one you meant (it may be binary); remove its NUL bytes: tr -d '\\000' < ${shellWord(file)} > ${shellWord(`${file}.tmp`)} && mv ${shellWord(`${file}.tmp`)} ${shellWord(file)}`,
  };
}

/**
 * The library's messages sometimes end with a piece of the source (`…: <text>`); that piece could
 * be a Secret value, so it is cut off. The position already says where the problem is.
 */
export function safeYamlMessage(error: YAMLError): string {
  if (error.code === 'BAD_DQ_ESCAPE') return 'invalid escape sequence in a double-quoted string';
  const colon = error.message.indexOf(': ');
  const message = colon >= 0 ? error.message.slice(0, colon) : error.message;
  return message.charAt(0).toLowerCase() + message.slice(1);
}

/** A document whose structure has no JSON form (a null key, an alias loop, …). */
export class YamlValueError extends Error {
  constructor(
    readonly offset: number,
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

const TAG = 'tag:yaml.org,2002:';
const TYPED_TAGS: Record<string, PlainScalar['kind'][]> = {
  [TAG + 'null']: ['null'],
  [TAG + 'bool']: ['bool'],
  [TAG + 'int']: ['int'],
  [TAG + 'float']: ['float', 'int'],
};

function startOf(node: YamlNode | null | undefined): number {
  return node?.range?.[0] ?? 0;
}

/** A scalar's meaning: plain text typed like go-yaml, quoted and block text as is, explicit tags honoured. */
function typedScalar(node: Scalar): PlainScalar {
  const text = String(node.value ?? '');
  if (!node.tag) return node.type === 'PLAIN' ? resolvePlainScalarTyped(text) : { kind: 'str', value: text };
  const kinds = TYPED_TAGS[node.tag];
  // go-yaml reads a scalar with any other tag (!!str, !!timestamp, custom tags) as its text.
  if (!kinds) return { kind: 'str', value: text };
  const typed = resolvePlainScalarTyped(text);
  if (!kinds.includes(typed.kind))
    throw new YamlValueError(
      startOf(node),
      `the value cannot be read as ${node.tag.replace(TAG, '!!')}`,
      'remove the tag or change the value',
    );
  return typed;
}

/** The JSON key sigs.k8s.io/yaml makes of a key node; undefined when it has none. */
export function jsonKeyOfNode(node: unknown, doc: Document.Parsed): string | undefined {
  const target = YAML.isAlias(node) ? node.resolve(doc) : node;
  return YAML.isScalar(target) ? jsonKeyOf(typedScalar(target)) : undefined;
}

function isMergeKey(node: unknown): boolean {
  return YAML.isScalar(node) && node.type === 'PLAIN' && (!node.tag || node.tag === TAG + 'merge') && node.value === MERGE_KEY;
}

/** Converts documents to plain data the way sigs.k8s.io/yaml (go-yaml v2 + JSON) does. */
class KubernetesYaml {
  private expansions = 0;
  private readonly open = new Set<YamlNode>();

  constructor(private readonly doc: Document.Parsed) {}

  value(node: YamlNode | null | undefined): unknown {
    if (node === null || node === undefined) return null;
    if (YAML.isAlias(node)) return this.alias(node);
    this.open.add(node);
    try {
      if (YAML.isScalar(node)) return this.scalar(node);
      if (YAML.isMap(node)) return this.mapping(node.items as { key: unknown; value: unknown }[]);
      if (YAML.isSeq(node)) return node.items.map((item) => this.value(item as YamlNode | null));
      throw new YamlValueError(startOf(node), 'unsupported YAML node', 'use mappings, sequences and scalars');
    } finally {
      this.open.delete(node);
    }
  }

  private alias(node: YamlNode & { resolve(doc: Document.Parsed): unknown }): unknown {
    if (++this.expansions > MAX_ALIAS_EXPANSIONS) {
      throw new YamlValueError(
        startOf(node),
        'too many alias references',
        `write the repeated parts out; at most ${MAX_ALIAS_EXPANSIONS} alias expansions per document`,
      );
    }
    const target = node.resolve(this.doc) as YamlNode | undefined;
    // the library resolves an alias with no anchor before it to nothing: go-yaml refuses it
    // ("unknown anchor"), and read as null a spec.version would be the newest release
    if (target === undefined) {
      const name = (node as unknown as { source: string }).source;
      throw new YamlValueError(
        startOf(node),
        `the alias *${name} names no anchor before it in this document`,
        `anchors do not reach across ---: write the value out here, or set &${name} earlier in this document`,
      );
    }
    if (this.open.has(target)) throw new YamlValueError(startOf(node), 'an alias refers to a node that contains it', 'remove the alias');
    return this.value(target);
  }

  private scalar(node: Scalar): unknown {
    const typed = typedScalar(node);
    if (typed.kind === 'float' && !Number.isFinite(typed.value)) {
      throw new YamlValueError(startOf(node), 'infinity and NaN have no JSON form', 'quote the value if it is meant as a string');
    }
    return typed.value;
  }

  /** Entries in order; a merge key (`<<`) sets its mapping's entries where it stands, as go-yaml v2 does. */
  private mapping(pairs: { key: unknown; value: unknown }[]): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    for (const pair of pairs) {
      if (isMergeKey(pair.key)) {
        this.merge(pair.value as YamlNode | null, result);
        continue;
      }
      const key = jsonKeyOfNode(pair.key, this.doc);
      if (key === undefined) {
        throw new YamlValueError(
          startOf(pair.key as YamlNode),
          'this mapping key has no JSON form (null, a collection, or an integer beyond int64)',
          'use a string key',
        );
      }
      setOwnValue(result, key, this.value(pair.value as YamlNode | null));
    }
    return result;
  }

  /** A merged sequence is applied from its last mapping to its first, so earlier ones win. */
  private merge(node: YamlNode | null, into: Record<string, unknown>): void {
    const sources = YAML.isSeq(node) ? [...node.items].reverse().map((item) => this.value(item as YamlNode)) : [this.value(node)];
    for (const source of sources) {
      if (source === null || typeof source !== 'object' || Array.isArray(source)) {
        throw new YamlValueError(
          startOf(node),
          'the merge key << takes a map, an alias of one, or a list of them',
          'write the value under a key of its own, or merge a map: <<: *name where &name marks a map',
        );
      }
      for (const [key, value] of Object.entries(source)) setOwnValue(into, key, value);
    }
  }
}

/** A key given again in its map: the field path of both, and where each key is. */
export interface RepeatedKey {
  path: FieldPath;
  first: number;
  again: number;
}

/**
 * Keys a map gives more than once, by the JSON key each becomes (`yes` and `true` are one key, as
 * go-yaml v2 reads them): go-yaml v2's Unmarshal (decode.go setMapIndex, not strict) keeps the
 * last, as documentValue does. A map an alias repeats is told once, where it is written.
 */
export function repeatedKeys(source: SourceDocument): RepeatedKey[] {
  const found: RepeatedKey[] = [];
  const walk = (node: unknown, path: FieldPath): void => {
    if (YAML.isSeq(node)) node.items.forEach((item, index) => walk(item, [...path, index]));
    if (!YAML.isMap(node)) return;
    const seen = new Map<string, number>();
    for (const pair of node.items) {
      // a merge key's own map is walked for its repeats; what it merges is not a repeat
      if (isMergeKey(pair.key)) {
        walk(pair.value, path);
        continue;
      }
      let key: string | undefined;
      try {
        key = jsonKeyOfNode(pair.key, source.doc);
      } catch {
        key = undefined;
      }
      if (key === undefined) continue;
      const offset = startOf(pair.key as YamlNode);
      const first = seen.get(key);
      if (first === undefined) seen.set(key, offset);
      else found.push({ path: [...path, key], first, again: offset });
      walk(pair.value, [...path, key]);
    }
  };
  walk(source.doc.contents, []);
  return found;
}

/** The document as plain data, every field its own value (aliases are expanded into copies). */
export function documentValue(source: SourceDocument): unknown {
  return new KubernetesYaml(source.doc).value(source.doc.contents as YamlNode | null);
}

export function positionAt(source: SourceDocument, offset: number): SourcePosition {
  const { line, col } = source.lineCounter.linePos(offset);
  return { file: source.file, line, column: col };
}

/** Where a node starts; a document's own start when there is no node. */
export function nodePosition(source: SourceDocument, node: YamlNode | null | undefined): SourcePosition {
  const offset = node?.range?.[0] ?? source.doc.range[0];
  return positionAt(source, offset);
}

interface Located {
  /** The deepest node reached along the path. */
  node: YamlNode | null;
  /** The key node of the last map step that was reached, if any. */
  key: YamlNode | null;
  /** True when every segment of the path was found. */
  complete: boolean;
}

function keyMatches(key: unknown, segment: string | number, doc: Document.Parsed): boolean {
  try {
    return jsonKeyOfNode(key, doc) === String(segment);
  } catch {
    return false;
  }
}

/** Follows a field path through maps and sequences (and aliases) from a node. */
export function locate(source: SourceDocument, root: YamlNode | null, path: FieldPath): Located {
  let node: YamlNode | null = root;
  let key: YamlNode | null = null;
  for (const segment of path) {
    if (YAML.isAlias(node)) node = (node.resolve(source.doc) as YamlNode | undefined) ?? null;
    if (YAML.isMap(node)) {
      const pair = node.items.find((item) => keyMatches(item.key, segment, source.doc));
      if (!pair) return { node, key, complete: false };
      key = pair.key as YamlNode;
      // `field:` with nothing after it has no value node; its key stands for it.
      node = (pair.value as YamlNode | null) ?? key;
    } else if (YAML.isSeq(node) && typeof segment === 'number' && segment < node.items.length) {
      const item = node.items[segment] as YamlNode | null;
      if (!item) return { node, key, complete: false };
      node = item;
      key = null;
    } else {
      return { node, key, complete: false };
    }
  }
  return { node, key, complete: true };
}

/**
 * Position of a field: its key (`at: 'key'`, for unknown or misplaced fields) or its value.
 * A path that does not exist in the source (a default, a merged key) points at the deepest
 * part that does.
 */
export function fieldPosition(source: SourceDocument, root: YamlNode | null, path: FieldPath, at: 'key' | 'value'): SourcePosition {
  const found = locate(source, root, path);
  if (!found.complete) return nodePosition(source, found.key ?? found.node ?? root);
  if (at === 'key' && found.key) return nodePosition(source, found.key);
  // `field:` with nothing after it: the key is where the reader should look.
  const empty = YAML.isScalar(found.node) && found.node.range && found.node.range[0] === found.node.range[1];
  return nodePosition(source, (empty ? found.key : null) ?? found.node ?? found.key ?? root);
}

/** The YAML source text of a scalar value, e.g. `0755` for a value the parser read as 493. */
export function sourceText(source: SourceDocument, root: YamlNode | null, path: FieldPath): string | undefined {
  const found = locate(source, root, path);
  if (!found.complete || !YAML.isScalar(found.node) || !found.node.range) return undefined;
  return source.text.slice(found.node.range[0], found.node.range[1]);
}
