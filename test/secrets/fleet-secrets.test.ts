/**
 * FleetSecrets remembers a long text found clean so a fleet's shared CRDs are searched once; a
 * text that holds a cluster's own value is not clean for the other clusters. A long value in two
 * pieces counts in another cluster's files, as the gate finds it in a cluster's own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FleetSecrets, secretNeedles } from '../../src/secrets/index.js';
import { objectFilePath, sanitizeFileNamePart } from '../../src/layout/names.js';

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

/** A value in mixed case with `_`: an object named after it gets a file name in its path form (lower case, `-`), not in its text. */
const EU_MIXED = 'XyZzy9_QwErTy7Plm';

test("a cluster's value in another cluster's or the fleet's own file path, as file naming writes it (lower case, `-`), is refused, naming the path without it", () => {
  const secrets = new FleetSecrets(
    new Map([
      ['eu-1', secretNeedles(new Map([['API_TOKEN', [EU_MIXED]]]))],
      ['us-1', secretNeedles(new Map([['API_TOKEN', ['us1-api-token-8b3e6d2a90f4']]]))],
    ]),
  );
  const files = new Map([
    ['04-infrastructure-example/configmap-xyzzy9-qwerty7plm.yaml', 'kind: ConfigMap\nmetadata: {name: xyzzy9-qwerty7plm}\n'],
  ]);
  assert.deepEqual(secrets.leaks('eu-1', files), [], "a cluster's own value in its paths is its own gate's");
  for (const cluster of ['us-1', undefined]) {
    const leaks = secrets.leaks(cluster, files);
    assert.deepEqual(
      leaks.map((d) => [d.file, /secret value of API_TOKEN of cluster eu-1/.test(d.message)]),
      [['04-infrastructure-example/configmap-[secret API_TOKEN].yaml', true]],
      String(cluster),
    );
    assert.ok(!JSON.stringify(leaks).includes('qwerty7plm'), JSON.stringify(leaks));
  }
});

test("in a fleet of 1,000 clusters a path holding one cluster's value names that cluster (the values are searched in paths through one index)", () => {
  const byCluster = new Map(
    Array.from(
      { length: 1000 },
      (_, i) => [`c-${i}`, secretNeedles(new Map([['API_TOKEN', [`Tok_${String(i).padStart(4, '0')}_SeCrEt`]]]))] as const,
    ),
  );
  const secrets = new FleetSecrets(byCluster);
  const files = new Map([['04-x/configmap-tok-0999-secret.yaml', 'kind: ConfigMap\n']]);
  assert.deepEqual(
    secrets.leaks('c-1', files).map((d) => [d.file, /of cluster c-999,/.test(`${d.message},`)]),
    [['04-x/configmap-[secret API_TOKEN].yaml', true]],
  );
  assert.deepEqual(secrets.leaks('c-999', files), []);
});

test("the start of a cluster's long value that a cut file name of another cluster keeps is refused, naming the path without it", () => {
  const value = `Eu_${'QwErTy4567'.repeat(21)}`;
  const secrets = new FleetSecrets(new Map([['eu-1', secretNeedles(new Map([['API_TOKEN', [value]]]))]]));
  const name = objectFilePath({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: sanitizeFileNamePart(value) } });
  const files = new Map([[`04-infrastructure-example/${name}`, 'kind: ConfigMap\n']]);
  assert.deepEqual(secrets.leaks('eu-1', files), []);
  for (const cluster of ['us-1', undefined]) {
    const leaks = secrets.leaks(cluster, files);
    assert.deepEqual(
      leaks.map((d) => [d.file, /secret value of API_TOKEN of cluster eu-1/.test(d.message)]),
      [[`04-infrastructure-example/configmap-[secret API_TOKEN]${name.slice(-'-12345678.yaml'.length)}`, true]],
    );
    assert.ok(!JSON.stringify(leaks).includes('qwerty4567'), JSON.stringify(leaks));
  }
});
