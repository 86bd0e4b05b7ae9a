import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/core/kobject.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { addNamespaceIfMissing, fixTargetNamespace, inspectTargetNamespace, isNamespaced } from '../../src/render/namespace.js';
import { CLUSTER_SCOPED_KINDS } from '../../src/core/kinds.js';
import { corpusObjects } from '../helpers/corpus-objects.js';

function obj(apiVersion: string, kind: string, name: string, extra: Record<string, unknown> = {}, namespace?: string): KObject {
  return { apiVersion, kind, metadata: namespace === undefined ? { name } : { name, namespace }, ...extra };
}

function only(objs: KObject[], kind: string, name?: string): KObject {
  const found = objs.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  assert.equal(found.length, 1, `exactly one ${kind} ${name ?? ''}`);
  return found[0];
}

test('inspectTargetNamespace finds the one Namespace and refuses two (clusterctl components.go inspectTargetNamespace)', () => {
  const core = corpusObjects('cluster-api', 'v1.12.0', 'core-components.yaml');
  assert.equal(inspectTargetNamespace(core), 'capi-system');
  assert.equal(inspectTargetNamespace(core.filter((o) => o.kind !== 'Namespace')), undefined);
  assert.throws(
    () => inspectTargetNamespace([obj('v1', 'Namespace', 'a'), obj('v1', 'ConfigMap', 'c', {}, 'a'), obj('v1', 'Namespace', 'b')]),
    (err: unknown) => err instanceof CapiGitopsError && /2 Namespace objects \(a, b\)/.test(err.message),
  );
});

test('addNamespaceIfMissing appends a bare Namespace only when there is none (clusterctl components.go addNamespaceIfMissing)', () => {
  const objs = [obj('v1', 'ConfigMap', 'c', {}, 'x')];
  const added = addNamespaceIfMissing(objs, 'my-ns');
  assert.deepEqual(added, [objs[0], { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'my-ns' } }]);
  assert.equal(objs.length, 1, 'input array not extended');
  const withNs = [obj('v1', 'Namespace', 'other'), ...objs];
  assert.deepEqual(addNamespaceIfMissing(withNs, 'my-ns'), withNs);
});

test('core v1.12.0 moved to my-ns: every capi-system reference follows, input untouched (clusterctl components.go fixTargetNamespace)', () => {
  const core = corpusObjects('cluster-api', 'v1.12.0', 'core-components.yaml');
  const before = JSON.stringify(core);
  assert.equal(before.split('capi-system').length - 1, 61);
  const out = fixTargetNamespace(core, 'my-ns');
  assert.equal(JSON.stringify(core), before, 'input must not be mutated');
  const text = JSON.stringify(out);
  assert.ok(!text.includes('capi-system'), 'a capi-system reference was left behind');

  assert.equal(only(out, 'Namespace').metadata.name, 'my-ns');
  for (const o of out) {
    if (isNamespaced(o)) assert.equal(o.metadata.namespace, 'my-ns', `${o.kind}/${o.metadata.name}`);
    else assert.equal(o.metadata.namespace, undefined, `${o.kind}/${o.metadata.name} is cluster-scoped`);
  }
  const kinds = new Set(out.filter((o) => !isNamespaced(o)).map((o) => o.kind));
  assert.deepEqual([...kinds].sort(), [
    'ClusterRole',
    'ClusterRoleBinding',
    'CustomResourceDefinition',
    'MutatingWebhookConfiguration',
    'Namespace',
    'ValidatingWebhookConfiguration',
  ]);

  const webhook = only(out, 'ValidatingWebhookConfiguration');
  assert.equal(webhook.metadata.annotations?.['cert-manager.io/inject-ca-from'], 'my-ns/capi-serving-cert');
  for (const w of webhook.webhooks as any[]) assert.equal(w.clientConfig.service.namespace, 'my-ns');
  const crd = only(out, 'CustomResourceDefinition', 'clusters.cluster.x-k8s.io');
  assert.equal((crd.spec as any).conversion.webhook.clientConfig.service.namespace, 'my-ns');
  assert.equal(crd.metadata.annotations?.['cert-manager.io/inject-ca-from'], 'my-ns/capi-serving-cert');
  assert.deepEqual((only(out, 'Certificate').spec as any).dnsNames, [
    'capi-webhook-service.my-ns.svc',
    'capi-webhook-service.my-ns.svc.cluster.local',
  ]);
  for (const binding of out.filter((o) => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding')) {
    for (const s of binding.subjects as any[]) assert.equal(s.namespace, 'my-ns');
  }
});

test('binding subjects: every subject with a namespace moves, whatever its kind or old namespace; others stay (clusterctl components.go fixTargetNamespace RoleBinding/ClusterRoleBinding)', () => {
  const subjects = [
    { kind: 'ServiceAccount', name: 'sa', namespace: 'capi-system' },
    { kind: 'ServiceAccount', name: 'foreign', namespace: 'kube-system' },
    { kind: 'Group', name: 'g', apiGroup: 'rbac.authorization.k8s.io', namespace: 'somewhere' },
    { kind: 'User', name: 'u', apiGroup: 'rbac.authorization.k8s.io' },
    { kind: 'ServiceAccount', name: 'empty', namespace: '' },
  ];
  for (const kind of ['RoleBinding', 'ClusterRoleBinding']) {
    const [out] = fixTargetNamespace([obj('rbac.authorization.k8s.io/v1', kind, 'b', { subjects }, 'capi-system')], 'my-ns');
    assert.deepEqual(out.subjects, [
      { kind: 'ServiceAccount', name: 'sa', namespace: 'my-ns' },
      { kind: 'ServiceAccount', name: 'foreign', namespace: 'my-ns' },
      { kind: 'Group', name: 'g', apiGroup: 'rbac.authorization.k8s.io', namespace: 'my-ns' },
      { kind: 'User', name: 'u', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'ServiceAccount', name: 'empty', namespace: '' },
    ]);
  }
});

test('v1beta1 webhooks and CRDs are fixed, a service without namespace gets one, URL webhooks are left (clusterctl components.go fixWebhookNamespaceReferences)', () => {
  const webhooks = [
    { name: 'svc', clientConfig: { caBundle: 'Cg==', service: { name: 'wh', namespace: 'old', path: '/p' } } },
    { name: 'svc-no-ns', clientConfig: { service: { name: 'wh' } } },
    { name: 'url', clientConfig: { url: 'https://example.com/hook' } },
  ];
  const objs = [
    obj('admissionregistration.k8s.io/v1beta1', 'MutatingWebhookConfiguration', 'm', { webhooks }),
    obj('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', 'v', { webhooks }),
    obj('apiextensions.k8s.io/v1beta1', 'CustomResourceDefinition', 'old.example.com', {
      spec: { conversion: { strategy: 'Webhook', webhookClientConfig: { service: { name: 'wh', namespace: 'old', path: '/convert' } } } },
    }),
    obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'none.example.com', { spec: { conversion: { strategy: 'None' } } }),
  ];
  const out = fixTargetNamespace(objs, 'new');
  for (const w of out.slice(0, 2)) {
    assert.deepEqual(w.webhooks, [
      { name: 'svc', clientConfig: { caBundle: 'Cg==', service: { name: 'wh', namespace: 'new', path: '/p' } } },
      { name: 'svc-no-ns', clientConfig: { service: { name: 'wh', namespace: 'new' } } },
      { name: 'url', clientConfig: { url: 'https://example.com/hook' } },
    ]);
  }
  assert.deepEqual((out[2].spec as any).conversion.webhookClientConfig.service, { name: 'wh', namespace: 'new', path: '/convert' });
  assert.deepEqual(out[3].spec, { conversion: { strategy: 'None' } });
  assert.equal((objs[0].webhooks as any[])[0].clientConfig.service.namespace, 'old', 'input untouched');
});

test('inject-ca-from is rewritten on webhooks and CRDs only, and a malformed one is an error (clusterctl components.go fixWebhookNamespaceReferences)', () => {
  const annotations = { 'cert-manager.io/inject-ca-from': 'old/serving-cert' };
  const [crd, apiService] = fixTargetNamespace(
    [
      { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'x.example.com', annotations } },
      { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.example.com', annotations } },
    ],
    'new',
  );
  assert.equal(crd.metadata.annotations?.['cert-manager.io/inject-ca-from'], 'new/serving-cert');
  assert.equal(apiService.metadata.annotations?.['cert-manager.io/inject-ca-from'], 'old/serving-cert');

  const bad = (value: string, name: string): KObject => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name, annotations: { 'cert-manager.io/inject-ca-from': value } },
  });
  assert.throws(
    () =>
      fixTargetNamespace(
        [
          bad('no-slash', 'a'),
          bad('a/b/c', 'b'),
          obj('admissionregistration.k8s.io/v1beta2', 'ValidatingWebhookConfiguration', 'c'),
          obj('apiextensions.k8s.io/v2', 'CustomResourceDefinition', 'd'),
        ],
        'new',
      ),
    (err: unknown) => {
      assert.ok(err instanceof CapiGitopsError);
      assert.deepEqual(err.diagnostics.map((d) => d.object).sort(), [
        'CustomResourceDefinition/d',
        'MutatingWebhookConfiguration/a',
        'MutatingWebhookConfiguration/b',
        'ValidatingWebhookConfiguration/c',
      ]);
      return true;
    },
  );
});

test('Certificate dnsNames: the first .<old-ns>. of each name becomes .<new-ns>. (clusterctl components.go fixCertificate)', () => {
  const cert = (namespace: string | undefined, dnsNames: unknown) =>
    obj('cert-manager.io/v1', 'Certificate', 'c', { spec: { dnsNames, secretName: 's' } }, namespace);
  const [out] = fixTargetNamespace(
    [cert('old', ['svc.old.svc', 'svc.old.svc.cluster.local', 'x.old.y.old.z', 'old.svc', 'other-name'])],
    'new',
  );
  assert.deepEqual(out.spec, {
    dnsNames: ['svc.new.svc', 'svc.new.svc.cluster.local', 'x.new.y.old.z', 'old.svc', 'other-name'],
    secretName: 's',
  });
  assert.equal(out.metadata.namespace, 'new');
  // without a namespace the pattern is "..", exactly as strings.Replace with an empty original namespace
  assert.deepEqual(fixTargetNamespace([cert(undefined, ['svc.old.svc', 'a..b'])], 'new')[0].spec, {
    dnsNames: ['svc.old.svc', 'a.new.b'],
    secretName: 's',
  });
  // a replacement containing `$&` is inserted literally
  assert.deepEqual((fixTargetNamespace([cert('old', ['svc.old.svc'])], '$&')[0].spec as any).dnsNames, ['svc.$&.svc']);
  assert.deepEqual(fixTargetNamespace([cert('old', undefined)], 'new')[0].spec, { dnsNames: undefined, secretName: 's' });
  assert.throws(() => fixTargetNamespace([cert('old', ['ok', 3])], 'new'), CapiGitopsError);
});

test('cluster-scoped kinds come from a complete list, a superset of clusterctl objs.go IsResourceNamespaced', () => {
  const clusterctlDenyList: [string, string][] = [
    ['v1', 'Namespace'],
    ['v1', 'Node'],
    ['v1', 'PersistentVolume'],
    ['policy/v1beta1', 'PodSecurityPolicy'],
    ['certificates.k8s.io/v1', 'CertificateSigningRequest'],
    ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding'],
    ['rbac.authorization.k8s.io/v1', 'ClusterRole'],
    ['storage.k8s.io/v1', 'VolumeAttachment'],
    ['storage.k8s.io/v1', 'StorageClass'],
    ['storage.k8s.io/v1', 'CSIDriver'],
    ['storage.k8s.io/v1', 'CSINode'],
    ['admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration'],
    ['admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration'],
    ['apiextensions.k8s.io/v1', 'CustomResourceDefinition'],
    ['scheduling.k8s.io/v1', 'PriorityClass'],
    ['node.k8s.io/v1', 'RuntimeClass'],
  ];
  for (const [apiVersion, kind] of clusterctlDenyList) assert.equal(isNamespaced({ apiVersion, kind }), false, kind);
  const beyondClusterctl: [string, string][] = [
    ['cert-manager.io/v1', 'ClusterIssuer'],
    ['apiregistration.k8s.io/v1', 'APIService'],
    ['admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicy'],
    ['admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicyBinding'],
    ['networking.k8s.io/v1', 'IngressClass'],
    ['flowcontrol.apiserver.k8s.io/v1', 'FlowSchema'],
    ['flowcontrol.apiserver.k8s.io/v1', 'PriorityLevelConfiguration'],
    ['runtime.cluster.x-k8s.io/v1beta2', 'ExtensionConfig'],
  ];
  for (const [apiVersion, kind] of beyondClusterctl) assert.equal(isNamespaced({ apiVersion, kind }), false, kind);
  for (const [apiVersion, kind] of [
    ['v1', 'Service'],
    ['cert-manager.io/v1', 'Issuer'],
    ['example.com/v1', 'ClusterRole'],
    ['cluster.x-k8s.io/v1beta2', 'Cluster'],
  ]) {
    assert.equal(isNamespaced({ apiVersion, kind }), true, `${apiVersion} ${kind}`);
  }
  assert.ok(Object.values(CLUSTER_SCOPED_KINDS).flat().length >= 30);

  const objs = [
    obj('cert-manager.io/v1', 'ClusterIssuer', 'ci'),
    obj('example.com/v1', 'Widget', 'w', {}, 'elsewhere'),
    obj('example.com/v1', 'GlobalWidget', 'gw'),
    obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'globalwidgets.example.com', {
      spec: { group: 'example.com', scope: 'Cluster', names: { kind: 'GlobalWidget' } },
    }),
  ];
  const out = fixTargetNamespace(objs, 'new');
  assert.deepEqual(
    out.map((o) => o.metadata.namespace),
    [undefined, 'new', undefined, undefined],
  );
});

test('every CRD scope in the corpus agrees with the list (cert-manager v1.13.0 ClusterIssuer, core ExtensionConfig)', () => {
  const files = [
    ['cert-manager', 'v1.13.0', 'cert-manager.yaml'],
    ['cluster-api', 'v1.12.0', 'core-components.yaml'],
    ['cluster-api', 'v1.7.7', 'core-components.yaml'],
    ['bootstrap-kubeadm', 'v1.12.0', 'bootstrap-components.yaml'],
    ['control-plane-kubeadm', 'v1.12.0', 'control-plane-components.yaml'],
    ['bootstrap-rke2', 'v0.11.0', 'bootstrap-components.yaml'],
    ['control-plane-rke2', 'v0.11.0', 'control-plane-components.yaml'],
  ];
  const clusterScoped: string[] = [];
  for (const file of files) {
    for (const crd of corpusObjects(...file).filter((o) => o.kind === 'CustomResourceDefinition')) {
      const spec = crd.spec as { group: string; scope: string; versions: { name: string }[]; names: { kind: string } };
      const namespaced = isNamespaced({ apiVersion: `${spec.group}/${spec.versions[0].name}`, kind: spec.names.kind });
      assert.equal(namespaced, spec.scope === 'Namespaced', `${file.join('/')}: ${spec.names.kind}`);
      if (!namespaced) clusterScoped.push(spec.names.kind);
    }
  }
  assert.deepEqual([...new Set(clusterScoped)].sort(), ['ClusterIssuer', 'ExtensionConfig']);
});
