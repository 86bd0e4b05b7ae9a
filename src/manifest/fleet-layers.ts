/**
 * The layers of a fleet cluster's configuration, as OpenShift's kube-apiserver-operator builds
 * its config (library-go pkg/operator/configobserver + resourcemerge: defaults, observed config,
 * unsupportedConfigOverrides): each layer a sparse, unvalidated snippet in one canonical shape,
 * merged in order with Helm's rules (maps deep-merge, lists replace, null deletes).
 */
import { cloneValues, coalesceValues, isValuesMap, type Values } from '../core/values.js';
import type { SourcePosition } from './types.js';
import { ownValue, setOwnValue } from '../core/own-keys.js';

export type FieldPath = readonly (string | number)[];

/**
 * One layer in canonical shape: `{providers: {<Kind>/<namespace>/<name>: {metadata, spec}},
 * config: {<Config field>: …}}`, with where a canonical path was written.
 */
export interface Layer {
  /** e.g. `release 2026.11.0`, for messages. */
  label: string;
  values: Values;
  /** Where the layer wrote `path`: its value, or its key (`part` 'key'). */
  where: (path: FieldPath, part?: 'key' | 'value') => SourcePosition | undefined;
}

/** Merges the layers in order: a later layer wins, its null deletes what the layers below set. */
export function mergeLayers(layers: readonly Layer[]): Values {
  const merged = layers.reduce<Values>((acc, layer) => coalesceValues(layer.values, acc), {});
  return withoutNulls(merged);
}

/** A null with nothing below it to delete means "absent". */
function withoutNulls(values: Values): Values {
  const out: Values = {};
  for (const [key, value] of Object.entries(values)) {
    if (value === null) continue;
    setOwnValue(out, key, isValuesMap(value) ? withoutNulls(value) : cloneValues(value));
  }
  return out;
}

/** True when the layer sets the value at `path` (or replaces, or deletes, a map above it). */
function layerSets(values: Values, path: FieldPath): boolean {
  let node: unknown = values;
  for (const key of path) {
    if (!isValuesMap(node) || !Object.hasOwn(node, String(key))) return false;
    node = ownValue(node, String(key));
    if (!isValuesMap(node)) return true;
  }
  return true;
}

/** The highest layer that set the value at `path`: the one a problem there comes from. */
export function layerOf(layers: readonly Layer[], path: FieldPath): Layer | undefined {
  for (let i = layers.length - 1; i >= 0; i--) if (layerSets(layers[i]!.values, path)) return layers[i];
  return undefined;
}

/** Every leaf path a snippet sets, for the unsupportedOverrides warning. */
export function leafPaths(values: unknown, prefix: readonly string[] = []): string[] {
  if (!isValuesMap(values) || Object.keys(values).length === 0) return prefix.length > 0 ? [prefix.join('.')] : [];
  return Object.entries(values).flatMap(([key, value]) => leafPaths(value, [...prefix, key]));
}
