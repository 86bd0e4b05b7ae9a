/**
 * The package's bin (package.json `bin`) is the code-split bundle dist/cli/capi-gitops.mjs
 * (scripts/build-bundle.mjs): it renders the corpus to the same bytes, and prints the same, as the
 * modules' entry point (dist/src/cli/main.js) in every layout, and it keys the output cache on
 * its own build id, the sha256 of its own files.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { CLI_ENTRY_POINTS, type CliResult } from '../helpers/cli.js';
import { corpusManifest, tempDir } from '../helpers/corpus-manifest.js';
import { logCliRun } from '../helpers/secret-scan.js';

const BIN_DIR = path.join(PROJECT_ROOT, 'dist', 'cli');

/** Every file under `dir` (relative path → bytes). */
function readBytes(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    files.set(path.relative(dir, file).split(path.sep).join('/'), readFileSync(file));
  }
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function run(entry: string, args: string[], cwd: string): CliResult {
  const result = spawnSync(process.execPath, [entry, ...args], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  logCliRun(args, result.stdout, result.stderr);
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A new directory holding the corpus manifest in mgmt/, so each render starts without a lockfile. */
function workDir(): string {
  const dir = tempDir('capi-gitops-bin-');
  mkdirSync(path.join(dir, 'mgmt'));
  writeFileSync(path.join(dir, 'mgmt', 'providers.yaml'), corpusManifest('v1.12.0', 'repository'));
  return dir;
}

test("package.json's bin is the code-split bundle: an executable entry with a shebang, and its chunks", () => {
  const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string>; files: string[] };
  assert.equal(path.join(PROJECT_ROOT, pkg.bin['capi-gitops']!), CLI_ENTRY_POINTS.bin);
  assert.ok(pkg.files.includes('dist/cli'), "package.json's files ship dist/cli");
  assert.ok(readFileSync(CLI_ENTRY_POINTS.bin, 'utf8').startsWith('#!/usr/bin/env node\n'));
  assert.ok((statSync(CLI_ENTRY_POINTS.bin).mode & 0o111) !== 0, 'the entry is executable');
  assert.ok(
    [...readBytes(BIN_DIR).keys()].some((file) => file.startsWith('chunks/')),
    'the entry has chunks',
  );
});

for (const [layout, extra] of [
  ['kustomize', []],
  ['argocd', ['--set', 'repoURL=https://git.example.com/platform/management.git', '--set', 'path=clusters/mgmt']],
  ['flux', ['--set', 'path=clusters/mgmt']],
] as const) {
  test(`a render of the corpus through the bin is byte-identical to the modules' entry point, lockfile and report included (${layout} layout)`, () => {
    const args = ['render', '-f', 'mgmt', '-o', 'out', '--cache-dir', 'cache', '--layout', layout, ...extra];
    const [viaModules, viaBin] = [CLI_ENTRY_POINTS.modules, CLI_ENTRY_POINTS.bin].map((entry) => {
      const dir = workDir();
      const result = run(entry, args, dir);
      assert.equal(result.code, 0, result.stderr);
      return { result, out: readBytes(path.join(dir, 'out')), lock: readFileSync(path.join(dir, 'mgmt', 'capi-gitops.lock.yaml')) };
    });
    assert.ok(viaModules!.out.size > 50, `${viaModules!.out.size} files rendered`);
    assert.deepEqual(viaBin!.out, viaModules!.out);
    assert.deepEqual(viaBin!.lock, viaModules!.lock);
    assert.deepEqual(viaBin!.result, viaModules!.result);
  });
}

test("the bin keys the output cache on its own build id, the sha256 of its files: the modules' entries are not served to it", () => {
  // The build writes the id over a placeholder after hashing the files with it (scripts/build-bundle.mjs):
  // in the command bundle, which keys the output cache with it, and in the entry, which names code cache entries with it.
  const files = readBytes(BIN_DIR);
  const holders = [...files].filter(([, bytes]) => /bin-[0-9a-f]{64}/.test(bytes.toString('latin1'))).map(([file]) => file);
  assert.deepEqual(holders, ['capi-gitops.mjs', 'chunks/capi-gitops-commands.cjs'], 'the entry and the command bundle hold the build id');
  const ids = holders.map(
    (file) =>
      files
        .get(file)!
        .toString('latin1')
        .match(/bin-[0-9a-f]{64}/g) ?? [],
  );
  assert.deepEqual(
    ids.map((found) => found.length),
    [1, 1],
    'the id is written once in each',
  );
  const id = ids[0]![0]!;
  assert.equal(ids[1]![0], id, 'the same id');
  const hash = createHash('sha256');
  for (const [file, content] of files) {
    const hashed = holders.includes(file)
      ? Buffer.from(content.toString('latin1').replace(id, `capi-gitops-bin-build-id-${'0'.repeat(64)}`), 'latin1')
      : content;
    hash.update(`dist/cli/${file}\0${hashed.length}\0`).update(hashed);
  }
  assert.equal(id, `bin-${hash.digest('hex')}`);

  // One cache for both: two renders store an entry for the modules' entry, which the bin does not use.
  const dir = workDir();
  const args = ['render', '-f', 'mgmt', '-o', 'out', '--cache-dir', 'cache', '--verbose'];
  const served = /output cache: the output of an identical earlier render was used/;
  // (the first writes the lockfile, so only the second stores its render)
  for (let i = 0; i < 2; i++) assert.equal(run(CLI_ENTRY_POINTS.modules, args, dir).code, 0);
  const third = run(CLI_ENTRY_POINTS.modules, args, dir);
  assert.match(third.stdout + third.stderr, served);
  const first = run(CLI_ENTRY_POINTS.bin, args, dir);
  assert.equal(first.code, 0, first.stderr);
  assert.doesNotMatch(first.stdout + first.stderr, served);
  const second = run(CLI_ENTRY_POINTS.bin, args, dir);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout + second.stderr, served);
});

test('the single-file bundle keys the output cache on the sha256 of itself, so a rebuild with other dependencies is another build', () => {
  // As for the bin: hashed with a placeholder where the id goes, then the id written over it (scripts/build-bundle.mjs).
  const text = readFileSync(CLI_ENTRY_POINTS.bundle, 'latin1');
  const ids = text.match(/bundle-[0-9a-f]{64}/g) ?? [];
  assert.equal(ids.length, 1, 'the id is written once');
  const hashed = text.replace(ids[0]!, `capi-gitops-bundle-build-id-${'0'.repeat(64)}`);
  assert.equal(ids[0], `bundle-${createHash('sha256').update(Buffer.from(hashed, 'latin1')).digest('hex')}`);
});
