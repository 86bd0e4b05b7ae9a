import { createHash } from 'node:crypto';

/** The one content digest: sha256, lowercase hex. Memos key by it, never by a large string. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
