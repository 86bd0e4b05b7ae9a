/**
 * The run's network deadline (`--network-deadline`), against real servers on 127.0.0.1: one that
 * accepts connections and never answers, one that answers 503 forever. The run ends when the
 * budget does, exit 1, with a message naming the host and the deadline and never the token,
 * however many retries are allowed, on the GitHub API (octokit) and on a plain HTTPS template.
 * No timing is asserted: the servers count the attempts.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/corpus-manifest.js';
import { CLI } from '../helpers/cli.js';

const TOKEN = 'ghp_deadlineTestToken0123456789abcdefABCD';

/** Accepts, reads the request line, and never answers. */
const requestLines: string[] = [];
const sockets = new Set<net.Socket>();
const hanging = net.createServer((socket) => {
  sockets.add(socket);
  socket.once('data', (chunk) => requestLines.push(chunk.toString('latin1').split('\r\n')[0]));
  socket.on('error', () => undefined);
  socket.on('close', () => sockets.delete(socket));
});
await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
const hangingOrigin = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;

/** 503 to everything, forever. */
const failures: string[] = [];
const failing = http.createServer((req, res) => {
  failures.push(`${req.method} ${req.url}`);
  res.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"Service Unavailable"}');
});
await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
const failingOrigin = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;

after(() => {
  for (const socket of sockets) socket.destroy();
  hanging.close();
  failing.closeAllConnections();
  failing.close();
});

const GITHUB_URL = 'https://github.com/kubernetes-sigs/cluster-api/releases/latest/core-components.yaml';

/** A CoreProvider v1.12.0 served from `url`, with Config `network.retries` at its most (10), more than the budget allows. */
function workspace(url: string, listing = ''): string {
  const dir = tempDir();
  const file = path.join(dir, 'manifest.yaml');
  writeFileSync(
    file,
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  version: v1.12.0\n---\napiVersion: capi-gitops.dev/v1alpha1\nkind: Config\ncertManager:\n  enabled: false\nnetwork:\n  retries: 10\nrepositories:\n- name: cluster-api\n  type: CoreProvider\n  url: ${url}\n${listing}`,
  );
  return file;
}

function render(
  manifest: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string; out: string }> {
  const dir = path.dirname(manifest);
  const out = path.join(dir, 'out');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'render', '-f', manifest, '-o', out, '--cache-dir', path.join(dir, 'cache'), ...args], {
      env: { ...process.env, CI: 'true', GITHUB_TOKEN: '', GH_TOKEN: '', ...env },
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stderr, out }));
  });
}

/** Requests per distinct request line. */
function perRequest(lines: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
  return counts;
}

function assertDeadlineFailure(
  result: { code: number | null; stderr: string; out: string },
  host: string,
  setting = '1 s, --network-deadline',
): void {
  assert.equal(result.code, 1, result.stderr);
  assert.ok(result.stderr.includes(`the network deadline of this run (${setting}) was reached`), result.stderr);
  assert.ok(result.stderr.includes(host), `the message names ${host}: ${result.stderr}`);
  assert.match(result.stderr, /hint: raise --network-deadline/);
  assert.ok(!result.stderr.includes(TOKEN) && !result.stderr.includes(TOKEN.slice(4, 20)), 'the token is not printed');
  assert.ok(!/internal error|\n\s+at /.test(result.stderr), 'no stack trace');
  assert.ok(!existsSync(result.out), 'nothing was written');
}

test('GitHub API on a server that accepts and never answers: one attempt per request, then the run deadline ends the run, not timeout × retries', async () => {
  requestLines.length = 0;
  const manifest = workspace(GITHUB_URL);
  const result = await render(manifest, ['--github-api-url', hangingOrigin, '--http-timeout', '60', '--network-deadline', '2'], {
    GITHUB_TOKEN: TOKEN,
  });
  assertDeadlineFailure(result, new URL(hangingOrigin).host, '2 s, --network-deadline');
  const counts = perRequest(requestLines);
  assert.ok(counts.size > 0, 'the API was asked');
  for (const [line, count] of counts) {
    assert.match(line, /^GET \/repos\/kubernetes-sigs\/cluster-api\/releases/);
    assert.equal(count, 1, `${line} was sent ${count} times: a hanging attempt spends the budget, it is not retried`);
  }
});

test('GitHub API answering 503 forever: retried with backoff until the run deadline, however many retries are allowed', async () => {
  failures.length = 0;
  const manifest = workspace(GITHUB_URL);
  const result = await render(manifest, ['--github-api-url', failingOrigin, '--network-deadline', '1'], { GITHUB_TOKEN: TOKEN });
  assertDeadlineFailure(result, new URL(failingOrigin).host);
  assert.match(result.stderr, /last: HTTP 503/);
  const counts = perRequest(failures);
  assert.ok(counts.size > 0);
  // Backoff waits at least 250, 500, then 1000 ms (equal jitter on 500 ms · 2^n), so a 1 s
  // budget holds at most 3 attempts of a request, of the 10 retries allowed.
  for (const [line, count] of counts) assert.ok(count >= 1 && count <= 3, `${line} was sent ${count} times`);
});

test('a plain HTTPS template on a server that never answers ends at the deadline set by CAPI_GITOPS_NETWORK_DEADLINE', async () => {
  requestLines.length = 0;
  const manifest = workspace(`${hangingOrigin}/capi/{version}/core-components.yaml`, '  versions: [v1.12.0]\n');
  const result = await render(manifest, [], { CAPI_GITOPS_NETWORK_DEADLINE: '2.5' });
  assertDeadlineFailure(result, new URL(hangingOrigin).host, '2.5 s, CAPI_GITOPS_NETWORK_DEADLINE');
  const counts = perRequest(requestLines);
  assert.ok(counts.size > 0);
  for (const [line, count] of counts) assert.equal(count, 1, `${line} was sent ${count} times`);
});

test('a plain HTTPS template on a slow server: --http-timeout ends the request, and its hint, raising --http-timeout, followed literally renders', async () => {
  const slow = http.createServer((req, res) => {
    const body = req.url?.endsWith('metadata.yaml')
      ? 'apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: 12\n  contract: v1beta2\n'
      : 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: capi-system\n';
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end(body), 1500);
  });
  await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
  try {
    const origin = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    const manifest = workspace(`${origin}/capi/{version}/core-components.yaml`, '  versions: [v1.12.0]\n');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('  retries: 10\n', '  retries: 0\n'));
    const failed = await render(manifest, ['--http-timeout', '0.2']);
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(failed.stderr, /no complete answer within 200 ms/);
    assert.match(failed.stderr, /hint: raise --http-timeout \(or Config network\.timeoutSeconds\) on a slow network/);
    assert.ok(!/internal error|\n\s+at /.test(failed.stderr), 'no stack trace');
    const raised = await render(manifest, ['--http-timeout', '30']);
    assert.equal(raised.code, 0, raised.stderr);
  } finally {
    slow.closeAllConnections();
    slow.close();
  }
});

test('--network-deadline that is not a positive number of seconds is a usage error', async () => {
  for (const bad of ['0', '-1', 'soon']) {
    const result = await render(workspace(GITHUB_URL), ['--network-deadline', bad]);
    assert.equal(result.code, 2, `${bad}: ${result.stderr}`);
    assert.match(result.stderr, /--network-deadline/);
  }
});

test('CAPI_GITOPS_NETWORK_DEADLINE that is not a number of seconds is a usage error whose example is a variable assignment, as a shell takes it', async () => {
  const result = await render(workspace(GITHUB_URL), [], { CAPI_GITOPS_NETWORK_DEADLINE: 'soon' });
  assert.equal(result.code, 2, result.stderr);
  assert.match(
    result.stderr,
    /CAPI_GITOPS_NETWORK_DEADLINE "soon": expected a number of seconds .*, e\.g\. CAPI_GITOPS_NETWORK_DEADLINE=30\n/,
  );
});
