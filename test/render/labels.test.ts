import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/core/kobject.js';
import { addCommonLabels, commonLabels } from '../../src/render/labels.js';
import { removeOwnerReferences } from '../../src/render/owner-references.js';
import { addCertManagerLabels } from '../../src/render/cert-manager.js';
import { corpusObjects } from '../helpers/corpus-objects.js';

test('common labels are the manifest label and an empty clusterctl label (clusterctl components.go getCommonLabels)', () => {
  assert.deepEqual(commonLabels('bootstrap-kubeadm'), {
    'clusterctl.cluster.x-k8s.io': '',
    'cluster.x-k8s.io/provider': 'bootstrap-kubeadm',
  });
});

test('every object of bootstrap-kubeadm v1.12.0 gets the common labels, existing labels kept (clusterctl components.go addCommonLabels)', () => {
  const objs = corpusObjects('bootstrap-kubeadm', 'v1.12.0', 'bootstrap-components.yaml');
  const before = JSON.stringify(objs);
  const out = addCommonLabels(objs, 'bootstrap-kubeadm');
  assert.equal(JSON.stringify(objs), before, 'input must not be mutated');
  assert.equal(out.length, objs.length);
  out.forEach((o, i) => {
    const original = objs[i].metadata.labels ?? {};
    assert.deepEqual(
      o.metadata.labels,
      { ...original, 'clusterctl.cluster.x-k8s.io': '', 'cluster.x-k8s.io/provider': 'bootstrap-kubeadm' },
      `${o.kind}/${o.metadata.name}`,
    );
  });
  const unlabelled = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
  assert.deepEqual(addCommonLabels([unlabelled], 'cluster-api')[0].metadata.labels, {
    'clusterctl.cluster.x-k8s.io': '',
    'cluster.x-k8s.io/provider': 'cluster-api',
  });
  // a stale value of the same key is replaced
  const stale = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', labels: { 'cluster.x-k8s.io/provider': 'old', keep: 'me' } },
  };
  assert.deepEqual(addCommonLabels([stale], 'cluster-api')[0].metadata.labels, {
    'cluster.x-k8s.io/provider': 'cluster-api',
    keep: 'me',
    'clusterctl.cluster.x-k8s.io': '',
  });
});

test('pod templates and selectors are not labelled (clusterctl components.go addCommonLabels sets metadata.labels only)', () => {
  const objs = corpusObjects('cluster-api', 'v1.12.0', 'core-components.yaml');
  const deployment = objs.find((o) => o.kind === 'Deployment')!;
  const [out] = addCommonLabels([deployment], 'renamed-provider');
  assert.equal(out.metadata.labels?.['cluster.x-k8s.io/provider'], 'renamed-provider');
  assert.equal(out.spec, deployment.spec, 'the untouched spec is shared, not copied');
  const spec = out.spec as any;
  assert.deepEqual(spec.template.metadata.labels, { 'cluster.x-k8s.io/provider': 'cluster-api', 'control-plane': 'controller-manager' });
  assert.deepEqual(spec.selector.matchLabels, { 'cluster.x-k8s.io/provider': 'cluster-api', 'control-plane': 'controller-manager' });
});

test('ownerReferences are removed and objects without them are returned as they are', () => {
  const owned: KObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'c',
      namespace: 'n',
      ownerReferences: [{ apiVersion: 'operator.cluster.x-k8s.io/v1alpha2', kind: 'CoreProvider', name: 'cluster-api', uid: 'u' }],
    },
    data: { a: 'b' },
  };
  const plain: KObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'd' } };
  const out = removeOwnerReferences([owned, plain]);
  assert.deepEqual(out[0], { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'n' }, data: { a: 'b' } });
  assert.ok(!('ownerReferences' in out[0].metadata));
  assert.equal(out[1], plain);
  assert.ok(Array.isArray(owned.metadata.ownerReferences), 'input must not be mutated');
});

test('labels holding a value that is not a string are replaced by the common labels alone (clusterctl components.go addCommonLabels: GetLabels is nil then)', () => {
  // unstructured GetLabels reads metadata.labels with NestedStringMap, which gives nil for a map
  // with any value that is not a string; addCommonLabels then sets a new map of its two labels.
  // Kept, `version: 1.0` would be written as a number, which kubectl and the API server refuse.
  const objs: KObject[] = [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'a', labels: { 'app.kubernetes.io/name': 'acme', version: 1, on: true } as never },
    },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'b', labels: { empty: null } as never } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'c', labels: ['x'] as never } },
  ];
  for (const out of addCommonLabels(objs, 'infrastructure-acme'))
    assert.deepEqual(
      out.metadata.labels,
      { 'clusterctl.cluster.x-k8s.io': '', 'cluster.x-k8s.io/provider': 'infrastructure-acme' },
      out.metadata.name,
    );
});

test('cert-manager objects whose labels hold a value that is not a string get its two labels alone (clusterctl cert_manager.go addCerManagerLabel)', () => {
  const obj: KObject = {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'a', labels: { app: 'cert-manager', version: 1.13 } as never },
  };
  assert.deepEqual(addCertManagerLabels([obj])[0]!.metadata.labels, {
    'clusterctl.cluster.x-k8s.io': '',
    'clusterctl.cluster.x-k8s.io/core': 'cert-manager',
  });
});
