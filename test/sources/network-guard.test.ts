import { test } from 'node:test';
import assert from 'node:assert/strict';
import { httpFetchOnce, httpPolicy, HttpError } from '../../src/sources/base/http.js';

test('CAPI_GITOPS_NETWORK=loopback refuses every non-loopback host before any connection', async () => {
  const previous = process.env.CAPI_GITOPS_NETWORK;
  process.env.CAPI_GITOPS_NETWORK = 'loopback';
  try {
    for (const url of ['https://github.com/', 'https://api.github.com/repos/a/b/releases', 'http://10.0.0.1/x', 'https://[2001:db8::1]/']) {
      await assert.rejects(httpFetchOnce({ url }, httpPolicy({ retries: 0 })), (error: unknown) => {
        assert.ok(error instanceof HttpError);
        assert.equal(error.failure, 'refused');
        assert.equal(error.retryable, false);
        assert.match(error.message, /loopback/);
        return true;
      });
    }
  } finally {
    if (previous === undefined) delete process.env.CAPI_GITOPS_NETWORK;
    else process.env.CAPI_GITOPS_NETWORK = previous;
  }
});
