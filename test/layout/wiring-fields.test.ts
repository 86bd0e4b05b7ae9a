/** schema/wiring-fields.json, the field names a wiring chart's objects are checked against, is what the real CRDs declare. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CRDS, PROJECT_ROOT } from '../helpers/paths.js';
import { unknownFields } from '../../src/layout/chart/wiring-fields.js';

test('schema/wiring-fields.json holds the fields of the real Argo CD and Flux CRDs (node scripts/wiring-fields.mjs <crds> writes it)', async () => {
  const { wiringFields } = (await import(path.join(PROJECT_ROOT, 'scripts', 'wiring-fields.mjs'))) as {
    wiringFields: (dir: string) => unknown;
  };
  const committed: unknown = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'schema', 'wiring-fields.json'), 'utf8'));
  assert.deepEqual(committed, wiringFields(CRDS));
});

test('unknownFields: a misspelt field at any depth, list items and maps of any key included; preserved-unknown fields and other kinds pass', () => {
  const app = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'a', anything: 1 },
    spec: {
      source: { repoURL: 'x', path: 'p', helm: { valuesObject: { free: { form: 1 } } } },
      syncPolicy: { syncOptions: ['A=b'], retry: { backof: {} } },
      ignoreDifferences: [{ kind: 'K', jsonPointer: ['/spec'] }],
    },
  };
  assert.deepEqual(
    unknownFields(app).map((u) => u.field),
    [
      ['spec', 'syncPolicy', 'retry', 'backof'],
      ['spec', 'ignoreDifferences', 0, 'jsonPointer'],
    ],
  );
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', data: { x: 'y' }, spce: {} };
  assert.deepEqual(unknownFields(configMap), []);
});
