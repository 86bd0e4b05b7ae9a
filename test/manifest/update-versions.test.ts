import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { updateManifestVersions, updateVersionsInFiles, type VersionBump } from '../../src/manifest/update-versions.js';
import { failsWith } from '../helpers/assertions.js';

const MANAGEMENT = `# Management cluster providers.
# Bumped by \`capi-gitops update\`.
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api      # the core
  namespace: capi-system
spec:
  version: "v1.8.0"   # pinned, double-quoted
  manager:
    featureGates: {MachinePool: true}

---
# the kubeadm pair, as a List
apiVersion: v1
kind: List
items:
  - apiVersion: operator.cluster.x-k8s.io/v1alpha2
    kind: BootstrapProvider
    metadata: {name: kubeadm, namespace: capi-kubeadm-bootstrap-system}
    spec:
      version: 'v1.8.0'
  - apiVersion: operator.cluster.x-k8s.io/v1alpha2
    kind: ControlPlaneProvider
    metadata:
      name: kubeadm
      namespace: capi-kubeadm-control-plane-system
    spec:
      version: v1.8.0 # unquoted
      deployment:
        replicas:   2
...
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata:
  name: docker
  namespace: capd-system
spec:
  version: "~1.8"
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: IPAMProvider
metadata:
  name: in-cluster
  namespace: ipam-system
spec: {}
`;

const bump = (kind: VersionBump['kind'], name: string, namespace: string, newVersion: string): VersionBump => ({
  kind,
  name,
  namespace,
  newVersion,
});

const KUBEADM_BUMPS = [
  bump('CoreProvider', 'cluster-api', 'capi-system', 'v1.10.4'),
  bump('BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system', 'v1.10.4'),
  bump('ControlPlaneProvider', 'kubeadm', 'capi-kubeadm-control-plane-system', 'v1.10.4'),
];

test('pinned versions change in place; quoting, comments, List items and every other byte stay as they were', () => {
  const result = updateManifestVersions([{ path: 'management.yaml', text: MANAGEMENT }], KUBEADM_BUMPS);
  const expected = MANAGEMENT.replace('version: "v1.8.0"   # pinned', 'version: "v1.10.4"   # pinned')
    .replace("version: 'v1.8.0'", "version: 'v1.10.4'")
    .replace('version: v1.8.0 # unquoted', 'version: v1.10.4 # unquoted');
  assert.notEqual(expected, MANAGEMENT);
  assert.equal(result.files[0].text, expected);
  assert.equal(result.files[0].changed, true);
  assert.deepEqual(
    result.edits.map((e) => [e.line, e.column, e.kind, e.oldVersion, e.newVersion, e.status]),
    [
      [10, 12, 'CoreProvider', 'v1.8.0', 'v1.10.4', 'updated'],
      [23, 16, 'BootstrapProvider', 'v1.8.0', 'v1.10.4', 'updated'],
      [30, 16, 'ControlPlaneProvider', 'v1.8.0', 'v1.10.4', 'updated'],
    ],
  );
  assert.equal(result.edits[0].message, 'management.yaml:10: CoreProvider capi-system/cluster-api v1.8.0 → v1.10.4');
});

test('byte identity outside the changed scalar: the text before and after each version is untouched', () => {
  const text = MANAGEMENT;
  const result = updateManifestVersions(
    [{ path: 'm.yaml', text }],
    [bump('ControlPlaneProvider', 'kubeadm', 'capi-kubeadm-control-plane-system', 'v1.12.0')],
  );
  const start = text.indexOf('v1.8.0 # unquoted');
  assert.equal(result.files[0].text.slice(0, start), text.slice(0, start));
  assert.equal(result.files[0].text.slice(start + 'v1.12.0'.length), text.slice(start + 'v1.8.0'.length));
});

test('a range or no version is not edited: the change list says the lockfile carries the new version', () => {
  const result = updateManifestVersions(
    [{ path: 'm.yaml', text: MANAGEMENT }],
    [bump('InfrastructureProvider', 'docker', 'capd-system', 'v1.8.9'), bump('IPAMProvider', 'in-cluster', 'ipam-system', 'v1.0.3')],
  );
  assert.equal(result.files[0].text, MANAGEMENT);
  assert.equal(result.files[0].changed, false);
  assert.deepEqual(
    result.edits.map((e) => [e.status, e.message]),
    [
      ['not-pinned', 'm.yaml:41: InfrastructureProvider capd-system/docker asks for range "~1.8": not edited, the lockfile carries v1.8.9'],
      ['not-pinned', 'm.yaml:48: IPAMProvider ipam-system/in-cluster has no spec.version: not edited, the lockfile carries v1.0.3'],
    ],
  );
});

test('a range the new version is outside of is not edited and cannot be carried by the lockfile either', () => {
  const result = updateManifestVersions(
    [{ path: 'm.yaml', text: MANAGEMENT }],
    [bump('InfrastructureProvider', 'docker', 'capd-system', 'v1.10.4')],
  );
  assert.equal(result.files[0].text, MANAGEMENT);
  assert.equal(result.edits[0].status, 'skipped');
  assert.equal(
    result.edits[0].reason,
    'v1.10.4 is outside the range "~1.8", so the lockfile cannot carry it; widen the range or pin the version',
  );
});

test('a version already pinned is reported unchanged and the file is not rewritten', () => {
  const result = updateManifestVersions(
    [{ path: 'm.yaml', text: MANAGEMENT }],
    [bump('CoreProvider', 'cluster-api', 'capi-system', 'v1.8.0')],
  );
  assert.equal(result.files[0].changed, false);
  assert.equal(result.files[0].text, MANAGEMENT);
  assert.equal(result.edits[0].status, 'unchanged');
  assert.equal(result.edits[0].message, 'm.yaml:10: CoreProvider capi-system/cluster-api already pins v1.8.0');
});

test('several files: only the ones with a pinned provider change, in input order', () => {
  const other =
    'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: AddonProvider\nmetadata:\n  name: helm\n  namespace: caaph-system\nspec:\n  version: v0.3.0\n';
  const result = updateManifestVersions(
    [
      { path: 'b.yaml', text: other },
      { path: 'a.yaml', text: MANAGEMENT },
    ],
    [bump('CoreProvider', 'cluster-api', 'capi-system', 'v1.12.0')],
  );
  assert.deepEqual(
    result.files.map((f) => [f.path, f.changed]),
    [
      ['b.yaml', false],
      ['a.yaml', true],
    ],
  );
  assert.equal(result.files[0].text, other);
});

test('typed lists, flow mappings, tags and CRLF line endings are kept', () => {
  const text = [
    'apiVersion: operator.cluster.x-k8s.io/v1alpha2',
    'kind: CoreProviderList',
    'items:',
    '- metadata: {name: cluster-api, namespace: capi-system}',
    '  spec: {version: v1.8.0, manager: {verbosity: 2}}',
    '---',
    'kind: BootstrapProvider',
    'apiVersion: operator.cluster.x-k8s.io/v1alpha2',
    'metadata: {name: kubeadm, namespace: capi-kubeadm-bootstrap-system}',
    'spec:',
    '  version: !!str v1.8.0',
    '',
  ].join('\r\n');
  const result = updateManifestVersions([{ path: 'm.yaml', text }], KUBEADM_BUMPS.slice(0, 2));
  assert.equal(result.files[0].text, text.replace('{version: v1.8.0,', '{version: v1.10.4,').replace('!!str v1.8.0', '!!str v1.10.4'));
  assert.deepEqual(
    result.edits.map((e) => e.line),
    [5, 11],
  );
});

test('the same name in another namespace is another provider', () => {
  const text =
    'kind: CoreProvider\nmetadata: {name: cluster-api, namespace: elsewhere}\nspec: {version: v1.8.0}\n---\nkind: CoreProvider\nmetadata: {name: cluster-api, namespace: capi-system}\nspec: {version: v1.8.0}\n';
  const result = updateManifestVersions([{ path: 'm.yaml', text }], [KUBEADM_BUMPS[0]]);
  assert.equal(result.files[0].text, text.replace(/v1\.8\.0\}\n$/, 'v1.10.4}\n'));
  assert.equal(result.edits.length, 1);
});

test('a version given through an alias is left for the user to edit', () => {
  const text = 'kind: CoreProvider\nmetadata: {name: cluster-api, namespace: capi-system, labels: {v: &v v1.8.0}}\nspec:\n  version: *v\n';
  const result = updateManifestVersions([{ path: 'm.yaml', text }], [KUBEADM_BUMPS[0]]);
  assert.equal(result.files[0].text, text);
  assert.equal(result.edits[0].status, 'skipped');
  assert.equal(
    result.edits[0].message,
    'm.yaml:4: CoreProvider capi-system/cluster-api not edited: spec.version is an alias; write v1.10.4 by hand',
  );
});

test('a version that is not a string, or a spec built with a merge key, is left for the user to edit', () => {
  const number = 'kind: CoreProvider\nmetadata: {name: cluster-api, namespace: capi-system}\nspec:\n  version: 1.10\n';
  const merged =
    'kind: CoreProvider\nmetadata: {name: cluster-api, namespace: capi-system, labels: &base {version: v1.8.0}}\nspec:\n  <<: *base\n  version: v1.8.0\n';
  const result = updateManifestVersions(
    [
      { path: 'a.yaml', text: number },
      { path: 'b.yaml', text: merged },
    ],
    [KUBEADM_BUMPS[0]],
  );
  assert.deepEqual(
    result.files.map((f) => f.changed),
    [false, false],
  );
  assert.deepEqual(
    result.edits.map((e) => [e.status, e.reason]),
    [
      ['skipped', 'spec.version is not a string; write "v1.10.4" by hand'],
      ['skipped', 'spec has a merge key; write v1.10.4 by hand'],
    ],
  );
});

test('a bump for a provider the files do not declare is an error', () => {
  assert.throws(
    () => updateManifestVersions([{ path: 'm.yaml', text: MANAGEMENT }], [bump('InfrastructureProvider', 'aws', 'capa-system', 'v2.9.0')]),
    failsWith(/no InfrastructureProvider capa-system\/aws in the manifest files/),
  );
});

test('a file that is not valid YAML is an error at its line and column', () => {
  assert.throws(
    () => updateManifestVersions([{ path: 'bad.yaml', text: 'kind: CoreProvider\nspec: {version: v1\n' }], [KUBEADM_BUMPS[0]]),
    failsWith(/^bad\.yaml:\d+:\d+: error: invalid YAML/),
  );
});

test('updateVersionsInFiles reads the files from disk', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'capi-gitops-update-'));
  try {
    const file = path.join(dir, 'providers.yaml');
    await writeFile(file, MANAGEMENT);
    const result = await updateVersionsInFiles([file], [KUBEADM_BUMPS[0]]);
    assert.equal(result.files[0].path, file);
    assert.match(result.files[0].text, /version: "v1\.10\.4"   # pinned/);
    await assert.rejects(updateVersionsInFiles([path.join(dir, 'missing.yaml')], []), failsWith(/cannot read the manifest file/));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
