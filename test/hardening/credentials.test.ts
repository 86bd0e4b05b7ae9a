/**
 * No credential in any message, lockfile or cache record: servers on 127.0.0.1 that echo the
 * Authorization header, URLs carrying `?private_token=`, tokens with a newline, and a manifest
 * that tries to send CI's GitHub token to a host of its choosing.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { CLI } from '../helpers/cli.js';
import { echoHeaders, EchoServer } from '../helpers/echo-server.js';

const TOKEN = 'ghp_Secret0123456789abcdefTOKEN';
const QUERY_TOKEN = 'glpat-QuerySecret98765';

function runAsync(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, CI: 'true', GH_TOKEN: '', GITHUB_API_URL: '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Every file under `dir` as one string, to search for a leaked secret. */
function allText(dir: string): string {
  let text = '';
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    text += statSync(file).isDirectory() ? allText(file) : readFileSync(file, 'latin1');
  }
  return text;
}

const CORE = `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
  namespace: capi-system
spec:
  version: v1.12.0
`;

function workspace(config: string): { dir: string; manifest: string; cache: string; out: string } {
  const dir = tempDir();
  const manifest = path.join(dir, 'manifest.yaml');
  writeFileSync(manifest, `${CORE}---\napiVersion: capi-gitops.dev/v1alpha1\nkind: Config\ncertManager:\n  enabled: false\n${config}`);
  return { dir, manifest, cache: path.join(dir, 'cache'), out: path.join(dir, 'out') };
}

// A GitHub API that rejects every request with a 422 whose message quotes the request headers.
const echoingGitHub = await EchoServer.start((request) => ({
  status: 422,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ message: `Validation Failed; you sent:\n${echoHeaders(request)}`, documentation_url: 'https://docs.github.com' }),
}));
after(() => echoingGitHub.close());

test('a GitHub API answer that echoes the Authorization header (HTTP 422) does not get the token printed', async () => {
  const ws = workspace('');
  const result = await runAsync(
    ['render', '-f', ws.manifest, '-o', ws.out, '--cache-dir', ws.cache, '--github-api-url', echoingGitHub.origin],
    { GITHUB_TOKEN: TOKEN },
  );
  assert.equal(result.code, 1, result.stderr);
  assert.ok(
    echoingGitHub.requests.some((r) => r.headers.authorization?.includes(TOKEN)),
    'the token was sent to the host named on the command line',
  );
  assert.match(result.stderr, /HTTP 422/);
  assert.ok(!(result.stdout + result.stderr).includes(TOKEN), result.stderr);
  assert.ok(!result.stderr.includes('internal error'));
});

test('a token with a newline is a usage error before any request, with no retries', async () => {
  const before = echoingGitHub.requests.length;
  const ws = workspace('');
  for (const [bad, why] of [
    [`${TOKEN}\nX-Injected: 1`, 'a newline'],
    [`${TOKEN}\u001b[2K`, 'the character U\\+001B'],
    [`${TOKEN}\u00e9`, 'the character U\\+00E9'],
  ]) {
    const result = await runAsync(
      ['render', '-f', ws.manifest, '-o', ws.out, '--cache-dir', ws.cache, '--github-api-url', echoingGitHub.origin],
      { GITHUB_TOKEN: bad },
    );
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`GITHUB_TOKEN cannot be used as a token: it contains ${why}`));
    assert.ok(!result.stderr.includes(TOKEN), result.stderr);
  }
  assert.equal(echoingGitHub.requests.length, before, 'no request was made');
});

test('Config github.apiUrl cannot send GITHUB_TOKEN to a host the command line did not name; GITHUB_API_URL or --github-api-url can', async () => {
  const attacker = await EchoServer.start(() => ({
    status: 404,
    body: '{"message":"Not Found"}',
    headers: { 'content-type': 'application/json' },
  }));
  try {
    const ws = workspace(`github:\n  apiUrl: ${attacker.origin}\n`);
    const refused = await runAsync(['render', '-f', ws.manifest, '-o', ws.out, '--cache-dir', ws.cache], { GITHUB_TOKEN: TOKEN });
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /github\.apiUrl: Config github\.apiUrl names 127\.0\.0\.1:\d+, and GITHUB_TOKEN \(or GH_TOKEN\) is set/);
    assert.match(refused.stderr, /only when that host is also given with --github-api-url or GITHUB_API_URL/);
    assert.equal(attacker.requests.length, 0, 'no request reached the manifest-chosen host');

    const trusted = await runAsync(['render', '-f', ws.manifest, '-o', ws.out, '--cache-dir', ws.cache], {
      GITHUB_TOKEN: TOKEN,
      GITHUB_API_URL: attacker.origin,
    });
    assert.equal(trusted.code, 1, trusted.stderr); // the fake answers 404: but now it was asked, with the token
    assert.ok(
      attacker.requests.length > 0 &&
        attacker.requests.every((r) => r.headers.authorization === `token ${TOKEN}` || r.headers.authorization === `Bearer ${TOKEN}`),
    );
    assert.ok(!trusted.stderr.includes(TOKEN));
  } finally {
    await attacker.close();
  }
});

test('a plain-HTTPS URL with ?private_token= is redacted in messages, progress, the lockfile and the cache; the token header comes from the environment, for the named host only', async () => {
  const files: Record<string, Buffer> = {
    'core-components.yaml': readFileSync(path.join(CORPUS_REPOSITORY, 'cluster-api', 'v1.12.0', 'core-components.yaml')),
    'metadata.yaml': readFileSync(path.join(CORPUS_REPOSITORY, 'cluster-api', 'v1.12.0', 'metadata.yaml')),
  };
  const server = await EchoServer.start((request) => {
    const match = /^\/capi\/v1\.12\.0\/([^?]+)\?private_token=/.exec(request.url);
    return match && files[match[1]!]
      ? { status: 200, body: files[match[1]!]! }
      : { status: 500, body: `<html>proxy error for ${request.url}\n${echoHeaders(request)}</html>` };
  });
  try {
    const template = `${server.origin}/capi/{version}/core-components.yaml?private_token=${QUERY_TOKEN}`;
    const ws = workspace(`repositories:\n- name: cluster-api\n  type: CoreProvider\n  url: "${template}"\n  versions: [v1.12.0]\n`);
    const env = { CAPI_GITOPS_HTTPS_AUTHORIZATION: TOKEN, CAPI_GITOPS_HTTPS_AUTHORIZATION_HOST: new URL(server.origin).host };
    const ok = await runAsync(['render', '-f', ws.manifest, '-o', ws.out, '--cache-dir', ws.cache], env);
    assert.equal(ok.code, 0, ok.stderr);
    assert.ok(
      server.requests.every((r) => r.headers.authorization === `Bearer ${TOKEN}`),
      'the environment token went to the named host',
    );
    const lock = readFileSync(path.join(ws.dir, 'capi-gitops.lock.yaml'), 'utf8');
    assert.match(lock, /private_token=\*\*\*\*\*\*\*\*/);
    for (const [where, text] of [
      ['stdout/stderr', ok.stdout + ok.stderr],
      ['lockfile', lock],
      ['cache', allText(ws.cache)],
      ['output', allText(ws.out)],
    ] as const) {
      assert.ok(!text.includes(QUERY_TOKEN), `${where} holds the query token`);
      assert.ok(!text.includes(TOKEN), `${where} holds the header token`);
    }

    // Without the host named, the environment token is not sent; a failing server's page is not printed either.
    server.requests.length = 0;
    const ws2 = workspace(
      `repositories:\n- name: cluster-api\n  type: CoreProvider\n  url: "${template.replace('/capi/', '/broken/')}"\n  versions: [v1.12.0]\n`,
    );
    const failed = await runAsync(['render', '-f', ws2.manifest, '-o', ws2.out, '--cache-dir', ws2.cache], {
      CAPI_GITOPS_HTTPS_AUTHORIZATION: TOKEN,
    });
    assert.equal(failed.code, 1, failed.stderr);
    assert.ok(server.requests.length > 0 && server.requests.every((r) => r.headers.authorization === undefined));
    assert.ok(!(failed.stdout + failed.stderr).includes(QUERY_TOKEN), failed.stderr);
    assert.ok(!failed.stderr.includes('internal error'));
  } finally {
    await server.close();
  }
});
