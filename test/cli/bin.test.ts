/**
 * The package's bin (package.json `bin`, dist/bin/capi-gitops.mjs, the bundle split at the
 * commands) and the single-file bundle (dist/capi-gitops.mjs) render the corpus to the same bytes,
 * and print the same, as the modules' entry point (dist/src/cli/main.js) in every layout.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { CLI_ENTRY_POINTS, type CliResult } from '../helpers/cli.js';
import { corpusManifest, tempDir } from '../helpers/corpus-manifest.js';
import { logCliRun } from '../helpers/secret-scan.js';

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

test("package.json's bin is the split bundle and the single-file bundle ships too: executable, with a shebang", () => {
  const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string>; files: string[] };
  assert.equal(path.join(PROJECT_ROOT, pkg.bin['capi-gitops']!), CLI_ENTRY_POINTS.bin);
  assert.ok(pkg.files.includes('dist/bin') && pkg.files.includes('dist/capi-gitops.mjs'), "package.json's files ship both");
  for (const entry of [CLI_ENTRY_POINTS.bin, CLI_ENTRY_POINTS.bundle]) {
    assert.ok(readFileSync(entry, 'utf8').startsWith('#!/usr/bin/env node\n'), entry);
    assert.ok((statSync(entry).mode & 0o111) !== 0, `${entry} is executable`);
  }
});

for (const [layout, extra] of [
  ['kustomize', []],
  ['argocd', ['--set', 'repoURL=https://git.example.com/platform/management.git', '--set', 'path=clusters/mgmt']],
  ['flux', ['--set', 'path=clusters/mgmt']],
] as const) {
  test(`a render of the corpus through the bin is byte-identical to the modules' entry point, lockfile and report included (${layout} layout)`, () => {
    const args = ['render', '-f', 'mgmt', '-o', 'out', '--cache-dir', 'cache', '--layout', layout, ...extra];
    const [viaModules, viaBin, viaBundle] = [CLI_ENTRY_POINTS.modules, CLI_ENTRY_POINTS.bin, CLI_ENTRY_POINTS.bundle].map((entry) => {
      const dir = workDir();
      const result = run(entry, args, dir);
      assert.equal(result.code, 0, result.stderr);
      return { result, out: readBytes(path.join(dir, 'out')), lock: readFileSync(path.join(dir, 'mgmt', 'capi-gitops.lock.yaml')) };
    });
    assert.ok(viaModules!.out.size > 50, `${viaModules!.out.size} files rendered`);
    assert.deepEqual(viaBin!.out, viaModules!.out);
    assert.deepEqual(viaBin!.lock, viaModules!.lock);
    assert.deepEqual(viaBin!.result, viaModules!.result);
    assert.deepEqual(viaBundle, viaBin);
  });
}
