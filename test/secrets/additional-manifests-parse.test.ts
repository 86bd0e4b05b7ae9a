/**
 * A spec.additionalManifests text that is no YAML is told at the ConfigMap's data.manifests in the
 * input, not at a line past the end of the release's artifact, and a secret substituted elsewhere
 * in the components is not blamed for it. The operator appends the text to the components before
 * parsing (cluster-api-operator internal/controller/phase_load.go configmapRepository).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CORPUS_REPOSITORY, FIXTURES } from '../helpers/paths.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { runCli } from '../helpers/cli.js';

const CORE = pathToFileURL(path.join(CORPUS_REPOSITORY, 'cluster-api', 'v1.12.0', 'core-components.yaml')).href;
const VAULT = pathToFileURL(path.join(FIXTURES, 'secrets', 'infrastructure-vault', 'v0.1.0', 'infrastructure-components.yaml')).href;
const CREDENTIALS = Buffer.from('[default]\naws_access_key_id = AKIAZZTRIALKEY123456\n').toString('base64');

/** Line 7 holds `manifests: |`; its text's line 7 is a nested mapping in a compact one. */
const EXTRA = `apiVersion: v1
kind: ConfigMap
metadata:
  name: extra
  namespace: capi-system
data:
  manifests: |
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: broken
      namespace: capi-system
    data:
      x: a: b
`;

async function render(withSecret: boolean): Promise<{ stderr: string; status: number | null; extra: string }> {
  const dir = tempDir('capi-gitops-additional-parse-');
  const extra = path.join(dir, 'extra.yaml');
  writeFileSync(extra, EXTRA);
  const vault = `---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata:
  name: vault
  namespace: capvault-system
spec:
  version: v0.1.0
  configSecret: {name: vault-variables}
  fetchConfig: {url: ${VAULT}}
  additionalManifests: {name: extra, namespace: capi-system}
`;
  writeFileSync(
    path.join(dir, 'providers.yaml'),
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
  namespace: capi-system
spec:
  version: v1.12.0
  fetchConfig: {url: ${CORE}}
${withSecret ? vault : '  additionalManifests: {name: extra}\n'}---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
secrets: {public: [EXP_MACHINE_POOL]}
`,
  );
  const secret = path.join(tempDir('capi-gitops-additional-parse-secret-'), 'vault.yaml');
  writeFileSync(
    secret,
    `apiVersion: v1\nkind: Secret\nmetadata: {name: vault-variables, namespace: capvault-system}\nstringData:\n  VAULT_B64ENCODED_CREDENTIALS: ${CREDENTIALS}\n`,
  );
  const files = ['-f', path.join(dir, 'providers.yaml'), '-f', extra, ...(withSecret ? ['-f', secret] : [])];
  const r = await runCli(['render', ...files, '-o', path.join(dir, 'out'), '--secrets', 'inline', '--allow-secret-values']);
  return { stderr: r.stderr, status: r.code, extra };
}

test('a YAML error in data.manifests is told at the ConfigMap field (operator phase_load.go configmapRepository)', async () => {
  const r = await render(false);
  assert.equal(r.status, 1, r.stderr);
  assert.match(
    r.stderr,
    new RegExp(
      `^${r.extra.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:7:14: error: ConfigMap/capi-system/extra: data\\.manifests: line 7, column \\d+ of the additional manifests: `,
      'm',
    ),
  );
  assert.doesNotMatch(r.stderr, /core-components\.yaml/);
});

test('a YAML error in data.manifests is not blamed on a secret substituted into the components (operator phase_load.go configmapRepository)', async () => {
  const r = await render(true);
  assert.equal(r.status, 1, r.stderr);
  assert.match(
    r.stderr,
    /extra\.yaml:7:14: error: ConfigMap\/capi-system\/extra: data\.manifests: line 7, column \d+ of the additional manifests: not valid YAML/,
  );
  assert.doesNotMatch(r.stderr, /core-components\.yaml|VAULT_B64ENCODED_CREDENTIALS/);
  assert.ok(!r.stderr.includes(CREDENTIALS));
});
