/**
 * The bin runs its command bundle through V8's code cache (src/cli/code-cache.ts): an entry is
 * written after a successful run that compiled without one, and used by the next run of the same
 * command; an entry that is not the user's own and private, or not signed by the cache key, is
 * never run (the run compiles as without it and writes a good entry over it). Output is the same
 * bytes either way. Used or not is seen from the entry itself: a used entry is not rewritten.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { CLI_ENTRY_POINTS, exampleCopy, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { logCliRun } from '../helpers/secret-scan.js';

const KEY = 'a-cache-key-for-these-tests-only';

/** Renders the bundled example with the bin into `out` (a fresh output each time), with the code cache in `codeDir`. */
function render(codeDir: string, out: string, extraEnv: NodeJS.ProcessEnv = {}, args: string[] = []): CliResult {
  const example = exampleCopy();
  const argv = ['render', '-f', path.join(example, 'management-cluster'), '-o', out, '--quiet', ...args];
  const result = spawnSync(process.execPath, [CLI_ENTRY_POINTS.bin, ...argv], {
    cwd: example,
    encoding: 'utf8',
    env: { ...process.env, CAPI_GITOPS_CODE_CACHE: codeDir, CAPI_GITOPS_CACHE_KEY: KEY, CAPI_GITOPS_OUTPUT_CACHE: 'off', ...extraEnv },
  });
  logCliRun(argv, result.stdout, result.stderr);
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function entries(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.v8code')) : [];
}

/** The one entry's identity: a rewrite (a temporary file renamed over it) changes the inode. */
function identity(file: string): string {
  const st = lstatSync(file);
  return `${st.ino} ${st.mtimeMs} ${st.size}`;
}

function outputOf(dir: string): string {
  return (
    readdirSync(dir, { recursive: true, withFileTypes: true })
      // README.md names the command line, and the index its digest
      .filter((e) => e.isFile() && e.name !== 'README.md' && e.name !== '.capi-gitops-index')
      .map((e) => path.join(path.relative(dir, e.parentPath), e.name))
      .sort()
      .map((file) => `${file}\n${readFileSync(path.join(dir, file), 'utf8')}`)
      .join('\n')
  );
}

/** A code cache directory with one good entry, written by a first render; returns the entry's path. */
function primed(): { dir: string; work: string; entry: string; first: string } {
  const work = tempDir('capi-gitops-code-cache-');
  const dir = path.join(work, 'code');
  const first = render(dir, path.join(work, 'out-first'));
  assert.equal(first.code, 0, first.stderr);
  const names = entries(dir);
  assert.equal(names.length, 1, 'one entry after the first render');
  assert.match(names[0]!, /^bin-[0-9a-f]{64}-[\w.-]+-render\.v8code$/, 'named by build id, V8 version, architecture and command');
  return { dir, work, entry: path.join(dir, names[0]!), first: outputOf(path.join(work, 'out-first')) };
}

test('a render writes a private entry, and the next render uses it as it is, with the same output', () => {
  const { dir, work, entry, first } = primed();
  assert.equal(lstatSync(dir).mode & 0o777, 0o700, 'the directory is private');
  assert.equal(lstatSync(entry).mode & 0o777, 0o600, 'the entry is private');
  const before = identity(entry);
  const second = render(dir, path.join(work, 'out-second'));
  assert.equal(second.code, 0, second.stderr);
  assert.equal(identity(entry), before, 'used, not rewritten');
  assert.equal(outputOf(path.join(work, 'out-second')), first);
  assert.equal(second.stderr, '');
});

test('a temporary file a killed run left in the code cache is removed when an entry is next written; one under way is kept', () => {
  const work = tempDir('capi-gitops-code-cache-');
  const dir = path.join(work, 'code');
  mkdirSync(dir, { mode: 0o700 });
  const left = path.join(dir, '.bin-x-render.v8code.4242.0123456789ab.tmp');
  const recent = path.join(dir, '.bin-y-render.v8code.4243.0123456789ab.tmp');
  writeFileSync(left, 'half');
  writeFileSync(recent, 'half');
  const hoursAgo = (Date.now() - 2 * 60 * 60 * 1000) / 1000;
  utimesSync(left, hoursAgo, hoursAgo);
  const run = render(dir, path.join(work, 'out'));
  assert.equal(run.code, 0, run.stderr);
  assert.equal(entries(dir).length, 1, 'the entry was written');
  assert.equal(existsSync(left), false);
  assert.equal(existsSync(recent), true);
});

test('an entry whose bytes changed is not run: the render compiles, succeeds and writes a good entry over it', () => {
  const { dir, work, entry, first } = primed();
  const bytes = readFileSync(entry);
  bytes[bytes.length - 100] ^= 0xff;
  writeFileSync(entry, bytes, { mode: 0o600 });
  const tampered = identity(entry);
  const run = render(dir, path.join(work, 'out'));
  assert.equal(run.code, 0, run.stderr);
  assert.equal(outputOf(path.join(work, 'out')), first);
  assert.notEqual(identity(entry), tampered, 'replaced');
  const again = identity(entry);
  assert.equal(render(dir, path.join(work, 'out-again')).code, 0);
  assert.equal(identity(entry), again, 'the replacement is used');
});

test('an entry signed by another key is not run and is replaced', () => {
  const { dir, work, entry, first } = primed();
  const before = identity(entry);
  const run = render(dir, path.join(work, 'out'), { CAPI_GITOPS_CACHE_KEY: 'another-key-that-signs-nothing-here' });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(outputOf(path.join(work, 'out')), first);
  assert.notEqual(identity(entry), before);
});

test('a directory others can write is neither read nor written', () => {
  const { dir, work, entry } = primed();
  chmodSync(dir, 0o777);
  const before = identity(entry);
  const run = render(dir, path.join(work, 'out'));
  assert.equal(run.code, 0, run.stderr);
  assert.equal(identity(entry), before, 'not rewritten: the directory is not trusted');
  assert.deepEqual(
    readdirSync(dir).filter((name) => !name.endsWith('.v8code')),
    [],
    'no file written into it',
  );
});

test('an entry reached through a symbolic link is not run', () => {
  const { dir, work, entry } = primed();
  const elsewhere = path.join(work, 'elsewhere.v8code');
  renameSync(entry, elsewhere);
  symlinkSync(elsewhere, entry);
  const run = render(dir, path.join(work, 'out'));
  assert.equal(run.code, 0, run.stderr);
  assert.ok(lstatSync(entry).isFile(), 'the link was replaced by an entry of its own');
});

test('CAPI_GITOPS_CODE_CACHE=off, a failed run and a directory that cannot be made write no entry; each run still renders', () => {
  const work = tempDir('capi-gitops-code-cache-');
  const dir = path.join(work, 'code');
  assert.equal(render(dir, path.join(work, 'out-off'), { CAPI_GITOPS_CODE_CACHE: 'off' }).code, 0);
  assert.equal(existsSync(dir), false, 'off: nothing created');
  const failed = spawnSync(
    process.execPath,
    [CLI_ENTRY_POINTS.bin, 'render', '-f', path.join(work, 'missing'), '-o', path.join(work, 'out')],
    {
      encoding: 'utf8',
      env: { ...process.env, CAPI_GITOPS_CODE_CACHE: dir, CAPI_GITOPS_CACHE_KEY: KEY },
    },
  );
  assert.equal(failed.status, 1, failed.stderr);
  assert.deepEqual(entries(dir), [], 'a failed run writes no entry');
  // under a file: no directory can be made there, whoever runs the test
  const file = path.join(work, 'a-file');
  writeFileSync(file, '');
  const run = render(path.join(file, 'code'), path.join(work, 'out-unwritable'));
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, '', 'silently');
});
