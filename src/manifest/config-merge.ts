/**
 * Several `Config` documents (a base and a site Config, say) merged in file order: mappings are
 * merged key by key, lists are concatenated (repositories, overrides), and a scalar set to two
 * different values is a conflict reported at both places. Equal values agree. Relative paths of a
 * later document in another directory are rebased onto the first document's directory, which is
 * where the merged Config's relative paths resolve.
 */
import path from 'node:path';
import type { Diagnostic } from '../core/diagnostics.js';
import { isPlainObject } from '../core/kobject.js';
import { ownValue, setOwnValue } from '../core/own-keys.js';
import { formatFieldPath, formatPosition, valueAt } from './fields.js';
import type { SourcePosition, ToolConfig } from './types.js';
import type { FieldPath } from './yaml-source.js';

export interface ConfigDocument {
  config: ToolConfig;
  /** Where a field of this document was written. */
  fieldPosition: (path: FieldPath, at?: 'key' | 'value') => SourcePosition;
}

/** Fields that hold a path relative to the declaring file. */
function relativePathFields(config: ToolConfig): { get: () => string | undefined; set: (value: string) => void }[] {
  const fields: { get: () => string | undefined; set: (value: string) => void }[] = [];
  for (const repository of config.repositories ?? []) fields.push({ get: () => repository.url, set: (v) => (repository.url = v) });
  const certManager = config.certManager;
  if (certManager) fields.push({ get: () => certManager.url, set: (v) => (certManager.url = v) });
  const gitops = config.gitops;
  if (gitops) fields.push({ get: () => gitops.chart, set: (v) => (gitops.chart = v) });
  return fields;
}

function rebase(config: ToolConfig, from: string, to: string): void {
  if (from === to) return;
  for (const field of relativePathFields(config)) {
    const value = field.get();
    if (typeof value !== 'string' || value === '' || value.includes('://') || path.isAbsolute(value)) continue;
    field.set(path.relative(to, path.resolve(from, value)).split(path.sep).join('/') || '.');
  }
}

const show = (value: unknown) => JSON.stringify(value);

/** The merged Config and the conflicts between documents. */
export function mergeConfigDocuments(documents: readonly ConfigDocument[]): { config: ToolConfig; problems: Diagnostic[] } {
  if (documents.length === 0) return { config: {}, problems: [] };
  const first = documents[0]!;
  const baseDir = path.dirname(first.config.position?.file ?? '.');
  const problems: Diagnostic[] = [];
  // Which document set each scalar, by formatted field path.
  const setBy = new Map<string, ConfigDocument>();
  const merged: Record<string, unknown> = {};

  const mergeValue = (target: Record<string, unknown>, key: string, value: unknown, fieldPath: FieldPath, doc: ConfigDocument): void => {
    // Own keys only: `__proto__` and `constructor` are keys of the user's map (core/own-keys.ts).
    const current = ownValue(target, key);
    const name = formatFieldPath(fieldPath);
    if (current === undefined) {
      setOwnValue(
        target,
        key,
        isPlainObject(value) ? mergeMap({}, value, fieldPath, doc) : Array.isArray(value) ? [...(value as unknown[])] : value,
      );
      if (!isPlainObject(value) && !Array.isArray(value)) setBy.set(name, doc);
      return;
    }
    if (isPlainObject(current) && isPlainObject(value)) {
      mergeMap(current, value, fieldPath, doc);
      return;
    }
    if (Array.isArray(current) && Array.isArray(value)) {
      setOwnValue(target, key, [...current, ...(value as unknown[])]);
      return;
    }
    if (current === value) return;
    const earlier = setBy.get(name) ?? first;
    problems.push({
      ...doc.fieldPosition(fieldPath),
      object: 'Config',
      path: name,
      message: `${name} is ${show(value)} here and ${show(current)} in the Config at ${formatPosition(earlier.fieldPosition(fieldPath))}`,
      expected: 'each setting in one Config document, or the same value in each',
      hint: `keep ${name} in one of the Config documents`,
    });
  };
  const mergeMap = (
    target: Record<string, unknown>,
    source: Record<string, unknown>,
    parent: FieldPath,
    doc: ConfigDocument,
  ): Record<string, unknown> => {
    for (const [key, value] of Object.entries(source)) mergeValue(target, key, value, [...parent, key], doc);
    return target;
  };

  for (const doc of documents) {
    const { position, ...settings } = structuredClone(doc.config);
    rebase(settings, path.dirname(position?.file ?? '.'), baseDir);
    mergeMap(merged, settings as Record<string, unknown>, [], doc);
  }
  return { config: { ...(merged as ToolConfig), position: first.config.position }, problems };
}

/**
 * Where a field of the merged Config was written. Lists are concatenated in document order, so
 * an index past the first document's list is an entry of a later document's (the second file's
 * `repositories[0]` is the merged `repositories[2]` after two entries); any other field is the
 * first document's that has it.
 */
export function locateMergedField(
  documents: readonly ConfigDocument[],
  fieldPath: FieldPath,
  part: 'key' | 'value' = 'value',
): SourcePosition {
  const at = fieldPath.findIndex((segment) => typeof segment === 'number');
  if (at >= 0) {
    const prefix = fieldPath.slice(0, at);
    let index = fieldPath[at] as number;
    for (const doc of documents) {
      const list = valueAt(doc.config, prefix);
      if (!Array.isArray(list)) continue;
      if (index < list.length) return doc.fieldPosition([...prefix, index, ...fieldPath.slice(at + 1)], part);
      index -= list.length;
    }
  }
  return (documents.find((d) => valueAt(d.config, fieldPath) !== undefined) ?? documents[0]!).fieldPosition(fieldPath, part);
}
