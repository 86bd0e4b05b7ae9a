import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/core/kobject.js';
import { compareObjects, sortObjects } from '../../src/core/order.js';
import { KIND_ORDER } from '../../src/core/kinds.js';
import { corpusObjects } from '../helpers/corpus-objects.js';

const o = (kind: string, name: string, namespace?: string, apiVersion = 'v1'): KObject => ({
  apiVersion,
  kind,
  metadata: namespace === undefined ? { name } : { name, namespace },
});
const key = (x: KObject) => `${x.kind}/${x.metadata.namespace ?? ''}/${x.metadata.name}`;

test('the kind order is data: Namespace, CRDs, RBAC before workloads, cert-manager before webhooks (Helm releaseutil kind_sorter InstallOrder, clusterctl NewComponents cert-manager first)', () => {
  const at = (kind: string) => KIND_ORDER.indexOf(kind);
  assert.equal(KIND_ORDER[0], 'Namespace');
  assert.equal(KIND_ORDER[1], 'CustomResourceDefinition');
  const chain = [
    'ServiceAccount',
    'Secret',
    'ConfigMap',
    'ClusterRole',
    'ClusterRoleBinding',
    'Role',
    'RoleBinding',
    'Service',
    'Deployment',
    'DaemonSet',
    'Issuer',
    'ClusterIssuer',
    'Certificate',
    'MutatingWebhookConfiguration',
    'ValidatingWebhookConfiguration',
  ];
  for (let i = 1; i < chain.length; i++) assert.ok(at(chain[i - 1]) < at(chain[i]), `${chain[i - 1]} before ${chain[i]}`);
  assert.equal(new Set(KIND_ORDER).size, KIND_ORDER.length, 'no kind listed twice');
});

test('unknown kinds follow the listed ones alphabetically by code unit; ties break by name, namespace, apiVersion', () => {
  const input = [
    o('zeta', 'a'),
    o('ValidatingWebhookConfiguration', 'v'),
    o('Widget', 'b', 'ns'),
    o('Widget', 'b', 'a-ns'),
    o('Widget', 'a', 'z-ns'),
    o('Alpha', 'x'),
    o('Widget', 'a', 'z-ns', 'example.com/v1'),
    o('ConfigMap', 'B', 'ns'),
    o('ConfigMap', 'a', 'ns'),
    o('Namespace', 'n'),
  ];
  assert.deepEqual(
    sortObjects(input).map((x) => `${key(x)}@${x.apiVersion}`),
    [
      'Namespace//n@v1',
      'ConfigMap/ns/B@v1',
      'ConfigMap/ns/a@v1',
      'ValidatingWebhookConfiguration//v@v1',
      'Alpha//x@v1',
      'Widget/z-ns/a@example.com/v1',
      'Widget/z-ns/a@v1',
      'Widget/a-ns/b@v1',
      'Widget/ns/b@v1',
      'zeta//a@v1',
    ],
  );
  assert.equal(input[0].kind, 'zeta', 'the input array keeps its order');
});

test('sorting core v1.12.0 is total and independent of input order', () => {
  const objs = corpusObjects('cluster-api', 'v1.12.0', 'core-components.yaml');
  const sorted = sortObjects(objs).map(key);
  const reversed = sortObjects([...objs].reverse()).map(key);
  const rotated = sortObjects([...objs.slice(17), ...objs.slice(0, 17)]).map(key);
  assert.deepEqual(reversed, sorted);
  assert.deepEqual(rotated, sorted);
  assert.equal(new Set(sorted).size, sorted.length);
  const once = sortObjects(objs);
  for (let i = 1; i < once.length; i++) assert.ok(compareObjects(once[i - 1], once[i]) < 0, `${key(once[i - 1])} < ${key(once[i])}`);
  const kinds = [...new Set(once.map((x) => x.kind))];
  assert.deepEqual(kinds, [
    'Namespace',
    'CustomResourceDefinition',
    'ServiceAccount',
    'ClusterRole',
    'ClusterRoleBinding',
    'Role',
    'RoleBinding',
    'Service',
    'Deployment',
    'Issuer',
    'Certificate',
    'MutatingWebhookConfiguration',
    'ValidatingWebhookConfiguration',
  ]);
});
