import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/core/kobject.js';
import { renderComponent, type RenderContext } from '../../src/render/pipeline.js';

function crd(name: string, labels?: Record<string, string>): KObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name, ...(labels ? { labels } : {}) },
    spec: { group: 'cluster.x-k8s.io', names: { kind: 'Cluster' }, scope: 'Namespaced' },
  } as KObject;
}

const OBJECTS: KObject[] = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'capi-system' } } as KObject,
  crd('clusters.cluster.x-k8s.io', { 'auth.cattle.io/cluster-indexed': 'false' }),
  crd('machines.cluster.x-k8s.io'),
  { apiVersion: 'v1', kind: 'Service', metadata: { name: 'capi-webhook-service', namespace: 'capi-system' } } as KObject,
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'capi-controller-manager', namespace: 'capi-system' },
    spec: {
      template: { spec: { containers: [{ name: 'manager', image: 'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0' }] } },
    },
  } as KObject,
];

function context(overrides: Partial<RenderContext> = {}): RenderContext {
  return {
    kind: 'CoreProvider',
    name: 'cluster-api',
    label: 'cluster-api',
    version: 'v1.12.0',
    namespace: 'capi-system',
    spec: {},
    imageOverrides: {},
    origin: {},
    secretFields: [],
    ...overrides,
  };
}

const LABEL = 'auth.cattle.io/cluster-indexed';
const TURTLES = 'CAPIProvider/capi-system/cluster-api';
const labelOf = (objects: KObject[]) =>
  Object.fromEntries(
    objects.map((o) => [`${o.kind}/${o.metadata.name}`, (o.metadata.labels as Record<string, string> | undefined)?.[LABEL]]),
  );

test('a CAPIProvider\'s CRDs, every one and only CRDs, are labelled auth.cattle.io/cluster-indexed: "true" after the patches, as Turtles\' operator hook does (rancher/turtles internal/provider/rancher.go AddClusterIndexedLabelFn, internal/controllers/operator_reconciler.go WithCustomAlterComponentsFuncs; cluster-api-operator internal/controller/phase_fetch.go runs customAlterComponentsFuncs after customizeObjectsFn, applyPatches and imageOverrides)', () => {
  // a patch that sets the label on a CRD is overwritten: Turtles' hook runs after the operator's patches
  const patches = [
    {
      target: { kind: 'CustomResourceDefinition', name: 'machines.cluster.x-k8s.io' },
      patch: `metadata:\n  labels:\n    ${LABEL}: "no"\n`,
    },
  ];
  const rendered = renderComponent(structuredClone(OBJECTS), context({ turtles: TURTLES, spec: { patches } }));
  assert.deepEqual(labelOf(rendered), {
    'Namespace/capi-system': undefined,
    'CustomResourceDefinition/clusters.cluster.x-k8s.io': 'true',
    'CustomResourceDefinition/machines.cluster.x-k8s.io': 'true',
    'Service/capi-webhook-service': undefined,
    'Deployment/capi-controller-manager': undefined,
    // the clusterctl inventory CRD is no object of the provider's components: Turtles' hook never sees it
    'CustomResourceDefinition/providers.clusterctl.cluster.x-k8s.io': undefined,
    'Provider/cluster-api': undefined,
  });
  // clusterctl's labels are kept beside it
  const clusters = rendered.find((o) => o.metadata.name === 'clusters.cluster.x-k8s.io')!;
  assert.equal((clusters.metadata.labels as Record<string, string>)['cluster.x-k8s.io/provider'], 'cluster-api');

  // an operator provider object (CoreProvider etc.): the cluster-api-operator alone adds no such label
  const operator = renderComponent(structuredClone(OBJECTS), context({ spec: { patches } }));
  assert.equal(labelOf(operator)['CustomResourceDefinition/clusters.cluster.x-k8s.io'], 'false');
  assert.equal(labelOf(operator)['CustomResourceDefinition/machines.cluster.x-k8s.io'], 'no');
});
