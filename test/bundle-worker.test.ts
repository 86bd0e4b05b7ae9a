/**
 * The single-file bundle is also its own YAML parse worker (src/cli/bundle-main.ts): the worker
 * pool starts the bundle with this workerData instead of a parse-worker.js the bundle lacks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CLI_ENTRY_POINTS } from './helpers/cli.js';
import type { ParseReply } from '../src/yaml/parse-pool.js';

test('the bundle started as a worker parses what the pool sends it and posts back the objects', { timeout: 120_000 }, async () => {
  const worker = new Worker(pathToFileURL(CLI_ENTRY_POINTS.bundle), { workerData: 'capi-gitops-parse-worker', execArgv: [] });
  try {
    const [ready] = (await once(worker, 'message')) as [{ ready: boolean }];
    assert.deepEqual(ready, { ready: true });
    worker.postMessage({ id: 7, source: 'components.yaml', text: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: b\n' });
    const [reply] = (await once(worker, 'message')) as [ParseReply];
    assert.equal(reply.id, 7);
    assert.ok(reply.ok, JSON.stringify(reply));
    assert.deepEqual(reply.ok && reply.objects.map((o) => `${o.kind}/${o.metadata?.name}`), ['ConfigMap/a', 'Namespace/b']);
    worker.postMessage({ id: 8, source: 'broken.yaml', text: 'kind: [\n' });
    const [failed] = (await once(worker, 'message')) as [ParseReply];
    assert.ok(!failed.ok && 'diagnostics' in failed && failed.diagnostics[0].file === 'broken.yaml', JSON.stringify(failed));
  } finally {
    await worker.terminate();
  }
});
