/**
 * A server on 127.0.0.1 that sends headers and then nothing (slow loris): the run fails within
 * the configured budget, once per file — not once per attempt.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/corpus-manifest.js';
import { CLI, runCli } from '../helpers/cli.js';

const hits: string[] = [];
const stalled = http.createServer((req, res) => {
  hits.push(req.url ?? '');
  res.writeHead(200, { 'content-length': '1000000' });
  res.write('# stalled\n');
});
await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(stalled.address() as AddressInfo).port}`;
after(() => {
  stalled.closeAllConnections();
  stalled.close();
});

function workspace(network = ''): string {
  const dir = tempDir();
  const file = path.join(dir, 'manifest.yaml');
  writeFileSync(
    file,
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  version: v1.12.0\n---\napiVersion: capi-gitops.dev/v1alpha1\nkind: Config\ncertManager:\n  enabled: false\nrepositories:\n- name: cluster-api\n  type: CoreProvider\n  url: ${origin}/capi/{version}/core-components.yaml\n  versions: [v1.12.0]\n${network}`,
  );
  return file;
}

function runAsync(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, CI: 'true' } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** A render of the workspace's manifest into its own output and cache directories. */
function renderIn(manifest: string, ...flags: string[]) {
  const dir = path.dirname(manifest);
  return runAsync(['render', '-f', manifest, '-o', path.join(dir, 'out'), '--cache-dir', path.join(dir, 'cache'), ...flags]);
}

test('--http-timeout: a stalled download fails with a timeout after one attempt per file, not four', async () => {
  hits.length = 0;
  const manifest = workspace();
  const result = await renderIn(manifest, '--http-timeout', '0.5');
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /no complete answer within 500 ms/);
  assert.ok(!/internal error/.test(result.stderr));
  const perFile = new Map<string, number>();
  for (const url of hits) perFile.set(url, (perFile.get(url) ?? 0) + 1);
  assert.ok(perFile.size > 0);
  for (const [url, count] of perFile) assert.equal(count, 1, `${url} was requested ${count} times`);
});

test('Config network.timeoutSeconds sets the same budget; --http-timeout overrides it', async () => {
  hits.length = 0;
  const manifest = workspace('network:\n  timeoutSeconds: 0.3\n  retries: 5\n');
  const result = await renderIn(manifest);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /no complete answer within 300 ms/);
  const overridden = await renderIn(manifest, '--http-timeout', '0.4');
  assert.match(overridden.stderr, /no complete answer within 400 ms/);
});

test('--http-timeout that is not a positive number of seconds is a usage error', async () => {
  for (const bad of ['0', '-1', 'soon', '1e9']) {
    const result = await runCli(['render', '-f', 'x.yaml', '-o', 'out', '--http-timeout', bad]);
    assert.equal(result.code, 2, `${bad}: ${result.stderr}`);
    assert.match(result.stderr, /--http-timeout/);
  }
});
