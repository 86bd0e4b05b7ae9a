/**
 * The cache as an attacker with write access to it (a pull-request job sharing CI's cache) and
 * as a broken environment (no writable cache) would meet it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { tempDir } from '../helpers/corpus-manifest.js';
import { readTree } from '../helpers/tree.js';
import { assertNoStackTrace, exampleCopy, runCli } from '../helpers/cli.js';

function parsedEntries(cacheDir: string): string[] {
  const dir = path.join(cacheDir, 'parsed');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.v8'))
    .map((name) => path.join(dir, name));
}

/** Rewrites a parsed entry's value with one more label on every object, keeping its HMAC line. */
function tamper(file: string): void {
  const bytes = readFileSync(file);
  const entry = deserialize(bytes.subarray(65)) as { key: string; value: Array<{ metadata?: { labels?: Record<string, string> } }> };
  for (const object of entry.value) if (object.metadata) object.metadata.labels = { ...object.metadata.labels, injected: 'by-attacker' };
  writeFileSync(file, Buffer.concat([bytes.subarray(0, 65), serialize(entry)]));
}

test('a tampered parsed-form cache entry is detected and discarded: --frozen output keeps its bytes', async () => {
  const example = exampleCopy();
  const cache = path.join(tempDir(), 'cache');
  const out = path.join(tempDir(), 'out');
  const manifest = path.join(example, 'management-cluster');
  const first = await runCli(['render', '-f', manifest, '-o', out, '--cache-dir', cache]);
  assert.equal(first.code, 0, first.stderr);
  const before = readTree(out);
  const entries = parsedEntries(cache);
  assert.ok(entries.length > 0, 'the render filled the parsed-form cache');
  for (const file of entries) tamper(file);

  const second = await runCli(['render', '-f', manifest, '-o', out, '--cache-dir', cache, '--frozen']);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /0 written/);
  assert.deepEqual(readTree(out), before, 'the tampered entry changed the output');
  assert.ok(![...readTree(out).values()].some((text) => text.includes('by-attacker')));
  assert.match(second.stderr, /not signed by this cache's key/);
});

test('an entry signed under another key (another runner, another user) is a miss, not trusted', async () => {
  const example = exampleCopy();
  const cache = path.join(tempDir(), 'cache');
  const manifest = path.join(example, 'management-cluster');
  const attackerState = tempDir();
  // The attacker renders with a key of their own (the first run makes it, the second stores
  // parsed forms under it), then tampers with the entries.
  for (let run = 0; run < 2; run++) {
    const attacker = await runCli(['render', '-f', manifest, '-o', path.join(tempDir(), 'out'), '--cache-dir', cache], {
      env: { ...process.env, XDG_STATE_HOME: attackerState },
    });
    assert.equal(attacker.code, 0, attacker.stderr);
  }
  for (const file of parsedEntries(cache)) tamper(file);
  const out = path.join(tempDir(), 'out');
  const victim = await runCli(['render', '-f', manifest, '-o', out, '--cache-dir', cache]);
  assert.equal(victim.code, 0, victim.stderr);
  assert.ok(![...readTree(out).values()].some((text) => text.includes('by-attacker')));
});

test('an unwritable cache is a warning, not a crash: --cache-dir naming a file, XDG_CACHE_HOME through a file, a key file that cannot be made', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const scratch = tempDir();
  const file = path.join(scratch, 'a-file');
  writeFileSync(file, 'not a directory\n');
  const reference = path.join(tempDir(), 'out');
  assert.equal((await runCli(['render', '-f', manifest, '-o', reference])).code, 0);
  const cases: Array<{ args: string[]; env: NodeJS.ProcessEnv }> = [
    { args: ['--cache-dir', file], env: process.env },
    { args: ['--cache-dir', path.join(file, 'cache')], env: process.env },
    { args: [], env: { ...process.env, XDG_CACHE_HOME: path.join(file, 'below') } },
    {
      args: [],
      env: {
        ...process.env,
        XDG_CACHE_HOME: path.join(file, 'below'),
        XDG_STATE_HOME: path.join(file, 'state'),
        HOME: path.join(file, 'home'),
      },
    },
  ];
  for (const { args, env } of cases) {
    const out = path.join(tempDir(), 'out');
    const result = await runCli(['render', '-f', manifest, '-o', out, ...args], { env });
    assertNoStackTrace(result);
    assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, /warning: cache: cannot (write|read)/);
    assert.deepEqual(readTree(out).get('kustomization.yaml'), readTree(reference).get('kustomization.yaml'));
  }
  mkdirSync(path.join(scratch, 'unused'));
});
