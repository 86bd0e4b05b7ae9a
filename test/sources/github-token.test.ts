/**
 * `github-token` in a provider's configSecret, as the operator's docs recommend (docs/README.md,
 * "It is also recommended to include a `github-token` in the secret"): the operator hands the
 * Secret's data to clusterctl as configuration variables (internal/controller/phase_initialize.go
 * initReaderVariables), and clusterctl's GitHub repository authenticates with the variable
 * `github-token` (cmd/clusterctl/client/repository/repository_github.go NewGitHubRepository).
 * So it is that provider's GitHub token, and nothing else: not a variable, never written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CapiGitopsError, type Diagnostic } from '../../src/core/diagnostics.js';
import { renderManagementCluster } from '../../src/app/cluster.js';
import { serializeLockfile } from '../../src/resolve/lock/lockfile.js';
import { EXAMPLE } from '../helpers/cli.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { FakeGitHub } from '../helpers/fake-github.js';
import { SUITE_SECRETS } from '../helpers/secret-scan.js';

const TOKEN = SUITE_SECRETS.configSecretGitHubToken;
const REPOSITORY = path.join(EXAMPLE, 'repository');
const CORE_SLUG = 'kubernetes-sigs/cluster-api';
const INFRA_SLUG = 'example/cluster-api-provider-example';

function release(label: string, file: string) {
  const read = (name: string) => readFileSync(path.join(REPOSITORY, label, 'v0.2.0', name));
  return [{ tag: 'v0.2.0', assets: { [file]: read(file), 'metadata.yaml': read('metadata.yaml') } }];
}

/** Core without a configSecret, the infrastructure provider with one holding a github-token. */
function manifest(config = ''): string {
  const dir = tempDir();
  writeFileSync(
    path.join(dir, 'providers.yaml'),
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec:
  version: v0.2.0
  fetchConfig: {url: https://github.com/${CORE_SLUG}/releases/latest/core-components.yaml}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata: {name: example, namespace: capex-system}
spec:
  version: v0.2.0
  configSecret: {name: capex-credentials}
  fetchConfig: {url: https://github.com/${INFRA_SLUG}/releases/latest/infrastructure-components.yaml}
---
apiVersion: v1
kind: Secret
metadata: {name: capex-credentials, namespace: capex-system}
stringData:
  github-token: ${TOKEN}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
variables: {EXAMPLE_REGION: eu-west-1}
${config}`,
  );
  return dir;
}

async function fakeGitHub(t: { after: (fn: () => Promise<void>) => void }): Promise<FakeGitHub> {
  const fake = await FakeGitHub.start({
    [CORE_SLUG]: release('cluster-api', 'core-components.yaml'),
    [INFRA_SLUG]: release('infrastructure-example', 'infrastructure-components.yaml'),
  });
  t.after(() => fake.close());
  return fake;
}

test("a configSecret's github-token authenticates that provider's GitHub requests only; it is no variable and is written nowhere", async (t) => {
  const fake = await fakeGitHub(t);
  const warnings: Diagnostic[] = [];
  const result = await renderManagementCluster({
    manifestPaths: [manifest()],
    // no GITHUB_TOKEN in this run: the only token is the Secret's
    sources: { github: { apiUrl: fake.apiUrl, retryAfterBaseMs: 0 }, env: {} },
    onWarning: (w) => warnings.push(w),
  });
  const api = fake.requests.filter((r) => r.server === 'api');
  const infra = api.filter((r) => r.path.startsWith(`/repos/${INFRA_SLUG}/`));
  const core = api.filter((r) => r.path.startsWith(`/repos/${CORE_SLUG}/`));
  assert.ok(infra.length >= 2 && core.length >= 2, 'both providers were fetched from the fake');
  for (const r of infra) assert.equal(r.headers.authorization, `token ${TOKEN}`, r.path);
  for (const r of core) assert.equal(r.headers.authorization, undefined, `${r.path}: another provider's request carries no token`);
  for (const r of fake.requests.filter((r) => r.server === 'storage')) assert.equal(r.headers.authorization, undefined);

  assert.deepEqual(
    warnings.filter((w) => w.message.includes('github-token')),
    [],
    'not reported as an unused variable',
  );
  for (const [file, text] of result.files) assert.ok(!text.includes(TOKEN), `${file} holds the token`);
  assert.ok(!serializeLockfile(result.lock.lock).includes(TOKEN), 'the lockfile holds the token');
});

test('a github-token goes to a GitHub API host the manifest names only when the command line names it too', async (t) => {
  const fake = await fakeGitHub(t);
  await assert.rejects(
    renderManagementCluster({ manifestPaths: [manifest(`github: {apiUrl: ${fake.apiUrl}}\n`)], sources: { env: {} } }),
    (err: unknown) => {
      assert.ok(err instanceof CapiGitopsError);
      const [d] = err.diagnostics;
      assert.equal(d!.path, 'github.apiUrl');
      assert.match(d!.message, /and Secret capex-system\/capex-credentials holds a github-token: the token is sent to a host other than/);
      assert.match(d!.hint!, /remove github-token from Secret capex-system\/capex-credentials$/);
      assert.ok(!JSON.stringify(err.diagnostics).includes(TOKEN));
      return true;
    },
  );
  assert.equal(fake.requests.length, 0, 'nothing was sent');
});
