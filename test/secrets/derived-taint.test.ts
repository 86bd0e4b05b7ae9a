/**
 * A field a transform computes from a secret holds no mark of it: the taint is the variables that
 * transform read there. On a provider of our own whose manager reads an API token from its env
 * and EXP_MACHINE_POOL in --feature-gates, a spec.patches JSON patch moves the token to a
 * secretKeyRef while spec.manager.featureGates merges the flag.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { renderManagementCluster } from '../../src/app/cluster.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { FIXTURES, PROJECT_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { assertNoSecret, SUITE_SECRETS } from '../helpers/secret-scan.js';

const TOKEN = SUITE_SECRETS.derivedTaintToken;
const CORE = pathToFileURL(path.join(PROJECT_ROOT, 'examples', 'repository', 'cluster-api', 'latest', 'core-components.yaml')).href;

const COMPONENTS = `apiVersion: v1
kind: Namespace
metadata:
  name: capacme-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: capacme-controller-manager
  namespace: capacme-system
spec:
  selector:
    matchLabels:
      control-plane: capacme-controller-manager
  template:
    metadata:
      labels:
        control-plane: capacme-controller-manager
    spec:
      containers:
      - name: manager
        image: registry.example.com/capacme/manager:v0.1.0
        args:
        - --leader-elect
        - --feature-gates=MachinePool=\${EXP_MACHINE_POOL:=false}
        env:
        - name: ACME_API_TOKEN
          value: \${ACME_API_TOKEN}
`;

/** The management cluster's directory; the configSecret gives the token and the flag. */
function managementCluster(secrets: string): string {
  const root = tempDir('capi-gitops-derived-taint-');
  const release = path.join(root, 'repository', 'infrastructure-acme', 'v0.1.0');
  mkdirSync(release, { recursive: true });
  writeFileSync(path.join(release, 'infrastructure-components.yaml'), COMPONENTS);
  cpSync(path.join(FIXTURES, 'secrets', 'infrastructure-vault', 'v0.1.0', 'metadata.yaml'), path.join(release, 'metadata.yaml'));
  const mc = path.join(root, 'mc');
  mkdirSync(mc);
  writeFileSync(
    path.join(mc, 'providers.yaml'),
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
  namespace: capi-system
spec:
  version: v0.2.0
  fetchConfig:
    url: ${CORE}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata:
  name: acme
  namespace: capacme-system
spec:
  version: v0.1.0
  configSecret:
    name: acme-variables
  fetchConfig:
    url: ${pathToFileURL(path.join(release, 'infrastructure-components.yaml')).href}
  manager:
    featureGates:
      ClusterTopology: true
  patches:
  - target: {group: apps, version: v1, kind: Deployment, name: capacme-controller-manager}
    patch: |
      [{"op": "replace", "path": "/spec/template/spec/containers/0/env/0",
        "value": {"name": "ACME_API_TOKEN", "valueFrom": {"secretKeyRef": {"name": "acme-api-token", "key": "token"}}}}]
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager:
  enabled: false
${secrets}`,
  );
  writeFileSync(
    path.join(mc, 'secret.yaml'),
    `apiVersion: v1\nkind: Secret\nmetadata:\n  name: acme-variables\n  namespace: capacme-system\nstringData:\n  ACME_API_TOKEN: ${JSON.stringify(TOKEN)}\n  EXP_MACHINE_POOL: "true"\n`,
  );
  return mc;
}

async function renderFails(mc: string): Promise<CapiGitopsError> {
  try {
    await renderManagementCluster({ manifestPaths: [mc], command: 'capi-gitops render' });
  } catch (err) {
    if (!(err instanceof CapiGitopsError)) throw err;
    assertNoSecret([TOKEN], { texts: { error: err.message } });
    return err;
  }
  assert.fail('the render succeeded');
}

const STRATEGIES = {
  refuse: '',
  'external-secrets': 'secrets:\n  strategy: external-secrets\n  externalSecrets:\n    secretStoreRef: {name: vault}\n',
};

for (const [strategy, secrets] of Object.entries(STRATEGIES)) {
  test(`${strategy}: the merged --feature-gates (operator component_customizer.go customizeManagerContainer) is tainted by EXP_MACHINE_POOL alone, not by the token a patch moved out`, async () => {
    const mc = managementCluster(secrets);
    const err = await renderFails(mc);
    // the token reaches no field once the patch replaced its env var: only the flag is refused
    assert.deepEqual(
      err.diagnostics.map((d) => `${d.object}: ${d.path}`),
      ['Deployment/capacme-system/capacme-controller-manager: spec.template.spec.containers[0].args[1]'],
    );
    const [arg] = err.diagnostics;
    assert.match(arg!.message, /secret (value of )?EXP_MACHINE_POOL\b/);
    assert.doesNotMatch(`${arg!.message}\n${arg!.hint}`, /ACME_API_TOKEN/);
    // the public way out says plainly that it is not for a credential
    assert.match(arg!.hint!, /EXP_MACHINE_POOL/);
    assert.match(
      arg!.hint!,
      /Config\.secrets\.public .*only if it is a setting, not a credential \(a public variable is written to Git in clear text\)/,
    );
    // placed where the flag was given, not at the token's key
    const lines = readFileSync(arg!.file!, 'utf8').split('\n');
    assert.equal(lines[arg!.line! - 1]!.trim(), 'EXP_MACHINE_POOL: "true"');
  });
}
