import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeOutput } from '../../src/output/encoded-output.js';
import { sha256Hex } from '../../src/core/digest.js';

test('each file is encoded as UTF-8 once, with the sha256 the ownership index writes; a text in several files is encoded once', () => {
  const files = new Map([
    ['a/x.yaml', 'kind: ConfigMap # é 😀\n'],
    ['b/x.yaml', 'kind: ConfigMap # é 😀\n'],
    ['c.yaml', ''],
  ]);
  const { bytes, digests } = encodeOutput(files);
  for (const [file, text] of files) {
    assert.deepEqual(bytes.get(file), Buffer.from(text, 'utf8'), file);
    assert.equal(digests.get(file), sha256Hex(text), file);
  }
  assert.equal(bytes.get('a/x.yaml'), bytes.get('b/x.yaml'));
});
