import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { threadId } from 'node:worker_threads';
import { CapiGitopsError } from '../src/model/diagnostics.js';
import type { Diagnostic } from '../src/model/diagnostics.js';
import { parseArtifact } from '../src/yaml/parse.js';
import { parseArtifactsParallel, INLINE_PARSE_CHARS, PARALLEL_FROM_CHARS } from '../src/yaml/parse-pool.js';
import type { ParsedEvent, ParseInput } from '../src/yaml/parse-pool.js';
import { CORPUS_REPOSITORY } from './helpers/paths.js';

const corpus = (rel: string): ParseInput => ({ text: fs.readFileSync(path.join(CORPUS_REPOSITORY, rel), 'utf8'), source: rel });

const inputs: ParseInput[] = [
  { text: 'a: 1\n', source: 'tiny.yaml' },
  corpus('cluster-api/v1.12.0/core-components.yaml'),
  corpus('cert-manager/v1.13.0/cert-manager.yaml'),
  { text: 'b: 2\n---\nc: 3\n', source: 'two.yaml' },
  corpus('bootstrap-kubeadm/v1.12.0/bootstrap-components.yaml'),
];
const sequential = inputs.map((i) => parseArtifact(i.text, { source: i.source }));
/** Forces workers for every input, whatever its size. */
const FORCE_WORKERS = { threads: 3, inlineBelowChars: 0, parallelFromChars: 0 };

async function diagnosticsOf(promise: Promise<unknown>): Promise<Diagnostic[]> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof CapiGitopsError, String(e));
    return e.diagnostics;
  }
  return assert.fail('expected a CapiGitopsError');
}

function inlineDiagnostics(input: ParseInput): Diagnostic[] {
  try {
    parseArtifact(input.text, { source: input.source, maxBytes: input.maxBytes });
  } catch (e) {
    assert.ok(e instanceof CapiGitopsError);
    return e.diagnostics;
  }
  return assert.fail('expected an error');
}

test('thresholds: small inputs inline, workers only for large totals', () => {
  assert.equal(INLINE_PARSE_CHARS, 256 * 1024);
  assert.ok(PARALLEL_FROM_CHARS > 4 * 1024 * 1024);
});

test('by default the released artifacts of one render are parsed on the main thread, in input order', async () => {
  const events: ParsedEvent[] = [];
  const results = await parseArtifactsParallel(inputs, { onParsed: (e) => events.push(e) });
  assert.deepStrictEqual(results, sequential);
  assert.equal(events.length, inputs.length);
  assert.ok(events.every((e) => e.threadId === threadId));
});

test('with workers forced, results are the same and keep the input order', async () => {
  const events: ParsedEvent[] = [];
  const results = await parseArtifactsParallel(inputs, { ...FORCE_WORKERS, onParsed: (e) => events.push(e) });
  assert.deepStrictEqual(results, sequential);
  assert.deepStrictEqual(events.map((e) => e.index).sort(), [0, 1, 2, 3, 4]);
});

test('workers load from the compiled layout and parse what the main thread leaves them', async () => {
  const events: ParsedEvent[] = [];
  const results = await parseArtifactsParallel(inputs, { ...FORCE_WORKERS, mainThreadHelps: false, onParsed: (e) => events.push(e) });
  assert.deepStrictEqual(results, sequential);
  assert.equal(events.length, inputs.length);
  assert.ok(events.every((e) => e.threadId !== threadId), 'an input was parsed on the main thread');
  assert.ok(new Set(events.map((e) => e.threadId)).size <= 2, 'more workers than threads - 1');
});

test('the pool never uses more threads than inputs or than asked for', async () => {
  const events: ParsedEvent[] = [];
  await parseArtifactsParallel(inputs, { threads: 2, inlineBelowChars: 0, parallelFromChars: 0, onParsed: (e) => events.push(e) });
  assert.ok(new Set(events.map((e) => e.threadId)).size <= 2);
  const single: ParsedEvent[] = [];
  await parseArtifactsParallel(inputs.slice(0, 1), { ...FORCE_WORKERS, onParsed: (e) => single.push(e) });
  assert.deepStrictEqual(single.map((e) => e.threadId), [threadId]);
  assert.deepStrictEqual(await parseArtifactsParallel([]), []);
});

test('CapiGitopsError diagnostics from workers arrive intact, from every failing input', async () => {
  const bad: ParseInput[] = [
    { text: 'a: 1\nb: &x 2\n', source: 'anchor.yaml' },
    { text: 'ok: 1\n', source: 'fine.yaml' },
    { text: 'a: ' + 'x'.repeat(200) + '\n', source: 'big.yaml', maxBytes: 100 },
    { text: 'a:\n  b: 1\n c: 2\n', source: 'indent.yaml' },
  ];
  const expected = bad.filter((b) => b.source !== 'fine.yaml').flatMap(inlineDiagnostics);
  const viaWorkers = await diagnosticsOf(parseArtifactsParallel(bad, FORCE_WORKERS));
  const inline = await diagnosticsOf(parseArtifactsParallel(bad));
  assert.deepStrictEqual(new Set(viaWorkers.map((d) => JSON.stringify(d))), new Set(expected.map((d) => JSON.stringify(d))));
  assert.deepStrictEqual(viaWorkers, inline);
  const anchor = viaWorkers.find((d) => d.file === 'anchor.yaml')!;
  assert.equal(anchor.line, 2);
  assert.equal(anchor.column, 4);
  assert.ok(anchor.hint);
  assert.ok(viaWorkers.some((d) => d.file === 'big.yaml' && /100-byte limit/.test(d.message)));
});

test('a process that used the pool exits on its own (workers are terminated and unref\'d)', () => {
  const pool = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'yaml', 'parse-pool.js');
  const script = `
    const { parseArtifactsParallel } = await import(${JSON.stringify(pool)});
    const inputs = [{ text: 'a: 1\\n', source: 'a' }, { text: 'b: 2\\n', source: 'b' }, { text: 'c: 3\\n', source: 'c' }];
    const r = await parseArtifactsParallel(inputs, { threads: 3, inlineBelowChars: 0, parallelFromChars: 0, mainThreadHelps: false });
    console.log(JSON.stringify(r));
    await parseArtifactsParallel([{ text: 'x: &a 1\\n', source: 'bad' }, { text: 'y: 1\\n', source: 'ok' }], { threads: 2, inlineBelowChars: 0, parallelFromChars: 0, mainThreadHelps: false }).catch(() => console.log('failed as expected'));
  `;
  // The timeout only guards against a hang; the assertion is about the exit status.
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT; // the child is a plain script, not a test
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000, env });
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout, '[[{"a":1}],[{"b":2}],[{"c":3}]]\nfailed as expected\n');
});
