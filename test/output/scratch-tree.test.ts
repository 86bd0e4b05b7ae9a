/** output/scratch-tree.ts: a fleet's render kept on disk for diff leaves nothing behind, a signal's removal included. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { render } from '../../src/app/render.js';
import { ScratchTree } from '../../src/output/scratch-tree.js';
import { InterruptedError, resetInterruptState, settleInterrupted } from '../../src/core/interrupt.js';
import { tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { coreManifest, localCoreRelease } from '../helpers/local-release.js';
import { runCliProcess } from '../helpers/cli.js';

test('SIGINT while a cluster is appended to the scratch tree: the append ends before the directory is removed, so none is left', async () => {
  resetInterruptState();
  const scratch = new ScratchTree();
  try {
    await scratch.writeAll([['README.md', 'r']]);
    const root = (scratch as unknown as { root: string }).root;
    assert.ok(existsSync(root));
    // a new cluster: its append makes a file in the directory
    const written = scratch.writeAll([
      ['clusters/a/x.yaml', 'x'.repeat(1 << 20)],
      ['clusters/b/y.yaml', 'y'],
    ]);
    await settleInterrupted('SIGINT');
    await written.catch(() => undefined);
    assert.ok(!existsSync(root), 'the scratch directory is left');
  } finally {
    await scratch.dispose();
    resetInterruptState();
  }
});

test('SIGINT before the first append: an append after the removal makes no scratch directory, and stops the run as interrupted', async () => {
  resetInterruptState();
  const scratch = new ScratchTree();
  try {
    await settleInterrupted('SIGINT');
    const error = await scratch.writeAll([['clusters/a/x.yaml', 'x']]).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(error instanceof InterruptedError, String(error));
    assert.equal((scratch as unknown as { root?: string }).root, undefined, 'a directory was made after the removal');
  } finally {
    await scratch.dispose();
    resetInterruptState();
  }
});

test("diff of a single cluster keeps its render in memory and makes no scratch directory: a TMPDIR it cannot write does not fail it; a fleet's diff is told where, with TMPDIR's hint", async () => {
  const url = localCoreRelease('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: capi-system}\ndata: {a: b}\n');
  const single = writeTempManifest({ 'providers.yaml': coreManifest(url) });
  const fleet = writeTempManifest({ 'fleet.yaml': coreManifest(url, 'clusters:\n- name: a\n- name: b\n') });
  const [singleOut, fleetOut] = [path.join(tempDir(), 'single'), path.join(tempDir(), 'fleet')];
  await render({ manifestPaths: [single] }, singleOut);
  await render({ manifestPaths: [fleet] }, fleetOut);
  // a file, not a directory: nothing can be made in it (a process of its own: the environment is the process's)
  const env = { ...process.env, TMPDIR: path.join(single, 'providers.yaml') };
  const alone = runCliProcess(['diff', '-f', single, '-o', singleOut], { env });
  assert.equal(alone.code, 0, alone.stderr);
  const fleetDiff = runCliProcess(['diff', '-f', fleet, '-o', fleetOut], { env });
  assert.equal(fleetDiff.code, 1, fleetDiff.stderr);
  assert.match(fleetDiff.stderr, /hint: set TMPDIR to a directory this user can write/);
});
