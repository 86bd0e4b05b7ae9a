/** output/scratch-tree.ts: a fleet's render kept on disk for diff leaves nothing behind, a signal's removal included. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { ScratchTree } from '../../src/output/scratch-tree.js';
import { resetInterruptState, settleInterrupted } from '../../src/core/interrupt.js';
import { tempDir } from '../helpers/corpus-manifest.js';

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
      const scratch = await ScratchTree.create();
      assert.equal(listed().length, 1);
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
