import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/core/kobject.js';
import { inspectImages } from '../../src/render/images.js';
import { addCertManagerLabels, addCertManagerVersionAnnotation, decorateCertManager } from '../../src/render/cert-manager.js';
import { corpusObjects } from '../helpers/corpus-objects.js';

function loadCertManager(): KObject[] {
  return corpusObjects('cert-manager', 'v1.13.0', 'cert-manager.yaml');
}

const key = (o: KObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

test('cert-manager v1.13.0: every object gets the clusterctl labels and the version annotation (clusterctl cert_manager.go addCerManagerLabel, addCerManagerAnnotations)', () => {
  const objs = loadCertManager();
  const before = JSON.stringify(objs);
  const out = decorateCertManager(objs, 'v1.13.0', {});
  assert.equal(JSON.stringify(objs), before, 'input must not be mutated');
  assert.equal(out.length, objs.length);
  assert.ok(out.some((o) => o.kind === 'Namespace') && out.some((o) => o.kind === 'CustomResourceDefinition'));
  out.forEach((o, i) => {
    assert.deepEqual(
      o.metadata.labels,
      { ...(objs[i].metadata.labels ?? {}), 'clusterctl.cluster.x-k8s.io': '', 'clusterctl.cluster.x-k8s.io/core': 'cert-manager' },
      key(o),
    );
    assert.deepEqual(
      o.metadata.annotations,
      { ...(objs[i].metadata.annotations ?? {}), 'cert-manager.clusterctl.cluster.x-k8s.io/version': 'v1.13.0' },
      key(o),
    );
    assert.ok(
      !Object.hasOwn(objs[i].metadata.labels ?? {}, 'cluster.x-k8s.io/provider') &&
        !Object.hasOwn(o.metadata.labels ?? {}, 'cluster.x-k8s.io/provider'),
      'no provider common labels on cert-manager',
    );
  });
});

test('cert-manager keeps its namespaces and text: no namespace fix, no variable substitution (clusterctl cert_manager.go getManifestObjs uses Raw)', () => {
  const objs = loadCertManager();
  const out = decorateCertManager(objs, 'v1.13.0', {});
  assert.deepEqual(
    out.map((o) => key(o)),
    objs.map((o) => key(o)),
  );
  assert.deepEqual([...new Set(out.map((o) => o.metadata.namespace).filter(Boolean))].sort(), ['cert-manager', 'kube-system']);
  const strip = (o: KObject) => JSON.stringify({ ...o, metadata: { ...o.metadata, labels: undefined, annotations: undefined } });
  assert.deepEqual(out.map(strip), objs.map(strip));
});

test('cert-manager images take overrides under the `cert-manager` component only (clusterctl config CertManagerImageComponent)', () => {
  const objs = loadCertManager();
  const out = decorateCertManager(objs, 'v1.13.0', {
    'cert-manager': { repository: 'mirror.example.com/jetstack' },
    'cert-manager/cert-manager-webhook': { tag: 'v1.13.0-patched' },
    'cluster-api': { repository: 'never.example.com' },
  });
  assert.deepEqual(inspectImages(out), [
    'mirror.example.com/jetstack/cert-manager-cainjector:v1.13.0',
    'mirror.example.com/jetstack/cert-manager-controller:v1.13.0',
    'mirror.example.com/jetstack/cert-manager-webhook:v1.13.0-patched',
  ]);
  const unchanged = decorateCertManager(objs, 'v1.13.0', { 'cluster-api': { repository: 'never.example.com' } });
  assert.deepEqual(inspectImages(unchanged), inspectImages(objs));
});

test('label and annotation helpers replace stale values and keep the rest', () => {
  const o: KObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'c',
      labels: { 'clusterctl.cluster.x-k8s.io/core': 'inventory', app: 'x' },
      annotations: { 'cert-manager.clusterctl.cluster.x-k8s.io/version': 'v1.12.0', a: 'b' },
    },
  };
  assert.deepEqual(addCertManagerLabels([o])[0].metadata.labels, {
    'clusterctl.cluster.x-k8s.io/core': 'cert-manager',
    app: 'x',
    'clusterctl.cluster.x-k8s.io': '',
  });
  assert.deepEqual(addCertManagerVersionAnnotation([o], 'v1.13.0')[0].metadata.annotations, {
    'cert-manager.clusterctl.cluster.x-k8s.io/version': 'v1.13.0',
    a: 'b',
  });
});

test('annotations holding a value that is not a string are replaced by the version annotation alone (clusterctl cert_manager.go addCerManagerAnnotations: GetAnnotations is nil then)', () => {
  const o = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', annotations: { keep: 'x', replicas: 2 } as never } } as KObject;
  assert.deepEqual(addCertManagerVersionAnnotation([o], 'v1.13.0')[0]!.metadata.annotations, {
    'cert-manager.clusterctl.cluster.x-k8s.io/version': 'v1.13.0',
  });
});

test('cert-manager Deployments keep an empty label as "" and refuse one that is not a string (clusterctl objs.go FixImages converts them to their Go type)', () => {
  const deployment = (labels: unknown) =>
    ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'cert-manager', namespace: 'cert-manager', labels } }) as KObject;
  assert.deepEqual(decorateCertManager([deployment({ app: null })], 'v1.13.0', {})[0]!.metadata.labels, {
    app: '',
    'clusterctl.cluster.x-k8s.io': '',
    'clusterctl.cluster.x-k8s.io/core': 'cert-manager',
  });
  assert.throws(() => decorateCertManager([deployment({ version: 1 })], 'v1.13.0', {}), /is a number, not a string/);
});
