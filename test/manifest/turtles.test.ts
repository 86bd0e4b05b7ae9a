/**
 * Rancher Turtles' CAPIProvider (turtles-capi.cattle.io/v1alpha1) as input: read as the operator
 * object and config Secret Turtles reconciles it as (rancher/turtles, paths in the test names),
 * by the loader (render, check, diff, lock, update) and by `capi-gitops convert`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { loadManifest } from '../../src/manifest/load.js';
import type { Manifest } from '../../src/manifest/types.js';
import { CapiGitopsError, formatWarning, type Diagnostic } from '../../src/core/diagnostics.js';
import { convertManifestText } from '../../src/manifest/convert-documents.js';
import { PROVIDER_SPEC_FIELDS } from '../../src/manifest/turtles.js';
import { updateManifestVersions } from '../../src/manifest/update-versions.js';
import { secretAwareLookup } from '../../src/secrets/index.js';
import { renderManagementCluster } from '../../src/app/cluster.js';
import { renderOutput } from '../../src/app/run.js';
import { corpusUrl, tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { assertNoStackTrace, runCli } from '../helpers/cli.js';
import { readTree } from '../helpers/tree.js';
import { FIXTURES } from '../helpers/paths.js';

/** What Rancher users keep in Git: the shape of rancher-turtles-providers' chart, for CAPI's own providers. */
const TURTLES = `apiVersion: turtles-capi.cattle.io/v1alpha1
kind: CAPIProvider
metadata:
  name: cluster-api
  namespace: cattle-capi-system
spec:
  name: cluster-api
  type: core
  version: v1.12.0
  configSecret:
    name: capi-env-variables
  fetchConfig:
    url: ${corpusUrl('cluster-api', 'latest', 'core-components.yaml')}
  variables:
    CLUSTER_TOPOLOGY: "true"
    EXP_MACHINE_POOL: "true"
---
apiVersion: turtles-capi.cattle.io/v1alpha1
kind: CAPIProvider
metadata:
  name: kubeadm-bootstrap
  namespace: capi-kubeadm-bootstrap-system
spec:
  name: kubeadm
  type: bootstrap
  version: v1.12.0
  fetchConfig:
    url: ${corpusUrl('bootstrap-kubeadm', 'latest', 'bootstrap-components.yaml')}
  features:
    machinePool: false
---
apiVersion: turtles-capi.cattle.io/v1alpha1
kind: CAPIProvider
metadata:
  name: kubeadm-control-plane
  namespace: capi-kubeadm-control-plane-system
spec:
  name: kubeadm
  type: controlPlane
  version: v1.12.0
  fetchConfig:
    url: ${corpusUrl('control-plane-kubeadm', 'latest', 'control-plane-components.yaml')}
  manager:
    verbosity: 3
`;

const CONFIG = `apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager:
  version: v1.13.0
  url: ${corpusUrl('cert-manager', 'v1.13.0', 'cert-manager.yaml')}
`;

/** The same providers written as operator objects, with the Secrets Turtles writes (their values declared public). */
const OPERATOR = `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
  namespace: cattle-capi-system
spec:
  version: v1.12.0
  configSecret:
    name: capi-env-variables
  fetchConfig:
    url: ${corpusUrl('cluster-api', 'latest', 'core-components.yaml')}
---
apiVersion: v1
kind: Secret
metadata:
  name: capi-env-variables
  namespace: cattle-capi-system
stringData:
  CLUSTER_TOPOLOGY: "true"
  EXP_CLUSTER_RESOURCE_SET: "true"
  EXP_MACHINE_POOL: "true"
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: BootstrapProvider
metadata:
  name: kubeadm
  namespace: capi-kubeadm-bootstrap-system
spec:
  version: v1.12.0
  configSecret:
    name: kubeadm-bootstrap
  fetchConfig:
    url: ${corpusUrl('bootstrap-kubeadm', 'latest', 'bootstrap-components.yaml')}
---
apiVersion: v1
kind: Secret
metadata:
  name: kubeadm-bootstrap
  namespace: capi-kubeadm-bootstrap-system
stringData:
  CLUSTER_TOPOLOGY: "false"
  EXP_CLUSTER_RESOURCE_SET: "false"
  EXP_MACHINE_POOL: "false"
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: ControlPlaneProvider
metadata:
  name: kubeadm
  namespace: capi-kubeadm-control-plane-system
spec:
  version: v1.12.0
  configSecret:
    name: kubeadm-control-plane
  fetchConfig:
    url: ${corpusUrl('control-plane-kubeadm', 'latest', 'control-plane-components.yaml')}
  manager:
    verbosity: 3
---
apiVersion: v1
kind: Secret
metadata:
  name: kubeadm-control-plane
  namespace: capi-kubeadm-control-plane-system
stringData:
  CLUSTER_TOPOLOGY: "true"
  EXP_CLUSTER_RESOURCE_SET: "true"
  EXP_MACHINE_POOL: "true"
---
${CONFIG}secrets:
  public: [CLUSTER_TOPOLOGY, EXP_CLUSTER_RESOURCE_SET, EXP_MACHINE_POOL]
`;

async function load(text: string): Promise<Manifest> {
  return loadManifest([path.join(writeTempManifest({ 'providers.yaml': text }), 'providers.yaml')]);
}

function bareProviders(manifest: Manifest) {
  return manifest.providers.map(({ position: _, ...rest }) => rest);
}

test('CAPIProvider → operator object: kind from spec.type, name from spec.name else metadata.name, the ProviderSpec as given, configSecret defaulted to metadata.name (rancher/turtles api/v1alpha1/capiprovider_types.go, internal/controllers/operator_reconciler.go toClusterctlType, internal/provider/defaults.go SetDefaultProviderSpec)', async () => {
  const manifest = await load(TURTLES + '---\n' + CONFIG);
  assert.deepEqual(
    manifest.providers.map((p) => `${p.kind}/${p.namespace}/${p.name}`),
    [
      'CoreProvider/cattle-capi-system/cluster-api',
      'BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm',
      'ControlPlaneProvider/capi-kubeadm-control-plane-system/kubeadm',
    ],
  );
  const controlPlane = manifest.providers[2]!;
  assert.deepEqual(controlPlane.spec, {
    version: 'v1.12.0',
    fetchConfig: { url: corpusUrl('control-plane-kubeadm', 'latest', 'control-plane-components.yaml') },
    manager: { verbosity: 3 },
    // named after metadata.name (kubeadm-control-plane), not spec.name
    configSecret: { name: 'kubeadm-control-plane', namespace: 'capi-kubeadm-control-plane-system' },
  });
  // the operator objects written out by hand load to the same providers
  assert.deepEqual(bareProviders(manifest), bareProviders(await load(OPERATOR)));
});

test('the config Secret: status.variables defaults, spec.variables over them, then all three features (omitted ones "false"), then the azure/gcp extras; its values are public (capiprovider_types.go CAPIProviderStatus, defaults.go setVariables/setFeatures/SetProviderSpec, internal/sync/secret_sync.go)', async () => {
  const azure = `---
apiVersion: turtles-capi.cattle.io/v1alpha1
kind: CAPIProvider
metadata:
  name: azure
  namespace: capz-system
spec:
  type: infrastructure
  version: v1.17.2
  variables:
    EXP_MACHINE_POOL: "false"
    AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY: 2f9b5c3e-0000-4000-8000-000000000001
  features:
    clusterTopology: true
`;
  const manifest = await load(TURTLES + azure + '---\n' + CONFIG);
  const secret = (namespace: string, name: string) => manifest.secrets.find((s) => s.namespace === namespace && s.name === name)!;
  assert.deepEqual(secret('cattle-capi-system', 'capi-env-variables').data, {
    CLUSTER_TOPOLOGY: 'true',
    EXP_CLUSTER_RESOURCE_SET: 'true',
    EXP_MACHINE_POOL: 'true',
  });
  assert.deepEqual(secret('capi-kubeadm-bootstrap-system', 'kubeadm-bootstrap').data, {
    CLUSTER_TOPOLOGY: 'false',
    EXP_CLUSTER_RESOURCE_SET: 'false',
    EXP_MACHINE_POOL: 'false',
  });
  const capz = secret('capz-system', 'azure');
  assert.deepEqual(capz.data, {
    CLUSTER_TOPOLOGY: 'true',
    EXP_CLUSTER_RESOURCE_SET: 'false',
    EXP_MACHINE_POOL: 'false',
    AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY: '2f9b5c3e-0000-4000-8000-000000000001',
    EXP_AKS_RESOURCE_HEALTH: 'true',
  });
  // not secret: they were plain text in the CAPIProvider
  const lookup = secretAwareLookup(manifest, capz, { values: new Map(), manifests: [] });
  assert.equal(lookup('AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY')?.fromSecret, false);
  // Turtles' own keys are never "unused variables"; the one the user named is
  assert.deepEqual(capz.implicitKeys, ['CLUSTER_TOPOLOGY', 'EXP_AKS_RESOURCE_HEALTH', 'EXP_CLUSTER_RESOURCE_SET', 'EXP_MACHINE_POOL']);
});

test('a Secret of the config Secret’s name in the input keeps its keys, the variables written over them, and its own keys stay secret (rancher/turtles internal/sync/core.go Get, internal/sync/client.go Patch: Update over the existing Secret)', async () => {
  const aws = `apiVersion: turtles-capi.cattle.io/v1alpha1
kind: CAPIProvider
metadata:
  name: aws
  namespace: capa-system
spec:
  type: infrastructure
  version: v2.8.1
  configSecret:
    name: aws-variables
  variables:
    AWS_REGION: eu-west-1
  credentials:
    rancherCloudCredential: prod-aws
---
apiVersion: v1
kind: Secret
metadata:
  name: aws-variables
  namespace: capa-system
stringData:
  AWS_B64ENCODED_CREDENTIALS: W2RlZmF1bHRdCmF3c19hY2Nlc3Nfa2V5X2lkID0gQUtJQUlPU0ZPRE5ON0VYQU1QTEUK
  AWS_REGION: us-east-1
`;
  const manifest = await load(aws);
  assert.equal(manifest.secrets.length, 1);
  const secret = manifest.secrets[0]!;
  assert.equal(secret.data.AWS_REGION, 'eu-west-1');
  assert.ok(secret.data.AWS_B64ENCODED_CREDENTIALS);
  const lookup = secretAwareLookup(manifest, secret, { values: new Map(), manifests: [] });
  assert.equal(lookup('AWS_REGION')?.fromSecret, false);
  assert.equal(lookup('AWS_B64ENCODED_CREDENTIALS')?.fromSecret, true);
  const warning = manifest.warnings!.find((w) => w.path === 'spec.credentials')!;
  assert.match(
    warning.message,
    /AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_B64ENCODED_CREDENTIALS \(internal\/sync\/secret_mapper_sync\.go\)/,
  );
  assert.equal(warning.line, 13);
});

test('a type Turtles does not install is an error at spec.type (exact case, operator_reconciler.go toClusterctlType); a missing type is the CRD rule "CAPI Provider type should always be set."', async () => {
  const bad = TURTLES.replace('type: controlPlane', 'type: controlplane').replace('  type: bootstrap\n', '');
  await assert.rejects(load(bad), (error: CapiGitopsError) => {
    const type = error.diagnostics.find((d) => /controlplane/.test(d.message))!;
    assert.equal(type.line, 38);
    assert.equal(type.path, 'spec.type');
    assert.match(type.hint ?? '', /did you mean "controlPlane"\?/);
    assert.ok(error.diagnostics.some((d) => /CAPI Provider type should always be set/.test(d.message)));
    return true;
  });
});

test('render: CAPIProviders render as the operator objects and Secrets Turtles makes of them, with no option, their CRDs labelled auth.cattle.io/cluster-indexed as Turtles labels them (internal/sync/secret_sync.go SyncObjects, internal/provider/rancher.go AddClusterIndexedLabelFn)', async () => {
  const render = async (text: string) => (await renderManagementCluster({ manifestPaths: [writeTempManifest({ 'm.yaml': text })] })).files;
  const fromTurtles = await render(TURTLES + '---\n' + CONFIG);
  const fromOperator = await render(OPERATOR);
  assert.deepEqual([...fromTurtles.keys()], [...fromOperator.keys()]);
  const common = '    clusterctl.cluster.x-k8s.io: ""\n';
  let labelled = 0;
  for (const [file, text] of fromTurtles) {
    const operator = fromOperator.get(file)!;
    // every CRD of the three providers' components; not cert-manager's, no CAPIProvider's, nor the clusterctl
    // inventory CRD, which no provider's components hold
    const crd =
      /^kind: CustomResourceDefinition$/m.test(operator) &&
      !file.startsWith('00-cert-manager/') &&
      !file.includes('providers.clusterctl.cluster.x-k8s.io');
    if (crd) labelled++;
    const expected = crd ? operator.replace(common, `${common}    auth.cattle.io/cluster-indexed: "true"\n`) : operator;
    assert.ok(text === expected, file);
  }
  assert.ok(labelled > 10, `${labelled} CRDs`);
  // features: {machinePool: false} turned the bootstrap's gate off
  const bootstrap = fromTurtles.get('02-bootstrap-kubeadm/deployment-capi-kubeadm-bootstrap-controller-manager.yaml')!;
  assert.match(bootstrap, /--feature-gates=MachinePool=false,/);
});

test('CLI: render then check a CAPIProvider manifest (check, diff and lock read it through the same loader)', async () => {
  const dir = writeTempManifest({ 'providers.yaml': TURTLES + '---\n' + CONFIG });
  const out = path.join(tempDir(), 'out');
  const rendered = await runCli(['render', '-f', dir, '-o', out]);
  assertNoStackTrace(rendered);
  assert.equal(rendered.code, 0, rendered.stderr);
  assert.doesNotMatch(rendered.stderr, /is not used by any component/);
  const checked = await runCli(['check', '-f', dir, '-o', out]);
  assert.equal(checked.code, 0, checked.stderr);
});

test('a List of CAPIProviders, as kubectl get capiproviders -A -o yaml prints it, renders the same bytes as each item as a document of its own (Turtles reads the objects, not their document); a problem in an item is told at that item', async () => {
  const item = (name: string, type: string, label: string, file: string) => `apiVersion: turtles-capi.cattle.io/v1alpha1
kind: CAPIProvider
metadata:
  name: ${name}
  namespace: capi-system
  resourceVersion: "42"
spec:
  type: ${type}
  version: v1.12.0
  fetchConfig:
    url: ${corpusUrl(label, 'v1.12.0', file)}
status:
  phase: Ready
`;
  const items = [
    item('cluster-api', 'core', 'cluster-api', 'core-components.yaml'),
    item('kubeadm', 'bootstrap', 'bootstrap-kubeadm', 'bootstrap-components.yaml'),
  ];
  const indented = (text: string) =>
    text
      .trimEnd()
      .split('\n')
      .map((line, i) => (i === 0 ? `- ${line}` : `  ${line}`))
      .join('\n');
  const list = (texts: string[]) => `apiVersion: v1\nkind: List\nitems:\n${texts.map(indented).join('\n')}\n---\n${CONFIG}`;
  // each rendered from its own directory with the same command, which the output's README records
  const renderIn = async (text: string) => {
    const dir = writeTempManifest({ 'providers.yaml': text });
    const result = await runCli(['render', '-f', 'providers.yaml', '-o', 'out'], { cwd: dir });
    assert.equal(result.code, 0, result.stderr);
    return readTree(path.join(dir, 'out'));
  };
  const fromList = await renderIn(list(items));
  assert.deepEqual(fromList, await renderIn(`${items.join('---\n')}---\n${CONFIG}`));
  assert.ok(fromList.has('02-bootstrap-kubeadm/kustomization.yaml'), [...fromList.keys()].join(' '));

  // an item Turtles cannot place is told at that item, with the document's own message
  const broken = list([items[0]!, items[1]!.replace('type: bootstrap', 'type: bootstrapper')]);
  const refused = await runCli(['render', '-f', 'providers.yaml', '-o', 'out'], { cwd: writeTempManifest({ 'providers.yaml': broken }) });
  assertNoStackTrace(refused);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^providers\.yaml:24:11: error: CAPIProvider\/capi-system\/kubeadm: spec\.type: /m);
});

test('convert of a List holding a CAPIProvider tells the same problem at the same place as render, not "nothing to convert", and writes nothing', async () => {
  const list = `apiVersion: v1
kind: List
items:
- apiVersion: turtles-capi.cattle.io/v1alpha1
  kind: CAPIProvider
  metadata: {name: aws, namespace: capa-system}
  spec: {type: infrastructure, version: v2.8.1}
`;
  const dir = writeTempManifest({ 'providers.yaml': list });
  const result = await runCli(['convert', '-f', 'providers.yaml', '--in-place'], { cwd: dir });
  assertNoStackTrace(result);
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    /^providers\.yaml:5:9: error: CAPIProvider\/capa-system\/aws: kind: a CAPIProvider inside a List is not converted/,
  );
  assert.match(result.stderr, /kubectl get capiprovider aws -n capa-system -o yaml/);
  assert.doesNotMatch(result.stderr, /nothing to convert/);
  assert.equal(readFileSync(path.join(dir, 'providers.yaml'), 'utf8'), list);
});

test('convert: each CAPIProvider becomes its operator object and the config Secret Turtles writes, or its variables go into the Secret of that name in the files; the result loads to the same providers', async () => {
  const { result, problems } = convertManifestText('providers.yaml', TURTLES);
  assert.deepEqual(problems, []);
  const docs = parseAllDocuments(result.text).map((d) => d.toJS() as { kind: string; metadata: { name: string }; stringData?: unknown });
  assert.deepEqual(
    docs.map((d) => `${d.kind}/${d.metadata.name}`),
    [
      'CoreProvider/cluster-api',
      'Secret/capi-env-variables',
      'BootstrapProvider/kubeadm',
      'Secret/kubeadm-bootstrap',
      'ControlPlaneProvider/kubeadm',
      'Secret/kubeadm-control-plane',
    ],
  );
  assert.match(
    result.text,
    /# The config Secret Rancher Turtles writes for CAPIProvider\/capi-kubeadm-bootstrap-system\/kubeadm-bootstrap/,
  );
  assert.match(
    result.converted[1]!.note!,
    /converted CAPIProvider\/capi-kubeadm-bootstrap-system\/kubeadm-bootstrap to BootstrapProvider\/capi-kubeadm-bootstrap-system\/kubeadm and Secret capi-kubeadm-bootstrap-system\/kubeadm-bootstrap/,
  );
  const publicConfig = `---\n${CONFIG}secrets:\n  public: [CLUSTER_TOPOLOGY, EXP_CLUSTER_RESOURCE_SET, EXP_MACHINE_POOL]\n`;
  assert.deepEqual(bareProviders(await load(result.text + publicConfig)), bareProviders(await load(TURTLES + '---\n' + CONFIG)));

  const withSecret = `${TURTLES}---
apiVersion: v1
kind: Secret
metadata:
  name: capi-env-variables
  namespace: cattle-capi-system
stringData:
  EXP_RUNTIME_SDK: "true" # kept
`;
  const merged = convertManifestText('providers.yaml', withSecret).result;
  const secrets = parseAllDocuments(merged.text)
    .map((d) => d.toJS() as { kind: string; metadata: { name: string }; stringData?: Record<string, string> })
    .filter((d) => d.kind === 'Secret' && d.metadata.name === 'capi-env-variables');
  assert.equal(secrets.length, 1);
  assert.deepEqual(secrets[0]!.stringData, {
    EXP_RUNTIME_SDK: 'true',
    CLUSTER_TOPOLOGY: 'true',
    EXP_CLUSTER_RESOURCE_SET: 'true',
    EXP_MACHINE_POOL: 'true',
  });
  assert.match(merged.text, /EXP_RUNTIME_SDK: "true" # kept/);
});

test('convert: a CAPIProvider whose metadata.name or namespace is no string (a map, a list) is an error there; the operator object and its Secret were written named "[object Object]" and "", with exit 0', () => {
  for (const [metadata, field, line] of [
    ['  name: {a: b}\n  namespace: capv-system\n', 'name', 4],
    ['  name: vsphere\n  namespace: [capv-system]\n', 'namespace', 5],
  ] as const) {
    const text = `apiVersion: turtles-capi.cattle.io/v1alpha1\nkind: CAPIProvider\nmetadata:\n${metadata}spec:\n  type: infrastructure\n  version: v1.13.0\n`;
    const { problems } = convertManifestText('vsphere.yaml', text);
    assert.deepEqual(
      problems.map((p) => [p.line, p.path, p.message]),
      [[line, `metadata.${field}`, 'is not a string']],
    );
  }
});

test('convert warns where Turtles does more than the object says: Rancher credentials, automatic updates, no version', () => {
  const text = `apiVersion: turtles-capi.cattle.io/v1alpha1
kind: CAPIProvider
metadata:
  name: vsphere
  namespace: capv-system
spec:
  type: infrastructure
  enableAutomaticUpdate: true
  credentials:
    rancherCloudCredentialNamespaceName: cattle-global-data:cc-vsphere
`;
  const { result } = convertManifestText('vsphere.yaml', text);
  const warnings = result.warnings.map(formatWarning).join('\n');
  assert.match(warnings, /vsphere\.yaml:9:3.*VSPHERE_USERNAME, VSPHERE_PASSWORD/);
  assert.match(warnings, /vsphere\.yaml:8:.*ClusterctlConfig pins/);
  assert.match(warnings, /no spec\.version/);
});

test('update: a CAPIProvider’s pinned spec.version is edited in place, found by its type and spec.name', () => {
  const result = updateManifestVersions(
    [{ path: 'providers.yaml', text: TURTLES }],
    [{ kind: 'BootstrapProvider', name: 'kubeadm', namespace: 'capi-kubeadm-bootstrap-system', newVersion: 'v1.12.1' }],
  );
  assert.equal(result.edits[0]!.status, 'updated');
  const expected = TURTLES.replace('  type: bootstrap\n  version: v1.12.0', '  type: bootstrap\n  version: v1.12.1');
  assert.notEqual(expected, TURTLES);
  assert.equal(result.files[0]!.text, expected);
});

test("an unused variable of a CAPIProvider's spec.variables is told at its own key, where it is removed", async () => {
  const text = TURTLES.replace('    EXP_MACHINE_POOL: "true"\n', '    EXP_MACHINE_POOL: "true"\n    UNUSED_TURTLES_VAR: "x"\n');
  const dir = writeTempManifest({ 'providers.yaml': text + '---\n' + CONFIG });
  const rendered = await runCli(['render', '-f', dir, '-o', path.join(tempDir(), 'out')]);
  assert.equal(rendered.code, 0, rendered.stderr);
  const line = text.split('\n').indexOf('    UNUSED_TURTLES_VAR: "x"') + 1;
  assert.match(
    rendered.stderr,
    new RegExp(`providers\\.yaml:${line}:5: warning: .*variable UNUSED_TURTLES_VAR is not used by any component`),
  );
});

test('an unknown field of a CAPIProvider is an error at its key with the closest field of the Turtles CRD (config/crd/bases/turtles-capi.cattle.io_capiproviders.yaml: spec, spec.features and spec.credentials are structural, kubectl apply refuses unknown fields): a misspelt feature would turn all three off (internal/provider/defaults.go setFeatures)', async () => {
  const text = TURTLES.replace('    machinePool: false\n', '    machinePool: false\n    clusterTopolgy: true\n')
    .replace('  variables:\n', '  variabels:\n')
    .replace('  manager:\n    verbosity: 3\n', '  manager:\n    verbosity: 3\n  credentials:\n    rancherCloudCredentail: aws-creds\n');
  const lines = text.split('\n');
  const at = (line: string) => lines.indexOf(line) + 1;
  await assert.rejects(load(text + '---\n' + CONFIG), (error: CapiGitopsError) => {
    const byPath = new Map(error.diagnostics.map((d) => [d.path, d]));
    const feature = byPath.get('spec.features.clusterTopolgy')!;
    assert.deepEqual([feature.line, feature.column], [at('    clusterTopolgy: true'), 5]);
    assert.equal(feature.message, 'unknown field "clusterTopolgy"');
    assert.equal(feature.expected, 'a field of Features: clusterResourceSet, clusterTopology, machinePool');
    assert.equal(feature.hint, 'did you mean "clusterTopology"?');
    const variables = byPath.get('spec.variabels')!;
    assert.deepEqual([variables.line, variables.column], [at('  variabels:'), 3]);
    assert.equal(variables.hint, 'did you mean "variables"?');
    // the CAPIProvider's own fields and the operator ProviderSpec it inlines
    assert.equal(
      variables.expected,
      'a field of CAPIProviderSpec: additionalDeployments, additionalManifests, configSecret, credentials, deployment, ' +
        'enableAutomaticUpdate, features, fetchConfig, manager, manifestPatches, name, patches, type, variables, version',
    );
    const credential = byPath.get('spec.credentials.rancherCloudCredentail')!;
    assert.deepEqual([credential.line, credential.column], [at('    rancherCloudCredentail: aws-creds'), 5]);
    assert.equal(credential.hint, 'did you mean "rancherCloudCredential"?');
    // each told once: the ProviderSpec's schema does not report the unknown spec field again
    assert.equal(error.diagnostics.filter((d) => /variabels/.test(d.message)).length, 1);
    return true;
  });
});

test('a feature given as a string is an error at its value: Turtles reads a boolean, and "true" would not count as true (capiprovider_types.go Features)', async () => {
  const text = TURTLES.replace('    machinePool: false\n', '    machinePool: "true"\n');
  await assert.rejects(load(text + '---\n' + CONFIG), (error: CapiGitopsError) => {
    const feature = error.diagnostics.find((d) => d.path === 'spec.features.machinePool')!;
    assert.equal(feature.line, text.split('\n').indexOf('    machinePool: "true"') + 1);
    assert.equal(feature.expected, 'true or false');
    return true;
  });
});

test('the ProviderSpec fields a CAPIProvider inlines are the schema\'s ProviderSpec (rancher/turtles capiprovider_types.go: operatorv1.ProviderSpec `json:",inline"`)', async () => {
  const schema = JSON.parse(readFileSync(path.resolve('schema/capi-gitops.schema.json'), 'utf8'));
  assert.deepEqual([...PROVIDER_SPEC_FIELDS].sort(), Object.keys(schema.$defs.ProviderSpec.properties).sort());
});

test("no spec.version: the hint names the version the export's status.installedVersion says Turtles installed, else the kubectl command that prints it, never another provider's version", () => {
  const provider = (status: string) => `apiVersion: turtles-capi.cattle.io/v1alpha1
kind: CAPIProvider
metadata:
  name: rke2-bootstrap
  namespace: rke2-system
spec:
  name: rke2
  type: bootstrap
${status}`;
  const hintOf = (text: string) => {
    const { result } = convertManifestText('rke2.yaml', text);
    return result.warnings.find((w) => /no spec\.version/.test(w.message))?.hint ?? '';
  };
  const exported = hintOf(provider('status:\n  installedVersion: v0.11.0\n'));
  assert.match(exported, /version: v0\.11\.0/);
  assert.doesNotMatch(exported, /v2\.8\.1/);
  const written = hintOf(provider(''));
  assert.doesNotMatch(written, /v2\.8\.1/, 'v2.8.1 is an AWS release, no version of this provider');
  assert.match(written, /kubectl get capiprovider rke2-bootstrap -n rke2-system -o jsonpath='\{\.status\.installedVersion\}'/);
});

test("a Secret of the config Secret's name in another namespace is told as not read: Turtles writes, and the operator reads, the one in the CAPIProvider's namespace (rancher/turtles internal/sync/secret_sync.go GetSecret, internal/provider/defaults.go SetDefaultProviderSpec)", async () => {
  const text = `apiVersion: turtles-capi.cattle.io/v1alpha1
kind: CAPIProvider
metadata:
  name: rke2-bootstrap
  namespace: rke2-system
spec:
  name: rke2
  type: bootstrap
  version: v0.11.0
  configSecret:
    name: rke2-bootstrap-vars
  variables:
    CAPRKE2_INSECURE_DIAGNOSTICS: "true"
---
apiVersion: v1
kind: Secret
metadata:
  name: rke2-bootstrap-vars
  namespace: rke2-config
stringData:
  images: |
    bootstrap-rke2:
      repository: mirror.internal/rancher
`;
  const manifest = await load(text);
  const warning = manifest.warnings!.find((w) => w.object === 'Secret/rke2-config/rke2-bootstrap-vars');
  assert.ok(warning, JSON.stringify(manifest.warnings));
  assert.equal(warning.line, 15);
  assert.match(warning.message, /not read/);
  assert.match(warning.message, /rke2-system\/rke2-bootstrap-vars/);
  assert.match(warning.hint ?? '', /metadata\.namespace: rke2-system/);
});

test("convert: an exported CAPIProvider becomes an operator object without the CAPIProvider's status, uid, resourceVersion, managedFields or last-applied-configuration, which belong to another object (kubectl-neat cmd/neat.go; apiserver storage/errors.go ErrResourceVersionSetOnCreate)", () => {
  const exported = `apiVersion: turtles-capi.cattle.io/v1alpha1
kind: CAPIProvider
metadata:
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"turtles-capi.cattle.io/v1alpha1","kind":"CAPIProvider","metadata":{"name":"kubeadm-bootstrap","namespace":"capi-kubeadm-bootstrap-system"},"spec":{"name":"kubeadm","type":"bootstrap"}}
  creationTimestamp: "2025-09-10T12:00:00Z"
  generation: 2
  managedFields:
  - apiVersion: turtles-capi.cattle.io/v1alpha1
    fieldsType: FieldsV1
    fieldsV1:
      f:spec:
        f:version: {}
    manager: kubectl-client-side-apply
    operation: Update
  name: kubeadm-bootstrap
  namespace: capi-kubeadm-bootstrap-system
  resourceVersion: "55123"
  uid: 77777777-aaaa-bbbb-cccc-000000000001
spec:
  name: kubeadm
  type: bootstrap
  version: v1.12.0
status:
  installedVersion: v1.12.0
  phase: Ready
`;
  const { result, problems } = convertManifestText('providers.yaml', exported);
  assert.deepEqual(problems, []);
  const [provider] = parseAllDocuments(result.text).map((d) => d.toJS() as Record<string, unknown>);
  assert.deepEqual(provider, {
    apiVersion: 'operator.cluster.x-k8s.io/v1alpha2',
    kind: 'BootstrapProvider',
    metadata: { name: 'kubeadm', namespace: 'capi-kubeadm-bootstrap-system' },
    spec: { version: 'v1.12.0', configSecret: { name: 'kubeadm-bootstrap', namespace: 'capi-kubeadm-bootstrap-system' } },
  });
});

test("render --list-variables tells a CAPIProvider's variables as written in the object (spec.variables, spec.features, or Turtles' default in status.variables), not as a Secret's: they are plain text there (capiprovider_types.go CAPIProviderSpec.Variables, CAPIProviderStatus)", async () => {
  const dir = writeTempManifest({ 'providers.yaml': TURTLES + '---\n' + CONFIG });
  const listed = await runCli(['render', '-f', dir, '--list-variables']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.doesNotMatch(listed.stdout, /from Secret/);
  assert.match(
    listed.stdout,
    /\n {2}CLUSTER_TOPOLOGY = "true" from CAPIProvider\/cattle-capi-system\/cluster-api spec\.variables \(default "false"\)\n/,
  );
  // not written in the object: Turtles' default (status.variables)
  assert.match(
    listed.stdout,
    /\n {2}CLUSTER_TOPOLOGY = "true" from CAPIProvider\/capi-kubeadm-control-plane-system\/kubeadm-control-plane status\.variables \(default "false"\)\n/,
  );
  assert.match(
    listed.stdout,
    /\n {2}EXP_MACHINE_POOL = "false" from CAPIProvider\/capi-kubeadm-bootstrap-system\/kubeadm-bootstrap spec\.features\.machinePool/,
  );
});

/**
 * A directory with an azure release of components that read EXP_AKS_RESOURCE_HEALTH, as CAPZ's
 * manager args do (the corpus has no Azure provider), and the CAPIProvider that installs it.
 */
function azureTurtlesRelease(): { dir: string; azure: string } {
  const dir = tempDir('capi-gitops-turtles-azure-');
  const release = path.join(dir, 'repository', 'infrastructure-azure', 'v1.20.0');
  mkdirSync(release, { recursive: true });
  writeFileSync(
    path.join(release, 'metadata.yaml'),
    'apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n  - major: 1\n    minor: 20\n    contract: v1beta1\n',
  );
  writeFileSync(
    path.join(release, 'infrastructure-components.yaml'),
    `apiVersion: v1
kind: ConfigMap
metadata:
  name: capz-features
  namespace: capz-system
data:
  gates: AKSResourceHealth=\${EXP_AKS_RESOURCE_HEALTH:=false}
`,
  );
  const azure = `apiVersion: turtles-capi.cattle.io/v1alpha1
kind: CAPIProvider
metadata:
  name: azure
  namespace: capz-system
spec:
  name: azure
  type: infrastructure
  version: v1.20.0
  fetchConfig:
    url: ${pathToFileURL(path.join(dir, 'repository', 'infrastructure-azure', 'latest', 'infrastructure-components.yaml')).href}
`;
  return { dir, azure };
}

test("render --list-variables tells the key Turtles adds for an azure CAPIProvider (EXP_AKS_RESOURCE_HEALTH) as Turtles' own, not the Secret's: no Secret in the input has it (rancher/turtles internal/provider/defaults.go SetProviderSpec)", async () => {
  const { dir, azure } = azureTurtlesRelease();
  writeFileSync(path.join(dir, 'providers.yaml'), TURTLES + '---\n' + azure + '---\n' + CONFIG);
  const listed = await runCli(['render', '-f', dir, '--list-variables']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.doesNotMatch(listed.stdout, /from Secret/, listed.stdout);
  assert.match(
    listed.stdout,
    /\n {2}EXP_AKS_RESOURCE_HEALTH = "true" from CAPIProvider\/capz-system\/azure status\.variables \(Turtles sets it for azure\) \(default "false"\)\n/,
    listed.stdout,
  );
});

test('a Config variable Turtles sets itself for an azure CAPIProvider (EXP_AKS_RESOURCE_HEALTH) is told unused at its own line, the hint to remove it there: no Secret in the input has the key, no field of the CAPIProvider changes it, and following the hint leaves no warning (rancher/turtles internal/provider/defaults.go SetProviderSpec)', async () => {
  const { dir, azure } = azureTurtlesRelease();
  const line = '  EXP_AKS_RESOURCE_HEALTH: "false"\n';
  const file = path.join(dir, 'providers.yaml');
  writeFileSync(file, `${TURTLES}---\n${azure}---\n${CONFIG}variables:\n${line}`);
  const out = path.join(dir, 'out');
  const rendered = await runCli(['render', '-f', file, '-o', out]);
  assert.equal(rendered.code, 0, rendered.stderr);
  const at = `${readFileSync(file, 'utf8').split('\n').indexOf(line.trimEnd()) + 1}:\\d+`;
  const warning = new RegExp(
    `providers\\.yaml:${at}: warning: Config: variables\\.EXP_AKS_RESOURCE_HEALTH: variable EXP_AKS_RESOURCE_HEALTH is not used: [^\\n]*Turtles sets it for azure[^\\n]*\\n {2}hint: ([^\\n]*)$`,
    'm',
  );
  const told = warning.exec(rendered.stderr);
  assert.ok(told, rendered.stderr);
  assert.equal(told[1], "remove EXP_AKS_RESOURCE_HEALTH from the Config's variables");

  // followed literally: the line goes, and so does the warning
  writeFileSync(file, readFileSync(file, 'utf8').replace(`variables:\n${line}`, ''));
  const again = await runCli(['render', '-f', file, '-o', out]);
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stderr, /EXP_AKS_RESOURCE_HEALTH/, again.stderr);
});

test("a fleet's clusters render a shared CAPIProvider's CRDs with Turtles' label, its operator objects' without (rancher/turtles internal/provider/rancher.go AddClusterIndexedLabelFn)", async () => {
  const dir = writeTempManifest({
    'core.yaml': TURTLES.split('---\n')[0]!,
    'bootstrap.yaml': OPERATOR.split('---\n').slice(2, 4).join('---\n'),
    'config.yaml': `${CONFIG}secrets:\n  public: [CLUSTER_TOPOLOGY, EXP_CLUSTER_RESOURCE_SET, EXP_MACHINE_POOL]\nclusters:\n- name: a1\n- name: a2\n`,
  });
  const out = path.join(tempDir(), 'out');
  const rendered = await runCli(['render', '-f', dir, '-o', out, '--fleet-layout', 'full']);
  assert.equal(rendered.code, 0, rendered.stderr);
  const crds = [...readTree(out)].filter(([file]) => /customresourcedefinition-[^/]*\.yaml$/.test(file) && !file.includes('cert-manager'));
  const core = crds.filter(([file]) => file.includes('/01-cluster-api/'));
  const bootstrap = crds.filter(([file]) => file.includes('/02-bootstrap-kubeadm/'));
  assert.ok(core.length > 0 && bootstrap.length > 0, crds.map(([file]) => file).join('\n'));
  for (const [file, text] of core) {
    const inventory = file.includes('providers.clusterctl.cluster.x-k8s.io');
    assert.equal(/auth\.cattle\.io\/cluster-indexed: "true"/.test(text), !inventory, file);
  }
  for (const [file, text] of bootstrap) assert.doesNotMatch(text, /auth\.cattle\.io/, file);
  assert.ok(
    ['a1', 'a2'].every((cluster) => core.some(([file]) => file.startsWith(`${cluster}/`) || file.includes(`/${cluster}/`))),
    core.map(([file]) => file).join('\n'),
  );
});

test("a CAPIProvider whose components hold cert-manager Certificates or Issuers is a warning at the object: Turtles' no-cert-manager feature (on by default from v0.27.0) swaps them for Rancher's certificates, which capi-gitops cannot know is on; the hint takes Rancher's annotation off the Services the components label (rancher/turtles internal/provider/wrangler.go WranglerPatcher, feature/feature.go NoCertManager)", async () => {
  const warningsOf = async (text: string) => {
    const dir = writeTempManifest({ 'm.yaml': text });
    const warnings: Diagnostic[] = [];
    const result = await renderOutput({ manifestPaths: [dir], onWarning: (w) => warnings.push(w) });
    return {
      file: path.join(dir, 'm.yaml'),
      warnings: warnings.filter((w) => /no-cert-manager/.test(w.message) && w.object !== 'Config'),
      result,
    };
  };
  const { file, warnings, result } = await warningsOf(TURTLES + '---\n' + CONFIG);
  // each at its object's start: the 1-based line of its apiVersion, column 1
  const lines = readFileSync(file, 'utf8').split('\n');
  const starts = lines.flatMap((l, i) => (l === 'apiVersion: turtles-capi.cattle.io/v1alpha1' ? [i + 1] : []));
  assert.deepEqual(
    warnings.map((w) => [w.object, path.resolve(w.file!), w.line, w.column]),
    [
      ['CAPIProvider/cattle-capi-system/cluster-api', file, starts[0]!, 1],
      ['CAPIProvider/capi-kubeadm-bootstrap-system/kubeadm-bootstrap', file, starts[1]!, 1],
      ['CAPIProvider/capi-kubeadm-control-plane-system/kubeadm-control-plane', file, starts[2]!, 1],
    ],
  );
  const [core] = warnings;
  assert.match(
    core!.message,
    /applies cluster-api without Issuer\/cattle-capi-system\/capi-selfsigned-issuer, Certificate\/cattle-capi-system\/capi-serving-cert, /,
  );
  assert.match(core!.message, /internal\/provider\/wrangler\.go WranglerPatcher/);
  const command =
    'kubectl annotate services -n cattle-capi-system -l cluster.x-k8s.io/provider=cluster-api need-a-cert.cattle.io/secret-name-';
  assert.ok(core!.hint!.endsWith(command), core!.hint);
  // the selector finds the webhook Service: the components label it so, as Turtles applied them
  const files = 'files' in result ? result.files : new Map<string, string>();
  const service = [...files].find(([name]) => /^01-cluster-api\/service-capi-webhook-service\.yaml$/.test(name))?.[1] ?? '';
  assert.match(service, /namespace: cattle-capi-system\n/);
  assert.match(service, /cluster\.x-k8s\.io\/provider: cluster-api\n/);

  // operator objects: what the cluster-api-operator applies, and no word
  assert.deepEqual((await warningsOf(OPERATOR)).warnings, []);

  // the hint names the Config setting; said either way, no word: false renders what the warning rendered
  assert.match(
    core!.hint!,
    /^say in the Config how Turtles runs: turtles: \{noCertManager: true\} renders the components as Turtles applies them/,
  );
  const off = await warningsOf(`${TURTLES}---\n${CONFIG}turtles:\n  noCertManager: false\n`);
  assert.deepEqual(off.warnings, []);
  assert.ok('files' in off.result && 'files' in result);
  assert.deepEqual([...off.result.files], [...result.files]);
  assert.deepEqual((await warningsOf(`${TURTLES}---\n${CONFIG}turtles:\n  noCertManager: true\n`)).warnings, []);
});

test("Config turtles.noCertManager: true renders the corpus CAPI core's CAPIProvider as Turtles with no-cert-manager on applies it: no Certificate or Issuer, no cert-manager.io/inject-ca-from, the webhook Service annotated need-a-cert.cattle.io/secret-name with the Certificate's secretName; its operator object keeps them (rancher/turtles internal/provider/wrangler.go WranglerPatcher, internal/controllers/operator_reconciler.go)", async () => {
  const render = async (text: string) => {
    const result = await renderOutput({ manifestPaths: [writeTempManifest({ 'm.yaml': text })] });
    assert.ok('files' in result);
    return [...result.files].filter(([file]) => file.startsWith('01-cluster-api/'));
  };
  const on = `${CONFIG}turtles:\n  noCertManager: true\nsecrets:\n  public: [CLUSTER_TOPOLOGY, EXP_CLUSTER_RESOURCE_SET, EXP_MACHINE_POOL]\n`;
  const files = await render(`${TURTLES.split('---\n')[0]!}---\n${on}`);
  const names = files.map(([file]) => file);
  assert.ok(names.includes('01-cluster-api/service-capi-webhook-service.yaml'), names.join('\n'));
  assert.deepEqual(
    names.filter((file) => /\/(certificate|issuer)-/.test(file)),
    [],
  );
  assert.deepEqual(
    files.filter(([, text]) => text.includes('cert-manager.io/inject-ca-from')).map(([file]) => file),
    [],
  );
  const service = files.find(([file]) => file === '01-cluster-api/service-capi-webhook-service.yaml')![1];
  assert.match(service, /\n {4}need-a-cert\.cattle\.io\/secret-name: capi-webhook-service-cert\n/);
  assert.match(service, /\n {2}namespace: cattle-capi-system\n/);

  // Argo CD ignores the CA bundles Rancher's need-a-cert controller writes, as it did cert-manager's
  // (rancher/wrangler pkg/needacert: every webhook and CRD conversion webhook calling the annotated Service)
  const ignored = async (text: string) => {
    const result = await renderOutput({ manifestPaths: [writeTempManifest({ 'm.yaml': text })], layout: 'argocd' });
    assert.ok('files' in result);
    const app = [...result.files].find(([file]) => file === 'argocd/application-capi-gitops-01-cluster-api.yaml')![1];
    return (parseAllDocuments(app)[0]!.toJS() as { spec: { ignoreDifferences: { kind: string; name: string }[] } }).spec.ignoreDifferences;
  };
  const argocd = `${CONFIG}gitops:\n  path: mgmt\n  values:\n    repoURL: https://git.example.com/m.git\n`;
  const withRancher = await ignored(`${TURTLES.split('---\n')[0]!}---\n${argocd}turtles:\n  noCertManager: true\n`);
  const withCertManager = await ignored(`${TURTLES.split('---\n')[0]!}---\n${argocd}turtles:\n  noCertManager: false\n`);
  assert.ok(withRancher.some((d) => d.kind === 'CustomResourceDefinition' && d.name === 'clusters.cluster.x-k8s.io'));
  assert.ok(withRancher.some((d) => d.kind === 'ValidatingWebhookConfiguration'));
  assert.deepEqual(withRancher, withCertManager);

  // the same provider as an operator object: the cluster-api-operator alone, for cert-manager
  const operator = await render(`${OPERATOR.split('---\n').slice(0, 2).join('---\n')}---\n${on}`);
  assert.ok(
    operator.some(([file]) => /\/certificate-capi-serving-cert\.yaml$/.test(file)),
    operator.map(([f]) => f).join('\n'),
  );
  assert.ok(operator.every(([, text]) => !text.includes('need-a-cert')));
});

test("with turtles.noCertManager: true and every provider a CAPIProvider, cert-manager rendered by default is a warning at the setting: no provider needs it (rancher/turtles internal/provider/wrangler.go WranglerPatcher drops the core's Certificates too; charts/rancher-turtles holds no cert-manager object); certManager.enabled either way says it", async () => {
  const run = async (config: string, providers = TURTLES) => {
    const dir = writeTempManifest({ 'm.yaml': `${providers}---\n${config}` });
    const warnings: Diagnostic[] = [];
    const result = await renderOutput({ manifestPaths: [dir], onWarning: (w) => warnings.push(w) });
    assert.ok('files' in result);
    const told = warnings.filter((w) => /no provider needs it/.test(w.message));
    return { file: path.join(dir, 'm.yaml'), told, files: [...result.files.keys()] };
  };
  const on = `${CONFIG}turtles:\n  noCertManager: true\n`;
  const { file, told, files } = await run(on);
  assert.ok(files.some((f) => f.includes('cert-manager')));
  const line = readFileSync(file, 'utf8').split('\n').indexOf('  noCertManager: true') + 1;
  assert.deepEqual(
    told.map((w) => [w.object, w.path, path.resolve(w.file!), w.line, w.column]),
    [['Config', 'turtles.noCertManager', file, line, 18]],
  );
  assert.match(told[0]!.hint!, /^set certManager\.enabled: false in the Config to leave cert-manager out/);
  // followed literally: no cert-manager, no word
  const off = await run(on.replace('certManager:\n', 'certManager:\n  enabled: false\n'));
  assert.deepEqual(off.told, []);
  assert.deepEqual(
    off.files.filter((f) => f.includes('cert-manager')),
    [],
  );
  assert.deepEqual((await run(on.replace('certManager:\n', 'certManager:\n  enabled: true\n'))).told, []);
  // an operator object beside them needs cert-manager; without the setting, the CAPIProviders' warning says the rest
  const mixed = `${TURTLES.split('---\n')[0]!}---\n${OPERATOR.split('---\n').slice(2, 4).join('---\n')}`;
  assert.deepEqual(
    (await run(`${on}secrets:\n  public: [CLUSTER_TOPOLOGY, EXP_CLUSTER_RESOURCE_SET, EXP_MACHINE_POOL]\n`, mixed)).told,
    [],
  );
  assert.deepEqual((await run(CONFIG)).told, []);
});

test("a fleet's cluster says how its own Turtles runs: turtles.noCertManager in its overlay, over the Config's (rancher/turtles internal/provider/wrangler.go WranglerPatcher; feature/feature.go: the gate's default changed in v0.27.0, so clusters upgrading Turtles in turn differ)", async () => {
  const dir = writeTempManifest({
    'core.yaml': TURTLES.split('---\n')[0]!,
    'config.yaml': `${CONFIG}turtles:\n  noCertManager: true\nclusters:\n- name: a1\n- name: a2\n  turtles:\n    noCertManager: false\n`,
  });
  const out = path.join(tempDir(), 'out');
  const rendered = await runCli(['render', '-f', dir, '-o', out, '--fleet-layout', 'full']);
  assert.equal(rendered.code, 0, rendered.stderr);
  // each cluster said it: no warning for either
  assert.doesNotMatch(rendered.stderr, /without Issuer/);
  const files = [...readTree(out).keys()];
  const certificates = (cluster: string) =>
    files.filter((f) => f.includes(`${cluster}/01-cluster-api/`) && /\/(certificate|issuer)-/.test(f));
  assert.deepEqual(certificates('a1'), []);
  assert.equal(certificates('a2').length, 2, files.join('\n'));
});

test("convert warns that the operator object renders its CRDs without Turtles' auth.cattle.io/cluster-indexed label, and the spec.patches entry its example gives renders them as the CAPIProvider did (rancher/turtles internal/provider/rancher.go AddClusterIndexedLabelFn)", async () => {
  const { result } = convertManifestText('providers.yaml', TURTLES);
  const told = result.warnings.filter((w) => /auth\.cattle\.io\/cluster-indexed/.test(w.message));
  // each at its object's start: the line of its apiVersion, column 1
  const starts = TURTLES.split('\n').flatMap((l, i) => (l.startsWith('apiVersion:') ? [i + 1] : []));
  assert.deepEqual(
    told.map((w) => [w.object, w.line, w.column]),
    [
      ['CAPIProvider/cattle-capi-system/cluster-api', starts[0], 1],
      ['CAPIProvider/capi-kubeadm-bootstrap-system/kubeadm-bootstrap', starts[1], 1],
      ['CAPIProvider/capi-kubeadm-control-plane-system/kubeadm-control-plane', starts[2], 1],
    ],
  );
  const example = told[0]!.example!;
  assert.match(told[0]!.hint!, /spec\.patches/);
  // the example followed literally: added to each operator object's spec.patches, the render is the CAPIProviders'
  const indented = example
    .trimEnd()
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
  const patched = OPERATOR.replaceAll('spec:\n  version: v1.12.0\n', `spec:\n  patches:\n${indented}\n  version: v1.12.0\n`);
  assert.equal(patched.split('  patches:\n').length, 4);
  const render = async (text: string) => (await renderManagementCluster({ manifestPaths: [writeTempManifest({ 'm.yaml': text })] })).files;
  const [fromTurtles, fromOperator] = [await render(TURTLES + '---\n' + CONFIG), await render(patched)];
  assert.deepEqual([...fromOperator.keys()], [...fromTurtles.keys()]);
  for (const [file, text] of fromTurtles) assert.ok(text === fromOperator.get(file), file);
});

test("convert warns that the operator object applies its Certificates and Issuers for cert-manager where Turtles' no-cert-manager had swapped them for Rancher's, with the kubectl command that takes Rancher's annotation off its Services (rancher/turtles internal/provider/wrangler.go WranglerPatcher)", () => {
  const { result } = convertManifestText('providers.yaml', TURTLES);
  const told = result.warnings.filter((w) => /no-cert-manager/.test(w.message));
  const starts = TURTLES.split('\n').flatMap((l, i) => (l.startsWith('apiVersion:') ? [i + 1] : []));
  assert.deepEqual(
    told.map((w) => [w.object, w.line, w.column]),
    [
      ['CAPIProvider/cattle-capi-system/cluster-api', starts[0], 1],
      ['CAPIProvider/capi-kubeadm-bootstrap-system/kubeadm-bootstrap', starts[1], 1],
      ['CAPIProvider/capi-kubeadm-control-plane-system/kubeadm-control-plane', starts[2], 1],
    ],
  );
  assert.match(told[0]!.message, /as CoreProvider\/cattle-capi-system\/cluster-api, .*cert-manager/);
  assert.match(
    told[1]!.hint!,
    /kubectl annotate services -n capi-kubeadm-bootstrap-system -l cluster\.x-k8s\.io\/provider=bootstrap-kubeadm need-a-cert\.cattle\.io\/secret-name-$/,
  );
});

test('with --layout operator, turtles.noCertManager is a warning at its key: the components are applied in the cluster (a CAPIProvider by Turtles, whose own no-cert-manager feature decides), not rendered here', async () => {
  const dir = tempDir();
  const release = readFileSync(path.join(FIXTURES, 'operator-release', 'v0.28.0', 'operator-components.yaml'), 'utf8');
  mkdirSync(path.join(dir, 'operator', 'v0.28.0'), { recursive: true });
  writeFileSync(path.join(dir, 'operator', 'v0.28.0', 'operator-components.yaml'), release);
  const config = `${CONFIG}operator:\n  url: operator/v0.28.0/operator-components.yaml\nturtles:\n  noCertManager: true\n`;
  writeFileSync(path.join(dir, 'm.yaml'), `${TURTLES}---\n${config}`);
  const result = await runCli(['render', '-f', 'm.yaml', '-o', 'out', '--layout', 'operator'], { cwd: dir });
  assert.equal(result.code, 0, result.stderr);
  const line = readFileSync(path.join(dir, 'm.yaml'), 'utf8').split('\n').indexOf('  noCertManager: true') + 1;
  assert.match(result.stderr, new RegExp(`m\\.yaml:${line}:3: warning: turtles\\.noCertManager changes nothing with --layout operator`));
});
