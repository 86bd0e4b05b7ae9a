import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';

/**
 * Work that many test files repeat on the same read-only input (the yaml package's reading of a
 * corpus artifact, a CRD compiled to a validator) done once per run of the suite: the first file
 * to need it stores the result in the directory scripts/run-tests.mjs names, and the others read
 * it. Without that directory (a test file run on its own) each process does its own work.
 */
const SHARED = process.env.CAPI_GITOPS_TEST_MEMO;

interface Codec<T> {
  encode(value: T): Uint8Array;
  decode(bytes: Buffer): T;
}

/** Any value V8 can clone: a fresh copy on every call, so callers may change it. */
export const V8_VALUE: Codec<unknown> = { encode: serialize, decode: deserialize };
export const TEXT: Codec<string> = { encode: (text) => Buffer.from(text), decode: (bytes) => bytes.toString('utf8') };

export function runMemo<T>(key: string, compute: () => T, codec: Codec<T>): T {
  if (!SHARED) return compute();
  const file = path.join(SHARED, createHash('sha256').update(key).digest('hex'));
  let bytes: Buffer | undefined;
  try {
    bytes = readFileSync(file);
  } catch {
    // not computed yet in this run
  }
  if (bytes) return codec.decode(bytes);
  const value = compute();
  mkdirSync(SHARED, { recursive: true });
  // two files may compute it at once: each writes its own file and renames it into place whole
  const partial = `${file}.${process.pid}`;
  writeFileSync(partial, codec.encode(value));
  renameSync(partial, file);
  return value;
}
