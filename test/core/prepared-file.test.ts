/** core/prepared-file.ts: files replaced together, or not at all. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { commitTogether, prepareFile } from '../../src/core/prepared-file.js';
import { tempDir } from '../helpers/corpus-manifest.js';

test('a rename that fails part-way (the lockfile after the manifest: a Windows editor holding it, EBUSY) puts back the files renamed before it: together or not at all', async () => {
  const dir = tempDir();
  const manifest = path.join(dir, 'providers.yaml');
  const added = path.join(dir, 'added.yaml');
  const lock = path.join(dir, 'capi-gitops.lock.yaml');
  writeFileSync(manifest, 'version: v1.10.4\n');
  // a directory where the last file goes: its rename fails
  mkdirSync(lock);
  writeFileSync(path.join(lock, 'x'), '');
  const prepared = [
    await prepareFile(manifest, 'version: v1.12.0\n'),
    await prepareFile(added, 'new\n'),
    await prepareFile(lock, 'entries: []\n'),
  ];
  await assert.rejects(commitTogether(prepared));
  assert.equal(readFileSync(manifest, 'utf8'), 'version: v1.10.4\n');
  assert.ok(!existsSync(added), 'a file the commit created is removed again');
  assert.deepEqual(readdirSync(dir).sort(), ['capi-gitops.lock.yaml', 'providers.yaml']);
});
