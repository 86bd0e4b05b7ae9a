/**
 * Go's UTF-8 runes over byte strings (one JavaScript character per byte), and drone/envsubst's
 * copy of Go's path.Match for the `#`/`%` removals (funcs.go). Part of render/variables.ts.
 */
import { BACKSLASH, CARET } from './variable-parser.js';

// -- runes: Go's utf8.DecodeRune and []rune over byte strings.

const REPLACEMENT_CHARACTER = 0xfffd;

/** Go's utf8.DecodeRune on bytes[at, end): an invalid or cut sequence is U+FFFD of width 1. */
export function decodeRune(bytes: string, at: number, end: number): { rune: number; width: number } {
  const b0 = bytes.charCodeAt(at);
  if (b0 < 0x80) return { rune: b0, width: 1 };
  let width: number;
  let low = 0x80;
  let high = 0xbf;
  if (b0 >= 0xc2 && b0 <= 0xdf) width = 2;
  else if (b0 >= 0xe0 && b0 <= 0xef) {
    width = 3;
    if (b0 === 0xe0) low = 0xa0;
    if (b0 === 0xed) high = 0x9f; // no surrogates
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    width = 4;
    if (b0 === 0xf0) low = 0x90;
    if (b0 === 0xf4) high = 0x8f;
  } else return { rune: REPLACEMENT_CHARACTER, width: 1 };
  if (at + width > end) return { rune: REPLACEMENT_CHARACTER, width: 1 };
  let rune = b0 & (width === 2 ? 0x1f : width === 3 ? 0x0f : 0x07);
  for (let k = 1; k < width; k++) {
    const b = bytes.charCodeAt(at + k);
    if (k === 1 ? b < low || b > high : b < 0x80 || b > 0xbf) return { rune: REPLACEMENT_CHARACTER, width: 1 };
    rune = (rune << 6) | (b & 0x3f);
  }
  return { rune, width };
}

/** One rune as UTF-8 bytes. */
export function encodeRune(rune: number): string {
  if (rune < 0x80) return String.fromCharCode(rune);
  if (rune < 0x800) return String.fromCharCode(0xc0 | (rune >> 6), 0x80 | (rune & 0x3f));
  if (rune < 0x10000) return String.fromCharCode(0xe0 | (rune >> 12), 0x80 | ((rune >> 6) & 0x3f), 0x80 | (rune & 0x3f));
  return String.fromCharCode(0xf0 | (rune >> 18), 0x80 | ((rune >> 12) & 0x3f), 0x80 | ((rune >> 6) & 0x3f), 0x80 | (rune & 0x3f));
}

/** Go's []rune conversion: every invalid byte becomes U+FFFD. */
export function runesOf(bytes: string): number[] {
  const runes: number[] = [];
  for (let i = 0; i < bytes.length;) {
    const { rune, width } = decodeRune(bytes, i, bytes.length);
    runes.push(rune);
    i += width;
  }
  return runes;
}

export function bytesOfRunes(runes: number[]): string {
  let out = '';
  for (const rune of runes) out += encodeRune(rune);
  return out;
}

// -- glob removal: drone's own copy of Go's path.Match, where `*` and `?` also match `/`.

const BAD_PATTERN = -2;
const NO_MATCH = -1;

const STAR = 0x2a;
const QUESTION = 0x3f;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const DASH = 0x2d;

/** Where the chunk starting at `from` ends: at the next `*` outside a `[...]` class. */
function chunkEnd(pattern: string, from: number): number {
  let inClass = false;
  let i = from;
  for (; i < pattern.length; i++) {
    const c = pattern.charCodeAt(i);
    if (c === BACKSLASH) {
      if (i + 1 < pattern.length) i++;
    } else if (c === LBRACKET) inClass = true;
    else if (c === RBRACKET) inClass = false;
    else if (c === STAR && !inClass) break;
  }
  return i;
}

/** A class member, possibly `\`-escaped; more of the chunk must follow it. */
function classMember(pattern: string, at: number, end: number): { rune: number; next: number } | undefined {
  const c = pattern.charCodeAt(at);
  if (at >= end || c === DASH || c === RBRACKET) return undefined;
  if (c === BACKSLASH) {
    at += 1;
    if (at >= end) return undefined;
  }
  const { rune, width } = decodeRune(pattern, at, end);
  if (rune === REPLACEMENT_CHARACTER && width === 1) return undefined;
  const next = at + width;
  return next >= end ? undefined : { rune, next };
}

/**
 * Matches pattern[from, to) (no stars) at the start of name[at, nameEnd). Returns the offset
 * after the match, NO_MATCH, or BAD_PATTERN (found only when the name lasts long enough).
 */
function matchChunk(pattern: string, from: number, to: number, name: string, at: number, nameEnd: number): number {
  let p = from;
  let n = at;
  while (p < to) {
    if (n >= nameEnd) return NO_MATCH;
    const c = pattern.charCodeAt(p);
    if (c === LBRACKET) {
      const { rune, width } = decodeRune(name, n, nameEnd);
      n += width;
      p += 1;
      let negated = false;
      if (p < to && pattern.charCodeAt(p) === CARET) {
        negated = true;
        p += 1;
      }
      let matched = false;
      for (let members = 0; ; members++) {
        if (p < to && pattern.charCodeAt(p) === RBRACKET && members > 0) {
          p += 1;
          break;
        }
        const low = classMember(pattern, p, to);
        if (!low) return BAD_PATTERN;
        p = low.next;
        let high = low.rune;
        if (pattern.charCodeAt(p) === DASH) {
          const upper = classMember(pattern, p + 1, to);
          if (!upper) return BAD_PATTERN;
          high = upper.rune;
          p = upper.next;
        }
        if (low.rune <= rune && rune <= high) matched = true;
      }
      if (matched === negated) return NO_MATCH;
    } else if (c === QUESTION) {
      n += decodeRune(name, n, nameEnd).width;
      p += 1;
    } else {
      if (c === BACKSLASH) {
        p += 1;
        if (p >= to) return BAD_PATTERN;
      }
      if (pattern.charCodeAt(p) !== name.charCodeAt(n)) return NO_MATCH;
      n += 1;
      p += 1;
    }
  }
  return n;
}

/** Whether name[0, nameEnd) matches the whole pattern: true, false or BAD_PATTERN. */
function globMatches(pattern: string, name: string, nameEnd: number): boolean | typeof BAD_PATTERN {
  let p = 0;
  let n = 0;
  chunks: while (p < pattern.length) {
    let star = false;
    while (p < pattern.length && pattern.charCodeAt(p) === STAR) {
      p += 1;
      star = true;
    }
    const from = p;
    p = chunkEnd(pattern, p);
    const last = p >= pattern.length;
    if (star && from === p) return true; // a trailing star takes the rest, `/` included
    let after = matchChunk(pattern, from, p, name, n, nameEnd);
    if (after >= 0 && (after === nameEnd || !last)) {
      n = after;
      continue;
    }
    if (after === BAD_PATTERN) return BAD_PATTERN;
    if (star) {
      // the leftmost place the chunk matches, no backtracking; the last chunk must reach the end
      for (let skip = n; skip < nameEnd; skip++) {
        after = matchChunk(pattern, from, p, name, skip + 1, nameEnd);
        if (after >= 0) {
          if (last && after !== nameEnd) continue;
          n = after;
          continue chunks;
        }
        if (after === BAD_PATTERN) return BAD_PATTERN;
      }
    }
    return false;
  }
  return n === nameEnd;
}

/**
 * Bytes to remove from the front: drone tries every non-empty prefix from the longest down
 * and keeps the first (longest) or the last (shortest) match; a bad pattern removes nothing.
 */
export function matchedPrefixLength(bytes: string, pattern: string, longest: boolean): number {
  let found = 0;
  for (let size = bytes.length; size >= 1; size--) {
    const result = globMatches(pattern, bytes, size);
    if (result === BAD_PATTERN) return 0;
    if (result === true) {
      if (longest) return size;
      found = size;
    }
  }
  return found;
}

function reverseRunes(bytes: string): string {
  return bytesOfRunes(runesOf(bytes).reverse());
}

/** drone removes a suffix by reversing value and pattern rune by rune, so `[a-z]` reads `]z-a[`. */
export function trimSuffix(bytes: string, pattern: string, longest: boolean): string {
  const reversed = reverseRunes(bytes);
  return reverseRunes(reversed.slice(matchedPrefixLength(reversed, reverseRunes(pattern), longest)));
}
