/**
 * Which Kubernetes objects a write added, changed or removed, from the bytes of the files it
 * rewrote or removed. Objects are matched by group, kind, namespace and name, never by file, so
 * an object that moves between files unchanged is not reported; a file whose only change is a
 * comment (the provenance header) changes no object.
 *
 * The objects of a file are summarised as `ObjectRef`s (identity, and a digest of the value
 * computed only when an object is on both sides).
 *
 * In a fleet's shared layout each cluster's copy is compared: a base file counts for the clusters
 * that moved onto or off it (`base-reach.ts`), so an object moving between a base and a
 * cluster's directory unchanged is no change.
 */
import { sha256Hex } from '../core/digest.js';
import { apiGroup, isPlainObject } from '../core/kobject.js';
import { YamlBudget } from '../yaml/bounds.js';
import { parseArtifact } from '../yaml/parse.js';
import { splitDocuments } from '../yaml/split.js';
import type { KObject } from '../core/kobject.js';
import type { WriteSummary } from '../output/write.js';
import { CapiGitopsError, compareStrings } from '../core/diagnostics.js';
import { baseOf, baseReach, NO_REACH, type BaseReach } from './base-reach.js';
import type { ChangeType } from './types.js';

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
 * a write of many new files does not hold them all parsed. `unreadable` is told of each previous
 * file whose objects are not listed, and why.
 */
export function objectChanges(
  summary: Pick<WriteSummary, 'written' | 'previous'> & Partial<Pick<WriteSummary, 'unchanged'>>,
  files: Pick<ReadonlyMap<string, string | Uint8Array>, 'get'>,
  unreadable: (file: string, reason: string) => void = () => undefined,
): ObjectChange[] {
  const text = (bytes: string | Uint8Array | undefined) => (typeof bytes === 'string' ? bytes : Buffer.from(bytes ?? '').toString('utf8'));
  const previous = previousTexts(summary.previous, unreadable);
  // a previous file that no longer parses (edited by hand into invalid YAML) holds no objects: the write has happened
  const previousRefs = (file: string, before: string | undefined): ObjectRef[] => {
    if (before === undefined) return [];
    try {
      return objectRefs(file, before);
    } catch {
      unreadable(file, 'its previous text is not valid YAML');
      return [];
    }
  };
  const reach = writeReach(summary, previous, (file) => text(files.get(file)));
  // a base file the write left alone holds the objects of a cluster that moved onto or off it
  const before = [
    ...[...previous].map(([file, old]): [string, ObjectRef[]] => [file, previousRefs(file, old)]),
    ...untouchedFiles(summary, reach.before).map((file): [string, ObjectRef[]] => [file, objectRefs(file, text(files.get(file)))]),
  ];
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
    [...summary.written, ...untouchedFiles(summary, reach.after)].map((file): [string, ObjectRef[]] => [file, refsNow(file)]),
    reach,
  );
}

/**
 * The previous texts of the files a write touched, undefined for a YAML file over the YAML node or
 * depth bounds: they were on disk, input like a manifest, and are held to its bounds before a
 * parser reads them (12 MB of flow list cost a render 1.6 s and 260 MB).
 */
function previousTexts(previous: ReadonlyMap<string, Buffer>, unreadable: (file: string, reason: string) => void) {
  const texts = new Map<string, string | undefined>();
  for (const [file, bytes] of previous) {
    const text = bytes.toString('utf8');
    texts.set(file, text);
    if (!YAML_FILE.test(file)) continue;
    try {
      new YamlBudget().check(text, file);
    } catch (err) {
      if (!(err instanceof CapiGitopsError)) throw err;
      const [first] = err.diagnostics;
      unreadable(
        file,
        `its previous text is over a YAML bound (${first?.line ? `line ${first.line}: ` : ''}${first?.message ?? err.message})`,
      );
      texts.set(file, undefined);
    }
  }
  return texts;
}

/** The clusters a write moved onto or off a base, from the cluster kustomizations it touched. */
function writeReach(
  summary: Pick<WriteSummary, 'written' | 'previous'>,
  previous: ReadonlyMap<string, string | undefined>,
  now: (file: string) => string,
): BaseReach {
  // into a new directory every object is added wherever it is: no kustomization is read
  if (summary.previous.size === 0) return NO_REACH;
  const written = new Set(summary.written);
  return baseReach(
    new Set([...summary.written, ...summary.previous.keys()]),
    (file) => previous.get(file),
    (file) => (written.has(file) ? now(file) : undefined),
  );
}

/** The files of these bases that the write left as they were. */
function untouchedFiles(summary: Partial<Pick<WriteSummary, 'unchanged'>>, bases: ReadonlyMap<string, unknown>): string[] {
  if (bases.size === 0) return [];
  return (summary.unchanged ?? []).filter((file) => bases.has(baseOf(file) ?? ''));
}

/** Lines at column 0 (top-level keys, in the block mappings every written file holds). */
const TOP_LEVEL_LINE = /^[^\s#][^\n]*/gm;
const IDENTITY_KEY = /^(apiVersion|kind|metadata):/;

/**
 * The identities of a created file's objects, each document parsed only up to its first
 * top-level key after apiVersion, kind and metadata: those objects are listed, never compared.
 * A render into a new directory creates every file; parsed whole, they cost the corpus's CI
 * render 35–45 ms of CPU (DEVELOPERS.md). Undefined when a document does not start with those
 * three keys (not the shape capi-gitops writes): the file is then parsed whole.
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

export interface ObjectChange extends ObjectIdentity {
  change: ChangeType;
  /** The file, relative to the output directory, that holds the object now (or held it). */
  file: string;
  /** A file in a fleet's base: the clusters that got this change from it (reported once for all of them). */
  clusters?: string[];
}

/** Who an object is: group, kind, namespace and name (empty for cluster-scoped objects). */
interface ObjectIdentity {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

/**
 * One object of a file: who it is, and the sha256 of its value serialised, to compare. The
 * digest may be a getter computed on first use: only an object present on both sides is compared.
 */
interface ObjectRef extends ObjectIdentity {
  readonly digest: string;
}

interface Located<T extends ObjectIdentity> {
  ref: T;
  file: string;
  /** The cluster it is compared for, when it moved onto or off its base with that cluster. */
  cluster?: string;
}

/** A fleet's file is in `clusters/<name>/` or a base, `bases/<component>/<version>-<digest>/`: each has its own copy of an object. */
const FLEET_CLUSTER = /^(?:clusters\/[^/]+|bases\/[^/]+\/[^/]+)\//;

/** Keyed by place and identity: a base file a cluster moved onto or off is that cluster's place. */
function located<T extends ObjectIdentity>(
  files: Iterable<[string, readonly T[]]>,
  reach: ReadonlyMap<string, string[]>,
): Map<string, Located<T>> {
  const objects = new Map<string, Located<T>>();
  for (const [file, refs] of files) {
    const clusters: (string | undefined)[] = reach.get(baseOf(file) ?? '') ?? [undefined];
    for (const cluster of clusters) {
      const place = cluster === undefined ? (FLEET_CLUSTER.exec(file)?.[0] ?? '') : `clusters/${cluster}/`;
      for (const ref of refs) {
        const key = [place, apiGroup(ref.apiVersion), ref.kind, ref.namespace, ref.name].join('\0');
        objects.set(key, { ref, file, ...(cluster === undefined ? {} : { cluster }) });
      }
    }
  }
  return objects;
}

/**
 * The objects added, changed or removed, sorted by file, then kind, namespace, name. An object
 * that several clusters moved onto or off a base alike is one change, naming them.
 */
function compareObjects(
  before: Iterable<[string, readonly ObjectRef[]]>,
  after: Iterable<[string, readonly ObjectRef[]]>,
  reach: BaseReach = NO_REACH,
): ObjectChange[] {
  const old = located(before, reach.before);
  const now = located(after, reach.after);
  const changes = new Map<string, ObjectChange>();
  const record = (kind: ChangeType, object: Located<ObjectIdentity>, from?: Located<ObjectIdentity>) => {
    const key = [kind, from?.file, object.file, apiGroup(object.ref.apiVersion), object.ref.kind, object.ref.namespace, object.ref.name];
    const cluster = object.cluster ?? from?.cluster;
    const earlier = changes.get(key.join('\0'));
    // only clusters moved onto or off a base share a key: the same change, once, naming them
    if (earlier) earlier.clusters?.push(cluster ?? '');
    else changes.set(key.join('\0'), change(kind, object, baseOf(object.file) && cluster ? [cluster] : undefined));
  };
  for (const [key, object] of now) {
    const previous = old.get(key);
    if (!previous) record('added', object);
    else if (previous.ref.digest !== object.ref.digest) record('changed', object, previous);
  }
  for (const [key, object] of old) if (!now.has(key)) record('removed', object);
  return sortChanges([...changes.values()]);
}

function change(kind: ChangeType, { ref, file }: Located<ObjectIdentity>, clusters: string[] | undefined): ObjectChange {
  return {
    change: kind,
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    namespace: ref.namespace,
    name: ref.name,
    file,
    ...(clusters ? { clusters } : {}),
  };
}

function sortChanges(changes: ObjectChange[]): ObjectChange[] {
  for (const c of changes) c.clusters?.sort(compareStrings);
  return changes.sort(
    (a, b) =>
      compareStrings(a.file, b.file) ||
      compareStrings(a.kind, b.kind) ||
      compareStrings(a.namespace, b.namespace) ||
      compareStrings(a.name, b.name),
  );
}
