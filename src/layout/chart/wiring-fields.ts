/**
 * The fields of the GitOps kinds a wiring chart draws, as their real CRDs declare them
 * (schema/wiring-fields.json, written by scripts/wiring-fields.mjs): a chart's misspelt field
 * (`syncPolcy`) would otherwise be written with exit 0 and refused only by the API server's strict
 * field validation when Argo CD or Flux applies it, or dropped.
 */
import { createRequire } from 'node:module';
import { isPlainObject } from '../../core/kobject.js';

interface WiringFields {
  kinds: Record<string, number>;
  /** Index 0 (null): a value of any form; else field name → node, `[]` items, `{}` map values, `*` any name. */
  nodes: (Record<string, number> | null)[];
}

const FIELDS = createRequire(import.meta.url)('../../../../schema/wiring-fields.json') as WiringFields;

/** Which releases those CRDs come from (../shared/crds/README.md), for a warning about a field they lack. */
export const WIRING_CRDS_OF = 'Argo CD and Flux of 2026-08';

/** A field the kind's CRD does not declare: where it is, and the names declared beside it. */
export interface UnknownField {
  field: (string | number)[];
  declared: string[];
}

/** The fields of `object` its kind's CRD does not declare; [] for a kind it does not know. */
export function unknownFields(object: { apiVersion?: unknown; kind?: unknown }): UnknownField[] {
  const root = FIELDS.kinds[`${String(object.apiVersion)}/${String(object.kind)}`];
  const out: UnknownField[] = [];
  if (root !== undefined) walk(object, root, [], out);
  return out;
}

function walk(value: unknown, id: number, at: (string | number)[], out: UnknownField[]): void {
  const node = FIELDS.nodes[id];
  if (!node) return;
  if (Array.isArray(value)) {
    if (node['[]'] !== undefined) value.forEach((item, i) => walk(item, node['[]']!, [...at, i], out));
    return;
  }
  if (!isPlainObject(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const next = Object.hasOwn(node, key) && key !== '[]' && key !== '{}' && key !== '*' ? node[key] : node['{}'];
    if (next !== undefined) walk(child, next, [...at, key], out);
    else if (node['*'] === undefined)
      out.push({ field: [...at, key], declared: Object.keys(node).filter((k) => !/^(\[\]|\{\}|\*)$/.test(k)) });
  }
}
