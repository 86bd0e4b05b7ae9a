/**
 * Helm's value merging, for chart values and every other layered configuration.
 *
 * Hand-written because the rules are Helm's, not a generic deep merge (null handling differs
 * between the user layers and the chart defaults); each rule is pinned by a test that cites
 * helm pkg/cli/values/options.go mergeMaps and pkg/chart/common/util/coalesce.go.
 *
 * Every key is data, `__proto__` too (core/own-keys.ts): maps are read and written through
 * their own keys only, as Helm's Go maps are.
 */
import { ownValue, setOwnValue } from './own-keys.js';

export type Values = Record<string, unknown>;

/** Whether the nested maps and lists hold every key and index of the path (a layer that sets the value). */
export function hasPath(values: unknown, path: readonly (string | number)[]): boolean {
  let node = values;
  for (const key of path) {
    // a list entry too: a values file's or a --set's `list[1]` is where that layer wrote it
    const index = Array.isArray(node) && /^[0-9]+$/.test(String(key)) ? Number(key) : undefined;
    if (index !== undefined && Array.isArray(node) && index < node.length) node = node[index];
    else if (isValuesMap(node) && Object.hasOwn(node, key)) node = node[key as string];
    else return false;
  }
  return true;
}

export function isValuesMap(value: unknown): value is Values {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A deep copy of plain data (maps, lists, scalars). */
export function cloneValues<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneValues) as T;
  if (isValuesMap(value)) {
    const out: Values = {};
    for (const [k, v] of Object.entries(value)) setOwnValue(out, k, cloneValues(v));
    return out as T;
  }
  return value;
}

/**
 * Two user layers (values files, Config values): maps deep-merge, everything else in `over`
 * replaces, and a null is kept so that coalescing can delete the chart default it names
 * (helm pkg/cli/values/options.go mergeMaps).
 */
export function mergeUserValues(base: Values, over: Values): Values {
  const out: Values = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const existing = ownValue(out, key);
    setOwnValue(out, key, isValuesMap(value) && isValuesMap(existing) ? mergeUserValues(existing, value) : cloneValues(value));
  }
  return out;
}

/**
 * The user's values over a chart's defaults (helm coalesce.go coalesceValues and
 * coalesceTablesFullKey): maps merge, lists and scalars of the user replace, and a user null
 * deletes the key the defaults have (a null default too). A null for a key the defaults do not have stays null.
 */
export function coalesceValues(user: Values, defaults: Values): Values {
  const out = cloneValues(user);
  coalesceInto(out, defaults);
  return out;
}

function coalesceInto(dst: Values, defaults: Values): void {
  for (const [key, fallback] of Object.entries(defaults)) {
    if (!Object.hasOwn(dst, key)) {
      setOwnValue(dst, key, cloneValues(fallback));
      continue;
    }
    const value = dst[key];
    if (value === null) {
      // a user null removes the key the defaults have, null or not (coalesce.go: `value == nil && !merge`)
      delete dst[key];
    } else if (isValuesMap(value) && isValuesMap(fallback)) {
      coalesceInto(value, fallback);
    }
  }
}

/** Layers lowest first: the first is the chart's defaults, the rest user layers in order. */
export function layerValues(defaults: Values, userLayers: readonly Values[]): Values {
  return coalesceValues(
    userLayers.reduce<Values>((acc, layer) => mergeUserValues(acc, layer), {}),
    defaults,
  );
}
