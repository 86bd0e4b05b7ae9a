/** Which objects differ between two sides, each given as the objects of its files (`ObjectRef`s). */
import { apiGroup } from '../core/kobject.js';
import { compareStrings } from '../core/diagnostics.js';

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
