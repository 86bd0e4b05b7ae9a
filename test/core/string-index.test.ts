/** StringIndex: what it finds in a text is what searching for each string in turn finds, longest first. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StringIndex } from '../../src/core/string-index.js';

test('the strings a text holds, longest first; short ones and ones sharing a start included; none when the index is empty', () => {
  const index = new StringIndex();
  assert.deepEqual(index.foundIn('anything'), []);
  for (const s of ['abc', 'token-1', 'token-12', 'absent', 'xy']) index.add(s);
  assert.deepEqual(index.foundIn('a token-12 and abc, xy'), ['token-12', 'token-1', 'abc', 'xy']);
  assert.deepEqual(index.foundIn('tok'), []);
});

test('a string added after a search is found by the next; clear forgets every string', () => {
  const index = new StringIndex();
  index.add('first-value');
  assert.deepEqual(index.foundIn('second-value'), []);
  index.add('second-value');
  assert.deepEqual(index.foundIn('first-value second-value'), ['second-value', 'first-value']);
  index.clear();
  assert.deepEqual(index.foundIn('first-value second-value'), []);
});
