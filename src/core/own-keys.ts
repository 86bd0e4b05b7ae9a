/**
 * Maps built from input keep every key as data: `__proto__`, `constructor` and `prototype` are
 * ordinary keys, as Helm and Kubernetes keep them. So a map is read through its own keys only
 * (`map[key]` would find `Object.prototype` under `__proto__`, and a merge would then write into
 * it) and written as an own property (`map[key] = v` would replace the map's prototype under
 * `__proto__`). Every module that reads or writes a map under a key from input uses these two.
 */

/** The value `map` holds under `key` itself, never one it inherits. */
export function ownValue(map: object, key: string | number): unknown {
  return Object.hasOwn(map, key) ? (map as Record<string | number, unknown>)[key] : undefined;
}

/** Stores `value` under `key` as `map`'s own property, whatever the key. */
export function setOwnValue(map: object, key: string | number, value: unknown): void {
  // Only `__proto__` is an accessor on Object.prototype; every other key assigns as data.
  if (key === '__proto__') Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
  else (map as Record<string | number, unknown>)[key] = value;
}
