/**
 * Generated YAML cases shared by the differential tests of the parser and the emitter: a small
 * deterministic PRNG (the same cases on every run) and the text fragments strings are built from,
 * chosen for what YAML treats specially (indicators, quotes, line breaks, 1.1 booleans, numbers).
 */
export function prng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

export const YAML_FRAGMENTS: readonly string[] = [
  'a',
  'word',
  ' ',
  '  ',
  '\n',
  '\n\n',
  '#',
  ' #',
  ': ',
  ':',
  '-',
  '- ',
  '?',
  "'",
  '"',
  '\\',
  '\t',
  'é',
  '😀',
  '[',
  ']',
  '{',
  '}',
  ',',
  '&x',
  '*y',
  '!t',
  '|',
  '>',
  '%',
  '@',
  '`',
  'yes',
  'on',
  '0644',
  '1e3',
  '12',
  'null',
  '~',
  '---',
  '...',
  'http://x/y',
  ' lead',
  'trail ',
  '\u00a0',
];
