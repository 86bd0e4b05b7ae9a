/**
 * Process-wide memos that belong to one run (hosts found unreachable, secrets to redact, SOPS key
 * commands already run) are made here; main() clears them as a run starts, so a second run in the
 * same process (a test running the CLI in its own process) starts as a fresh process would.
 */
const memos: Array<{ clear(): void }> = [];

/** `memo`, cleared whenever a run starts. */
export function clearedEachRun<T extends { clear(): void }>(memo: T): T {
  memos.push(memo);
  return memo;
}

/** Clears every memo made by clearedEachRun. */
export function startRun(): void {
  for (const memo of memos) memo.clear();
}
