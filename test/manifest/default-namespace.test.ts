/**
 * Provider objects without metadata.namespace, as `helm template` prints a chart that relies on
 * the release namespace (k0rdent's): `-n, --namespace` (or `namespace:` in the Config document)
 * is the namespace of every namespaced object that names none, as kubectl defaults it
 * (kubectl apply -n). Without either they are refused, as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { loadManifest } from '../../src/manifest/load.js';
import { updateManifestVersions } from '../../src/manifest/update-versions.js';
import { loadError, summary, writeManifestDir } from '../fixtures/manifest/helpers.js';

/** What `helm template` prints: no metadata.namespace anywhere. */
const HELM_TEMPLATE = `---
# Source: kcm/templates/providers.yaml
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
spec:
  version: v1.12.0
  configSecret:
    name: capi-variables
---
# Source: kcm/templates/providers.yaml
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata:
  name: aws
  namespace: capa-system
spec:
  version: v2.9.0
---
# Source: kcm/templates/secret.yaml
apiVersion: v1
kind: Secret
metadata:
  name: capi-variables
stringData:
  EXP_MACHINE_POOL: "true"
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: extra-manifests}
  data: {manifests: ""}
`;

test('-n/--namespace: providers, Secrets and ConfigMaps without a namespace get it; one that names its own keeps it', async () => {
  const dir = await writeManifestDir({ 'kcm.yaml': HELM_TEMPLATE });
  const manifest = await loadManifest([dir], { namespace: 'kcm-system' });
  assert.deepEqual(
    manifest.providers.map((p) => `${p.kind}/${p.namespace}/${p.name}`),
    ['CoreProvider/kcm-system/cluster-api', 'InfrastructureProvider/capa-system/aws'],
  );
  // the configSecret's namespace defaults to the provider's, which is now the default one
  assert.deepEqual(manifest.providers[0]!.spec.configSecret, { name: 'capi-variables', namespace: 'kcm-system' });
  assert.deepEqual(
    [...manifest.secrets, ...manifest.configMaps].map((o) => `${o.namespace}/${o.name}`),
    ['kcm-system/capi-variables', 'kcm-system/extra-manifests'],
  );
});

test('namespace: in the Config document is the default, wherever the Config is; -n/--namespace wins over it', async () => {
  const dir = await writeManifestDir({
    'a.yaml': HELM_TEMPLATE,
    'z-config.yaml': 'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nnamespace: kcm-system\n',
  });
  const fromConfig = await loadManifest([dir]);
  assert.equal(fromConfig.providers[0]!.namespace, 'kcm-system');
  assert.equal(fromConfig.config.namespace, 'kcm-system');
  const fromFlag = await loadManifest([dir], { namespace: 'platform' });
  assert.equal(fromFlag.providers[0]!.namespace, 'platform');
  assert.equal(fromFlag.secrets[0]!.namespace, 'platform');
});

test('without -n or Config namespace, objects without one are refused as before, the hint naming both ways', async () => {
  const dir = await writeManifestDir({ 'kcm.yaml': HELM_TEMPLATE });
  const error = await loadError([dir]);
  const file = path.join(dir, 'kcm.yaml');
  assert.deepEqual(summary(error.diagnostics), [
    '5:1 metadata.namespace: missing required field "namespace"',
    '24:1 metadata.namespace: missing required field "namespace"',
    '34:3 metadata.namespace: missing required field "namespace"',
  ]);
  assert.ok(error.diagnostics.every((d) => d.file === file));
  for (const d of error.diagnostics) assert.match(d.hint ?? '', /-n\/--namespace or namespace: in the Config document/);
});

test('update edits the pin of a provider without a namespace, found in the default one', () => {
  const result = updateManifestVersions(
    [{ path: 'kcm.yaml', text: HELM_TEMPLATE }],
    [{ kind: 'CoreProvider', name: 'cluster-api', namespace: 'kcm-system', newVersion: 'v1.12.1' }],
    'kcm-system',
  );
  assert.match(result.files[0]!.text, /name: cluster-api\nspec:\n {2}version: v1\.12\.1\n/);
});
