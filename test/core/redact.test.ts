import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redactUrlCredentials, safeText } from '../../src/core/redact.js';

const DIGEST = 'sha256:42544b8feb233873b593a7410c2daae11ac51a95339388807ff105ef68c4ce05';

test('an oci:// file URL keeps its fragment, the layer title, as the lockfile records it (docs/security.md: userinfo and query values are masked)', () => {
  const url = `oci://127.0.0.1:5096/capi/cluster-api@${DIGEST}#core-components.yaml`;
  assert.equal(redactUrlCredentials(url), url);
  assert.equal(
    safeText(`error: cluster-api v1.10.4: core-components.yaml from ${url} has sha256 f4cac0df…`),
    `error: cluster-api v1.10.4: core-components.yaml from ${url} has sha256 f4cac0df…`,
  );
  // a title with a version in it, as the operator's full names read
  const full = `oci://ghcr.io/example/capi#infrastructure-aws-v2.9.0+build.1-components.yaml`;
  assert.equal(redactUrlCredentials(full), full);
});

test('fragments that are not an oci:// file name stay masked, and userinfo and query values in an oci:// URL too', () => {
  assert.equal(redactUrlCredentials('https://example.com/callback#access_token=secret-value'), 'https://example.com/callback#********');
  assert.equal(
    redactUrlCredentials('https://example.com/a/core-components.yaml#core'),
    'https://example.com/a/core-components.yaml#********',
  );
  assert.equal(redactUrlCredentials('oci://registry.example.com/capi#token=secret-value'), 'oci://registry.example.com/capi#********');
  // a bare word may be a token (a JWT's or a base64url's alphabet): only a YAML or JSON file name is a layer title
  assert.equal(
    redactUrlCredentials('oci://registry.example.com/capi#eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln'),
    'oci://registry.example.com/capi#********',
  );
  assert.equal(
    redactUrlCredentials('oci://user:secret-value@registry.example.com/capi?sig=secret-value#metadata.yaml'),
    'oci://********@registry.example.com/capi?sig=********#metadata.yaml',
  );
});
