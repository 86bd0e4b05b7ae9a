import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ArtifactCache } from '../../src/sources/cache.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { CERT_MANAGER_DEFAULT_VERSION, certManagerDefaultUrl } from '../../src/resolve/resolve.js';
import { resolveCertManager } from '../../src/resolve/fetch-releases.js';
import { resolveRelease } from '../../src/resolve/resolve.js';
import type { Artifact } from '../../src/core/repository.js';
import { loadManifest } from '../../src/manifest/load.js';
import { SOURCE_MODULES, type SourceModule } from '../../src/sources/index.js';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';
import {
  FIXTURE_REPOSITORY,
  MANIFEST_FILE,
  MemoryRepository,
  corpusConfigMap,
  manifest,
  provider,
  resolveProviders,
  temporaryTree,
} from '../fixtures/resolve/builders.js';

const MANIFEST_DIR = path.dirname(MANIFEST_FILE);
const corpusUrl = (label: string, version: string, file: string): string => `file://${CORPUS_REPOSITORY}/${label}/${version}/${file}`;
const sha256OfFile = (...parts: string[]): string =>
  createHash('sha256')
    .update(readFileSync(path.join(CORPUS_REPOSITORY, ...parts)))
    .digest('hex');

function failsWith(check: (error: CapiGitopsError) => void) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof CapiGitopsError, String(error));
    check(error);
    return true;
  };
}

test('corpus: latest, a range and an exact version resolve with contracts and artifacts, in install order', async () => {
  const providers = [
    provider('ControlPlaneProvider', 'kubeadm', 'capi-kubeadm-control-plane-system', { version: 'v1.8.0' }),
    provider('BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system', {
      version: '~1.10',
      fetchConfig: { url: corpusUrl('bootstrap-kubeadm', 'latest', 'bootstrap-components.yaml') },
    }),
    provider('CoreProvider', 'cluster-api', 'capi-system', {
      fetchConfig: { url: corpusUrl('cluster-api', 'latest', 'core-components.yaml') },
    }),
  ];
  const config = {
    repositories: [
      {
        name: 'kubeadm',
        type: 'ControlPlaneProvider' as const,
        url: corpusUrl('control-plane-kubeadm', 'latest', 'control-plane-components.yaml'),
      },
    ],
  };
  const resolved = await resolveProviders(manifest(providers, { config }));

  assert.deepEqual(
    resolved.map((r) => [r.label, r.requestedVersion, r.version, r.contract, r.namespace]),
    [
      ['cluster-api', 'latest', 'v1.12.0', 'v1beta2', 'capi-system'],
      ['bootstrap-kubeadm', '~1.10', 'v1.10.4', 'v1beta1', 'capi-kubeadm-bootstrap-system'],
      ['control-plane-kubeadm', 'v1.8.0', 'v1.8.0', 'v1beta1', 'capi-kubeadm-control-plane-system'],
    ],
  );
  const [core, bootstrap, controlPlane] = resolved;
  assert.equal(core.kind, 'CoreProvider');
  assert.equal(core.provider, providers[2]);
  assert.equal(core.components.sha256, sha256OfFile('cluster-api', 'v1.12.0', 'core-components.yaml'));
  assert.equal(core.metadata.sha256, sha256OfFile('cluster-api', 'v1.12.0', 'metadata.yaml'));
  assert.equal(bootstrap.components.sha256, sha256OfFile('bootstrap-kubeadm', 'v1.10.4', 'bootstrap-components.yaml'));
  assert.equal(controlPlane.components.name, 'control-plane-components.yaml');
  assert.deepEqual(core.repository, {
    sourceType: 'local',
    location: path.join(CORPUS_REPOSITORY, 'cluster-api', '{version}', 'core-components.yaml'),
  });
});

test('relative repository paths resolve against the declaring file: fetchConfig.url against the provider, repositories against the Config', async () => {
  const relativeCorpus = path.relative(MANIFEST_DIR, CORPUS_REPOSITORY);
  const configFile = path.join(CORPUS_REPOSITORY, '..', 'config.yaml'); // a Config declared next to repository/
  const resolved = await resolveProviders(
    manifest(
      [
        provider('CoreProvider', 'cluster-api', 'capi-system', {
          version: 'v1.10.4',
          fetchConfig: { url: `${relativeCorpus}/cluster-api/latest/core-components.yaml` },
        }),
        provider('BootstrapProvider', 'kubeadm', 'b', { version: 'v1.10.4' }),
      ],
      {
        config: {
          repositories: [
            { name: 'kubeadm', type: 'BootstrapProvider', url: 'repository/bootstrap-kubeadm/latest/bootstrap-components.yaml' },
          ],
          position: { file: configFile, line: 1, column: 1 },
        },
        baseDir: '/nonexistent',
      },
    ),
  );
  assert.deepEqual(
    resolved.map((r) => `${r.label}@${r.version}`),
    ['cluster-api@v1.10.4', 'bootstrap-kubeadm@v1.10.4'],
  );
});

test('a v1.10.4 core provider with a v1beta2 provider fails, naming both (clusterctl installer.go Validate)', async () => {
  const providers = [
    provider('CoreProvider', 'cluster-api', 'capi-system', {
      version: 'v1.10.4',
      fetchConfig: { url: corpusUrl('cluster-api', 'latest', 'core-components.yaml') },
    }),
    provider('BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system', {
      version: 'v1.12.0',
      fetchConfig: { url: corpusUrl('bootstrap-kubeadm', 'latest', 'bootstrap-components.yaml') },
    }),
  ];
  await assert.rejects(
    resolveProviders(manifest(providers)),
    failsWith((error) => {
      assert.equal(error.diagnostics.length, 1);
      const [d] = error.diagnostics;
      assert.equal(d.object, 'BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm');
      assert.equal(d.path, 'spec.version');
      assert.equal(d.line, providers[1].position.line);
      assert.equal(
        d.message,
        'bootstrap-kubeadm v1.12.0 implements contract v1beta2, but the core provider cluster-api v1.10.4 (contract v1beta1) works only with v1beta1 providers',
      );
      assert.match(d.hint!, /v1\.10\.x release of bootstrap-kubeadm/);
    }),
  );
});

test('a provider whose metadata says v1alpha4 fails, naming provider, version and contract (operator validateRepoCAPIVersion)', async () => {
  const providers = [
    provider('CoreProvider', 'cluster-api', 'capi-system', {
      fetchConfig: { url: corpusUrl('cluster-api', 'latest', 'core-components.yaml') },
    }),
    provider('InfrastructureProvider', 'old', 'old-system', {
      fetchConfig: { url: path.join(FIXTURE_REPOSITORY, 'infrastructure-old', 'latest', 'infrastructure-components.yaml') },
    }),
  ];
  await assert.rejects(
    resolveProviders(manifest(providers)),
    failsWith((error) => {
      const [d] = error.diagnostics;
      assert.equal(error.diagnostics.length, 1);
      assert.equal(d.object, 'InfrastructureProvider/old-system/old');
      assert.match(d.message, /infrastructure-old v0\.4\.0 implements Cluster API contract "v1alpha4"/);
      assert.equal(d.expected, 'a release implementing v1beta2 or v1beta1');
    }),
  );
});

test('the ConfigMap route resolves like the repository route: same version, same artifact digests', async () => {
  const configMaps = [corpusConfigMap('core-cluster-api-v1.12.0.yaml'), corpusConfigMap('bootstrap-kubeadm-v1.12.0.yaml')];
  const byLabels = (type: string) => ({ fetchConfig: { selector: { matchLabels: { 'provider.cluster.x-k8s.io/type': type } } } });
  const fromConfigMaps = await resolveProviders(
    manifest(
      [
        provider('CoreProvider', 'cluster-api', 'capi-system', byLabels('core')),
        provider('BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system', byLabels('bootstrap')),
      ],
      { configMaps },
    ),
  );
  const fromRepository = await resolveProviders(
    manifest([
      provider('CoreProvider', 'cluster-api', 'capi-system', {
        fetchConfig: { url: corpusUrl('cluster-api', 'latest', 'core-components.yaml') },
      }),
      provider('BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system', {
        fetchConfig: { url: corpusUrl('bootstrap-kubeadm', 'latest', 'bootstrap-components.yaml') },
      }),
    ]),
  );
  const summary = (list: typeof fromConfigMaps) =>
    list.map((r) => [r.label, r.version, r.contract, r.components.name, r.components.sha256, r.metadata.sha256]);
  assert.deepEqual(summary(fromConfigMaps), summary(fromRepository));
  assert.equal(fromConfigMaps[0].repository.sourceType, 'configmap');
  assert.equal(fromConfigMaps[0].requestedVersion, 'v1.12.0');
});

test('unreadable sources are reported together with their providers: missing directory, missing version, missing file', async (t) => {
  const tree = await temporaryTree({
    'control-plane-kubeadm/v1.0.0/metadata.yaml': readFileSync(
      path.join(CORPUS_REPOSITORY, 'cluster-api', 'v1.7.7', 'metadata.yaml'),
      'utf8',
    ),
  });
  t.after(tree.cleanup);
  const providers = [
    provider('CoreProvider', 'cluster-api', 'capi-system', {
      version: 'v9.9.9',
      fetchConfig: { url: corpusUrl('cluster-api', 'latest', 'core-components.yaml') },
    }),
    provider('BootstrapProvider', 'kubeadm', 'b', {
      fetchConfig: { url: '/nonexistent/repo/bootstrap-kubeadm/latest/bootstrap-components.yaml' },
    }),
    provider('ControlPlaneProvider', 'kubeadm', 'c', {
      version: 'v1.0.0',
      fetchConfig: { url: `${tree.root}/control-plane-kubeadm/latest/control-plane-components.yaml` },
    }),
  ];
  await assert.rejects(
    resolveProviders(manifest(providers)),
    failsWith((error) => {
      const byObject = Object.fromEntries(error.diagnostics.map((d) => [d.object, d]));
      assert.equal(error.diagnostics.length, 3);
      assert.match(byObject['CoreProvider/capi-system/cluster-api'].message, /version v9\.9\.9 not found/);
      assert.match(byObject['CoreProvider/capi-system/cluster-api'].hint!, /v1\.7\.7, v1\.8\.0, v1\.10\.4, v1\.12\.0/);
      assert.match(
        byObject['BootstrapProvider/b/kubeadm'].message,
        /local repository directory "\/nonexistent\/repo\/bootstrap-kubeadm" does not exist/,
      );
      assert.equal(byObject['BootstrapProvider/b/kubeadm'].path, 'spec.fetchConfig.url');
      assert.match(byObject['ControlPlaneProvider/c/kubeadm'].message, /file control-plane-components\.yaml of version v1\.0\.0 not found/);
      assert.equal(byObject['ControlPlaneProvider/c/kubeadm'].line, providers[2].position.line);
    }),
  );
});

test('a built-in provider comes from its clusterctl GitHub URL; offline with nothing cached, the error names provider and URL', async () => {
  const cache = new ArtifactCache(mkdtempSync(path.join(os.tmpdir(), 'capi-gitops-cache-')));
  await assert.rejects(
    resolveProviders(
      manifest([
        provider('CoreProvider', 'cluster-api', 'capi-system', {
          fetchConfig: { url: corpusUrl('cluster-api', 'latest', 'core-components.yaml') },
        }),
        provider('InfrastructureProvider', 'aws', 'capa-system'),
      ]),
      { sources: { offline: true, cache } },
    ),
    failsWith((error) => {
      const [d] = error.diagnostics;
      assert.equal(d.object, 'InfrastructureProvider/capa-system/aws');
      assert.match(error.message, /kubernetes-sigs\/cluster-api-provider-aws/);
      assert.match(error.message, /offline/i);
    }),
  );
});

test('registry and preflight problems are reported together before anything is fetched', async () => {
  await assert.rejects(
    resolveProviders(
      manifest([provider('CoreProvider', 'capi', 'capi-system'), provider('InfrastructureProvider', 'acme', 'x')], {
        config: { repositories: [{ name: 'Bad', type: 'BootstrapProvider', url: '/r' }] },
      }),
    ),
    failsWith((error) => {
      assert.deepEqual(
        error.diagnostics.map((d) => d.path),
        ['repositories[0].name', 'metadata.name', 'metadata.name'],
      );
    }),
  );
});

test('providers are fetched concurrently through any registered module; the order is install order, then name', async () => {
  const metadata = readFileSync(path.join(CORPUS_REPOSITORY, 'cluster-api', 'v1.12.0', 'metadata.yaml'), 'utf8');
  const memory: SourceModule = {
    id: 'memory',
    serves: 'memory: URLs',
    open: (request) =>
      request.from === 'url' && request.url.startsWith('memory:')
        ? new MemoryRepository({ 'v1.12.0': { 'metadata.yaml': metadata, 'components.yaml': `# ${request.label}\n` } })
        : null,
  };
  const kinds = [
    ['AddonProvider', 'helm'],
    ['InfrastructureProvider', 'zeta'],
    ['InfrastructureProvider', 'alpha'],
    ['IPAMProvider', 'in-cluster'],
    ['RuntimeExtensionProvider', 'nutanix'],
    ['ControlPlaneProvider', 'kubeadm'],
    ['BootstrapProvider', 'kubeadm'],
    ['CoreProvider', 'cluster-api'],
  ] as const;
  const providers = kinds.map(([kind, name]) => provider(kind, name, `${name}-system`, { fetchConfig: { url: `memory:${name}` } }));
  const resolved = await resolveProviders(manifest(providers), { modules: [...SOURCE_MODULES, memory] });
  assert.deepEqual(
    resolved.map((r) => r.label),
    [
      'cluster-api',
      'bootstrap-kubeadm',
      'control-plane-kubeadm',
      'infrastructure-alpha',
      'infrastructure-zeta',
      'ipam-in-cluster',
      'runtime-extension-nutanix',
      'addon-helm',
    ],
  );
  assert.equal(resolved[3].components.text, '# infrastructure-alpha\n');
});

test('cert-manager: disabled gives null; a local file is read directly with the version from its path', async () => {
  assert.equal(await resolveCertManager({ certManager: { enabled: false } }, MANIFEST_DIR), null);
  const local = await resolveCertManager(
    { certManager: { url: `file://${CORPUS_REPOSITORY}/cert-manager/v1.13.0/cert-manager.yaml` } },
    MANIFEST_DIR,
  );
  assert.equal(local?.version, 'v1.13.0');
  assert.equal(local?.label, 'cert-manager');
  assert.equal(local?.components.sha256, sha256OfFile('cert-manager', 'v1.13.0', 'cert-manager.yaml'));
  assert.equal(local?.components.name, 'cert-manager.yaml');

  const relative = await resolveCertManager(
    {
      certManager: {
        url: path.relative(MANIFEST_DIR, path.join(CORPUS_REPOSITORY, 'cert-manager/v1.13.0/cert-manager.yaml')),
        version: 'v1.13.0',
      },
      position: { file: MANIFEST_FILE, line: 1, column: 1 },
    },
    '/nonexistent',
  );
  assert.equal(relative?.components.sha256, local?.components.sha256);
});

test("cert-manager: another version than the local URL's directory, a bad version and a missing file are clear errors", async () => {
  const config = (certManager: object) => ({ certManager, position: { file: MANIFEST_FILE, line: 40, column: 1 } });
  // clusterctl reads certManager.version from its own directory beside the URL's (cert_manager.go, repository_local.go)
  await assert.rejects(
    resolveCertManager(config({ url: `${CORPUS_REPOSITORY}/cert-manager/v1.13.0/cert-manager.yaml`, version: 'v1.19.1' }), MANIFEST_DIR),
    failsWith((error) => {
      assert.match(error.message, /the cert-manager manifest not found: ".*\/cert-manager\/v1\.19\.1\/cert-manager\.yaml" does not exist/);
      assert.equal(error.diagnostics[0].path, 'certManager.version');
      assert.match(
        error.diagnostics[0].hint ?? '',
        /put cert-manager v1\.19\.1's cert-manager\.yaml in .*\/cert-manager\/v1\.19\.1\/, beside certManager\.url's v1\.13\.0\//,
      );
    }),
  );
  await assert.rejects(
    resolveCertManager(config({ version: 'latest' }), MANIFEST_DIR),
    failsWith((error) => assert.equal(error.diagnostics[0].path, 'certManager.version')),
  );
  await assert.rejects(
    resolveCertManager(config({ url: './missing/cert-manager.yaml' }), MANIFEST_DIR),
    failsWith((error) => {
      assert.match(error.message, /the cert-manager manifest not found: ".*\/missing\/cert-manager\.yaml" does not exist/);
      assert.equal(error.diagnostics[0].line, 40);
    }),
  );
});

test('cert-manager: the default is clusterctl v1.12.0 pinned v1.19.1 from its GitHub URL (cert_manager_client.go)', async () => {
  assert.equal(CERT_MANAGER_DEFAULT_VERSION, 'v1.19.1');
  assert.equal(certManagerDefaultUrl('v1.19.1'), 'https://github.com/cert-manager/cert-manager/releases/v1.19.1/cert-manager.yaml');
  let asked = '';
  const github: SourceModule = {
    id: 'fake-github',
    serves: 'github',
    open: (request) => {
      asked = request.from === 'url' ? request.url : '';
      return Object.assign(new MemoryRepository({ 'v1.19.1': { 'cert-manager.yaml': 'kind: Namespace\n' } }, 'v1.19.1'), {
        componentsFile: 'cert-manager.yaml',
      });
    },
  };
  const remote = await resolveCertManager({}, MANIFEST_DIR, { modules: [github] });
  assert.equal(asked, 'https://github.com/cert-manager/cert-manager/releases/v1.19.1/cert-manager.yaml');
  assert.equal(remote?.version, 'v1.19.1');
  assert.equal(remote?.components.text, 'kind: Namespace\n');
});

test("a contract mismatch is told at the provider's spec.version line and column, not its first line (clusterctl installer.go Validate)", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'capi-gitops-contract-'));
  const file = path.join(dir, 'providers.yaml');
  const text = [
    'apiVersion: operator.cluster.x-k8s.io/v1alpha2',
    'kind: CoreProvider',
    'metadata: {name: cluster-api, namespace: capi-system}',
    'spec:',
    '  version: v1.10.4',
    `  fetchConfig: {url: "${corpusUrl('cluster-api', 'latest', 'core-components.yaml')}"}`,
    '---',
    'apiVersion: operator.cluster.x-k8s.io/v1alpha2',
    'kind: BootstrapProvider',
    'metadata: {name: kubeadm, namespace: capi-kubeadm-bootstrap-system}',
    'spec:',
    `  fetchConfig: {url: "${corpusUrl('bootstrap-kubeadm', 'latest', 'bootstrap-components.yaml')}"}`,
    '  version: v1.12.0',
    '',
  ].join('\n');
  writeFileSync(file, text);
  await assert.rejects(
    resolveProviders(await loadManifest([file])),
    failsWith((error) => {
      const [d] = error.diagnostics;
      assert.match(d.message, /bootstrap-kubeadm v1\.12\.0 implements contract v1beta2/);
      assert.deepEqual([d.file, d.line, d.column, d.path], [file, 13, 12, 'spec.version']);
    }),
  );
});

test('a range no release satisfies is told at the spec.version that writes it, not at the Config repositories url (as an exact version that does not exist)', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'capi-gitops-range-'));
  const file = path.join(dir, 'providers.yaml');
  const text = [
    'apiVersion: operator.cluster.x-k8s.io/v1alpha2',
    'kind: CoreProvider',
    'metadata: {name: cluster-api, namespace: capi-system}',
    'spec:',
    '  version: "~1.13"',
    '---',
    'apiVersion: capi-gitops.dev/v1alpha1',
    'kind: Config',
    'repositories:',
    `- {name: cluster-api, type: CoreProvider, url: "${corpusUrl('cluster-api', 'latest', 'core-components.yaml')}"}`,
    '',
  ].join('\n');
  writeFileSync(file, text);
  await assert.rejects(
    resolveProviders(await loadManifest([file])),
    failsWith((error) => {
      assert.equal(error.diagnostics.length, 1);
      const [d] = error.diagnostics;
      assert.match(d.message, /satisfies version range "~1\.13"/);
      assert.deepEqual([d.file, d.line, d.column, d.path], [file, 5, 12, 'spec.version']);
    }),
  );
});

test("a release whose metadata.yaml and components file both fail tells metadata.yaml's problem, whichever failed first, so a run's words do not depend on timing", async () => {
  // the components file fails at once, metadata.yaml a moment later: Promise.all told the components file
  class SlowMetadataRepository extends MemoryRepository {
    override async getFile(version: string, fileName: string): Promise<Artifact> {
      if (fileName === 'metadata.yaml') await new Promise((resolve) => setTimeout(resolve, 20));
      return super.getFile(version, fileName);
    }
  }
  const repository = new SlowMetadataRepository({ 'v1.0.0': {} });
  const core = provider('CoreProvider', 'cluster-api', 'capi-system', { version: 'v1.0.0' });
  await assert.rejects(resolveRelease(core, 'cluster-api', repository, 'v1.0.0'), /v1\.0\.0\/metadata\.yaml not found/);
});
