/**
 * The file texts of objects emitted earlier in a run, reused for an equal object: a fleet's
 * clusters render the same CRDs again and again, and emitting a CRD costs far more than
 * comparing it. The render's filters copy only what they change, so two clusters' renders of
 * one parsed document share every large subtree by identity, and the comparison stops there.
 *
 * Bounded: a few variants per object identity (kind, namespace, name), most recent first, so
 * objects that differ in every cluster (a Deployment with the cluster's own value) never pile up.
 */
import { isPlainObject, type KObject } from '../core/kobject.js';

/** Variants kept per object identity and scope. */
const VARIANTS = 4;

export class EmittedObjects {
  private readonly variants = new Map<string, { object: KObject; text: string }[]>();
  /** Objects looked up, and how many were emitted (not found). */
  readonly stats = { requested: 0, emitted: 0 };

  /**
   * The text `emit` gives for `object`, reused when an equal object was emitted before in the
   * same `scope` (everything besides the object that the text depends on).
   */
  text(object: KObject, scope: string, emit: (object: KObject) => string): string {
    this.stats.requested++;
    const metadata = isPlainObject(object.metadata) ? object.metadata : {};
    const key = `${scope}\0${String(object.apiVersion)}\0${String(object.kind)}\0${String(metadata.namespace)}\0${String(metadata.name)}`;
    const list = this.variants.get(key) ?? [];
    const at = list.findIndex((v) => sameData(v.object, object));
    const found = at >= 0 ? list.splice(at, 1)[0]! : { object, text: emit(object) };
    if (at < 0) this.stats.emitted++;
    list.unshift(found);
    if (list.length > VARIANTS) list.length = VARIANTS;
    this.variants.set(key, list);
    return found.text;
  }
}

/**
 * Whether two values of plain data emit the same text: the same keys in the same order and
 * equal values, `Object.is` for scalars. Conservative: anything else is equal only to itself.
 */
function sameData(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameData(a[i], b[i])) return false;
    return true;
  }
  if (!plainRecord(a) || !plainRecord(b)) return false;
  const keys = Object.keys(a);
  const other = Object.keys(b);
  if (keys.length !== other.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (k !== other[i] || !sameData(a[k], b[k])) return false;
  }
  return true;
}

function plainRecord(v: object): v is Record<string, unknown> {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
