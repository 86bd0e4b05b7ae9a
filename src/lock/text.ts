/**
 * The lockfile's text without the `yaml` library (issue 13: a render does not load it): the
 * lock's plain data written as `YAML.stringify(data, { version: '1.2', lineWidth: 0,
 * indentSeq: true })` writes it, for the data a lock holds, byte for byte. Where that is not
 * certain (a string the library would quote, a number, an empty list in a list…) there is no
 * text here, and the library writes it (lockfile.ts).
 */
import type { LockEntry, LockSource, Lockfile } from './types.js';
import { normalizeLockfile } from './types.js';
import { canonicalSelector } from '../kernel/label-selector.js';
import { isCoreSchemaNonString } from '../yaml/scalar.js';
import { hasUnsafePlainShape } from '../yaml/emit.js';

export const HEADER = '# Written by capi-gitops (`capi-gitops lock`, or render when the manifest changes). Do not edit by hand.\n';

function sourceData(source: LockSource): Record<string, unknown> {
  switch (source.type) {
    case 'url':
      return { url: source.url };
    case 'registry':
      return { registry: source.url };
    case 'oci':
      return { oci: source.oci };
    case 'selector':
      return { selector: canonicalSelector(source.selector) };
  }
}

/** Plain data in the key order the file uses. */
function entryData(entry: LockEntry): Record<string, unknown> {
  const data: Record<string, unknown> = {
    kind: entry.kind,
    name: entry.name,
    namespace: entry.namespace,
    ...(entry.clusters ? { clusters: entry.clusters } : {}),
    requestedVersion: entry.requestedVersion,
    version: entry.version,
  };
  if (entry.contract !== undefined) data.contract = entry.contract;
  data.source = sourceData(entry.source);
  data.files = entry.files.map((file) => ({ name: file.name, url: file.url, sha256: file.sha256 }));
  if (entry.images?.length) data.images = entry.images.map((image) => ({ image: image.image, digest: image.digest }));
  return data;
}

/** The lock's file content as plain data (entries sorted), for either writer. */
export function lockfileData(lock: Pick<Lockfile, 'entries'>): Record<string, unknown> {
  const normalized = normalizeLockfile(lock);
  return { apiVersion: normalized.apiVersion, kind: normalized.kind, entries: normalized.entries.map(entryData) };
}

// The library quotes a string of an unsafe plain shape, one that starts like a document marker,
// and one its core schema reads as another type.
const DOCUMENT_MARKER_START = /^(?:---|\.\.\.)/;
// Beyond those rules, only printable ASCII is written here: the library escapes or folds others.
const PRINTABLE_ASCII = /^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/;

/** Whether the library writes this string as it is (plain), so this writer may. */
function isPlain(value: string): boolean {
  return PRINTABLE_ASCII.test(value) && !hasUnsafePlainShape(value) && !DOCUMENT_MARKER_START.test(value) && !isCoreSchemaNonString(value);
}

/** Thrown to leave the text to the library. */
const NOT_CERTAIN: unique symbol = Symbol('lock-text-not-certain');

function scalar(value: unknown): string {
  if (typeof value !== 'string' || !isPlain(value)) throw NOT_CERTAIN;
  return value;
}

/** A mapping's lines at `indent`; the first line's indentation is the caller's when `first` is set. */
function mapping(value: Record<string, unknown>, indent: string, out: string[], first?: string): void {
  let lead = first ?? indent;
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  if (entries.length === 0) throw NOT_CERTAIN;
  for (const [key, item] of entries) {
    // The library writes a key past 1024 characters as an explicit key (`? …`).
    if (key.length > 1024) throw NOT_CERTAIN;
    const k = scalar(key);
    if (Array.isArray(item)) {
      if (item.length === 0) out.push(`${lead}${k}: []`);
      else {
        out.push(`${lead}${k}:`);
        sequence(item, indent + '  ', out);
      }
    } else if (item !== null && typeof item === 'object') {
      if (Object.keys(item).length === 0) out.push(`${lead}${k}: {}`);
      else {
        out.push(`${lead}${k}:`);
        mapping(item as Record<string, unknown>, indent + '  ', out);
      }
    } else {
      out.push(`${lead}${k}: ${scalar(item)}`);
    }
    lead = indent;
  }
}

/** A sequence's items, `- ` at `indent` (indentSeq: items indented under their key). */
function sequence(items: unknown[], indent: string, out: string[]): void {
  for (const item of items) {
    if (item !== null && typeof item === 'object' && !Array.isArray(item))
      mapping(item as Record<string, unknown>, indent + '  ', out, `${indent}- `);
    else if (Array.isArray(item)) throw NOT_CERTAIN;
    else out.push(`${indent}- ${scalar(item)}`);
  }
}

/** The text of plain lock data as the library would write it, or undefined where that is not certain. */
export function fastDataText(data: Record<string, unknown>): string | undefined {
  const out: string[] = [];
  try {
    mapping(data, '', out);
  } catch (error) {
    if (error === NOT_CERTAIN) return undefined;
    throw error;
  }
  return out.join('\n') + '\n';
}

/** The lock's file text written here, or undefined when the library must write it. */
export function fastLockfileText(lock: Pick<Lockfile, 'entries'>): string | undefined {
  const text = fastDataText(lockfileData(lock));
  return text === undefined ? undefined : HEADER + text;
}
