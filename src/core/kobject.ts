/** A Kubernetes object as plain data (what the API server would see after YAML→JSON). */
export interface KObject {
  apiVersion: string;
  kind: string;
  metadata: KMetadata;
  [field: string]: unknown;
}

interface KMetadata {
  name?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [field: string]: unknown;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `group` of an apiVersion ("" for the core group), as kubectl/kustomize split it. */
export function apiGroup(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

export function apiVersionOnly(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}

/** Deep copy of plain data. Transforms are pure, so they copy what they change. */
export function clone<T>(value: T): T {
  return structuredClone(value);
}

/** "Kind/namespace/name" for messages. */
export function describeObject(obj: Pick<KObject, 'kind' | 'metadata'>): string {
  const ns = obj.metadata?.namespace;
  return `${obj.kind}/${ns ? ns + '/' : ''}${obj.metadata?.name ?? '<unnamed>'}`;
}

/**
 * A v1 Secret's values that hold something, each with its field (`data.<key>`, `stringData.<key>`);
 * none for any other object. A value there is secret wherever it was given.
 */
export function secretDataValues(obj: KObject): { field: string; value: string }[] {
  if (obj.apiVersion !== 'v1' || obj.kind !== 'Secret') return [];
  return (['data', 'stringData'] as const).flatMap((section) => {
    const values = obj[section];
    if (!isPlainObject(values)) return [];
    return Object.entries(values)
      .filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1].trim() !== '')
      .map(([key, value]) => ({ field: `${section}.${key}`, value }));
  });
}
