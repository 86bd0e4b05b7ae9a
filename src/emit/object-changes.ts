/**
 * Which Kubernetes objects a write added, changed or removed, from the bytes of the files it
 * rewrote or removed. Objects are matched by group, kind, namespace and name, never by file, so
 * an object that moves between files unchanged is not reported; a file whose only change is a
 * comment (the provenance header) changes no object.
 *
 * The objects of a file are summarised as `ObjectRef`s (identity and a digest of the value), so
 * a render served from the output cache can give the new side without parsing its files again.
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
  if (!YAML_FILE.test(file)) return [];
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
  if (!YAML_FILE.test(file)) return [];
  return refsOf(parseArtifact(text, { source: file }));
}

function refsOf(objects: readonly KObject[]): ObjectRef[] {
  const refs: ObjectRef[] = [];
  for (const object of objects) {
    if (apiGroup(String(object.apiVersion ?? '')) === KUSTOMIZE_CONFIG_GROUP) continue;
    const metadata = isPlainObject(object.metadata) ? object.metadata : {};
    refs.push({
      apiVersion: String(object.apiVersion ?? ''),
      kind: String(object.kind ?? ''),
      namespace: String(metadata.namespace ?? ''),
      name: String(metadata.name ?? ''),
      digest: createHash('sha256').update(JSON.stringify(object)).digest('hex'),
    });
  }
  return refs;
}

/**
 * The objects that differ between the previous and the new bytes of the files a write touched,
 * sorted by file, then kind, namespace, name. `known` gives the new side's objects per file
 * where they are known already; other files are parsed.
 */
export function objectChanges(
  summary: Pick<WriteSummary, 'written' | 'previous'>,
  files: ReadonlyMap<string, string | Uint8Array>,
  known?: ReadonlyMap<string, ObjectRef[]>,
): ObjectChange[] {
  const text = (bytes: string | Uint8Array | undefined) => (typeof bytes === 'string' ? bytes : Buffer.from(bytes ?? '').toString('utf8'));
  return compareObjects(
    [...summary.previous].map(([file, bytes]) => [file, objectRefs(file, bytes.toString('utf8'))]),
    summary.written.map((file) => [file, known?.get(file) ?? objectRefs(file, text(files.get(file)))]),
  );
}
