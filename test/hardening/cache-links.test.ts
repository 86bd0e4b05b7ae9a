/**
 * The cache is not a way into the user's files (issue 27, class 4). Another account that can
 * write a shared cache (or a pull-request job whose cache a trusted job restores) replaces a store
 * with a link to a project directory, plants links and FIFOs as entries, or shares the cache
 * directory itself. No cache operation may follow a link below the cache directory, and a cache
 * directory another account can write is used read-only (src/sources/cache.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderManagementCluster } from '../../src/app/cluster.js';
import { ArtifactCache, foreignDirectory, PARSED_RETENTION_DAYS } from '../../src/sources/cache.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { exampleCopy } from '../helpers/cli.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const LONG_AGO = Math.floor((Date.now() - (PARSED_RETENTION_DAYS + 16) * DAY_MS) / 1000);

/** A project a developer keeps: package.json and other *.json files, untouched for a month. */
function project(): { dir: string; snapshot: () => Record<string, string> } {
  const dir = tempDir('capi-gitops-victim-');
  const files: Record<string, string> = {
    'package.json': '{"name": "platform-tools", "private": true}\n',
    'tsconfig.json': '{"compilerOptions": {"strict": true}}\n',
    'renovate.json': '{"extends": ["config:recommended"]}\n',
    'notes.v8': 'not a cache entry\n',
  };
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(path.join(dir, name), text);
    utimesSync(path.join(dir, name), LONG_AGO, LONG_AGO);
  }
  const snapshot = () => Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(path.join(dir, name), 'utf8')]));
  return { dir, snapshot };
}

async function renderExample(cache: ArtifactCache): Promise<void> {
  const manifest = path.join(exampleCopy(), 'management-cluster');
  const { files } = await renderManagementCluster({ manifestPaths: [manifest], command: 'capi-gitops render', sources: { cache } });
  assert.ok(files.size > 0);
}

test("a shared cache whose parsed and output stores another account replaced with links to a project: a render neither trims nor writes the project's files", async () => {
  const victim = project();
  const before = victim.snapshot();
  const cacheDir = path.join(tempDir('capi-gitops-shared-cache-'), 'cache');
  mkdirSync(cacheDir, { mode: 0o755 });
  symlinkSync(victim.dir, path.join(cacheDir, 'parsed'));
  symlinkSync(victim.dir, path.join(cacheDir, 'output'));
  const logs: string[] = [];
  const cache = new ArtifactCache(cacheDir, { log: (line) => logs.push(line) });
  await renderExample(cache);
  assert.equal(await cache.trimParsed(Date.now() + 2 * DAY_MS), 0);
  assert.deepEqual(victim.snapshot(), before, "the project's files changed, or a cache entry was written among them");
  assert.equal(statSync(path.join(victim.dir, 'package.json')).mtimeMs, LONG_AGO * 1000);
  assert.ok(
    logs.some(
      (line) =>
        line ===
        `cache: ${path.join(cacheDir, 'parsed')} is a symbolic link; the cache does not follow it: nothing there is read, written or removed (remove it to cache there again)`,
    ),
    logs.join('\n'),
  );
});

test('entries planted as links and FIFOs are not followed: a link is a miss and is removed (never its target), a FIFO does not block the run, a linked trim marker is replaced', async () => {
  const victim = project();
  const before = victim.snapshot();
  const cacheDir = tempDir('capi-gitops-planted-');
  const logs: string[] = [];
  const cache = new ArtifactCache(cacheDir, { log: (line) => logs.push(line), key: Buffer.alloc(32, 7) });
  await cache.putParsed('linked', [1]);
  await cache.putParsed('fifo', [2]);
  const linked = cache.parsedEntryPath('linked');
  const fifo = cache.parsedEntryPath('fifo');
  writeFileSync(linked, ''); // replaced below by the link
  spawnSync('rm', ['-f', linked, fifo]);
  symlinkSync(path.join(victim.dir, 'package.json'), linked);
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
  symlinkSync(path.join(victim.dir, 'tsconfig.json'), path.join(cacheDir, 'parsed', 'last-trim'));
  symlinkSync(path.join(victim.dir, 'renovate.json'), path.join(cacheDir, 'parsed', 'old-entry.v8'));

  assert.equal(await cache.getParsed('linked'), undefined);
  assert.equal(await cache.getParsed('fifo'), undefined);
  assert.equal(await cache.trimParsed(), 0, 'a planted link is not an entry to trim');
  await cache.putParsed('linked', [3]);
  assert.deepEqual(await cache.getParsed('linked'), [3]);
  assert.deepEqual(victim.snapshot(), before);
  assert.ok(statSync(path.join(cacheDir, 'parsed', 'last-trim')).isFile(), 'the marker is a file of the cache again');
  assert.match(logs.join('\n'), /parsed\/[0-9a-f]{64}\.v8 is a symbolic link; removed/);
  assert.match(logs.join('\n'), /parsed\/[0-9a-f]{64}\.v8 is not a regular file; removed/);
});

test('a cache directory writable by every account is used read-only with a warning: nothing is written, refreshed or removed', async () => {
  const cacheDir = tempDir('capi-gitops-world-writable-');
  const filled = new ArtifactCache(cacheDir);
  await filled.putParsed('old', [1]);
  utimesSync(filled.parsedEntryPath('old'), LONG_AGO, LONG_AGO);
  chmodSync(cacheDir, 0o777);
  const listing = () => readdirSync(cacheDir, { recursive: true }).map(String).sort();
  const before = listing();
  const logs: string[] = [];
  const cache = new ArtifactCache(cacheDir, { log: (line) => logs.push(line) });
  await renderExample(cache);
  assert.equal(await cache.trimParsed(), 0);
  assert.deepEqual(listing(), before, 'the render wrote into a cache others can write');
  assert.equal(statSync(filled.parsedEntryPath('old')).mtimeMs, LONG_AGO * 1000);
  assert.equal(logs.filter((line) => line.includes('is used read-only')).length, 1, logs.join('\n'));
  assert.match(logs.join('\n'), /is writable by every account, so it is used read-only \(nothing is written, refreshed or removed\)/);
});

test('who may write a cache directory: the user alone (and a per-user group); another owner, everyone, or a shared group make it read-only', () => {
  const uid = process.getuid!();
  const gid = process.getgid!();
  assert.equal(foreignDirectory({ uid, gid, mode: 0o40755 }), undefined);
  assert.equal(foreignDirectory({ uid, gid, mode: 0o40775 }), undefined, "the user's own group (Debian's per-user groups)");
  assert.equal(foreignDirectory({ uid, gid: gid + 1, mode: 0o42775 }), `is writable by group ${gid + 1}`);
  assert.equal(foreignDirectory({ uid, gid, mode: 0o41777 }), 'is writable by every account');
  assert.equal(foreignDirectory({ uid: uid + 1, gid, mode: 0o40755 }), `is owned by another account (uid ${uid + 1})`);
});

test(
  'a cache directory owned by another account is used read-only (a real chown)',
  { skip: process.getuid?.() !== 0 ? 'giving a directory another owner needs root' : false },
  async () => {
    const cacheDir = tempDir('capi-gitops-foreign-');
    chownSync(cacheDir, 65534, 65534);
    const logs: string[] = [];
    const cache = new ArtifactCache(cacheDir, { log: (line) => logs.push(line) });
    await cache.putParsed('k', [1]);
    assert.deepEqual(readdirSync(cacheDir), []);
    assert.match(logs.join('\n'), /is owned by another account \(uid 65534\), so it is used read-only/);
  },
);
