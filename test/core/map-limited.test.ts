import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mapLimited } from '../../src/core/map-limited.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

test('mapLimited keeps the items order and never has more than the limit in flight', async () => {
  let inFlight = 0;
  let most = 0;
  const results = await mapLimited([5, 1, 4, 2, 3], 2, async (n) => {
    most = Math.max(most, ++inFlight);
    for (let i = 0; i < n; i++) await tick();
    inFlight--;
    return n * 10;
  });
  assert.deepEqual(results, [50, 10, 40, 20, 30]);
  assert.equal(most, 2);
});

test('after a failure mapLimited starts no item, and throws only once the calls in flight have ended (the output writer cleans up after it)', async () => {
  const started: number[] = [];
  let ended = 0;
  const error = await mapLimited([0, 1, 2, 3, 4, 5], 2, async (n) => {
    started.push(n);
    if (n === 1) throw new Error('disk full');
    for (let i = 0; i < 3; i++) await tick();
    ended++;
  }).catch((err: unknown) => err);
  assert.equal((error as Error).message, 'disk full');
  assert.deepEqual(started, [0, 1]);
  assert.equal(ended, 1, 'item 0 finished before the failure was thrown');
});

test('mapLimited runs beforeEach before each item, and its throw stops the work (a signal)', async () => {
  let calls = 0;
  const error = await mapLimited(
    [1, 2, 3],
    1,
    async () => undefined,
    () => {
      if (++calls === 2) throw new Error('interrupted');
    },
  ).catch((err: unknown) => err);
  assert.equal((error as Error).message, 'interrupted');
  assert.equal(calls, 2);
});
