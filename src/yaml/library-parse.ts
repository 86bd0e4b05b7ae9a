/**
 * Full parser for one document chunk: the `yaml` package's parser and composer (YAML 1.1
 * syntax, failsafe schema so every scalar arrives as text), then our own conversion to JSON
 * values with go-yaml's typing (scalar.ts) and sigs.k8s.io/yaml's key rules. The fast path
 * (fast-parse.ts) must agree with this on everything it accepts; this handles the rest and
 * reports every problem with its offset.
 */
import type { Node as YamlNode, ParsedNode, Scalar } from 'yaml';
import YAML from 'yaml';
import { jsonKeyOf, MERGE_KEY, resolvePlainScalarTyped } from './scalar.js';
import type { PlainScalar } from './scalar.js';
import { setOwnValue } from '../core/own-keys.js';

/** A problem at an offset of the chunk text. */
interface ChunkProblem {
  offset: number;
  message: string;
  expected?: string;
  hint?: string;
}

type ChunkResult = { ok: true; value: unknown } | { ok: false; problems: ChunkProblem[] };

const ALIAS_HINT =
  'anchors (&name) and aliases (*name) are refused to rule out alias-expansion attacks; write the repeated content out in full';

const TAG = 'tag:yaml.org,2002:';

/** Refusals found while converting; thrown to unwind, collected by the caller. */
class Refusal {
  constructor(readonly problem: ChunkProblem) {}
}

/** Hints for the `yaml` package's error codes that users meet most. */
const ERROR_HINTS: Record<string, string> = {
  BAD_INDENT: 'check the indentation: entries of one mapping or sequence must start in the same column',
  MISSING_CHAR: 'a quote, bracket or ":" is missing; check the line for an unclosed string or collection',
  BLOCK_AS_IMPLICIT_KEY: 'a value cannot contain ": " unless it is quoted',
  MULTILINE_IMPLICIT_KEY: 'a key must fit on one line; quote a value that contains ": "',
  TAB_AS_INDENT: 'indent with spaces; YAML does not allow tabs for indentation',
  UNEXPECTED_TOKEN: 'check the syntax near this position',
  DUPLICATE_KEY: 'remove the repeated key',
};

export function libraryParseDocument(chunk: string): ChunkResult {
  let docs;
  try {
    docs = YAML.parseAllDocuments(chunk, {
      version: '1.1',
      schema: 'failsafe',
      uniqueKeys: false,
      prettyErrors: false,
    });
  } catch (e) {
    if (e instanceof RangeError) return tooDeep();
    throw e;
  }
  // go-yaml's Unmarshal reads the first document of its input and ignores the rest.
  const doc = Array.isArray(docs) ? docs[0] : undefined;
  if (doc === undefined) return { ok: true, value: null };
  if (doc.errors.length > 0) {
    // Where the stack runs out depends on the engine's stack size: report it at the document's
    // start, so the message is the same on every Node version.
    if (doc.errors.some((err) => /call stack/i.test(err.message))) return tooDeep();
    return {
      ok: false,
      problems: doc.errors.map((err) => ({
        offset: err.pos[0],
        message: err.message,
        hint: ERROR_HINTS[err.code] ?? 'fix the YAML syntax at this position',
      })),
    };
  }
  try {
    const value = toJson(doc.contents as ParsedNode | null, chunk);
    return { ok: true, value };
  } catch (e) {
    if (e instanceof Refusal) return { ok: false, problems: [e.problem] };
    if (e instanceof RangeError) return tooDeep();
    throw e;
  }
}

function tooDeep(): ChunkResult {
  return {
    ok: false,
    problems: [{ offset: 0, message: 'the document is nested too deeply to parse', hint: 'flatten the document' }],
  };
}

function refuse(offset: number, message: string, hint: string, expected?: string): never {
  throw new Refusal({ offset, message, hint, expected });
}

function startOf(node: YamlNode): number {
  return node.range?.[0] ?? 0;
}

function refuseAnchor(node: YamlNode, chunk: string): never {
  const anchor = (node as { anchor?: string }).anchor ?? '';
  // The anchor precedes its node; find it backwards from the node's start.
  const at = chunk.lastIndexOf('&' + anchor, startOf(node));
  refuse(at >= 0 ? at : startOf(node), `YAML anchor &${anchor} is not allowed`, ALIAS_HINT);
}

function toJson(node: ParsedNode | null, chunk: string): unknown {
  if (node === null || node === undefined) return null;
  if (YAML.isAlias(node)) refuse(startOf(node), `YAML alias *${node.source} is not allowed`, ALIAS_HINT);
  if (node.anchor) refuseAnchor(node, chunk);
  if (YAML.isScalar(node)) return scalarValue(node, chunk);
  if (YAML.isMap(node)) {
    const obj: Record<string, unknown> = {};
    for (const pair of node.items) {
      const keyNode = pair.key as ParsedNode | null;
      const key = jsonKey(keyNode, chunk, pair);
      const value = toJson(pair.value as ParsedNode | null, chunk);
      // A repeated key overwrites, as go-yaml v2 does when decoding into a map.
      setOwnValue(obj, key, value);
    }
    return obj;
  }
  if (YAML.isSeq(node)) return node.items.map((item) => toJson(item as ParsedNode | null, chunk));
  return refuse(startOf(node), 'unsupported YAML node', 'use mappings, sequences and scalars only');
}

/** The typed meaning of a scalar node: plain text typed like go-yaml, explicit tags honoured. */
function typedScalar(node: Scalar): PlainScalar {
  const text = String(node.value ?? '');
  const tag = node.tag;
  const plain = node.type === 'PLAIN';
  if (!tag || tag === '!') {
    // `!` is the non-specific tag: the scalar is a string even when plain.
    return plain && !tag ? resolvePlainScalarTyped(text) : { kind: 'str', value: text };
  }
  const typed = resolvePlainScalarTyped(text);
  const wrongType = (want: string): never =>
    refuse(
      startOf(node),
      `cannot read ${JSON.stringify(text)} as !!${want}`,
      `remove the !!${want} tag or change the value`,
      `a ${want} value`,
    );
  switch (tag) {
    case TAG + 'str':
    case TAG + 'timestamp':
      return { kind: 'str', value: text };
    case TAG + 'null':
      return typed.kind === 'null' ? typed : wrongType('null');
    case TAG + 'bool':
      return typed.kind === 'bool' ? typed : wrongType('bool');
    case TAG + 'int':
      return typed.kind === 'int' ? typed : wrongType('int');
    case TAG + 'float':
      if (typed.kind === 'float') return typed;
      if (typed.kind === 'int') return { kind: 'float', value: typed.value };
      return wrongType('float');
    case TAG + 'binary':
      return refuse(
        startOf(node),
        'the !!binary tag is not supported',
        'give binary data as a base64 string (e.g. a Secret data field) without the tag',
      );
    default:
      // go-yaml decodes a scalar with an unknown tag as its plain text.
      return { kind: 'str', value: text };
  }
}

function scalarValue(node: Scalar, chunk: string): unknown {
  const typed = typedScalar(node);
  if (typed.kind === 'float' && !Number.isFinite(typed.value)) {
    refuse(
      startOf(node),
      `${String(node.value)} (infinity or NaN) has no JSON form`,
      'quote the value if it is meant as a string',
      'a finite number or a quoted string',
    );
  }
  // go-yaml keeps an int64 exactly; a JavaScript number that is not the same integer would be written rounded.
  if (typed.kind === 'int' && !Number.isSafeInteger(typed.value) && BigInt(typed.value) !== typed.exact) {
    refuse(
      startOf(node),
      `the integer ${String(node.value)} cannot be held exactly (past ±${Number.MAX_SAFE_INTEGER} only some integers can); it would be written rounded`,
      'quote the value if it is meant as a string',
      `an integer from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`,
    );
  }
  if (typed.kind === 'str' && isBlockScalar(node)) return goBlockScalarAtEof(node, typed.value, chunk);
  return typed.value;
}

function isBlockScalar(node: Scalar): boolean {
  return node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED';
}

/**
 * go-yaml (libyaml) adds a block scalar's final line break only if one was read: when the
 * document ends on the scalar's last content line with no newline, the value has none. The
 * `yaml` package always adds it; take it back in exactly that case.
 */
function goBlockScalarAtEof(node: Scalar, value: string, chunk: string): string {
  const end = node.range?.[1];
  if (end !== chunk.length || chunk.endsWith('\n') || !value.endsWith('\n')) return value;
  const indicators = /^[|>]([-+1-9]{0,2})/.exec(chunk.slice(startOf(node)))?.[1] ?? '';
  if (indicators.includes('-')) return value;
  const lastLine = chunk.slice(chunk.lastIndexOf('\n') + 1);
  const contentIndent = firstContentIndent(chunk, startOf(node));
  if (contentIndent === undefined) return value;
  const spaces = lastLine.length - lastLine.trimStart().length;
  const isContent = lastLine.trim() !== '' ? spaces >= contentIndent : lastLine.length > contentIndent;
  return isContent ? value.slice(0, -1) : value;
}

function firstContentIndent(chunk: string, headerAt: number): number | undefined {
  let ls = chunk.indexOf('\n', headerAt) + 1;
  while (ls > 0 && ls < chunk.length) {
    const nl = chunk.indexOf('\n', ls);
    const line = chunk.slice(ls, nl < 0 ? chunk.length : nl);
    if (line.trim() !== '') return line.length - line.trimStart().length;
    if (nl < 0) break;
    ls = nl + 1;
  }
  return undefined;
}

/** The JSON object key for a mapping key node (sigs.k8s.io/yaml convertToJSONableObject rules). */
function jsonKey(keyNode: ParsedNode | null, chunk: string, pair: { value: unknown }): string {
  const at = keyNode ? startOf(keyNode) : startOf((pair.value as YamlNode | null) ?? ({} as YamlNode));
  if (keyNode === null || keyNode === undefined) {
    return refuse(at, 'a mapping key is empty (null)', 'give the entry a key before the ":"', 'a string key');
  }
  if (YAML.isAlias(keyNode)) refuse(at, `YAML alias *${keyNode.source} is not allowed`, ALIAS_HINT);
  if (keyNode.anchor) refuseAnchor(keyNode, chunk);
  if (!YAML.isScalar(keyNode)) {
    return refuse(at, 'a mapping or sequence used as a mapping key has no JSON form', 'use a string key', 'a string key');
  }
  if (keyNode.type === 'PLAIN' && !keyNode.tag && String(keyNode.value) === MERGE_KEY) {
    return refuse(at, 'YAML merge keys (<<) are not supported', 'write the merged entries out in full', 'a string key');
  }
  const key = jsonKeyOf(typedScalar(keyNode));
  if (key === undefined) {
    return refuse(
      at,
      `mapping key ${JSON.stringify(String(keyNode.value))} has no JSON form (a null or an integer beyond int64)`,
      'quote the key',
      'a string key',
    );
  }
  return key;
}
