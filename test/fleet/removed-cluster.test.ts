/**
 * A cluster removed from Config clusters: its lock entries go, so `check` (frozen) fails on the
 * lock; the error must point at the line of the lockfile that still lists the cluster.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli, exampleCopy } from '../helpers/cli.js';

test('check after a cluster was removed names the lockfile line that still lists it; the hint, followed, makes check pass', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const out = path.join(example, 'out');
  const run = async (...args: string[]) => await runCli([...args, '-f', manifest, '--cache-dir', path.join(example, 'cache')]);
  const fleet = path.join(manifest, 'fleet.yaml');
  writeFileSync(fleet, 'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: c1\n- name: c2\n');
  assert.equal((await run('render', '-o', out)).code, 0);
  writeFileSync(fleet, 'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: c1\n');
  const check = await run('check', '-o', out);
  assert.equal(check.code, 1, check.stderr);
  const lockFile = path.join(manifest, 'capi-gitops.lock.yaml');
  const lines = readFileSync(lockFile, 'utf8').split('\n');
  const at = /capi-gitops\.lock\.yaml:(\d+):(\d+): error: --frozen \(or check, which implies it\): the lockfile would change: c2: - /.exec(
    check.stderr,
  );
  assert.ok(at, check.stderr);
  assert.equal(lines[Number(at[1]) - 1]!.slice(Number(at[2]) - 1), 'c2');
  assert.equal((await run('lock')).code, 0);
  assert.equal((await run('render', '-o', out)).code, 0);
  const again = await run('check', '-o', out);
  assert.equal(again.code, 0, again.stdout + again.stderr);
});

test('a cluster removed: check, check --cluster and render --frozen tell its lockfile entries as one problem at the line that lists it, naming its components', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const out = path.join(example, 'out');
  const run = async (...args: string[]) => await runCli([...args, '-f', manifest, '--cache-dir', path.join(example, 'cache')]);
  const fleet = path.join(manifest, 'fleet.yaml');
  writeFileSync(fleet, 'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: c1\n- name: c2\n- name: c3\n');
  assert.equal((await run('render', '-o', out)).code, 0);
  writeFileSync(fleet, 'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: c1\n');
  const lines = readFileSync(path.join(manifest, 'capi-gitops.lock.yaml'), 'utf8').split('\n');
  for (const args of [
    ['check', '-o', out],
    ['check', '-o', out, '--cluster', 'c1'],
    ['render', '-o', out, '--frozen'],
  ]) {
    const result = await run(...args);
    assert.equal(result.code, 1, result.stderr);
    const told = result.stderr.split('\n').filter((l) => l.includes('the lockfile would change'));
    assert.equal(told.length, 2, `${args.join(' ')}: one problem a removed cluster\n${result.stderr}`);
    for (const [i, cluster] of ['c2', 'c3'].entries()) {
      const at = /capi-gitops\.lock\.yaml:(\d+):(\d+): error: /.exec(told[i]!);
      assert.ok(at, told[i]);
      assert.equal(lines[Number(at[1]) - 1]!.slice(Number(at[2]) - 1), cluster);
      assert.match(
        told[i]!,
        new RegExp(`would change: ${cluster}: - cert-manager v0\\.1\\.0, cluster-api v0\\.2\\.0, .*infrastructure-example v0\\.2\\.0 `),
      );
    }
    assert.match(result.stderr, /^2 problems/m);
  }
});

const TEAM_NOTES = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: team-notes\n  namespace: capi-system\ndata:\n  owner: platform\n';

interface Problem {
  path: string;
  status: string;
  removeByHand?: true;
}

/**
 * A file the team added to a directory an earlier render wrote into is told by check, diff and
 * render alike, whether or not this render still writes that directory: Flux builds a path
 * without a kustomization.yaml from the files in it, and with `prune: true` deletes the rest of
 * what it applied (fluxcd/kustomize-controller docs/spec/v1/kustomizations.md, `.spec.path`).
 */
async function assertToldAsLeftInPlace(example: string, manifest: string, file: string): Promise<void> {
  const out = path.join(example, 'out');
  const run = async (...args: string[]) => await runCli([...args, '-f', manifest, '-o', out, '--cache-dir', path.join(example, 'cache')]);
  const check = await run('check', '--json');
  assert.equal(check.code, 1, check.stdout + check.stderr);
  const problems = (JSON.parse(check.stdout) as { problems: Problem[] }).problems;
  assert.deepEqual(
    problems.filter((p) => p.removeByHand).map((p) => [p.status, p.path]),
    [['extra', file]],
  );
  assert.match((await run('check')).stdout, new RegExp(`extra +${file}: not written by capi-gitops`));
  const diff = await run('diff', '--format', 'json');
  assert.equal(diff.code, 0, diff.stderr);
  assert.deepEqual((JSON.parse(diff.stdout) as { leftInPlace?: string[] }).leftInPlace, [file]);
  const render = await run('render');
  assert.equal(render.code, 0, render.stderr);
  assert.match(render.stderr, new RegExp(`warning: left ${file} in .*: capi-gitops did not write it .* remove it`));
  assert.ok(existsSync(path.join(out, file)), 'render leaves a file it did not write');
  // and the index remembers its directory: check still fails after the render that stopped writing there
  const after = await run('check', '--json');
  assert.equal(after.code, 1, after.stdout);
  assert.deepEqual(
    (JSON.parse(after.stdout) as { problems: Problem[] }).problems.map((p) => [p.status, p.path, p.removeByHand]),
    [['extra', file, true]],
  );
  assert.match((await run('render')).stderr, new RegExp(`warning: left ${file} in `));
  // removed by hand: the next render forgets the directory, and check passes
  rmSync(path.join(out, file));
  assert.equal((await run('render')).code, 0);
  const clean = await run('check');
  assert.equal(clean.code, 0, clean.stdout + clean.stderr);
  assert.ok(!existsSync(path.dirname(path.join(out, file))), 'the emptied directory is removed');
}

test('a fleet cluster removed: a file the team added to its directory is extra in check, left in place in diff, and named by render', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const out = path.join(example, 'out');
  const fleet = path.join(manifest, 'fleet.yaml');
  const run = async (...args: string[]) => await runCli([...args, '-f', manifest, '--cache-dir', path.join(example, 'cache')]);
  writeFileSync(
    fleet,
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\noutput: {layout: flux}\ngitops: {path: out}\nclusters:\n- name: c1\n- name: c2\n',
  );
  assert.equal((await run('render', '-o', out)).code, 0);
  const file = 'clusters/c2/01-cluster-api/configmap-team-notes.yaml';
  writeFileSync(path.join(out, file), TEAM_NOTES);
  writeFileSync(
    fleet,
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\noutput: {layout: flux}\ngitops: {path: out}\nclusters:\n- name: c1\n',
  );
  assert.equal((await run('lock')).code, 0);
  await assertToldAsLeftInPlace(example, manifest, file);
});

test('a single-cluster output become a fleet: a file the team added to its old component directory is extra in check, left in place in diff, and named by render', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const out = path.join(example, 'out');
  const run = async (...args: string[]) => await runCli([...args, '-f', manifest, '--cache-dir', path.join(example, 'cache')]);
  assert.equal((await run('render', '-o', out)).code, 0);
  const file = '01-cluster-api/configmap-team-notes.yaml';
  writeFileSync(path.join(out, file), TEAM_NOTES);
  writeFileSync(
    path.join(manifest, 'fleet.yaml'),
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: c1\n- name: c2\n',
  );
  assert.equal((await run('lock')).code, 0);
  await assertToldAsLeftInPlace(example, manifest, file);
});

test('check after a cluster was renamed names the cluster as what the lockfile does not list, not its components', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const run = async (...args: string[]) => await runCli([...args, '-f', manifest, '--cache-dir', path.join(example, 'cache')]);
  const fleet = path.join(manifest, 'fleet.yaml');
  writeFileSync(fleet, 'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: c1\n- name: c2\n');
  assert.equal((await run('render', '-o', path.join(example, 'out'))).code, 0);
  writeFileSync(fleet, 'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: c1\n- name: c3\n');
  const check = await run('check', '-o', path.join(example, 'out'));
  assert.equal(check.code, 1, check.stderr);
  const changes = check.stderr.split('\n').filter((l) => l.includes('the lockfile would change'));
  assert.ok(changes.length > 0, check.stderr);
  for (const line of changes) {
    assert.match(
      line,
      /error: cluster c3[,:] .*the lockfile would change: \+ \S+ for a cluster the lockfile does not list \(added or renamed\)$/,
    );
  }
});

test('check after clusters were added tells each component the lockfile lacks once, naming the new clusters as a range', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const run = async (...args: string[]) => await runCli([...args, '-f', manifest, '--cache-dir', path.join(example, 'cache')]);
  const fleet = path.join(manifest, 'fleet.yaml');
  const clusters = (names: string[]) =>
    `apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n${names.map((n) => `- name: ${n}\n`).join('')}`;
  writeFileSync(fleet, clusters(['c1', 'c2']));
  assert.equal((await run('render', '-o', path.join(example, 'out'))).code, 0);
  writeFileSync(fleet, clusters(['c1', 'c2', 'c3', 'c4', 'c5']));
  const check = await run('check', '-o', path.join(example, 'out'));
  assert.equal(check.code, 1, check.stderr);
  const changes = check.stderr.split('\n').filter((l) => l.includes('the lockfile would change'));
  assert.ok(changes.length > 0, check.stderr);
  for (const line of changes) assert.match(line, /error: clusters c3–c5[,:] /);
  assert.equal(new Set(changes).size, changes.length, check.stderr);
});

test('a fleet cluster removed after a file of its was edited by hand: the fleet render keeps the file, as check says and a single-cluster render does, and check still names it afterwards', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const out = path.join(example, 'out');
  const fleet = path.join(manifest, 'fleet.yaml');
  const run = async (...args: string[]) => await runCli([...args, '-f', manifest, '-o', out, '--cache-dir', path.join(example, 'cache')]);
  writeFileSync(fleet, 'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: c1\n- name: c2\n');
  assert.equal((await run('render')).code, 0);
  const file = 'clusters/c2/01-cluster-api/kustomization.yaml';
  const edited = readFileSync(path.join(out, file), 'utf8') + '# reviewed by the platform team\n';
  writeFileSync(path.join(out, file), edited);
  writeFileSync(fleet, 'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: c1\n');
  assert.equal((await runCli(['lock', '-f', manifest, '--cache-dir', path.join(example, 'cache')])).code, 0);
  const before = JSON.parse((await run('check', '--json')).stdout) as { problems: Problem[] };
  assert.deepEqual(
    before.problems.filter((p) => p.removeByHand).map((p) => p.path),
    [file],
  );
  const render = await run('render');
  assert.equal(render.code, 0, render.stderr);
  assert.match(render.stderr, new RegExp(`warning: kept ${file} in `));
  assert.equal(readFileSync(path.join(out, file), 'utf8'), edited);
  const after = await run('check', '--json');
  assert.equal(after.code, 1, after.stdout);
  assert.deepEqual(
    (JSON.parse(after.stdout) as { problems: Problem[] }).problems.map((p) => [p.status, p.path, p.removeByHand]),
    [['extra', file, true]],
  );
});

test("render after clusters left the fleet tells their removed objects as one line a group, not one a line (as diff's cluster-leaves call-out); --json still lists each", async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const out = path.join(example, 'out');
  const fleet = path.join(manifest, 'fleet.yaml');
  const render = async (...flags: string[]) => await runCli(['render', '-f', manifest, '-o', out, '--offline', ...flags]);
  writeFileSync(fleet, 'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: c1\n- name: c2\n- name: c3\n');
  assert.equal((await render()).code, 0);
  writeFileSync(fleet, 'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: c1\n');
  const left = await render('--json');
  assert.equal(left.code, 0, left.stderr);
  const removed = (JSON.parse(left.stdout) as { objects: { change: string }[] }).objects.filter((o) => o.change === 'removed');
  assert.ok(removed.length > 10, `${removed.length} removed objects in --json`);
  // the text report of the same change, from the same starting tree
  writeFileSync(fleet, 'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: c1\n- name: c2\n- name: c3\n');
  assert.equal((await render()).code, 0);
  writeFileSync(fleet, 'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: c1\n');
  const text = await render();
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, new RegExp(`^objects: 0 added, 0 changed, ${removed.length} removed$`, 'm'));
  assert.match(
    text.stdout,
    new RegExp(`^ {2}- ${removed.length} objects of clusters c2, c3, which left the fleet \\(capi-gitops diff lists them\\)$`, 'm'),
  );
  assert.doesNotMatch(text.stdout, /^ {2}- \w+ .*; clusters c2, c3\)$/m);
});
