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
import { compareObjects, type ObjectChange, type ObjectRef } from './object-diff.js';
import type { KObject } from '../core/kobject.js';
import type { WriteSummary } from '../output/write.js';

export type { ObjectChange, ObjectChangeKind, ObjectRef } from './object-diff.js';

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
): ObjectChange[] {
  const text = (bytes: string | Uint8Array | undefined) => (typeof bytes === 'string' ? bytes : Buffer.from(bytes ?? '').toString('utf8'));
  const before = [...summary.previous].map(([file, bytes]): [string, ObjectRef[]] => [file, objectRefs(file, bytes.toString('utf8'))]);
  // coarser than compareObjects' key (no file's cluster), so every object it compares keeps its value
  const identity = (r: ObjectRef) => [apiGroup(r.apiVersion), r.kind, r.namespace, r.name].join('\0');
  const known = new Set(before.flatMap(([, refs]) => refs.map(identity)));
  return compareObjects(
    before,
    summary.written.map((file): [string, ObjectRef[]] => [
      file,
      objectRefs(file, text(files.get(file))).map((r) => (known.has(identity(r)) ? r : identityOnly(r))),
    ]),
  );
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
