/**
 * CustomResourceDefinition changes in a reviewer's terms: versions added or removed, `served`
 * and `storage` flipped, and per version the schema properties added and removed, instead of
 * thousands of lines of schema text.
 */
import { compareStrings } from '../core/diagnostics.js';
import { isPlainObject, type KObject } from '../core/kobject.js';
import type { CrdFinding, CrdSchemaSummary } from './types.js';

interface CrdVersion {
  served: boolean;
  storage: boolean;
  properties: Set<string>;
}

/** Where a path in a CRD lies inside a version's schema: folded in reviews. */
export const CRD_SCHEMA_PATH = /^spec\.versions\[name=[^\]]*\]\.schema(\.|$)/;

/** Every property path of an OpenAPI v3 schema: `spec.template.metadata`, `spec.items[].name`. */
export function schemaProperties(schema: unknown, at = '', out = new Set<string>()): Set<string> {
  if (!isPlainObject(schema)) return out;
  if (isPlainObject(schema.properties)) {
    for (const [key, child] of Object.entries(schema.properties)) {
      const p = at ? `${at}.${key}` : key;
      out.add(p);
      schemaProperties(child, p, out);
    }
  }
  if (isPlainObject(schema.items)) schemaProperties(schema.items, `${at}[]`, out);
  if (isPlainObject(schema.additionalProperties)) schemaProperties(schema.additionalProperties, `${at}{}`, out);
  return out;
}

function versionsOf(crd: KObject | undefined): Map<string, CrdVersion> {
  const versions = new Map<string, CrdVersion>();
  const list = isPlainObject(crd?.spec) && Array.isArray(crd.spec.versions) ? crd.spec.versions : [];
  for (const v of list) {
    if (!isPlainObject(v) || typeof v.name !== 'string') continue;
    const schema = isPlainObject(v.schema) ? v.schema.openAPIV3Schema : undefined;
    versions.set(v.name, { served: v.served === true, storage: v.storage === true, properties: schemaProperties(schema) });
  }
  return versions;
}

type CrdChanges = Pick<CrdFinding, 'versionsAdded' | 'versionsRemoved' | 'served' | 'storage' | 'schema'>;

/** What changed between two forms of one CRD; an absent side (CRD added or removed) has no versions. */
export function compareCrds(before: KObject | undefined, after: KObject | undefined): CrdChanges {
  const a = versionsOf(before);
  const b = versionsOf(after);
  const names = [...new Set([...a.keys(), ...b.keys()])].sort(compareStrings);
  const changes: CrdChanges = { versionsAdded: [], versionsRemoved: [], served: [], storage: [], schema: [] };
  for (const name of names) {
    const old = a.get(name);
    const now = b.get(name);
    if (!old) {
      changes.versionsAdded.push(name);
      continue;
    }
    if (!now) {
      changes.versionsRemoved.push(name);
      continue;
    }
    if (old.served !== now.served) changes.served.push({ version: name, from: old.served, to: now.served });
    if (old.storage !== now.storage) changes.storage.push({ version: name, from: old.storage, to: now.storage });
    const removed = [...old.properties].filter((p) => !now.properties.has(p)).sort(compareStrings);
    const added = [...now.properties].filter((p) => !old.properties.has(p)).length;
    if (removed.length > 0 || added > 0)
      changes.schema.push({ version: name, propertiesAdded: added, propertiesRemoved: removed } satisfies CrdSchemaSummary);
  }
  return changes;
}

export function crdChangeCount(c: CrdChanges): number {
  return c.versionsAdded.length + c.versionsRemoved.length + c.served.length + c.storage.length + c.schema.length;
}

/** `v1beta2 served, storage`: a CRD's versions as a one-line summary. */
export function describeCrdChanges(c: CrdChanges): string {
  const parts: string[] = [];
  if (c.versionsAdded.length) parts.push(`versions added: ${c.versionsAdded.join(', ')}`);
  if (c.versionsRemoved.length) parts.push(`versions removed: ${c.versionsRemoved.join(', ')}`);
  for (const s of c.served) parts.push(`${s.version} served ${s.from} → ${s.to}`);
  for (const s of c.storage) parts.push(`${s.version} storage ${s.from} → ${s.to}`);
  for (const s of c.schema) parts.push(`${s.version} schema +${s.propertiesAdded} −${s.propertiesRemoved.length} properties`);
  return parts.join('; ');
}
