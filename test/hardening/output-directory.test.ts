/**
 * The output directory belongs to the user (issue 27, class 3): a crafted ownership index never
 * deletes a hand-written file, a problem after the write is never "nothing was written", the
 * directory keeps its owner, group and mode, `check` reads one tree while a render swaps it, and
 * what a run prepares beside the manifest (the lockfile, `update`'s pins) is committed together
 * and never left where Git would pick it up.
 */
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { tempDir } from '../helpers/corpus-manifest.js';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { readTree } from '../helpers/tree.js';
import { assertNoStackTrace, exampleCopy, runCli } from '../helpers/cli.js';
import { writeOutput } from '../../src/output/write.js';
import { INDEX_FILE } from '../../src/layout/output-paths.js';
import { GENERATED_COMMENT } from '../../src/layout/provenance.js';
import { outputLockPath } from '../../src/output/write-guard.js';
import { checkOutput } from '../../src/review/check.js';
import { prepareLockfile } from '../../src/resolve/lock/lockfile.js';
import { buildLockfile } from '../../src/resolve/lock/build.js';
import { update } from '../../src/app/update.js';
import { refuseLinkedManifestFiles } from '../../src/manifest/files.js';
import type { CapiGitopsError } from '../../src/core/diagnostics.js';
import { InterruptedError, resetInterruptState, settleInterrupted } from '../../src/core/interrupt.js';

const FILES = new Map([
  ['kustomization.yaml', 'resources: [a]\n'],
  ['a/kustomization.yaml', 'resources: [x.yaml]\n'],
  ['a/x.yaml', 'kind: X\n'],
]);

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    encoding: 'utf8',
  });
}

// ---- a crafted index ---------------------------------------------------------------------------

test('a pull request that lists a hand-written file in the ownership index (any digest) does not get it deleted: kept, and named', async () => {
  const parent = tempDir();
  const out = path.join(parent, 'out');
  await writeOutput(out, new Map([...FILES, ['a/old.yaml', `${GENERATED_COMMENT}kind: Old\n`]]));
  mkdirSync(path.join(out, 'notes'));
  writeFileSync(path.join(out, 'notes', 'runbook.md'), '# how we restore the cluster\n');
  symlinkSync('runbook.md', path.join(out, 'notes', 'latest.md'));
  // The attacker's change to the index: the user's files listed as capi-gitops' own.
  const index = path.join(out, INDEX_FILE);
  writeFileSync(index, readFileSync(index, 'utf8') + `${'0'.repeat(64)}  notes/runbook.md\n` + `${'f'.repeat(64)}  notes/latest.md\n`);

  const summary = await writeOutput(out, FILES);
  assert.deepEqual(summary.removed, ['a/old.yaml'], 'a file capi-gitops wrote, unchanged since, is still removed');
  assert.equal(readFileSync(path.join(out, 'notes', 'runbook.md'), 'utf8'), '# how we restore the cluster\n');
  assert.equal(readFileSync(path.join(out, 'notes', 'latest.md'), 'utf8'), '# how we restore the cluster\n');
  assert.equal(summary.warnings.length, 1);
  assert.match(summary.warnings[0]!, /^kept notes\/latest\.md, notes\/runbook\.md in .*: the ownership index lists them/);
  assert.doesNotMatch(readFileSync(index, 'utf8'), /notes\//, 'no longer listed: the next run leaves them alone, silently');
  assert.deepEqual((await writeOutput(out, FILES)).warnings, []);
});

test('an index altered to list a hand-written file with its real sha256 does not get it deleted: only files that begin as capi-gitops writes are removed', async () => {
  const parent = tempDir();
  const out = path.join(parent, 'out');
  await writeOutput(out, new Map([...FILES, ['a/old.yaml', `${GENERATED_COMMENT}kind: Old\n`]]));
  const runbook = '# how we restore the cluster\n';
  writeFileSync(path.join(out, 'runbook.md'), runbook);
  // Anyone who can read the file can compute its digest: the attacker lists it with the right one.
  const index = path.join(out, INDEX_FILE);
  writeFileSync(index, readFileSync(index, 'utf8') + `${createHash('sha256').update(runbook).digest('hex')}  runbook.md\n`);

  const summary = await writeOutput(out, FILES);
  assert.deepEqual(summary.removed, ['a/old.yaml'], 'a generated file, unchanged since, is still removed');
  assert.equal(readFileSync(path.join(out, 'runbook.md'), 'utf8'), runbook);
  assert.match(summary.warnings.join('\n'), /^kept runbook\.md in .*: the ownership index lists it/);
});

test('a generated file edited by hand, whose provider is then removed, is kept and named; so is every file a v1 index (no digests) lists', async () => {
  const parent = tempDir();
  const out = path.join(parent, 'out');
  await writeOutput(out, new Map([...FILES, ['b/y.yaml', 'kind: Y\n']]));
  writeFileSync(path.join(out, 'b', 'y.yaml'), 'kind: Y\n# our change\n');
  const edited = await writeOutput(out, FILES);
  assert.deepEqual(edited.removed, []);
  assert.match(edited.warnings.join('\n'), /kept b\/y\.yaml/);
  assert.equal(readFileSync(path.join(out, 'b', 'y.yaml'), 'utf8'), 'kind: Y\n# our change\n');

  // A v1 index records paths only: nothing proves a file listed there is capi-gitops' own.
  const v1 = path.join(tempDir(), 'out');
  await writeOutput(v1, new Map([...FILES, ['b/z.yaml', 'kind: Z\n']]));
  writeFileSync(path.join(v1, INDEX_FILE), ['# capi-gitops ownership index v1', ...[...FILES.keys(), 'b/z.yaml'].sort(), ''].join('\n'));
  const fromV1 = await writeOutput(v1, FILES);
  assert.ok(existsSync(path.join(v1, 'b', 'z.yaml')));
  assert.match(fromV1.warnings.join('\n'), /kept b\/z\.yaml/);
});

test('render: a file hand-edited into invalid YAML and then rewritten is a warning after a successful write, never "nothing was written"', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const out = path.join(tempDir(), 'out');
  assert.equal((await runCli(['render', '-f', manifest, '-o', out])).code, 0);
  // the file the next render rewrites, broken by hand
  const config = path.join(manifest, 'config.yaml');
  writeFileSync(config, readFileSync(config, 'utf8').replace('mirror.example.internal/capi', 'mirror2.example.internal/capi'));
  const victim = [...readTree(out).keys()].find((f) => f.endsWith('.yaml') && f.includes('deployment-'))!;
  writeFileSync(path.join(out, victim), 'kind: [unclosed\n  : : :\n');

  const result = await runCli(['render', '-f', manifest, '-o', out]);
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stderr, /nothing was written/);
  assert.match(result.stderr, new RegExp(`the objects of ${victim.replace(/[.]/g, '\\.')} before this run are not listed`));
  assert.match(readFileSync(path.join(out, victim), 'utf8'), /mirror2\.example\.internal/, 'the output was written');
  assert.match(readFileSync(path.join(manifest, 'capi-gitops.lock.yaml'), 'utf8'), /kind: Lock/);
  // --quiet lists no objects, so it reads no previous text for them and has nothing to warn of
  writeFileSync(path.join(out, victim), 'kind: [unclosed\n  : : :\n');
  writeFileSync(config, readFileSync(config, 'utf8').replace('mirror2.example.internal/capi', 'mirror3.example.internal/capi'));
  const quiet = await runCli(['render', '-f', manifest, '-o', out, '--quiet']);
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.equal(quiet.stdout + quiet.stderr, '');
  assert.match(readFileSync(path.join(out, victim), 'utf8'), /mirror3\.example\.internal/);
});

// ---- ownership ---------------------------------------------------------------------------------

const notRoot = process.getuid?.() !== 0 ? 'needs root: only root can give a directory to another user' : false;

test(
  'a team directory (uid 1000, mode 2775) and a user directory in it (700) keep owner, group, mode and setgid across the swap',
  { skip: notRoot },
  async () => {
    const parent = tempDir();
    const out = path.join(parent, 'out');
    mkdirSync(out);
    chownSync(out, 1000, 1000);
    chmodSync(out, 0o2775);
    await writeOutput(out, FILES);
    mkdirSync(path.join(out, 'notes'));
    writeFileSync(path.join(out, 'notes', 'mine.txt'), 'private\n');
    chownSync(path.join(out, 'notes'), 1000, 1001);
    chmodSync(path.join(out, 'notes'), 0o700);
    chownSync(path.join(out, 'a'), 1002, 1000);

    await writeOutput(out, new Map([...FILES, ['a/x.yaml', 'kind: X2\n'], ['c/new.yaml', 'kind: New\n']]));
    const mode = (p: string) => statSync(path.join(out, p)).mode & 0o7777;
    const owner = (p: string) => [statSync(path.join(out, p)).uid, statSync(path.join(out, p)).gid];
    assert.deepEqual([owner(''), mode('').toString(8)], [[1000, 1000], '2775']);
    assert.deepEqual([owner('notes'), mode('notes').toString(8)], [[1000, 1001], '700']);
    assert.deepEqual(owner('a'), [1002, 1000], 'a directory capi-gitops writes into keeps its owner too');
    assert.equal(statSync(path.join(out, 'c')).gid, 1000, 'a new directory takes the group, as setgid gives it in place');
    assert.ok((mode('c') & 0o2000) !== 0, 'and the setgid bit');
    assert.equal(readFileSync(path.join(out, 'notes', 'mine.txt'), 'utf8'), 'private\n');
  },
);

test('a render by another user keeps the mode and setgid bit and says that the owner and group changed', { skip: notRoot }, () => {
  // Outside the suite's TMPDIR, which only root may enter; removed at the end.
  const parent = mkdtempSync(path.join('/tmp', 'capi-gitops-owner-'));
  try {
    chmodSync(parent, 0o777);
    const out = path.join(parent, 'out');
    mkdirSync(out);
    chownSync(out, 1001, 1001);
    chmodSync(out, 0o2777);
    const script = path.join(parent, 'write.mjs');
    const writer = pathToFileURL(path.join(PROJECT_ROOT, 'dist', 'src', 'output', 'write.js')).href;
    writeFileSync(
      script,
      `const { writeOutput } = await import(${JSON.stringify(writer)});\n` +
        `const s = await writeOutput(${JSON.stringify(out)}, new Map([['a/x.yaml', 'kind: X\\n']]));\n` +
        'process.stdout.write(JSON.stringify(s.warnings));\n',
    );
    const run = spawnSync(process.execPath, [script], { uid: 1000, gid: 1000, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), [
      `${out}: the render replaces the directory and could not keep its owner (uid 1001, now 1000) and group (gid 1001, now 1000); ` +
        'only root can give a directory to another user, and a group only to its members',
    ]);
    assert.equal((statSync(out).mode & 0o7777).toString(8), '2777');
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});

// ---- check in a render's swap window -----------------------------------------------------------

test('check landing between the two renames of a swap reads the new tree, with no ENOENT on the index', async () => {
  const parent = tempDir();
  const out = path.join(parent, 'out');
  const next = new Map([...FILES, ['a/x.yaml', 'kind: X2\n']]);
  await writeOutput(out, FILES);
  const staged = path.join(tempDir(), 'staged');
  await writeOutput(staged, next);
  let step = 0;
  const report = await checkOutput(out, next, {
    afterScan: async () => {
      step++;
      // the render's first rename: the scanned tree is gone from `out`, the new one not there yet
      if (step === 1) renameSync(out, path.join(parent, 'old'));
      // its second rename
      if (step === 2) renameSync(staged, out);
    },
  });
  assert.deepEqual(report.problems, []);
  assert.equal(report.unchanged, next.size);
  assert.ok(step >= 3, 'the reads that saw the swap were done again');
});

test('check that scanned the old tree while a whole render swapped and cleaned it up reports on the new tree alone', async () => {
  const parent = tempDir();
  const out = path.join(parent, 'out');
  const next = new Map([...FILES, ['a/x.yaml', 'kind: X2\n'], ['a/added.yaml', 'kind: A\n']]);
  await writeOutput(out, FILES);
  let renders = 0;
  const report = await checkOutput(out, next, {
    afterScan: async () => {
      if (renders++ === 0) await writeOutput(out, next);
    },
  });
  assert.deepEqual(report.problems, [], 'not "missing a/added.yaml" from the old scan');
  assert.equal(report.unchanged, next.size);
});

// ---- what a run prepares beside the manifest ---------------------------------------------------

test('a prepared lockfile waits in the scratch directory, which Git ignores; temporaries of killed runs are removed by the next one', async () => {
  const dir = tempDir();
  git(dir, 'init', '-q');
  writeFileSync(path.join(dir, 'providers.yaml'), 'kind: Config\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'manifest');
  const lockfile = path.join(dir, 'capi-gitops.lock.yaml');
  const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
  const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  try {
    // what versions before the scratch directory left beside the lock, and a killed run's in it
    writeFileSync(path.join(dir, `.capi-gitops.lock.yaml.tmp-${dead}-0123456789ab`), 'half\n');
    mkdirSync(path.join(dir, '.capi-gitops-tmp'));
    writeFileSync(path.join(dir, '.capi-gitops-tmp', `capi-gitops.lock.yaml.tmp-${dead}-0123456789ab`), 'half\n');
    writeFileSync(path.join(dir, '.capi-gitops-tmp', `capi-gitops.lock.yaml.tmp-${live.pid}-0123456789ab`), 'being written\n');

    const prepared = await prepareLockfile(lockfile, buildLockfile([]));
    assert.ok(prepared);
    assert.deepEqual(readdirSync(dir).sort(), ['.capi-gitops-tmp', '.git', 'providers.yaml']);
    assert.equal(git(dir, 'status', '--porcelain', '--untracked-files=all'), '', 'Git lists nothing of a run in progress');
    await prepared.commit();
    assert.deepEqual(readdirSync(path.join(dir, '.capi-gitops-tmp')), ['.gitignore', `capi-gitops.lock.yaml.tmp-${live.pid}-0123456789ab`]);
  } finally {
    live.kill();
  }
  await new Promise((resolve) => live.on('close', resolve));
  assert.equal(await prepareLockfile(lockfile, buildLockfile([])), undefined, 'unchanged');
  assert.deepEqual(
    readdirSync(dir).sort(),
    ['.git', 'capi-gitops.lock.yaml', 'providers.yaml'],
    'the emptied scratch directory is removed',
  );
});

/** The example with the core provider pinned at v0.2.0 and locked there, and a v0.2.1 `update` moves it to. */
async function pinnedExample(): Promise<{ manifest: string; providers: string; lockfile: string; repository: string }> {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const providers = path.join(manifest, 'providers.yaml');
  writeFileSync(
    providers,
    readFileSync(providers, 'utf8').replace('  # Empty version: clusterctl', '  version: v0.2.0\n  # Empty version: clusterctl'),
  );
  rmSync(path.join(manifest, 'capi-gitops.lock.yaml'));
  const locked = await runCli(['lock', '-f', manifest]);
  assert.equal(locked.code, 0, locked.stderr);
  const repository = path.join(example, 'repository');
  const release = path.join(repository, 'cluster-api', 'v0.2.1');
  mkdirSync(release);
  for (const file of ['metadata.yaml', 'core-components.yaml'])
    writeFileSync(path.join(release, file), readFileSync(path.join(repository, 'cluster-api', 'v0.2.0', file), 'utf8') + '# v0.2.1\n');
  return { manifest, providers, lockfile: path.join(manifest, 'capi-gitops.lock.yaml'), repository };
}

test('update: the manifest pins and the lockfile are one transaction: a failure or a signal before the commit changes neither', async () => {
  const ws = await pinnedExample();
  const before = { providers: readFileSync(ws.providers, 'utf8'), lock: readFileSync(ws.lockfile, 'utf8') };
  const unchanged = () => {
    assert.equal(readFileSync(ws.providers, 'utf8'), before.providers, 'the manifest is as it was');
    assert.equal(readFileSync(ws.lockfile, 'utf8'), before.lock, 'the lockfile is as it was');
    assert.deepEqual(readdirSync(ws.manifest).sort(), ['capi-gitops.lock.yaml', 'config.yaml', 'providers.yaml']);
  };

  // The new release's components cannot be fetched: the resolution after the edit fails.
  const components = path.join(ws.repository, 'cluster-api', 'v0.2.1', 'core-components.yaml');
  const saved = readFileSync(components);
  rmSync(components);
  await assert.rejects(update({ manifestPaths: [ws.manifest] }, {}), /core-components\.yaml/);
  unchanged();
  writeFileSync(components, saved);

  // Ctrl-C while it resolved: the commit is refused and what was prepared removed.
  resetInterruptState();
  const signalled = settleInterrupted('SIGINT');
  try {
    await assert.rejects(update({ manifestPaths: [ws.manifest] }, {}), InterruptedError);
    assert.deepEqual(await signalled, []);
    unchanged();
  } finally {
    resetInterruptState();
  }

  const moved = await update({ manifestPaths: [ws.manifest] }, {});
  assert.equal(moved.lockWritten, true);
  assert.match(readFileSync(ws.providers, 'utf8'), /version: v0\.2\.1/);
  assert.match(readFileSync(ws.lockfile, 'utf8'), /core-components\.yaml\n\s+url: \.\.\/repository\/cluster-api\/v0\.2\.1/);
  assert.deepEqual(readdirSync(ws.manifest).sort(), ['capi-gitops.lock.yaml', 'config.yaml', 'providers.yaml']);
});

test('update refuses a manifest file that is a symbolic link (a pull request can commit one to a file outside the repository), writing nothing; its hint, run as printed, lets update run', async () => {
  const ws = await pinnedExample();
  const target = path.join(tempDir(), 'outside.yaml');
  renameSync(ws.providers, target);
  symlinkSync(target, ws.providers);
  const before = {
    target: readFileSync(target, 'utf8'),
    lock: readFileSync(ws.lockfile, 'utf8'),
    entries: readdirSync(ws.manifest).sort(),
  };

  const refused = await runCli(['update', '-f', ws.manifest]);
  assertNoStackTrace(refused);
  assert.equal(refused.code, 1, refused.stdout + refused.stderr);
  assert.ok(refused.stderr.includes(`${ws.providers}: error: the manifest file is a symbolic link to ${target}`), refused.stderr);
  assert.equal(readFileSync(target, 'utf8'), before.target, 'update wrote through the link');
  assert.ok(lstatSync(ws.providers).isSymbolicLink(), 'the link is left as it is');
  assert.equal(readFileSync(ws.lockfile, 'utf8'), before.lock, 'the lockfile is as it was');
  assert.deepEqual(readdirSync(ws.manifest).sort(), before.entries, 'nothing left beside the manifest');

  const hint = /hint: replace the link with the file itself \((rm .+)\), then run update again/.exec(refused.stderr);
  assert.ok(hint, refused.stderr);
  execFileSync('sh', ['-c', hint[1]!]);
  const updated = await runCli(['update', '-f', ws.manifest]);
  assert.equal(updated.code, 0, updated.stderr);
  assert.match(readFileSync(ws.providers, 'utf8'), /version: v0\.2\.1/);
  assert.equal(readFileSync(target, 'utf8'), before.target, 'the file the link pointed at is not the one updated');
});

test('a manifest file update would rewrite that is a directory or a named pipe is refused, each named', async () => {
  const dir = tempDir();
  const pipe = path.join(dir, 'pipe.yaml');
  execFileSync('mkfifo', [pipe]);
  const directory = path.join(dir, 'directory.yaml');
  mkdirSync(directory);
  await assert.rejects(refuseLinkedManifestFiles([pipe, directory], 'update'), (error: CapiGitopsError) => {
    assert.deepEqual(
      error.diagnostics.map((d) => [d.file, d.message.split(';')[0], d.expected]),
      [
        [pipe, 'the manifest file is a named pipe, not a regular file', 'a regular file'],
        [directory, 'the manifest file is a directory, not a regular file', 'a regular file'],
      ],
    );
    return true;
  });
});

test('the output lock lives in the scratch directory; a stale one of an earlier version beside the output is taken over', async () => {
  const parent = tempDir();
  const out = path.join(parent, 'out');
  const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
  writeFileSync(path.join(parent, '.out.capi-gitops.lock'), `${dead} ${(await import('node:os')).hostname()}\n`);
  await writeOutput(out, FILES);
  assert.equal(path.basename(path.dirname(outputLockPath(out))), '.capi-gitops-tmp');
  assert.deepEqual(readdirSync(parent), ['out']);
});

test('a .capi-gitops-tmp symlink (a repository can hold one) is refused, never written, settled or emptied through', async () => {
  const parent = tempDir();
  const out = path.join(parent, 'out');
  await writeOutput(out, FILES);
  const elsewhere = path.join(parent, 'elsewhere');
  mkdirSync(elsewhere);
  writeFileSync(path.join(elsewhere, '.gitignore'), 'theirs\n');
  writeFileSync(path.join(elsewhere, `out.staging-999999-${'a'.repeat(12)}`), 'looks like a leftover\n');
  symlinkSync(elsewhere, path.join(parent, '.capi-gitops-tmp'));
  const before = readTree(out);

  await assert.rejects(writeOutput(out, new Map([...FILES, ['a/y.yaml', 'kind: Y\n']])), (err: Error) => {
    assert.match(err.message, /\.capi-gitops-tmp: error: is a symbolic link; .* follows no link/);
    assert.match(err.message, /hint: remove the link \(rm .*\.capi-gitops-tmp\) and run again/);
    return true;
  });
  assert.deepEqual(readdirSync(elsewhere).sort(), ['.gitignore', `out.staging-999999-${'a'.repeat(12)}`]);
  assert.equal(readFileSync(path.join(elsewhere, '.gitignore'), 'utf8'), 'theirs\n');
  assert.deepEqual(readTree(out), before);
  await assert.rejects(prepareLockfile(path.join(parent, 'capi-gitops.lock.yaml'), buildLockfile([])), /is a symbolic link/);
  assert.deepEqual(readdirSync(elsewhere).sort(), ['.gitignore', `out.staging-999999-${'a'.repeat(12)}`]);
});
