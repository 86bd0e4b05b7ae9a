import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/core/kobject.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { renderComponent, type RenderContext } from '../../src/render/pipeline.js';

const INJECT = 'cert-manager.io/inject-ca-from';
const TURTLES = 'CAPIProvider/example-system/example';
const NEED_A_CERT = 'need-a-cert.cattle.io/secret-name';

/** A provider as kubebuilder lays one out: a webhook Service, its Certificate and Issuer, webhook configurations and a converting CRD. */
function objects(): KObject[] {
  const service = { namespace: 'system', name: 'webhook-service', path: '/convert' };
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'system' } },
    {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.io', annotations: { [INJECT]: 'system/serving-cert' } },
      spec: {
        group: 'example.io',
        names: { kind: 'Widget' },
        scope: 'Namespaced',
        conversion: { strategy: 'Webhook', webhook: { clientConfig: { caBundle: 'Cg==', service } } },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'webhook-service', namespace: 'system', annotations: { 'example.io/keep': 'yes' } },
      spec: { ports: [{ port: 443, targetPort: 9443 }] },
    },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'metrics', namespace: 'system' } },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'controller-manager', namespace: 'system' },
      spec: {
        template: {
          spec: {
            containers: [{ name: 'manager', image: 'example.io/manager:v1.0.0' }],
            volumes: [{ name: 'cert', secret: { secretName: 'webhook-cert' } }],
          },
        },
      },
    },
    {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: { name: 'serving-cert', namespace: 'system' },
      spec: { secretName: 'webhook-cert', issuerRef: { kind: 'Issuer', name: 'selfsigned-issuer' } },
    },
    {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Issuer',
      metadata: { name: 'selfsigned-issuer', namespace: 'system' },
      spec: { selfSigned: {} },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'mutating-webhook-configuration', annotations: { [INJECT]: 'system/serving-cert' } },
      webhooks: [{ name: 'm.widget.example.io', clientConfig: { service: { ...service, path: '/mutate' } } }],
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'validating-webhook-configuration', annotations: { [INJECT]: 'system/serving-cert', 'example.io/note': 'kept' } },
      webhooks: [{ name: 'v.widget.example.io', clientConfig: { service: { ...service, path: '/validate' } } }],
    },
  ] as KObject[];
}

function context(overrides: Partial<RenderContext> = {}): RenderContext {
  return {
    kind: 'InfrastructureProvider',
    name: 'example',
    label: 'infrastructure-example',
    version: 'v1.0.0',
    namespace: 'example-system',
    spec: {},
    imageOverrides: {},
    origin: { object: 'InfrastructureProvider/example-system/example', file: '/m/providers.yaml', line: 3, column: 1 },
    secretFields: [],
    ...overrides,
  };
}

const find = (objs: KObject[], kind: string, name: string) => objs.find((o) => o.kind === kind && o.metadata.name === name);

test("a CAPIProvider's components with Turtles' no-cert-manager on: its Certificates and Issuers dropped, every cert-manager.io/inject-ca-from taken off, each webhook Service annotated need-a-cert.cattle.io/secret-name with its Certificate's secretName, after the CRDs' cluster-indexed label (rancher/turtles internal/provider/wrangler.go WranglerPatcher; internal/controllers/operator_reconciler.go appends it after AddClusterIndexedLabelFn)", () => {
  const rendered = renderComponent(objects(), context({ turtles: TURTLES, turtlesNoCertManager: true }));
  assert.deepEqual(
    rendered.filter((o) => o.kind === 'Certificate' || o.kind === 'Issuer'),
    [],
  );
  assert.deepEqual(
    rendered.filter((o) => o.metadata.annotations?.[INJECT] !== undefined).map((o) => o.kind),
    [],
  );
  // the webhook Service, in the target namespace fixTargetNamespace moved it to, keeps its own annotations
  const service = find(rendered, 'Service', 'webhook-service')!;
  assert.equal(service.metadata.namespace, 'example-system');
  assert.deepEqual(service.metadata.annotations, { 'example.io/keep': 'yes', [NEED_A_CERT]: 'webhook-cert' });
  // a Service no webhook calls is left alone
  assert.equal(find(rendered, 'Service', 'metrics')!.metadata.annotations, undefined);
  // the annotations map stays, emptied, as unstructured SetAnnotations leaves it
  assert.deepEqual(find(rendered, 'MutatingWebhookConfiguration', 'mutating-webhook-configuration')!.metadata.annotations, {});
  assert.deepEqual(find(rendered, 'ValidatingWebhookConfiguration', 'validating-webhook-configuration')!.metadata.annotations, {
    'example.io/note': 'kept',
  });
  const crd = find(rendered, 'CustomResourceDefinition', 'widgets.example.io')!;
  assert.deepEqual(crd.metadata.annotations, {});
  assert.equal(crd.metadata.labels?.['auth.cattle.io/cluster-indexed'], 'true');

  // no-cert-manager off, or an operator object (the cluster-api-operator alone): the components for cert-manager
  for (const off of [context({ turtles: TURTLES }), context({ turtlesNoCertManager: true })]) {
    const kept = renderComponent(objects(), off);
    assert.deepEqual(
      kept.filter((o) => o.kind === 'Certificate' || o.kind === 'Issuer').map((o) => o.kind),
      ['Issuer', 'Certificate'],
    );
    assert.equal(find(kept, 'Service', 'webhook-service')!.metadata.annotations?.[NEED_A_CERT], undefined);
    assert.equal(
      find(kept, 'CustomResourceDefinition', 'widgets.example.io')!.metadata.annotations?.[INJECT],
      'example-system/serving-cert',
    );
  }
});

test('WranglerPatcher reads the components after the patches, and annotations as unstructured GetAnnotations does: a map with a value that is not a string is none, so a Service annotated holds the one annotation and such an object keeps its inject-ca-from (rancher/turtles internal/provider/wrangler.go WranglerPatcher; cluster-api-operator internal/controller/phase_fetch.go Fetch)', () => {
  const patches = [
    { target: { kind: 'Certificate', name: 'serving-cert' }, patch: 'spec:\n  secretName: patched-cert\n' },
    { target: { kind: 'Service', name: 'webhook-service' }, patch: 'metadata:\n  annotations:\n    prometheus.io/port: 8443\n' },
  ];
  const input = objects();
  const notStrings = {
    apiVersion: 'example.io/v1',
    kind: 'Widget',
    metadata: { name: 'w', annotations: { [INJECT]: 'nowhere/none', n: 1 } },
  };
  const rendered = renderComponent(
    [...input, notStrings as unknown as KObject],
    context({ turtles: TURTLES, turtlesNoCertManager: true, spec: { patches } }),
  );
  assert.deepEqual(find(rendered, 'Service', 'webhook-service')!.metadata.annotations, { [NEED_A_CERT]: 'patched-cert' });
  assert.deepEqual(find(rendered, 'Widget', 'w')!.metadata.annotations, { [INJECT]: 'nowhere/none', n: 1 });
});

test('a Certificate without spec.secretName, and an inject-ca-from that names no Certificate, fail the CAPIProvider as they fail it in Turtles, every problem at the CAPIProvider with a spec.patches entry that fixes it (rancher/turtles internal/provider/wrangler.go getCertificates ErrNoCertificateSecret, getServices)', () => {
  const input = objects().map((o) => {
    if (o.kind === 'Certificate') return { ...o, spec: { issuerRef: { kind: 'Issuer', name: 'selfsigned-issuer' } } };
    if (o.kind === 'ValidatingWebhookConfiguration')
      return { ...o, metadata: { ...o.metadata, annotations: { [INJECT]: 'system/other-cert' } } };
    return o;
  });
  // at the CAPIProvider's place, named as the input names it
  const origin = { ...context().origin, object: TURTLES };
  let caught: unknown;
  try {
    renderComponent(input, context({ turtles: TURTLES, turtlesNoCertManager: true }));
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof CapiGitopsError, String(caught));
  const problems = caught.diagnostics;
  assert.deepEqual(
    problems.map((d) => [d.object, d.file, d.line, d.column]),
    [
      [origin.object, origin.file, origin.line, origin.column],
      [origin.object, origin.file, origin.line, origin.column],
    ],
  );
  assert.match(problems[0]!.message, /^Certificate\/example-system\/serving-cert of the components: it has no spec\.secretName/);
  assert.match(problems[0]!.message, /certificate has no secretName defined/);
  // the inject-ca-from naming the broken Certificate is no second problem; the one naming none is
  assert.match(
    problems[1]!.message,
    /^ValidatingWebhookConfiguration\/validating-webhook-configuration of the components has cert-manager\.io\/inject-ca-from: "example-system\/other-cert", which names no Certificate/,
  );

  // followed literally: the examples as the CAPIProvider's spec.patches, and the render passes
  const patches = problems.map((d) => {
    const lines = d.example!.split('\n');
    assert.equal(lines[0], 'patches:');
    const kind = /kind: (\S+)/.exec(d.example!)![1]!;
    const name = /name: (\S+)/.exec(d.example!)![1]!;
    const body = lines.slice(lines.indexOf('  patch: |') + 1).map((l) => l.slice(4));
    return { target: { kind, name }, patch: body.join('\n') + '\n' };
  });
  assert.match(patches[0]!.patch, /secretName: webhook-cert/);
  const fixed = renderComponent(input, context({ turtles: TURTLES, turtlesNoCertManager: true, spec: { patches } }));
  assert.deepEqual(find(fixed, 'Service', 'webhook-service')!.metadata.annotations, {
    'example.io/keep': 'yes',
    [NEED_A_CERT]: 'webhook-cert',
  });
  assert.deepEqual(find(fixed, 'ValidatingWebhookConfiguration', 'validating-webhook-configuration')!.metadata.annotations, {});
});
