/**
 * flux-substitute leaves one Secret (capi-gitops-variables) for every Kustomization to substitute
 * from, so a variable holds one value across the components. The operator renders each provider
 * with its own configSecret: the RKE2 bootstrap and control plane (corpus, v0.11.0) read the same
 * CAPRKE2_* variables, and a site may give each its own value.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { assertNoStackTrace, runCli } from '../helpers/cli.js';
import { corpusCoreProvider, corpusUrl, tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';

function rke2Manifest(bootstrapAddress: string, controlPlaneAddress: string): string {
  const provider = (
    name: string,
    type: string,
    label: string,
    file: string,
    address: string,
  ) => `apiVersion: turtles-capi.cattle.io/v1alpha1
kind: CAPIProvider
metadata:
  name: ${name}
  namespace: rke2-system
spec:
  name: rke2
  type: ${type}
  version: v0.11.0
  configSecret:
    name: ${name}-vars
  fetchConfig:
    url: ${corpusUrl(label, 'v0.11.0', file)}
---
apiVersion: v1
kind: Secret
metadata:
  name: ${name}-vars
  namespace: rke2-system
stringData:
  CAPRKE2_DIAGNOSTICS_ADDRESS: "${address}"
`;
  return writeTempManifest({
    'providers.yaml': [
      corpusCoreProvider(),
      provider('rke2-bootstrap', 'bootstrap', 'bootstrap-rke2', 'bootstrap-components.yaml', bootstrapAddress),
      provider('rke2-control-plane', 'controlPlane', 'control-plane-rke2', 'control-plane-components.yaml', controlPlaneAddress),
      `apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager:
  enabled: false
gitops:
  path: clusters/mgmt/capi
secrets:
  public: [CLUSTER_TOPOLOGY, EXP_CLUSTER_RESOURCE_SET, EXP_MACHINE_POOL]
`,
    ].join('---\n'),
  });
}

function render(manifest: string) {
  return runCli(['render', '-f', manifest, '-o', path.join(tempDir(), 'out'), '--layout', 'flux', '--secrets', 'flux-substitute']);
}

test(
  'flux-substitute refuses one variable that two providers take from their own configSecrets with different values ' +
    '(fluxcd/pkg kustomize/kustomize_varsub.go: one value per name in the substituteFrom Secret)',
  async () => {
    const result = await render(rke2Manifest(':18443', ':28443'));
    assertNoStackTrace(result);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /CAPRKE2_DIAGNOSTICS_ADDRESS/);
    assert.match(result.stderr, /bootstrap-rke2/);
    assert.match(result.stderr, /control-plane-rke2/);
    assert.match(result.stderr, /capi-gitops-variables/);
    assert.doesNotMatch(result.stderr, /18443|28443/, 'the values are secret');
  },
);

test('flux-substitute: two providers that take one variable with the same value share it in the one Secret', async () => {
  const result = await render(rke2Manifest(':18443', ':18443'));
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stderr, /18443/, 'the value is secret');
});
