import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Manifest, ProviderObject, ProviderSpec } from '../../../src/manifest/types.js';
import type { ProviderKind } from '../../../src/core/provider.js';
import { CapiGitopsError } from '../../../src/core/diagnostics.js';
import { parseLockfile, serializeLockfile } from '../../../src/resolve/lock/lockfile.js';
import { lockRequestForProvider, lockSatisfies } from '../../../src/resolve/lock/request.js';
import {
  buildLockfile,
  lockEntryForCertManager,
  lockEntryForProvider,
  lockedFilePath,
  portableUrl,
} from '../../../src/resolve/lock/build.js';
import { buildProviderRegistry } from '../../../src/resolve/registry.js';
import { resolveCertManager } from '../../../src/resolve/fetch-releases.js';
import { resolveProviders } from '../../fixtures/resolve/builders.js';
import { CORPUS_REPOSITORY, PROJECT_ROOT } from '../../helpers/paths.js';

const MANIFEST_DIR = path.join(PROJECT_ROOT, 'test', 'fixtures');
const sha256OfFile = (...parts: string[]): string =>
  createHash('sha256')
    .update(readFileSync(path.join(CORPUS_REPOSITORY, ...parts)))
    .digest('hex');
const corpusUrl = (label: string, version: string, file: string): string =>
  pathToFileURL(path.join(CORPUS_REPOSITORY, label, version, file)).href;
const relativeCorpus = (...parts: string[]): string =>
  path
    .relative(MANIFEST_DIR, path.join(CORPUS_REPOSITORY, ...parts))
    .split(path.sep)
    .join('/');

function provider(kind: ProviderKind, name: string, namespace: string, spec: ProviderSpec): ProviderObject {
  return { kind, name, namespace, spec, position: { file: path.join(MANIFEST_DIR, 'providers.yaml'), line: 1, column: 1 } };
}

function manifestOf(providers: ProviderObject[]): Manifest {
  return { providers, secrets: [], configMaps: [], config: {}, baseDir: MANIFEST_DIR };
}

test('portable URLs: file URLs relative to the lock directory, others unchanged', () => {
  assert.equal(portableUrl(pathToFileURL('/work/shared/corpus/a.yaml').href, '/work/main'), '../shared/corpus/a.yaml');
  assert.equal(portableUrl('https://github.com/x/releases/v1/a.yaml', '/work/main'), 'https://github.com/x/releases/v1/a.yaml');
  assert.equal(portableUrl('configmap:capi-system/core#components', '/work/main'), 'configmap:capi-system/core#components');
});

test('lockedFilePath reads back the path portableUrl wrote, and leaves every URL it kept', () => {
  const local = portableUrl(pathToFileURL('/work/shared/corpus/a.yaml').href, '/work/main');
  assert.equal(lockedFilePath(local, '/work/main'), '/work/shared/corpus/a.yaml');
  for (const kept of [
    'https://github.com/x/releases/v1/a.yaml',
    'configmap:capi-system/core#components',
    `oci://registry.example/capi@sha256:${'e'.repeat(64)}#metadata.yaml`,
    'file:///d/a.yaml',
  ])
    assert.equal(lockedFilePath(kept, '/work/main'), undefined, kept);
});

test('an OCI file URL keeps its layer title: each locked file of an artifact is told apart; credentials are still masked', () => {
  const digest = `sha256:${'e'.repeat(64)}`;
  const url = `oci://registry.example:5000/capi/cluster-api@${digest}#core-components.yaml`;
  assert.equal(portableUrl(url, '/work/main'), url);
  assert.equal(
    portableUrl(`oci://user:pass@registry.example/capi@${digest}#metadata.yaml`, '/work/main'),
    `oci://********@registry.example/capi@${digest}#metadata.yaml`,
  );
});

test('corpus: a resolved provider locks its version, contract and the digests of metadata.yaml and the components file', async () => {
  const registry = buildProviderRegistry().registry;
  const core = provider('CoreProvider', 'cluster-api', 'capi-system', {
    version: '~1.10',
    fetchConfig: { url: corpusUrl('cluster-api', 'latest', 'core-components.yaml') },
  });
  const [resolved] = await resolveProviders(manifestOf([core]));
  const entry = lockEntryForProvider(resolved, registry, MANIFEST_DIR);
  assert.deepEqual(entry, {
    kind: 'CoreProvider',
    name: 'cluster-api',
    namespace: 'capi-system',
    requestedVersion: '~1.10',
    version: 'v1.10.4',
    contract: 'v1beta1',
    source: { type: 'url', url: corpusUrl('cluster-api', 'latest', 'core-components.yaml') },
    files: [
      {
        name: 'metadata.yaml',
        url: relativeCorpus('cluster-api', 'v1.10.4', 'metadata.yaml'),
        sha256: sha256OfFile('cluster-api', 'v1.10.4', 'metadata.yaml'),
      },
      {
        name: 'core-components.yaml',
        url: relativeCorpus('cluster-api', 'v1.10.4', 'core-components.yaml'),
        sha256: sha256OfFile('cluster-api', 'v1.10.4', 'core-components.yaml'),
      },
    ],
  });
  assert.equal(lockSatisfies(entry, lockRequestForProvider(core, registry)!), true);
});

test('corpus: cert-manager is locked without a contract; the whole lock round-trips through its text', async () => {
  // Relative URLs as a committed manifest would write them: nothing machine-specific in the lock.
  const config = { certManager: { url: relativeCorpus('cert-manager', 'v1.13.0', 'cert-manager.yaml') } };
  const certManager = await resolveCertManager(config, MANIFEST_DIR);
  assert.ok(certManager);
  const cmEntry = lockEntryForCertManager(certManager, config, MANIFEST_DIR);
  assert.equal(cmEntry.contract, undefined);
  assert.equal(cmEntry.version, 'v1.13.0');
  assert.deepEqual(cmEntry.files, [
    {
      name: 'cert-manager.yaml',
      url: relativeCorpus('cert-manager', 'v1.13.0', 'cert-manager.yaml'),
      sha256: sha256OfFile('cert-manager', 'v1.13.0', 'cert-manager.yaml'),
    },
  ]);

  const bootstrap = provider('BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system', {
    version: 'v1.12.0',
    fetchConfig: { url: relativeCorpus('bootstrap-kubeadm', 'latest', 'bootstrap-components.yaml') },
  });
  const core = provider('CoreProvider', 'cluster-api', 'capi-system', {
    version: 'v1.12.0',
    fetchConfig: { url: relativeCorpus('cluster-api', 'latest', 'core-components.yaml') },
  });
  const resolved = await resolveProviders(manifestOf([bootstrap, core]));
  const lock = buildLockfile([...resolved.map((r) => lockEntryForProvider(r, buildProviderRegistry().registry, MANIFEST_DIR)), cmEntry]);
  assert.deepEqual(
    lock.entries.map((e) => `${e.kind} ${e.version}`),
    ['CertManager v1.13.0', 'CoreProvider v1.12.0', 'BootstrapProvider v1.12.0'],
  );
  assert.deepEqual(
    lock.entries[1].files.map((f) => f.name),
    ['core-components.yaml', 'metadata.yaml'],
  );
  const text = serializeLockfile(lock);
  assert.deepEqual(parseLockfile(text, 'lock.yaml'), lock);
  // no file: URL and no absolute path (the corpus may be anywhere: CAPI_GITOPS_SHARED)
  assert.doesNotMatch(text, /file:|url: \//, 'no machine-specific paths');
  assert.match(text, /url: \.\.\//);
});

test('one component locked twice is refused', () => {
  const entry = {
    kind: 'CoreProvider' as const,
    name: 'cluster-api',
    namespace: 'capi-system',
    requestedVersion: '',
    version: 'v1.12.0',
    contract: 'v1beta2',
    source: { type: 'registry' as const, url: 'u' },
    files: [],
  };
  assert.throws(
    () => buildLockfile([entry, { ...entry, version: 'v1.10.4' }]),
    (error: unknown) => error instanceof CapiGitopsError && /appears twice/.test(error.message),
  );
});
