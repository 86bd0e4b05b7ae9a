/**
 * FileDigests (src/kernel/file-digests.ts) on real files: a digest is kept only for a file that
 * had settled when it was looked at (git's racy-clean rule, read-cache.c ie_match_stat /
 * is_racy_timestamp, with a margin), and used only while lstat gives exactly the recorded state.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lstatSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/corpus-manifest.js';
import { FileDigests, fileState, SETTLED_MS } from '../../src/output/file-digests.js';
import { contentDigest } from '../../src/output/ownership-index.js';

test('a digest is recorded only for a file whose last change is SETTLED_MS older than its lstat (racy-clean rule)', () => {
  const file = path.join(tempDir('capi-gitops-digests-'), 'a.yaml');
  writeFileSync(file, 'a: 1\n');
  const state = fileState(lstatSync(file));
  const changedAt = Math.max(state[1], state[2]);
  const digests = new FileDigests();
  digests.confirm(file, state, contentDigest('a: 1\n'), changedAt + SETTLED_MS - 1);
  assert.deepEqual(digests.recorded(), [], 'changed too recently: read again next time');
  digests.confirm(file, state, contentDigest('a: 1\n'), changedAt + SETTLED_MS);
  assert.deepEqual(digests.recorded(), [[file, state, contentDigest('a: 1\n')]]);
  assert.equal(digests.changed(), true);

  const next = new FileDigests(digests.recorded());
  assert.equal(next.digestOf(file, fileState(lstatSync(file))), contentDigest('a: 1\n'));
  assert.equal(next.changed(), false);
  // Same size, mtime restored (touch -r): ctime moved, so the digest is not used.
  execFileSync('touch', ['-r', file, `${file}.reference`]);
  writeFileSync(file, 'a: 2\n');
  execFileSync('touch', ['-r', `${file}.reference`, file]);
  const after = fileState(lstatSync(file));
  assert.equal(after[0], state[0]);
  assert.equal(after[1], state[1]);
  assert.equal(new FileDigests(digests.recorded()).digestOf(file, after), undefined);
});
