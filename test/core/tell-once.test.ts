/** `tellOnce`: one problem that several objects meet is told once, naming each; others are kept apart. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tellOnce, type Diagnostic } from '../../src/core/diagnostics.js';

const at = (object: string, line: number, message = 'the value breaks the YAML'): Diagnostic => ({
  file: 'm.yaml',
  line,
  column: 3,
  object,
  message,
});

test('the same problem at the same place is told once, naming each object in order of position', () => {
  assert.deepEqual(tellOnce([at('B', 4), at('A', 4), at('C', 9)]), [{ ...at('B', 4), object: 'B, A' }, at('C', 9)]);
});

test('the same message at two fields stays two problems unless the caller says the position is not the field', () => {
  const list = [at('B', 9), at('A', 4)];
  assert.deepEqual(tellOnce(list), list);
  assert.deepEqual(
    tellOnce(list, (d) => [d.message]),
    [{ ...at('A', 4), object: 'A, B' }],
  );
});

test('different messages are never merged', () => {
  const list = [at('A', 4, 'one'), at('B', 4, 'two')];
  assert.deepEqual(tellOnce(list), list);
});
