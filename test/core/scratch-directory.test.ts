/**
 * The scratch directory beside the files a run replaces: removed when a run leaves it empty, so
 * another run that is about to use it must try again, as often as runs that end remove it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { inScratchDirectory, removeScratchDirectoryIfEmpty, SCRATCH_DIRECTORY } from '../../src/core/scratch-directory.js';
import { tempDir } from '../helpers/corpus-manifest.js';

test('a file made in the scratch directory while other runs remove it in turn is made (three renders of one manifest at once)', async () => {
  const parent = tempDir();
  let removals = 0;
  const made = await inScratchDirectory(parent, async (dir) => {
    // two runs ending remove the empty directory before this run writes into it
    if (removals < 2) {
      removals++;
      await removeScratchDirectoryIfEmpty(parent);
    }
    const file = path.join(dir, 'capi-gitops.lock.yaml.tmp-1-000000000000');
    await writeFile(file, 'lock\n', { flag: 'wx' });
    return file;
  });
  assert.equal(removals, 2);
  assert.equal(path.dirname(made), path.join(parent, SCRATCH_DIRECTORY));
});

test('a directory that keeps disappearing is an error after a bounded number of attempts, not a loop', async () => {
  const parent = tempDir();
  let attempts = 0;
  await assert.rejects(
    inScratchDirectory(parent, async (dir) => {
      attempts++;
      rmSync(dir, { recursive: true, force: true });
      await writeFile(path.join(dir, 'x'), '', { flag: 'wx' });
    }),
    (err: NodeJS.ErrnoException) => err.code === 'ENOENT',
  );
  assert.equal(attempts, 8);
});
