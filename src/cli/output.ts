/**
 * How the CLI writes: human lines on stdout (none with --quiet or --json), one JSON document on
 * stdout with --json, details on stderr with --verbose, warnings and errors on stderr always.
 * Every line is redacted and escaped (safeText) on its way out.
 *
 * - A closed stdout or stderr (`render … | head -1`) gives EPIPE on the next write. Node emits it
 *   as an 'error' event, which without a listener kills the process — possibly between the output
 *   directory and the lockfile. The listener drops further output instead; the run finishes.
 * - An error from the file system (EACCES, ENOSPC, ENOTDIR, ELOOP, …) is about a path the user
 *   gave or the environment: it is reported as a diagnostic naming the path, not as a bug.
 * - `internal error` remains for real bugs: one line and a hint (the stack with --verbose), and the
 *   failure document under --json; when CAPI_GITOPS_INTERNAL_ERROR_LOG names a file, each one is
 *   also appended there with its stack, so the test runner can fail the suite if any CLI test hit one.
 */
import { appendFileSync } from 'node:fs';
import type { Diagnostic } from '../core/diagnostics.js';
import { safeText } from '../core/redact.js';

/**
 * Where the run prints: the process's stdout and stderr, unless the caller of main() gives streams
 * of its own (a test that runs the CLI in its process, which saves a Node start per run).
 */
export interface CliStreams {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}
export const streams: CliStreams = { stdout: process.stdout, stderr: process.stderr };

let guarded = false;
let stdoutFailure: NodeJS.ErrnoException | undefined;

/** Installs the EPIPE handling on stdout and stderr (once). */
export function guardOutputStreams(): void {
  if (guarded) return;
  guarded = true;
  // Any write error on our own output (EPIPE, EBADF, a destroyed stream) leaves nothing to tell
  // the user through that stream; the exit code still says how the run went.
  process.stderr.on('error', () => undefined);
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    // A reader that left (`| head`) chose to; a full disk or an I/O error under `> file` did not:
    // the file is cut short, so the run fails, whenever the error arrives.
    if (error.code === 'EPIPE' || stdoutFailure) return;
    stdoutFailure = error;
    process.stderr.write(stdoutFailureMessage(error));
    process.exitCode = 1;
  });
}

function stdoutFailureMessage(error: NodeJS.ErrnoException): string {
  const what = SYSTEM_ERRORS[error.code ?? ''] ?? 'write error';
  return `error: cannot write to standard output: ${what} (${error.code ?? error.message}): what was printed there is incomplete\n`;
}

/** The exit code once stdout has said how its writes went: 1 when one failed (not EPIPE). */
export function withStdoutFailure(code: number): number {
  return code === 0 && stdoutFailure ? 1 : code;
}

/** Writes to stderr, redacted and escaped line by line. */
export function printError(text: string): void {
  streams.stderr.write(safeText(text) + '\n');
}

const SYSTEM_ERRORS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a component of the path is not a directory',
  EISDIR: 'is a directory',
  ELOOP: 'too many levels of symbolic links',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EEXIST: 'already exists',
  ENAMETOOLONG: 'file name too long',
  EMFILE: 'too many open files',
  EBUSY: 'resource busy',
  EXDEV: 'cross-device link',
  EIO: 'input/output error',
  ENXIO: 'no such device or address',
};

/** A Node file-system error (it has `code` and `syscall`) as a diagnostic, or undefined for anything else. */
export function systemErrorDiagnostic(error: unknown): Diagnostic | undefined {
  const e = error as (NodeJS.ErrnoException & { dest?: string }) | undefined;
  if (!(e instanceof Error) || typeof e.code !== 'string' || typeof e.syscall !== 'string') return undefined;
  const what = SYSTEM_ERRORS[e.code] ?? e.code;
  const target = e.dest ? `${e.path ?? ''} → ${e.dest}` : e.path;
  return {
    file: target,
    message: `cannot ${e.syscall}: ${what} (${e.code})`,
    hint:
      e.code === 'ENOSPC' || e.code === 'EDQUOT'
        ? 'free some space, or point --cache-dir and -o at a file system with room'
        : 'check that the path exists, is of the right kind and is readable and writable by this user',
  };
}

/**
 * Reports a real bug: one line on stderr, the stack too when `stack` (--verbose) asks for it, and
 * always to CAPI_GITOPS_INTERNAL_ERROR_LOG for the test suite. Returns the problem for a --json
 * document, which never holds the stack.
 */
export function reportInternalError(error: unknown, argv: readonly string[], stack: 'print' | 'flag' | 'none'): Diagnostic {
  const summary = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const full = error instanceof Error ? (error.stack ?? summary) : summary;
  const problem: Diagnostic = {
    message: `internal error: ${summary}`,
    hint:
      stack === 'flag'
        ? 'a bug in capi-gitops: run the command again with --verbose to print the stack trace, and report it with the command that ran'
        : 'a bug in capi-gitops: report it with the command that ran and what it printed',
  };
  printError(`internal error: ${stack === 'print' ? full : summary}\n  hint: ${problem.hint}`);
  const log = process.env.CAPI_GITOPS_INTERNAL_ERROR_LOG;
  if (log) {
    try {
      appendFileSync(log, `${safeText(argv.join(' '))}\n${safeText(full)}\n\n`);
    } catch {
      // The report on stderr stands.
    }
  }
  return problem;
}

/** Version of every --json document; raised only when a field changes meaning or is removed. */
const JSON_SCHEMA_VERSION = 1;

export interface OutputFlags {
  quiet?: boolean;
  verbose?: boolean;
  json?: boolean;
}

export class Output {
  constructor(private readonly flags: OutputFlags) {}

  /** Whether a --json document replaces the human report. */
  get json(): boolean {
    return Boolean(this.flags.json);
  }

  /** Whether the run's report is shown at all: --quiet without --json shows none. */
  get showsReport(): boolean {
    return !this.flags.quiet || Boolean(this.flags.json);
  }

  get verbose(): boolean {
    return Boolean(this.flags.verbose) && !this.flags.quiet;
  }

  /** A line of the human report. */
  line(text: string): void {
    if (!this.flags.quiet && !this.flags.json) streams.stdout.write(safeText(text) + '\n');
  }

  /** A line shown only with --verbose (on stderr, so a --json document stays parseable). */
  detail(text: string): void {
    if (this.verbose) streams.stderr.write(safeText(text) + '\n');
  }

  warn(text: string): void {
    streams.stderr.write(safeText(`warning: ${text}`) + '\n');
  }

  /** The command's --json document: `{ schemaVersion, command, ok: true, …body }`. */
  document(command: string, body: Record<string, unknown>): void {
    streams.stdout.write(jsonText({ schemaVersion: JSON_SCHEMA_VERSION, command, ok: true, ...body }));
  }
}

/** The --json document of a failed run: the problems the text form shows, and how many it left out. */
export function failureDocument(command: string, diagnostics: Diagnostic[], usage?: string, notShown = 0): string {
  return jsonText({
    schemaVersion: JSON_SCHEMA_VERSION,
    command,
    ok: false,
    ...(usage !== undefined ? { usageError: usage } : { problems: diagnostics }),
    ...(notShown > 0 ? { problemsNotShown: notShown } : {}),
  });
}

function jsonText(value: unknown): string {
  return safeText(JSON.stringify(value, null, 2)) + '\n';
}
