/**
 * The components of an operator artifact ConfigMap stored compressed (`binaryData.components`,
 * base64 of gzip, annotated `provider.cluster.x-k8s.io/compressed: "true"`): the operator's
 * manifests_downloader.go reads them so. Read here for the ConfigMap source and for review.
 */
import { gunzipSync } from 'node:zlib';

/** Decompressed components larger than this are refused (a gzip bomb guard). */
const MAX_DECOMPRESSED_BYTES = 256 * 1024 * 1024;
const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/** The gunzipped bytes, or why they cannot be read (said of `binaryData.components`: `cannot be gunzipped: …`). */
export function gunzipComponents(encoded: string): { bytes: Uint8Array } | { problem: string } {
  if (!BASE64.test(encoded)) return { problem: 'is not valid base64' };
  try {
    return { bytes: gunzipSync(Buffer.from(encoded, 'base64'), { maxOutputLength: MAX_DECOMPRESSED_BYTES }) };
  } catch (error) {
    const tooBig = (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
    return {
      problem: tooBig ? `decompresses to more than ${MAX_DECOMPRESSED_BYTES} bytes` : `cannot be gunzipped: ${(error as Error).message}`,
    };
  }
}
