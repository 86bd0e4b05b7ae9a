import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SCHEMA_PATH } from '../helpers/paths.js';
import { compileDocumentValidator } from '../../src/manifest/schema-compile.js';
import { PRECOMPILED_VALIDATOR } from '../../src/manifest/schema-options.js';

const precompiledPath = fileURLToPath(new URL(`../../src/manifest/${PRECOMPILED_VALIDATOR}`, import.meta.url));

test('the build precompiles the manifest schema, and the precompiled validator agrees with a fresh compile', () => {
  assert.ok(existsSync(precompiledPath), 'npm run build did not write the precompiled validator');
  const precompiled = createRequire(import.meta.url)(precompiledPath) as ((value: unknown) => boolean) & { rootSchema: unknown };
  const root = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8'));
  // the run reads the schema's titles and descriptions from the validator's copy
  assert.deepEqual(precompiled.rootSchema, root);
  const fresh = compileDocumentValidator(root);
  const provider = (spec: unknown) => ({
    apiVersion: 'operator.cluster.x-k8s.io/v1alpha2',
    kind: 'CoreProvider',
    metadata: { name: 'cluster-api', namespace: 'capi-system' },
    spec,
  });
  const samples = [
    provider({ version: 'v1.12.0' }),
    provider({ versoin: 'v1.12.0' }),
    provider({ manager: { maxConcurrentReconciles: 0 } }),
    provider({ manager: { webhook: { port: 2 ** 31 } } }),
    provider({ manager: { controller: { cacheSyncTimeout: 2 ** 60 } } }),
    { apiVersion: 'capi-gitops.dev/v1alpha1', kind: 'Config', images: { all: { repository: 'm.example' } } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'n' }, stringData: { A: 'b' } },
  ];
  for (const sample of samples) {
    const a = structuredClone(sample);
    const b = structuredClone(sample);
    const okPrecompiled = precompiled(a);
    assert.equal(okPrecompiled, fresh(b), JSON.stringify(sample));
    assert.deepEqual(a, b, 'defaults applied differently');
    assert.deepEqual((precompiled as any).errors ?? null, fresh.errors ?? null, JSON.stringify(sample));
  }
});
