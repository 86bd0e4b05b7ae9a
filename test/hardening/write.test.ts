/**
 * Nothing half-written: the output directory and the lockfile change together or not at all,
 * whatever the file system, the other processes or the pipe on stdout do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { open } from 'node:fs/promises';
import { hostname } from 'node:os';
import { tempDir } from '../helpers/corpus-manifest.js';
import { readTree } from '../helpers/tree.js';
import { assertNoStackTrace, CLI, exampleCopy, runCli } from '../helpers/cli.js';
import { writeOutput } from '../../src/output/write.js';
import { outputLockPath } from '../../src/output/write-guard.js';

const LOCKFILE = 'capi-gitops.lock.yaml';

/** An example copy rendered once into `out`, then changed so that the next render would change the output and the lockfile. */
async function renderedThenChanged() {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const parent = tempDir();
  const out = path.join(parent, 'out');
  const first = await runCli(['render', '-f', manifest, '-o', out]);
  assert.equal(first.code, 0, first.stderr);
  const config = path.join(manifest, 'config.yaml');
  writeFileSync(config, readFileSync(config, 'utf8').replace('EXAMPLE_REGION: eu-west-1', 'EXAMPLE_REGION: eu-west-2'));
  rmSync(path.join(manifest, LOCKFILE));
  return { manifest, parent, out, before: readTree(out), siblings: readdirSync(parent).sort() };
}

function assertUntouched(state: Awaited<ReturnType<typeof renderedThenChanged>>) {
  assert.deepEqual(readTree(state.out), state.before, 'the output directory changed');
  assert.deepEqual(readdirSync(state.parent).sort(), state.siblings, 'something was left beside the output directory');
}

test('a lockfile directory made read-only (chmod 555) fails the run before the output is touched: one transaction', async () => {
  const state = await renderedThenChanged();
  chmodSync(state.manifest, 0o555);
  try {
    const result = await runCli(['render', '-f', state.manifest, '-o', state.out]);
    assertNoStackTrace(result);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /cannot write the lockfile/);
    assert.match(result.stderr, /nothing was written/);
    assertUntouched(state);
    assert.ok(!existsSync(path.join(state.manifest, LOCKFILE)));
    assert.deepEqual(
      readdirSync(state.manifest).filter((n) => n.startsWith('.')),
      [],
      'no temporary lockfile left',
    );
  } finally {
    chmodSync(state.manifest, 0o755);
  }
});

test('a lockfile rename that fails after the swap puts the previous output back', async () => {
  const parent = tempDir();
  const out = path.join(parent, 'out');
  await writeOutput(out, new Map([['a.yaml', 'a: 1\n']]));
  const before = readTree(out);
  let aborted = false;
  await assert.rejects(
    writeOutput(out, new Map([['a.yaml', 'a: 2\n']]), {
      alongside: [
        {
          file: path.join(parent, 'capi-gitops.lock.yaml'),
          commit: async () => Promise.reject(Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' })),
          abort: async () => void (aborted = true),
          restore: async () => undefined,
        },
      ],
    }),
    /the previous output was put back/,
  );
  assert.deepEqual(readTree(out), before);
  assert.deepEqual(readdirSync(parent), ['out']);
  assert.ok(aborted, 'the prepared lockfile was removed');
});

test('a read-only output directory (chmod 555) is refused, not replaced, and no read-only backup is left', async () => {
  const state = await renderedThenChanged();
  chmodSync(state.out, 0o555);
  try {
    const result = await runCli(['render', '-f', state.manifest, '-o', state.out]);
    assertNoStackTrace(result);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /the output directory is read-only/);
    assertUntouched(state);
    assert.ok(!existsSync(path.join(state.manifest, LOCKFILE)), 'the lockfile was written although the output was not');
  } finally {
    chmodSync(state.out, 0o755);
  }
  const sub = readdirSync(state.out, { withFileTypes: true }).find((e) => e.isDirectory())!;
  chmodSync(path.join(state.out, sub.name), 0o555);
  try {
    const result = await runCli(['render', '-f', state.manifest, '-o', state.out]);
    assertNoStackTrace(result);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /read-only directories/);
    assertUntouched(state);
  } finally {
    chmodSync(path.join(state.out, sub.name), 0o755);
  }
});

test('render | head -1: a closed stdout neither crashes the run nor stops it between the output and the lockfile', async () => {
  const state = await renderedThenChanged();
  const result = spawnSync(
    'bash',
    ['-c', `"${process.execPath}" "${CLI}" render -f "${state.manifest}" -o "${state.out}" | head -1; echo "status=\${PIPESTATUS[0]}" >&2`],
    { encoding: 'utf8' },
  );
  assert.match(result.stderr, /status=0/, result.stderr);
  assert.ok(!/internal error|EPIPE/.test(result.stderr), result.stderr);
  assert.ok(existsSync(path.join(state.manifest, LOCKFILE)), 'the lockfile was written');
  assert.notDeepEqual(readTree(state.out), state.before, 'the output was written');
});

test('stdout and stderr closed before the first write (reader gone): the run completes, output and lockfile both written', async () => {
  const state = await renderedThenChanged();
  const child = spawn(process.execPath, [CLI, 'render', '-f', state.manifest, '-o', state.out], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy();
  child.stderr.destroy();
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0);
  assert.ok(existsSync(path.join(state.manifest, LOCKFILE)));
  assert.notDeepEqual(readTree(state.out), state.before);
});

// `completion bash > file` on a full disk left an empty file and exit 0; a shell script went on with it.
test(
  'standard output on a full disk (> /dev/full): exit 1 naming ENOSPC, for completion and chart show as for render, whose files are still written',
  { skip: !existsSync('/dev/full') },
  async () => {
    const state = await renderedThenChanged();
    const commands = [['completion', 'bash'], ['chart', 'show', 'argocd'], ['version'], ['render', '-f', state.manifest, '-o', state.out]];
    for (const args of commands) {
      const full = openSync('/dev/full', 'w');
      const result = spawnSync(process.execPath, [CLI, ...args], { stdio: ['ignore', full, 'pipe'], encoding: 'utf8' });
      closeSync(full);
      assert.equal(result.status, 1, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, /cannot write to standard output: no space left on the device \(ENOSPC\)/, args.join(' '));
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
    }
    assert.ok(existsSync(path.join(state.manifest, LOCKFILE)));
    assert.notDeepEqual(readTree(state.out), state.before);
  },
);

test('a second writer finds the lock in the scratch directory: a clear error naming the other process; a stale lock is taken over', async () => {
  const state = await renderedThenChanged();
  const holder = spawn('sleep', ['600'], { stdio: 'ignore' });
  try {
    mkdirSync(path.dirname(outputLockPath(state.out)), { recursive: true });
    writeFileSync(outputLockPath(state.out), `${holder.pid} ${(await import('node:os')).hostname()}\n`);
    const blocked = await runCli(['render', '-f', state.manifest, '-o', state.out]);
    assertNoStackTrace(blocked);
    assert.equal(blocked.code, 1, blocked.stderr);
    assert.match(blocked.stderr, new RegExp(`another capi-gitops run \\(process ${holder.pid}\\) is writing this output directory`));
    assert.deepEqual(readTree(state.out), state.before);
  } finally {
    holder.kill();
  }
  await new Promise((resolve) => holder.on('close', resolve));
  // The holder is gone: its lock is stale and taken over.
  const after = await runCli(['render', '-f', state.manifest, '-o', state.out]);
  assert.equal(after.code, 0, after.stderr);
  assert.ok(!existsSync(outputLockPath(state.out)), 'the lock is released');
  assert.deepEqual(readdirSync(path.dirname(state.out)).sort(), state.siblings, 'and the scratch directory removed');
});

test('two renders into one output directory at once: each succeeds or names the other; the result is one complete tree', async () => {
  const state = await renderedThenChanged();
  const reference = path.join(tempDir(), 'out');
  const runAsync = () =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, 'render', '-f', state.manifest, '-o', state.out], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('close', (code) => resolve({ code, stderr }));
    });
  const results = await Promise.all([runAsync(), runAsync(), runAsync()]);
  for (const r of results) {
    assert.ok(!/internal error/.test(r.stderr), r.stderr);
    if (r.code !== 0) assert.match(r.stderr, /another capi-gitops run \(process \d+\)/);
  }
  assert.ok(results.some((r) => r.code === 0));
  assert.equal((await runCli(['render', '-f', state.manifest, '-o', reference])).code, 0);
  const ours = readTree(state.out);
  const theirs = readTree(reference);
  // the README names the -o directory, and the index (v2) carries the README's digest
  const withoutReadme = (text: string | undefined) =>
    text
      ?.split('\n')
      .filter((line) => !line.endsWith('  README.md'))
      .join('\n');
  for (const [file, text] of theirs) if (file !== 'README.md') assert.equal(withoutReadme(ours.get(file)), withoutReadme(text), file);
});

test('-o through a regular file, a dangling symlink or a symlink loop: a clear error, no stack trace', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const dir = tempDir();
  writeFileSync(path.join(dir, 'file'), 'x');
  symlinkSync(path.join(dir, 'missing'), path.join(dir, 'dangling'));
  symlinkSync(path.join(dir, 'loop-a'), path.join(dir, 'loop-b'));
  symlinkSync(path.join(dir, 'loop-b'), path.join(dir, 'loop-a'));
  mkdirSync(path.join(dir, 'unused'));
  for (const output of ['file/out', 'file', 'dangling', 'loop-a', 'loop-a/out']) {
    const result = await runCli(['render', '-f', manifest, '-o', path.join(dir, output)]);
    assertNoStackTrace(result, output);
    assert.equal(result.code, 1, `${output}: ${result.stderr}`);
    assert.match(result.stderr, /nothing was written/);
  }
});

/** An example copy whose lockfile is a symbolic link to a lock outside it, which the next render, lock or update would rewrite. */
function linkedLockfile() {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const target = path.join(tempDir(), 'elsewhere.yaml');
  // a comment of its own: the lock written from the manifest differs, so it would be rewritten
  writeFileSync(target, `# not capi-gitops' own\n${readFileSync(path.join(manifest, LOCKFILE), 'utf8')}`);
  rmSync(path.join(manifest, LOCKFILE));
  symlinkSync(target, path.join(manifest, LOCKFILE));
  return { manifest, target, before: readFileSync(target, 'utf8'), out: path.join(tempDir(), 'out') };
}

test('a lockfile that is a symbolic link (a pull request can commit one to a file outside the repository) is refused by render, lock and update, never written through', async () => {
  for (const command of [['render', '-o'], ['lock'], ['update']]) {
    const state = linkedLockfile();
    const args = command[1] ? [command[0]!, '-f', state.manifest, '-o', state.out] : [command[0]!, '-f', state.manifest];
    const result = await runCli(args);
    assertNoStackTrace(result, command[0]);
    assert.equal(result.code, 1, `${command[0]}: ${result.stdout}${result.stderr}`);
    assert.equal(readFileSync(state.target, 'utf8'), state.before, `${command[0]} wrote through the link`);
    assert.ok(lstatSync(path.join(state.manifest, LOCKFILE)).isSymbolicLink(), 'the link is left as it is');
    assert.ok(result.stderr.includes(path.join(state.manifest, LOCKFILE)), `names the link: ${result.stderr}`);
    assert.ok(result.stderr.includes(`symbolic link to ${state.target}`), `says where it points: ${result.stderr}`);
    assert.match(result.stderr, /hint: replace the link with the file itself/);
    assert.ok(!existsSync(state.out), 'no output written');
  }
});

test("the refused lockfile link's hint, run as printed, lets lock run, with a space in a path", async () => {
  const state = linkedLockfile();
  const spaced = path.join(tempDir(), 'a lock', 'elsewhere.yaml');
  mkdirSync(path.dirname(spaced));
  renameSync(state.target, spaced);
  rmSync(path.join(state.manifest, LOCKFILE));
  symlinkSync(spaced, path.join(state.manifest, LOCKFILE));
  const refused = await runCli(['lock', '-f', state.manifest]);
  assert.equal(refused.code, 1, refused.stderr);
  const hint = /hint: replace the link with the file itself \((rm .+)\), or remove the link/.exec(refused.stderr);
  assert.ok(hint, refused.stderr);
  execFileSync('sh', ['-c', hint[1]!]);
  assert.ok(lstatSync(path.join(state.manifest, LOCKFILE)).isFile());
  const locked = await runCli(['lock', '-f', state.manifest]);
  assert.equal(locked.code, 0, locked.stderr);
  assert.equal(readFileSync(spaced, 'utf8'), state.before, 'the file the link pointed at is left as it was');
});

test('a symbolic link as the lockfile is read by check and plan (they write nothing); a link to a FIFO or a directory is refused, not read for ever', async () => {
  const state = linkedLockfile();
  const result = await runCli(['check', '-f', state.manifest, '-o', state.out]);
  assertNoStackTrace(result);
  assert.doesNotMatch(result.stderr, /symbolic link/);
  const dir = tempDir();
  execFileSync('mkfifo', [path.join(dir, 'fifo')]);
  mkdirSync(path.join(dir, 'directory'));
  for (const [what, expected] of [
    ['fifo', /is a named pipe/],
    ['directory', /is a directory/],
  ] as const) {
    rmSync(path.join(state.manifest, LOCKFILE));
    symlinkSync(path.join(dir, what), path.join(state.manifest, LOCKFILE));
    for (const command of ['check', 'render']) {
      const failed = await runCli([command, '-f', state.manifest, '-o', state.out]);
      assertNoStackTrace(failed, `${command} ${what}`);
      assert.equal(failed.code, 1, `${command} ${what}: ${failed.stderr}`);
      assert.match(failed.stderr, expected, `${command} ${what}`);
      assert.match(failed.stderr, /expected: a regular file/, `${command} ${what}`);
    }
  }
  // a directory in the lockfile's place (Git can check one out: a submodule, or a directory of that name)
  rmSync(path.join(state.manifest, LOCKFILE));
  mkdirSync(path.join(state.manifest, LOCKFILE));
  const directory = await runCli(['render', '-f', state.manifest, '-o', state.out]);
  assertNoStackTrace(directory);
  assert.equal(directory.code, 1, directory.stderr);
  assert.match(directory.stderr, /is a directory/);
  assert.ok(!existsSync(state.out), 'no output written');
});

/** Spawns the CLI; resolves with its exit code and stderr. */
function spawnCli(args: string[]): { child: ReturnType<typeof spawn>; done: Promise<{ code: number | null; stderr: string }> } {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return { child, done: new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr }))) };
}

/** A pid no process has now (a child that has exited): a lock naming it on this host is stale. */
async function exitedPid(): Promise<number> {
  const child = spawn('true', { stdio: 'ignore' });
  await new Promise((resolve) => child.on('close', resolve));
  return child.pid!;
}

/**
 * A render in a child process stopped where it begins to take its output lock: it reads the lock an
 * earlier version kept beside the directory, here a FIFO, whose open for writing returns once it is
 * read. `resume` tells it that lock's process has exited, and waits for its end.
 */
async function renderStoppedAtLock(args: string[], out: string) {
  const legacyLock = path.join(path.dirname(out), `.${path.basename(out)}.capi-gitops.lock`);
  execFileSync('mkfifo', [legacyLock]);
  const run = spawnCli(['render', ...args, '-o', out]);
  const stopped = await Promise.race([
    open(legacyLock, 'w'),
    run.done.then(async (r) => {
      await open(legacyLock, constants.O_RDONLY | constants.O_NONBLOCK).then((fifo) => fifo.close()); // frees the open above
      throw new Error(`the render ended before its output lock: ${r.code} ${r.stderr}`);
    }),
  ]);
  return {
    resume: async () => {
      await stopped.writeFile(`${await exitedPid()} ${hostname()}\n`);
      await stopped.close();
      return run.done;
    },
  };
}

/** Edits the example's manifest so that its output and its lockfile change. */
function editExample(manifest: string): void {
  const config = path.join(manifest, 'config.yaml');
  writeFileSync(config, readFileSync(config, 'utf8').replace('EXAMPLE_REGION: eu-west-1', 'EXAMPLE_REGION: eu-west-2'));
  const providers = path.join(manifest, 'providers.yaml');
  writeFileSync(providers, readFileSync(providers, 'utf8').replace('version: "~0.2"', 'version: v0.2.0'));
}

// The lockfile was compared with what is on disk before the output lock was taken: a render that
// found it unchanged did not write it, even when another render had written its own meanwhile.
test('two renders of one manifest into two directories, the manifest edited between them: the one that writes last leaves its own lockfile', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const lockfile = path.join(manifest, LOCKFILE);
  const itsLock = readFileSync(lockfile, 'utf8');
  const parent = tempDir();
  const [first, second] = [path.join(parent, 'first'), path.join(parent, 'second')];
  const stopped = await renderStoppedAtLock(['-f', manifest], second);
  // Meanwhile the manifest changes and the first render writes its output and a new lockfile.
  editExample(manifest);
  const other = await runCli(['render', '-f', manifest, '-o', first]);
  assert.equal(other.code, 0, other.stderr);
  assert.notEqual(readFileSync(lockfile, 'utf8'), itsLock, 'the edit changed the lockfile');
  const result = await stopped.resume();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(lockfile, 'utf8'), itsLock, "the second render's output is paired with its own lockfile, not the first's");
  const regions = (out: string) =>
    [...readTree(out).values()]
      .join('')
      .match(/eu-west-\d/g)
      ?.sort()
      .join(' ');
  assert.match(regions(second) ?? '', /^(eu-west-1 ?)+$/, 'the second output is the render before the edit');
  assert.match(regions(first) ?? '', /^(eu-west-2 ?)+$/);
});

// --frozen checked the lockfile it read at the start; one another run wrote meanwhile was overwritten.
test('render --frozen whose lockfile another render changed meanwhile fails and writes nothing, leaving that lockfile', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const lockfile = path.join(manifest, LOCKFILE);
  const parent = tempDir();
  const [first, second] = [path.join(parent, 'first'), path.join(parent, 'second')];
  const stopped = await renderStoppedAtLock(['-f', manifest, '--frozen'], second);
  editExample(manifest);
  const other = await runCli(['render', '-f', manifest, '-o', first]);
  assert.equal(other.code, 0, other.stderr);
  const theirs = readFileSync(lockfile, 'utf8');
  const result = await stopped.resume();
  assertNoStackTrace({ code: result.code, stdout: '', stderr: result.stderr });
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /the lockfile changed while this render ran/);
  assert.equal(readFileSync(lockfile, 'utf8'), theirs, '--frozen wrote the lockfile');
  assert.ok(!existsSync(second), 'nothing written');
  assert.deepEqual(readdirSync(parent).sort(), ['first'], 'nothing left beside the output');
  // as the hint says: run again (the manifest now answers the lockfile the other render wrote)
  const again = await runCli(['render', '-f', manifest, '--frozen', '-o', second]);
  assert.equal(again.code, 0, again.stderr);
});

test('render, lock and update find the lockfile held by a run on another host: a clear error naming it, nothing written; a stale lock is taken over', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  editExample(manifest);
  const before = readFileSync(path.join(manifest, LOCKFILE), 'utf8');
  const out = path.join(tempDir(), 'out');
  // beside the lockfile, as the output's lock is beside the output directory
  const held = path.join(manifest, '.capi-gitops-tmp', `${LOCKFILE}.lock`);
  mkdirSync(path.dirname(held), { recursive: true });
  // a run on another host (a shared file system) cannot be told alive or gone: not waited for
  writeFileSync(held, `4242 elsewhere.example\n`);
  for (const args of [['render', '-o', out], ['lock'], ['update']]) {
    const blocked = await runCli([args[0]!, '-f', manifest, ...args.slice(1)]);
    assertNoStackTrace(blocked, args[0]);
    assert.equal(blocked.code, 1, `${args[0]}: ${blocked.stderr}`);
    assert.ok(
      blocked.stderr.includes('another capi-gitops run (process 4242 on elsewhere.example) is writing the lockfile'),
      blocked.stderr,
    );
    assert.ok(blocked.stderr.includes(`delete ${held}`), blocked.stderr);
    assert.equal(readFileSync(path.join(manifest, LOCKFILE), 'utf8'), before, `${args[0]} wrote the lockfile`);
    assert.ok(!existsSync(out), `${args[0]} wrote the output`);
  }
  // A process of this host that has exited: its lock is stale and taken over.
  writeFileSync(held, `${await exitedPid()} ${hostname()}\n`);
  const after = await runCli(['render', '-f', manifest, '-o', out]);
  assert.equal(after.code, 0, after.stderr);
  assert.notEqual(readFileSync(path.join(manifest, LOCKFILE), 'utf8'), before);
  assert.ok(!existsSync(path.dirname(held)), 'the lock is released and the scratch directory removed');
});

// Renders of one manifest into several output directories (make -j) meet at the lockfile's lock,
// held for one write: it is waited for, not refused as a held output directory is.
test("the lockfile's lock held by a live run of this host is waited for: the render writes once it is released", async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  editExample(manifest);
  const out = path.join(tempDir(), 'out');
  const held = path.join(manifest, '.capi-gitops-tmp', `${LOCKFILE}.lock`);
  mkdirSync(path.dirname(held), { recursive: true });
  // the lock as a FIFO: each time the render reads who holds it, our open for writing returns
  execFileSync('mkfifo', [held]);
  const run = spawnCli(['render', '-f', manifest, '-o', out]);
  const holder = spawn('sleep', ['600'], { stdio: 'ignore' });
  const readBy = async (text: string) => {
    const fifo = await Promise.race([
      open(held, 'w'),
      run.done.then(async (r) => {
        await open(held, constants.O_RDONLY | constants.O_NONBLOCK).then((f) => f.close()); // frees the open above
        throw new Error(`the render ended instead of reading the lock: ${r.code} ${r.stderr}`);
      }),
    ]);
    await fifo.writeFile(text);
    await fifo.close();
  };
  try {
    await readBy(`${holder.pid} ${hostname()}\n`);
    // read again: the render waited instead of failing; now its holder has exited
    await readBy(`${await exitedPid()} ${hostname()}\n`);
  } finally {
    holder.kill();
  }
  const result = await run.done;
  assert.equal(result.code, 0, result.stderr);
  assert.ok(existsSync(path.join(out, 'kustomization.yaml')), 'the output was written');
  assert.ok(!existsSync(path.dirname(held)), 'the lock is released and the scratch directory removed');
});

test("a read-only lockfile directory (a checkout CI may not write) takes no lockfile's lock: a render or lock that keeps the lockfile succeeds", async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const before = readdirSync(manifest).sort();
  chmodSync(manifest, 0o555);
  try {
    for (const args of [['render', '-o', path.join(tempDir(), 'out')], ['lock']]) {
      const result = await runCli([args[0]!, '-f', manifest, ...args.slice(1)]);
      assert.equal(result.code, 0, `${args[0]}: ${result.stderr}`);
      assert.deepEqual(readdirSync(manifest).sort(), before, `${args[0]} created something beside the lockfile`);
    }
  } finally {
    chmodSync(manifest, 0o755);
  }
});
