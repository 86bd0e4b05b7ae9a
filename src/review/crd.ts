/**
 * CustomResourceDefinition changes in a reviewer's terms: versions added or removed, `served`
 * and `storage` flipped, and per version the schema properties added and removed, instead of
 * thousands of lines of schema text.
 */
import { compareStrings } from '../core/diagnostics.js';
import { isPlainObject, type KObject } from '../core/kobject.js';
import { CERT_MANAGER_INJECT_CA_FROM } from '../core/kinds.js';
import type { CrdFinding, CrdSchemaSummary } from './types.js';

interface CrdVersion {
  served: boolean;
  storage: boolean;
  properties: Set<string>;
}

/** Where a path in a CRD lies inside a version's schema: folded in reviews. */
export const CRD_SCHEMA_PATH = /^spec\.versions\[name=[^\]]*\]\.schema(\.|$)/;

/** Every property path of an OpenAPI v3 schema: `spec.template.metadata`, `spec.items[].name`. */
function schemaProperties(schema: unknown, at = '', out = new Set<string>()): Set<string> {
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

type CrdChanges = Pick<CrdFinding, 'versionsAdded' | 'versionsRemoved' | 'served' | 'storage' | 'schema' | 'conversion'>;

/** The Service a conversion webhook moved from, for the message (the finding keeps the new one). */
const movedFrom = new WeakMap<CrdChanges, string>();

/**
 * `spec.conversion.strategy` (None when absent, the API server's default) and, for Webhook, the
 * Service that converts and where cert-manager injects its CA from.
 */
function conversionOf(crd: KObject): { strategy: string; service?: string; caFrom?: string } {
  const conversion = isPlainObject(crd.spec) && isPlainObject(crd.spec.conversion) ? crd.spec.conversion : {};
  const strategy = typeof conversion.strategy === 'string' ? conversion.strategy : 'None';
  const webhook = isPlainObject(conversion.webhook) ? conversion.webhook : {};
  const config = isPlainObject(webhook.clientConfig) ? webhook.clientConfig : {};
  const service = isPlainObject(config.service) ? config.service : undefined;
  const caFrom = crd.metadata?.annotations?.[CERT_MANAGER_INJECT_CA_FROM];
  return {
    strategy,
    ...(service ? { service: `${String(service.namespace ?? '')}/${String(service.name ?? '')}` } : {}),
    ...(typeof caFrom === 'string' ? { caFrom } : {}),
  };
}

/** What changed between two forms of one CRD; an absent side (CRD added or removed) has no versions. */
export function compareCrds(before: KObject | undefined, after: KObject | undefined): CrdChanges {
  const a = versionsOf(before);
  const b = versionsOf(after);
  const names = [...new Set([...a.keys(), ...b.keys()])].sort(compareStrings);
  const changes: CrdChanges = { versionsAdded: [], versionsRemoved: [], served: [], storage: [], schema: [] };
  // a CRD that starts to convert through a webhook is unreadable at its other versions until that webhook and its CA are ready
  if (before && after) {
    const [from, to] = [conversionOf(before), conversionOf(after)];
    // a webhook that moves to another Service (a provider moved to another namespace) is as unready as a new one
    const moved = from.strategy === 'Webhook' && to.strategy === 'Webhook' && from.service !== to.service;
    if (moved) movedFrom.set(changes, from.service ?? '');
    if (from.strategy !== to.strategy || moved)
      changes.conversion = {
        from: from.strategy,
        to: to.strategy,
        ...(to.strategy === 'Webhook' && to.service ? { service: to.service } : {}),
        ...(to.strategy === 'Webhook' && to.caFrom ? { caFrom: to.caFrom } : {}),
      };
  }
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
  return c.versionsAdded.length + c.versionsRemoved.length + c.served.length + c.storage.length + c.schema.length + (c.conversion ? 1 : 0);
}

/** `v1beta2 served, storage`: a CRD's versions as a one-line summary. */
export function describeCrdChanges(c: CrdChanges): string {
  const parts: string[] = [];
  if (c.versionsAdded.length) parts.push(`versions added: ${c.versionsAdded.join(', ')}`);
  if (c.versionsRemoved.length) parts.push(`versions removed: ${c.versionsRemoved.join(', ')}`);
  for (const s of c.served) parts.push(`${s.version} served ${s.from} → ${s.to}`);
  for (const s of c.storage) parts.push(`${s.version} storage ${s.from} → ${s.to}`);
  for (const s of c.schema) parts.push(`${s.version} schema +${s.propertiesAdded} −${s.propertiesRemoved.length} properties`);
  if (c.conversion) {
    const to = [c.conversion.service && `service ${c.conversion.service}`, c.conversion.caFrom && `CA from ${c.conversion.caFrom}`];
    const via = to.filter(Boolean).join(', ');
    const from = movedFrom.get(c);
    if (from !== undefined && c.conversion.service)
      parts.push(
        `conversion webhook moves from service ${from} to ${c.conversion.service}${c.conversion.caFrom ? ` (CA from ${c.conversion.caFrom})` : ''}`,
      );
    else parts.push(`conversion ${c.conversion.from} → ${c.conversion.to}${via ? ` (${via})` : ''}`);
  }
  return parts.join('; ');
}

function storageVersion(crd: KObject | undefined): string | undefined {
  return [...versionsOf(crd)].find(([, v]) => v.storage)?.[0];
}

/**
 * What a CRD that drops versions needs before it applies. The API server refuses a CRD whose
 * `status.storedVersions` lists a version its `spec.versions` no longer has; clusterctl's upgrade
 * stores every object at the storage version and rewrites that status first, and refuses outright
 * when the current storage version itself is dropped (cluster-api
 * cmd/clusterctl/client/cluster/crd_migration.go). Argo CD and Flux apply the CRD as it is.
 */
export function droppedVersionsText(name: string, before: KObject | undefined, after: KObject | undefined, removed: string[]): string {
  if (!before || !after || removed.length === 0) return '';
  const [was, now] = [storageVersion(before), storageVersion(after)];
  if (was !== undefined && removed.includes(was))
    return (
      `; ${was}, its storage version until now, is removed: the API server refuses this CRD while its objects are stored at ${was}, ` +
      `and clusterctl upgrade refuses it too: roll out a release that serves ${was} and stores ${now ?? 'another version'} first`
    );
  if (now === undefined) return '';
  const listed = removed.join(', ');
  const patch = `'{"status":{"storedVersions":["${now}"]}}'`;
  return (
    `; the API server refuses this CRD while its status.storedVersions lists ${listed} (an earlier storage version): ` +
    `store every object at ${now} and drop ${listed} from it first, as clusterctl upgrade does ` +
    `(kubectl get ${name} -A -o json | kubectl replace -f -, then kubectl patch customresourcedefinition ${name} ` +
    `--subresource=status --type=merge -p ${patch})`
  );
}

/**
 * A CRD gone from the output stays in the cluster with its `spec.conversion`: when the Service of
 * its conversion webhook goes with it (`serviceKept` false), the API server can no longer convert
 * its objects.
 */
export function conversionGoneText(crd: KObject, serviceKept: (namespace: string, name: string) => boolean): string {
  const { strategy, service } = conversionOf(crd);
  if (strategy !== 'Webhook' || !service) return '';
  const [namespace = '', name = ''] = service.split('/');
  if (serviceKept(namespace, name)) return '';
  return (
    `; its conversion webhook, Service ${service}, is removed too: until the CRD is deleted, ` +
    'its objects cannot be read at any version but the one they are stored at'
  );
}
