/**
 * Which Kubernetes objects a write added, changed or removed, from the bytes of the files it
 * rewrote or removed. Objects are matched by group, kind, namespace and name, never by file, so
 * an object that moves between files unchanged is not reported; a file whose only change is a
 * comment (the provenance header) changes no object.
 *
 * The objects of a file are summarised as `ObjectRef`s (identity, and a digest of the value
 * computed only when an object is on both sides).
 */
import { sha256Hex } from '../core/digest.js';
import { apiGroup, isPlainObject } from '../core/kobject.js';
import { parseArtifact } from '../yaml/parse.js';
import { splitDocuments } from '../yaml/split.js';
import type { KObject } from '../core/kobject.js';
import type { WriteSummary } from '../output/write.js';
import { compareStrings } from '../core/diagnostics.js';

const YAML_FILE = /\.ya?ml$/;
/** Kustomize's own file (it reads no other name as one): layout, never parsed for objects. */
const KUSTOMIZATION_FILE = /(^|\/)kustomization\.ya?ml$/;
const KUSTOMIZE_CONFIG_GROUP = 'kustomize.config.k8s.io';

/** The objects a file holds; none for a file that is not YAML, and none for kustomization files (layout, not objects the cluster gets). */
export function objectRefs(file: string, text: string): ObjectRef[] {
  if (!YAML_FILE.test(file) || KUSTOMIZATION_FILE.test(file)) return [];
  return refsOf(parseArtifact(text, { source: file }));
}

/**
 * An object's identity, and its digest computed when first compared: a write into a new
 * directory compares nothing, and serialising and hashing every object cost a cold corpus
 * render about 30 ms. Only the identity fields are own properties (what JSON keeps).
 */
class KObjectRef implements ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly #object: KObject;
  #digest: string | undefined;

  constructor(object: KObject) {
    const metadata = isPlainObject(object.metadata) ? object.metadata : {};
    this.apiVersion = String(object.apiVersion ?? '');
    this.kind = String(object.kind ?? '');
    this.namespace = String(metadata.namespace ?? '');
    this.name = String(metadata.name ?? '');
    this.#object = object;
  }

  get digest(): string {
    this.#digest ??= sha256Hex(JSON.stringify(this.#object));
    return this.#digest;
  }
}

function refsOf(objects: readonly KObject[]): ObjectRef[] {
  return objects
    .filter((object) => apiGroup(String(object.apiVersion ?? '')) !== KUSTOMIZE_CONFIG_GROUP)
    .map((object) => new KObjectRef(object));
}

/**
 * The objects that differ between the previous and the new bytes of the files a write touched,
 * sorted by file, then kind, namespace, name. Files this process did not emit are parsed. A new
 * object whose identity was in no previous file keeps no parsed value (it is never compared), so
 * a write of many new files does not hold them all parsed.
 */
export function objectChanges(
  summary: Pick<WriteSummary, 'written' | 'previous'>,
  files: Pick<ReadonlyMap<string, string | Uint8Array>, 'get'>,
  unreadable: (file: string) => void = () => undefined,
): ObjectChange[] {
  const text = (bytes: string | Uint8Array | undefined) => (typeof bytes === 'string' ? bytes : Buffer.from(bytes ?? '').toString('utf8'));
  // a previous file that no longer parses (edited by hand into invalid YAML) holds no objects: the write has happened
  const previousRefs = (file: string, bytes: Buffer): ObjectRef[] => {
    try {
      return objectRefs(file, bytes.toString('utf8'));
    } catch {
      unreadable(file);
      return [];
    }
  };
  const before = [...summary.previous].map(([file, bytes]): [string, ObjectRef[]] => [file, previousRefs(file, bytes)]);
  // coarser than compareObjects' key (no file's cluster), so every object it compares keeps its value
  const identity = (r: ObjectRef) => [apiGroup(r.apiVersion), r.kind, r.namespace, r.name].join('\0');
  const known = new Set(before.flatMap(([, refs]) => refs.map(identity)));
  const refsNow = (file: string): ObjectRef[] => {
    const now = text(files.get(file));
    // a file the write created holds new objects, unless one moved here from a file it changed
    const created = summary.previous.has(file) ? undefined : createdRefs(file, now);
    if (created && !created.some((r) => known.has(identity(r)))) return created;
    return objectRefs(file, now).map((r) => (known.has(identity(r)) ? r : identityOnly(r)));
  };
  return compareObjects(
    before,
    summary.written.map((file): [string, ObjectRef[]] => [file, refsNow(file)]),
  );
}

/** Lines at column 0 (top-level keys, in the block mappings every written file holds). */
const TOP_LEVEL_LINE = /^[^\s#][^\n]*/gm;
const IDENTITY_KEY = /^(apiVersion|kind|metadata):/;

/**
 * The identities of a created file's objects, each document parsed only up to its first
 * top-level key after apiVersion, kind and metadata: those objects are listed, never compared.
 * A render into a new directory creates every file, and parsing them whole took 45 ms of the
 * corpus's CI render (DEVELOPERS.md). Undefined when a document does not start with those three
 * keys (not the shape capi-gitops writes): the file is then parsed whole.
 */
function createdRefs(file: string, text: string): ObjectRef[] | undefined {
  if (!YAML_FILE.test(file) || KUSTOMIZATION_FILE.test(file)) return [];
  const { chunks, problems } = splitDocuments(text, file);
  if (problems.length > 0) return undefined;
  const objects: KObject[] = [];
  for (const { start, end } of chunks) {
    const header = identityHeader(text.slice(start, end));
    if (header === undefined) return undefined;
    const parsed = parseHeader(header, file);
    if (parsed?.length !== 1) return undefined;
    objects.push(parsed[0]!);
  }
  return refsOf(objects).map(identityOnly);
}

function parseHeader(header: string, file: string): KObject[] | undefined {
  try {
    return parseArtifact(header, { source: file });
  } catch {
    return undefined;
  }
}

/** The document up to its first top-level key besides apiVersion, kind and metadata, once all three were seen. */
function identityHeader(document: string): string | undefined {
  const seen = new Set<string>();
  for (const line of document.matchAll(TOP_LEVEL_LINE)) {
    const key = IDENTITY_KEY.exec(line[0])?.[1];
    if (key === undefined) return seen.size === 3 ? document.slice(0, line.index) : undefined;
    seen.add(key);
  }
  return seen.size === 3 ? document : undefined;
}

/** An object's identity alone: its digest is never asked for. */
function identityOnly(ref: ObjectRef): ObjectRef {
  const { apiVersion, kind, namespace, name } = ref;
  return {
    apiVersion,
    kind,
    namespace,
    name,
    get digest(): string {
      throw new Error('the digest of an object present on one side only');
    },
  };
}

export type ObjectChangeKind = 'added' | 'changed' | 'removed';

export interface ObjectChange {
  change: ObjectChangeKind;
  apiVersion: string;
  kind: string;
  /** Empty for cluster-scoped objects. */
  namespace: string;
  name: string;
  /** The file, relative to the output directory, that holds the object now (or held it). */
  file: string;
}

/** Who an object is: group, kind, namespace and name. */
export interface ObjectIdentity {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

/**
 * One object of a file: who it is, and the sha256 of its value serialised, to compare. The
 * digest may be a getter computed on first use: only an object present on both sides is compared.
 */
export interface ObjectRef extends ObjectIdentity {
  readonly digest: string;
}

interface Located<T extends ObjectIdentity> {
  ref: T;
  file: string;
}

/** A fleet's file is in `clusters/<name>/` or a base, `bases/<component>/<version>-<digest>/`: each has its own copy of an object. */
const FLEET_CLUSTER = /^(?:clusters\/[^/]+|bases\/[^/]+\/[^/]+)\//;

function located<T extends ObjectIdentity>(files: Iterable<[string, readonly T[]]>): Map<string, Located<T>> {
  const objects = new Map<string, Located<T>>();
  for (const [file, refs] of files) {
    const cluster = FLEET_CLUSTER.exec(file)?.[0] ?? '';
    for (const ref of refs) objects.set([cluster, apiGroup(ref.apiVersion), ref.kind, ref.namespace, ref.name].join('\0'), { ref, file });
  }
  return objects;
}

/** The objects added, changed or removed, sorted by file, then kind, namespace, name. */
export function compareObjects(
  before: Iterable<[string, readonly ObjectRef[]]>,
  after: Iterable<[string, readonly ObjectRef[]]>,
): ObjectChange[] {
  const old = located(before);
  const now = located(after);
  const changes: ObjectChange[] = [];
  for (const [key, object] of now) {
    const previous = old.get(key);
    if (!previous) changes.push(change('added', object));
    else if (previous.ref.digest !== object.ref.digest) changes.push(change('changed', object));
  }
  for (const [key, object] of old) if (!now.has(key)) changes.push(change('removed', object));
  return sortChanges(changes);
}

function change(kind: ObjectChangeKind, { ref, file }: Located<ObjectIdentity>): ObjectChange {
  return { change: kind, apiVersion: ref.apiVersion, kind: ref.kind, namespace: ref.namespace, name: ref.name, file };
}

function sortChanges(changes: ObjectChange[]): ObjectChange[] {
  return changes.sort(
    (a, b) =>
      compareStrings(a.file, b.file) ||
      compareStrings(a.kind, b.kind) ||
      compareStrings(a.namespace, b.namespace) ||
      compareStrings(a.name, b.name),
  );
}
