/** output/scratch-tree.ts: a fleet's render kept on disk for diff leaves nothing behind, a signal's removal included. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { ScratchTree } from '../../src/output/scratch-tree.js';
import { resetInterruptState, settleInterrupted } from '../../src/core/interrupt.js';
import path from 'node:path';
import { render } from '../../src/app/render.js';
import { diff } from '../../src/app/diff.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { coreManifest, localCoreRelease } from '../helpers/local-release.js';
import { rejection } from '../helpers/assertions.js';

/** The scratch trees in a temporary directory of the test's own (os.tmpdir() reads TMPDIR when called). */
async function inOwnTmp<T>(run: (listed: () => string[]) => Promise<T>): Promise<T> {
  const saved = process.env.TMPDIR;
  const dir = tempDir();
  process.env.TMPDIR = dir;
  try {
    return await run(() => readdirSync(dir));
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

test('SIGINT while a cluster is appended to the scratch tree: the append ends before the directory is removed, so none is left', async () => {
  resetInterruptState();
  try {
    await inOwnTmp(async (listed) => {
      const scratch = new ScratchTree();
      const written = scratch.writeAll([
        ['clusters/a/x.yaml', 'x'.repeat(1 << 20)],
        ['clusters/b/y.yaml', 'y'],
        ['README.md', 'r'],
      ]);
      await settleInterrupted('SIGINT');
      await written.catch(() => undefined);
      assert.deepEqual(listed(), []);
    });
  } finally {
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
  const saved = process.env.TMPDIR;
  // a file, not a directory: nothing can be made in it
  process.env.TMPDIR = path.join(single, 'providers.yaml');
  try {
    const { report } = await diff({ output: singleOut, current: { manifestPaths: [single] } });
    assert.equal(report.summary.changed, 0);
    const error = await rejection(diff({ output: fleetOut, current: { manifestPaths: [fleet] } }));
    assert.ok(error instanceof CapiGitopsError, String(error));
    assert.match(error.message, /set TMPDIR to a directory this user can write/);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
});
