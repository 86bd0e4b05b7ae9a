/**
 * Each output file's UTF-8 bytes and sha256, computed once per render, for the write and the
 * ownership index (3.5 MB for the corpus).
 */
import { sha256Hex } from '../core/digest.js';

interface EncodedOutput {
  /** Relative path → the bytes to write. */
  bytes: Map<string, Buffer>;
  /** Relative path → sha256 of those bytes, in hex. */
  digests: Map<string, string>;
}

export function encodeOutput(files: ReadonlyMap<string, string>): EncodedOutput {
  // the same text in several files is held as one buffer, found by its digest (never keyed by
  // the text: V8 hashes a long string by its length, and same-length texts compare in full)
  const byDigest = new Map<string, Buffer>();
  const encoded: EncodedOutput = { bytes: new Map(), digests: new Map() };
  for (const [file, text] of files) {
    // hashed as bytes: the text is encoded once (a string would be encoded again for the hash)
    const fresh = Buffer.from(text, 'utf8');
    const digest = sha256Hex(fresh);
    const bytes = byDigest.get(digest) ?? fresh;
    byDigest.set(digest, bytes);
    encoded.bytes.set(file, bytes);
    encoded.digests.set(file, digest);
  }
  return encoded;
}
