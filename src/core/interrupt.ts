/**
 * Ctrl-C (SIGINT) and SIGTERM: what a run has started on disk is settled before the process
 * exits. Code that creates something (a temporary file, a staging tree, a lock file) registers
 * how to remove it; a commit that has begun (the output's swap, a lockfile's rename) registers a
 * wait for its end, and code between steps asks `throwIfInterrupted`. The CLI's handler
 * (cli/interrupts.ts) runs every registration, newest first, says what was changed, and exits
 * 128 + the signal's number (130, 143), as shells report a process a signal ended.
 */

/** Thrown at a step boundary once a signal came: the run stops there and removes what it created. */
export class InterruptedError extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`interrupted by ${signal}`);
  }
}

type Settle = () => Promise<unknown>;

const registered = new Set<{ settle: Settle }>();
let received: NodeJS.Signals | undefined;
const changed: string[] = [];

/** At a step boundary: stops the run when a signal came. */
export function throwIfInterrupted(): void {
  if (received) throw new InterruptedError(received);
}

/** Registers what a signal must wait for or remove; returns the function that withdraws it. */
export function onInterrupt(settle: Settle): () => void {
  const entry = { settle };
  registered.add(entry);
  return () => registered.delete(entry);
}

/** Records a change this run committed (`wrote out/`), for the message a signal prints. */
export function recordCommitted(what: string): void {
  changed.push(what);
}

/**
 * On a signal: marks the run interrupted, then settles every registration, newest first (a
 * commit in progress ends before the files it would commit are removed). Returns what the run
 * had committed.
 */
export async function settleInterrupted(signal: NodeJS.Signals): Promise<string[]> {
  received ??= signal;
  for (const entry of [...registered].reverse()) {
    registered.delete(entry);
    await entry.settle().catch(() => undefined);
  }
  return [...changed];
}

/** For tests in one process: forgets a signal and every registration. */
export function resetInterruptState(): void {
  received = undefined;
  registered.clear();
  changed.length = 0;
}
