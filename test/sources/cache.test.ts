import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { serialize } from 'node:v8';
import { pathToFileURL } from 'node:url';
import { ArtifactCache, defaultCacheDir, PARSED_RETENTION_DAYS } from '../../src/sources/cache.js';
import { sha256Hex } from '../../src/core/digest.js';
import { EXAMPLE, runCli } from '../helpers/cli.js';

async function tempDir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'capi-gitops-cache-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Every file under dir but the cache's own .gitignore (its test is below), relative, sorted. */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && !(entry.name === '.gitignore' && (entry.parentPath ?? entry.path) === dir))
    .map((entry) => path.relative(dir, path.join(entry.parentPath ?? entry.path, entry.name)))
    .sort();
}

test('default location: $XDG_CACHE_HOME/capi-gitops, else ~/.cache/capi-gitops; a relative XDG_CACHE_HOME is ignored', () => {
  assert.equal(defaultCacheDir({ XDG_CACHE_HOME: '/var/cache/me' }, '/home/u'), path.join('/var/cache/me', 'capi-gitops'));
  assert.equal(defaultCacheDir({}, '/home/u'), path.join('/home/u', '.cache', 'capi-gitops'));
  assert.equal(defaultCacheDir({ XDG_CACHE_HOME: 'relative/dir' }, '/home/u'), path.join('/home/u', '.cache', 'capi-gitops'));
});

test('blobs are stored under blobs/sha256/<hex> and read back', async (t) => {
  const dir = await tempDir(t);
  const cache = new ArtifactCache(dir);
  const bytes = Buffer.from('kind: Namespace\n');
  const sha256 = await cache.putBlob(bytes);
  assert.equal(sha256, sha256Hex(bytes));
  assert.deepEqual(await listFiles(dir), [path.join('blobs', 'sha256', sha256)]);
  assert.deepEqual(await cache.getBlob(sha256), bytes);
  assert.equal(await cache.getBlob(sha256Hex('never stored')), undefined);
});

test('a blob name must be a sha256 hex digest (no path tricks)', async (t) => {
  const cache = new ArtifactCache(await tempDir(t));
  await assert.rejects(cache.getBlob('../../etc/passwd'), /not a sha256 hex digest/);
  await assert.rejects(cache.getBlob('A'.repeat(64)), /not a sha256 hex digest/);
});

test('a corrupt blob is detected on read, deleted, reported, and is a miss; storing it again heals it', async (t) => {
  const dir = await tempDir(t);
  const lines: string[] = [];
  const cache = new ArtifactCache(dir, { log: (line) => lines.push(line) });
  const bytes = Buffer.from('apiVersion: v1\n');
  const sha256 = await cache.putBlob(bytes);
  await writeFile(cache.blobPath(sha256), 'apiVersion: v2\n');

  assert.equal(await cache.getBlob(sha256), undefined);
  assert.deepEqual(await listFiles(dir), []);
  assert.equal(lines.length, 1);
  assert.match(lines[0], new RegExp(`blob sha256:${sha256} does not match its content`));

  await cache.putBlob(bytes);
  assert.deepEqual(await cache.getBlob(sha256), bytes);
});

test('concurrent writers of the same blob in one process all succeed and leave one intact file', async (t) => {
  const dir = await tempDir(t);
  const cache = new ArtifactCache(dir);
  const bytes = randomBytes(512 * 1024);
  const digests = await Promise.all(Array.from({ length: 16 }, () => new ArtifactCache(dir).putBlob(bytes)));
  assert.ok(digests.every((digest) => digest === sha256Hex(bytes)));
  assert.deepEqual(await listFiles(dir), [path.join('blobs', 'sha256', sha256Hex(bytes))], 'no temporary file is left behind');
  assert.deepEqual(await cache.getBlob(sha256Hex(bytes)), bytes);
});

test('concurrent writers of the same blob in separate processes share the cache safely', async (t) => {
  const dir = await tempDir(t);
  const cacheModule = pathToFileURL(
    path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'src', 'sources', 'cache.js'),
  ).href;
  // Every process writes the same 1 MiB blob 10 times (from a fixed seed) and prints its digest.
  const script = `
    const { ArtifactCache } = await import(${JSON.stringify(cacheModule)});
    const bytes = Buffer.alloc(1024 * 1024, 'capi-gitops');
    const cache = new ArtifactCache(${JSON.stringify(dir)});
    let digest;
    for (let i = 0; i < 10; i++) digest = await cache.putBlob(bytes);
    process.stdout.write(digest);
  `;
  const run = () =>
    new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (chunk) => (out += chunk));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`writer exited with ${code}`))));
    });
  const digests = await Promise.all([run(), run(), run(), run()]);
  const expected = sha256Hex(Buffer.alloc(1024 * 1024, 'capi-gitops'));
  assert.deepEqual(digests, [expected, expected, expected, expected]);
  assert.deepEqual(await listFiles(dir), [path.join('blobs', 'sha256', expected)]);
  assert.equal(sha256Hex(await readFile(new ArtifactCache(dir).blobPath(expected))), expected);
});

test('writes are atomic: a reader racing rewrites of a large entry never sees part of it', async (t) => {
  const dir = await tempDir(t);
  const cache = new ArtifactCache(dir);
  const bytes = randomBytes(4 * 1024 * 1024);
  const file = cache.blobPath(sha256Hex(bytes));
  let writing = true;
  const writer = (async () => {
    for (let i = 0; i < 8; i++) await cache.putBlob(bytes);
    writing = false;
  })();
  const sizes = new Set<number>();
  while (writing) {
    try {
      sizes.add((await readFile(file)).length); // raw read: no hash check to hide a partial file
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  await writer;
  assert.deepEqual(
    [...sizes].filter((size) => size !== bytes.length),
    [],
    'only complete files were ever visible',
  );
});

test('a temporary file left by a crashed writer does not disturb reads or writes', async (t) => {
  const dir = await tempDir(t);
  const cache = new ArtifactCache(dir);
  const bytes = Buffer.from('complete\n');
  const sha256 = sha256Hex(bytes);
  await cache.putBlob(Buffer.from('warm-up'));
  await writeFile(path.join(path.dirname(cache.blobPath(sha256)), `.${sha256}.999.abcdef.tmp`), 'comp');
  assert.equal(await cache.getBlob(sha256), undefined);
  await cache.putBlob(bytes);
  assert.deepEqual(await cache.getBlob(sha256), bytes);
});

test('HTTP records (URL → etag, sha256, replayed headers) round-trip; a malformed one is a miss and is removed', async (t) => {
  const dir = await tempDir(t);
  const lines: string[] = [];
  const cache = new ArtifactCache(dir, { log: (line) => lines.push(line) });
  const url = 'https://api.github.com/repos/kubernetes-sigs/cluster-api/releases?per_page=100';
  const record = { url, etag: 'W/"abc"', sha256: sha256Hex('body'), headers: { link: '<https://api.github.com/x?page=2>; rel="next"' } };
  await cache.putHttpRecord(record);
  assert.deepEqual(await cache.getHttpRecord(url), record);
  assert.equal(await cache.getHttpRecord(`${url}&page=2`), undefined);

  const [file] = (await listFiles(dir)).filter((name) => name.startsWith('http'));
  await writeFile(path.join(dir, file), '{"url": 1');
  assert.equal(await cache.getHttpRecord(url), undefined);
  assert.deepEqual(await listFiles(dir), []);
  assert.match(lines.join('\n'), /not signed by this cache's key.*; removed/);

  await assert.rejects(cache.putHttpRecord({ url, sha256: 'nope' }), /not a sha256 hex digest/);
});

test('the parsed-form store round-trips values under caller-built keys', async (t) => {
  const dir = await tempDir(t);
  const cache = new ArtifactCache(dir);
  const key = `yaml-v1:${sha256Hex('core-components')}`;
  const value = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'capi-system', labels: { a: 'b' } } },
    { n: 1.5, t: true, z: null },
  ];
  await cache.putParsed(key, value);
  assert.deepEqual(await cache.getParsed(key), value);
  assert.equal(await cache.getParsed(`yaml-v2:${sha256Hex('core-components')}`), undefined, 'a new parser version is a miss');

  const [file] = await listFiles(dir);
  await writeFile(path.join(dir, file), 'garbage');
  assert.equal(await cache.getParsed(key), undefined);
  assert.deepEqual(await listFiles(dir), []);
});

test('a parsed entry reads back exactly (non-ASCII text, -0), and an edit of one byte of its serialised value is refused and removed', async (t) => {
  const dir = await tempDir(t);
  const cache = new ArtifactCache(dir, { key: randomBytes(32) });
  const value = [{ description: 'it’s a “quote”, an emoji 🚀, NEL \u0085 and a tab\t', n: 3, zero: -0, nothing: null, list: [true, 1.5] }];
  await cache.putParsed('k', value);
  const read = await cache.getParsed<typeof value>('k');
  assert.deepEqual(read, value);
  assert.ok(Object.is(read![0]!.zero, -0), '-0 stays -0, as the parser gives it');
  const [file] = await listFiles(dir);
  assert.equal(path.join(dir, file!), cache.parsedEntryPath('k'));
  const bytes = await readFile(path.join(dir, file!));
  assert.equal(bytes[64], 0x0a, 'the HMAC line, then the serialised value');
  const edited = Buffer.from(bytes);
  edited[edited.length - 2] ^= 1;
  await writeFile(path.join(dir, file!), edited);
  assert.equal(await cache.getParsed('k'), undefined);
  assert.deepEqual(await listFiles(dir), []);
});

test('a parsed entry stored under another key (hash collision) is not returned', async (t) => {
  const dir = await tempDir(t);
  const cache = new ArtifactCache(dir);
  await cache.putParsed('key-a', 'value-a');
  // Signed for key-a, holding key-b's entry: what a collision of entry names would find.
  await cache.putSignedBytes('parsed', 'key-a', serialize({ key: 'key-b', value: 'value-b' }));
  assert.equal(await cache.getParsed('key-a'), undefined);
});

test('a signed parsed entry that does not deserialise (another V8, a torn write) is a miss, removed and logged', async (t) => {
  const dir = await tempDir(t);
  const logs: string[] = [];
  const cache = new ArtifactCache(dir, { log: (line) => logs.push(line) });
  await cache.putSignedBytes('parsed', 'k', Buffer.from('{"key":"k","value":1}'));
  assert.equal(await cache.getParsed('k'), undefined);
  assert.deepEqual(await listFiles(dir), []);
  assert.match(logs.join('\n'), /parsed entry k is malformed/);
});

test('parsed entries unused for PARSED_RETENTION_DAYS are trimmed once a day (Go build-cache style); a hit keeps an entry; blobs are never trimmed', async (t) => {
  const dir = await tempDir(t);
  const logs: string[] = [];
  const cache = new ArtifactCache(dir, { log: (line) => logs.push(line) });
  const blob = await cache.putBlob(Buffer.from('artifact'));
  for (const key of ['used', 'unused', 'recent']) await cache.putParsed(key, { key });
  const entry = (key: string) => cache.parsedEntryPath(key);
  const day = 24 * 60 * 60 * 1000;
  const now = Date.now();
  const age = (key: string, days: number) => utimes(entry(key), (now - days * day) / 1000, (now - days * day) / 1000);
  await age('used', PARSED_RETENTION_DAYS + 5);
  await age('unused', PARSED_RETENTION_DAYS + 5);
  await age('recent', PARSED_RETENTION_DAYS - 1);
  await utimes(path.join(dir, 'blobs', 'sha256', blob), 0, 0);

  assert.deepEqual(await cache.getParsed('used'), { key: 'used' }, 'a hit refreshes the entry');
  assert.equal(await cache.trimParsed(now), 1);
  assert.equal(await cache.getParsed('unused'), undefined);
  assert.deepEqual(await cache.getParsed('recent'), { key: 'recent' });
  assert.deepEqual(await cache.getParsed('used'), { key: 'used' });
  assert.ok(await cache.getBlob(blob), 'blobs are kept at any age');
  assert.match(logs.join('\n'), new RegExp(`removed 1 parsed entry unused for ${PARSED_RETENTION_DAYS} days`));

  await age('recent', PARSED_RETENTION_DAYS + 1);
  assert.equal(await cache.trimParsed(now + day / 2), 0, 'at most one trim a day');
  assert.equal(await cache.trimParsed(now + day + 1), 1, 'the next day trims again');
  assert.equal(await cache.getParsed('recent'), undefined);
});

test('a temporary file a killed run left in the parsed store is trimmed as an entry would be', async (t) => {
  const dir = await tempDir(t);
  const cache = new ArtifactCache(dir);
  await cache.putParsed('k', { k: 1 });
  const day = 24 * 60 * 60 * 1000;
  const now = Date.now();
  const left = [path.join(dir, 'parsed', 'x.v8.4242.0123456789ab.tmp'), path.join(dir, 'parsed', 'y.v8.4244.0123456789ab.tmp')];
  const fresh = path.join(dir, 'parsed', 'z.v8.4243.0123456789ab.tmp');
  for (const file of [...left, fresh]) await writeFile(file, 'half');
  for (const file of left)
    await utimes(file, (now - (PARSED_RETENTION_DAYS + 1) * day) / 1000, (now - (PARSED_RETENTION_DAYS + 1) * day) / 1000);
  assert.equal(await cache.trimParsed(now), 2);
  const names = await readdir(path.join(dir, 'parsed'));
  assert.ok(!names.some((n) => left.some((file) => file.endsWith(n))), 'the old temporary files are gone');
  assert.ok(names.includes(path.basename(fresh)), 'one a running write may still rename is kept');
  assert.deepEqual(await cache.getParsed('k'), { k: 1 });
});

test('parsed entries an earlier version wrote as JSON are never read, and trimmed as they age', async (t) => {
  const dir = await tempDir(t);
  const cache = new ArtifactCache(dir);
  await cache.putParsed('k', 1);
  const legacy = path.join(dir, 'parsed', `${sha256Hex('k')}.json`);
  await writeFile(legacy, 'an HMAC line\n{"key":"k","value":2}');
  assert.equal(await cache.getParsed('k'), 1);
  const old = (Date.now() - (PARSED_RETENTION_DAYS + 1) * 24 * 60 * 60 * 1000) / 1000;
  await utimes(legacy, old, old);
  assert.equal(await cache.trimParsed(), 1);
  assert.deepEqual(await listFiles(path.join(dir, 'parsed')), ['last-trim', path.basename(cache.parsedEntryPath('k'))].sort());
});

test('trimming a missing parsed store does nothing; a trim that cannot write its marker (a read-only cache) removes nothing and does not fail', async (t) => {
  const dir = await tempDir(t);
  assert.equal(await new ArtifactCache(path.join(dir, 'none')).trimParsed(), 0);
  const cache = new ArtifactCache(dir);
  await cache.putParsed('k', 1);
  // A directory where the marker goes fails the write even for root, as a read-only mount would.
  await mkdir(path.join(dir, 'parsed', 'last-trim'));
  assert.equal(await cache.trimParsed(Date.now() + 365 * 24 * 60 * 60 * 1000), 0);
  assert.equal(await cache.getParsed('k'), 1);
});

test('a cache directory inside a Git work tree ignores itself: git status and git add -A leave it out; a .gitignore already there is kept', async (t) => {
  const repo = await tempDir(t);
  const git = (...args: string[]) => spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
  assert.equal(git('init', '-q').status, 0);
  cpSync(EXAMPLE, path.join(repo, 'examples'), { recursive: true });
  const rendered = await runCli(['render', '-f', 'examples/management-cluster', '-o', 'out', '--cache-dir', '.cache/capi-gitops'], {
    cwd: repo,
  });
  assert.equal(rendered.code, 0, rendered.stderr);
  assert.ok((await listFiles(path.join(repo, '.cache', 'capi-gitops'))).length > 0, 'the run cached its artifacts');
  assert.equal(
    await readFile(path.join(repo, '.cache', 'capi-gitops', '.gitignore'), 'utf8'),
    '# Written by capi-gitops: the artifact cache is never committed.\n*\n',
  );
  assert.equal(git('add', '-A').status, 0);
  const staged = git('diff', '--cached', '--name-only').stdout.split('\n').filter(Boolean);
  assert.ok(staged.some((f) => f.startsWith('out/')));
  assert.deepEqual(
    staged.filter((f) => f.startsWith('.cache/')),
    [],
  );

  const own = await tempDir(t);
  await writeFile(path.join(own, '.gitignore'), 'mine\n');
  await new ArtifactCache(own).putBlob(Buffer.from('x'));
  assert.equal(await readFile(path.join(own, '.gitignore'), 'utf8'), 'mine\n');
});

test('a CAPI_GITOPS_CACHE_KEY too short to be used is said so, never quoted; one long enough signs without a word', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'capi-gitops-cache-'));
  const saved = process.env.CAPI_GITOPS_CACHE_KEY;
  t.after(async () => {
    if (saved === undefined) delete process.env.CAPI_GITOPS_CACHE_KEY;
    else process.env.CAPI_GITOPS_CACHE_KEY = saved;
    await rm(dir, { recursive: true, force: true });
  });
  const record = { url: 'https://example.com/releases', sha256: sha256Hex('body'), etag: '"1"' };
  for (const [key, warned] of [
    ['ci-k3y', true],
    ['a-ci-secret-of-32-characters-abc', false],
  ] as const) {
    process.env.CAPI_GITOPS_CACHE_KEY = key;
    const logs: string[] = [];
    const cache = new ArtifactCache(path.join(dir, key), { log: (line) => logs.push(line) });
    await cache.putHttpRecord(record);
    assert.equal(
      logs.some((line) => /CAPI_GITOPS_CACHE_KEY is shorter than 16 characters, so it is not used/.test(line)),
      warned,
      key,
    );
    assert.ok(!logs.join('\n').includes(key));
  }
});
