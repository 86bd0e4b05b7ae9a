/**
 * Which Kubernetes objects a write added, changed or removed, from the bytes of the files it
 * rewrote or removed. Objects are matched by group, kind, namespace and name, never by file, so
 * an object that moves between files unchanged is not reported; a file whose only change is a
 * comment (the provenance header) changes no object.
 *
 * The objects of a file are summarised as `ObjectRef`s (identity, and a digest of the value
 * computed only when an object is on both sides).
 */
import { createHash } from 'node:crypto';
import { apiGroup, isPlainObject } from '../model/kobject.js';
import { parseArtifact } from '../yaml/parse.js';
import { compareObjects, type ObjectChange, type ObjectRef } from './object-diff.js';
import { emittedObject } from './emitted-objects.js';
import type { KObject } from '../model/kobject.js';
import type { WriteSummary } from './write.js';

export type { ObjectChange, ObjectChangeKind, ObjectRef } from './object-diff.js';

const YAML_FILE = /\.ya?ml$/;
/** Kustomize's own file (it reads no other name as one): layout, never parsed for objects. */
const KUSTOMIZATION_FILE = /(^|\/)kustomization\.ya?ml$/;
const KUSTOMIZE_CONFIG_GROUP = 'kustomize.config.k8s.io';

/**
 * The refs of each text already summarised in this process. A render's report and the output
 * cache both summarise every file written (a cold render parsed its whole output twice, about
 * 80 ms), and a fleet's clusters write the same text many times: each distinct text is parsed
 * once. Refs depend on the text alone; the memo is emptied when it grows past MEMO_LIMIT texts.
 */
const refsByText = new Map<string, ObjectRef[]>();
const MEMO_LIMIT = 4096;

/** The objects a file holds; none for a file that is not YAML, and none for kustomization files (layout, not objects the cluster gets). */
export function objectRefs(file: string, text: string): ObjectRef[] {
  if (!YAML_FILE.test(file) || KUSTOMIZATION_FILE.test(file)) return [];
  const known = refsByText.get(text);
  if (known) return known;
  const emitted = emittedObject(text);
  const refs = emitted ? refsOf([emitted]) : parsedObjectRefs(file, text);
  if (refsByText.size >= MEMO_LIMIT) refsByText.clear();
  refsByText.set(text, refs);
  return refs;
}

/** objectRefs from the file's text alone, parsed (what objectRefs gives for a text this process did not emit). */
export function parsedObjectRefs(file: string, text: string): ObjectRef[] {
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
    this.#digest ??= createHash('sha256').update(JSON.stringify(this.#object)).digest('hex');
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
 * sorted by file, then kind, namespace, name. Files this process did not emit are parsed. A
 * previous file that no longer parses (edited by hand into invalid YAML) counts as holding no
 * objects and is passed to `unreadable`: the write it reports on has happened.
 */
export function objectChanges(
  summary: Pick<WriteSummary, 'written' | 'previous'>,
  files: ReadonlyMap<string, string | Uint8Array>,
  unreadable: (file: string) => void = () => undefined,
): ObjectChange[] {
  const text = (bytes: string | Uint8Array | undefined) => (typeof bytes === 'string' ? bytes : Buffer.from(bytes ?? '').toString('utf8'));
  const previousRefs = (file: string, bytes: Buffer): ObjectRef[] => {
    try {
      return objectRefs(file, bytes.toString('utf8'));
    } catch {
      unreadable(file);
      return [];
    }
  };
  return compareObjects(
    [...summary.previous].map(([file, bytes]) => [file, previousRefs(file, bytes)]),
    summary.written.map((file) => [file, objectRefs(file, text(files.get(file)))]),
  );
}
