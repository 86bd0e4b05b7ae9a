import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/core/kobject.js';
import type { CapiGitopsError } from '../../src/core/diagnostics.js';
import { PROVIDER_FILTERS, renderComponent, type RenderContext, type RenderFilter } from '../../src/render/pipeline.js';

function deployment(image: string): KObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'capi-controller-manager', namespace: 'capi-system' },
    spec: { template: { spec: { containers: [{ name: 'manager', image }] } } },
  } as KObject;
}

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

test('renderComponent runs the filters in order, each (objects, context) => objects', () => {
  const seen: string[] = [];
  const mark =
    (name: string): RenderFilter =>
    (objects, ctx) => {
      seen.push(`${name}:${ctx.label}:${objects.length}`);
      return [...objects, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } as KObject];
    };
  const out = renderComponent([], context(), [mark('a'), mark('b')]);
  assert.deepEqual(seen, ['a:cluster-api:0', 'b:cluster-api:1']);
  assert.deepEqual(
    out.map((o) => o.metadata.name),
    ['a', 'b'],
  );
});

test('the context records the object whose image an override from a Secret changed; without one nothing is recorded (clusterctl components.go FixImages order)', () => {
  const secretImage = context({ imageOverrides: { all: { repository: 'private.example.com/capi' } }, imageOverridesWithoutSecrets: {} });
  const rendered = renderComponent([deployment('registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0')], secretImage);
  assert.ok(
    rendered.some((o) => o.kind === 'Deployment' && JSON.stringify(o).includes('private.example.com/capi/cluster-api-controller:v1.12.0')),
  );
  assert.deepEqual(secretImage.secretFields, [{ object: 'Deployment/capi-system/capi-controller-manager' }]);

  const configImage = context({ imageOverrides: { all: { repository: 'mirror.example.com/capi' } } });
  renderComponent([deployment('registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0')], configImage);
  assert.deepEqual(configImage.secretFields, []);
  assert.ok(PROVIDER_FILTERS.length >= 8);
});

test("an image set by deployment.containers[].imageUrl or a patch takes the Config's image overrides, the configSecret's not (cluster-api-operator internal/controller/phase_fetch.go: imageOverrides after customizeObjectsFn and applyPatches, from the mounted clusterctl.yaml)", () => {
  const fromConfig = { all: { repository: 'mirror.internal/capi' } };
  const fromSecret = { 'cluster-api': { repository: 'secret.internal/capi' } };
  const spec = { deployment: { containers: [{ name: 'manager', imageUrl: 'ghcr.io/example/cluster-api-controller:v1.12.0-fix' }] } };
  const images = (ctx: RenderContext) =>
    renderComponent([deployment('registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0')], ctx)
      .filter((o) => o.kind === 'Deployment')
      .map((o) => JSON.stringify(o).match(/"image":"([^"]+)"/)![1]);

  assert.deepEqual(images(context({ spec, imageOverrides: fromConfig, configImageOverrides: fromConfig })), [
    'mirror.internal/capi/cluster-api-controller:v1.12.0-fix',
  ]);
  // the configSecret's overrides are applied by clusterctl's NewComponents, before the customisations
  assert.deepEqual(
    images(context({ spec, imageOverrides: fromConfig, secretImageOverrides: fromSecret, configImageOverrides: fromConfig })),
    ['mirror.internal/capi/cluster-api-controller:v1.12.0-fix'],
  );
  assert.deepEqual(images(context({ spec, imageOverrides: fromSecret, configImageOverrides: {} })), [
    'ghcr.io/example/cluster-api-controller:v1.12.0-fix',
  ]);
  // untouched images take the configSecret's overrides, then the Config's over what they wrote
  assert.deepEqual(images(context({ imageOverrides: fromConfig, secretImageOverrides: fromSecret, configImageOverrides: fromConfig })), [
    'mirror.internal/capi/cluster-api-controller:v1.12.0',
  ]);
  // the second pass looks its keys up by the name the first wrote (clusterctl imagemeta_client.go getImageMeta)
  const renamed = { 'cluster-api/cluster-api-controller': { name: 'renamed' } };
  const tagged = { 'cluster-api/cluster-api-controller': { tag: 'v9' }, 'cluster-api/renamed': { repository: 'mirror.internal/r' } };
  assert.deepEqual(images(context({ imageOverrides: tagged, secretImageOverrides: renamed, configImageOverrides: tagged })), [
    'mirror.internal/r/renamed:v1.12.0',
  ]);
  const patches = [
    {
      target: { kind: 'Deployment', name: 'capi-controller-manager' },
      patch: '[{"op": "replace", "path": "/spec/template/spec/containers/0/image", "value": "quay.io/example/manager:v2"}]',
    },
  ];
  assert.deepEqual(images(context({ spec: { patches }, imageOverrides: fromConfig, configImageOverrides: fromConfig })), [
    'mirror.internal/capi/manager:v2',
  ]);
});

test('objects clusterctl converts to their Go type keep an empty label as "" and refuse a label or annotation that is not a string (objs.go FixImages, components.go fixTargetNamespace: scheme.Convert)', () => {
  // FixImages converts every Deployment and DaemonSet, fixTargetNamespace every binding, webhook
  // configuration and CRD: a null value becomes "", a number or a boolean fails the conversion.
  // Other objects are read with GetLabels, which drops a map holding a null (labels.test.ts).
  const common = { 'clusterctl.cluster.x-k8s.io': '', 'cluster.x-k8s.io/provider': 'cluster-api' };
  const withEmpty = {
    ...deployment('registry.k8s.io/capi:v1'),
    metadata: { name: 'd', labels: { a: null, keep: 'x' } as never },
  } as KObject;
  const account = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 's', labels: { a: null, keep: 'x' } as never } } as KObject;
  const out = renderComponent([withEmpty, account], context());
  assert.deepEqual(out.find((o) => o.kind === 'Deployment')!.metadata.labels, { a: '', keep: 'x', ...common });
  assert.deepEqual(out.find((o) => o.kind === 'ServiceAccount')!.metadata.labels, common);

  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'b', labels: { version: 1.0 } as never },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'r' },
  } as KObject;
  const annotated = {
    ...deployment('registry.k8s.io/capi:v1'),
    metadata: { name: 'd', annotations: { enabled: true } as never },
  } as KObject;
  assert.throws(
    () => renderComponent([binding, annotated], context()),
    (err: CapiGitopsError) => {
      assert.deepEqual(
        err.diagnostics.map((d) => [d.object, d.path, d.message]),
        [
          ['Deployment/d', 'metadata.annotations["enabled"]', 'is a boolean, not a string'],
          ['ClusterRoleBinding/b', 'metadata.labels["version"]', 'is a number, not a string'],
        ],
      );
      assert.match(err.diagnostics[1]!.hint ?? '', /quote/);
      return true;
    },
  );
});

test('the field an image override from a Secret reached is recorded on the object as it is written: in the target namespace, where fixTargetNamespace moves it after FixImages (components.go NewComponents order)', () => {
  // the inline strategy lists the files holding secret values by these objects: recorded in the
  // artifact's namespace, the Deployment's file went unlisted when the target differs
  const moved = context({
    namespace: 'capi-prod',
    imageOverrides: { all: { repository: 'private.example.com/capi' } },
    imageOverridesWithoutSecrets: {},
  });
  const rendered = renderComponent([deployment('registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0')], moved);
  assert.ok(rendered.some((o) => o.kind === 'Deployment' && o.metadata.namespace === 'capi-prod'));
  assert.deepEqual(moved.secretFields, [{ object: 'Deployment/capi-prod/capi-controller-manager' }]);
});
