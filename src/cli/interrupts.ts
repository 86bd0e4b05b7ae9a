/**
 * Ctrl-C and SIGTERM: the run settles what it started (core/interrupt.ts), says in one line
 * whether anything was changed, then ends by the signal itself (its default action), so the shell
 * reports 130 (SIGINT) or 143 (SIGTERM) and a shell loop that ran it stops too, as a process
 * killed by Ctrl-C should ("Proper handling of SIGINT/SIGQUIT", Cracauer). Re-raising also ends a
 * process whose thread pool is blocked (`-f <(generator)` that never writes), where
 * process.exit would wait for it. A second signal ends it at once; the next run removes what is left.
 */
import { settleInterrupted } from '../core/interrupt.js';
import { streams } from './output.js';

const SIGNAL_NUMBERS = { SIGINT: 2, SIGTERM: 15 } as const;
type HandledSignal = keyof typeof SIGNAL_NUMBERS;

let handling: Promise<number> | undefined;
// the command, when it is one that never writes (check, diff, plan, convert without --in-place)
let readOnlyCommand: string | undefined;

/** The run's command when it writes nothing (undefined otherwise), so an interrupt does not speak of the output as kept. */
export function setReadOnlyCommand(command: string | undefined): void {
  readOnlyCommand = command;
}

/** The line printed once the run has settled. */
function interruptMessage(signal: NodeJS.Signals, committed: readonly string[]): string {
  const cleaned = 'the temporary files it had started were removed';
  if (readOnlyCommand !== undefined) return `capi-gitops: interrupted by ${signal}; ${readOnlyCommand} writes nothing, and ${cleaned}`;
  return committed.length === 0
    ? `capi-gitops: interrupted by ${signal} before anything was written: the output directory, the lockfile and the manifest are as they were; ${cleaned}`
    : `capi-gitops: interrupted by ${signal} after the write finished (${committed.join('; ')}): what was written is complete; ${cleaned}`;
}

/** Ends the process by `signal`'s default action; where that does not end it (no signals), exits with the shell's number. */
function endBy(signal: HandledSignal): void {
  for (const each of Object.keys(SIGNAL_NUMBERS)) process.removeAllListeners(each);
  process.kill(process.pid, signal);
  setTimeout(() => process.exit(128 + SIGNAL_NUMBERS[signal]), 1000);
}

function onSignal(signal: HandledSignal): void {
  if (handling) {
    streams.stderr.write(`capi-gitops: ${signal} again: exiting now; the next run removes what this one leaves\n`);
    return endBy(signal);
  }
  handling = settleInterrupted(signal).then((committed) => {
    streams.stderr.write(interruptMessage(signal, committed) + '\n');
    endBy(signal);
    return 128 + SIGNAL_NUMBERS[signal];
  });
}

let installed = false;

/** Installs the handlers once per process. */
export function installInterruptHandlers(): void {
  if (installed) return;
  installed = true;
  for (const signal of Object.keys(SIGNAL_NUMBERS) as HandledSignal[]) process.on(signal, () => onSignal(signal));
}

/** What a command that stopped on an InterruptedError returns: the handler ends the process first. */
export function interruptedExit(): Promise<number> {
  return handling ? handling.then(() => new Promise<number>(() => undefined)) : Promise.resolve(128 + SIGNAL_NUMBERS.SIGINT);
}
