/**
 * The Action's `args` input as an argument list, split the way a POSIX shell splits a command
 * line, with none of its expansions: whitespace (newlines too) separates words; '…' keeps
 * everything; "…" keeps everything but \" \\ \$ \` and a backslash-newline; a backslash outside
 * quotes keeps the next character; `#` at the start of a word comments out the rest of the line.
 * `$VAR`, `$(…)`, `*`, `?`, `[…]` and `~` stay as written, so a flag never turns into file names
 * or an empty string. Hand-written: the few npm shell-words splitters either expand variables
 * (shell-quote) or lack comments and line continuations, and this is 40 lines without dependencies
 * for a script that runs before anything is installed.
 */
export class WordsError extends Error {}

/** `text` split into words; throws WordsError on an unterminated quote or a trailing backslash. */
export function splitWords(text) {
  const words = [];
  let word = '';
  let inWord = false;
  let i = 0;
  const end = (what) => {
    throw new WordsError(`args: ${what}; quote a value with spaces as 'a b' or "a b", or put each argument on a line of its own`);
  };
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
    } else if (c === '#' && !inWord) {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === "'") {
      const close = text.indexOf("'", i + 1);
      if (close < 0) end(`the single quote at character ${i + 1} is not closed`);
      word += text.slice(i + 1, close);
      inWord = true;
      i = close + 1;
    } else if (c === '"') {
      const start = i;
      i++;
      for (;;) {
        if (i >= text.length) end(`the double quote at character ${start + 1} is not closed`);
        const d = text[i];
        if (d === '"') break;
        if (d === '\\' && i + 1 < text.length && '"\\$`\n'.includes(text[i + 1])) {
          if (text[i + 1] !== '\n') word += text[i + 1];
          i += 2;
        } else {
          word += d;
          i++;
        }
      }
      inWord = true;
      i++;
    } else if (c === '\\') {
      if (i + 1 >= text.length) end('the backslash at the end escapes nothing');
      // a backslash-newline joins two lines
      if (text[i + 1] !== '\n') {
        word += text[i + 1];
        inWord = true;
      }
      i += 2;
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}
