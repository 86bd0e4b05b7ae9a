/**
 * `kind: Namespace` documents: the operator's docs tell users to create the namespace first, and
 * the CAPG docs, the Turtles chart, the Flux guide and Intel's manifests carry one beside the
 * providers. They are read, not refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadText, loadTextError, provider, summary } from '../fixtures/manifest/helpers.js';

test('a Namespace document is read: name, labels, annotations, spec; what kubectl get -o yaml adds is ignored', async () => {
  const { manifest, file } = await loadText(
    `${provider('')}---
apiVersion: v1
kind: Namespace
metadata:
  name: capi-system
  labels:
    pod-security.kubernetes.io/enforce: privileged
    kubernetes.io/metadata.name: capi-system
  annotations:
    owner.example.com/team: platform
  uid: 0c0e8d52-58c4-4f4e-9d0b-6d3cb1d6e8b1
  resourceVersion: "4711"
  creationTimestamp: "2025-01-01T00:00:00Z"
spec:
  finalizers:
  - kubernetes
status:
  phase: Active
`,
  );
  assert.deepEqual(manifest.namespaces, [
    {
      name: 'capi-system',
      labels: { 'pod-security.kubernetes.io/enforce': 'privileged', 'kubernetes.io/metadata.name': 'capi-system' },
      annotations: { 'owner.example.com/team': 'platform' },
      spec: { finalizers: ['kubernetes'] },
      position: { file, line: 7, column: 1 },
    },
  ]);
  assert.equal(manifest.providers.length, 1);
});

test('a Namespace in a List (kubectl get ns,coreproviders -o yaml) is read as a document would be', async () => {
  const { manifest } = await loadText(`apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata: {name: kcm-system}
- ${provider('').replace(/\n/g, '\n  ').replace('capi-system', 'kcm-system').trimEnd()}
`);
  assert.deepEqual(
    manifest.namespaces?.map((n) => n.name),
    ['kcm-system'],
  );
  assert.equal(manifest.providers[0]!.namespace, 'kcm-system');
});

test('a manifest without Namespace documents has no namespaces field', async () => {
  const { manifest } = await loadText(provider(''));
  assert.equal(manifest.namespaces, undefined);
});

test('Namespace documents: a duplicate, a name that is not a DNS label and an unknown field are reported at their places', async () => {
  const { error, file } = await loadTextError(`apiVersion: v1
kind: Namespace
metadata: {name: capi-system}
---
apiVersion: v1
kind: Namespace
metadata:
  name: capi-system
---
apiVersion: v1
kind: Namespace
metadata:
  name: Capi_System
---
apiVersion: v1
kind: Namespace
metadata:
  name: ok
  lables: {a: b}
`);
  assert.deepEqual(summary(error.diagnostics), [
    `5:1 -: duplicate Namespace capi-system; the first is at ${file}:1:1`,
    '13:9 metadata.name: is not a valid DNS label',
    '19:3 metadata.lables: unknown field "lables"',
  ]);
});
