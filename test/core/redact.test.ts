import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { redactUrlCredentials, registerSecretForms, safeText } from '../../src/core/redact.js';
import { startRun } from '../../src/core/run-state.js';

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

test("an oci:// file URL followed by a sentence's punctuation keeps its fragment and the punctuation (lock --accept-digest's lines: `…#components.yaml: sha256 …`, `…#components.yaml; metadata.yaml url …`)", () => {
  const url = `oci://127.0.0.1:5096/capi/core@${DIGEST}#components.yaml`;
  for (const line of [
    `accepted cluster-api v1.12.0 core-components.yaml from ${url}: sha256 c6ffefca → 2437481b`,
    `~ cluster-api v1.12.0: core-components.yaml url ${url} → ${url}; metadata.yaml url ${url} → ${url}`,
    `(from ${url}), and ${url}.`,
  ])
    assert.equal(safeText(line), line);
  // what follows the punctuation is still a fragment's: masked
  assert.equal(redactUrlCredentials(`${url};token=secret-value`), `oci://127.0.0.1:5096/capi/core@${DIGEST}#********`);
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

/** String comparisons made while `work` runs: the searches redaction makes for its secrets. */
function comparisons(work: () => void): number {
  const methods = ['includes', 'startsWith', 'indexOf'] as const;
  const saved = methods.map((name) => String.prototype[name]);
  let count = 0;
  methods.forEach((name, i) => {
    const original = saved[i] as (...args: unknown[]) => unknown;
    (String.prototype as unknown as Record<string, unknown>)[name] = function (this: string, ...args: unknown[]) {
      count++;
      return original.apply(this, args);
    };
  });
  try {
    work();
  } finally {
    methods.forEach((name, i) => ((String.prototype as unknown as Record<string, unknown>)[name] = saved[i]));
  }
  return count;
}

/** A fleet's report of `clusters` clusters, each with secret values of its own: searches made per printed line. */
function searchesPerLine(clusters: number): number {
  startRun();
  for (let i = 0; i < clusters; i++)
    registerSecretForms(['token', 'password'].map((key) => createHash('sha256').update(`${key}-${i}`).digest('hex').slice(0, 32)));
  const lines = Array.from(
    { length: 50 },
    (_, i) => `  + Deployment capi-system/capi-controller-manager (clusters/c${i}/01-cluster-api/deployment.yaml)`,
  );
  const count = comparisons(() => lines.forEach((line) => safeText(line)));
  startRun();
  return count / lines.length;
}

test("a printed line is searched for secrets in time that does not grow with the fleet's secrets (a line per object, a secret per cluster: no line x secret search)", () => {
  const small = searchesPerLine(10);
  const large = searchesPerLine(1000);
  assert.ok(large <= small + 2, `searches per line: ${small} with 10 clusters' secrets, ${large} with 1,000`);
  // a secret in a line is still masked, and the longer of two overlapping ones whole
  registerSecretForms(['abcd1234secret', 'abcd1234secretlonger']);
  assert.equal(safeText('x abcd1234secretlonger y abcd1234secret'), 'x ******** y ********');
  startRun();
});
