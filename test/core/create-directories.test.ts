/**
 * Directories made for paths the user gives (the output's parent, the cache, the state home,
 * `import -o`): Node's recursive mkdir spins for ever where mkdir answers ENOENT below a directory
 * that exists, as procfs does, so `--cache-dir /proc/x` never ended.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createDirectories } from '../../src/core/create-directories.js';
import { errorCode } from '../../src/core/error-code.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { assertNoStackTrace, CLI, exampleCopy } from '../helpers/cli.js';

async function codeOf(dir: string): Promise<string | undefined> {
  return createDirectories(dir).then(
    () => undefined,
    (err: unknown) => errorCode(err),
  );
}

test('createDirectories makes every missing directory, accepts one that exists, and tells a file in the way as mkdir -p does', async () => {
  const root = tempDir('capi-gitops-mkdir-');
  await createDirectories(path.join(root, 'a', 'b', 'c'), 0o700);
  assert.ok(statSync(path.join(root, 'a', 'b', 'c')).isDirectory());
  assert.equal(statSync(path.join(root, 'a', 'b')).mode & 0o777, 0o700);
  assert.equal(await codeOf(path.join(root, 'a', 'b', 'c')), undefined);
  writeFileSync(path.join(root, 'file'), 'x');
  assert.equal(await codeOf(path.join(root, 'file')), 'EEXIST');
  assert.equal(await codeOf(path.join(root, 'file', 'x', 'y')), 'ENOTDIR');
  mkdirSync(path.join(root, 'made'));
  assert.equal(await codeOf(path.join(root, 'made')), undefined);
});

test(
  'createDirectories under procfs ends with ENOENT, where Node’s recursive mkdir never returns',
  { skip: !existsSync('/proc/self') },
  async () => {
    assert.equal(await codeOf('/proc/capi-gitops-none/x'), 'ENOENT');
  },
);

test(
  'CLI: --cache-dir and -o under /proc end (a warning, and an error at the output), where they spun for ever',
  { skip: !existsSync('/proc/self') },
  () => {
    const example = exampleCopy();
    const manifest = path.join(example, 'management-cluster');
    // the time limit only stops a run that hangs: it asserts nothing about speed
    const run = (args: string[]) =>
      spawnSync(process.execPath, [CLI, 'render', '-f', manifest, '--quiet', ...args], {
        encoding: 'utf8',
        timeout: 120_000,
        killSignal: 'SIGKILL',
      });
    const cache = run(['-o', path.join(example, 'out'), '--cache-dir', '/proc/capi-gitops-none/cache']);
    assert.equal(cache.status, 0, cache.stderr);
    assert.match(cache.stderr, /cache: cannot write parsed entries under \/proc\/capi-gitops-none\/cache \(ENOENT\)/);
    const output = run(['-o', '/proc/capi-gitops-none/out']);
    assert.equal(output.status, 1, output.stderr);
    assert.match(output.stderr, /\/proc\/capi-gitops-none: error: the output directory's parent cannot be used/);
    assertNoStackTrace({ code: output.status, stdout: output.stdout, stderr: output.stderr });
  },
);
