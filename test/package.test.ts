/**
 * `npm pack` makes a package that works outside this checkout: the tarball is packed from a copy
 * of the sources (its prepack builds dist/), installed into an empty directory from npm's local
 * cache only (no network), and its bin (the split bundle) and its
 * single-file bundle render the bundled example to the same bytes as this checkout's CLI.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './helpers/paths.js';
import { tempDir } from './helpers/corpus-manifest.js';
import { readTree } from './helpers/tree.js';
import { CLI_ENTRY_POINTS } from './helpers/cli.js';

/** What a source checkout holds that the package is built from (no dist/, no tests). */
const SOURCES = [
  'package.json',
  'package-lock.json',
  'README.md',
  'tsconfig.json',
  'src',
  'scripts',
  'templates',
  'charts',
  'schema',
  'examples',
];

/** npm sets npm_* variables for its scripts (the project's prefix among them): a nested npm must not see them. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
}

function run(command: string, args: string[], options: SpawnSyncOptions = {}): string {
  const result = spawnSync(command, args, { encoding: 'utf8', env: cleanEnv(), maxBuffer: 64 * 1024 * 1024, ...options });
  assert.equal(result.status, 0, `${command} ${args.join(' ')} failed:\n${String(result.stdout)}\n${String(result.stderr)}`);
  return String(result.stdout);
}

interface LockEntry {
  name?: string;
  version: string;
  resolved?: string;
  integrity?: string;
  dev?: boolean;
  devOptional?: boolean;
  link?: boolean;
}

/**
 * A lockfile for an app that depends only on the tarball: the checkout's locked runtime
 * dependencies with their registry tarball URLs and integrity, so `npm ci --offline` takes each
 * from npm's cache by its digest and needs no registry metadata.
 */
function appLock(
  tarball: string,
  pkg: { name: string; version: string; dependencies: Record<string, string>; bin: Record<string, string> },
): unknown {
  const lock = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const packages: Record<string, unknown> = {
    '': { name: 'capi-gitops-install-test', dependencies: { [pkg.name]: `file:${tarball}` } },
    [`node_modules/${pkg.name}`]: { version: pkg.version, resolved: `file:${tarball}`, dependencies: pkg.dependencies, bin: pkg.bin },
  };
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (!key.startsWith('node_modules/') || entry.dev || entry.devOptional || entry.link) continue;
    const name = entry.name ?? key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const resolved = entry.resolved ?? `https://registry.npmjs.org/${name}/-/${name.split('/').pop()}-${entry.version}.tgz`;
    packages[key] = { ...entry, resolved };
  }
  return { name: 'capi-gitops-install-test', lockfileVersion: 3, requires: true, packages };
}

/** Renders a fresh copy of `examples` with `cli` (argv before the command) in a new directory; returns the output tree. */
function renderExample(cli: string[], examples: string, extra: string[] = []): Map<string, string> {
  const work = tempDir('capi-gitops-pack-render-');
  cpSync(examples, path.join(work, 'examples'), { recursive: true });
  const [command, ...args] = cli;
  run(command, [...args, 'render', '-f', 'examples/management-cluster', '-o', 'out', ...extra], { cwd: work });
  return readTree(path.join(work, 'out'));
}

test('npm pack builds a package that installs offline into an empty directory and its bin renders the bundled example; its bundle renders the same bytes', () => {
  const stage = tempDir('capi-gitops-pack-src-');
  for (const entry of SOURCES) cpSync(path.join(PROJECT_ROOT, entry), path.join(stage, entry), { recursive: true });
  symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(stage, 'node_modules'), 'dir');
  const packs = tempDir('capi-gitops-pack-out-');
  run('npm', ['pack', '--offline', '--pack-destination', packs], { cwd: stage });
  const [tarball, ...others] = readdirSync(packs).filter((f) => f.endsWith('.tgz'));
  assert.ok(tarball && others.length === 0, `one tarball expected in ${packs}`);
  const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8'));
  assert.equal(tarball, `capi-gitops-${pkg.version}.tgz`);

  const contents = run('tar', ['-tzf', path.join(packs, tarball)]).split('\n');
  assert.equal(pkg.bin['capi-gitops'], 'dist/bin/capi-gitops.mjs', "the package's bin is the split bundle");
  assert.ok(
    contents.some((f) => f.startsWith('package/dist/bin/chunks/')),
    'the bin ships its chunks',
  );
  assert.ok(contents.includes('package/dist/bin/capi-gitops.mjs'), 'the bin ships');
  for (const file of [
    'package/dist/src/cli/main.js',
    'package/dist/capi-gitops.mjs',
    'package/dist/src/layout/templates.precompiled.cjs',
    'package/dist/src/manifest/schema-validator.cjs',
    'package/dist/src/layout/chart/built-in-charts.cjs',
    'package/schema/capi-gitops.schema.json',
    'package/examples/management-cluster/providers.yaml',
  ]) {
    assert.ok(contents.includes(file), `${file} is not in the package`);
  }
  assert.deepEqual(
    contents.filter((f) => /\.ts$|^package\/test\/|\.map$/.test(f)),
    [],
    'sources, tests or source maps in the package',
  );

  // an empty directory that knows nothing of this checkout
  const app = tempDir('capi-gitops-pack-app-');
  const tgz = path.join(packs, tarball);
  // The app carries the checkout's overrides (content-type 2.x under octokit, for Node 20), as the
  // README's install section tells Node 20 users to, so its tree is the checkout's locked one.
  writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify({
      name: 'capi-gitops-install-test',
      private: true,
      dependencies: { [pkg.name]: `file:${tgz}` },
      ...(pkg.overrides ? { overrides: pkg.overrides } : {}),
    }),
  );
  writeFileSync(path.join(app, 'package-lock.json'), JSON.stringify(appLock(tgz, pkg)));
  run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: app });
  const installed = path.join(app, 'node_modules', 'capi-gitops');
  const bin = path.join(app, 'node_modules', '.bin', 'capi-gitops');
  assert.equal(realpathSync(bin), realpathSync(path.join(installed, 'dist', 'bin', 'capi-gitops.mjs')));

  assert.equal(run(bin, ['--version'], { cwd: app }), `${pkg.version}\n`);
  assert.equal(run(bin, ['--help'], { cwd: app }), run(process.execPath, [CLI_ENTRY_POINTS.modules, '--help']));
  const expected = renderExample([process.execPath, CLI_ENTRY_POINTS.modules], path.join(PROJECT_ROOT, 'examples'));
  assert.ok(expected.size > 10);
  assert.deepEqual(renderExample([bin], path.join(installed, 'examples')), expected, "the installed package's bin renders other bytes");
  assert.deepEqual(
    renderExample([process.execPath, path.join(installed, 'dist', 'capi-gitops.mjs')], path.join(installed, 'examples')),
    expected,
    "the package's bundle renders other bytes",
  );
  assert.deepEqual(
    renderExample([process.execPath, CLI_ENTRY_POINTS.bundle], path.join(PROJECT_ROOT, 'examples')),
    expected,
    "the checkout's bundle renders other bytes",
  );

  // the bundle is one file: copied anywhere alone, it still renders and shows the built-in charts
  const lonely = path.join(tempDir('capi-gitops-pack-lonely-'), 'capi-gitops.mjs');
  cpSync(path.join(installed, 'dist', 'capi-gitops.mjs'), lonely);
  assert.deepEqual(
    renderExample([process.execPath, lonely], path.join(PROJECT_ROOT, 'examples')),
    expected,
    'a lone copy of the bundle renders other bytes',
  );
  assert.equal(
    run(process.execPath, [lonely, 'chart', 'show', 'flux']),
    run(process.execPath, [CLI_ENTRY_POINTS.modules, 'chart', 'show', 'flux']),
  );
  const argocd = ['--layout', 'argocd', '--set', 'repoURL=https://git.example.com/platform/management.git', '--set', 'path=clusters/mgmt'];
  assert.deepEqual(
    renderExample([process.execPath, lonely], path.join(PROJECT_ROOT, 'examples'), argocd),
    renderExample([process.execPath, CLI_ENTRY_POINTS.modules], path.join(PROJECT_ROOT, 'examples'), argocd),
    'the bundle draws other argocd wiring',
  );
});
