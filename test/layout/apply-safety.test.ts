/**
 * Apply-safety rules written into the objects (one filter each), on fixtures with exactly the
 * property under test and on real corpus objects.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { KObject } from '../../src/core/kobject.js';
import type { RenderedComponent } from '../../src/render/types.js';
import { layoutOutput } from '../../src/layout/index.js';
import { prepareChart } from '../../src/layout/chart/index.js';
import { LARGE_OBJECT_BYTES, largeObjectSyncOption, objectWave } from '../../src/layout/apply-safety.js';
import { emitYamlDocument } from '../../src/yaml/emit.js';
import { wranglerPatcher } from '../../src/render/wrangler.js';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';
import { rejection } from '../helpers/assertions.js';
import { wiringProblems } from '../helpers/crd-schema.js';

const SHA = 'a'.repeat(64);

function component(type: RenderedComponent['type'], label: string, namespace: string, objects: KObject[]): RenderedComponent {
  return { type, label, name: label, version: 'v1.0.0', namespace, artifactSha256: SHA, objects };
}

const NAMESPACE: KObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'capx-system' } };
/** A CRD with cert-manager's CA injection and the placeholder bundle CAPA ships (`Cg==`). */
const INJECTED_CRD: KObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.dev', annotations: { 'cert-manager.io/inject-ca-from': 'capx-system/capx-serving-cert' } },
  spec: {
    group: 'example.dev',
    names: { kind: 'Widget', plural: 'widgets' },
    scope: 'Namespaced',
    conversion: {
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1'],
        clientConfig: { caBundle: 'Cg==', service: { name: 'capx-webhook-service', namespace: 'capx-system', path: '/convert' } },
      },
    },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
  },
};
const INJECTED_WEBHOOK: KObject = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'capx-validating', annotations: { 'cert-manager.io/inject-ca-from': 'capx-system/capx-serving-cert' } },
  webhooks: [
    {
      name: 'v.widget.example.dev',
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      clientConfig: { caBundle: 'Cg==', service: { name: 'capx-webhook-service', namespace: 'capx-system' } },
    },
  ],
};
/** The same placeholder on an object cert-manager does not inject into stays. */
const PLAIN_WEBHOOK: KObject = { ...INJECTED_WEBHOOK, metadata: { name: 'other-validating' } };
const DEPLOYMENT: KObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'capx-controller-manager', namespace: 'capx-system' },
  spec: { template: { spec: { containers: [{ name: 'manager', image: 'example.dev/capx:v1', args: ['--v=2'] }] } } },
};
const CERTIFICATE: KObject = {
  apiVersion: 'cert-manager.io/v1',
  kind: 'Certificate',
  metadata: { name: 'capx-serving-cert', namespace: 'capx-system' },
  spec: { secretName: 'capx-webhook-service-cert' },
};
const SCRIPT: KObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'capx-script', namespace: 'capx-system' },
  data: { 'run.sh': 'echo ${HOME}\n' },
};
const HOOKED: KObject = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: {
    name: 'capx-upgrade',
    namespace: 'capx-system',
    annotations: { 'helm.sh/hook': 'pre-upgrade', 'helm.sh/hook-weight': '1', keep: 'me' },
  },
};

const COMPONENTS = [
  component('InfrastructureProvider', 'infrastructure-capx', 'capx-system', [
    NAMESPACE,
    INJECTED_CRD,
    CERTIFICATE,
    DEPLOYMENT,
    INJECTED_WEBHOOK,
    PLAIN_WEBHOOK,
    SCRIPT,
    HOOKED,
  ]),
];

async function layout(
  name: 'kustomize' | 'argocd' | 'flux',
  unmanaged: { group: string; kind: string; name: string; namespace?: string }[] = [],
) {
  const wiring =
    name === 'kustomize'
      ? undefined
      : await prepareChart({
          builtIn: name,
          set: [
            ...(name === 'argocd' ? [{ expression: 'repoURL=https://git.example.com/x.git', forceString: false }] : []),
            { expression: 'path=mgmt', forceString: false },
          ],
        });
  return layoutOutput({ layout: name, components: COMPONENTS, unmanaged, wiring, command: 'capi-gitops render' });
}

function read(files: Map<string, string>, file: string): KObject {
  const text = files.get(file);
  assert.ok(text, `no ${file} in ${[...files.keys()].join(', ')}`);
  return YAML.parse(text) as KObject;
}

const DIR = '04-infrastructure-capx';

test('CRDs and Namespaces: Argo CD Prune=false,Delete=false,ServerSideApply=true in one annotation; Flux prune disabled', async () => {
  const argo = await layout('argocd');
  for (const file of [`${DIR}/crds/customresourcedefinition-widgets.example.dev.yaml`, `${DIR}/namespace-capx-system.yaml`]) {
    assert.equal(
      read(argo, file).metadata.annotations?.['argocd.argoproj.io/sync-options'],
      'Prune=false,Delete=false,ServerSideApply=true',
      file,
    );
    assert.equal(
      read(argo, file).metadata.annotations?.['kustomize.toolkit.fluxcd.io/prune'],
      undefined,
      'no Flux annotations in the argocd layout',
    );
  }
  const flux = await layout('flux');
  for (const file of [`${DIR}/crds/customresourcedefinition-widgets.example.dev.yaml`, `${DIR}/namespace-capx-system.yaml`]) {
    assert.equal(read(flux, file).metadata.annotations?.['kustomize.toolkit.fluxcd.io/prune'], 'disabled', file);
    assert.equal(read(flux, file).metadata.annotations?.['argocd.argoproj.io/sync-options'], undefined);
  }
  const plain = await layout('kustomize');
  const crd = read(plain, `${DIR}/crds/customresourcedefinition-widgets.example.dev.yaml`);
  assert.equal(crd.metadata.annotations?.['argocd.argoproj.io/sync-options'], 'Prune=false,Delete=false,ServerSideApply=true');
  assert.equal(
    crd.metadata.annotations?.['kustomize.toolkit.fluxcd.io/prune'],
    'disabled',
    "the kustomize layout carries both tools' rules",
  );
  assert.equal(
    read(argo, `${DIR}/deployment-capx-controller-manager.yaml`).metadata.annotations?.['argocd.argoproj.io/sync-options'],
    undefined,
    'other objects keep the Application default',
  );
});

test('waves inside a component: Namespaces and CRDs, then cert-manager issuers and certificates, then RBAC, Services, Deployments and webhooks, then the rest', async () => {
  const argo = await layout('argocd');
  const wave = (file: string) => read(argo, `${DIR}/${file}`).metadata.annotations?.['argocd.argoproj.io/sync-wave'];
  assert.deepEqual(
    [
      wave('namespace-capx-system.yaml'),
      wave('crds/customresourcedefinition-widgets.example.dev.yaml'),
      wave('certificate-capx-serving-cert.yaml'),
      wave('deployment-capx-controller-manager.yaml'),
      wave('validatingwebhookconfiguration-capx-validating.yaml'),
      wave('configmap-capx-script.yaml'),
    ],
    ['0', '0', '1', '2', '2', '3'],
  );
  assert.equal(objectWave({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'x' } }), 2);
  assert.equal(objectWave({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'x' } }), 2);
  // a Deployment mounts or reads its credentials: the Secret, or the ExternalSecret that makes it, comes a wave before
  assert.equal(objectWave({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } }), 1);
  assert.equal(objectWave({ apiVersion: 'external-secrets.io/v1', kind: 'ExternalSecret', metadata: { name: 'x' } }), 1);
});

test('helm.sh/hook annotations are never written', async () => {
  for (const name of ['kustomize', 'argocd', 'flux'] as const) {
    const job = read(await layout(name), `${DIR}/job-capx-upgrade.yaml`);
    assert.deepEqual(
      Object.keys(job.metadata.annotations ?? {}).filter((k) => k.startsWith('helm.sh')),
      [],
      name,
    );
    assert.equal(job.metadata.annotations?.keep, 'me');
  }
});

test('cert-manager CA injection: the placeholder caBundle is left out where cainjector owns it, and Argo CD ignores the injected field (cert-manager cainjector)', async () => {
  for (const name of ['kustomize', 'argocd', 'flux'] as const) {
    const files = await layout(name);
    const crd = read(files, `${DIR}/crds/customresourcedefinition-widgets.example.dev.yaml`) as any;
    assert.equal('caBundle' in crd.spec.conversion.webhook.clientConfig, false, name);
    assert.deepEqual(crd.spec.conversion.webhook.clientConfig.service, {
      name: 'capx-webhook-service',
      namespace: 'capx-system',
      path: '/convert',
    });
    const injected = read(files, `${DIR}/validatingwebhookconfiguration-capx-validating.yaml`) as any;
    assert.equal('caBundle' in injected.webhooks[0].clientConfig, false, name);
    const plain = read(files, `${DIR}/validatingwebhookconfiguration-other-validating.yaml`) as any;
    assert.equal(plain.webhooks[0].clientConfig.caBundle, 'Cg==', 'not injected by cert-manager: kept');
    for (const text of [...files.values()]) assert.ok(!text.includes('caBundle: Cg==') || text.includes('other-validating'));
  }
  const app = read(await layout('argocd'), 'argocd/application-capi-gitops-04-infrastructure-capx.yaml') as any;
  assert.ok(app.spec.syncPolicy.syncOptions.includes('RespectIgnoreDifferences=true'));
  assert.deepEqual(app.spec.ignoreDifferences, [
    {
      group: 'apiextensions.k8s.io',
      kind: 'CustomResourceDefinition',
      name: 'widgets.example.dev',
      jqPathExpressions: ['.spec.conversion.webhook.clientConfig.caBundle'],
    },
    {
      group: 'admissionregistration.k8s.io',
      kind: 'ValidatingWebhookConfiguration',
      name: 'capx-validating',
      jqPathExpressions: ['.webhooks[]?.clientConfig.caBundle'],
    },
  ]);
});

test('a literal ${ survives Flux postBuild substitution: its object is labelled substitute: disabled (fluxcd kustomize-controller)', async () => {
  const flux = await layout('flux');
  assert.equal(read(flux, `${DIR}/configmap-capx-script.yaml`).metadata.labels?.['kustomize.toolkit.fluxcd.io/substitute'], 'disabled');
  assert.equal((read(flux, `${DIR}/configmap-capx-script.yaml`) as any).data['run.sh'], 'echo ${HOME}\n', 'the text itself is untouched');
  assert.equal(
    read(flux, `${DIR}/deployment-capx-controller-manager.yaml`).metadata.labels?.['kustomize.toolkit.fluxcd.io/substitute'],
    undefined,
  );
  const argo = await layout('argocd');
  assert.equal(read(argo, `${DIR}/configmap-capx-script.yaml`).metadata.labels, undefined, 'Argo CD never substitutes');
});

test('the Flux guard reads the emitted text: every form the emitter gives a string or key keeps ${ whole, so no labelled object is missed', () => {
  // fluxSubstituteLabel walks an object only when its text has `${` (apply-safety.ts): the premise, over every scalar form.
  const forms = [
    '${X}',
    'a ${X}',
    '${X} b',
    "it's ${X}",
    'quote " and ${X}',
    'tab\tthen ${X}',
    'control \u0001 ${X}',
    'bell\u0007${X}',
    'line one\n${X}\nline three',
    'trailing space ${X} \n',
    '  leading ${X}',
    '- ${X}',
    '? ${X}',
    '${X}: y',
    '# ${X}',
    '--- ${X}',
    'true${X}',
    '\u2028${X}',
    'a'.repeat(70) + ' ${X} ' + 'b'.repeat(70),
    ('word '.repeat(30) + '${X}').trim(),
    Array.from({ length: 40 }, (_, i) => (i === 17 ? '${VALUE}' : `w${i}`)).join(' '),
    '$' + '{',
  ];
  let seed = 7;
  const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  const pieces = ['word', ' ', '  ', '\n', ':', '#', "'", '"', '\\', '-', '\t', 'é', '${X}', '$', '{'];
  for (let i = 0; i < 400; i++) {
    const parts = Array.from({ length: 1 + random(60) }, () => pieces[random(pieces.length)]!);
    parts.splice(random(parts.length + 1), 0, '${X}');
    forms.push(parts.join(''));
  }
  for (const text of forms) {
    for (const obj of [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { key: text } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', annotations: { [text]: 'v' } } },
      { apiVersion: 'v1', kind: 'List', metadata: { name: 'x' }, items: [[text], { nested: { deeper: [text] } }] },
    ]) {
      const emitted = emitYamlDocument(obj as KObject);
      assert.ok(emitted.includes('${'), `${JSON.stringify(text)} lost its \${ in:\n${emitted}`);
    }
  }
});

test('unmanaged objects (Config.overrides): Flux reconcile disabled; Argo CD Prune=false and ignoreDifferences on the object', async () => {
  const selector = { group: 'apps', kind: 'Deployment', name: 'capx-controller-manager', namespace: 'capx-system' };
  const flux = await layout('flux', [selector]);
  assert.equal(
    read(flux, `${DIR}/deployment-capx-controller-manager.yaml`).metadata.annotations?.['kustomize.toolkit.fluxcd.io/reconcile'],
    'disabled',
  );
  assert.equal(read(flux, `${DIR}/configmap-capx-script.yaml`).metadata.annotations?.['kustomize.toolkit.fluxcd.io/reconcile'], undefined);
  const argo = await layout('argocd', [selector]);
  assert.equal(
    read(argo, `${DIR}/deployment-capx-controller-manager.yaml`).metadata.annotations?.['argocd.argoproj.io/sync-options'],
    'Prune=false',
  );
  const app = read(argo, 'argocd/application-capi-gitops-04-infrastructure-capx.yaml') as any;
  assert.deepEqual(app.spec.ignoreDifferences.at(-1), {
    group: 'apps',
    kind: 'Deployment',
    name: 'capx-controller-manager',
    namespace: 'capx-system',
    jsonPointers: ['/spec', '/metadata/labels', '/metadata/annotations'],
  });
  assert.match(argo.get('README.md')!, /## Unmanaged objects[\s\S]*Deployment\/capx-system\/capx-controller-manager/);
  const error = await rejection(layout('flux', [{ ...selector, name: 'capx-controler-manager' }]));
  assert.match(error.diagnostics[0]!.message, /no rendered object is apps Deployment capx-system\/capx-controler-manager/);
});

test('argocd applicationSet: the one template ignores injected CA bundles and unmanaged objects, as the per-component Applications do (argo-cd applicationset template)', async () => {
  const selector = { group: 'apps', kind: 'Deployment', name: 'capx-controller-manager', namespace: 'capx-system' };
  const wiring = await prepareChart({
    builtIn: 'argocd',
    set: ['repoURL=https://git.example.com/x.git', 'path=mgmt', 'applicationSet=true'].map((expression) => ({
      expression,
      forceString: false,
    })),
  });
  const files = layoutOutput({ layout: 'argocd', components: COMPONENTS, unmanaged: [selector], wiring, command: 'capi-gitops render' });
  const appSet = read(files, 'argocd/applicationset-capi-gitops.yaml') as any;
  assert.deepEqual(appSet.spec.template.spec.ignoreDifferences, [
    {
      group: 'apiextensions.k8s.io',
      kind: 'CustomResourceDefinition',
      name: 'widgets.example.dev',
      jqPathExpressions: ['.spec.conversion.webhook.clientConfig.caBundle'],
    },
    {
      group: 'admissionregistration.k8s.io',
      kind: 'ValidatingWebhookConfiguration',
      name: 'capx-validating',
      jqPathExpressions: ['.webhooks[]?.clientConfig.caBundle'],
    },
    { ...selector, jsonPointers: ['/spec', '/metadata/labels', '/metadata/annotations'] },
  ]);
  assert.ok(appSet.spec.template.spec.syncPolicy.syncOptions.includes('RespectIgnoreDifferences=true'));
  assert.deepEqual(wiringProblems(appSet), []);
});

test('large objects: over 200 KiB serialized gets ServerSideApply=true for Argo CD, on a real corpus CRD', () => {
  const docs = YAML.parseAllDocuments(
    readFileSync(path.join(CORPUS_REPOSITORY, 'cluster-api', 'v1.12.0', 'core-components.yaml'), 'utf8'),
  ).map((d) => d.toJS() as KObject);
  const crds = docs.filter((d) => d?.kind === 'CustomResourceDefinition');
  const large = crds.find((c) => Buffer.byteLength(emitYamlDocument(c)) > LARGE_OBJECT_BYTES)!;
  assert.ok(large, 'the corpus has a CRD over 200 KiB');
  const small = crds.find((c) => Buffer.byteLength(emitYamlDocument(c)) < LARGE_OBJECT_BYTES)!;
  const argo = { argocd: true, flux: false, unmanaged: [] };
  const marked = largeObjectSyncOption(large, emitYamlDocument(large), argo)!;
  assert.equal(marked.metadata.annotations?.['argocd.argoproj.io/sync-options'], 'ServerSideApply=true');
  assert.equal(largeObjectSyncOption(small, emitYamlDocument(small), argo), undefined);
  assert.equal(
    largeObjectSyncOption(large, emitYamlDocument(large), { ...argo, argocd: false }),
    undefined,
    'Flux applies server-side anyway',
  );
});

test('large objects in a layout: a ConfigMap over 200 KiB gets ServerSideApply=true, added to what it had', async () => {
  const big: KObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'big', namespace: 'capx-system' },
    data: { blob: 'x'.repeat(LARGE_OBJECT_BYTES + 1) },
  };
  const wiring = await prepareChart({
    builtIn: 'argocd',
    set: [
      { expression: 'repoURL=https://git.example.com/x.git', forceString: false },
      { expression: 'path=mgmt', forceString: false },
    ],
  });
  const files = layoutOutput({
    layout: 'argocd',
    components: [component('InfrastructureProvider', 'infrastructure-capx', 'capx-system', [big])],
    unmanaged: [{ group: '', kind: 'ConfigMap', name: 'big', namespace: 'capx-system' }],
    wiring,
    command: 'x',
  });
  assert.equal(
    read(files, `${DIR}/configmap-big.yaml`).metadata.annotations?.['argocd.argoproj.io/sync-options'],
    'Prune=false,ServerSideApply=true',
  );
});

test("Rancher's need-a-cert controller writes the CA bundle of each webhook and CRD conversion webhook whose Service Turtles' WranglerPatcher annotated: the placeholder is left out there and only there, and Argo CD ignores those fields (rancher/turtles internal/provider/wrangler.go WranglerPatcher; rancher/wrangler pkg/needacert OnMutationWebhookChange, OnValidatingWebhookChange, OnCRDChange)", async () => {
  const SERVICE: KObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'capx-webhook-service', namespace: 'capx-system' } };
  // a second webhook of the configuration calls a URL with a CA bundle of its own: needacert leaves it alone
  const byUrl = { name: 'u.widget.example.dev', clientConfig: { caBundle: 'b3du', url: 'https://hooks.example.dev/validate' } };
  const webhook = { ...INJECTED_WEBHOOK, webhooks: [...(INJECTED_WEBHOOK.webhooks as unknown[]), byUrl] } as KObject;
  const objects = wranglerPatcher([NAMESPACE, INJECTED_CRD, SERVICE, CERTIFICATE, DEPLOYMENT, webhook, PLAIN_WEBHOOK]);
  assert.ok(objects.every((o) => o.metadata.annotations?.['cert-manager.io/inject-ca-from'] === undefined));
  const components = [component('InfrastructureProvider', 'infrastructure-capx', 'capx-system', objects)];
  const argocd = await prepareChart({
    builtIn: 'argocd',
    set: ['repoURL=https://git.example.com/x.git', 'path=mgmt'].map((expression) => ({ expression, forceString: false })),
  });
  const flux = await prepareChart({ builtIn: 'flux', set: [{ expression: 'path=mgmt', forceString: false }] });
  for (const [name, wiring] of [
    ['kustomize', undefined],
    ['argocd', argocd],
    ['flux', flux],
  ] as const) {
    const files = layoutOutput({ layout: name, components, unmanaged: [], wiring, command: 'capi-gitops render' });
    const crd = read(files, `${DIR}/crds/customresourcedefinition-widgets.example.dev.yaml`) as any;
    assert.equal('caBundle' in crd.spec.conversion.webhook.clientConfig, false, name);
    const written = read(files, `${DIR}/validatingwebhookconfiguration-capx-validating.yaml`) as any;
    assert.equal('caBundle' in written.webhooks[0].clientConfig, false, name);
    assert.equal(written.webhooks[1].clientConfig.caBundle, 'b3du', name);
    // PLAIN_WEBHOOK calls the same Service: needacert writes its CA bundle too
    const plain = read(files, `${DIR}/validatingwebhookconfiguration-other-validating.yaml`) as any;
    assert.equal('caBundle' in plain.webhooks[0].clientConfig, false, name);
  }
  const files = layoutOutput({ layout: 'argocd', components, unmanaged: [], wiring: argocd, command: 'capi-gitops render' });
  const text = files.get('argocd/application-capi-gitops-04-infrastructure-capx.yaml')!;
  const app = YAML.parse(text);
  assert.deepEqual(app.spec.ignoreDifferences, [
    {
      group: 'apiextensions.k8s.io',
      kind: 'CustomResourceDefinition',
      name: 'widgets.example.dev',
      jqPathExpressions: ['.spec.conversion.webhook.clientConfig.caBundle'],
    },
    {
      group: 'admissionregistration.k8s.io',
      kind: 'ValidatingWebhookConfiguration',
      name: 'capx-validating',
      jqPathExpressions: ['.webhooks[]?.clientConfig.caBundle'],
    },
    {
      group: 'admissionregistration.k8s.io',
      kind: 'ValidatingWebhookConfiguration',
      name: 'other-validating',
      jqPathExpressions: ['.webhooks[]?.clientConfig.caBundle'],
    },
  ]);
  assert.deepEqual(wiringProblems(app), []);

  // an annotation without a secret name: needacert makes no certificate, so the placeholder is the object's
  const unnamed = objects.map((o) =>
    o.kind === 'Service' ? { ...o, metadata: { ...o.metadata, annotations: { 'need-a-cert.cattle.io/secret-name': '' } } } : o,
  );
  const kept = layoutOutput({
    layout: 'kustomize',
    components: [component('InfrastructureProvider', 'infrastructure-capx', 'capx-system', unnamed)],
    unmanaged: [],
    command: 'capi-gitops render',
  });
  assert.equal(
    (read(kept, `${DIR}/crds/customresourcedefinition-widgets.example.dev.yaml`) as any).spec.conversion.webhook.clientConfig.caBundle,
    'Cg==',
  );
});
