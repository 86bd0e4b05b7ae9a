/**
 * One file replaced atomically: written to a temporary file beside it, flushed, then renamed over
 * it, so a reader sees the old bytes or the new ones, never a mix (write-file-atomic, which also
 * keeps an existing file's mode and owner). For files people keep (manifests, exported objects);
 * cache entries use replace-file.ts. Whole output trees are swapped by output/write.ts.
 */
import writeFileAtomicLibrary from 'write-file-atomic';

export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  await writeFileAtomicLibrary(file, typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength), {
    fsync: true,
  });
}
