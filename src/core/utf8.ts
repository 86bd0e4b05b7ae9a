/**
 * Input must be UTF-8. `buffer.toString('utf8')` replaces invalid bytes with U+FFFD, which would
 * render a corrupted or hostile file as something else without a word; this decoder refuses it,
 * naming the byte offset (and the line and column it falls on).
 */
import { isUtf8 } from 'node:buffer';
import { CapiGitopsError } from './diagnostics.js';
import { shellWord } from './shell.js';

/**
 * Offset of the first byte that does not start or continue a valid UTF-8 sequence (RFC 3629:
 * no overlongs, no surrogates, nothing above U+10FFFF). Hand-written because neither `isUtf8`
 * nor TextDecoder says where the problem is; it only runs once `isUtf8` has said there is one.
 */
function invalidUtf8Offset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let length: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [length, min] = [2, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [length, min] = [3, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [length, min] = [4, 0x10000];
    else return i;
    let code = b & (0xff >> (length + 1));
    for (let k = 1; k < length; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      code = (code << 6) | (c & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return i;
    i += length;
  }
  return -1;
}

/**
 * The text of `bytes`, or a CapiGitopsError naming `file`, the byte offset, line and column.
 * `localFile: false` when `file` is no path on this machine (a URL, a ConfigMap's key): the hint
 * then prints no command on it, which could not run.
 */
export function decodeUtf8(bytes: Uint8Array, file: string, options: { localFile?: boolean } = {}): string {
  if (isUtf8(bytes)) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  const offset = invalidUtf8Offset(bytes);
  const before = bytes.subarray(0, Math.max(0, offset));
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < before.length; i++) if (before[i] === 0x0a) [line, lineStart] = [line + 1, i + 1];
  const column = Buffer.from(before.subarray(lineStart)).toString('utf8').length + 1;
  throw new CapiGitopsError({
    file,
    line,
    column,
    message: `not valid UTF-8: byte 0x${(bytes[offset] ?? 0).toString(16).padStart(2, '0')} at byte offset ${offset}`,
    expected: 'UTF-8 text (YAML files are UTF-8)',
    hint: conversionHint(bytes, file, offset, options.localFile ?? true),
  });
}

/** A command that converts the file in place when run as printed (iconv alone writes to stdout). */
function conversionHint(bytes: Uint8Array, file: string, offset: number, localFile: boolean): string {
  const utf16 = bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));
  const from = utf16 ? 'UTF-16' : 'LATIN1';
  if (!localFile) {
    const convert = `convert the file it was published from (iconv -f ${from} -t UTF-8) and publish that again (an artifact ConfigMap: create it again from the converted file)`;
    return utf16
      ? `the file is UTF-16 (its byte order mark says so); ${convert}`
      : `fix the bytes at offset ${offset}, or if the file is Latin-1 text, ${convert}`;
  }
  const command = `iconv -f ${from} -t UTF-8 ${shellWord(file)} > ${shellWord(file + '.utf8')} && mv ${shellWord(file + '.utf8')} ${shellWord(file)}`;
  return utf16
    ? `the file is UTF-16 (its byte order mark says so); convert it in place: ${command}`
    : `fix the bytes at offset ${offset}, or if the file is Latin-1 text, convert it in place: ${command}`;
}
