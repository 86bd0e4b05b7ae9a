/**
 * The staged write a fleet streams into (src/output/write.ts OutputStage): files go into the new
 * tree beside the output as they are made, held files are placed by a rename, and `commit` swaps
 * the tree in with writeOutput's guarantees; nothing touches the output before the commit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { OutputStage, writeOutput } from '../../src/output/write.js';
import { sha256Hex } from '../../src/core/digest.js';
import { GENERATED_COMMENT } from '../../src/layout/provenance.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { readTree } from '../helpers/tree.js';

const require = createRequire(import.meta.url);
const siblings = (out: string) => readdirSync(path.dirname(out)).filter((n) => n !== path.basename(out));

test('files staged one by one, and a held file placed later, appear together at the commit with their index', async () => {
  const out = path.join(tempDir(), 'out');
  const stage = new OutputStage(out);
  await stage.writeAll([['clusters/a/kustomization.yaml', 'resources: []\n']]);
  await stage.hold('object-0', 'kind: ConfigMap\n');
  await stage.writeAll([['README.md', '# fleet\n']]);
  // written beside the output, not in it
  assert.equal(existsSync(out), false);
  await stage.place('object-0', 'bases/a/v1-0123/configmap.yaml');
  const summary = await stage.commit();
  assert.deepEqual(summary.written, ['README.md', 'bases/a/v1-0123/configmap.yaml', 'clusters/a/kustomization.yaml']);
  const tree = readTree(out);
  assert.equal(tree.get('bases/a/v1-0123/configmap.yaml'), 'kind: ConfigMap\n');
  assert.ok(tree.get('.capi-gitops-index')!.includes(`${sha256Hex('kind: ConfigMap\n')}  bases/a/v1-0123/configmap.yaml`));
  // no staging directory, held file or lock is left
  assert.deepEqual(siblings(out), []);
});

test('a commit that changes nothing writes nothing: every file keeps its inode; files not staged again are removed, others carried', async () => {
  const out = path.join(tempDir(), 'out');
  // as capi-gitops writes them: only such a file is removed once no run produces it (output/ownership-index.ts provenOwned)
  const files = new Map([
    ['a/x.yaml', 'kind: X\n'],
    ['b/y.yaml', `${GENERATED_COMMENT}kind: Y\n`],
  ]);
  await writeOutput(out, files);
  const inode = (f: string) => statSync(path.join(out, f)).ino;
  const before = { x: inode('a/x.yaml'), y: inode('b/y.yaml') };
  const same = new OutputStage(out);
  await same.writeAll(files);
  const unchanged = await same.commit();
  assert.deepEqual([unchanged.written, unchanged.unchanged], [[], ['a/x.yaml', 'b/y.yaml']]);
  assert.deepEqual({ x: inode('a/x.yaml'), y: inode('b/y.yaml') }, before);

  mkdirSync(path.join(out, 'notes'));
  writeFileSync(path.join(out, 'notes', 'mine.txt'), 'not the tool’s\n');
  const next = new OutputStage(out);
  await next.writeAll([
    ['a/x.yaml', 'kind: X\n'],
    ['c/z.yaml', 'kind: Z\n'],
  ]);
  const summary = await next.commit();
  assert.deepEqual([summary.written, summary.unchanged, summary.removed], [['c/z.yaml'], ['a/x.yaml'], ['b/y.yaml']]);
  assert.equal(inode('a/x.yaml'), before.x);
  assert.equal(readFileSync(path.join(out, 'notes', 'mine.txt'), 'utf8'), 'not the tool’s\n');
  assert.equal(existsSync(path.join(out, 'b')), false);
});

test('a staged file that replaces one keeps its mode, as writeOutput and the lockfile keep it, whatever the umask', async () => {
  const out = path.join(tempDir(), 'out');
  const umask = process.umask(0o022);
  try {
    await writeOutput(out, new Map([['a/x.yaml', `${GENERATED_COMMENT}kind: X\n`]]));
    chmodSync(path.join(out, 'a/x.yaml'), 0o664);
    chmodSync(path.join(out, '.capi-gitops-index'), 0o664);
    process.umask(0o077);
    const stage = new OutputStage(out);
    await stage.writeAll([
      ['a/x.yaml', `${GENERATED_COMMENT}kind: X2\n`],
      ['a/new.yaml', 'kind: N\n'],
    ]);
    await stage.commit();
    const mode = (f: string) => (statSync(path.join(out, f)).mode & 0o7777).toString(8);
    assert.deepEqual(
      { x: mode('a/x.yaml'), index: mode('.capi-gitops-index'), created: mode('a/new.yaml') },
      { x: '664', index: '664', created: '600' },
    );
  } finally {
    process.umask(umask);
  }
});

test('an aborted stage leaves the output as it was and nothing beside it; the next write takes the lock', async () => {
  const out = path.join(tempDir(), 'out');
  await writeOutput(out, new Map([['a/x.yaml', 'kind: X\n']]));
  const stage = new OutputStage(out);
  await stage.writeAll([['a/x.yaml', 'kind: X2\n']]);
  await stage.hold('object-1', 'kind: Held\n');
  assert.ok(siblings(out).length > 0);
  await stage.abort();
  assert.deepEqual(siblings(out), []);
  assert.equal(readFileSync(path.join(out, 'a', 'x.yaml'), 'utf8'), 'kind: X\n');
  await writeOutput(out, new Map([['a/x.yaml', 'kind: X3\n']]));
  assert.equal(readFileSync(path.join(out, 'a', 'x.yaml'), 'utf8'), 'kind: X3\n');
});

test('a stage refuses a path outside the output, before anything is written', async () => {
  const out = path.join(tempDir(), 'out');
  const stage = new OutputStage(out);
  await assert.rejects(stage.writeAll([['../escape.yaml', 'kind: X\n']]), /has a "\." or "\.\." segment/);
  await stage.abort();
  assert.deepEqual(siblings(out), []);
});

test('abort waits for the writes under way: none recreates a directory after the stage is removed (an interrupt mid-cluster)', async () => {
  // a slow file system: the write's mkdir lands after abort began, as a signal mid-cluster can have it
  const fsPromises = require('node:fs/promises') as typeof import('node:fs/promises');
  const mkdir = fsPromises.mkdir;
  fsPromises.mkdir = (async (...args: Parameters<typeof mkdir>) => {
    if (String(args[0]).includes('slow')) await new Promise((resolve) => setTimeout(resolve, 50));
    return mkdir(...args);
  }) as typeof mkdir;
  syncBuiltinESMExports();
  try {
    const out = path.join(tempDir(), 'out');
    const stage = new OutputStage(out);
    await stage.write('clusters/c0/kustomization.yaml', 'resources: []\n');
    const writing = stage.write('clusters/slow/kustomization.yaml', 'resources: []\n');
    await stage.abort();
    await writing.catch(() => undefined);
    assert.deepEqual(siblings(out), []);
    await assert.rejects(stage.hold('object-1', 'kind: Held\n'), /committed or aborted already/);
    assert.deepEqual(siblings(out), []);
  } finally {
    fsPromises.mkdir = mkdir;
    syncBuiltinESMExports();
  }
});
