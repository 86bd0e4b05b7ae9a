/**
 * `capi-gitops convert`: rewrites operator.cluster.x-k8s.io/v1alpha1 provider objects as
 * v1alpha2 with the same edits the loader applies (v1alpha1.ts). Only the documents holding a
 * v1alpha1 provider object are re-written, through the `yaml` Document API (comments and key
 * order kept, the document's own indentation reused); every other byte of the file is kept.
 */
import { CST, Parser, isMap, isScalar, parseDocument, type Document, type Node as YamlNode, type YAMLMap } from 'yaml';
import { CapiGitopsError, sortDiagnostics, type Diagnostic } from '../core/diagnostics.js';
import { listManifestFiles, readManifestFiles } from './files.js';
import { describeObject, isPlainObject } from '../core/kobject.js';
import { OPERATOR_API_VERSION } from '../core/provider.js';
import { emitYamlDocument } from '../yaml/emit.js';
import { pruneNulls } from './documents.js';
import { formatFieldPath } from './fields.js';
import {
  documentValue,
  fieldPosition,
  locate,
  nodePosition,
  parseManifestFile,
  type FieldPath,
  type SourceDocument,
} from './yaml-source.js';
import { planV1alpha1Conversion, V1ALPHA1_API_VERSION, type ConversionEdit } from './v1alpha1.js';

export interface ConvertedObject {
  file: string;
  line: number;
  column: number;
  /** `CoreProvider/capi-system/cluster-api` */
  object: string;
}

export interface ConvertedFile {
  file: string;
  text: string;
  converted: ConvertedObject[];
}

const EDIT_OPTIONS = { version: '1.1', schema: 'failsafe', prettyErrors: false } as const;

/** v1alpha1 provider objects of a document value: the document itself, or items of a List. */
function v1alpha1Objects(value: unknown): { path: FieldPath; object: Record<string, unknown> }[] {
  if (!isPlainObject(value)) return [];
  const isV1alpha1 = (item: unknown, listVersion?: unknown): item is Record<string, unknown> =>
    isPlainObject(item) && (item.apiVersion ?? listVersion) === V1ALPHA1_API_VERSION && typeof (item.kind ?? '') === 'string';
  if (typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items)) {
    const listVersion = value.kind === 'List' ? undefined : value.apiVersion;
    return value.items.flatMap((item, index) => (isV1alpha1(item, listVersion) ? [{ path: ['items', index], object: item }] : []));
  }
  return value.apiVersion === V1ALPHA1_API_VERSION ? [{ path: [], object: value }] : [];
}

/** A new value as a node whose scalars read back as they are (the project's emitter quotes them). */
function valueNode(value: unknown): YamlNode {
  return parseDocument(emitYamlDocument(value), EDIT_OPTIONS).contents as YamlNode;
}

function keyIs(node: unknown, key: string | number): boolean {
  return isScalar(node) && String(node.value) === String(key);
}

function applyEditsToDocument(doc: Document, prefix: FieldPath, edits: readonly ConversionEdit[]): void {
  for (const edit of edits) {
    const path = [...prefix, ...edit.path];
    if (edit.op === 'set') {
      const old = doc.getIn(path, true) as YamlNode | undefined;
      const node = valueNode(edit.value);
      if (isScalar(old) && isScalar(node)) old.value = node.value;
      else doc.setIn(path, node);
    } else if (edit.op === 'delete') {
      doc.deleteIn(path);
    } else {
      const parent = doc.getIn(path.slice(0, -1), true);
      if (!isMap(parent)) continue;
      const pair = (parent as YAMLMap).items.find((item) => keyIs(item.key, path[path.length - 1]));
      if (!pair || !isScalar(pair.key)) continue;
      const old = pair.value as YamlNode | null;
      const node = valueNode(edit.value);
      // A comment on the old value's line stays on the line of the new one.
      if (old && 'comment' in old && old.comment) {
        if (isScalar(node)) node.comment = old.comment;
        else node.commentBefore = old.comment;
      }
      pair.key.value = edit.key;
      pair.value = node;
    }
  }
}

/** The indentation the document uses, so that its rewritten form looks like the rest of the file. */
function documentStyle(text: string): { indent: number; indentSeq: boolean } {
  const nested = /^\S[^\n]*:[ \t]*\n( +)[^\s#-]/m.exec(text);
  const indent = nested ? nested[1].length : 2;
  // `key:` followed by `- item` at the key's own column: sequences are not indented.
  const compactSeq = /^( *)[^\s#-][^\n]*:[ \t]*\n\1- /m.test(text);
  return { indent, indentSeq: !compactSeq };
}

/** Where each document's source text starts and ends, by the offset its Document reports. */
function documentSpans(text: string): Map<number, number> {
  const spans = new Map<number, number>();
  for (const token of new Parser().parse(text)) {
    if (token.type === 'document') spans.set(token.offset, token.offset + CST.stringify(token).length);
  }
  return spans;
}

/**
 * One file converted; `problems` lists what cannot be converted (nothing is to be written then).
 * Files with syntax errors are reported as the loader reports them.
 */
export function convertManifestText(file: string, text: string): { result: ConvertedFile; problems: Diagnostic[] } {
  const parsed = parseManifestFile(file, text);
  const problems: Diagnostic[] = [...parsed.syntaxErrors];
  const converted: ConvertedObject[] = [];
  const replacements: { start: number; end: number; text: string }[] = [];
  const spans = documentSpans(text);
  for (const source of parsed.documents) {
    let value: unknown;
    try {
      value = documentValue(source);
    } catch {
      continue; // the loader reports unreadable documents; there is nothing to convert in them
    }
    const objects = v1alpha1Objects(value);
    if (objects.length === 0) continue;
    const start = source.doc.range[0];
    const end = spans.get(start) ?? source.doc.range[2];
    const slice = text.slice(start, end);
    const doc = parseDocument(slice, EDIT_OPTIONS);
    if (isPlainObject(value) && value.kind !== 'List' && value.apiVersion === V1ALPHA1_API_VERSION && objects[0]?.path.length) {
      applyEditsToDocument(doc, [], [{ op: 'set', path: ['apiVersion'], value: OPERATOR_API_VERSION, source: ['apiVersion'] }]);
    }
    for (const { path, object } of objects) {
      pruneNulls(object);
      const plan = planV1alpha1Conversion(object);
      // Items of a typed list may leave apiVersion to the list.
      if (object.apiVersion === undefined) plan.edits = plan.edits.filter((edit) => edit.path.join('.') !== 'apiVersion');
      const node = locate(source, source.doc.contents as YamlNode | null, path).node;
      const label = objectLabel(object);
      for (const finding of plan.findings) problems.push(findingDiagnostic(source, node, label, finding));
      applyEditsToDocument(doc, path, plan.edits);
      converted.push({ ...nodePosition(source, node), object: label });
    }
    const style = documentStyle(slice);
    replacements.push({ start, end, text: doc.toString({ ...style, lineWidth: 0, minContentWidth: 0 }) });
  }
  let result = text;
  for (const { start, end, text: replacement } of replacements.reverse()) {
    // A document ending without a line break (the file's last) keeps ending without one.
    const body = text.slice(start, end).endsWith('\n') ? replacement : replacement.replace(/\n$/, '');
    result = result.slice(0, start) + body + result.slice(end);
  }
  return { result: { file, text: result, converted }, problems };
}

function objectLabel(object: Record<string, unknown>): string {
  const metadata = isPlainObject(object.metadata) ? object.metadata : {};
  return describeObject({
    kind: String(object.kind ?? 'provider object'),
    metadata: {
      name: typeof metadata.name === 'string' ? metadata.name : undefined,
      namespace: typeof metadata.namespace === 'string' ? metadata.namespace : undefined,
    },
  });
}

function findingDiagnostic(
  source: SourceDocument,
  node: YamlNode | null,
  object: string,
  finding: ReturnType<typeof planV1alpha1Conversion>['findings'][number],
): Diagnostic {
  const path = formatFieldPath(finding.displayPath ?? finding.path);
  return {
    ...fieldPosition(source, node, finding.path, finding.at),
    object,
    path: path || undefined,
    message: finding.message,
    expected: finding.expected,
    hint: finding.hint,
  };
}

/** `-f` files and directories converted; every problem in every file is thrown at once. */
export async function convertManifestFiles(paths: readonly string[]): Promise<ConvertedFile[]> {
  const problems: Diagnostic[] = [];
  const files = await readManifestFiles(await listManifestFiles(paths, problems), problems);
  const results: ConvertedFile[] = [];
  for (const { file, text } of files) {
    const converted = convertManifestText(file, text);
    problems.push(...converted.problems);
    results.push(converted.result);
  }
  if (problems.length > 0) throw new CapiGitopsError(sortDiagnostics(problems));
  return results;
}
