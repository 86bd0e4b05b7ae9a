/**
 * One file replaced atomically: written to a temporary file beside it, flushed, then renamed over
 * it, so a reader sees the old bytes or the new ones, never a mix (write-file-atomic, which also
 * keeps an existing file's mode and owner). Whole output trees are swapped by emit/write.ts.
 */
import writeFileAtomicLibrary from 'write-file-atomic';

/** `fsync: false` for data that is checked when read (cache entries): renamed into place unflushed. */
export async function writeFileAtomic(file: string, data: string | Uint8Array, options: { fsync?: boolean } = {}): Promise<void> {
  await writeFileAtomicLibrary(file, typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength), {
    fsync: options.fsync ?? true,
  });
}
