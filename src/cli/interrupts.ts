/**
 * Ctrl-C and SIGTERM: the run settles what it started (kernel/interrupt.ts), says in one line
 * whether anything was changed, and exits 130 (SIGINT) or 143 (SIGTERM), as shells report a
 * process a signal ended. A second signal exits at once; the next run removes what is left.
 */
import { settleInterrupted } from '../kernel/interrupt.js';

const SIGNAL_NUMBERS = { SIGINT: 2, SIGTERM: 15 } as const;
type HandledSignal = keyof typeof SIGNAL_NUMBERS;

let handling: Promise<number> | undefined;

/** The line printed once the run has settled. */
export function interruptMessage(signal: NodeJS.Signals, committed: readonly string[]): string {
  const cleaned = 'the temporary files it had started were removed';
  return committed.length === 0
    ? `capi-gitops: interrupted by ${signal} before anything was written: the output directory, the lockfile and the manifest are as they were; ${cleaned}`
    : `capi-gitops: interrupted by ${signal} after the run ${committed.join(', ')}: they hold this run's result; ${cleaned}`;
}

function onSignal(signal: HandledSignal): void {
  const code = 128 + SIGNAL_NUMBERS[signal];
  if (handling) {
    process.stderr.write(`capi-gitops: ${signal} again: exiting now; the next run removes what this one leaves\n`);
    process.exit(code);
  }
  handling = settleInterrupted(signal).then((committed) => {
    process.stderr.write(interruptMessage(signal, committed) + '\n');
    process.exit(code);
  });
}

export function installInterruptHandlers(): void {
  for (const signal of Object.keys(SIGNAL_NUMBERS) as HandledSignal[]) process.on(signal, () => onSignal(signal));
}

/** What a command that stopped on an InterruptedError returns: the handler's exit, which ends the process first. */
export function interruptedExit(): Promise<number> {
  return handling ?? Promise.resolve(128 + SIGNAL_NUMBERS.SIGINT);
}
