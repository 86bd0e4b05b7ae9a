/**
 * `render --layout operator` on the corpus (core, kubeadm bootstrap and control plane v1.12.0,
 * cert-manager v1.13.0) with a small stand-in operator release manifest
 * (test/fixtures/operator-release/v0.28.0/operator-components.yaml).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import zlib, { gunzipSync } from 'node:zlib';
import { syncBuiltinESMExports } from 'node:module';
import { parse } from 'yaml';
import { renderManagementCluster, resolveManagementCluster } from '../../src/app/cluster.js';
import { matchesSelector } from '../../src/core/label-selector.js';
import { artifactConfigMap, MAX_CONFIGMAP_BYTES } from '../../src/layout/operator.js';
import { corpusManifest, tempDir } from '../helpers/corpus-manifest.js';
import { crdValidator, wiringProblems } from '../helpers/crd-schema.js';
import { CORPUS_REPOSITORY, FIXTURES } from '../helpers/paths.js';
import { kubectlAvailable, kubectlKustomize } from '../helpers/tree.js';
import { runCli } from '../helpers/cli.js';
import { FakeGitHub } from '../helpers/fake-github.js';
import { ArtifactCache } from '../../src/sources/cache.js';
import { CORE_MANAGER_DEPLOYMENT, localCoreRelease } from '../helpers/local-release.js';
import { CapiGitopsError, displayPath, formatWarning, type Diagnostic } from '../../src/core/diagnostics.js';

const OPERATOR_RELEASE = path.join(FIXTURES, 'operator-release', 'v0.28.0', 'operator-components.yaml');
const CORPUS_FILES: Record<string, [string, string]> = {
  'core-cluster-api-v1.12.0': ['cluster-api', 'core-components.yaml'],
  'bootstrap-kubeadm-v1.12.0': ['bootstrap-kubeadm', 'bootstrap-components.yaml'],
  'control-plane-kubeadm-v1.12.0': ['control-plane-kubeadm', 'control-plane-components.yaml'],
};

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
};

async function renderOperator(): Promise<Map<string, string>> {
  const manifest = corpusManifest('v1.12.0').replace('certManager:', `operator:\n  url: ${OPERATOR_RELEASE}\ncertManager:`);
  const dir = tempDir();
  writeFileSync(path.join(dir, 'm.yaml'), manifest);
  const result = await renderManagementCluster({
    manifestPaths: [dir],
    layout: 'operator',
    command: 'capi-gitops render -f m.yaml -o out --layout operator',
  });
  return result.files;
}

const files = await renderOperator();
const providerObjects = () =>
  [...files].filter(([f]) => f.startsWith('02-providers/') && !f.endsWith('kustomization.yaml')).map(([, text]) => parse(text) as Obj);

test('operator layout: cert-manager, then the operator, then the providers, each a kustomize directory', () => {
  assert.equal(parse(files.get('kustomization.yaml')!).resources.join(' '), '00-cert-manager 01-cluster-api-operator 02-providers');
  assert.ok(files.has('01-cluster-api-operator/deployment-capi-operator-controller-manager.yaml'));
  assert.ok(files.has('01-cluster-api-operator/crds/customresourcedefinition-coreproviders.operator.cluster.x-k8s.io.yaml'));
  assert.match(files.get('01-cluster-api-operator/kustomization.yaml')!, /from cluster-api-operator v0\.28\.0 \(sha256:/);
  assert.match(files.get('README.md')!, /kubectl -n capi-operator-system wait --for=condition=Available deployment --all/);
});

test('artifact ConfigMaps in the preload form: <type>-<name>-<version>, ProviderLabels, components as fetched (manifests_downloader.go TemplateManifestsConfigMap)', () => {
  const configMaps = providerObjects().filter((o) => o.kind === 'ConfigMap');
  assert.deepEqual(configMaps.map((c) => `${c.metadata.namespace}/${c.metadata.name}`).sort(), [
    'capi-kubeadm-bootstrap-system/bootstrap-kubeadm-v1.12.0',
    'capi-kubeadm-control-plane-system/control-plane-kubeadm-v1.12.0',
    'capi-system/core-cluster-api-v1.12.0',
  ]);
  for (const configMap of configMaps) {
    const [label, file] = CORPUS_FILES[configMap.metadata.name]!;
    const components = readFileSync(path.join(CORPUS_REPOSITORY, label, 'v1.12.0', file), 'utf8');
    const metadata = readFileSync(path.join(CORPUS_REPOSITORY, label, 'v1.12.0', 'metadata.yaml'), 'utf8');
    assert.equal(configMap.metadata.labels?.['managed-by.operator.cluster.x-k8s.io'], 'true');
    assert.equal(configMap.metadata.labels?.['provider.cluster.x-k8s.io/version'], 'v1.12.0');
    assert.equal(configMap.data?.metadata, metadata);
    const compressed = Buffer.byteLength(components) + Buffer.byteLength(metadata) > MAX_CONFIGMAP_BYTES;
    if (compressed) {
      assert.equal(configMap.metadata.annotations?.['provider.cluster.x-k8s.io/compressed'], 'true');
      assert.equal(configMap.data?.components, undefined);
      assert.equal(gunzipSync(Buffer.from(configMap.binaryData!.components!, 'base64')).toString('utf8'), components);
    } else {
      assert.equal(configMap.metadata.annotations?.['provider.cluster.x-k8s.io/compressed'], undefined);
      assert.equal(configMap.data?.components, components);
    }
  }
  // The core provider's release is over 1 MiB: it is the compressed one.
  assert.equal(
    configMaps.find((c) => c.metadata.name.startsWith('core-'))?.metadata.annotations?.['provider.cluster.x-k8s.io/compressed'],
    'true',
  );
  assert.equal(configMaps.filter((c) => c.metadata.annotations?.['provider.cluster.x-k8s.io/compressed']).length, 1);
});

test('the compression threshold is needToCompress: metadata and components together over 1 MiB (manifests_downloader.go)', () => {
  const at = (components: string) =>
    artifactConfigMap({
      kind: 'InfrastructureProvider',
      name: 'x',
      namespace: 'x-system',
      version: 'v1.0.0',
      spec: {},
      components,
      metadata: 'm',
      artifactSha256: '0'.repeat(64),
    }) as unknown as Obj;
  assert.equal(at('a'.repeat(MAX_CONFIGMAP_BYTES - 1)).metadata.annotations, undefined);
  assert.equal(at('a'.repeat(MAX_CONFIGMAP_BYTES)).metadata.annotations?.['provider.cluster.x-k8s.io/compressed'], 'true');
});

test('a compressed artifact ConfigMap has the same bytes whatever OS renders it: the OS byte of the gzip header is fixed (zlib writes 3 on Linux, 19 on macOS, 10 on Windows: nodejs/node#48690), so check in Linux CI passes a Mac render', () => {
  const large = {
    kind: 'CoreProvider' as const,
    name: 'cluster-api',
    namespace: 'capi-system',
    version: 'v1.12.0',
    spec: {},
    components: 'a'.repeat(MAX_CONFIGMAP_BYTES),
    metadata: 'm',
    artifactSha256: '0'.repeat(64),
  };
  const linux = artifactConfigMap(large) as unknown as Obj;
  const gzipSync = zlib.gzipSync;
  // zlib as built for macOS: the same deflate stream, OS byte 19
  zlib.gzipSync = ((input: Parameters<typeof gzipSync>[0], options?: Parameters<typeof gzipSync>[1]) => {
    const out = gzipSync(input, options);
    out[9] = 19;
    return out;
  }) as typeof gzipSync;
  syncBuiltinESMExports();
  try {
    assert.equal((artifactConfigMap(large) as unknown as Obj).binaryData?.components, linux.binaryData?.components);
  } finally {
    zlib.gzipSync = gzipSync;
    syncBuiltinESMExports();
  }
  // the operator reads it (manifests_downloader.go decompressData)
  assert.equal(gunzipSync(Buffer.from(linux.binaryData!.components!, 'base64')).toString(), large.components);
});

test('each provider object selects exactly its own ConfigMap, and validates against the operator CRDs', () => {
  const objects = providerObjects();
  const providers = objects.filter((o) => o.kind.endsWith('Provider'));
  assert.equal(providers.length, 3);
  const crdFile: Record<string, string> = {
    CoreProvider: 'coreproviders',
    BootstrapProvider: 'bootstrapproviders',
    ControlPlaneProvider: 'controlplaneproviders',
  };
  for (const provider of providers) {
    const selector = (provider.spec!.fetchConfig as { selector: { matchLabels: Record<string, string> } }).selector;
    const chosen = objects.filter(
      (o) =>
        o.kind === 'ConfigMap' &&
        o.metadata.namespace === provider.metadata.namespace &&
        matchesSelector(o.metadata.labels ?? {}, selector),
    );
    assert.equal(chosen.length, 1, `${provider.kind} selects one ConfigMap`);
    assert.equal(chosen[0]!.metadata.labels!['provider.cluster.x-k8s.io/version'], provider.spec!.version);
    const validate = crdValidator(`capi-operator-${crdFile[provider.kind]}.yaml`, 'v1alpha2');
    assert.ok(validate(provider), JSON.stringify(validate.errors));
  }
});

test("round trip: the ConfigMaps read back through capi-gitops' ConfigMap source give byte-identical components and metadata", async () => {
  const dir = tempDir();
  mkdirSync(path.join(dir, 'in'));
  for (const object of providerObjects().filter((o) => o.kind !== 'Namespace')) {
    writeFileSync(path.join(dir, 'in', `${object.kind}-${object.metadata.name}-${object.metadata.namespace}.yaml`), JSON.stringify(object));
  }
  writeFileSync(
    path.join(dir, 'in', 'config.yaml'),
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\ncertManager:\n  enabled: false\n',
  );
  const resolution = await resolveManagementCluster({ manifestPaths: [path.join(dir, 'in')] });
  assert.equal(resolution.providers.length, 3);
  for (const provider of resolution.providers) {
    assert.equal(provider.repository.sourceType, 'configmap');
    const [label, file] =
      CORPUS_FILES[
        `${provider.kind === 'CoreProvider' ? 'core' : provider.kind === 'BootstrapProvider' ? 'bootstrap' : 'control-plane'}-${provider.name}-v1.12.0`
      ]!;
    assert.equal(provider.components.text, readFileSync(path.join(CORPUS_REPOSITORY, label, 'v1.12.0', file), 'utf8'));
    assert.equal(provider.metadata.text, readFileSync(path.join(CORPUS_REPOSITORY, label, 'v1.12.0', 'metadata.yaml'), 'utf8'));
  }
});

test('kubectl kustomize builds the operator layout', { skip: !kubectlAvailable() && 'kubectl is not installed' }, () => {
  const dir = tempDir();
  for (const [file, text] of files) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  const built = kubectlKustomize(dir);
  for (const kind of ['CoreProvider', 'ConfigMap', 'Namespace', 'CustomResourceDefinition'])
    assert.match(built, new RegExp(`^kind: ${kind}$`, 'm'));
});

test('a second render gives the same bytes', async () => {
  assert.deepEqual(await renderOperator(), files);
});

test('the operator release comes from its GitHub release (operator.version) and is cached: an offline render needs no request', async () => {
  const github = await FakeGitHub.start({
    'kubernetes-sigs/cluster-api-operator': [{ tag: 'v0.28.0', assets: { 'operator-components.yaml': readFileSync(OPERATOR_RELEASE) } }],
  });
  try {
    const dir = tempDir();
    writeFileSync(
      path.join(dir, 'm.yaml'),
      corpusManifest('v1.12.0').replace('certManager:', 'operator:\n  version: v0.28.0\ncertManager:'),
    );
    const cache = new ArtifactCache(path.join(dir, 'cache'));
    const render = (offline: boolean) =>
      renderManagementCluster({
        manifestPaths: [dir],
        layout: 'operator',
        command: 'x',
        sources: { cache, offline, github: { apiUrl: github.apiUrl } },
      });
    const online = await render(false);
    assert.equal(
      online.files.get('01-cluster-api-operator/deployment-capi-operator-controller-manager.yaml'),
      files.get('01-cluster-api-operator/deployment-capi-operator-controller-manager.yaml'),
    );
    const before = github.requests.length;
    assert.ok(before > 0);
    const offline = await render(true);
    assert.equal(github.requests.length, before);
    assert.deepEqual(offline.files, online.files);
  } finally {
    await github.close();
  }
});

test('an offline render whose operator release is not cached names operator.url and filling the cache once online', async () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'm.yaml'), corpusManifest('v1.12.0').replace('certManager:', 'operator:\n  version: latest\ncertManager:'));
  const error = await renderManagementCluster({
    manifestPaths: [dir],
    layout: 'operator',
    command: 'x',
    sources: { cache: new ArtifactCache(path.join(dir, 'cache')), offline: true },
  }).then(
    () => assert.fail('the render succeeded'),
    (err: unknown) => err as { diagnostics: { message: string; hint?: string }[] },
  );
  const operator = error.diagnostics.find((d) => /cluster-api-operator/.test(d.message));
  assert.ok(operator, JSON.stringify(error.diagnostics));
  assert.match(
    operator.hint ?? '',
    /run once without --offline .* or point operator\.url in the Config document at a local copy of operator-components\.yaml/,
  );
});

test('an operator.version that cannot be fetched is told at that field (file:line:column of the value), as certManager.version is', async () => {
  const dir = tempDir();
  const manifest = corpusManifest('v1.12.0').replace('certManager:', 'operator:\n  version: v0.28.0\ncertManager:');
  writeFileSync(path.join(dir, 'm.yaml'), manifest);
  const error = await renderManagementCluster({
    manifestPaths: [dir],
    layout: 'operator',
    command: 'x',
    sources: { cache: new ArtifactCache(path.join(dir, 'cache')), offline: true },
  }).then(
    () => assert.fail('the render succeeded'),
    (err: unknown) => err as CapiGitopsError,
  );
  const operator = error.diagnostics.find((d) => d.path === 'operator.version');
  assert.ok(operator, JSON.stringify(error.diagnostics));
  const lines = manifest.split('\n');
  const line = lines.findIndex((l) => l === '  version: v0.28.0') + 1;
  assert.equal(`${operator.line}:${operator.column}`, `${line}:${lines[line - 1]!.indexOf('v0.28.0') + 1}`);
});

test('an operator.url or certManager.url that no source can read is told at that URL (file:line:column), as a provider fetchConfig.url is', async () => {
  const dir = tempDir();
  const operatorUrl = 'http://127.0.0.1:9/operator/v0.28.0/operator-components.yaml';
  const certManagerUrl = 'http://127.0.0.1:9/cert-manager/v1.13.0/cert-manager.yaml';
  const manifest = corpusManifest('v1.12.0')
    .replace(/  url: .*cert-manager\.yaml/, `  url: ${certManagerUrl}`)
    .replace('certManager:', `operator:\n  url: ${operatorUrl}\ncertManager:`);
  writeFileSync(path.join(dir, 'm.yaml'), manifest);
  const error = await renderManagementCluster({ manifestPaths: [dir], layout: 'operator', command: 'x' }).then(
    () => assert.fail('the render succeeded'),
    (err: unknown) => err as CapiGitopsError,
  );
  const lines = manifest.split('\n');
  const at = (url: string) => {
    const line = lines.findIndex((l) => l === `  url: ${url}`) + 1;
    return `${path.join(dir, 'm.yaml')}:${line}:${lines[line - 1]!.indexOf(url) + 1}`;
  };
  const where = (text: string) => {
    const d = error.diagnostics.find((x) => x.message.includes(text));
    assert.ok(d, JSON.stringify(error.diagnostics));
    return `${d.file}:${d.line}:${d.column}`;
  };
  assert.equal(where(operatorUrl), at(operatorUrl));
  assert.equal(where(certManagerUrl), at(certManagerUrl));
});

test('--layout operator alone, offline, the release not cached: the hint names the render that caches it (lock fetches the release only when the Config asks for the layout), and followed as printed, the offline render works', async () => {
  const github = await FakeGitHub.start({
    'kubernetes-sigs/cluster-api-operator': [{ tag: 'v0.28.0', assets: { 'operator-components.yaml': readFileSync(OPERATOR_RELEASE) } }],
  });
  try {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'm.yaml'), corpusManifest('v1.12.0'));
    const offline = [
      'render',
      '-f',
      'm.yaml',
      '-o',
      'out',
      '--layout',
      'operator',
      '--cache-dir',
      'cache',
      '--github-api-url',
      github.apiUrl,
    ];
    const refused = await runCli([...offline, '--offline'], { cwd: dir });
    assert.equal(refused.code, 1, refused.stderr);
    const suggested = /hint: run once without --offline \(e\.g\. `capi-gitops ([^`]*)`\)/.exec(refused.stderr)?.[1];
    assert.equal(suggested, `render -f m.yaml -o out --layout operator --cache-dir cache --github-api-url ${github.apiUrl}`);
    // what the hint said before: lock neither fetches nor locks the release here
    assert.equal((await runCli(['lock', '-f', 'm.yaml', '--cache-dir', 'cache', '--github-api-url', github.apiUrl], { cwd: dir })).code, 0);
    assert.equal((await runCli([...offline, '--offline'], { cwd: dir })).code, 1);
    const followed = await runCli(suggested!.split(' '), { cwd: dir });
    assert.equal(followed.code, 0, followed.stderr);
    const again = await runCli([...offline, '--offline'], { cwd: dir });
    assert.equal(again.code, 0, again.stderr);
  } finally {
    await github.close();
  }
});

/** The operator layout with Config operator.wiring: the tool's chart, values from the Config. */
async function renderWired(
  tool: 'argocd' | 'flux',
  repoURL = 'https://git.example.com/platform/management.git',
): Promise<Map<string, string>> {
  const values = tool === 'argocd' ? `  values:\n    repoURL: ${repoURL}\n` : '';
  const manifest = corpusManifest('v1.12.0').replace(
    'certManager:',
    `operator:\n  url: ${OPERATOR_RELEASE}\n  wiring: ${tool}\ngitops:\n  path: clusters/mgmt\n${values}certManager:`,
  );
  const dir = tempDir();
  writeFileSync(path.join(dir, 'm.yaml'), manifest);
  return (await renderManagementCluster({ manifestPaths: [dir], layout: 'operator', command: 'x' })).files;
}

const wiringObjects = (tree: Map<string, string>, dir: string) =>
  [...tree]
    .filter(([f]) => f.startsWith(`${dir}/`) && !f.endsWith('kustomization.yaml'))
    .map(([, text]) => parse(text) as Obj & { spec: Record<string, unknown> });

test('operator.wiring argocd: a Git URL with credentials in the chart values is refused, never quoted, with a hint that works here (--secrets changes nothing in this layout)', async () => {
  const token = 'glpat-OperatorWiring0123456789';
  const refused = await renderWired('argocd', `https://oauth2:${token}@git.example.com/platform/management.git`).then(
    () => assert.fail('rendered'),
    (error: unknown) => error as CapiGitopsError,
  );
  assert.ok(refused instanceof CapiGitopsError);
  assert.equal(refused.diagnostics.length, 1, refused.message);
  const [problem] = refused.diagnostics;
  // given in the Config: told at its line there, naming the file the chart would write it into
  assert.match(
    problem!.message,
    /^value repoURL holds a URL with credentials in it \(https:\/\/\*\*\*\*@git\.example\.com\), which the chart writes into argocd\//,
  );
  assert.match(problem!.file ?? '', /m\.yaml$/);
  assert.equal(typeof problem!.line, 'number');
  assert.doesNotMatch(problem!.hint ?? '', /--secrets inline/);
  assert.ok(!refused.message.includes(token));
});

test('operator.wiring argocd: one Application per directory in order (cert-manager, operator, providers by sync wave), valid against the Argo CD CRDs (argo-cd sync-waves.md)', async () => {
  const tree = await renderWired('argocd');
  const objects = wiringObjects(tree, 'argocd');
  for (const object of objects) assert.deepEqual(wiringProblems(object), [], `${object.kind} ${object.metadata.name}`);
  const applications = objects.filter((o) => o.kind === 'Application' && o.metadata.labels?.['capi-gitops.dev/component']);
  assert.deepEqual(
    applications.map((a) => [(a.spec.source as { path: string }).path, a.metadata.annotations?.['argocd.argoproj.io/sync-wave']]),
    [
      ['clusters/mgmt/00-cert-manager', '0'],
      ['clusters/mgmt/01-cluster-api-operator', '1'],
      ['clusters/mgmt/02-providers', '2'],
    ],
  );
  // The AppProject admits the providers' namespaces and the kinds the directories hold.
  const project = objects.find((o) => o.kind === 'AppProject')!;
  const destinations = (project.spec.destinations as { namespace: string }[]).map((d) => d.namespace);
  for (const ns of ['capi-system', 'capi-operator-system', 'cert-manager']) assert.ok(destinations.includes(ns), ns);
  // The directories carry Argo CD's apply rules: the providers' namespaces are never pruned, the
  // compressed core ConfigMap is small, a large plain one is applied server-side.
  const namespace = parse(tree.get('02-providers/namespace-capi-system.yaml')!) as Obj;
  assert.equal(namespace.metadata.annotations?.['argocd.argoproj.io/sync-options'], 'Prune=false,Delete=false,ServerSideApply=true');
  for (const [file, text] of tree) {
    if (!file.startsWith('02-providers/configmap-') || Buffer.byteLength(text) <= 200 * 1024) continue;
    assert.match((parse(text) as Obj).metadata.annotations?.['argocd.argoproj.io/sync-options'] ?? '', /ServerSideApply=true/, file);
  }
  assert.match(tree.get('README.md')!, /Argo CD objects\s+that sync the directories below, in order, are in `argocd\/`/);
  // the health checks Argo CD needs to wait for the Applications and the providers, from a chart
  // copied into a new temporary directory: chart show refuses one that exists, and a copy in the
  // output directory would be files render did not write
  assert.match(tree.get('README.md')!, /chart="\$\(mktemp -d\)\/argocd"\ncapi-gitops chart show argocd --output-dir "\$chart"\n/);
  assert.match(tree.get('README.md')!, /--patch-file "\$chart\/files\/argocd-cm-application-health\.yaml"/);
  assert.match(
    tree.get('README.md')!,
    /kubectl -n argocd patch configmap argocd-cm --type merge \\\n\s+--patch-file "\$chart\/files\/argocd-cm-operator-provider-health\.yaml"/,
  );
});

test('operator.wiring flux: Kustomizations that depend on the one before (operator after cert-manager, providers after the operator), valid against the Flux CRDs (fluxcd kustomize-controller dependsOn)', async () => {
  const tree = await renderWired('flux');
  assert.doesNotMatch(tree.get('README.md')!, /argocd-cm/);
  const objects = wiringObjects(tree, 'flux');
  for (const object of objects) assert.deepEqual(wiringProblems(object), [], `${object.kind} ${object.metadata.name}`);
  const kustomizations = objects.filter((o) => o.kind === 'Kustomization' && o.metadata.labels?.['capi-gitops.dev/component']);
  assert.deepEqual(
    kustomizations.map((k) => [k.spec.path, ((k.spec.dependsOn as { name: string }[] | undefined) ?? []).map((d) => d.name)]),
    [
      ['./clusters/mgmt/00-cert-manager', []],
      ['./clusters/mgmt/01-cluster-api-operator', ['capi-gitops-00-cert-manager']],
      ['./clusters/mgmt/02-providers', ['capi-gitops-01-cluster-api-operator']],
    ],
  );
  const namespace = parse(tree.get('02-providers/namespace-capi-system.yaml')!) as Obj;
  assert.equal(namespace.metadata.annotations?.['kustomize.toolkit.fluxcd.io/prune'], 'disabled');
});

test(
  'the wired operator layout builds with kubectl kustomize, wiring included',
  { skip: !kubectlAvailable() && 'kubectl is not installed' },
  async () => {
    for (const tool of ['argocd', 'flux'] as const) {
      const dir = tempDir();
      for (const [file, text] of await renderWired(tool)) {
        mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        writeFileSync(path.join(dir, file), text);
      }
      assert.match(kubectlKustomize(path.join(dir, tool)), tool === 'argocd' ? /^kind: Application$/m : /^kind: Kustomization$/m);
      assert.match(kubectlKustomize(dir), /^kind: CoreProvider$/m);
    }
  },
);

test('chart values without operator.wiring are refused, naming the Config field', async () => {
  const dir = tempDir();
  writeFileSync(
    path.join(dir, 'm.yaml'),
    corpusManifest('v1.12.0').replace('certManager:', `operator:\n  url: ${OPERATOR_RELEASE}\ncertManager:`),
  );
  await assert.rejects(
    renderManagementCluster({ manifestPaths: [dir], layout: 'operator', set: [{ expression: 'path=x', forceString: false }] }),
    /operator layout draws no chart unless Config operator\.wiring names one/,
  );
});

test('--secrets and --allow-secret-values with the operator layout are told to change nothing (the operator substitutes in the cluster)', async () => {
  const dir = tempDir();
  writeFileSync(
    path.join(dir, 'm.yaml'),
    corpusManifest('v1.12.0').replace('certManager:', `operator:\n  url: ${OPERATOR_RELEASE}\ncertManager:`),
  );
  const plain = await renderManagementCluster({ manifestPaths: [dir], layout: 'operator', command: 'x' });
  assert.deepEqual(plain.warnings, []);
  const flagged = await renderManagementCluster({
    manifestPaths: [dir],
    layout: 'operator',
    command: 'x',
    secretsStrategy: 'sops',
    allowSecretValues: true,
  });
  assert.deepEqual(flagged.warnings, [
    "--secrets sops and --allow-secret-values have no effect with --layout operator: the operator substitutes each provider's variables " +
      'in the cluster, from its configSecret, so no secret value reaches the output; drop them from the command',
  ]);
  assert.deepEqual(flagged.files, plain.files);
});

test("a Turtles CAPIProvider's variables and features: the layout writes no Secret, so a warning gives the kubectl command that creates its config Secret (turtles internal/sync/secret_sync.go)", async () => {
  const dir = tempDir();
  const manifest = corpusManifest('v1.12.0', 'repository', {
    BootstrapProvider: `  type: bootstrap\n  variables:\n    GREETING: "it's"\n  features:\n    clusterTopology: true\n`,
  })
    .replace('operator.cluster.x-k8s.io/v1alpha2\nkind: BootstrapProvider', 'turtles-capi.cattle.io/v1alpha1\nkind: CAPIProvider')
    .replace('certManager:', `operator:\n  url: ${OPERATOR_RELEASE}\ncertManager:`);
  writeFileSync(path.join(dir, 'm.yaml'), manifest);
  const told: Diagnostic[] = [];
  const result = await renderManagementCluster({ manifestPaths: [dir], layout: 'operator', command: 'x', onWarning: (w) => told.push(w) });
  assert.deepEqual(result.warnings, []);
  assert.equal(told.length, 1);
  const text = formatWarning(told[0]!);
  // at the CAPIProvider's own file:line:column, as every warning is
  assert.match(
    text,
    new RegExp(
      `^${displayPath(path.join(dir, 'm.yaml')).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:${manifest.split('\n').indexOf('apiVersion: turtles-capi.cattle.io/v1alpha1') + 1}:1: warning: BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm: ` +
        'the CAPIProvider: Turtles writes CLUSTER_TOPOLOGY, EXP_CLUSTER_RESOURCE_SET, EXP_MACHINE_POOL, GREETING into its config Secret capi-kubeadm-bootstrap-system/kubeadm, but the operator layout writes no Secret\n',
    ),
    text,
  );
  assert.ok(
    text.endsWith(
      'hint: create it in the cluster: kubectl -n capi-kubeadm-bootstrap-system create secret generic kubeadm --from-literal=CLUSTER_TOPOLOGY=true ' +
        '--from-literal=EXP_CLUSTER_RESOURCE_SET=false --from-literal=EXP_MACHINE_POOL=false --from-literal=GREETING="$GREETING" ' +
        "(with GREETING set in the environment to the values of the CAPIProvider's spec.variables)",
    ),
    text,
  );
  // a variable's value lands in a Secret's data: secret, so never in a message
  assert.ok(!text.includes("it's"), text);
  assert.ok(![...result.files.keys()].some((f) => /secret/i.test(f)), 'still no Secret in the output');
});

test("Config variables and provider image overrides reach no provider here: the operator reads them from each provider's configSecret alone (internal/controller/phase_initialize.go initReaderVariables), so each is a warning at its Config field; cert-manager's and the operator's own images are not", async () => {
  const dir = tempDir();
  const secret = '  configSecret:\n    name: capi-variables\n';
  const manifest = corpusManifest('v1.12.0', 'repository', { CoreProvider: secret }).replace(
    'certManager:',
    `operator:\n  url: ${OPERATOR_RELEASE}\nvariables:\n  AWS_REGION: us-east-1\nimages:\n  cert-manager:\n    repository: mirror.example.com/jetstack\n  cluster-api:\n    repository: mirror.example.com/capi\ncertManager:`,
  );
  writeFileSync(path.join(dir, 'm.yaml'), manifest);
  const told: Diagnostic[] = [];
  const result = await renderManagementCluster({ manifestPaths: [dir], layout: 'operator', command: 'x', onWarning: (w) => told.push(w) });
  const line = (text: string) => manifest.split('\n').indexOf(text) + 1;
  const texts = told.map((w) => formatWarning(w));
  assert.equal(told.length, 2, texts.join('\n'));
  const file = displayPath(path.join(dir, 'm.yaml'));
  assert.ok(
    texts[0]!.startsWith(
      `${file}:${line('variables:')}:1: warning: Config variables reach no provider with --layout operator (AWS_REGION): ` +
        "the operator substitutes a provider's variables from its configSecret only\n",
    ),
    texts[0],
  );
  assert.match(
    texts[0]!,
    /hint: give them as keys of the configSecret of each provider that reads them \(Secret\/capi-system\/capi-variables\)/,
  );
  assert.ok(
    texts[1]!.startsWith(
      `${file}:${line('  cluster-api:')}:3: warning: Config images reach no provider with --layout operator, only cert-manager and the operator (cluster-api): ` +
        "the operator reads a provider's image overrides from the images key of its configSecret\n",
    ),
    texts[1],
  );
  // cert-manager's override is applied here, so it is no warning
  assert.match(result.files.get('00-cert-manager/deployment-cert-manager.yaml')!, /image: mirror\.example\.com\/jetstack\//);
});

test('an additionalManifests ConfigMap that two providers name is written once (it is one object in the cluster), not refused as two objects on one file', async () => {
  const dir = tempDir();
  const extra = '  additionalManifests:\n    name: extra\n    namespace: capi-system\n';
  const manifest = corpusManifest('v1.12.0', 'repository', { CoreProvider: extra, BootstrapProvider: extra }).replace(
    'certManager:',
    `operator:\n  url: ${OPERATOR_RELEASE}\ncertManager:`,
  );
  const configMap =
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: capi-system\ndata:\n  manifests: |\n' +
    '    apiVersion: v1\n    kind: ServiceAccount\n    metadata:\n      name: extra-sa\n      namespace: capi-system\n';
  writeFileSync(path.join(dir, 'm.yaml'), `${manifest}\n---\n${configMap}`);
  const result = await renderManagementCluster({ manifestPaths: [dir], layout: 'operator', command: 'x' });
  const written = parse(result.files.get('02-providers/configmap-extra.yaml')!) as Obj;
  assert.equal(written.metadata.namespace, 'capi-system');
  assert.match(result.files.get('02-providers/kustomization.yaml')!, /- configmap-extra\.yaml\n/);
});

test("providers sharing one configSecret (one namespace, one Secret): the README's Secrets you provide lists it once, naming its readers", async () => {
  const dir = tempDir();
  const secret = '  configSecret:\n    name: capi-variables\n    namespace: capi-system\n';
  const manifest = corpusManifest('v1.12.0', 'repository', {
    CoreProvider: secret,
    BootstrapProvider: secret,
    ControlPlaneProvider: secret,
  }).replace('certManager:', `operator:\n  url: ${OPERATOR_RELEASE}\ncertManager:`);
  writeFileSync(path.join(dir, 'm.yaml'), manifest);
  const result = await renderManagementCluster({ manifestPaths: [dir], layout: 'operator', command: 'x' });
  const listed = result.files
    .get('README.md')!
    .split('\n')
    .filter((line) => line.startsWith('- `'));
  assert.deepEqual(listed, [
    '- `capi-system/capi-variables` (read by CoreProvider cluster-api, BootstrapProvider kubeadm, ControlPlaneProvider kubeadm)',
  ]);
});

test(`values written as they are into Secrets, by an additionalManifests ConfigMap or a patch, are refused at the provider's fields, never quoted; the hint (\${NAME} in the ConfigMap, the variable in the configSecret the operator reads) renders (operator phase_load.go fetchAdditionalManifests, component_patches.go)`, async () => {
  const token = 'ghp_OperatorLayoutLiteral0123456789';
  const release = `apiVersion: v1
kind: Secret
metadata: {name: manager-bootstrap-credentials, namespace: capi-system}
data: {credentials: \${B64_CREDENTIALS}}
---
${CORE_MANAGER_DEPLOYMENT}`;
  const url = localCoreRelease(release);
  const manifest = (value: string, patch: string) => `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec:
  version: v0.1.0
  fetchConfig: {url: "${url}"}
  configSecret: {name: capi-variables}
  additionalManifests: {name: extra}
  manifestPatches:
  - |
    apiVersion: v1
    kind: Secret
    metadata: {name: manager-bootstrap-credentials}
${patch}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: extra, namespace: capi-system}
data:
  manifests: |
    apiVersion: v1
    kind: Secret
    metadata: {name: extra-creds}
    stringData: {token: ${value}}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
operator: {url: "${OPERATOR_RELEASE}"}
`;
  const dir = tempDir();
  const file = path.join(dir, 'm.yaml');
  const renderIt = () => renderManagementCluster({ manifestPaths: [file], layout: 'operator' });
  writeFileSync(file, manifest(token, `    data: {credentials: ${Buffer.from(token).toString('base64')}}`));
  const refused = await renderIt().then(
    () => assert.fail('rendered'),
    (error: unknown) => error as CapiGitopsError,
  );
  assert.ok(refused instanceof CapiGitopsError, String(refused));
  assert.deepEqual(
    refused.diagnostics.map((d) => [d.path, d.file]),
    [
      ['spec.additionalManifests', file],
      ['spec.manifestPatches', file],
    ],
  );
  assert.match(refused.diagnostics[0]!.message, /Secret\/capi-system\/extra-creds \(stringData\.token\) as they are/);
  assert.match(refused.diagnostics[1]!.message, /Secret\/capi-system\/manager-bootstrap-credentials \(data\.credentials\) as they are/);
  for (const d of refused.diagnostics) {
    assert.match(d.hint ?? '', /configSecret capi-system\/capi-variables/);
    assert.doesNotMatch(d.hint ?? '', /--secrets/);
  }
  assert.ok(!JSON.stringify(refused.diagnostics).includes(token));
  assert.ok(!JSON.stringify(refused.diagnostics).includes(Buffer.from(token).toString('base64')));

  // the hint, followed: the ConfigMap names a variable, the patch writes no value
  writeFileSync(file, manifest('${EXTRA_TOKEN}', '    metadata: {name: manager-bootstrap-credentials, labels: {team: platform}}'));
  const result = await renderIt();
  const configMap = [...result.files].find(([f, text]) => f.startsWith('02-providers/') && text.includes('extra-creds'));
  assert.match(configMap?.[1] ?? '', /\$\{EXTRA_TOKEN\}/);
});

test("a provider object's own labels and annotations are written on it (the operator reads the object as given: a team's labels, a policy's annotation); an export's last-applied-configuration and its old owner's tracking are not, and the layout's sync wave is added", async () => {
  const labelled = corpusManifest('v1.12.0')
    .replace('certManager:', `operator:\n  url: ${OPERATOR_RELEASE}\ncertManager:`)
    .replace(
      'metadata:\n  name: cluster-api\n  namespace: capi-system\n',
      [
        'metadata:',
        '  name: cluster-api',
        '  namespace: capi-system',
        '  labels: {team: platform, kustomize.toolkit.fluxcd.io/name: old, kustomize.toolkit.fluxcd.io/namespace: flux-system}',
        '  annotations:',
        '    example.com/owner: platform-team',
        '    kubectl.kubernetes.io/last-applied-configuration: "{}"',
        '',
      ].join('\n'),
    );
  const dir = tempDir();
  writeFileSync(path.join(dir, 'm.yaml'), labelled);
  const result = await renderManagementCluster({ manifestPaths: [dir], layout: 'operator', command: 'capi-gitops render' });
  const core = parse(result.files.get('02-providers/coreprovider-cluster-api.yaml')!) as Obj;
  assert.deepEqual(core.metadata.labels, { team: 'platform' });
  assert.deepEqual(core.metadata.annotations, { 'example.com/owner': 'platform-team', 'argocd.argoproj.io/sync-wave': '3' });
  const bootstrap = parse(result.files.get('02-providers/bootstrapprovider-kubeadm.yaml')!) as Obj;
  assert.equal(bootstrap.metadata.labels, undefined);
  assert.deepEqual(Object.keys(bootstrap.metadata.annotations!), ['argocd.argoproj.io/sync-wave']);
});
