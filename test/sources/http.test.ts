import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import {
  backoffDelay,
  fetchAdapter,
  headersForHop,
  httpFetch,
  httpFetchOnce,
  HttpError,
  httpPolicy,
  redactUrl,
  retryAfterMs,
  type HttpPolicy,
  type RetryNotice,
} from '../../src/sources/base/http.js';
import { NetworkDeadline } from '../../src/sources/base/deadline.js';
import { networkFailureHint } from '../../src/sources/base/unreachable.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, hit: number) => void;

interface TestServer {
  url: string;
  hits: { path: string; headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}

/** A server whose handler sees the 1-based count of requests so far. */
async function serve(handler: Handler, host = '127.0.0.1'): Promise<TestServer> {
  const hits: TestServer['hits'] = [];
  const server = http.createServer((req, res) => {
    hits.push({ path: req.url ?? '/', headers: req.headers });
    handler(req, res, hits.length);
  });
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    hits,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A policy that never sleeps for real; records the delays it was asked to wait. */
function fastPolicy(overrides: Partial<HttpPolicy> = {}): HttpPolicy & { slept: number[] } {
  const slept: number[] = [];
  return { ...httpPolicy({ sleep: async (ms) => void slept.push(ms), random: () => 0.5, ...overrides }), slept };
}

test('backoff doubles per retry, is capped, and jitters within the upper half of the step', () => {
  const low = { baseDelayMs: 100, maxDelayMs: 1000, random: () => 0 };
  const high = { ...low, random: () => 0.999999 };
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, low)),
    [50, 100, 200, 400, 500, 500],
  );
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, high)),
    [100, 200, 400, 800, 1000, 1000],
  );
});

test('Retry-After is read as delay-seconds or as an HTTP date', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  assert.equal(retryAfterMs('120', now), 120_000);
  assert.equal(retryAfterMs('Wed, 01 Jan 2025 00:00:30 GMT', now), 30_000);
  assert.equal(retryAfterMs('soon', now), undefined);
  assert.equal(retryAfterMs(null, now), undefined);
});

test('redactUrl drops user info, query and fragment (they can hold tokens or signatures)', () => {
  assert.equal(
    redactUrl('https://user:pw@objects.example.com/a/b.yaml?X-Amz-Signature=abc&token=t#frag'),
    'https://objects.example.com/a/b.yaml',
  );
});

test('credential headers go only to their own origin', () => {
  const headers = { Authorization: 'Bearer t', 'PRIVATE-TOKEN': 'g', cookie: 'c', accept: 'application/json' };
  assert.deepEqual(headersForHop(headers, new URL('https://api.example.com/x'), 'https://api.example.com'), headers);
  assert.deepEqual(headersForHop(headers, new URL('https://storage.example.com/x'), 'https://api.example.com'), {
    accept: 'application/json',
  });
  // A scheme downgrade is another origin too.
  assert.deepEqual(headersForHop(headers, new URL('http://api.example.com/x'), 'https://api.example.com'), { accept: 'application/json' });
});

test('a 500 is retried after a backoff, then the success is returned', async () => {
  const server = await serve((_req, res, hit) => (hit === 1 ? res.writeHead(500).end('boom') : res.end('payload')));
  try {
    const policy = fastPolicy();
    const notices: RetryNotice[] = [];
    const response = await httpFetch({ url: `${server.url}/file` }, policy, (notice) => notices.push(notice));
    assert.equal(response.status, 200);
    assert.equal(response.body.toString(), 'payload');
    assert.equal(server.hits.length, 2);
    assert.deepEqual(policy.slept, [backoffDelay(1, policy)]);
    assert.deepEqual(notices, [{ url: `${server.url}/file`, attempt: 1, delayMs: policy.slept[0], reason: 'HTTP 500' }]);
  } finally {
    await server.close();
  }
});

test('attempts are bounded: a persistent 503 is returned after retries + 1 requests', async () => {
  const server = await serve((_req, res) => res.writeHead(503).end());
  try {
    const policy = fastPolicy({ retries: 2 });
    const response = await httpFetch({ url: server.url }, policy);
    assert.equal(response.status, 503);
    assert.equal(server.hits.length, 3);
    assert.equal(policy.slept.length, 2);
    assert.ok(policy.slept[1] > policy.slept[0], 'second backoff is longer');
  } finally {
    await server.close();
  }
});

test('a 429 Retry-After is honoured when short and not waited for when long', async () => {
  const short = await serve((_req, res, hit) => (hit === 1 ? res.writeHead(429, { 'retry-after': '2' }).end() : res.end('ok')));
  const long = await serve((_req, res) => res.writeHead(429, { 'retry-after': '3600' }).end());
  try {
    const policy = fastPolicy();
    assert.equal((await httpFetch({ url: short.url }, policy)).status, 200);
    assert.deepEqual(policy.slept, [2000]);
    const second = fastPolicy();
    assert.equal((await httpFetch({ url: long.url }, second)).status, 429);
    assert.equal(long.hits.length, 1);
    assert.deepEqual(second.slept, []);
  } finally {
    await short.close();
    await long.close();
  }
});

test('a 404 is not retried', async () => {
  const server = await serve((_req, res) => res.writeHead(404).end('no'));
  try {
    const policy = fastPolicy();
    assert.equal((await httpFetch({ url: server.url }, policy)).status, 404);
    assert.equal(server.hits.length, 1);
  } finally {
    await server.close();
  }
});

/**
 * One https:// GET (3 retries allowed) to `server`, which must fail: the error, the retry notices
 * and sleeps, and the connections the server saw.
 */
async function failedHttpsGet(server: http.Server | https.Server) {
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  try {
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v2/`;
    const policy = fastPolicy({ retries: 3 });
    const notices: RetryNotice[] = [];
    const error = await httpFetch({ url }, policy, (notice) => notices.push(notice)).then(
      () => assert.fail('the request succeeded'),
      (err: unknown) => err,
    );
    assert.ok(error instanceof HttpError, String(error));
    return { error, notices, slept: policy.slept, connections };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

test('https:// to a plain-HTTP server (wrong version number) is not retried: a retry cannot make it speak TLS', async () => {
  // a plain-HTTP server, as a local registry is
  const { error, notices, slept, connections } = await failedHttpsGet(http.createServer((_req, res) => res.end('plain')));
  assert.equal(error.failure, 'not-tls');
  assert.match(
    error.message,
    /^GET https:\/\/127\.0\.0\.1:\d+\/v2\/: the server answered without TLS \(ERR_SSL_WRONG_VERSION_NUMBER\); not retried/,
  );
  assert.deepEqual(notices, []);
  assert.deepEqual(slept, []);
  assert.equal(connections, 1);
});

const OPENSSL_MISSING =
  spawnSync('openssl', ['version']).status === 0 ? false : 'the openssl binary is not installed (.ci/install-test-deps.sh installs it)';

test(
  'a certificate the client does not trust is not retried, and the hint names NODE_EXTRA_CA_CERTS (a private CA, as behind a TLS-inspecting proxy)',
  { skip: OPENSSL_MISSING },
  async () => {
    // a self-signed certificate, as an in-house mirror or a proxy's CA presents it to a client that does not know it
    const dir = mkdtempSync(path.join(os.tmpdir(), 'capi-gitops-cert-'));
    const made = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { encoding: 'utf8' },
    );
    assert.equal(made.status, 0, made.stderr);
    const server = https.createServer(
      { key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) },
      (_req, res) => res.end('trusted?'),
    );
    rmSync(dir, { recursive: true, force: true });
    const { error, notices, slept, connections } = await failedHttpsGet(server);
    assert.equal(error.failure, 'certificate');
    assert.match(
      error.message,
      /^GET https:\/\/127\.0\.0\.1:\d+\/v2\/: the server's certificate was not accepted: .*\(DEPTH_ZERO_SELF_SIGNED_CERT\); not retried/,
    );
    assert.deepEqual(notices, []);
    assert.deepEqual(slept, []);
    assert.equal(connections, 1);
    assert.match(networkFailureHint(error.failure) ?? '', /set NODE_EXTRA_CA_CERTS to that CA's PEM file/);
  },
);

test('a connection reset is retried', async () => {
  const server = await serve((req, res, hit) => (hit === 1 ? req.socket.destroy() : res.end('after reset')));
  try {
    const response = await httpFetch({ url: server.url }, fastPolicy());
    assert.equal(response.body.toString(), 'after reset');
    assert.equal(server.hits.length, 2);
  } finally {
    await server.close();
  }
});

test('the timeout bounds the whole request: a stalled server fails once within it, not once per attempt; a fast failure is still retried', async () => {
  const server = await serve((_req, res, hit) => {
    if (hit === 1) res.socket?.destroy();
    else res.end('second time lucky');
  });
  try {
    const policy = fastPolicy({ timeoutMs: 5_000, retries: 1 });
    assert.equal((await httpFetch({ url: server.url }, policy)).body.toString(), 'second time lucky');

    // Headers, then nothing: the attacker's slow-loris answer.
    const stuck = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('a');
    });
    try {
      await assert.rejects(httpFetch({ url: stuck.url }, fastPolicy({ timeoutMs: 400, retries: 3 })), (error: unknown) => {
        assert.ok(error instanceof HttpError);
        assert.equal(error.failure, 'timeout');
        assert.match(error.message, /no complete answer within 400 ms/);
        return true;
      });
      assert.equal(stuck.hits.length, 1, 'the budget was spent: no retry');
    } finally {
      await stuck.close();
    }
  } finally {
    await server.close();
  }
});

/** Announces 1000 bytes, sends `sent`, closes the connection. */
function truncating(sent: number): Handler {
  return (req, res) => {
    res.writeHead(200, { 'content-length': '1000' });
    res.write('x'.repeat(sent), () => req.socket.destroy());
  };
}

test('a truncated body (connection closed before Content-Length) is retried, then reported with the byte counts', async () => {
  const recovering = await serve((req, res, hit) => (hit === 1 ? truncating(400)(req, res, hit) : res.end('y'.repeat(1000))));
  const broken = await serve(truncating(400));
  try {
    const ok = await httpFetch({ url: recovering.url }, fastPolicy());
    assert.equal(ok.body.length, 1000);
    assert.equal(recovering.hits.length, 2);

    await assert.rejects(httpFetch({ url: `${broken.url}/big.yaml` }, fastPolicy({ retries: 2 })), (error: unknown) => {
      assert.ok(error instanceof HttpError);
      assert.equal(error.failure, 'truncated');
      assert.match(
        error.message,
        /^GET http:\/\/127\.0\.0\.1:\d+\/big\.yaml: response body ended after 400 of 1000 bytes .*; gave up after 3 attempts$/,
      );
      return true;
    });
    assert.equal(broken.hits.length, 3);
  } finally {
    await recovering.close();
    await broken.close();
  }
});

test('the size cap rejects an announced or streamed body larger than the cap, names the cap, and is not retried', async () => {
  const announced = await serve((_req, res) => res.end('z'.repeat(2048)));
  const streamed = await serve((_req, res) => {
    res.writeHead(200); // chunked: no Content-Length to check up front
    res.write('z'.repeat(1500));
    res.end('z'.repeat(1500));
  });
  try {
    for (const server of [announced, streamed]) {
      await assert.rejects(httpFetch({ url: server.url }, fastPolicy({ maxBytes: 1024 })), (error: unknown) => {
        assert.ok(error instanceof HttpError);
        assert.equal(error.failure, 'too-large');
        assert.match(error.message, /larger than the 1024 bytes download cap/);
        return true;
      });
      assert.equal(server.hits.length, 1);
    }
    const mib = await serve((_req, res) => res.writeHead(200, { 'content-length': String(3 * 1024 * 1024) }).end());
    try {
      await assert.rejects(
        httpFetchOnce({ url: mib.url }, fastPolicy({ maxBytes: 2 * 1024 * 1024 })),
        /larger than the 2 MiB download cap/,
      );
    } finally {
      await mib.close();
    }
  } finally {
    await announced.close();
    await streamed.close();
  }
});

test('redirects are followed by hand: credentials reach their own origin, never another host', async () => {
  const other = await serve((req, res) => {
    if (req.url === '/back') res.writeHead(302, { location: `${origin.url}/final` }).end();
    else res.end('from storage');
  }, 'localhost');
  const origin = await serve((req, res) => {
    if (req.url === '/start') res.writeHead(302, { location: '/same-origin' }).end();
    else if (req.url === '/same-origin') res.writeHead(307, { location: `${other.url}/blob?sig=s` }).end();
    else if (req.url === '/bounce') res.writeHead(302, { location: `${other.url}/back` }).end();
    else res.end('home again');
  });
  const headers = { authorization: 'Bearer secret-token', 'private-token': 'gl-secret', accept: 'application/octet-stream' };
  try {
    const response = await httpFetch({ url: `${origin.url}/start`, headers }, fastPolicy());
    assert.equal(response.body.toString(), 'from storage');
    assert.equal(response.url, `${other.url}/blob?sig=s`);
    assert.equal(origin.hits[0].headers.authorization, 'Bearer secret-token');
    assert.equal(origin.hits[1].headers.authorization, 'Bearer secret-token', 'same-origin redirect keeps credentials');
    assert.equal(other.hits[0].headers.authorization, undefined);
    assert.equal(other.hits[0].headers['private-token'], undefined);
    assert.equal(other.hits[0].headers.accept, 'application/octet-stream', 'other headers still go');

    // Bounced back by the other host: its own origin gets the credentials again, the other host never does.
    await httpFetch({ url: `${origin.url}/bounce`, headers }, fastPolicy());
    assert.equal(other.hits[1].headers.authorization, undefined);
    assert.equal(origin.hits.at(-1)!.headers.authorization, 'Bearer secret-token');

    // An explicit credential origin: the first hop itself is elsewhere, so nothing is sent.
    await httpFetch({ url: `${other.url}/blob`, headers, credentialOrigin: origin.url }, fastPolicy());
    assert.equal(other.hits.at(-1)!.headers.authorization, undefined);
  } finally {
    await origin.close();
    await other.close();
  }
});

test('a redirect loop stops at maxRedirects and is not retried', async () => {
  const server = await serve((_req, res) => res.writeHead(302, { location: '/again' }).end());
  try {
    await assert.rejects(httpFetch({ url: server.url }, fastPolicy({ maxRedirects: 3 })), /more than 3 redirects/);
    assert.equal(server.hits.length, 4);
  } finally {
    await server.close();
  }
});

test('redirect: manual returns the 3xx with its Location', async () => {
  const server = await serve((_req, res) => res.writeHead(302, { location: 'https://elsewhere.example/x' }).end());
  try {
    const response = await httpFetchOnce({ url: server.url, redirect: 'manual' }, fastPolicy());
    assert.equal(response.status, 302);
    assert.equal(response.headers.get('location'), 'https://elsewhere.example/x');
    assert.equal(server.hits.length, 1);
  } finally {
    await server.close();
  }
});

test('a request body is sent on every attempt, and a request with a body follows no redirect (its form may hold a credential)', async () => {
  const bodies: string[] = [];
  const server = await serve((req, res, hit) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      bodies.push(`${req.method} ${body}`);
      if (hit === 1) res.writeHead(503).end();
      else res.writeHead(307, { location: 'http://127.0.0.2:1/steal' }).end();
    });
  });
  try {
    const response = await httpFetch(
      { url: `${server.url}/token`, method: 'POST', body: 'grant_type=refresh_token&refresh_token=r' },
      fastPolicy(),
    );
    assert.equal(response.status, 307, 'the redirect is returned, not followed');
    assert.deepEqual(bodies, ['POST grant_type=refresh_token&refresh_token=r', 'POST grant_type=refresh_token&refresh_token=r']);
  } finally {
    await server.close();
  }
});

test('progress reports the bytes received so far', async () => {
  const server = await serve((_req, res) => {
    res.writeHead(200, { 'content-length': '6' });
    res.write('abc');
    setImmediate(() => res.end('def'));
  });
  try {
    const seen: number[] = [];
    await httpFetchOnce({ url: server.url, onBytes: (received) => seen.push(received) }, fastPolicy());
    assert.equal(seen.at(-1), 6);
  } finally {
    await server.close();
  }
});

test('fetchAdapter: the shared request (retries included) behind the fetch signature (for octokit request.fetch)', async () => {
  const server = await serve((req, res, hit) => {
    if (req.url === '/moved') res.writeHead(301, { location: '/json' }).end();
    else if (hit === 1) res.writeHead(500).end('first');
    else if (req.url === '/empty') res.writeHead(304, { etag: '"e"' }).end();
    else res.writeHead(200, { 'content-type': 'application/json', etag: '"abc"' }).end('{"ok":true}');
  });
  try {
    const fetchLike = fetchAdapter((request) => httpFetch(request, fastPolicy()));
    const first = await fetchLike(`${server.url}/json`);
    assert.equal(first.status, 200, 'the 500 was retried by the shared request');
    assert.equal(server.hits.length, 2);
    const moved = await fetchLike(`${server.url}/moved`, { headers: { authorization: 'token t' } });
    assert.equal(moved.status, 200);
    assert.equal(moved.url, `${server.url}/json`);
    assert.equal(moved.headers.get('etag'), '"abc"');
    assert.deepEqual(await moved.json(), { ok: true });
    const notModified = await fetchLike(new URL(`${server.url}/empty`));
    assert.equal(notModified.status, 304);
    assert.equal(notModified.body, null);
  } finally {
    await server.close();
  }
});

test('the run deadline bounds every request of the run: a hanging attempt is not retried, a spent deadline sends nothing, a backoff past it is not waited for', async () => {
  const hanging = await serve(() => undefined);
  const failing = await serve((_req, res) => res.writeHead(503, { 'retry-after': '2' }).end('down'));
  try {
    const runDeadline = new NetworkDeadline(300);
    const policy = fastPolicy({ timeoutMs: 60_000, retries: 10, runDeadline });
    await assert.rejects(httpFetch({ url: `${hanging.url}/a` }, policy), (error: unknown) => {
      assert.ok(error instanceof HttpError);
      assert.equal(error.failure, 'deadline');
      assert.match(
        error.message,
        /^GET http:\/\/127\.0\.0\.1:\d+\/a: the network deadline of this run \(0\.3 s, --network-deadline\) was reached; gave up after 1 attempt \(last: no complete answer within \d+ ms\)$/,
      );
      assert.equal(error.retryable, false);
      return true;
    });
    assert.equal(hanging.hits.length, 1, 'the hanging attempt spent the budget: no retry');
    await assert.rejects(
      httpFetch({ url: `${hanging.url}/b` }, policy),
      /\/b: the network deadline of this run \(0\.3 s, --network-deadline\) was reached; not sent$/,
    );
    assert.equal(hanging.hits.length, 1, 'nothing is sent once the run deadline is spent');

    // Retry-After 2 s does not fit in a 1 s budget: fail after one attempt instead of sleeping past it.
    const short = fastPolicy({ retries: 10, runDeadline: new NetworkDeadline(1000, 'CAPI_GITOPS_NETWORK_DEADLINE') });
    await assert.rejects(
      httpFetch({ url: failing.url }, short),
      /the network deadline of this run \(1 s, CAPI_GITOPS_NETWORK_DEADLINE\) was reached; gave up after 1 attempt \(last: HTTP 503\)/,
    );
    assert.equal(failing.hits.length, 1);
    assert.deepEqual(short.slept, []);
  } finally {
    await hanging.close();
    await failing.close();
  }
});

test('an attempt the run deadline cuts short does not hide the answer before it: the error names the last HTTP status', async () => {
  // 503, then an attempt that never completes: the deadline ends it, whatever the machine's load
  const server = await serve((_req, res, hit) => (hit === 1 ? res.writeHead(503).end('down') : undefined));
  try {
    const policy = fastPolicy({ timeoutMs: 60_000, retries: 10, baseDelayMs: 10, runDeadline: new NetworkDeadline(300) });
    await assert.rejects(
      httpFetch({ url: server.url }, policy),
      /the network deadline of this run \(0\.3 s, --network-deadline\) was reached; gave up after 2 attempts \(last: HTTP 503\)$/,
    );
    assert.equal(server.hits.length, 2);
  } finally {
    await server.close();
  }
});

test('without a run deadline, the request budget still ends a request whose next backoff would outlast it', async () => {
  const failing = await serve((_req, res) => res.writeHead(500).end());
  try {
    const policy = fastPolicy({ timeoutMs: 5_000, retries: 10, baseDelayMs: 4_000, random: () => 0.5 });
    await assert.rejects(
      httpFetch({ url: failing.url }, policy),
      /no complete answer within 5000 ms; gave up after 2 attempts \(last: HTTP 500\)/,
    );
    assert.equal(failing.hits.length, 2, 'backoff of 3 s, then 6 s: the second does not fit in 5 s');
    assert.deepEqual(policy.slept, [3_000]);
  } finally {
    await failing.close();
  }
});
