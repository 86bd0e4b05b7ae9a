/** A word as a POSIX shell reads it back: bare when it is made of safe characters, else single-quoted. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@,+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A command line's words, read back as shellWord wrote them (bare, or single-quoted with '\'' for a quote). */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === ' ') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = command.indexOf("'", i + 1);
      word = (word ?? '') + command.slice(i + 1, end < 0 ? undefined : end);
      i = end < 0 ? command.length : end;
    } else word = (word ?? '') + (c === '\\' && i + 1 < command.length ? command[++i] : c);
  }
  if (word !== undefined) words.push(word);
  return words;
}
