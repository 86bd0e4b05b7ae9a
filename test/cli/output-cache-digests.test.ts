/**
 * The output cache trusts a file's lstat only as far as it may (src/kernel/file-digests.ts): an
 * output file or a local artifact that was read and found right more than SETTLED_MS after its
 * last change is not read again while size, mtime, ctime and inode stay; any write changes ctime,
 * so a hand edit is found even when it keeps the size and `touch -r` restores the mtime.
 * Real files, real CLI runs; the one wait lets the files settle, nothing is timed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/corpus-manifest.js';
import { exampleCopy, runCli } from '../helpers/cli.js';
import { SETTLED_MS } from '../../src/output/file-digests.js';

const SERVED = 'output cache: the output of an identical earlier render was used';

function setup() {
  const dir = exampleCopy();
  const scratch = tempDir('capi-gitops-output-digests-');
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_STATE_HOME: path.join(scratch, 'state') };
  delete env.CAPI_GITOPS_OUTPUT_CACHE;
  delete env.CAPI_GITOPS_CACHE_KEY;
  const out = path.join(scratch, 'out');
  const render = (expectCode = 0) => {
    const args = ['render', '-f', path.join(dir, 'management-cluster'), '-o', out, '--cache-dir', path.join(scratch, 'cache'), '--verbose'];
    const result = runCli(args, { cwd: scratch, env });
    assert.equal(result.code, expectCode, result.stderr);
    return { ...result, served: result.stderr.includes(SERVED) };
  };
  return { dir, out, render };
}

/** Lets every file written so far settle, then has a served run read them all and record their digests. */
async function settledAndRecorded(s: ReturnType<typeof setup>): Promise<void> {
  assert.equal(s.render().served, false);
  await new Promise((resolve) => setTimeout(resolve, SETTLED_MS + 200));
  for (let i = 0; i < 2; i++) {
    const served = s.render();
    assert.equal(served.served, true);
    assert.match(served.stdout, /: 0 written, \d+ unchanged, 0 removed/);
  }
}

/** Changes one byte, keeping the size; restores the mtime when asked (as `touch -r` would). */
function editKeepingSize(file: string, restoreMtime: boolean): void {
  const before = statSync(file);
  const bytes = readFileSync(file);
  const at = bytes.indexOf('name: ');
  assert.ok(at >= 0);
  bytes[at] = 'N'.charCodeAt(0);
  const reference = `${file}.reference`;
  execFileSync('touch', ['-r', file, reference]);
  writeFileSync(file, bytes);
  // touch -r copies the timestamps to the nanosecond, as a user hiding an edit would.
  if (restoreMtime) execFileSync('touch', ['-r', reference, file]);
  rmSync(reference);
  const after = statSync(file);
  assert.equal(after.size, before.size);
  if (restoreMtime) assert.equal(after.mtimeMs, before.mtimeMs);
}

test('an output file edited by hand is found and rewritten: same size with a new mtime, and same size with the mtime restored', async () => {
  const s = setup();
  await settledAndRecorded(s);
  const files = readFileSync(path.join(s.out, '.capi-gitops-index'), 'utf8');
  const [first, second] = files
    .split('\n')
    .filter((line) => /^[0-9a-f]{64} {2}.*\.yaml$/.test(line) && !line.endsWith('kustomization.yaml'))
    .map((line) => path.join(s.out, line.slice(66)));
  assert.ok(first && second);
  const [firstBytes, secondBytes] = [readFileSync(first), readFileSync(second)];
  editKeepingSize(first, false);
  editKeepingSize(second, true);
  const served = s.render();
  assert.equal(served.served, true);
  assert.match(served.stdout, /: 2 written, \d+ unchanged, 0 removed/);
  assert.deepEqual(readFileSync(first), firstBytes);
  assert.deepEqual(readFileSync(second), secondBytes);
  // Rewritten files are read again next time (they have not settled), and found right.
  assert.match(s.render().stdout, /: 0 written, \d+ unchanged, 0 removed/);
});

test('a local artifact changed in place with its size and mtime kept is found: the run fails as a render does', async () => {
  const s = setup();
  await settledAndRecorded(s);
  editKeepingSize(path.join(s.dir, 'repository', 'cluster-api', 'v0.2.0', 'core-components.yaml'), true);
  const failed = s.render(1);
  assert.equal(failed.served, false);
  assert.match(failed.stderr, /sha256|digest/i);
});

test("the files' bytes are read, and checked, only when the output needs them: a tampered body is a miss then", async () => {
  const s = setup();
  assert.equal(s.render().served, false);
  const cacheDir = path.join(path.dirname(s.out), 'cache', 'output');
  // The largest record is the body (every output file's bytes).
  const [body] = readdirSync(cacheDir)
    .filter((name) => name.endsWith('.bin'))
    .map((name) => path.join(cacheDir, name))
    .sort((a, b) => statSync(b).size - statSync(a).size);
  const bytes = readFileSync(body!);
  bytes[bytes.length - 10] ^= 0x20;
  writeFileSync(body!, bytes);
  const tree = readFileSync(path.join(s.out, '.capi-gitops-index'), 'utf8');
  rmSync(s.out, { recursive: true });
  const rendered = s.render();
  assert.equal(rendered.served, false);
  assert.match(rendered.stderr, /not signed by this cache's key/);
  assert.equal(readFileSync(path.join(s.out, '.capi-gitops-index'), 'utf8'), tree);
  rmSync(s.out, { recursive: true });
  assert.equal(s.render().served, true, 'the good entry stored by that render is served');
  assert.equal(readFileSync(path.join(s.out, '.capi-gitops-index'), 'utf8'), tree);
});
