/**
 * What the network sources are doing, for people: on a terminal one live progress bar (files
 * fetched, bytes received, the file in flight); elsewhere (pipes, CI) plain log lines on stderr.
 */
import type CliProgress from 'cli-progress';
import type { SourceProgressEvent } from '../sources/base/http.js';
import { safeText } from '../core/redact.js';
import { streams, type CliStreams } from './output.js';

export interface ProgressReporter {
  onProgress(event: SourceProgressEvent): void;
  log(line: string): void;
  /** A warning: printed on stderr even when quiet (--quiet prints only warnings and errors). */
  warn(line: string): void;
  /** Removes the live display; call before printing results. */
  stop(): void;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/**
 * Plain lines, one per event that matters; byte counts only when a file is done. `offline`: no
 * request is made, and the cache may lack what is asked: a file is told once the cache gave it,
 * a listing as looked for (no event says it was found).
 */
export function lineFor(event: SourceProgressEvent, offline = false): string | undefined {
  switch (event.type) {
    case 'resolve':
      return offline ? `looking in the cache for the versions of ${event.source} (--offline)` : `listing versions of ${event.source}`;
    case 'fetch':
      return offline ? undefined : `fetching ${event.file} ${event.version} from ${event.source}`;
    case 'done':
      return offline
        ? `read ${event.file} ${event.version} of ${event.source} from the cache (${formatBytes(event.bytes)}, --offline)`
        : `fetched ${event.file} ${event.version} (${formatBytes(event.bytes)}${event.cached ? ', from cache' : ''})`;
    case 'retry':
      return `retrying ${event.url} in ${Math.round(event.delayMs)} ms (attempt ${event.attempt}: ${event.reason})`;
    case 'bytes':
      return undefined;
  }
}

const toStderr = (line: string) => streams.stderr.write(`${safeText(line)}\n`);

class LineReporter implements ProgressReporter {
  constructor(
    private readonly write: (line: string) => void,
    private readonly writeWarning: (line: string) => void = write,
    private readonly offline = false,
  ) {}
  onProgress(event: SourceProgressEvent): void {
    const line = lineFor(event, this.offline);
    if (line) this.write(line);
  }
  log(line: string): void {
    this.write(line);
  }
  warn(line: string): void {
    this.writeWarning(line);
  }
  stop(): void {}
}

class BarReporter implements ProgressReporter {
  private readonly bar: CliProgress.SingleBar;
  private started = false;
  private total = 0;
  private done = 0;
  private readonly received = new Map<string, number>();
  private current = 'resolving';

  constructor(
    cliProgress: typeof CliProgress,
    private readonly offline = false,
  ) {
    this.bar = new cliProgress.SingleBar(
      { format: '{bar} {value}/{total} files | {received} | {current}', hideCursor: true, clearOnComplete: true, stream: streams.stderr },
      cliProgress.Presets.shades_classic,
    );
  }

  onProgress(event: SourceProgressEvent): void {
    if (event.type === 'fetch') {
      this.total++;
      this.current = safeText(`${event.file} ${event.version}`, { keepNewlines: false });
    } else if (event.type === 'done') {
      this.done++;
    } else if (event.type === 'bytes') {
      this.received.set(event.url, event.received);
    } else if (event.type === 'resolve') {
      this.current = this.offline ? `looking in the cache for ${event.source}` : `listing ${event.source}`;
    }
    this.render();
  }

  private render(): void {
    const payload = { received: formatBytes([...this.received.values()].reduce((a, b) => a + b, 0)), current: this.current };
    if (!this.started) {
      this.bar.start(Math.max(this.total, 1), this.done, payload);
      this.started = true;
    }
    this.bar.setTotal(Math.max(this.total, 1));
    this.bar.update(this.done, payload);
  }

  log(line: string): void {
    streams.stderr.write(`${safeText(line)}\n`);
  }

  warn(line: string): void {
    this.log(line);
  }

  stop(): void {
    if (this.started) this.bar.stop();
    this.started = false;
  }
}

/**
 * A live bar on a TTY outside CI, plain lines otherwise; nothing when quiet. The bar library is
 * loaded only when a bar is shown: CI runs do not pay for it.
 */
export async function progressReporter(
  options: { quiet?: boolean; offline?: boolean; stream?: CliStreams['stderr']; env?: NodeJS.ProcessEnv } = {},
): Promise<ProgressReporter> {
  const stream = options.stream ?? streams.stderr;
  const env = options.env ?? process.env;
  if (options.quiet) return new LineReporter(() => undefined, toStderr);
  if (stream.isTTY && !env.CI) return new BarReporter((await import('cli-progress')).default, options.offline);
  return new LineReporter((line) => stream.write(`${safeText(line)}\n`), undefined, options.offline);
}
