import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ProviderObject, ProviderSpec } from '../../../src/manifest/types.js';
import type { ProviderKind } from '../../../src/core/provider.js';
import { canonicalSelector } from '../../../src/core/label-selector.js';
import { type LockEntry, type LockRequest } from '../../../src/resolve/lock/types.js';
import { lockRequestForCertManager, lockRequestForProvider, lockSatisfies } from '../../../src/resolve/lock/request.js';
import { buildProviderRegistry } from '../../../src/resolve/registry.js';
import { CERT_MANAGER_DEFAULT_VERSION, certManagerDefaultUrl } from '../../../src/resolve/resolve.js';
import { corpusManifest, writeTempManifest } from '../../helpers/corpus-manifest.js';
import { runCli } from '../../helpers/cli.js';

const registry = buildProviderRegistry().registry;

function provider(kind: ProviderKind, name: string, namespace: string, spec: ProviderSpec = {}): ProviderObject {
  return { kind, name, namespace, spec, position: { file: '/m/providers.yaml', line: 1, column: 1 } };
}

function entryFor(request: LockRequest, version = 'v1.12.0'): LockEntry {
  return { ...request, version, contract: 'v1beta2', files: [] };
}

test('a provider without fetchConfig is locked to its registry URL (clusterctl providers list), a Config entry overrides it', () => {
  const core = provider('CoreProvider', 'cluster-api', 'capi-system', { version: 'v1.12.0' });
  assert.deepEqual(lockRequestForProvider(core, registry), {
    kind: 'CoreProvider',
    name: 'cluster-api',
    namespace: 'capi-system',
    requestedVersion: 'v1.12.0',
    source: { type: 'registry', url: 'https://github.com/kubernetes-sigs/cluster-api/releases/latest/core-components.yaml' },
  });
  const overridden = buildProviderRegistry([
    { name: 'cluster-api', type: 'CoreProvider', url: 'file:///repo/cluster-api/latest/core-components.yaml' },
  ]).registry;
  assert.deepEqual(lockRequestForProvider(core, overridden)?.source, {
    type: 'registry',
    url: 'file:///repo/cluster-api/latest/core-components.yaml',
  });
});

test('fetchConfig url, selector and oci are the source; an empty spec.version is requested as ""', () => {
  const url = lockRequestForProvider(
    provider('InfrastructureProvider', 'docker', 'capd-system', {
      fetchConfig: { url: '../repo/infrastructure-docker/latest/infrastructure-components.yaml' },
    }),
    registry,
  );
  assert.deepEqual(url?.source, { type: 'url', url: '../repo/infrastructure-docker/latest/infrastructure-components.yaml' });
  assert.equal(url?.requestedVersion, '');
  const oci = lockRequestForProvider(
    provider('AddonProvider', 'helm', 'caaph-system', { fetchConfig: { oci: 'registry.example/helm:v0.3.0' } }),
    registry,
  );
  assert.deepEqual(oci?.source, { type: 'oci', oci: 'registry.example/helm:v0.3.0' });
  const selector = lockRequestForProvider(
    provider('CoreProvider', 'cluster-api', 'capi-system', { fetchConfig: { selector: { matchLabels: { b: '2', a: '1' } } } }),
    registry,
  );
  assert.deepEqual(selector?.source, { type: 'selector', selector: { matchLabels: { a: '1', b: '2' } } });
});

test('a provider with neither fetchConfig nor a registry entry has no lock request', () => {
  assert.equal(lockRequestForProvider(provider('InfrastructureProvider', 'unknown', 'x'), registry), undefined);
});

test('canonical selectors: sorted, deduplicated, empty parts dropped', () => {
  assert.deepEqual(
    canonicalSelector({
      matchLabels: {},
      matchExpressions: [
        { key: 'b', operator: 'NotIn', values: ['y', 'x', 'y'] },
        { key: 'a', operator: 'Exists', values: [] },
        { key: 'b', operator: 'NotIn', values: ['x', 'y'] },
      ],
    }),
    {
      matchExpressions: [
        { key: 'a', operator: 'Exists' },
        { key: 'b', operator: 'NotIn', values: ['x', 'y'] },
      ],
    },
  );
  assert.deepEqual(canonicalSelector({}), {});
});

test("cert-manager: default source is clusterctl's URL for the default version; disabled means no entry", () => {
  assert.deepEqual(lockRequestForCertManager({}), {
    kind: 'CertManager',
    name: 'cert-manager',
    namespace: 'cert-manager',
    requestedVersion: '',
    source: { type: 'registry', url: certManagerDefaultUrl(CERT_MANAGER_DEFAULT_VERSION) },
  });
  assert.deepEqual(lockRequestForCertManager({ certManager: { version: 'v1.18.0' } })?.source, {
    type: 'registry',
    url: certManagerDefaultUrl('v1.18.0'),
  });
  assert.deepEqual(lockRequestForCertManager({ certManager: { url: 'cm/v1.13.0/cert-manager.yaml' } })?.source, {
    type: 'url',
    url: 'cm/v1.13.0/cert-manager.yaml',
  });
  assert.equal(lockRequestForCertManager({ certManager: { enabled: false } }), undefined);
});

test('lockSatisfies: the same component, requested version string and source', () => {
  const request = lockRequestForProvider(provider('CoreProvider', 'cluster-api', 'capi-system', { version: '~1.12' }), registry)!;
  const entry = entryFor(request, 'v1.12.3');
  assert.equal(lockSatisfies(entry, request), true, 'a range stays locked to the version it resolved to');
  assert.equal(lockSatisfies(entry, { ...request, namespace: 'other' }), false);
  assert.equal(lockSatisfies(entry, { ...request, name: 'other' }), false);
  assert.equal(lockSatisfies(entry, { ...request, kind: 'BootstrapProvider' }), false);
  assert.equal(lockSatisfies(entry, { ...request, requestedVersion: '1.12.x' }), false, 'same meaning, different string');
  assert.equal(lockSatisfies(entry, { ...request, requestedVersion: '' }), false);
});

test('lockSatisfies: exact versions compare as written (v1.12.0 is not 1.12.0)', () => {
  const request = lockRequestForProvider(provider('CoreProvider', 'cluster-api', 'capi-system', { version: 'v1.12.0' }), registry)!;
  assert.equal(lockSatisfies(entryFor(request), { ...request, requestedVersion: '1.12.0' }), false);
});

test('lockSatisfies: a locked version the request does not allow (a hand-merged lock) re-resolves', () => {
  const exact = lockRequestForProvider(provider('CoreProvider', 'cluster-api', 'capi-system', { version: 'v1.12.0' }), registry)!;
  assert.equal(lockSatisfies(entryFor(exact, 'v1.10.4'), exact), false, 'asked v1.12.0, locked v1.10.4');
  const range = { ...exact, requestedVersion: '~1.12' };
  assert.equal(lockSatisfies(entryFor(range, 'v1.10.4'), range), false, 'v1.10.4 is not in ~1.12');
  assert.equal(lockSatisfies(entryFor(range, 'v1.12.3'), range), true);
  const latest = { ...exact, requestedVersion: '' };
  assert.equal(lockSatisfies(entryFor(latest, 'v1.10.4'), latest), true, 'no spec.version: any locked release answers');
});

test("render --frozen with a lock whose entries carry the manifest's request but an older version fails at spec.version; render relocks to the asked version", async () => {
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest('v1.12.0') });
  assert.equal((await runCli(['lock', '-f', '.'], { cwd: dir })).code, 0);
  const lockFile = path.join(dir, 'capi-gitops.lock.yaml');
  const dirOld = writeTempManifest({ 'providers.yaml': corpusManifest('v1.10.4') });
  assert.equal((await runCli(['lock', '-f', '.'], { cwd: dirOld })).code, 0);
  // a conflict resolved by taking the base branch's lock and the pull request's requested versions
  const merged = readFileSync(path.join(dirOld, 'capi-gitops.lock.yaml'), 'utf8').replaceAll(
    'requestedVersion: v1.10.4',
    'requestedVersion: v1.12.0',
  );
  writeFileSync(lockFile, merged);
  const frozen = await runCli(['render', '-f', '.', '-o', 'out', '--frozen'], { cwd: dir });
  assert.equal(frozen.code, 1, frozen.stdout);
  assert.match(
    frozen.stderr,
    /^providers\.yaml:7:12: error: CoreProvider\/capi-system\/cluster-api: spec\.version: .*~ cluster-api v1\.10\.4 → v1\.12\.0/m,
  );
  const render = await runCli(['render', '-f', '.', '-o', 'out'], { cwd: dir });
  assert.equal(render.code, 0, render.stderr);
  assert.match(render.stdout, /resolved cluster-api v1\.12\.0, contract v1beta2/);
  assert.doesNotMatch(readFileSync(lockFile, 'utf8'), /v1\.10\.4/);
});

test('lockSatisfies: a changed URL, source type, OCI reference or selector re-resolves; selector spelling order does not', () => {
  const base = lockRequestForProvider(
    provider('CoreProvider', 'cluster-api', 'capi-system', { fetchConfig: { url: 'repo/cluster-api/latest/core-components.yaml' } }),
    registry,
  )!;
  const entry = entryFor(base);
  assert.equal(lockSatisfies(entry, base), true);
  assert.equal(lockSatisfies(entry, { ...base, source: { type: 'url', url: 'repo2/cluster-api/latest/core-components.yaml' } }), false);
  assert.equal(
    lockSatisfies(entry, { ...base, source: { type: 'registry', url: 'repo/cluster-api/latest/core-components.yaml' } }),
    false,
    'fetchConfig.url and a registry URL are different sources',
  );
  assert.equal(lockSatisfies(entry, { ...base, source: { type: 'oci', oci: 'repo/cluster-api/latest/core-components.yaml' } }), false);

  const selected: LockRequest = {
    ...base,
    source: {
      type: 'selector',
      selector: { matchLabels: { a: '1', b: '2' }, matchExpressions: [{ key: 'c', operator: 'In', values: ['x', 'y'] }] },
    },
  };
  const locked = entryFor(selected);
  const reordered: LockRequest = {
    ...base,
    source: {
      type: 'selector',
      selector: { matchExpressions: [{ key: 'c', operator: 'In', values: ['y', 'x'] }], matchLabels: { b: '2', a: '1' } },
    },
  };
  assert.equal(lockSatisfies(locked, reordered), true);
  const changed: LockRequest = {
    ...base,
    source: {
      type: 'selector',
      selector: { matchLabels: { a: '1', b: '3' }, matchExpressions: [{ key: 'c', operator: 'In', values: ['x', 'y'] }] },
    },
  };
  assert.equal(lockSatisfies(locked, changed), false);
});

test('lockSatisfies for cert-manager: a new certManager.version changes both the request and the default URL', () => {
  const request = lockRequestForCertManager({ certManager: { version: 'v1.18.0' } })!;
  const entry: LockEntry = { ...request, version: 'v1.18.0', files: [] };
  assert.equal(lockSatisfies(entry, lockRequestForCertManager({ certManager: { version: 'v1.18.0' } })!), true);
  assert.equal(lockSatisfies(entry, lockRequestForCertManager({ certManager: { version: 'v1.19.1' } })!), false);
});
