/**
 * Many strings searched in a text at once: indexed by a hash of their first characters, so a text
 * is read once whatever their number (searching it for each string in turn is texts x strings,
 * quadratic in a fleet whose clusters each bring secrets of their own).
 */
const KEY_LENGTH = 4;

/** A hash of the KEY_LENGTH characters at `at` (a hit is checked with startsWith). */
function startKey(text: string, at: number): number {
  let key = 0;
  for (let i = at; i < at + KEY_LENGTH; i++) key = (Math.imul(key, 31) + text.charCodeAt(i)) | 0;
  return key === -1 ? 0 : key;
}

export class StringIndex {
  readonly #all = new Set<string>();
  /** Rank of each string, longest first (ties in the order added). */
  #rank: Map<string, number> | undefined;
  #byStart: Map<number, string[]> | undefined;

  add(text: string): void {
    if (this.#all.has(text)) return;
    this.#all.add(text);
    this.#rank = this.#byStart = undefined;
  }

  clear(): void {
    this.#all.clear();
    this.#rank = this.#byStart = undefined;
  }

  /** The strings `text` holds, longest first. */
  foundIn(text: string): string[] {
    if (this.#byStart === undefined) this.#index();
    const found = new Set<string>();
    for (const short of this.#byStart!.get(-1) ?? []) if (text.includes(short)) found.add(short);
    for (let i = 0; i + KEY_LENGTH <= text.length; i++) {
      const candidates = this.#byStart!.get(startKey(text, i));
      if (candidates) for (const candidate of candidates) if (text.startsWith(candidate, i)) found.add(candidate);
    }
    return [...found].sort((a, b) => this.#rank!.get(a)! - this.#rank!.get(b)!);
  }

  #index(): void {
    const sorted = [...this.#all].sort((a, b) => b.length - a.length);
    this.#rank = new Map(sorted.map((text, i) => [text, i]));
    this.#byStart = new Map();
    // a string shorter than the key is searched whole (key -1, which no hash gives)
    for (const text of sorted) {
      const key = text.length < KEY_LENGTH ? -1 : startKey(text, 0);
      const list = this.#byStart.get(key);
      if (list) list.push(text);
      else this.#byStart.set(key, [text]);
    }
  }
}
