/**
 * FleetSecrets remembers a long text found clean so a fleet's shared CRDs are searched once; a
 * text that holds a cluster's own value is not clean for the other clusters.
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
