/**
 * `check` in CI, without the secret values, where a secret source gives a variable the release
 * reads with a default, or one that only a spec.deployment override reads: the check takes such a
 * variable as a secret not at hand (the strategy's reference), never its default, and never an
 * error (docs/secrets.md "Review without the values").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Diagnostic } from '../../src/core/diagnostics.js';
import type { RenderOptions } from '../../src/app/run.js';
import { render } from '../../src/app/render.js';
import { check } from '../../src/app/check.js';
import { diff } from '../../src/app/diff.js';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/corpus-manifest.js';

const CORE_URL = pathToFileURL(path.join(PROJECT_ROOT, 'examples', 'repository', 'cluster-api', 'latest', 'core-components.yaml')).href;
const TENANT_DEFAULT = '00000000-0000-0000-0000-000000000000';

// a CAPZ-style release: a tenant ID with a default in a Secret, a token in the manager's env
const COMPONENTS = `apiVersion: v1
kind: Namespace
metadata: {name: capm-system, labels: {cluster.x-k8s.io/provider: infrastructure-acme}}
---
apiVersion: v1
kind: Secret
metadata: {name: capm-identity, namespace: capm-system, labels: {cluster.x-k8s.io/provider: infrastructure-acme}}
type: Opaque
stringData:
  clientSecret: \${ACME_CLIENT_SECRET}
  tenantID: \${ACME_TENANT_ID:=${TENANT_DEFAULT}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: capm-controller-manager, namespace: capm-system, labels: {cluster.x-k8s.io/provider: infrastructure-acme}}
spec:
  selector: {matchLabels: {control-plane: capm-controller-manager}}
  template:
    metadata: {labels: {control-plane: capm-controller-manager}}
    spec:
      containers:
      - name: manager
        image: registry.k8s.io/cluster-api-acme/controller:v1.0.0
        env:
        - name: ACME_API_TOKEN
          value: \${ACME_API_TOKEN}
        - name: AWS_REGION
          value: \${AWS_REGION:=us-east-1}
`;

/** The provider's spec beyond version, configSecret and fetchConfig. */
function workspace(config: string, spec = '') {
  const repo = tempDir('capi-gitops-check-sources-');
  const release = path.join(repo, 'repository', 'infrastructure-acme', 'v1.0.0');
  mkdirSync(release, { recursive: true });
  writeFileSync(path.join(release, 'infrastructure-components.yaml'), COMPONENTS);
  writeFileSync(
    path.join(release, 'metadata.yaml'),
    'apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- {major: 1, minor: 0, contract: v1beta2}\n',
  );
  const mc = path.join(repo, 'mc');
  mkdirSync(mc);
  writeFileSync(
    path.join(mc, 'providers.yaml'),
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec:
  version: v0.2.0
  fetchConfig: {url: ${JSON.stringify(CORE_URL)}}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata: {name: acme, namespace: capm-system}
spec:
  version: v1.0.0
  configSecret: {name: acme-variables}
  fetchConfig: {url: ${JSON.stringify(pathToFileURL(path.join(release, 'infrastructure-components.yaml')).href)}}
${spec}---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
${config}`,
  );
  // kept outside the work tree, as the CI checkout never has it
  const secretFile = path.join(tempDir('capi-gitops-private-'), 'acme-secret.yaml');
  writeFileSync(
    secretFile,
    'apiVersion: v1\nkind: Secret\nmetadata: {name: acme-variables, namespace: capm-system}\nstringData:\n' +
      '  ACME_CLIENT_SECRET: client-secret-9f8e7d6c5b4a\n  ACME_API_TOKEN: acmetok-9f8e7d6c5b4a3210\n',
  );
  const out = path.join(repo, 'out');
  const options = (extra: Partial<RenderOptions> = {}) => {
    const warnings: Diagnostic[] = [];
    return {
      manifestPaths: [mc],
      command: 'capi-gitops render -f mc -o out',
      outputDir: out,
      onWarning: (w: Diagnostic) => warnings.push(w),
      warnings,
      ...extra,
    };
  };
  return { repo, mc, out, secretFile, options };
}

const FLUX = 'output: {layout: flux}\ngitops: {path: out}\nsecrets:\n  strategy: flux-substitute\n';
const EXTERNAL_SECRETS = 'secrets:\n  strategy: external-secrets\n  externalSecrets:\n    secretStoreRef: {name: vault}\n';

/** Runs `body` with the environment variables set (render's --env-secret reads process.env). */
async function withEnv<T>(values: Record<string, string>, body: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  Object.assign(process.env, values);
  try {
    return await body();
  } finally {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

test('flux-substitute: --env-secret over a ${VAR:=default} (fluxcd/pkg envsubst keeps the reference): check in CI without the value, with the recorded flag or without it, is up to date', async () => {
  const ws = workspace(FLUX);
  const command = `capi-gitops render -f mc -f ${ws.secretFile} -o out --env-secret ACME_TENANT_ID --env-secret AWS_REGION`;
  await withEnv({ ACME_TENANT_ID: '11111111-2222-3333-4444-555555555555', AWS_REGION: 'eu-west-2' }, () =>
    render(ws.options({ manifestPaths: [ws.mc, ws.secretFile], command, envSecrets: ['ACME_TENANT_ID', 'AWS_REGION'] }), ws.out),
  );
  const identity = readFileSync(path.join(ws.out, '04-infrastructure-acme', 'secret-capm-identity.yaml'), 'utf8');
  assert.match(identity, /tenantID: \$\{ACME_TENANT_ID:=0{8}-/);
  assert.ok(!process.env.ACME_TENANT_ID && !process.env.AWS_REGION);
  renameSync(ws.secretFile, `${ws.secretFile}.away`);
  // a plain check: the names the README's command records are secrets this check does not have
  const plain = await check(ws.options(), ws.out);
  assert.deepEqual(plain.report.problems, []);
  // the check the README's regenerate command leads to in CI: --env-secret with nothing exported
  const flagged = await check(ws.options({ envSecrets: ['ACME_TENANT_ID', 'AWS_REGION'] }), ws.out);
  assert.deepEqual(flagged.report.problems, []);
});

test('render still needs an --env-secret: one not set is an error there', async () => {
  const ws = workspace(FLUX);
  await assert.rejects(
    render(ws.options({ manifestPaths: [ws.mc, ws.secretFile], envSecrets: ['ACME_TENANT_ID'] }), ws.out),
    /the environment variable ACME_TENANT_ID is not set/,
  );
});

// the token from a Secret of the cluster's own: external-secrets places secrets in a Secret's data only
const TOKEN_OVERRIDE = `  deployment:
    containers:
    - name: manager
      env:
      - name: ACME_API_TOKEN
        valueFrom: {secretKeyRef: {name: acme-token, key: token}}
`;

test('external-secrets: a configSecret variable only an overridden env reads (operator spec.deployment.containers[].env): check without the Secret compares, with no "is not set" error', async () => {
  const ws = workspace(EXTERNAL_SECRETS, TOKEN_OVERRIDE);
  await render(ws.options({ manifestPaths: [ws.mc, ws.secretFile] }), ws.out);
  const checked = await check(ws.options(), ws.out);
  assert.deepEqual(checked.report.problems, []);
  assert.deepEqual(
    checked.secretsNotGiven.map((s) => s.secret),
    ['capm-system/acme-variables'],
  );
});

test('external-secrets: a configSecret key over a ${VAR:=default} in a Secret (ESO target.template): check and diff without the Secret render the reference the committed ExternalSecret has, not the default', async () => {
  const ws = workspace(EXTERNAL_SECRETS, TOKEN_OVERRIDE);
  const secret = readFileSync(ws.secretFile, 'utf8');
  writeFileSync(ws.secretFile, `${secret}  ACME_TENANT_ID: 11111111-2222-3333-4444-555555555555\n`);
  await render(ws.options({ manifestPaths: [ws.mc, ws.secretFile] }), ws.out);
  const external = readFileSync(path.join(ws.out, '04-infrastructure-acme', 'externalsecret-capm-identity.yaml'), 'utf8');
  assert.match(external, /tenantID: '\{\{ \.ACME_TENANT_ID \}\}'|tenantID: "\{\{ \.ACME_TENANT_ID \}\}"/);
  assert.ok(!external.includes(TENANT_DEFAULT));
  const checked = await check(ws.options(), ws.out);
  assert.deepEqual(checked.report.problems, []);
  const { report } = await diff({ output: ws.out, current: ws.options() });
  assert.equal(report.summary.changed + report.summary.added + report.summary.removed, 0);
  // without the key, render writes the default, and the check agrees with that output too
  writeFileSync(ws.secretFile, secret);
  await render(ws.options({ manifestPaths: [ws.mc, ws.secretFile] }), ws.out);
  assert.ok(
    readFileSync(path.join(ws.out, '04-infrastructure-acme', 'externalsecret-capm-identity.yaml'), 'utf8').includes(TENANT_DEFAULT),
  );
  assert.deepEqual((await check(ws.options(), ws.out)).report.problems, []);
});

test('flux-substitute: a --secret-file over a ${VAR:=default} with no configSecret: check without the file (the README records it) keeps the reference', async () => {
  const ws = workspace(FLUX);
  // no configSecret: the values come from a dotenv file kept outside the work tree
  const providers = path.join(ws.mc, 'providers.yaml');
  writeFileSync(providers, readFileSync(providers, 'utf8').replace('  configSecret: {name: acme-variables}\n', ''));
  const dotenv = path.join(tempDir('capi-gitops-private-'), 'acme.env');
  writeFileSync(dotenv, 'ACME_CLIENT_SECRET=client-secret-9f8e7d6c5b4a\nACME_API_TOKEN=acmetok-9f8e7d6c5b4a3210\nAWS_REGION=eu-west-2\n');
  const command = `capi-gitops render -f mc -o out --secret-file ${dotenv}`;
  await render(ws.options({ command, secretFiles: [dotenv] }), ws.out);
  const manager = readFileSync(path.join(ws.out, '04-infrastructure-acme', 'deployment-capm-controller-manager.yaml'), 'utf8');
  assert.match(manager, /value: \$\{AWS_REGION:=us-east-1\}/);
  const checked = await check(ws.options(), ws.out);
  assert.deepEqual(checked.report.problems, []);
});
