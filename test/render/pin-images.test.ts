/** The pure rewrite of container images to `repository:tag@digest` (src/render/pin-images.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { containerImages, pinComponentImages, pinnedImage, pinObjectImages } from '../../src/render/pin-images.js';
import type { KObject } from '../../src/core/kobject.js';
import type { RenderedComponent } from '../../src/render/types.js';

const DIGEST = `sha256:${'c'.repeat(64)}`;
const SHIPPED = `sha256:${'d'.repeat(64)}`;

const podSpec = (image: string, init?: string) => ({
  ...(init ? { initContainers: [{ name: 'init', image: init }] } : {}),
  containers: [{ name: 'manager', image, args: ['--leader-elect'] }],
});
const objects: KObject[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'capi-system' }, data: { image: 'not/a:container' } },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'manager', namespace: 'capi-system' },
    spec: {
      replicas: 1,
      template: { metadata: { labels: { app: 'x' } }, spec: podSpec('registry.example.com/capi/manager:v1', 'busybox:1.36') },
    },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'capi-system' },
    spec: { template: { spec: podSpec('registry.example.com/capi/agent:v1') } },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'store', namespace: 'capi-system' },
    spec: { template: { spec: podSpec('registry.example.com/capi/store:v1') } },
  },
  {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'migrate', namespace: 'capi-system' },
    spec: { template: { spec: podSpec('registry.example.com/capi/migrate:v1') } },
  },
  {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'gc', namespace: 'capi-system' },
    spec: { schedule: '@daily', jobTemplate: { spec: { template: { spec: podSpec(`registry.example.com/capi/gc:v1@${SHIPPED}`) } } } },
  },
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'debug', namespace: 'capi-system' },
    spec: podSpec('registry.example.com/capi/debug:v1'),
  },
];

test('every container and init container image of every kind that runs pods is found, with its object, field and container', () => {
  const found = containerImages(objects);
  assert.deepEqual(
    found.map((f) => `${f.object} ${f.path} ${f.container} ${f.image}`),
    [
      'Deployment/capi-system/manager spec.template.spec.initContainers[0].image init busybox:1.36',
      'Deployment/capi-system/manager spec.template.spec.containers[0].image manager registry.example.com/capi/manager:v1',
      'DaemonSet/capi-system/agent spec.template.spec.containers[0].image manager registry.example.com/capi/agent:v1',
      'StatefulSet/capi-system/store spec.template.spec.containers[0].image manager registry.example.com/capi/store:v1',
      'Job/capi-system/migrate spec.template.spec.containers[0].image manager registry.example.com/capi/migrate:v1',
      `CronJob/capi-system/gc spec.jobTemplate.spec.template.spec.containers[0].image manager registry.example.com/capi/gc:v1@${SHIPPED}`,
      'Pod/capi-system/debug spec.containers[0].image manager registry.example.com/capi/debug:v1',
    ],
  );
});

test('pinning keeps the tag, leaves an image that names a digest and objects without a known image as they are, and changes no input', () => {
  const before = structuredClone(objects);
  const digests = new Map(containerImages(objects).map((f) => [f.image, DIGEST]));
  const pinned = pinObjectImages(objects, digests);
  assert.deepEqual(objects, before, 'inputs untouched');
  assert.equal(pinned[0], objects[0], 'a ConfigMap is returned as it is');
  assert.equal(pinned[5], objects[5], 'an image pinned by the artifact is kept as written');
  assert.deepEqual(
    containerImages(pinned).map((f) => f.image),
    [
      `busybox:1.36@${DIGEST}`,
      `registry.example.com/capi/manager:v1@${DIGEST}`,
      `registry.example.com/capi/agent:v1@${DIGEST}`,
      `registry.example.com/capi/store:v1@${DIGEST}`,
      `registry.example.com/capi/migrate:v1@${DIGEST}`,
      `registry.example.com/capi/gc:v1@${SHIPPED}`,
      `registry.example.com/capi/debug:v1@${DIGEST}`,
    ],
  );
  const deployment = pinned[1] as unknown as {
    spec: { replicas: number; template: { metadata: unknown; spec: { containers: { args: string[] }[] } } };
  };
  assert.equal(deployment.spec.replicas, 1);
  assert.deepEqual(deployment.spec.template.metadata, { labels: { app: 'x' } });
  assert.deepEqual(deployment.spec.template.spec.containers[0]!.args, ['--leader-elect']);
  assert.equal(pinnedImage(`a/b:c@${SHIPPED}`, DIGEST), `a/b:c@${SHIPPED}`);
});

test('a component whose images are not in the map is the same component', () => {
  const component: RenderedComponent = {
    label: 'cluster-api',
    type: 'CoreProvider',
    name: 'cluster-api',
    version: 'v1.12.0',
    namespace: 'capi-system',
    artifactSha256: 'x',
    objects,
  };
  assert.equal(pinComponentImages(component, new Map()), component);
  assert.notEqual(pinComponentImages(component, new Map([['busybox:1.36', DIGEST]])), component);
});
