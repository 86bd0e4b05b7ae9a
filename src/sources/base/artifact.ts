import { sha256Hex } from '../../core/digest.js';
import { decodeUtf8 } from '../../core/utf8.js';
import type { Artifact } from '../source.js';

/**
 * An Artifact from the bytes as published; `shownAs` names it in an encoding error (a redacted
 * URL, or with `localFile` a path on this machine, which the error's hint may convert in place). The
 * digest is taken over the bytes, so a file read from disk and the same text carried in a
 * ConfigMap get the same sha256.
 */
export function artifactFromBytes(name: string, bytes: Uint8Array, url: string, shownAs: string = url, localFile = false): Artifact {
  return { name, text: decodeUtf8(bytes, shownAs, { localFile }), sha256: sha256Hex(bytes), url };
}

export function artifactFromText(name: string, text: string, url: string): Artifact {
  return { name, text, sha256: sha256Hex(text), url };
}
