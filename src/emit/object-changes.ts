/**
 * Which Kubernetes objects a write added, changed or removed, from the bytes of the files it
 * rewrote or removed. Objects are matched by group, kind, namespace and name, never by file, so
 * an object that moves between files unchanged is not reported; a file whose only change is a
 * comment (the provenance header) changes no object.
 */
import { apiGroup, isPlainObject } from '../model/kobject.js';
import { compareStrings } from '../model/diagnostics.js';
import { parseArtifact } from '../yaml/parse.js';
import type { WriteSummary } from './write.js';

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

interface Located {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  file: string;
  /** The object's value, serialised, to compare. */
  value: string;
}

const YAML_FILE = /\.ya?ml$/;
const KUSTOMIZE_CONFIG_GROUP = 'kustomize.config.k8s.io';

function objectsOf(files: Iterable<[string, string]>): Map<string, Located> {
  const objects = new Map<string, Located>();
  for (const [file, text] of files) {
    if (!YAML_FILE.test(file)) continue;
    for (const object of parseArtifact(text, { source: file })) {
      // kustomization.yaml files are layout, not objects the cluster gets
      if (apiGroup(String(object.apiVersion ?? '')) === KUSTOMIZE_CONFIG_GROUP) continue;
      const metadata = isPlainObject(object.metadata) ? object.metadata : {};
      const located = { apiVersion: String(object.apiVersion ?? ''), kind: String(object.kind ?? ''), namespace: String(metadata.namespace ?? ''), name: String(metadata.name ?? ''), file, value: JSON.stringify(object) };
      objects.set([apiGroup(located.apiVersion), located.kind, located.namespace, located.name].join('\0'), located);
    }
  }
  return objects;
}

/** The objects that differ between the previous and the new bytes of the files a write touched, sorted by file, then kind, namespace, name. */
export function objectChanges(summary: Pick<WriteSummary, 'written' | 'previous'>, files: Map<string, string>): ObjectChange[] {
  const before = objectsOf([...summary.previous].map(([file, bytes]) => [file, bytes.toString('utf8')]));
  const after = objectsOf(summary.written.map((file) => [file, files.get(file) ?? '']));
  const changes: ObjectChange[] = [];
  const report = (change: ObjectChangeKind, { value: _value, ...object }: Located) => changes.push({ change, ...object });
  for (const [key, object] of after) {
    const old = before.get(key);
    if (!old) report('added', object);
    else if (old.value !== object.value) report('changed', object);
  }
  for (const [key, object] of before) if (!after.has(key)) report('removed', object);
  return changes.sort((a, b) => compareStrings(a.file, b.file) || compareStrings(a.kind, b.kind) || compareStrings(a.namespace, b.namespace) || compareStrings(a.name, b.name));
}
