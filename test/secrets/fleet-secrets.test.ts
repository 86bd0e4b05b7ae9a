/**
 * FleetSecrets remembers a long text found clean so a fleet's shared CRDs are searched once; a
 * text that holds a cluster's own value is not clean for the other clusters. A long value in two
 * pieces counts in another cluster's files, as the gate finds it in a cluster's own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FleetSecrets, secretNeedles } from '../../src/secrets/index.js';

const EU_TOKEN = 'eu1-api-token-4f9a2c7e51d0';

test("a long text with a cluster's own value, searched for that cluster first, is still refused in another cluster", () => {
  const secrets = new FleetSecrets(new Map([['eu-1', secretNeedles(new Map([['API_TOKEN', [EU_TOKEN]]]))]]));
  const text = `kind: ConfigMap\ndata:\n  token: ${EU_TOKEN}\n  padding: ${'x'.repeat(20_000)}\n`;
  assert.deepEqual(secrets.leaks('eu-1', new Map([['a.yaml', text]])), []);
  const leaks = secrets.leaks('us-1', new Map([['a.yaml', text]]));
  assert.equal(leaks.length, 1);
  assert.match(leaks[0]!.message, /secret value of API_TOKEN of cluster eu-1/);
});

test("a cluster's long value in two pieces, each in a file of another cluster, is refused there; in the cluster's own files it is its own gate's", () => {
  const secrets = new FleetSecrets(new Map([['eu-1', secretNeedles(new Map([['API_TOKEN', [EU_TOKEN]]]))]]));
  const files = new Map([
    ['a.yaml', `kind: ConfigMap\ndata:\n  prefix: ${EU_TOKEN.slice(0, 13)}\n`],
    ['b.yaml', `kind: ConfigMap\ndata:\n  suffix: ${EU_TOKEN.slice(13)}\n`],
  ]);
  assert.deepEqual(secrets.leaks('eu-1', files), []);
  const leaks = secrets.leaks('us-1', files);
  assert.deepEqual(
    leaks.map((d) => [d.file, d.message]),
    [['a.yaml', 'the output would contain the secret value of API_TOKEN of cluster eu-1, raw or encoded']],
  );
});
