/** A word as a POSIX shell reads it back: bare when it is made of safe characters, else single-quoted. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@,+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
