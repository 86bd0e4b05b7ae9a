/**
 * The operator sets the provider object as owner of what it applies. Rendered output has no
 * provider object in the cluster to own anything, so ownerReferences are dropped.
 */
import type { KObject } from '../core/kobject.js';

export function removeOwnerReferences(objs: KObject[]): KObject[] {
  return objs.map((obj) => {
    if (obj.metadata === undefined || !('ownerReferences' in obj.metadata)) return obj;
    const { ownerReferences: _dropped, ...metadata } = obj.metadata;
    return { ...obj, metadata };
  });
}
