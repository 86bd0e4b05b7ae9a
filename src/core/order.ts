/**
 * Deterministic orders, as data and comparators: objects by kind (the install order in
 * kinds.ts), then name; strings as Go sorts them. (Code-unit order is model's compareStrings.)
 *
 * The object order's model is Helm's install order (pkg/releaseutil kind_sorter.go
 * InstallOrder): things others depend on first. Two changes from Helm: CustomResourceDefinitions
 * come right after Namespaces, and cert-manager Issuers and Certificates come before the webhook
 * configurations, which is also why clusterctl's NewComponents puts cert-manager objects early
 * (cainjector must see the Certificate before the objects it injects into).
 */
import { compareStrings } from './diagnostics.js';
import type { KObject } from './kobject.js';
import { KIND_ORDER } from './kinds.js';

const RANK = new Map(KIND_ORDER.map((kind, index) => [kind, index]));
const UNLISTED = KIND_ORDER.length;

/**
 * Kind rank, then kind name (orders unlisted kinds alphabetically), then name, namespace and
 * apiVersion, so that distinct objects never compare equal.
 */
export function compareObjects(a: KObject, b: KObject): number {
  return (
    (RANK.get(a.kind) ?? UNLISTED) - (RANK.get(b.kind) ?? UNLISTED) ||
    compareStrings(a.kind, b.kind) ||
    compareStrings(a.metadata?.name ?? '', b.metadata?.name ?? '') ||
    compareStrings(a.metadata?.namespace ?? '', b.metadata?.namespace ?? '') ||
    compareStrings(a.apiVersion ?? '', b.apiVersion ?? '')
  );
}

/** A sorted copy; the input array is left as it was. */
export function sortObjects(objs: KObject[]): KObject[] {
  return [...objs].sort(compareObjects);
}

/** Go's string order (bytes of UTF-8), not UTF-16 code units or the locale's. */
export function compareGoStrings(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
