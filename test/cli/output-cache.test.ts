/**
 * The output cache (src/cli/output-cache.ts) through the CLI, as users run it: a repeated render
 * is served from it with the same bytes and lines, and every input that can change a render
 * makes it render again. "Served" is what --verbose says; "rendered again" is checked by the
 * result: a render with the cache off afterwards finds nothing to change, or the run fails as a
 * render without the cache fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/corpus-manifest.js';
import { readTree } from '../helpers/tree.js';
import { exampleCopy, runCli } from '../helpers/cli.js';
import { cacheableRender, outputCacheKey } from '../../src/cli/output-cache.js';

const SERVED = 'output cache: the output of an identical earlier render was used';

/** A private example, output directory, artifact cache and cache key. */
function setup() {
  const dir = exampleCopy();
  const scratch = tempDir('capi-gitops-output-cache-');
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_STATE_HOME: path.join(scratch, 'state') };
  delete env.CAPI_GITOPS_OUTPUT_CACHE;
  delete env.CAPI_GITOPS_CACHE_KEY;
  const manifest = path.join(dir, 'management-cluster');
  const out = path.join(scratch, 'out');
  const cache = path.join(scratch, 'cache');
  const render = (extra: string[] = [], options: { env?: NodeJS.ProcessEnv; expectCode?: number } = {}) => {
    const result = runCli(['render', '-f', manifest, '-o', out, '--cache-dir', cache, '--verbose', ...extra], {
      cwd: scratch,
      env: options.env ?? env,
    });
    assert.equal(result.code, options.expectCode ?? 0, result.stderr);
    return { ...result, served: result.stderr.includes(SERVED) };
  };
  /** A render with the cache off must find the output as the cached run left it. */
  const assertCurrent = (extra: string[] = [], options: { env?: NodeJS.ProcessEnv } = {}) => {
    const fresh = render(extra, { env: { ...(options.env ?? env), CAPI_GITOPS_OUTPUT_CACHE: 'off' } });
    assert.equal(fresh.served, false);
    assert.match(fresh.stdout, /: 0 written, \d+ unchanged, 0 removed/, 'a render without the cache would change the output');
  };
  return { dir, scratch, env, manifest, out, cache, render, assertCurrent };
}

/** Stores an entry (the first run) and shows it is served (the second). */
function primed(extra: string[] = []) {
  const s = setup();
  assert.equal(s.render(extra).served, false);
  assert.equal(s.render(extra).served, true);
  return s;
}

test('a repeated render is served from the output cache: same files, same lines, and into an empty directory too', () => {
  const s = setup();
  const first = s.render();
  assert.equal(first.served, false);
  const tree = readTree(s.out);
  const again = s.render();
  assert.equal(again.served, true);
  assert.deepEqual(readTree(s.out), tree);
  const plain = s.render([], { env: { ...s.env, CAPI_GITOPS_OUTPUT_CACHE: 'off' } });
  assert.equal(again.stdout, plain.stdout);
  assert.equal(again.stderr.replace(`${SERVED}\n`, ''), plain.stderr);
  // Into an empty directory: every file written, every object reported added, as a render does.
  rmSync(s.out, { recursive: true });
  const served = s.render();
  assert.equal(served.served, true);
  assert.deepEqual(readTree(s.out), tree);
  rmSync(s.out, { recursive: true });
  const rendered = s.render([], { env: { ...s.env, CAPI_GITOPS_OUTPUT_CACHE: 'off' } });
  assert.equal(served.stdout, rendered.stdout);
  assert.match(served.stdout, /objects: \d+ added, 0 changed, 0 removed/);
});

test('--json is served with the same document', () => {
  const s = primed(['--json']);
  const served = s.render(['--json']);
  const rendered = s.render(['--json'], { env: { ...s.env, CAPI_GITOPS_OUTPUT_CACHE: 'off' } });
  assert.equal(served.served, true);
  assert.deepEqual(JSON.parse(served.stdout), JSON.parse(rendered.stdout));
});

test('every flag is part of the key: a run with a flag added is rendered, then served', () => {
  const s = primed();
  const values = path.join(s.scratch, 'values.yaml');
  writeFileSync(values, 'path: clusters/mgmt\n');
  const variants = [
    ['--layout', 'flux', '--set', 'path=clusters/a'],
    ['--layout', 'flux', '--set', 'path=clusters/b'],
    ['--layout', 'flux', '--set-string', 'path=clusters/c'],
    ['--layout', 'flux', '--values', values],
    ['--offline'],
    ['--frozen'],
    ['--quiet'],
    ['--http-timeout', '30'],
    ['--github-api-url', 'https://github.example.com/api/v3'],
  ];
  for (const extra of variants) {
    const rendered = s.render(extra);
    assert.equal(rendered.served, false, `${extra.join(' ')} was served from an entry of other flags`);
    s.assertCurrent(extra.filter((flag) => flag !== '--quiet'));
    if (!extra.includes('--quiet')) assert.equal(s.render(extra).served, true, `${extra.join(' ')} is not served the second time`);
  }
  // The bytes of a --values file, not just its name.
  writeFileSync(values, 'path: clusters/other\n');
  assert.equal(s.render(['--layout', 'flux', '--values', values]).served, false);
  s.assertCurrent(['--layout', 'flux', '--values', values]);
});

test("a manifest file's bytes, and a new manifest file in a -f directory, make the render run again", () => {
  const s = primed();
  appendFileSync(path.join(s.manifest, 'config.yaml'), '  EXTRA_SETTING: "1"\n');
  assert.equal(s.render().served, false);
  s.assertCurrent();
  // A new file the -f directory lists: whatever a render makes of it, the cache does not answer for it.
  assert.equal(s.render().served, true);
  writeFileSync(path.join(s.manifest, 'more.yaml'), '# only a comment\n');
  const uncached = runCli(['render', '-f', s.manifest, '-o', path.join(s.scratch, 'elsewhere'), '--cache-dir', s.cache], {
    cwd: s.scratch,
    env: { ...s.env, CAPI_GITOPS_OUTPUT_CACHE: 'off' },
  });
  assert.equal(s.render([], { expectCode: uncached.code ?? -1 }).served, false);
});

test('the lockfile is part of the key; a render that changes the lockfile is not stored', () => {
  const s = setup();
  const lock = path.join(s.manifest, 'capi-gitops.lock.yaml');
  rmSync(lock);
  assert.equal(s.render().served, false); // writes the lockfile: not stored
  assert.equal(s.render().served, false); // lockfile unchanged: stored
  assert.equal(s.render().served, true);
  const text = readFileSync(lock, 'utf8');
  writeFileSync(lock, text.replace('# Written by capi-gitops', '# Edited by hand, written by capi-gitops'));
  assert.equal(s.render().served, false);
  assert.equal(readFileSync(lock, 'utf8'), text, 'the render restores the lockfile');
});

test('a local artifact the lockfile lists is hashed again: a changed one fails as a render does', () => {
  const s = primed();
  appendFileSync(path.join(s.dir, 'repository', 'cluster-api', 'v0.2.0', 'core-components.yaml'), '# changed after locking\n');
  const failed = s.render([], { expectCode: 1 });
  assert.equal(failed.served, false);
  assert.match(failed.stderr, /sha256|digest/i);
});

test('environment that shapes a render is part of the key: a YAML bound set low fails as a render does', () => {
  const s = primed();
  const bounded = s.render([], { env: { ...s.env, CAPI_GITOPS_YAML_MAX_NODES: '5' }, expectCode: 1 });
  assert.equal(bounded.served, false);
  // A token's presence is part of the key, its value never stored.
  const token = 'ghp_outputcachetesttoken0123456789abcdef';
  assert.equal(s.render([], { env: { ...s.env, GITHUB_TOKEN: token } }).served, false);
  assert.equal(s.render([], { env: { ...s.env, GITHUB_TOKEN: token } }).served, true);
  for (const name of readdirSync(path.join(s.cache, 'output')))
    assert.ok(!readFileSync(path.join(s.cache, 'output', name)).includes(token));
});

test('a tampered entry is not served; the render runs and stores a good one', () => {
  const s = primed();
  const dir = path.join(s.cache, 'output');
  // Every record of the entry (its header, its files' bytes).
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.bin'))) {
    const file = path.join(dir, name);
    const bytes = readFileSync(file);
    const at = bytes.indexOf('wrote ') > 0 ? bytes.indexOf('resolved') : bytes.length - 10;
    bytes[at] = bytes[at]! ^ 0x20;
    writeFileSync(file, bytes);
  }
  const tampered = s.render();
  assert.equal(tampered.served, false);
  assert.match(tampered.stderr, /not signed by this cache's key/);
  s.assertCurrent();
  assert.equal(s.render().served, true);
  // Another key (another user's, or a job without the CI secret) cannot serve this entry.
  assert.equal(s.render([], { env: { ...s.env, CAPI_GITOPS_CACHE_KEY: 'another key of at least 16 characters' } }).served, false);
});

test('runs with secret values are never stored', () => {
  const s = setup();
  const secretFile = path.join(s.scratch, 'secrets.env');
  writeFileSync(secretFile, 'UNUSED_SECRET=s3cr3t-output-cache-value\n');
  for (const extra of [
    ['--secret-file', secretFile],
    ['--env-secret', 'CACHE_TEST_SECRET'],
    ['--allow-secret-values'],
    ['--secrets', 'refuse'],
  ]) {
    const env = { ...s.env, CACHE_TEST_SECRET: 's3cr3t-output-cache-value' };
    assert.equal(s.render(extra, { env }).served, false);
    assert.equal(s.render(extra, { env }).served, false, `${extra.join(' ')} was served`);
  }
  const stored = path.join(s.cache, 'output');
  if (existsSync(stored))
    for (const name of readdirSync(stored, { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name))
      assert.ok(!readFileSync(path.join(stored, name)).includes('s3cr3t-output-cache-value'));
});

test("the tool's build id and the working directory are part of the key", async () => {
  const s = setup();
  const argv = ['render', '-f', s.manifest, '-o', s.out];
  const args = cacheableRender(argv)!;
  const key = (buildId: string, cwd = s.scratch) => outputCacheKey({ argv, args, buildId, cwd, env: s.env });
  const a = await key('build-a');
  assert.ok(a);
  assert.equal((await key('build-a'))!.key, a.key);
  assert.notEqual((await key('build-b'))!.key, a.key);
  assert.notEqual((await key('build-a', s.dir))!.key, a.key);
  // Arguments the cache does not handle leave the run to the renderer.
  for (const other of [
    ['render', '-f', 'x', '-o', 'y', '--cluster', 'a'],
    ['render', '-f', 'x', '-o', 'y', '--check'],
    ['render', '-f', 'x', '--list-variables'],
    ['render', '--file=x', '-o', 'y'],
    ['check', '-f', 'x', '-o', 'y'],
    ['render', '-f', 'x', '-o', 'y', '--help'],
  ]) {
    assert.equal(cacheableRender(other), undefined, other.join(' '));
  }
});

test('served over edited output: an object whose value changed is reported changed, a file only reformatted changes no object, as a render reports', () => {
  const s = primed();
  const yamlFiles = (readdirSync(s.out, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.yaml') && !f.endsWith('kustomization.yaml'))
    .sort();
  const [edited, reformatted] = [yamlFiles.find((f) => f.includes('deployment-'))!, yamlFiles.find((f) => f.includes('namespace-'))!];
  const edit = () => {
    const file = path.join(s.out, edited);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^(\s+replicas:) \d+$/m, '$1 7'));
    appendFileSync(path.join(s.out, reformatted), '# a comment a reviewer added\n');
  };
  edit();
  const served = s.render();
  assert.equal(served.served, true);
  edit();
  const rendered = s.render([], { env: { ...s.env, CAPI_GITOPS_OUTPUT_CACHE: 'off' } });
  assert.equal(served.stdout, rendered.stdout);
  assert.match(served.stdout, /: 2 written, \d+ unchanged, 0 removed/);
  assert.match(served.stdout, /objects: 0 added, 1 changed, 0 removed\n {2}~ Deployment /);
});
