/**
 * A cluster removed from Config clusters: its lock entries go, so `check` (frozen) fails on the
 * lock; the error must point at the line of the lockfile that still lists the cluster.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
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
