import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readTreeObjects } from '../../src/review/objects.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';

const BROKEN = 'kind: ConfigMap\nmetadata:\n  name: [a\n';

test('a tree with several files that no longer parse: every file is told in one run, read from a directory or not', () => {
  const files = new Map([
    ['a/configmap-x.yaml', BROKEN],
    ['b/configmap-y.yaml', BROKEN],
  ]);
  for (const directory of [undefined, 'out']) {
    let error: unknown;
    try {
      readTreeObjects(files, directory);
    } catch (err) {
      error = err;
    }
    assert.ok(error instanceof CapiGitopsError, String(error));
    const prefix = directory ? `${directory}/` : '';
    assert.deepEqual([...new Set(error.diagnostics.map((d) => d.file))], [`${prefix}a/configmap-x.yaml`, `${prefix}b/configmap-y.yaml`]);
  }
});
