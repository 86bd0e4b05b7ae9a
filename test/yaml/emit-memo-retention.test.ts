/**
 * The emitter's process-wide memo of words keeps a copy of each word, not the word itself: a word
 * parsed from a text is a slice that keeps the whole text alive, and a fleet parses each cluster's
 * substituted artifact (2.8 MB of the corpus's core components) anew, so the memo kept every
 * cluster's text (a 200-cluster full-layout render ran out of a 400 MB heap).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { emitYamlDocument } from '../../src/yaml/emit.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

test("words the emitter remembers do not keep the texts they were sliced from (a fleet's substituted artifacts)", () => {
  const texts = 40;
  const before = heapAfterGc();
  for (let i = 0; i < texts; i++) {
    // a 2 MB text per cluster, each with a word of its own
    const text = `${'x'.repeat(2_000_000)} capi-cluster-word-${String(i).padStart(4, '0')} `;
    const word = text.slice(2_000_001, text.indexOf(' ', 2_000_001));
    assert.equal(emitYamlDocument({ name: word }), `name: ${word}\n`);
  }
  const retained = heapAfterGc() - before;
  assert.ok(retained < 20_000_000, `${(retained / 1e6).toFixed(0)} MB retained after ${texts} texts of 2 MB`);
});
