/**
 * RBAC rules as sets of single permissions (apiGroup × resource × verb, as the API server's
 * authorizer evaluates them, rbac/v1 PolicyRule), so a change reads as permissions gained
 * (widened) or lost (narrowed) whatever way the rules were regrouped.
 */
import { compareStrings } from '../core/diagnostics.js';
import { isPlainObject, type KObject } from '../core/kobject.js';
import type { RbacFinding, RbacRuleTuple } from './types.js';

export const RBAC_ROLE_KINDS = new Set(['Role', 'ClusterRole']);
export const RBAC_GROUP = 'rbac.authorization.k8s.io';

export interface Permissions {
  /** `apiGroup resource verb`, resourceNames appended as `resource/name`. */
  resources: Set<string>;
  /** `verb url`. */
  urls: Set<string>;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function permissionsOf(role: KObject | undefined): Permissions {
  const out: Permissions = { resources: new Set(), urls: new Set() };
  const rules = Array.isArray(role?.rules) ? role.rules : [];
  for (const rule of rules) {
    if (!isPlainObject(rule)) continue;
    const verbs = strings(rule.verbs);
    const names = strings(rule.resourceNames);
    for (const verb of verbs) {
      for (const url of strings(rule.nonResourceURLs)) out.urls.add(`${verb} ${url}`);
      for (const group of strings(rule.apiGroups)) {
        for (const resource of strings(rule.resources)) {
          if (names.length === 0) out.resources.add(`${group}\u0000${resource}\u0000${verb}`);
          else for (const name of names) out.resources.add(`${group}\u0000${resource}/${name}\u0000${verb}`);
        }
      }
    }
  }
  return out;
}

function tuple(key: string): RbacRuleTuple {
  const [apiGroup, resource, verb] = key.split('\u0000') as [string, string, string];
  return { apiGroup, resource, verb };
}

type RbacDelta = Pick<RbacFinding, 'permissions' | 'nonResourceURLs' | 'wildcard'>;

/** Permissions `to` has and `from` lacks. */
export function gained(from: Permissions, to: Permissions): RbacDelta {
  const keys = [...to.resources].filter((k) => !from.resources.has(k)).sort(compareStrings);
  const urls = [...to.urls].filter((u) => !from.urls.has(u)).sort(compareStrings);
  const permissions = keys.map(tuple);
  const wildcard =
    permissions.some((p) => p.apiGroup === '*' || p.resource === '*' || p.resource.startsWith('*/') || p.verb === '*') ||
    urls.some((u) => u.includes('*'));
  return { permissions, nonResourceURLs: urls, wildcard };
}

export function describePermissions(delta: RbacDelta, limit = 6): string {
  const items = [...delta.permissions.map((p) => `${p.verb} ${p.apiGroup ? p.apiGroup + '/' : ''}${p.resource}`), ...delta.nonResourceURLs];
  return items.slice(0, limit).join(', ') + (items.length > limit ? `, … (${items.length} in all)` : '');
}
