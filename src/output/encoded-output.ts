/**
 * Each output file's UTF-8 bytes and sha256, computed once per render. The write, the ownership
 * index and the output cache each encoded (and the index and the cache each hashed) the whole
 * output on their own before: 3.5 MB for the corpus.
 */
import { sha256Hex } from '../core/digest.js';

export interface EncodedOutput {
  /** Relative path → the bytes to write. */
  bytes: Map<string, Buffer>;
  /** Relative path → sha256 of those bytes, in hex. */
  digests: Map<string, string>;
}

export function encodeOutput(files: ReadonlyMap<string, string>): EncodedOutput {
  // a fleet writes the same text in many clusters' directories: each distinct text once
  const byText = new Map<string, { bytes: Buffer; digest: string }>();
  const encoded: EncodedOutput = { bytes: new Map(), digests: new Map() };
  for (const [file, text] of files) {
    let known = byText.get(text);
    if (!known) {
      const bytes = Buffer.from(text, 'utf8');
      known = { bytes, digest: sha256Hex(bytes) };
      byText.set(text, known);
    }
    encoded.bytes.set(file, known.bytes);
    encoded.digests.set(file, known.digest);
  }
  return encoded;
}
