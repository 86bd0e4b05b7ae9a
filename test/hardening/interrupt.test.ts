/**
 * Ctrl-C and SIGTERM (issue 26, "Interrupted and stuck runs"): the run says whether anything was
 * written, removes what it created, ends by the signal (the shell's 130/143), and leaves nothing
 * Git would pick up; the next run succeeds with no warning. The writer is interrupted in process
 * at chosen steps; the CLI is interrupted at moments of a fleet render detected from the files
 * it creates, whatever moment the signal then lands at.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { constants, existsSync, readdirSync, readFileSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { tempDir } from '../helpers/corpus-manifest.js';
import { readTree } from '../helpers/tree.js';
import { CLI, exampleCopy, runCli } from '../helpers/cli.js';
import { logCliRun } from '../helpers/secret-scan.js';
import { lockOutput, OutputStage, writeOutput } from '../../src/output/write.js';
import type { PreparedFile } from '../../src/core/prepared-file.js';
import { sha256Hex } from '../../src/core/digest.js';
import { InterruptedError, onInterrupt, resetInterruptState, settleInterrupted } from '../../src/core/interrupt.js';

const FILES = new Map([
  ['kustomization.yaml', 'resources: [a, b]\n'],
  ['a/x.yaml', 'kind: X\n'],
  ['b/y.yaml', 'kind: Y\n'],
]);
const NEXT = new Map([...FILES, ['a/x.yaml', 'kind: X2\n'], ['c/z.yaml', 'kind: Z\n']]);

/** A stand-in for the lockfile committed with the output. */
function fakeLock(parent: string, onCommit: () => void = () => undefined) {
  const state = { committed: false, aborted: false };
  const file: PreparedFile = {
    file: path.join(parent, 'capi-gitops.lock.yaml'),
    commit: async () => {
      onCommit();
      state.committed = true;
    },
    abort: async () => void (state.aborted = true),
    restore: async () => undefined,
  };
  return { file, state };
}

/** The files, handing the signal over the first time the writer takes a file's bytes once `armed`. */
class SignallingFiles extends Map<string, string> {
  armed = false;
  signalled: Promise<string[]> | undefined;
  override get(key: string): string | undefined {
    if (this.armed && !this.signalled) this.signalled = settleInterrupted('SIGINT');
    return super.get(key);
  }
}

test('SIGINT while the new tree is being built: the write stops, its staging tree and the prepared lockfile are removed, nothing changed', async () => {
  resetInterruptState();
  const parent = tempDir();
  const out = path.join(parent, 'out');
  try {
    await writeOutput(out, FILES);
    resetInterruptState();
    const before = readTree(out);
    const files = new SignallingFiles(NEXT);
    const lock = fakeLock(parent);
    const digests = new Map([...NEXT].map(([p, text]) => [p, sha256Hex(text)]));
    // With every digest known the writer takes no file's bytes before it builds the staging tree.
    files.armed = true;
    await assert.rejects(writeOutput(out, files, { alongside: [lock.file], known: { digests } }), InterruptedError);
    assert.ok(files.signalled, 'the signal came while the tree was built');
    assert.deepEqual(await files.signalled, [], 'nothing committed');
    assert.deepEqual(readTree(out), before);
    assert.deepEqual(readdirSync(parent), ['out'], 'no staging tree, no lock, no scratch directory');
    assert.deepEqual(lock.state, { committed: false, aborted: true });
  } finally {
    resetInterruptState();
  }
});

test('SIGINT once the swap has begun: the write runs to its end (output and lockfile), then the signal is answered', async () => {
  resetInterruptState();
  const parent = tempDir();
  const out = path.join(parent, 'out');
  try {
    await writeOutput(out, FILES);
    resetInterruptState();
    let signalled: Promise<string[]> | undefined;
    const lock = fakeLock(parent, () => (signalled = settleInterrupted('SIGINT')));
    const summary = await writeOutput(out, NEXT, { alongside: [lock.file] });
    assert.ok(signalled);
    assert.deepEqual(await signalled, [`wrote ${out} and ${lock.file.file}`]);
    assert.deepEqual(summary.written, ['a/x.yaml', 'c/z.yaml']);
    assert.deepEqual(lock.state, { committed: true, aborted: false });
    assert.deepEqual(
      [...readTree(out)].filter(([p]) => !p.startsWith('.')),
      [...NEXT].sort(([a], [b]) => (a < b ? -1 : 1)),
    );
    assert.deepEqual(readdirSync(parent), ['out'], 'the backup was cleaned up before the run ended');
  } finally {
    resetInterruptState();
  }
});

// A render prepares the lockfile (whose temporary a signal removes) under the output's lock, before
// the write: a signal once the swap has begun must wait for the write to commit it, not remove it first.
/** Writes `files` with `alongside` under the output's lock, `decide` run under it first (where a render prepares the lockfile). */
type LockedWriter = (out: string, files: Map<string, string>, alongside: PreparedFile[], decide?: () => void) => Promise<unknown>;
const writers: [string, LockedWriter][] = [
  [
    'a locked output',
    async (out, files, alongside, decide) => {
      const locked = await lockOutput(out);
      try {
        decide?.();
        return await locked.write(files, { alongside });
      } finally {
        await locked.release();
      }
    },
  ],
  [
    'a staged output (a fleet)',
    async (out, files, alongside, decide) => {
      const stage = new OutputStage(out);
      try {
        await stage.writeAll(files);
        await stage.lock();
        decide?.();
        return await stage.commit(alongside);
      } finally {
        await stage.abort();
      }
    },
  ],
];
for (const [writer, write] of writers) {
  test(`SIGINT once the swap of ${writer} has begun: a file prepared before the write is committed, not removed first`, async () => {
    resetInterruptState();
    const parent = tempDir();
    const out = path.join(parent, 'out');
    try {
      await writeOutput(out, FILES);
      resetInterruptState();
      let removed = false;
      let signalled: Promise<string[]> | undefined;
      const lock = fakeLock(parent, () => {
        signalled = settleInterrupted('SIGINT');
        if (removed) throw new Error('the prepared file was removed before its commit');
      });
      // as prepareFile registers the removal of its temporary file, before the write begins
      const withdraw = onInterrupt(async () => void (removed = true));
      try {
        await write(out, NEXT, [lock.file]);
      } finally {
        withdraw();
      }
      assert.ok(signalled);
      assert.deepEqual(await signalled, [`wrote ${out} and ${lock.file.file}`]);
      assert.deepEqual(lock.state, { committed: true, aborted: false });
    } finally {
      resetInterruptState();
    }
  });

  test(`SIGINT while the lockfile is decided under the lock of ${writer}: the write does not begin, the prepared file is not committed`, async () => {
    resetInterruptState();
    const parent = tempDir();
    const out = path.join(parent, 'out');
    try {
      await writeOutput(out, FILES);
      resetInterruptState();
      const before = readTree(out);
      const lock = fakeLock(parent);
      // the same files: the write would commit the prepared file without swapping anything
      await assert.rejects(
        write(out, FILES, [lock.file], () => void settleInterrupted('SIGINT')),
        InterruptedError,
      );
      assert.deepEqual(lock.state, { committed: false, aborted: true });
      assert.deepEqual(readTree(out), before);
      assert.deepEqual(readdirSync(parent), ['out'], 'no staging tree, no lock, no scratch directory');
    } finally {
      resetInterruptState();
    }
  });
}

// ---- the CLI, on a fleet -------------------------------------------------------------------------

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    encoding: 'utf8',
  });
}

const CLUSTERS = 6;
const ENV = { ...process.env, CAPI_GITOPS_OUTPUT_CACHE: 'off' };

/**
 * A Git repository holding the example as a fleet of 6 clusters and its rendered output, with
 * a committed change to the manifest that the next render writes into every cluster.
 */
async function fleetRepository(): Promise<{ root: string; manifest: string; out: string; cache: string }> {
  const root = exampleCopy();
  const manifest = path.join(root, 'management-cluster');
  const cache = tempDir();
  const clusters = Array.from({ length: CLUSTERS }, (_, i) => `- name: c${i + 1}\n`).join('');
  writeFileSync(path.join(manifest, 'fleet.yaml'), `apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n${clusters}`);
  const out = path.join(root, 'out');
  const first = await runCli(['render', '-f', manifest, '-o', out, '--cache-dir', cache], { env: ENV });
  assert.equal(first.code, 0, first.stderr);
  git(root, 'init', '-q');
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'rendered');
  const config = path.join(manifest, 'config.yaml');
  writeFileSync(config, readFileSync(config, 'utf8').replace('EXAMPLE_REGION: eu-west-1', 'EXAMPLE_REGION: eu-west-2'));
  git(root, 'commit', '-qam', 'the region moves');
  return { root, manifest, out, cache };
}

/** Resolves when an entry whose name starts with `prefix` is in `<dir>/.capi-gitops-tmp` (created during the run). */
function scratchEntry(dir: string, prefix: string): { seen: Promise<void>; close: () => void } {
  const scratch = path.join(dir, '.capi-gitops-tmp');
  const watchers: FSWatcher[] = [];
  let resolve!: () => void;
  const seen = new Promise<void>((r) => (resolve = r));
  const look = () => {
    if (!existsSync(scratch)) return;
    if (watchers.length === 1) {
      try {
        watchers.push(watch(scratch, look));
      } catch {
        return;
      }
    }
    let names: string[] = [];
    try {
      names = readdirSync(scratch);
    } catch {
      return;
    }
    if (names.some((name) => name.startsWith(prefix))) resolve();
  };
  watchers.push(watch(dir, look));
  return { seen, close: () => watchers.forEach((w) => w.close()) };
}

interface Interrupted {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Runs `render` and sends `signal` once `moment` resolves (or never, when the run ends first). */
async function renderInterrupted(
  ws: Awaited<ReturnType<typeof fleetRepository>>,
  extraArgs: string[],
  moment: (child: ReturnType<typeof spawn>) => Promise<void>,
  signal: NodeJS.Signals,
): Promise<Interrupted> {
  const args = ['render', '-f', ws.manifest, ...extraArgs, '-o', ws.out, '--cache-dir', ws.cache];
  const child = spawn(process.execPath, [CLI, ...args], { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const closed = new Promise<Interrupted>((resolve) => child.on('close', (code, sig) => resolve({ code, signal: sig, stderr })));
  await Promise.race([moment(child).then(() => child.kill(signal)), closed]);
  const result = await closed;
  logCliRun(args, stdout, stderr);
  return result;
}

/** What Git sees: tracked changes and untracked files, ignored ones too. */
function gitStatus(root: string): string {
  return git(root, 'status', '--porcelain', '--ignored', '--untracked-files=all');
}

/** After an interrupted run: its message, Git's view, and a next render that succeeds with no warning. */
async function assertSettled(ws: Awaited<ReturnType<typeof fleetRepository>>, run: Interrupted, signal: NodeJS.Signals): Promise<string> {
  const status = gitStatus(ws.root);
  assert.doesNotMatch(status, /capi-gitops-tmp|capi-gitops\.lock$|\.lock\.yaml\.tmp/m, 'nothing of the run is left for Git to see');
  assert.ok(!existsSync(path.join(ws.root, '.capi-gitops-tmp')));
  let outcome: string;
  if (run.code === 0) {
    outcome = 'finished before the signal';
  } else {
    assert.equal(run.signal, signal, `ended by the signal itself (the shell's ${signal === 'SIGINT' ? 130 : 143}): ${run.stderr}`);
    const last = run.stderr.trimEnd().split('\n').at(-1)!;
    if (/before anything was written/.test(last)) {
      outcome = 'unchanged';
      assert.equal(status, '', 'the output, the lockfile and the manifest are as committed');
    } else {
      outcome = 'written';
      assert.match(last, new RegExp(`interrupted by ${signal} after the write finished \\(wrote ${ws.out.replace(/[.]/g, '\\.')}`));
    }
  }
  for (const line of status.split('\n').filter(Boolean)) assert.match(line, /^( M|\?\?| D) out\//, `only the output changed: ${line}`);
  const next = await runCli(['render', '-f', ws.manifest, '-o', ws.out, '--cache-dir', ws.cache], { env: ENV });
  assert.equal(next.code, 0, next.stderr);
  assert.doesNotMatch(next.stderr, /warn/i, 'the next render has nothing to warn about');
  if (outcome !== 'unchanged') assert.equal(gitStatus(ws.root), status, 'the interrupted run had written exactly what a whole run writes');
  git(ws.root, 'reset', '-q', '--hard');
  git(ws.root, 'clean', '-qfd');
  return outcome;
}

test('CLI: SIGTERM while a manifest is read, SIGINT while the staging tree is built and once the swap has begun, on a 6-cluster fleet', async (t) => {
  const ws = await fleetRepository();
  const outcomes: string[] = [];

  // 1. Reading a manifest from a pipe (`-f <(generate)`) that never sends: the run is surely before any write.
  const fifoDir = tempDir();
  const fifo = path.join(fifoDir, 'generated.yaml');
  execFileSync('mkfifo', [fifo]);
  let writer: Awaited<ReturnType<typeof open>> | undefined;
  const reading = await renderInterrupted(
    ws,
    ['-f', fifo],
    // opening the pipe's other end returns once the render has opened it to read
    async () => void (writer = await open(fifo, 'w')),
    'SIGTERM',
  );
  // a run that ended before opening the pipe leaves our open waiting: a reader of our own releases it
  if (!writer) await (await open(fifo, constants.O_RDONLY | constants.O_NONBLOCK)).close();
  await writer?.close();
  outcomes.push(await assertSettled(ws, reading, 'SIGTERM'));
  assert.equal(outcomes[0], 'unchanged');

  // 2. and 3. The staging tree appears; the previous tree is moved aside (the swap has begun).
  for (const prefix of ['out.stage-', 'out.old-']) {
    const entry = scratchEntry(ws.root, prefix);
    try {
      const run = await renderInterrupted(ws, [], () => entry.seen, 'SIGINT');
      outcomes.push(await assertSettled(ws, run, 'SIGINT'));
    } finally {
      entry.close();
    }
  }
  // Which state each run ended in is the signal's moment, not asserted; every state above is checked.
  assert.equal(outcomes.length, 3);
  t.diagnostic(`states the runs ended in: ${outcomes.join(', ')}`);
});

test('CLI: SIGINT during check (a command that never writes) says it writes nothing, not that the output and lockfile are as they were', async () => {
  const fifo = path.join(tempDir(), 'generated.yaml');
  execFileSync('mkfifo', [fifo]);
  const args = ['check', '-f', fifo, '-o', path.join(tempDir(), 'out')];
  const child = spawn(process.execPath, [CLI, ...args], { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const closed = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
  // opening the pipe's other end returns once check has opened it to read: the run is under way
  const writer = await open(fifo, 'w');
  child.kill('SIGINT');
  assert.equal(await closed, 'SIGINT', stderr);
  await writer.close();
  const last = stderr.trimEnd().split('\n').at(-1)!;
  assert.match(last, /^capi-gitops: interrupted by SIGINT; check writes nothing, and the temporary files it had started were removed$/);
  assert.doesNotMatch(stderr, /before anything was written|lockfile/);
});
