/**
 * A provider artifact with the shapes real teams publish, rendered into a target namespace other
 * than its own, object by object against what clusterctl's NewComponents makes of it
 * (cmd/clusterctl/client/repository/components.go, internal/util/objs.go,
 * client/config/imagemeta_client.go, client/yamlprocessor/simple_processor.go), read from the Go.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import YAML from 'yaml';
import { writeTempManifest } from './helpers/corpus-manifest.js';
import { coreManifest, localCoreRelease } from './helpers/local-release.js';
import { renderManagementCluster } from '../src/app/cluster.js';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;

const COMPONENTS = `# capi components, as a team's release pipeline writes them
--- # the namespace
apiVersion: v1
kind: Namespace
metadata:
  name: capi-system
  labels: {control-plane: controller-manager}
---
---
# a document of comments only
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: capi-manager}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: capi-system-manager-role}
rules: []
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: capi-system-manager-rolebinding}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: capi-system-manager-role}
subjects:
- {kind: ServiceAccount, name: capi-manager, namespace: capi-system}
- {kind: ServiceAccount, name: metrics-reader, namespace: monitoring}
- {kind: Group, apiGroup: rbac.authorization.k8s.io, name: "system:authenticated"}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: capi-metrics-reader, namespace: monitoring}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects:
- {kind: ServiceAccount, name: capi-manager, namespace: capi-system}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: capi-mutating-webhook-configuration
  annotations: {cert-manager.io/inject-ca-from: capi-system/capi-serving-cert}
webhooks:
- name: default.cluster.example.dev
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig:
    service: {name: capi-webhook-service, namespace: capi-system, path: /mutate}
- name: url.cluster.example.dev
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig: {url: "https://hooks.example.com/mutate"}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.dev
  annotations: {cert-manager.io/inject-ca-from: capi-system/capi-serving-cert}
spec:
  group: example.dev
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig:
        service: {name: capi-webhook-service, namespace: capi-system, path: /convert}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: capi-serving-cert, namespace: capi-system}
spec:
  dnsNames:
  - capi-webhook-service.capi-system.svc
  - capi-webhook-service.capi-system.svc.cluster.local
  issuerRef: {kind: Issuer, name: capi-selfsigned-issuer}
  secretName: capi-webhook-service-cert
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: capi-metrics-cert}
spec:
  dnsNames: [capi-metrics.capi-system.svc]
  issuerRef: {kind: Issuer, name: capi-selfsigned-issuer}
  secretName: capi-metrics-cert
---
apiVersion: v1
kind: ConfigMap
metadata: {name: capi-settings}
data:
  first: \${CAPI_FIRST}
  second: \${CAPI_FIRST:=later}
  region: \${CAPI_REGION:=us-east-1}
  mode: \${CAPI_MODE:-fast}
  spaced: \${ CAPI_SPACED }
  literal: $\${NOT_A_VAR}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: capi-controller-manager, labels: {control-plane: controller-manager}}
spec:
  selector: {matchLabels: {control-plane: controller-manager}}
  template:
    metadata: {labels: {control-plane: controller-manager}}
    spec:
      initContainers:
      - {name: init, image: "registry.example.com:5000/capi/init"}
      containers:
      - {name: manager, image: "registry.example.com:5000/capi/capi-controller:v0.1.0"}
      - {name: sidecar, image: "ghcr.io/example/sidecar@${DIGEST}"}
      - {name: both, image: "ghcr.io/example/both:v2@${DIGEST}"}
...
`;

const CONFIG = `images:
  all: {repository: "mirror.example:5000/m/"}
  cluster-api/capi-controller: {tag: v9}
  cluster-api/init: {name: init-renamed}
variables:
  CAPI_FIRST: one
  CAPI_MODE: ""
  CAPI_SPACED: spaced
`;

type Obj = Record<string, any>;

async function renderObjects(): Promise<Map<string, Obj>> {
  const manifest = coreManifest(localCoreRelease(COMPONENTS), CONFIG).replace('namespace: capi-system}', 'namespace: capi-prod}');
  const result = await renderManagementCluster({ manifestPaths: [writeTempManifest({ 'providers.yaml': manifest })], onWarning: () => {} });
  const objects = new Map<string, Obj>();
  for (const [file, text] of result.files) {
    if (!file.endsWith('.yaml') || file.endsWith('kustomization.yaml')) continue;
    for (const doc of YAML.parseAllDocuments(text)) {
      const obj = doc.toJS() as Obj | null;
      if (obj?.kind) objects.set(`${obj.kind}/${obj.metadata.name}`, obj);
    }
  }
  return objects;
}

test('real-team shapes into another namespace match clusterctl object by object (components.go fixTargetNamespace, addCommonLabels; objs.go FixImages; imagemeta_client.go; simple_processor.go)', async () => {
  const objects = await renderObjects();
  const get = (key: string) => {
    const obj = objects.get(key);
    assert.ok(obj, `${key} in ${[...objects.keys()].join(', ')}`);
    return obj;
  };
  const common = { 'clusterctl.cluster.x-k8s.io': '', 'cluster.x-k8s.io/provider': 'cluster-api' };

  // the Namespace renamed, its labels kept; no Namespace for the artifact's own name
  assert.deepEqual(get('Namespace/capi-prod').metadata.labels, { 'control-plane': 'controller-manager', ...common });
  assert.ok(!objects.has('Namespace/capi-system'));
  // namespaced objects moved, those without a namespace too, those in another namespace too
  for (const key of [
    'ServiceAccount/capi-manager',
    'RoleBinding/capi-metrics-reader',
    'ConfigMap/capi-settings',
    'Deployment/capi-controller-manager',
  ])
    assert.equal(get(key).metadata.namespace, 'capi-prod', key);
  // cluster-scoped objects keep their names, the artifact's namespace in them included
  assert.equal(get('ClusterRole/capi-system-manager-role').metadata.namespace, undefined);
  assert.deepEqual(get('ClusterRoleBinding/capi-system-manager-rolebinding').metadata.labels, common);
  // every subject that names a namespace is moved, whichever namespace it named; a Group is left
  assert.deepEqual(get('ClusterRoleBinding/capi-system-manager-rolebinding').subjects, [
    { kind: 'ServiceAccount', name: 'capi-manager', namespace: 'capi-prod' },
    { kind: 'ServiceAccount', name: 'metrics-reader', namespace: 'capi-prod' },
    { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:authenticated' },
  ]);
  assert.deepEqual(get('RoleBinding/capi-metrics-reader').subjects, [
    { kind: 'ServiceAccount', name: 'capi-manager', namespace: 'capi-prod' },
  ]);
  // webhook services and the CRD's conversion service follow; a URL webhook is left
  const webhook = get('MutatingWebhookConfiguration/capi-mutating-webhook-configuration');
  assert.equal(webhook.metadata.annotations['cert-manager.io/inject-ca-from'], 'capi-prod/capi-serving-cert');
  assert.deepEqual(
    webhook.webhooks.map((w: Obj) => w.clientConfig),
    [{ service: { name: 'capi-webhook-service', namespace: 'capi-prod', path: '/mutate' } }, { url: 'https://hooks.example.com/mutate' }],
  );
  const crd = get('CustomResourceDefinition/widgets.example.dev');
  assert.equal(crd.metadata.annotations['cert-manager.io/inject-ca-from'], 'capi-prod/capi-serving-cert');
  assert.equal(crd.spec.conversion.webhook.clientConfig.service.namespace, 'capi-prod');
  // dnsNames: the first ".<original namespace>." becomes ".<target>."; a Certificate written
  // without a namespace had "" as its original, so its names stay (fixCertificate)
  assert.deepEqual(get('Certificate/capi-serving-cert').spec.dnsNames, [
    'capi-webhook-service.capi-prod.svc',
    'capi-webhook-service.capi-prod.svc.cluster.local',
  ]);
  assert.deepEqual(get('Certificate/capi-metrics-cert').spec.dnsNames, ['capi-metrics.capi-system.svc']);
  // the first use of a variable decides whether it has a default; := and :- take it for "";
  // legacy spacing is accepted; $$ escapes
  assert.deepEqual(get('ConfigMap/capi-settings').data, {
    first: 'one',
    second: 'one',
    region: 'us-east-1',
    mode: 'fast',
    spaced: 'spaced',
    literal: '${NOT_A_VAR}',
  });
  // all, then the component, then <component>/<image>; one trailing / trimmed; digests kept under a tag
  const pod = get('Deployment/capi-controller-manager').spec.template.spec;
  assert.deepEqual(
    [...pod.initContainers, ...pod.containers].map((c: Obj) => c.image),
    [
      'mirror.example:5000/m/init-renamed',
      'mirror.example:5000/m/capi-controller:v9',
      `mirror.example:5000/m/sidecar@${DIGEST}`,
      `mirror.example:5000/m/both:v2@${DIGEST}`,
    ],
  );
  // the inventory entry (components.go InventoryObject)
  const provider = get('Provider/cluster-api');
  assert.deepEqual(
    [provider.metadata.namespace, provider.providerName, provider.type, provider.version],
    ['capi-prod', 'cluster-api', 'CoreProvider', 'v0.1.0'],
  );
  assert.deepEqual(provider.metadata.labels, { ...common, 'clusterctl.cluster.x-k8s.io/core': 'inventory' });
});
