/**
 * writeOutput and confirmUnchanged (src/emit/write.ts) with digests recorded by an earlier run
 * (src/kernel/file-digests.ts), on real files: a recorded digest is trusted while lstat is
 * unchanged, and the bytes are read or needed whenever it is not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/corpus-manifest.js';
import { FileDigests, fileState } from '../../src/output/file-digests.js';
import { contentDigest } from '../../src/output/ownership-index.js';
import { confirmUnchanged, writeOutput } from '../../src/output/write.js';

test('writeOutput trusts a recorded digest while lstat is unchanged, and reads the file when it is not (src/emit/write.ts)', async () => {
  const dir = path.join(tempDir('capi-gitops-digests-write-'), 'out');
  const files = new Map([
    ['a/one.yaml', 'one: 1\n'],
    ['two.yaml', 'two: 2\n'],
  ]);
  await writeOutput(dir, files);
  const digests = new Map([...files].map(([p, text]) => [p, contentDigest(text)]));
  // A record that claims the new bytes for a file whose bytes differ, at its real lstat: only a
  // writer that trusts the record instead of reading would call it unchanged.
  const one = path.join(dir, 'a', 'one.yaml');
  writeFileSync(one, 'one: 9\n');
  const record: [string, ReturnType<typeof fileState>, string][] = [[one, fileState(lstatSync(one)), digests.get('a/one.yaml')!]];
  const trusted = await writeOutput(dir, files, { known: { digests, onDisk: new FileDigests(record) } });
  assert.deepEqual(trusted.written, []);
  assert.deepEqual(trusted.unchanged, ['a/one.yaml', 'two.yaml']);
  // The record of another state (here: another ctime) is not used: the file is read and rewritten.
  const stale = record.map(([file, state, sha]) => [file, [state[0], state[1], state[2] - 1, state[3], state[4]], sha]) as typeof record;
  const read = await writeOutput(dir, files, { known: { digests, onDisk: new FileDigests(stale) } });
  assert.deepEqual(read.written, ['a/one.yaml']);
  assert.equal(readFileSync(one, 'utf8'), 'one: 1\n');
});

test('confirmUnchanged proves an unchanged output from digests alone, removes leftovers as a write does, and declines when bytes are needed', async () => {
  const dir = path.join(tempDir('capi-gitops-digests-confirm-'), 'out');
  const files = new Map([
    ['a/one.yaml', 'one: 1\n'],
    ['two.yaml', 'two: 2\n'],
  ]);
  await writeOutput(dir, files);
  const digests = new Map([...files].map(([p, text]) => [p, contentDigest(text)]));
  const sizes = new Map([...files].map(([p, text]) => [p, Buffer.byteLength(text)]));
  const recordOf = () =>
    [...files.keys()].map((p) => {
      const file = path.join(dir, p);
      return [file, fileState(lstatSync(file)), digests.get(p)!] as [string, ReturnType<typeof fileState>, string];
    });
  // A temporary tree left by a run that was killed (no such process): removed, silently (nothing was lost).
  const leftover = path.join(path.dirname(dir), `.out.capi-gitops-tmp-999999999-${'0'.repeat(12)}`);
  mkdirSync(leftover);
  const confirmed = await confirmUnchanged(dir, sizes, { digests, onDisk: new FileDigests(recordOf()) });
  assert.ok(confirmed);
  assert.deepEqual(confirmed.written, []);
  assert.deepEqual(confirmed.unchanged, ['a/one.yaml', 'two.yaml']);
  assert.deepEqual(confirmed.warnings, []);
  assert.equal(existsSync(leftover), false);
  // Without a record, or with a file more or less, the bytes are needed: nothing is written.
  assert.equal(await confirmUnchanged(dir, sizes, { digests, onDisk: new FileDigests() }), undefined);
  const more = new Map([...sizes, ['three.yaml', 9]]);
  const moreDigests = new Map([...digests, ['three.yaml', contentDigest('three: 3\n')]]);
  assert.equal(await confirmUnchanged(dir, more, { digests: moreDigests, onDisk: new FileDigests(recordOf()) }), undefined);
  assert.equal(existsSync(path.join(dir, 'three.yaml')), false);
  const fewer = new Map([['two.yaml', sizes.get('two.yaml')!]]);
  assert.equal(await confirmUnchanged(dir, fewer, { digests, onDisk: new FileDigests(recordOf()) }), undefined);
  assert.equal(readFileSync(path.join(dir, 'a', 'one.yaml'), 'utf8'), 'one: 1\n');
});
