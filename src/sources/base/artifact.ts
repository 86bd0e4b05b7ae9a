import { createHash } from 'node:crypto';
import { decodeUtf8 } from '../../core/utf8.js';
import type { Artifact } from '../source.js';

/** Lower-case hex sha256 of bytes, or of a string's UTF-8 encoding. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * An Artifact from the bytes as published; `shownAs` names it in an encoding error (a redacted
 * URL). The digest is taken over the bytes, so a file read
 * from disk and the same text carried in a ConfigMap get the same sha256.
 */
export function artifactFromBytes(name: string, bytes: Uint8Array, url: string, shownAs: string = url): Artifact {
  return { name, text: decodeUtf8(bytes, shownAs), sha256: sha256Hex(bytes), url };
}

export function artifactFromText(name: string, text: string, url: string): Artifact {
  return { name, text, sha256: sha256Hex(text), url };
}
