/**
 * Prototype keys (issue 27, class 1): `__proto__`, `constructor` and `prototype` written by a pull
 * request into a manifest, a Config, a fleet overlay, chart values, `--set` or imported Helm
 * values. The rule everywhere: they are ordinary data keys, as Helm and Kubernetes keep them
 * (src/kernel/own-keys.ts), so no key reaches Object.prototype or another object's prototype.
 * Each test renders in-process and then checks that Object.prototype and Array.prototype hold
 * exactly what they held when the process started (test/helpers/prototype-guard.ts, which
 * scripts/run-tests.mjs also loads into every process of the suite).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import YAML from 'yaml';
import { renderManagementCluster, type RenderOptions } from '../../src/app/cluster.js';
import { renderOutput } from '../../src/app/run.js';
import { prepareChart } from '../../src/layout/chart/index.js';
import { renderChart } from '../../src/layout/chart/render.js';
import type { ChartContext } from '../../src/layout/chart/types.js';
import { importHelmValues } from '../../src/manifest/import-helm-values.js';
import { userValues } from '../../src/core/helm-set.js';
import { parseSetExpression } from '../helpers/helm-set.js';
import { coalesceValues, mergeUserValues } from '../../src/core/values.js';
import { applyPatches } from '../../src/render/patches.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import type { KObject } from '../../src/core/kobject.js';
import { prototypeChanges, PROTOTYPE_LOG_VARIABLE } from '../helpers/prototype-guard.js';
import { tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { assertNoSecret, SUITE_SECRETS } from '../helpers/secret-scan.js';
import { exampleCopy } from '../helpers/cli.js';
import { VAULT_B64, vaultManifest as writeVaultManifest } from '../helpers/vault-manifest.js';

const EXAMPLES = path.join(PROJECT_ROOT, 'examples');
const B64 = VAULT_B64;
const SECRETS = [B64, SUITE_SECRETS.vaultSecretKey];
const fileUrl = (...parts: string[]) => pathToFileURL(path.join(...parts)).href;

/** Nothing any test here ran may have changed a built-in prototype. */
function assertPrototypesUntouched(what: string): void {
  assert.deepEqual(prototypeChanges(), [], `${what} changed a built-in prototype`);
  const probe: Record<string, unknown> = {};
  for (const key of ['public', 'secrets', 'namespace', 'strategy', 'clusterResourceWhitelist'])
    assert.equal(probe[key], undefined, `${what}: every object now has "${key}"`);
}

/** The vault manifest with these Config lines and documents after the Config. */
const vaultManifest = (config: string, extraDocs = '') => writeVaultManifest({ config, extraDocs });

/** Renders and expects a refusal: the credential in no file (there are none) and no message. */
async function renderRefused(manifest: string, options: Partial<RenderOptions> = {}): Promise<string> {
  let files: Map<string, string> | undefined;
  try {
    files = (await renderOutput({ manifestPaths: [manifest], command: 'capi-gitops render', ...options })).files;
  } catch (err) {
    if (!(err instanceof CapiGitopsError)) throw err;
    assertNoSecret(SECRETS, { texts: { error: err.message } });
    return err.message;
  }
  assertNoSecret(SECRETS, { texts: Object.fromEntries(files) });
  return assert.fail('the render wrote its output although the credential is not public');
}

test('the issue\'s pull request: Config gitops.values {__proto__: {public: [the credential]}} under the default refuse strategy is refused, and no object gains "public"', async () => {
  const message = await renderRefused(vaultManifest('gitops:\n  values:\n    __proto__:\n      public: [VAULT_B64ENCODED_CREDENTIALS]\n'));
  assert.match(message, /data\.credentials: would receive the secret value of VAULT_B64ENCODED_CREDENTIALS/);
  assertPrototypesUntouched('Config gitops.values.__proto__');
});

test('__proto__: {secrets: {public: […]}} with --secrets refuse, written where a Config is merged (a Config of its own, a second Config, a fleet overlay, unsupportedOverrides): refused every time', async () => {
  const smuggled = '__proto__:\n  secrets:\n    public: [VAULT_B64ENCODED_CREDENTIALS]\n    strategy: inline\n';
  const indent = (text: string, n: number) => text.replace(/^(?=.)/gm, ' '.repeat(n));
  const cases: [string, string, string][] = [
    ['the Config itself', smuggled, ''],
    ['a second Config document', '', `---\napiVersion: capi-gitops.dev/v1alpha1\nkind: Config\n${smuggled}`],
    ['secrets of the Config', `secrets:\n${indent(smuggled, 2)}`, ''],
    ['a fleet overlay', `clusters:\n- name: eu-1\n${indent(smuggled, 2)}`, ''],
    ['unsupportedOverrides', `clusters:\n- name: eu-1\n  unsupportedOverrides:\n${indent(smuggled, 4)}`, ''],
    ['overlay variables', `clusters:\n- name: eu-1\n  variables:\n${indent(smuggled, 4)}`, ''],
  ];
  for (const [where, config, extra] of cases) {
    const message = await renderRefused(vaultManifest(config, extra), { secretsStrategy: 'refuse' });
    assert.match(message, /__proto__|would receive the secret value/, where);
    assertPrototypesUntouched(where);
  }
});

/** Writes a chart of one's own (relative path → text). */
function writeChart(files: Record<string, string>): string {
  const dir = tempDir('capi-gitops-proto-chart-');
  for (const [name, text] of Object.entries({ 'Chart.yaml': 'apiVersion: v2\nname: team-wiring\nversion: 0.1.0\n', ...files })) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const CHART_CONTEXT: Omit<ChartContext, 'Values' | 'Chart'> = {
  Release: { name: 'capi', namespace: 'argocd' },
  Components: [],
  ClusterResources: [{ group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' }],
  Namespaces: ['capi-system'],
  Wiring: { directory: 'argocd', path: 'argocd' },
  CaInjected: [],
  Unmanaged: [],
};

test("--set __proto__.namespace=… and --set-string constructor.namespace=… on a chart of one's own: data keys of the values (as helm strvals keeps them), the chart's namespace unchanged", async () => {
  const chart = writeChart({
    'values.yaml': 'namespace: argocd\nlabels: {team: platform}\n',
    'templates/cm.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: wiring\n  namespace: {{Values.namespace}}\ndata:\n{{#each Values.labels}}  {{@key}}: {{quote this}}\n{{/each}}',
  });
  const sets = [
    { expression: '__proto__.namespace=kube-system', forceString: false },
    { expression: 'constructor.namespace=kube-system', forceString: true },
    { expression: 'labels.__proto__=kept', forceString: false },
  ];
  const { chart: loaded, values } = await prepareChart({ builtIn: 'argocd', userChart: chart, path: 'p', set: sets });
  const [doc] = renderChart(loaded, { ...CHART_CONTEXT, Values: values, Chart: loaded.metadata });
  assert.equal(doc!.object.metadata.namespace, 'argocd');
  assert.equal(JSON.stringify(doc!.object.data), '{"__proto__":"kept","team":"platform"}');
  assert.deepEqual(Object.keys(values).sort(), ['__proto__', 'constructor', 'labels', 'namespace', 'path']);
  assertPrototypesUntouched('--set __proto__');
});

test('__proto__ in Config gitops.values beside the built-in Argo CD chart is a value the chart does not declare: refused at its name, and the AppProject is never drawn', async () => {
  const manifest = writeTempManifest({
    'providers.yaml': `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
  namespace: capi-system
spec:
  version: v0.2.0
  fetchConfig:
    url: ${fileUrl(EXAMPLES, 'repository', 'cluster-api', 'latest', 'core-components.yaml')}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager:
  enabled: false
output:
  layout: argocd
gitops:
  path: clusters/mgmt
  values:
    repoURL: https://git.example.com/platform/mgmt.git
    __proto__:
      createProject: false
      ClusterResources: [{group: "*", kind: "*"}]
`,
  });
  const error = await renderManagementCluster({ manifestPaths: [manifest], command: 'capi-gitops render' }).then(
    () => assert.fail('the render accepted a value the chart does not declare'),
    (err: unknown) => err,
  );
  assert.ok(error instanceof CapiGitopsError, String(error));
  assert.match(error.message, /value __proto__ is not a value of this chart/);
  assertPrototypesUntouched('Config gitops.values beside the Argo CD chart');
  // without it, the AppProject lists only the kinds the components hold
  writeFileSync(
    path.join(manifest, 'providers.yaml'),
    readFileSync(path.join(manifest, 'providers.yaml'), 'utf8').replace(/ {4}__proto__:\n.*\n.*\n/, ''),
  );
  const { files } = await renderManagementCluster({ manifestPaths: [manifest], command: 'capi-gitops render' });
  const project = [...files].find(([name]) => /appproject/i.test(name));
  assert.ok(project, [...files.keys()].join(', '));
  assert.doesNotMatch(project[1], /kind: "?\*/);
  assert.match(project[1], /kind: CustomResourceDefinition\n/);
});

test('import helm-values: __proto__ in a values file, under a provider and through --set, is a key the chart ignores; the CoreProvider stays in capi-system', () => {
  const file = YAML.parse(
    'core:\n  cluster-api:\n    version: v1.7.7\n    __proto__:\n      namespace: attacker-system\n__proto__:\n  namespace: attacker-system\n  configSecret: {name: stolen}\n',
  ) as Record<string, unknown>;
  const { text, warnings } = importHelmValues({
    layers: [{ source: 'values.yaml', values: file }],
    sets: [
      { expression: 'infrastructure.docker.__proto__.namespace=attacker-system', forceString: false },
      { expression: 'infrastructure.docker.version=v1.7.7', forceString: false },
    ],
  });
  const docs = YAML.parseAllDocuments(text).map((d) => d.toJS() as KObject | null);
  const namespaces = Object.fromEntries(docs.filter((d) => d?.kind).map((d) => [`${d!.kind}/${d!.metadata.name}`, d!.metadata.namespace]));
  assert.equal(namespaces['CoreProvider/cluster-api'], 'capi-system');
  assert.equal(namespaces['InfrastructureProvider/docker'], 'docker-infrastructure-system');
  assert.doesNotMatch(text, /attacker-system|stolen/);
  const messages = warnings.map((warning) => warning.message);
  assert.ok(messages.includes("core.cluster-api.__proto__ is ignored by the chart's core template"), messages.join('\n'));
  assertPrototypesUntouched('import helm-values');
});

test('the --set parser and Helm merging keep __proto__, constructor, prototype and toString as ordinary keys (helm strvals parser.go, coalesce.go)', () => {
  const parsed = parseSetExpression('__proto__.a=1,constructor.b=2,prototype=3,toString.c=4,hasOwnProperty[0]=x');
  assert.equal(
    JSON.stringify(parsed),
    '{"__proto__":{"a":1},"constructor":{"b":2},"prototype":3,"toString":{"c":4},"hasOwnProperty":["x"]}',
  );
  assert.equal(Object.getPrototypeOf(parsed), Object.prototype);
  const layered = userValues(
    [
      { values: JSON.parse('{"__proto__": {"public": ["A"]}, "constructor": {"x": 1}}') },
      { values: JSON.parse('{"__proto__": {"more": 1}}') },
    ],
    [{ expression: 'constructor.y=2', forceString: false }],
    () => ({ expected: '', hint: '' }),
  );
  assert.equal(JSON.stringify(layered), '{"__proto__":{"public":["A"],"more":1},"constructor":{"x":1,"y":2}}');
  const merged = mergeUserValues({}, JSON.parse('{"a": {"__proto__": {"b": 1}}}'));
  assert.equal(JSON.stringify(merged), '{"a":{"__proto__":{"b":1}}}');
  const coalesced = coalesceValues(JSON.parse('{"__proto__": null}'), JSON.parse('{"__proto__": {"public": 1}, "toString": "t"}'));
  assert.equal(JSON.stringify(coalesced), '{"toString":"t"}');
  assertPrototypesUntouched('--set and merging');
});

test('patches: a merge patch sets a __proto__ key as evanphx does (a Go map key); an RFC 6902 path through it is an error that says so', () => {
  const configMap: KObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'n' }, data: { a: '1' } };
  const [merged] = applyPatches(
    [configMap],
    [{ patch: 'metadata:\n  labels:\n    __proto__: {polluted: "yes"}\n    team: platform\n', target: { kind: 'ConfigMap' } }],
  );
  assert.equal(JSON.stringify(merged!.metadata.labels), '{"__proto__":{"polluted":"yes"},"team":"platform"}');
  const error = (() => {
    try {
      applyPatches(
        [configMap],
        [{ patch: '- {op: add, path: /metadata/__proto__/polluted, value: "yes"}\n', target: { kind: 'ConfigMap' } }],
      );
    } catch (err) {
      return err;
    }
    return assert.fail('the RFC 6902 operation was applied');
  })();
  assert.ok(error instanceof CapiGitopsError, String(error));
  assert.match(error.message, /a path through a key named __proto__, constructor or prototype cannot be patched by an RFC 6902 operation/);
  assertPrototypesUntouched('patches');
});

test("Secret and ConfigMap keys named __proto__ are data: a configSecret key __proto__ is read as one value, not as the map's prototype", async () => {
  const manifest = vaultManifest(
    'secrets:\n  public: [EXP_MACHINE_POOL]\n',
    `---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra, namespace: capvault-system}\ndata:\n  __proto__: "kept"\n`,
  ).replace('  EXP_MACHINE_POOL: "true"\n', '  EXP_MACHINE_POOL: "true"\n  __proto__: "also-kept"\n');
  const message = await renderRefused(manifest);
  assert.match(message, /would receive the secret value of VAULT_B64ENCODED_CREDENTIALS/);
  assertPrototypesUntouched('Secret and ConfigMap keys');
});

test('the guard itself: a process that writes into Object.prototype is logged at exit (what scripts/run-tests.mjs fails the suite on)', () => {
  const log = path.join(tempDir('capi-gitops-proto-guard-'), 'changes.log');
  const guard = pathToFileURL(path.join(PROJECT_ROOT, 'dist', 'test', 'helpers', 'prototype-guard.js')).href;
  const run = spawnSync(process.execPath, [`--import=${guard}`, '-e', 'Object.prototype.public = ["X"]'], {
    env: { ...process.env, NODE_OPTIONS: '', [PROTOTYPE_LOG_VARIABLE]: log },
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  assert.match(readFileSync(log, 'utf8'), /Object\.prototype\.public added/);
});

test("a lockfile and a release's metadata.yaml with __proto__ keys: read as data (an unknown field, or ignored), never as a prototype", async () => {
  const example = path.join(exampleCopy(), 'management-cluster');
  const lockFile = path.join(example, 'capi-gitops.lock.yaml');
  const lock = readFileSync(lockFile, 'utf8');
  writeFileSync(
    lockFile,
    lock
      .replace('kind: Lock\n', 'kind: Lock\n__proto__:\n  entries: []\n')
      .replace('    requestedVersion: v0.1.0\n', '    requestedVersion: v0.1.0\n    __proto__: {version: v9.9.9}\n'),
  );
  const withLock = await renderManagementCluster({ manifestPaths: [example], command: 'capi-gitops render' }).then(
    (result) => [...result.files.values()].join('\n'),
    (err: unknown) => (err instanceof CapiGitopsError ? err.message : assert.fail(String(err))),
  );
  assert.doesNotMatch(withLock, /v9\.9\.9/);
  assertPrototypesUntouched('a lockfile with __proto__');

  rmSync(lockFile);
  const metadata = path.join(example, '..', 'repository', 'cluster-api', 'v0.2.0', 'metadata.yaml');
  writeFileSync(metadata, `${readFileSync(metadata, 'utf8')}__proto__:\n  releaseSeries: [{major: 0, minor: 2, contract: v1alpha4}]\n`);
  const { providers } = await renderManagementCluster({ manifestPaths: [example], command: 'capi-gitops render' });
  assert.deepEqual(
    providers.map((p) => [p.label, p.contract]).filter(([label]) => label === 'cluster-api'),
    [['cluster-api', 'v1beta2']],
  );
  assertPrototypesUntouched('metadata.yaml with __proto__');
});
