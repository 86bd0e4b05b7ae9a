import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { decodeBase64 } from '../../src/manifest/core-objects.js';
import { loadManifest } from '../../src/manifest/load.js';
import { CORPUS_CONFIGMAPS } from '../helpers/paths.js';
import { MANIFEST_FIXTURES, loadText, loadTextError, summary } from '../fixtures/manifest/helpers.js';

const secret = (body: string, name = 'creds') =>
  `apiVersion: v1\nkind: Secret\nmetadata: {name: ${name}, namespace: capi-system}\n${body}\n`;

test('Secret data is decoded from base64 and stringData wins over data for the same key (API server Secret stringData merge)', async () => {
  const manifest = await loadManifest([path.join(MANIFEST_FIXTURES, 'full', 'secrets-and-config.yaml')]);
  assert.deepEqual(manifest.secrets, [
    {
      name: 'capi-variables',
      namespace: 'capi-system',
      data: { EXP_CLUSTER_RESOURCE_SET: 'fixture-data-value', OVERRIDDEN: 'from-string-data', CAPI_DIAGNOSTICS_ADDRESS: ':8443' },
      position: { file: path.join(MANIFEST_FIXTURES, 'full', 'secrets-and-config.yaml'), line: 2, column: 1 },
    },
  ]);
});

test('base64 is decoded as Go decodes []byte: padding required, line breaks skipped', async () => {
  assert.equal(decodeBase64('aGVsbG8=')?.toString(), 'hello');
  assert.equal(decodeBase64('aGVs\nbG8=\r\n')?.toString(), 'hello');
  assert.equal(decodeBase64('')?.toString(), '');
  assert.equal(decodeBase64('aGVsbG8'), undefined);
  assert.equal(decodeBase64('aGVs bG8='), undefined);
  assert.equal(decodeBase64('aGVsbG8=!'), undefined);
  const { manifest } = await loadText(secret('data:\n  KEY: |\n    aGVs\n    bG8=\n  EMPTY: ""'));
  assert.deepEqual(manifest.secrets[0].data, { KEY: 'hello', EMPTY: '' });
});

test('a null stringData value is an empty string and a null field is absent, as Go decodes a Secret', async () => {
  const { manifest } = await loadText(secret('data: null\nstringData:\n  EMPTY:\n  SET: value'));
  assert.deepEqual(manifest.secrets[0].data, { EMPTY: '', SET: 'value' });
});

test('a Secret needs a name and a namespace', async () => {
  const { error } = await loadTextError('apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringData: {A: b}\n');
  assert.deepEqual(summary(error.diagnostics), ['3:1 metadata.namespace: missing required field "namespace"']);
  assert.match(error.diagnostics[0].hint ?? '', /-n\/--namespace or namespace: in the Config document/);
});

test('no Secret key or value appears in any message, hint or field of the error', async () => {
  const text = [
    secret('data:\n  TOKEN: "S3CRET-ALPHA!"', 'bad-base64'),
    secret('stringData:\n  "S3CRET BETA": x\n  PIN: 987654321\n  NESTED: {inner: S3CRET-ZETA}', 'bad-keys'),
    secret('pasword: S3CRET-EPSILON\nstringData:\n  password: "S3CRET-GAMMA\\q"', 'bad-escape'),
    secret('stringData:\n  password: |S3CRET-DELTA\n    text', 'bad-block'),
    'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: listed\n    namespace: capi-system\n    annotations:\n      kubectl.kubernetes.io/last-applied-configuration: \'{"stringData":{"K":"S3CRET-THETA"}}\'\n  data:\n    K: S3CRET-ETA\n  stringData:\n    NUM: 123456789\n',
  ].join('---\n');
  const { error } = await loadTextError(text);
  assert.deepEqual(summary(error.diagnostics), [
    '5:10 data.TOKEN: is not valid base64',
    '11:3 stringData: invalid key',
    '12:8 stringData.PIN: must be a string, got an integer',
    '13:11 stringData.NESTED: must be a string, got a mapping (key: value lines)',
    '20:26 -: invalid YAML: invalid escape sequence in a double-quoted string',
    '26:14 -: invalid YAML: block scalar header includes extra characters',
    '27:5 -: invalid YAML: block scalar lines must not be less indented than their explicit indentation indicator',
    '27:5 -: invalid YAML: block scalars with more-indented leading empty lines must use an explicit indentation indicator',
    '40:8 data.K: is not valid base64',
    '42:10 stringData.NUM: must be a string, got an integer',
  ]);
  const everything = error.message + JSON.stringify(error.diagnostics);
  for (const leaked of ['S3CRET', '987654321', '123456789']) assert.ok(!everything.includes(leaked), `"${leaked}" appears in the error`);
  // The misspelt field of an otherwise valid Secret is a key, not a value: it is named, its value is not.
  const unknown = await loadTextError(secret('pasword: S3CRET-EPSILON'));
  assert.deepEqual(summary(unknown.error.diagnostics), ['4:1 pasword: unknown field "pasword"']);
  assert.ok(!(unknown.error.message + JSON.stringify(unknown.error.diagnostics)).includes('S3CRET'));
});

test('ConfigMaps keep data, binaryData, labels and annotations, without the last-applied annotation', async () => {
  const { manifest, file } = await loadText(`apiVersion: v1
kind: ConfigMap
metadata:
  name: v1.12.0
  namespace: capi-system
  labels:
    provider.cluster.x-k8s.io/name: cluster-api
    provider.cluster.x-k8s.io/type: core
  annotations:
    provider.cluster.x-k8s.io/compressed: "true"
    kubectl.kubernetes.io/last-applied-configuration: "{}"
data:
  metadata: |
    apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
binaryData:
  components: H4sIAAAAAAAAA0tMTAQAl1qGEgMAAAA=
`);
  assert.deepEqual(manifest.configMaps, [
    {
      name: 'v1.12.0',
      namespace: 'capi-system',
      labels: { 'provider.cluster.x-k8s.io/name': 'cluster-api', 'provider.cluster.x-k8s.io/type': 'core' },
      annotations: { 'provider.cluster.x-k8s.io/compressed': 'true' },
      data: { metadata: 'apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\n' },
      binaryData: { components: 'H4sIAAAAAAAAA0tMTAQAl1qGEgMAAAA=' },
      position: { file, line: 1, column: 1 },
    },
  ]);
});

test('ConfigMap binaryData must be base64, a key must not be in data and binaryData, and label values must be valid', async () => {
  const { error } = await loadTextError(`apiVersion: v1
kind: ConfigMap
metadata:
  name: extra
  namespace: capi-system
  labels:
    provider.cluster.x-k8s.io/version: "not a label value"
data:
  components: x
binaryData:
  components: "%%%"
`);
  assert.deepEqual(summary(error.diagnostics), [
    '7:40 metadata.labels["provider.cluster.x-k8s.io/version"]: is not a valid label value',
    '11:3 binaryData.components: key "components" is in both data and binaryData',
    '11:15 binaryData.components: is not valid base64',
  ]);
});

test('the real operator artifact ConfigMaps of the corpus load, labels and data intact', async () => {
  const manifest = await loadManifest([CORPUS_CONFIGMAPS]);
  assert.deepEqual(
    manifest.configMaps.map((c) => [c.namespace, c.name, c.labels['provider.cluster.x-k8s.io/type'], Object.keys(c.data).sort()]),
    [
      ['capi-kubeadm-bootstrap-system', 'bootstrap-kubeadm-v1.12.0', 'bootstrap', ['components', 'metadata']],
      ['capi-kubeadm-control-plane-system', 'controlplane-kubeadm-v1.12.0', 'controlplane', ['components', 'metadata']],
      ['capi-system', 'core-cluster-api-v1.12.0', 'core', ['components', 'metadata']],
    ],
  );
  assert.match(manifest.configMaps[2].data.components, /^apiVersion: v1\nkind: Namespace\n/);
});
