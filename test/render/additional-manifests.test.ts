import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import YAML from 'yaml';
import { CORPUS_REPOSITORY, FIXTURES } from '../helpers/paths.js';
import { ADDITIONAL_MANIFESTS_KEY, appendAdditionalManifests, resolveAdditionalManifests } from '../../src/render/additional-manifests.js';
import type { ConfigMapObject, ProviderObject, ProviderSpec } from '../../src/manifest/types.js';
import { throwsDiagnostics } from '../helpers/assertions.js';
import { corpusUrl, writeTempManifest } from '../helpers/corpus-manifest.js';
import { runCli } from '../helpers/cli.js';
import { assertNoSecret } from '../helpers/secret-scan.js';

const UPSTREAM = 'operator phase_load.go';

function provider(spec: ProviderSpec): ProviderObject {
  return {
    kind: 'CoreProvider',
    name: 'cluster-api',
    namespace: 'capi-system',
    spec,
    position: { file: 'providers.yaml', line: 4, column: 3 },
  };
}

function configMap(
  name: string,
  namespace: string,
  data: Record<string, string>,
  binaryData: Record<string, string> = {},
): ConfigMapObject {
  return { name, namespace, labels: {}, annotations: {}, data, binaryData, position: { file: 'extra.yaml', line: 10, column: 1 } };
}

const EXTRA = 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: extra\n  namespace: ${EXTRA_NAMESPACE:=capi-system}\n';

test(`the key read is "manifests" (api/v1alpha2 provider_types.go AdditionalManifestsConfigMapKey)`, () => {
  assert.equal(ADDITIONAL_MANIFESTS_KEY, 'manifests');
});

test(`a provider without spec.additionalManifests has none (${UPSTREAM} fetchAdditionalManifests)`, () => {
  assert.equal(resolveAdditionalManifests(provider({}), [configMap('extra', 'capi-system', { manifests: EXTRA })]), '');
});

test(`the ConfigMap is looked up in the provider's namespace when the reference has none (${UPSTREAM} fetchAdditionalManifests, webhook setDefaultProviderSpec)`, () => {
  const maps = [configMap('extra', 'other', { manifests: 'other: 1\n' }), configMap('extra', 'capi-system', { manifests: EXTRA })];
  assert.equal(resolveAdditionalManifests(provider({ additionalManifests: { name: 'extra' } }), maps), EXTRA);
  assert.equal(resolveAdditionalManifests(provider({ additionalManifests: { name: 'extra', namespace: 'other' } }), maps), 'other: 1\n');
});

test(`a missing ConfigMap is an error at the provider, listing the ConfigMaps of that namespace (${UPSTREAM} fetchAdditionalManifests)`, () => {
  const err = throwsDiagnostics(() =>
    resolveAdditionalManifests(provider({ additionalManifests: { name: 'extras' } }), [
      configMap('extra', 'capi-system', { manifests: EXTRA }),
      configMap('zzz', 'elsewhere', {}),
    ]),
  );
  const d = err.diagnostics[0]!;
  assert.deepEqual(
    [d.file, d.line, d.column, d.object, d.path],
    ['providers.yaml', 4, 3, 'CoreProvider/capi-system/cluster-api', 'spec.additionalManifests'],
  );
  assert.match(d.message, /ConfigMap capi-system\/extras is not in the input/);
  assert.match(d.hint ?? '', /ConfigMaps in capi-system: extra$/);
});

test(`a ConfigMap without data.manifests is an error at the ConfigMap (upstream would add nothing) (${UPSTREAM} fetchAdditionalManifests)`, () => {
  const plain = throwsDiagnostics(() =>
    resolveAdditionalManifests(provider({ additionalManifests: { name: 'extra' } }), [
      configMap('extra', 'capi-system', { manifest: EXTRA }),
    ]),
  );
  const d = plain.diagnostics[0]!;
  assert.deepEqual([d.file, d.line, d.object, d.path], ['extra.yaml', 10, 'ConfigMap/capi-system/extra', 'data.manifests']);
  assert.match(d.message, /referenced by CoreProvider\/capi-system\/cluster-api/);
  assert.match(d.hint ?? '', /keys present: manifest;/);

  const binary = throwsDiagnostics(() =>
    resolveAdditionalManifests(provider({ additionalManifests: { name: 'extra' } }), [
      configMap('extra', 'capi-system', {}, { manifests: 'YWJj' }),
    ]),
  );
  assert.match(binary.diagnostics[0]!.hint ?? '', /not binaryData/);
});

test(`an empty data.manifests adds nothing (${UPSTREAM} configmapRepository)`, () => {
  const text = resolveAdditionalManifests(provider({ additionalManifests: { name: 'extra' } }), [
    configMap('extra', 'capi-system', { manifests: '' }),
  ]);
  assert.equal(text, '');
  assert.equal(appendAdditionalManifests('kind: A\n', text), 'kind: A\n');
});

test(`the manifests are appended to the raw components text after "\\n---\\n", variables still unexpanded (${UPSTREAM} configmapRepository)`, () => {
  assert.equal(appendAdditionalManifests('a: 1', 'b: 2\n'), 'a: 1\n---\nb: 2\n');
  const components = readFileSync(path.join(CORPUS_REPOSITORY, 'cluster-api', 'v1.12.0', 'core-components.yaml'), 'utf8');
  const combined = appendAdditionalManifests(components, EXTRA);
  assert.ok(combined.startsWith(components));
  assert.ok(combined.endsWith('\n---\n' + EXTRA));
  assert.ok(combined.includes('${EXTRA_NAMESPACE:=capi-system}'), 'envsubst runs on the combined text, later');
  const docs = YAML.parseAllDocuments(combined, { version: '1.1' })
    .map((d) => d.toJS() as { kind?: string } | null)
    .filter((d) => d !== null);
  const original = YAML.parseAllDocuments(components, { version: '1.1' })
    .map((d) => d.toJS())
    .filter((d) => d !== null);
  assert.equal(docs.length, original.length + 1);
  assert.equal(docs[docs.length - 1]!.kind, 'ServiceAccount');
});

/** Core v1.12.0 of the corpus with spec.additionalManifests naming ConfigMap capi-system/extra, which holds `extra`. */
const core = (extra: string, config = '') => `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
  namespace: capi-system
spec:
  version: v1.12.0
  fetchConfig:
    url: ${corpusUrl('cluster-api', 'latest', 'core-components.yaml')}
  additionalManifests:
    name: extra
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: extra
  namespace: capi-system
data:
  manifests: |
${extra.replace(/^/gm, '    ')}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager:
  enabled: false
${config}`;

test(`a Namespace in the additional manifests is refused at spec.additionalManifests, naming the ConfigMap, and the hint works when followed (clusterctl components.go inspectTargetNamespace, ${UPSTREAM} configmapRepository)`, async () => {
  const account = 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: extra\n';
  const namespace = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: monitoring\n';
  const dir = writeTempManifest({ 'providers.yaml': core(`${namespace}---\n${account}`) });
  const out = path.join(dir, 'out');
  const refused = await runCli(['render', '-f', path.join(dir, 'providers.yaml'), '-o', out]);
  assert.equal(refused.code, 1, refused.stderr);
  assert.equal(refused.stderr.match(/error:/g)?.length, 1, refused.stderr);
  assert.match(refused.stderr, /providers\.yaml:11:5: error: CoreProvider\/capi-system\/cluster-api: spec\.additionalManifests: /);
  assert.match(
    refused.stderr,
    /2 Namespace objects \(capi-system, monitoring\), with the manifests of ConfigMap capi-system\/extra appended/,
  );
  // a patch cannot remove it (clusterctl counts before the operator patches), so the hint names none
  assert.doesNotMatch(refused.stderr, /patch to remove|with a patch/);
  assert.match(
    refused.stderr,
    /move the Namespace out of data\.manifests of ConfigMap capi-system\/extra into the input files as a document of its own/,
  );
  assert.equal(existsSync(out), false);

  writeFileSync(path.join(dir, 'providers.yaml'), `${core(account)}---\n${namespace}`);
  const followed = await runCli(['render', '-f', path.join(dir, 'providers.yaml'), '-o', out]);
  assert.equal(followed.code, 0, followed.stderr);
  assert.match(readFileSync(path.join(out, '01-cluster-api', 'namespace-monitoring.yaml'), 'utf8'), /name: monitoring/);
  assert.match(readFileSync(path.join(out, '01-cluster-api', 'serviceaccount-extra.yaml'), 'utf8'), /namespace: capi-system/);
});

test(`a Secret of the additional manifests with a value written as it is is refused at spec.additionalManifests, never quoting it; --secrets inline --allow-secret-values writes it with a warning, and the hint (\${NAME} and --secret-file) hands it to the strategy (${UPSTREAM} configmapRepository)`, async () => {
  const token = 'ghp_AdditionalManifestsLiteral0123456789';
  const secret = (value: string) =>
    `apiVersion: v1\nkind: Secret\nmetadata:\n  name: extra-creds\nstringData:\n  token: ${value}\ndata:\n  ca.crt: ""\n`;
  const manifest = (value: string, config = '') => core(secret(value), config);
  const dir = writeTempManifest({ 'providers.yaml': manifest(token) });
  const render = async (...flags: string[]) => await runCli(['render', '-f', path.join(dir, 'providers.yaml'), '-o', out, ...flags]);
  const out = path.join(dir, 'out');
  const refused = await render();
  assert.equal(refused.code, 1, refused.stderr);
  assert.equal(refused.stderr.match(/error:/g)?.length, 1, refused.stderr);
  assert.match(refused.stderr, /providers\.yaml:11:5: error: CoreProvider\/capi-system\/cluster-api: spec\.additionalManifests: /);
  assert.match(
    refused.stderr,
    /ConfigMap capi-system\/extra write values into Secret\/capi-system\/extra-creds \(stringData\.token\) as they are/,
  );
  assert.ok(!refused.stderr.includes(token));
  assert.equal(existsSync(out), false);

  const inline = await render('--secrets', 'inline', '--allow-secret-values');
  assert.equal(inline.code, 0, inline.stderr);
  assert.match(inline.stderr, /warning: --secrets inline: these files hold secret values .*01-cluster-api\/secret-extra-creds\.yaml/);
  assert.match(readFileSync(path.join(out, '01-cluster-api', 'secret-extra-creds.yaml'), 'utf8'), new RegExp(`token: ${token}`));

  // the hint, followed: the value as a variable, given outside Git, placed by the strategy
  const store = 'secrets:\n  externalSecrets:\n    secretStoreRef: {name: vault}\n';
  writeFileSync(path.join(dir, 'providers.yaml'), manifest('${EXTRA_TOKEN}', store));
  const secretFile = path.join(dir, '..', 'extra.env');
  writeFileSync(secretFile, `EXTRA_TOKEN=${token}\n`);
  const followed = await render('--secret-file', secretFile, '--secrets', 'external-secrets');
  assert.equal(followed.code, 0, followed.stderr);
  const placed = readFileSync(path.join(out, '01-cluster-api', 'externalsecret-extra-creds.yaml'), 'utf8');
  assert.match(placed, /kind: ExternalSecret/);
  for (const file of readdirSync(out, { recursive: true, encoding: 'utf8' }))
    if (file.endsWith('.yaml')) assert.ok(!readFileSync(path.join(out, file), 'utf8').includes(token), file);
});

test("a Secret of the additional manifests written for another namespace is refused as well: fixTargetNamespace moves it into the provider's, where its value is written (clusterctl components.go fixTargetNamespace)", async () => {
  const token = 'ghp_AdditionalManifestsLiteral0123456789';
  const secret = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: extra-creds\n  namespace: monitoring\nstringData:\n  token: ${token}\n`;
  const dir = writeTempManifest({ 'providers.yaml': core(secret) });
  const out = path.join(dir, 'out');
  const refused = await runCli(['render', '-f', path.join(dir, 'providers.yaml'), '-o', out]);
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(
    refused.stderr,
    /ConfigMap capi-system\/extra write values into Secret\/capi-system\/extra-creds \(stringData\.token\) as they are/,
  );
  assert.ok(!refused.stderr.includes(token));
  assert.equal(existsSync(out), false);
});

test('a Secret of the additional manifests with a value written as it is never reaches the parsed-artifact cache, refused or written inline (docs/secrets.md: the cache never stores a text that holds a secret value)', async () => {
  const token = 'ghp_AdditionalManifestsCached0123456789';
  const awsUrl = pathToFileURL(path.join(FIXTURES, 'secrets', 'infrastructure-aws', 'latest', 'infrastructure-components.yaml')).href;
  const dir = writeTempManifest({
    'providers.yaml': `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec:
  version: v1.12.0
  fetchConfig: {url: ${JSON.stringify(corpusUrl('cluster-api', 'latest', 'core-components.yaml'))}}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata: {name: aws, namespace: capa-system}
spec:
  version: v0.3.0
  fetchConfig: {url: ${JSON.stringify(awsUrl)}}
  additionalManifests: {name: extra}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: extra, namespace: capa-system}
data:
  manifests: |
    apiVersion: v1
    kind: Secret
    metadata: {name: extra-creds, namespace: capa-system}
    stringData:
      token: ${token}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
`,
  });
  const secretFile = path.join(dir, '..', 'aws.env');
  writeFileSync(secretFile, `AWS_B64ENCODED_CREDENTIALS=${Buffer.from('[default]\n').toString('base64')}\n`);
  const cache = path.join(dir, 'cache');
  const env = { ...process.env, CAPI_GITOPS_CACHE_KEY: 'a-test-cache-key-of-32-characters' };
  const render = async (...flags: string[]) =>
    await runCli(['render', '-f', dir, '-o', path.join(dir, 'out'), '--cache-dir', cache, '--secret-file', secretFile, ...flags], { env });
  const refused = await render();
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /write values into Secret\/capa-system\/extra-creds \(stringData\.token\) as they are/);
  const inline = await render('--secrets', 'inline', '--allow-secret-values');
  assert.equal(inline.code, 0, inline.stderr);
  // the cache is used: the core provider's text is in it
  assert.ok(readdirSync(path.join(cache, 'parsed')).length > 0);
  assertNoSecret([token], { dirs: [cache] });
});
