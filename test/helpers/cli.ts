/** Runs the CLI as a user would: in this process (runCli), or in a child process (runCliProcess). */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { cpSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './paths.js';
import { tempDir } from './corpus-manifest.js';
import { logCliRun } from './secret-scan.js';
import type { CliStreams } from '../../src/cli/output.js';

/** The ways the CLI runs: the compiled modules' entry, the package's bin and the single-file bundle. */
export const CLI_ENTRY_POINTS = {
  /** dist/src/cli/main.js: the modules tsc compiled, loaded one by one. */
  modules: path.join(PROJECT_ROOT, 'dist', 'src', 'cli', 'main.js'),
  /** The package's `bin`: the bundle split at the commands, an entry and its chunks (the tests' default). */
  bin: path.join(PROJECT_ROOT, 'dist', 'bin', 'capi-gitops.mjs'),
  /** The single-file bundle. */
  bundle: path.join(PROJECT_ROOT, 'dist', 'capi-gitops.mjs'),
} as const;

/** Which entry point CAPI_GITOPS_TEST_CLI names: `bin`, `bundle`, or the modules' entry. */
export type CliEntry = keyof typeof CLI_ENTRY_POINTS;

/**
 * Whether the bin was bundled after every module it was made from: `npm run build` bundles last,
 * while `tsc` alone, in a change-and-test loop, leaves the bin of the build before.
 */
function binIsCurrent(): boolean {
  const bin = statSync(CLI_ENTRY_POINTS.bin, { throwIfNoEntry: false });
  if (bin === undefined) return false;
  const modules = path.join(PROJECT_ROOT, 'dist', 'src');
  return readdirSync(modules, { recursive: true, encoding: 'utf8' }).every(
    (file) => statSync(path.join(modules, file)).mtimeMs <= bin.mtimeMs,
  );
}

/**
 * The CLI a child process runs (runCliProcess, and tests that spawn it): the package's bin, as
 * users run it; the modules' entry when the bin is older than the modules (after `tsc` alone), or
 * when CAPI_GITOPS_TEST_CLI=modules.
 */
export const CLI = process.env.CAPI_GITOPS_TEST_CLI === 'modules' || !binIsCurrent() ? CLI_ENTRY_POINTS.modules : CLI_ENTRY_POINTS.bin;
export const EXAMPLE = path.join(PROJECT_ROOT, 'examples');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The in-process run last started: the next waits for it. */
let lastRun: Promise<unknown> = Promise.resolve();

/**
 * Runs the CLI to completion in this process, as the bin would run it: `main` of cli/program.ts
 * with this process's cwd and environment set to the run's for its duration, and its output
 * captured. A Node start and the modules' load are most of a small run (about 400 ms against
 * 50 ms for the example's render), and the tests make hundreds of runs. `env`, when given, is the
 * run's whole environment. A run with `input` (stdin) runs in a child process.
 */
export async function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<CliResult> {
  if (options.input !== undefined) return runCliProcess(args, options);
  // the working directory and the environment are the process's: runs started together take turns
  const turn = lastRun.then(() => runInProcess(args, options));
  lastRun = turn.catch(() => undefined);
  return turn;
}

async function runInProcess(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv }): Promise<CliResult> {
  const { main } = await import('../../src/cli/program.js');
  const stdout = new Capture();
  const stderr = new Capture();
  const savedCwd = process.cwd();
  const restoreEnv = replaceEnvironment(options.env ?? { ...process.env });
  let code: number;
  try {
    process.chdir(options.cwd ?? PROJECT_ROOT);
    code = await main(args, { stdout, stderr } as unknown as CliStreams);
  } finally {
    process.chdir(savedCwd);
    restoreEnv();
  }
  logCliRun(args, stdout.text, stderr.text);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** What a run printed on one stream. */
class Capture {
  text = '';
  readonly isTTY = false;
  write(chunk: string | Uint8Array, encoding?: unknown, callback?: () => void): boolean {
    this.text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') queueMicrotask(done as () => void);
    return true;
  }
  on(): this {
    return this;
  }
  once(): this {
    return this;
  }
}

/** Sets process.env to `env` in place (so child processes and libuv see it too); returns the undo. */
function replaceEnvironment(env: NodeJS.ProcessEnv): () => void {
  const saved = { ...process.env };
  const set = (next: NodeJS.ProcessEnv) => {
    for (const name of Object.keys(process.env)) if (!(name in next)) delete process.env[name];
    for (const [name, value] of Object.entries(next)) if (value !== undefined) process.env[name] = value;
  };
  set(env);
  return () => set(saved);
}

/**
 * Runs the built CLI in a child process, as a user would: for what only a process has (stdin,
 * signals, its exit, the bin itself). `env`, when given, is the child's whole environment.
 */
export function runCliProcess(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): CliResult {
  const spawnOptions: SpawnSyncOptions = {
    cwd: options.cwd ?? PROJECT_ROOT,
    encoding: 'utf8',
    env: options.env ?? process.env,
    input: options.input,
    maxBuffer: 64 * 1024 * 1024,
  };
  const result = spawnSync(process.execPath, [CLI, ...args], spawnOptions);
  logCliRun(args, String(result.stdout), String(result.stderr));
  return { code: result.status, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** Runs the CLI in this process with `env` as its whole environment (for tests whose fake server answers here too). */
export function runCliAsync(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return runCli(args, { env });
}

/** A private copy of the bundled example (manifest + repository), so a test can break it. */
export function exampleCopy(): string {
  const dir = tempDir('capi-gitops-example-');
  cpSync(EXAMPLE, dir, { recursive: true });
  return dir;
}

/** No stack trace, no `internal error`: what every failing run must look like. */
export function assertNoStackTrace(result: CliResult, what = 'run'): void {
  const text = result.stdout + result.stderr;
  if (/internal error|\n\s+at .+:\d+:\d+\)?\n/.test(text)) throw new Error(`${what} printed a stack trace:\n${result.stderr}`);
}
