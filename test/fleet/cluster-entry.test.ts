/**
 * A problem in one cluster's own entry of Config.clusters (a value of the wrong type, an overlay
 * the merged schema refuses, a provider key naming none, a release not in the input) leaves that
 * cluster out of the run and is reported with every other cluster's problems: every problem in
 * one run, each once at its line, named after its cluster. What makes the fleet unreadable (a
 * duplicate name) is still the fleet's. Each test starts from a copy of the bundled example.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exampleCopy, runCli } from '../helpers/cli.js';
import { renderOutput } from '../../src/app/run.js';
import { CapiGitopsError, type Diagnostic } from '../../src/core/diagnostics.js';

/** The example with `clusters` appended to its Config; the lock removed, so every cluster resolves afresh. */
function fleetExample(clusters: string): { dir: string; manifest: string; config: string } {
  const dir = exampleCopy();
  const manifest = path.join(dir, 'management-cluster');
  rmSync(path.join(manifest, 'capi-gitops.lock.yaml'));
  const config = path.join(manifest, 'config.yaml');
  writeFileSync(config, `${readFileSync(config, 'utf8')}clusters:\n${clusters}`);
  return { dir, manifest, config };
}

async function problems(manifest: string, clusters?: string[]): Promise<Diagnostic[]> {
  try {
    await renderOutput({ manifestPaths: [manifest], ...(clusters ? { clusters } : {}) });
  } catch (error) {
    if (error instanceof CapiGitopsError) return error.diagnostics;
    throw error;
  }
  assert.fail('expected the run to fail');
}

function lineOf(file: string, text: string): number {
  const index = readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(text));
  assert.ok(index >= 0, `${text} not in ${file}`);
  return index + 1;
}

const show = (found: readonly Diagnostic[]) => found.map((d) => `${d.line}: ${d.object ?? ''}: ${d.path ?? ''}: ${d.message}`).join('\n');

/** Cluster a's variable of the wrong type (caught at load), cluster c's version that does not exist (caught resolving). */
const WRONG_TYPE_AND_VERSION = `- name: a
  variables:
    UNUSED_X: y
- name: b
- name: c
  providers:
    CoreProvider/cluster-api:
      spec:
        version: v9.9.9
`;

test("a value of the wrong type in one cluster's entry hides no other cluster's problem: both in one run, nothing written (CLI)", async () => {
  const { dir, manifest, config } = fleetExample(WRONG_TYPE_AND_VERSION);
  const out = path.join(dir, 'out');
  const run = await runCli(['render', '-f', manifest, '-o', out, '--cache-dir', path.join(dir, 'cache')]);
  assert.equal(run.code, 1, run.stderr);
  const typed = `config.yaml:${lineOf(config, 'UNUSED_X: y')}:15: error: cluster a, Config: clusters[0].variables.UNUSED_X: must be a string or null`;
  assert.ok(run.stderr.includes(typed), run.stderr);
  assert.match(
    run.stderr,
    new RegExp(
      `config\\.yaml:${lineOf(config, 'v9.9.9')}:\\d+: error: cluster c, overlay: CoreProvider/capi-system/cluster-api: spec\\.version: version v9\\.9\\.9 not found`,
    ),
  );
  assert.equal(run.stderr.match(/UNUSED_X/g)?.length, 1, run.stderr);
  assert.match(run.stderr, /2 problems; nothing was written/);
  assert.ok(!existsSync(out));
  assert.ok(!existsSync(path.join(manifest, 'capi-gitops.lock.yaml')));
});

test("problems the merged overlay, a provider key and a release of clusters' own entries give are told with another cluster's version problem", async () => {
  const { manifest, config } = fleetExample(`- name: a
  providers:
    CoreProvider/cluster-api: {spec: {manager: {verbosity: loud}}}
- name: b
  release: nope
- name: d
  providers:
    CoreProvider/clustr-api: {spec: {version: v0.1.0}}
- name: c
  providers:
    CoreProvider/cluster-api: {spec: {version: v9.9.9}}
`);
  const found = await problems(manifest);
  const text = show(found);
  assert.equal(found.length, 4, text);
  const one = (cluster: string, pattern: RegExp, line: string) => {
    const d = found.find((p) => p.object?.startsWith(`cluster ${cluster}`) && pattern.test(`${p.path}: ${p.message}`));
    assert.ok(d, `${cluster} ${pattern}\n${text}`);
    assert.equal(d.file, config);
    assert.equal(d.line, lineOf(config, line), text);
  };
  one('a', /spec\.manager\.verbosity: must be an integer/, 'verbosity: loud');
  one('b', /clusters\[1\]\.release: release "nope" is not in the input/, 'release: nope');
  one('d', /CoreProvider\/clustr-api is not a provider of the shared manifest/, 'clustr-api');
  one('c', /spec\.version: version v9\.9\.9 not found/, 'v9.9.9');
});

test('with --cluster, a cluster not rendered that is left out for its entry still fails the run, as one that does not resolve does; a left-out cluster can be named', async () => {
  const { manifest } = fleetExample(WRONG_TYPE_AND_VERSION);
  for (const selected of [['b'], ['a']]) {
    const found = await problems(manifest, selected);
    const text = show(found);
    assert.equal(found.length, 2, `--cluster ${selected[0]}\n${text}`);
    assert.ok(
      found.some((d) => d.object === 'cluster a, Config' && d.path === 'clusters[0].variables.UNUSED_X'),
      text,
    );
    assert.ok(
      found.some((d) => d.object?.startsWith('cluster c, overlay:') && /v9\.9\.9/.test(d.message)),
      text,
    );
  }
});

test("a duplicate cluster name is still the fleet's problem, told with the problems of the clusters' entries", async () => {
  const { manifest } = fleetExample(`- name: a
  variables:
    UNUSED_X: y
- name: b
- name: b
`);
  const found = await problems(manifest);
  const text = show(found);
  assert.ok(
    found.some((d) => /duplicate cluster "b"/.test(d.message)),
    text,
  );
  assert.ok(
    found.some((d) => d.object === 'cluster a, Config'),
    text,
  );
  assert.equal(found.length, 2, text);
});

test("lock and plan --release tell a cluster entry's problem with another cluster's version problem, as render does; no lockfile written (CLI)", async () => {
  const { dir, manifest, config } = fleetExample(WRONG_TYPE_AND_VERSION);
  const cache = ['--cache-dir', path.join(dir, 'cache')];
  for (const args of [['lock'], ['plan', '--release', 'next']]) {
    const run = await runCli([...args, '-f', manifest, ...cache]);
    assert.equal(run.code, 1, run.stderr);
    assert.ok(
      run.stderr.includes(`config.yaml:${lineOf(config, 'UNUSED_X: y')}:15: error: cluster a, Config`),
      `${args[0]}: ${run.stderr}`,
    );
    assert.match(
      run.stderr,
      /error: cluster c, overlay: CoreProvider\/capi-system\/cluster-api: spec\.version: version v9\.9\.9 not found/,
      args[0],
    );
    assert.match(run.stderr, /\n2 problems/, args[0]);
  }
  assert.ok(!existsSync(path.join(manifest, 'capi-gitops.lock.yaml')));
});
