/**
 * Parses several artifacts at once on worker threads. The main thread parses the small inputs
 * and takes its share of the large ones while the workers start; together they are
 * min(available cores, large inputs) parsing threads. Results keep the input order;
 * CapiGitopsError diagnostics from every input are gathered and thrown together.
 *
 * A worker costs ~60 ms to start, parses its first megabyte with a cold JIT and sends its
 * objects back by structured clone, while the fast parser reads 3.6 MB in ~130 ms on one
 * thread. Measured on 2 cores (bench/yaml.bench.ts), workers were slower even for 9 MB, so
 * below PARALLEL_FROM_CHARS everything is parsed on the main thread.
 */
import os from 'node:os';
import { threadId, Worker } from 'node:worker_threads';
import { CapiGitopsError, sortDiagnostics } from '../model/diagnostics.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { KObject } from '../model/kobject.js';
import { parseArtifact } from './parse.js';
import { parseWorkerScript } from './parse-worker-script.js';

export interface ParseInput {
  text: string;
  source: string;
  maxBytes?: number;
}

/** A job posted to a worker. */
export interface ParseJob extends ParseInput {
  id: number;
}

/** A worker's answer to a job, with the worker's thread id and its parse time. */
export type ParseReply = { id: number; threadId: number; ms: number } & (
  | { ok: true; objects: KObject[] }
  | { ok: false; diagnostics: Diagnostic[] }
  | { ok: false; failure: string }
);

/** Which thread parsed an input, and how long it took (for --verbose output, benchmarks, tests). */
export interface ParsedEvent {
  index: number;
  source: string;
  /** 0 for the main thread. */
  threadId: number;
  ms: number;
}

/** Below this many characters an input is parsed on the main thread: a worker costs more. */
export const INLINE_PARSE_CHARS = 256 * 1024;
/** Workers start only when the large inputs together have at least this many characters. */
export const PARALLEL_FROM_CHARS = 32 * 1024 * 1024;

export interface ParallelOptions {
  /** Parsing threads to use at most (main thread included); default: available cores. */
  threads?: number;
  /** Inputs shorter than this are parsed on the main thread; default INLINE_PARSE_CHARS. */
  inlineBelowChars?: number;
  /** Minimum total size of the large inputs for workers to start; default PARALLEL_FROM_CHARS. */
  parallelFromChars?: number;
  /** Called once per input parsed successfully. */
  onParsed?: (event: ParsedEvent) => void;
  /** false: leave every large input to the workers (default true: the main thread helps). */
  mainThreadHelps?: boolean;
}

export async function parseArtifactsParallel(inputs: ParseInput[], options: ParallelOptions = {}): Promise<KObject[][]> {
  const results: KObject[][] = new Array(inputs.length);
  const problems: Diagnostic[] = [];
  const large: number[] = [];
  const small: number[] = [];
  const inlineBelow = options.inlineBelowChars ?? INLINE_PARSE_CHARS;
  inputs.forEach((input, i) => (input.text.length >= inlineBelow ? large : small).push(i));
  large.sort((a, b) => inputs[b].text.length - inputs[a].text.length || a - b);

  const largeChars = large.reduce((sum, i) => sum + inputs[i].text.length, 0);
  const worthWorkers = largeChars >= (options.parallelFromChars ?? PARALLEL_FROM_CHARS);
  const cap = worthWorkers ? (options.threads ?? os.availableParallelism()) : 1;
  const threads = Math.max(1, Math.min(cap, large.length));
  const queue = new JobQueue(large);
  const sink: ResultSink = { results, problems, onParsed: options.onParsed };
  const workers = Array.from({ length: threads - 1 }, () => new PoolWorker());
  try {
    const workersDone = Promise.all(workers.map((w) => w.run(inputs, queue, sink)));
    workersDone.catch(() => undefined); // handled below; a failure must not go unhandled meanwhile
    for (const i of small) parseInline(inputs, i, sink);
    const mainHelps = workers.length === 0 || options.mainThreadHelps !== false;
    for (let i = mainHelps ? queue.take() : -1; i >= 0; i = queue.take()) {
      parseInline(inputs, i, sink);
      await yieldToEventLoop(); // let finished workers pick up the next job
    }
    await workersDone;
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
  }
  if (problems.length > 0) throw new CapiGitopsError(sortDiagnostics(problems));
  return results;
}

/** Where parsed inputs go. */
interface ResultSink {
  results: KObject[][];
  problems: Diagnostic[];
  onParsed?: (event: ParsedEvent) => void;
}

function parseInline(inputs: ParseInput[], i: number, sink: ResultSink): void {
  const { text, source, maxBytes } = inputs[i];
  const started = performance.now();
  try {
    sink.results[i] = parseArtifact(text, { source, maxBytes });
    sink.onParsed?.({ index: i, source, threadId, ms: performance.now() - started });
  } catch (err) {
    if (!(err instanceof CapiGitopsError)) throw err;
    sink.problems.push(...err.diagnostics);
  }
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Indices of the large inputs, biggest first, shared by the main thread and the workers. */
class JobQueue {
  private next = 0;
  constructor(private readonly order: number[]) {}
  take(): number {
    return this.next < this.order.length ? this.order[this.next++] : -1;
  }
}

export { setParseWorkerScript } from './parse-worker-script.js';

class PoolWorker {
  private readonly worker: Worker;
  private readonly ready: Promise<void>;
  private pending: { resolve: (r: ParseReply) => void; reject: (e: Error) => void } | undefined;
  private failed: Error | undefined;

  constructor() {
    // No inherited Node flags: `-e`/`--input-type` and the like would break loading the file.
    const script = parseWorkerScript();
    this.worker = new Worker(script.url, { execArgv: [], workerData: script.workerData });
    // Never keep the process alive for a worker.
    this.worker.unref();
    this.ready = new Promise((resolve, reject) => {
      this.worker.once('message', () => resolve());
      this.worker.once('error', reject);
    });
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => this.fail(new Error(`parse worker exited with code ${code}`)));
  }

  private fail(err: Error): void {
    this.failed ??= err;
    this.pending?.reject(err);
    this.pending = undefined;
  }

  /** Takes jobs from the queue until it is empty, recording results and problems. */
  async run(inputs: ParseInput[], queue: JobQueue, sink: ResultSink): Promise<void> {
    await this.ready;
    for (let i = queue.take(); i >= 0; i = queue.take()) {
      const reply = await this.send({ id: i, ...inputs[i] });
      if (reply.ok) {
        sink.results[i] = reply.objects;
        sink.onParsed?.({ index: i, source: inputs[i].source, threadId: reply.threadId, ms: reply.ms });
      } else if ('diagnostics' in reply) sink.problems.push(...reply.diagnostics);
      else throw new Error(`parsing ${inputs[i].source} failed in a worker: ${reply.failure}`);
    }
  }

  private send(job: ParseJob): Promise<ParseReply> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.worker.once('message', (reply: ParseReply) => {
        this.pending = undefined;
        resolve(reply);
      });
      this.worker.postMessage(job);
    });
  }

  async stop(): Promise<void> {
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }
}
