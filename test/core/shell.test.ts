import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shellWord, shellWords } from '../../src/core/shell.js';

test('shellWords reads back the words shellWord wrote: spaces, quotes and empty words', () => {
  const words = ['capi-gitops', 'render', '-f', 'my manifests/a.yaml', '--set', "name=it's", '', '-o', 'out'];
  assert.deepEqual(shellWords(words.map(shellWord).join(' ')), words);
});
