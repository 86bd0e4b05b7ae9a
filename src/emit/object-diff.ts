/**
 * Which objects differ between two sides, each given as the objects of its files (`ObjectRef`s):
 * no parser here, so a render served from the output cache compares without loading one.
 */
import { apiGroup } from '../model/kobject.js';
import { compareStrings } from '../model/diagnostics.js';

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

/** One object of a file: who it is, and the sha256 of its value serialised, to compare. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  digest: string;
}

type Located = ObjectRef & { file: string };

/** A fleet's file is in `clusters/<name>/`: every cluster has its own copy of an object. */
const FLEET_CLUSTER = /^clusters\/[^/]+\//;

function located(files: Iterable<[string, ObjectRef[]]>): Map<string, Located> {
  const objects = new Map<string, Located>();
  for (const [file, refs] of files) {
    const cluster = FLEET_CLUSTER.exec(file)?.[0] ?? '';
    for (const ref of refs)
      objects.set([cluster, apiGroup(ref.apiVersion), ref.kind, ref.namespace, ref.name].join('\0'), { ...ref, file });
  }
  return objects;
}

/** The objects added, changed or removed, sorted by file, then kind, namespace, name. */
export function compareObjects(before: Iterable<[string, ObjectRef[]]>, after: Iterable<[string, ObjectRef[]]>): ObjectChange[] {
  const old = located(before);
  const now = located(after);
  const changes: ObjectChange[] = [];
  const report = (change: ObjectChangeKind, { digest: _digest, ...object }: Located) => changes.push({ change, ...object });
  for (const [key, object] of now) {
    const previous = old.get(key);
    if (!previous) report('added', object);
    else if (previous.digest !== object.digest) report('changed', object);
  }
  for (const [key, object] of old) if (!now.has(key)) report('removed', object);
  return changes.sort(
    (a, b) =>
      compareStrings(a.file, b.file) ||
      compareStrings(a.kind, b.kind) ||
      compareStrings(a.namespace, b.namespace) ||
      compareStrings(a.name, b.name),
  );
}
