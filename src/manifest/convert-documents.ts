/**
 * `capi-gitops convert`: rewrites operator.cluster.x-k8s.io/v1alpha1 provider objects as
 * v1alpha2 with the same edits the loader applies (v1alpha1.ts), and Rancher Turtles
 * CAPIProviders as the operator object and config Secret Turtles makes of them (turtles.ts).
 * Only the documents holding such an object (or the Secret a CAPIProvider writes into) are
 * re-written, through the `yaml` Document API (comments and key order kept, the document's own
 * indentation reused); every other byte of the file is kept.
 */
import {
  CST,
  Parser,
  isAlias,
  isMap,
  isNode,
  isScalar,
  parseDocument,
  visit,
  type Document,
  type Node as YamlNode,
  type YAMLMap,
} from 'yaml';
import { CapiGitopsError, sortDiagnostics, type Diagnostic } from '../core/diagnostics.js';
import { listManifestFiles, readManifestFiles } from './files.js';
import { describeObject, isPlainObject } from '../core/kobject.js';
import { isProviderKind, manifestLabel, OPERATOR_API_VERSION } from '../core/provider.js';
import { emitYamlDocument } from '../yaml/emit.js';
import { YamlBudget } from '../yaml/bounds.js';
import {
  CAPI_PROVIDER_KIND,
  capiProviderInList,
  gitOpsOwnerWarning,
  LAST_APPLIED_ANNOTATION,
  pruneNulls,
  SERVER_METADATA,
  stripServerFields,
  TURTLES_API_VERSION,
  V1ALPHA1_API_VERSION,
} from './documents.js';
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
import { planV1alpha1Conversion, type ConversionEdit } from './v1alpha1.js';
import {
  CLUSTER_INDEXED_PATCH,
  CLUSTER_INDEXED_LABEL,
  planTurtlesConversion,
  WRANGLER_CERTIFICATE_ANNOTATION,
  type TurtlesSecret,
} from './turtles.js';
import { shellWord } from '../core/shell.js';

interface ConvertedObject {
  file: string;
  line: number;
  column: number;
  /** `CoreProvider/capi-system/cluster-api` */
  object: string;
  /** What was done, when it is not a v1alpha1 object converted to v1alpha2. */
  note?: string;
}

export interface ConvertedFile {
  file: string;
  text: string;
  converted: ConvertedObject[];
  /** Valid input that works differently under capi-gitops (a CAPIProvider's credentials, …). */
  warnings: Diagnostic[];
  /** Where the file's first v1 Secret is (a document or a List item): its text holds Secret values. */
  secret?: Pick<Diagnostic, 'file' | 'line' | 'column' | 'object'>;
}

function isSecret(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && value.apiVersion === 'v1' && value.kind === 'Secret';
}

/**
 * The config Secrets of the CAPIProviders of all files: `existing` holds every Secret the files
 * have (namespace/name), `into` the variables to write into one of them.
 */
export interface TurtlesSecrets {
  existing: Set<string>;
  into: Map<string, { data: Record<string, string>; from: string[] }>;
}

function isCapiProvider(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && value.apiVersion === TURTLES_API_VERSION && value.kind === CAPI_PROVIDER_KIND;
}

function secretKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** Finds the Secrets of the files and which CAPIProviders write into them (first pass over every file). */
function turtlesSecrets(files: readonly { file: string; text: string }[]): TurtlesSecrets {
  const existing = new Set<string>();
  const made: { secret: TurtlesSecret; from: string }[] = [];
  for (const { file, text } of files) {
    for (const source of parseManifestFile(file, text).documents) {
      let value: unknown;
      try {
        value = documentValue(source);
      } catch {
        continue;
      }
      if (!isPlainObject(value)) continue;
      const metadata = isPlainObject(value.metadata) ? value.metadata : {};
      if (value.kind === 'Secret' && value.apiVersion === 'v1' && typeof metadata.name === 'string')
        existing.add(secretKey(String(metadata.namespace ?? ''), metadata.name));
      if (isCapiProvider(value)) {
        pruneNulls(value);
        const secret = planTurtlesConversion(value).secret;
        if (secret) made.push({ secret, from: objectLabel(value) });
      }
    }
  }
  const into = new Map<string, { data: Record<string, string>; from: string[] }>();
  for (const { secret, from } of made) {
    const key = secretKey(secret.namespace, secret.name);
    if (!existing.has(key)) continue;
    const entry = into.get(key) ?? { data: {}, from: [] };
    Object.assign(entry.data, secret.data);
    entry.from.push(from);
    into.set(key, entry);
  }
  return { existing, into };
}

/** The Secret document a CAPIProvider's variables become, with why it is there. */
function turtlesSecretText(secret: TurtlesSecret, from: string): string {
  const comment = [
    `# The config Secret Rancher Turtles writes for ${from} (internal/sync/secret_sync.go): its variables`,
    "# and features. They were plain text in the CAPIProvider; capi-gitops keeps a Secret's values out of",
    `# Git unless the Config lists them in secrets.public: ${Object.keys(secret.data).sort().join(', ')}.`,
  ].join('\n');
  const body = emitYamlDocument({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: secret.name, namespace: secret.namespace },
    stringData: secret.data,
  });
  return `${comment}\n${body}`;
}

const EDIT_OPTIONS = { version: '1.1', schema: 'failsafe', prettyErrors: false } as const;

/** v1alpha1 provider objects of a document value: the document itself, or items of a List. */
function v1alpha1Objects(value: unknown): ConvertibleObject[] {
  return convertibleObjects(value, (item, listVersion) => (item.apiVersion ?? listVersion) === V1ALPHA1_API_VERSION);
}

/**
 * v1alpha2 provider objects read from a cluster (`kubectl get … -o yaml`): what the server wrote on
 * them (status, managedFields, uid, …) is all there is to change, so the manifest committed is a
 * desired state, as kubectl-neat makes one (cmd/neat.go neatMetadata, neatStatus).
 */
function exportedObjects(value: unknown): ConvertibleObject[] {
  return convertibleObjects(
    value,
    (item, listVersion) => (item.apiVersion ?? listVersion) === OPERATOR_API_VERSION && isProviderKind(item.kind) && hasServerFields(item),
  );
}

interface ConvertibleObject {
  path: FieldPath;
  object: Record<string, unknown>;
}

/** The objects of a document (itself, or the items of a list) that `matches`. */
function convertibleObjects(
  value: unknown,
  matches: (item: Record<string, unknown>, listVersion?: unknown) => boolean,
): ConvertibleObject[] {
  if (!isPlainObject(value)) return [];
  const is = (item: unknown, listVersion?: unknown): item is Record<string, unknown> =>
    isPlainObject(item) && typeof (item.kind ?? '') === 'string' && matches(item, listVersion);
  if (typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items)) {
    const listVersion = value.kind === 'List' ? undefined : value.apiVersion;
    return value.items.flatMap((item, index) => (is(item, listVersion) ? [{ path: ['items', index], object: item }] : []));
  }
  return is(value) ? [{ path: [], object: value }] : [];
}

/** Whether an object carries what only the API server writes (or kubectl's record of the last apply). */
function hasServerFields(object: Record<string, unknown>): boolean {
  const metadata = isPlainObject(object.metadata) ? object.metadata : {};
  const annotations = isPlainObject(metadata.annotations) ? metadata.annotations : {};
  return (
    object.status !== undefined ||
    SERVER_METADATA.some((field) => Object.hasOwn(metadata, field)) ||
    Object.hasOwn(annotations, LAST_APPLIED_ANNOTATION)
  );
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
    unaliasPath(doc, path);
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

/**
 * Drops what the cluster wrote on an exported object (status, server-set metadata, kubectl's
 * last-applied-configuration), as the loader ignores it: the converted object is a desired state
 * for Git, and these belong to the object as it was (a v1alpha1 spec in last-applied, another
 * object's uid for a CAPIProvider; the API server refuses to create an object with a resourceVersion).
 */
function dropServerFields(doc: Document, prefix: FieldPath): void {
  const paths: FieldPath[] = [
    ['status'],
    ...SERVER_METADATA.map((field) => ['metadata', field]),
    ['metadata', 'annotations', LAST_APPLIED_ANNOTATION],
  ];
  for (const path of paths) if (doc.hasIn([...prefix, ...path])) doc.deleteIn([...prefix, ...path]);
  const annotations = doc.getIn([...prefix, 'metadata', 'annotations'], true);
  if (isMap(annotations) && annotations.items.length === 0) doc.deleteIn([...prefix, 'metadata', 'annotations']);
}

/**
 * The tracking metadata of the tool that applied an export (Flux's labels, Helm's ownership,
 * Argo CD's tracking-id annotation or instance label), dropped as render drops it: left in the
 * file, every render would tell the old owner again, and without the server fields render would
 * keep the instance label as the team's own. Each owner is told with how to stop it, as render told it.
 */
function dropTrackingMetadata(
  doc: Document,
  at: { source: SourceDocument; node: YamlNode | null; path: FieldPath },
  object: Record<string, unknown>,
  warnings: Diagnostic[],
): void {
  const stripped = structuredClone(object);
  for (const owner of stripServerFields(stripped))
    warnings.push({
      ...fieldPosition(at.source, at.node, ['metadata', ...owner.field], 'key'),
      object: objectLabel(object),
      ...gitOpsOwnerWarning(owner),
    });
  const metadata = isPlainObject(object.metadata) ? object.metadata : {};
  const kept = isPlainObject(stripped.metadata) ? stripped.metadata : {};
  for (const field of ['labels', 'annotations']) {
    const before = isPlainObject(metadata[field]) ? metadata[field] : {};
    const after = isPlainObject(kept[field]) ? kept[field] : {};
    const map: FieldPath = [...at.path, 'metadata', field];
    for (const key of Object.keys(before)) if (!Object.hasOwn(after, key) && doc.hasIn([...map, key])) doc.deleteIn([...map, key]);
    const left = doc.getIn(map, true);
    if (isMap(left) && left.items.length === 0) doc.deleteIn(map);
  }
}

/** `doc`, edited, written in the indentation its source `text` uses, so that it looks like the rest of the file; no line folded. */
function editedText(doc: Document, text: string): string {
  keepDanglingAliases(doc, text);
  const nested = /^\S[^\n]*:[ \t]*\n( +)[^\s#-]/m.exec(text);
  const indent = nested ? nested[1].length : 2;
  // `key:` followed by `- item` at the key's own column: sequences are not indented.
  const compactSeq = /^( *)[^\s#-][^\n]*:[ \t]*\n\1- /m.test(text);
  // `[a]` stays `[a]`: the library pads flow collections (`[ a ]`) unless told the file does not
  const padded = /: [[{] [^\]}]/.test(text);
  return doc.toString({ indent, indentSeq: !compactSeq, flowCollectionPadding: padded, lineWidth: 0, minContentWidth: 0 });
}

/**
 * Each alias on the way to an edited field (`spec: *anchored`) becomes a copy of the node it names:
 * the edit is the object's own (the anchored node stays as it was), and the library's setIn and
 * deleteIn do not go through an alias ("Expected YAML collection", an internal error).
 */
function unaliasPath(doc: Document, path: FieldPath): void {
  for (let depth = 1; depth < path.length; depth++) {
    const node = doc.getIn(path.slice(0, depth), true);
    if (!isAlias(node)) continue;
    const target = node.resolve(doc);
    if (!target) continue;
    // the copy is no anchor: a later alias still names the node as written
    const copy = target.clone() as YamlNode;
    delete copy.anchor;
    doc.setIn(path.slice(0, depth), copy);
  }
}

/**
 * An alias whose anchored node the conversion removed (an anchor on the conversion-data
 * annotation, on a CAPIProvider's variables) takes that node's value, as it read before: the
 * library cannot print an alias without its anchor ("Unresolved alias", an internal error).
 */
function keepDanglingAliases(doc: Document, text: string): void {
  const anchors = new Set<string>();
  visit(doc, (_, node) => void (isNode(node) && node.anchor && anchors.add(node.anchor)));
  let before: Document | undefined;
  visit(doc, {
    Alias(_, alias) {
      if (anchors.has(alias.source)) return undefined;
      before ??= parseDocument(text, EDIT_OPTIONS);
      let anchored: YamlNode | undefined;
      visit(before, (__, node) => {
        if (isNode(node) && node.anchor === alias.source) {
          anchored = node;
          return visit.BREAK;
        }
        return undefined;
      });
      if (!anchored) return undefined;
      anchors.add(alias.source);
      return anchored.clone() as YamlNode;
    },
  });
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
export function convertManifestText(
  file: string,
  text: string,
  turtles: TurtlesSecrets = turtlesSecrets([{ file, text }]),
): { result: ConvertedFile; problems: Diagnostic[] } {
  const parsed = parseManifestFile(file, text);
  const problems: Diagnostic[] = [...parsed.syntaxErrors];
  const warnings: Diagnostic[] = [];
  const converted: ConvertedObject[] = [];
  const replacements: { start: number; end: number; text: string }[] = [];
  const spans = documentSpans(text);
  let secret: ConvertedFile['secret'];
  for (const source of parsed.documents) {
    let value: unknown;
    try {
      value = documentValue(source);
    } catch {
      continue; // the loader reports unreadable documents; there is nothing to convert in them
    }
    const start = source.doc.range[0];
    const end = spans.get(start) ?? source.doc.range[2];
    const slice = text.slice(start, end);
    const root = source.doc.contents as YamlNode | null;
    const items: unknown[] = isPlainObject(value) && Array.isArray(value.items) ? value.items : [];
    const secretIndex = items.findIndex(isSecret);
    if (!secret && (isSecret(value) || secretIndex >= 0)) {
      const node = isSecret(value) ? root : locate(source, root, ['items', secretIndex]).node;
      secret = {
        ...nodePosition(source, node),
        object: objectLabel((isSecret(value) ? value : items[secretIndex]) as Record<string, unknown>),
      };
    }
    if (isCapiProvider(value)) {
      const replacement = convertCapiProvider(source, value, slice, turtles, { problems, warnings, converted });
      if (replacement !== undefined) replacements.push({ start, end, text: replacement });
      continue;
    }
    // render reads them, but convert rewrites a document's text: it says so rather than "nothing to convert"
    if (isPlainObject(value) && Array.isArray(value.items)) {
      value.items.forEach((item: unknown, index: number) => {
        if (!isCapiProvider(item)) return;
        const node = locate(source, root, ['items', index]).node;
        problems.push(findingDiagnostic(source, node, objectLabel(item), capiProviderInList(item)));
      });
    }
    const into = intoSecret(value, turtles);
    if (into) {
      const doc = parseDocument(slice, EDIT_OPTIONS);
      for (const [key, data] of Object.entries(into.data)) doc.setIn(['stringData', key], valueNode(data));
      converted.push({
        ...nodePosition(source, root),
        object: objectLabel(value as Record<string, unknown>),
        note: `wrote the variables of ${into.from.join(', ')} into it (stringData), as Turtles does`,
      });
      replacements.push({ start, end, text: editedText(doc, slice) });
      continue;
    }
    const objects = v1alpha1Objects(value);
    const exported = exportedObjects(value);
    if (objects.length === 0 && exported.length === 0) continue;
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
      dropServerFields(doc, path);
      // a v1alpha1 object written for Git keeps its labels and annotations: only an export is tracked
      if (hasServerFields(object)) dropTrackingMetadata(doc, { source, node, path }, object, warnings);
      converted.push({ ...nodePosition(source, node), object: label });
    }
    for (const { path, object } of exported) {
      dropServerFields(doc, path);
      const node = locate(source, source.doc.contents as YamlNode | null, path).node;
      dropTrackingMetadata(doc, { source, node, path }, object, warnings);
      converted.push({
        ...nodePosition(source, node),
        object: objectLabel(object),
        note: `removed the status and server-set metadata of ${objectLabel(object)}`,
      });
    }
    replacements.push({ start, end, text: editedText(doc, slice) });
  }
  let result = text;
  for (const { start, end, text: replacement } of replacements.reverse()) {
    // The yaml library writes LF: a CRLF file (written on Windows) keeps CRLF in the documents converted too.
    const crlf = text.slice(start, end).includes('\r\n');
    const original = crlf ? text.slice(start, end).replace(/\r\n/g, '\n') : text.slice(start, end);
    // A document ending without a line break (the file's last) keeps ending without one.
    const body = keepUnchangedLines(original, original.endsWith('\n') ? replacement : replacement.replace(/\n$/, ''));
    result = result.slice(0, start) + (crlf ? body.replace(/\n/g, '\r\n') : body) + result.slice(end);
  }
  return { result: { file, text: result, converted, warnings, ...(secret ? { secret } : {}) }, problems };
}

/**
 * The yaml library writes a comment one space after its line's content (`name: x # why`): each
 * line the conversion did not change keeps its own spacing, so the diff shows the conversion
 * alone. A written line takes back the original it equals once one run of white space before a
 * `#` is one space (the library keeps every scalar's text, so that run is a comment's); lines
 * pair in order.
 */
function keepUnchangedLines(original: string, converted: string): string {
  const unused = new Map<string, { line: string; used: boolean }[]>();
  for (const line of original.split('\n')) {
    const entry = { line, used: false };
    for (const run of line.matchAll(/[ \t]+(?=#)/g)) {
      if (run[0] === ' ') continue;
      const key = line.slice(0, run.index) + ' ' + line.slice(run.index + run[0].length);
      unused.set(key, [...(unused.get(key) ?? []), entry]);
    }
  }
  if (unused.size === 0) return converted;
  // a line written as it was is the user's already (and may be another line's key: `"a # b"`)
  const verbatim = new Set(original.split('\n'));
  return converted
    .split('\n')
    .map((line) => {
      const entry = verbatim.has(line) ? undefined : unused.get(line)?.find((e) => !e.used);
      if (!entry) return line;
      entry.used = true;
      return entry.line;
    })
    .join('\n');
}

/** A Secret of the files a CAPIProvider writes its variables into. */
function intoSecret(value: unknown, turtles: TurtlesSecrets): { data: Record<string, string>; from: string[] } | undefined {
  if (!isPlainObject(value) || value.kind !== 'Secret' || value.apiVersion !== 'v1') return undefined;
  const metadata = isPlainObject(value.metadata) ? value.metadata : {};
  return turtles.into.get(secretKey(String(metadata.namespace ?? ''), String(metadata.name ?? '')));
}

/** A CAPIProvider document as its operator object, followed by its config Secret unless the files have one. */
function convertCapiProvider(
  source: SourceDocument,
  value: Record<string, unknown>,
  slice: string,
  turtles: TurtlesSecrets,
  out: { problems: Diagnostic[]; warnings: Diagnostic[]; converted: ConvertedObject[] },
): string | undefined {
  pruneNulls(value);
  const plan = planTurtlesConversion(value);
  const root = source.doc.contents as YamlNode | null;
  const label = objectLabel(value);
  for (const finding of plan.findings) out.problems.push(findingDiagnostic(source, root, label, finding));
  for (const finding of plan.warnings) out.warnings.push(findingDiagnostic(source, root, label, finding));
  // the operator object and its Secret are named from these: a map or list was written as "[object Object]" or ""
  const metadataOf = isPlainObject(value.metadata) ? value.metadata : {};
  const misnamed = (['name', 'namespace'] as const).filter((f) => metadataOf[f] !== undefined && typeof metadataOf[f] !== 'string');
  for (const field of misnamed) {
    const example = field === 'name' ? 'vsphere' : 'capv-system';
    const finding = {
      path: ['metadata', field],
      at: 'value' as const,
      message: 'is not a string',
      expected: `the CAPIProvider's ${field}, a string`,
    };
    out.problems.push(findingDiagnostic(source, root, label, { ...finding, hint: `write one ${field}, e.g. ${field}: ${example}` }));
  }
  if (!plan.kind || plan.findings.length > 0 || misnamed.length > 0) return undefined;
  const doc = parseDocument(slice, EDIT_OPTIONS);
  applyEditsToDocument(doc, [], plan.edits);
  dropServerFields(doc, []);
  const metadata = isPlainObject(value.metadata) ? value.metadata : {};
  const spec = isPlainObject(value.spec) ? value.spec : {};
  const target = describeObject({
    kind: plan.kind,
    metadata: {
      name: String(spec.name || metadata.name || ''),
      namespace: typeof metadata.namespace === 'string' ? metadata.namespace : undefined,
    },
  });
  let text = editedText(doc, slice);
  const secret = plan.secret!;
  const written = turtles.existing.has(secretKey(secret.namespace, secret.name));
  if (!written) text = `${text.endsWith('\n') ? text : `${text}\n`}---\n${turtlesSecretText(secret, label)}`;
  out.converted.push({
    ...nodePosition(source, root),
    object: label,
    note: `converted ${label} to ${target}${written ? '' : ` and Secret ${secret.namespace}/${secret.name}`}, as Rancher Turtles reconciles it`,
  });
  out.warnings.push({
    ...nodePosition(source, root),
    object: label,
    message: `Turtles labels every CRD of this provider's components ${CLUSTER_INDEXED_LABEL}: "true" (internal/provider/rancher.go AddClusterIndexedLabelFn); as ${target}, an operator object, they render without it`,
    hint: `to keep the label, add this entry to ${target}'s spec.patches, after any entry it has (Turtles labels after the operator's patches)`,
    example: CLUSTER_INDEXED_PATCH,
  });
  out.warnings.push(
    noCertManagerWarning(nodePosition(source, root), label, target, {
      namespace: typeof metadata.namespace === 'string' ? metadata.namespace : '',
      provider: manifestLabel(plan.kind, String(spec.name || metadata.name || '')),
    }),
  );
  return text;
}

/**
 * Where Turtles ran the provider with no-cert-manager on (internal/provider/wrangler.go
 * WranglerPatcher), Rancher serves its webhooks; the operator object applies cert-manager's
 * Certificates again, and Rancher's annotation left on the Services would keep a second writer.
 */
function noCertManagerWarning(
  at: Pick<Diagnostic, 'file' | 'line' | 'column'>,
  label: string,
  target: string,
  services: { namespace: string; provider: string },
): Diagnostic {
  const { namespace, provider } = services;
  return {
    ...at,
    object: label,
    message:
      `Turtles with its no-cert-manager feature on (on by default from v0.27.0; turtles.noCertManager in the Config) applies this provider ` +
      `without its Certificates and Issuers, its webhook Services annotated ${WRANGLER_CERTIFICATE_ANNOTATION} for Rancher; ` +
      `as ${target}, the cluster-api-operator applies them for cert-manager`,
    hint:
      'render with cert-manager (certManager.enabled, on unless the Config turns it off) and, where Turtles ran this provider so, ' +
      `take Rancher's annotation off its Services once the operator object has applied: ` +
      `kubectl annotate services -n ${shellWord(namespace)} -l ${shellWord(`cluster.x-k8s.io/provider=${provider}`)} ${WRANGLER_CERTIFICATE_ANNOTATION}-`,
  };
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
  // bounded as render reads them (load.ts): a nesting deeper than the parser's stack overflowed it
  const budget = new YamlBudget();
  const files = (await readManifestFiles(await listManifestFiles(paths, problems), problems)).filter(({ file, text }) => {
    try {
      budget.check(text, file);
      return true;
    } catch (error) {
      if (!(error instanceof CapiGitopsError)) throw error;
      problems.push(...error.diagnostics);
      return false;
    }
  });
  const turtles = turtlesSecrets(files);
  const results: ConvertedFile[] = [];
  for (const { file, text } of files) {
    const converted = convertManifestText(file, text, turtles);
    problems.push(...converted.problems);
    results.push(converted.result);
  }
  if (problems.length > 0) throw new CapiGitopsError(sortDiagnostics(problems));
  return results;
}
