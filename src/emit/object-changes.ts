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

/** A fleet's file is in `clusters/<name>/`: every cluster has its own copy of an object. */
const FLEET_CLUSTER = /^clusters\/[^/]+\//;

type Described = Omit<Located, 'file'>;

/** The objects of one file's text; a fleet's clusters write the same text many times, so each distinct text is parsed once. */
function describe(text: string, file: string, memo: Map<string, Described[]>): Described[] {
  let objects = memo.get(text);
  if (!objects) {
    objects = [];
    for (const object of parseArtifact(text, { source: file })) {
      // kustomization.yaml files are layout, not objects the cluster gets
      if (apiGroup(String(object.apiVersion ?? '')) === KUSTOMIZE_CONFIG_GROUP) continue;
      const metadata = isPlainObject(object.metadata) ? object.metadata : {};
      objects.push({ apiVersion: String(object.apiVersion ?? ''), kind: String(object.kind ?? ''), namespace: String(metadata.namespace ?? ''), name: String(metadata.name ?? ''), value: JSON.stringify(object) });
    }
    memo.set(text, objects);
  }
  return objects;
}

function objectsOf(files: Iterable<[string, string]>, memo: Map<string, Described[]>): Map<string, Located> {
  const objects = new Map<string, Located>();
  for (const [file, text] of files) {
    if (!YAML_FILE.test(file)) continue;
    const cluster = FLEET_CLUSTER.exec(file)?.[0] ?? '';
    for (const described of describe(text, file, memo)) {
      objects.set([cluster, apiGroup(described.apiVersion), described.kind, described.namespace, described.name].join('\0'), { ...described, file });
    }
  }
  return objects;
}

/** The objects that differ between the previous and the new bytes of the files a write touched, sorted by file, then kind, namespace, name. */
export function objectChanges(summary: Pick<WriteSummary, 'written' | 'previous'>, files: Map<string, string>): ObjectChange[] {
  const memo = new Map<string, Described[]>();
  const before = objectsOf([...summary.previous].map(([file, bytes]) => [file, bytes.toString('utf8')]), memo);
  const after = objectsOf(summary.written.map((file) => [file, files.get(file) ?? '']), memo);
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
