/**
 * A fleet whose clusters each carry their own inline credential (issue 27, class 5): after one
 * cluster's credential is rotated, `diff` in every format, its GitHub annotations and the step
 * summary show what changed and never the old or the new value, whether the diff renders the
 * manifest or compares two directories. The fleet's README lists every cluster's files that hold
 * secret values; a credential used as a map key shows as `(hidden)` in the field paths.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { FIXTURES, PROJECT_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { assertNoSecret, inlineSecretFiles, SUITE_SECRETS } from '../helpers/secret-scan.js';

const OLD = SUITE_SECRETS.fleetOldToken;
const NEW = SUITE_SECRETS.fleetNewToken;
const OTHER = SUITE_SECRETS.oldToken;
const CORE = pathToFileURL(path.join(PROJECT_ROOT, 'examples', 'repository', 'cluster-api', 'latest', 'core-components.yaml')).href;

/** A provider whose manager takes the key as a flag and whose ConfigMap uses it as a key. */
const COMPONENTS = `apiVersion: v1
kind: Namespace
metadata:
  name: capvault-system
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: capvault-enabled-keys
  namespace: capvault-system
data:
  "\${VAULT_API_KEY}": enabled
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: capvault-controller-manager
  namespace: capvault-system
spec:
  selector:
    matchLabels:
      control-plane: capvault
  template:
    metadata:
      labels:
        control-plane: capvault
    spec:
      containers:
      - name: manager
        image: registry.example.com/capvault/manager:v0.1.0
        args:
        - --api-key=\${VAULT_API_KEY}
`;

function secret(cluster: string, key: string): string {
  return `apiVersion: v1\nkind: Secret\nmetadata:\n  name: vault-${cluster}\n  namespace: capvault-system\nstringData:\n  VAULT_API_KEY: ${JSON.stringify(key)}\n`;
}

function fleet(): { root: string; mc: string; summary: string } {
  const root = tempDir('capi-gitops-fleet-secrets-');
  const repo = path.join(root, 'repository', 'infrastructure-vault', 'v0.1.0');
  mkdirSync(repo, { recursive: true });
  writeFileSync(path.join(repo, 'infrastructure-components.yaml'), COMPONENTS);
  cpSync(path.join(FIXTURES, 'secrets', 'infrastructure-vault', 'v0.1.0', 'metadata.yaml'), path.join(repo, 'metadata.yaml'));
  const mc = path.join(root, 'mc');
  mkdirSync(mc);
  writeFileSync(
    path.join(mc, 'providers.yaml'),
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec:
  version: v0.2.0
  fetchConfig: {url: ${CORE}}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata: {name: vault, namespace: capvault-system}
spec:
  version: v0.1.0
  configSecret: {name: vault-eu-1}
  fetchConfig: {url: ${pathToFileURL(path.join(repo, 'infrastructure-components.yaml')).href}}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
secrets: {strategy: inline}
clusters:
- name: eu-1
- name: us-1
  providers:
    InfrastructureProvider/vault: {spec: {configSecret: {name: vault-us-1}}}
`,
  );
  writeFileSync(path.join(mc, 'secrets.yaml'), `${secret('eu-1', OLD)}---\n${secret('us-1', OTHER)}`);
  return { root, mc, summary: path.join(root, 'step-summary.md') };
}

test('fleet diff after one cluster rotates its inline credential: text, markdown, json, annotations and step summary hold neither value', async () => {
  const ws = fleet();
  const results: Record<string, CliResult> = {};
  const cli = async (name: string, args: string[]) => {
    const env = { ...process.env, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: ws.summary, NO_COLOR: '1' };
    return (results[name] = await runCli([...args, '--cache-dir', path.join(ws.root, 'cache')], { cwd: ws.root, env }));
  };
  const out = path.join(ws.root, 'out');
  const rendered = await cli('render', ['render', '-f', ws.mc, '-o', out, '--allow-secret-values']);
  assert.equal(rendered.code, 0, rendered.stderr);
  const declared = inlineSecretFiles(out).map((f) => path.relative(out, f));
  for (const cluster of ['eu-1', 'us-1'])
    for (const file of ['configmap-capvault-enabled-keys.yaml', 'deployment-capvault-controller-manager.yaml'])
      assert.ok(declared.includes(`clusters/${cluster}/04-infrastructure-vault/${file}`), `the fleet README lists ${cluster}'s ${file}`);

  // eu-1's credential is rotated
  writeFileSync(path.join(ws.mc, 'secrets.yaml'), `${secret('eu-1', NEW)}---\n${secret('us-1', OTHER)}`);
  const rotated = path.join(ws.root, 'rotated');
  assert.equal((await cli('render rotated', ['render', '-f', ws.mc, '-o', rotated, '--allow-secret-values'])).code, 0);
  for (const format of ['text', 'markdown', 'json']) {
    const rendering = await cli(`diff ${format}`, ['diff', '-f', ws.mc, '-o', out, '--allow-secret-values', '--format', format]);
    assert.equal(rendering.code, 0, rendering.stderr);
    // two directories: no render, so no value is known; only the READMEs say which files hold secrets
    const directories = await cli(`diff --from --to ${format}`, ['diff', '--from', out, '--to', rotated, '--format', format]);
    assert.equal(directories.code, 0, directories.stderr);
    for (const result of [rendering, directories]) {
      if (format === 'json') continue;
      assert.match(result.stdout, /flags --api-key changed \(values hidden: clusters\/eu-1\/04-infrastructure-vault\/deployment-/);
    }
  }
  const report = JSON.parse(results['diff --from --to json']!.stdout);
  const configMap = report.components
    .flatMap((c: { kinds: { kind: string; objects: { name: string; file: string; paths: string[] }[] }[] }) => c.kinds)
    .filter((k: { kind: string }) => k.kind === 'ConfigMap')
    .flatMap((k: { objects: unknown[] }) => k.objects);
  assert.deepEqual(
    configMap.map((o: { file: string; paths: string[] }) => [o.file, o.paths]),
    [['clusters/eu-1/04-infrastructure-vault/configmap-capvault-enabled-keys.yaml', ['data.(hidden)']]],
    'the key that changed is hidden; us-1 did not change',
  );
  assert.ok(readFileSync(ws.summary, 'utf8').includes('api-key'), 'the step summary was written');
  // rendering eu-1 alone keeps us-1's files, and the README keeps listing them
  assert.equal((await cli('render --cluster', ['render', '-f', ws.mc, '-o', out, '--allow-secret-values', '--cluster', 'eu-1'])).code, 0);
  assert.deepEqual(
    inlineSecretFiles(out).map((f) => path.relative(out, f)),
    declared,
  );

  const texts: Record<string, string> = {};
  for (const [name, r] of Object.entries(results)) {
    texts[`${name} stdout`] = r.stdout;
    texts[`${name} stderr`] = r.stderr.replace(/^::add-mask::.*$/gm, '');
  }
  assertNoSecret([OLD, NEW, OTHER], {
    texts,
    files: [ws.summary, path.join(ws.mc, 'capi-gitops.lock.yaml')],
    dirs: [out, rotated],
    allowedFiles: [...inlineSecretFiles(out), ...inlineSecretFiles(rotated)],
  });
});
