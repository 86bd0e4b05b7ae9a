/**
 * How every command reports: human lines on stdout (none with --quiet or --json), one JSON
 * document on stdout with --json, details on stderr with --verbose, warnings and errors on
 * stderr always. Commands print through an Output so the flags mean the same everywhere.
 */
import type { Diagnostic } from '../model/diagnostics.js';

/** Version of every --json document; raised only when a field changes meaning or is removed. */
export const JSON_SCHEMA_VERSION = 1;

export interface OutputFlags {
  quiet?: boolean;
  verbose?: boolean;
  json?: boolean;
}

export class Output {
  constructor(
    private readonly flags: OutputFlags,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly stderr: NodeJS.WritableStream = process.stderr,
  ) {}

  /** Whether a --json document replaces the human report. */
  get json(): boolean {
    return Boolean(this.flags.json);
  }

  get verbose(): boolean {
    return Boolean(this.flags.verbose) && !this.flags.quiet;
  }

  /** A line of the human report. */
  line(text: string): void {
    if (!this.flags.quiet && !this.flags.json) this.stdout.write(text + '\n');
  }

  /** A line shown only with --verbose (on stderr, so a --json document stays parseable). */
  detail(text: string): void {
    if (this.verbose) this.stderr.write(text + '\n');
  }

  warn(text: string): void {
    this.stderr.write(`warning: ${text}\n`);
  }

  /** The command's --json document: `{ schemaVersion, command, ok: true, …body }`. */
  document(command: string, body: Record<string, unknown>): void {
    this.stdout.write(jsonText({ schemaVersion: JSON_SCHEMA_VERSION, command, ok: true, ...body }));
  }
}

/** The --json document of a failed run: every problem, as the text form reports them. */
export function failureDocument(command: string, diagnostics: Diagnostic[], usage?: string): string {
  return jsonText({ schemaVersion: JSON_SCHEMA_VERSION, command, ok: false, ...(usage !== undefined ? { usageError: usage } : { problems: diagnostics }) });
}

function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}
