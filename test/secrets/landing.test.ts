/**
 * A value that lands in a Secret's data is secret whatever gave it: on a CAPA-shaped provider of
 * our own (test/fixtures/secrets/infrastructure-aws), the credential given in each place a value
 * can come from (Config.variables, a fleet cluster's overlay, --env-secret, --secret-file, the
 * configSecret) goes through each strategy, or is refused. Every render writes to a directory
 * under the suite's TMPDIR, so the sweep after the suite searches it too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import YAML from 'yaml';
import { CapiGitopsError, type Diagnostic } from '../../src/core/diagnostics.js';
import type { SecretStrategy } from '../../src/manifest/types.js';
import type { RenderOptions } from '../../src/app/run.js';
import { render } from '../../src/app/render.js';
import { listVariables } from '../../src/app/cluster.js';
import { FIXTURES, PROJECT_ROOT } from '../helpers/paths.js';
import { tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { readTree } from '../helpers/tree.js';
import { assertNoSecret, inlineSecretFiles, SUITE_SECRETS } from '../helpers/secret-scan.js';

const B64 = Buffer.from(SUITE_SECRETS.landingCredentials).toString('base64');
const SECRETS = [B64, SUITE_SECRETS.landingCredentials, SUITE_SECRETS.landingSecretKey];
const VARIABLE = 'AWS_B64ENCODED_CREDENTIALS';
const COMPONENT = '04-infrastructure-aws';
const SECRET_FILE = `${COMPONENT}/secret-capa-manager-bootstrap-credentials.yaml`;
const EXTERNAL_SECRET_FILE = `${COMPONENT}/externalsecret-capa-manager-bootstrap-credentials.yaml`;
const url = (...parts: string[]) => pathToFileURL(path.join(...parts)).href;
const CORE_URL = url(PROJECT_ROOT, 'examples', 'repository', 'cluster-api', 'latest', 'core-components.yaml');
const AWS_URL = url(FIXTURES, 'secrets', 'infrastructure-aws', 'latest', 'infrastructure-components.yaml');

export type Origin = 'Config.variables' | 'a fleet overlay' | '--env-secret' | '--secret-file' | 'configSecret';
const ORIGINS: Origin[] = ['Config.variables', 'a fleet overlay', '--env-secret', '--secret-file', 'configSecret'];

const AGE_MISSING = spawnSync('age-keygen', ['--version']).status === 0 ? false : 'age-keygen is not installed';
let recipient: string | undefined;
function ageRecipient(): string {
  if (!recipient) {
    const key = path.join(tempDir('capi-gitops-age-'), 'key.txt');
    assert.equal(spawnSync('age-keygen', ['-o', key]).status, 0);
    recipient = spawnSync('age-keygen', ['-y', key], { encoding: 'utf8' }).stdout.trim();
  }
  return recipient;
}

/** The Config's secrets settings (and layout) for a strategy; inline comes from the options, as users pass it. */
function secretsConfig(strategy: SecretStrategy): string {
  switch (strategy) {
    case 'refuse':
      return 'secrets:\n  strategy: refuse\n';
    case 'inline':
      return '';
    case 'external-secrets':
      return 'secrets:\n  strategy: external-secrets\n  externalSecrets:\n    secretStoreRef: {name: aws-store}\n';
    case 'flux-substitute':
      return 'secrets:\n  strategy: flux-substitute\noutput:\n  layout: flux\ngitops:\n  path: clusters/mgmt\n';
    case 'sops':
      return `secrets:\n  strategy: sops\n  sops:\n    ageRecipients: [${ageRecipient()}]\n`;
  }
}

/** A management cluster with core and the CAPA-shaped provider, the credential given by `origin`. */
export function landingManifest(origin: Origin, config = ''): { dir: string; options: Partial<RenderOptions>; prefix: string } {
  const configSecret = origin === 'configSecret';
  const docs = [
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec:
  version: v0.2.0
  fetchConfig: {url: ${JSON.stringify(CORE_URL)}}
`,
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata: {name: aws, namespace: capa-system}
spec:
  version: v0.3.0
${configSecret ? '  configSecret: {name: aws-variables}\n' : ''}  fetchConfig: {url: ${JSON.stringify(AWS_URL)}}
`,
    `apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
${origin === 'Config.variables' ? `variables:\n  ${VARIABLE}: ${B64}\n` : ''}${
      origin === 'a fleet overlay' ? `clusters:\n- name: mgmt-1\n  variables:\n    ${VARIABLE}: ${B64}\n` : ''
    }${config}`,
  ];
  const files: Record<string, string> = { 'management-cluster.yaml': docs.join('---\n') };
  const options: Partial<RenderOptions> = {};
  if (configSecret) {
    // beside the manifest, as a user who has not read "Where secrets live" yet would put it
    files['aws-variables.yaml'] =
      `apiVersion: v1\nkind: Secret\nmetadata: {name: aws-variables, namespace: capa-system}\ndata:\n  ${VARIABLE}: ${Buffer.from(B64).toString('base64')}\n`;
  }
  const dir = writeTempManifest(files);
  if (origin === '--secret-file') {
    const file = path.join(tempDir('capi-gitops-outside-git-'), 'aws.env');
    writeFileSync(file, `${VARIABLE}=${B64}\n`);
    options.secretFiles = [file];
  }
  if (origin === '--env-secret') options.envSecrets = [VARIABLE];
  return { dir, options, prefix: origin === 'a fleet overlay' ? 'clusters/mgmt-1/' : '' };
}

/** Renders to a fresh directory; the failure's diagnostics, or the written output. */
async function renderTo(
  origin: Origin,
  strategy: SecretStrategy,
  allowSecretValues = false,
): Promise<{ out: string; prefix: string; files?: Map<string, string>; warnings?: string[]; problems?: Diagnostic[] }> {
  const { dir, options, prefix } = landingManifest(origin, secretsConfig(strategy));
  const out = path.join(tempDir('capi-gitops-landing-'), 'out');
  if (origin === '--env-secret') process.env[VARIABLE] = B64;
  try {
    const result = await render(
      {
        manifestPaths: [dir],
        command: 'capi-gitops render',
        ...options,
        ...(strategy === 'inline' ? { secretsStrategy: 'inline' } : {}),
        allowSecretValues,
        outputDir: out,
      },
      out,
    );
    assertNoSecret(SECRETS, { texts: { warnings: result.warnings.join('\n') } });
    // a fleet's files are written as its clusters render: read them from the output
    return { out, prefix, files: result.fleet ? readTree(out) : result.files, warnings: result.warnings };
  } catch (err) {
    if (!(err instanceof CapiGitopsError)) throw err;
    assertNoSecret(SECRETS, { texts: { error: err.message } });
    assert.ok(!existsSync(out), 'a failed render wrote its output');
    return { out, prefix, problems: err.diagnostics };
  } finally {
    delete process.env[VARIABLE];
  }
}

function refusedAtTheField(problems: Diagnostic[] | undefined, expected: RegExp): void {
  assert.ok(problems, 'the render succeeded');
  // a fleet names the cluster first
  const field = problems.find(
    (d) =>
      /^(cluster mgmt-1: )?Secret\/capa-system\/capa-manager-bootstrap-credentials$/.test(d.object ?? '') && d.path === 'data.credentials',
  );
  assert.ok(field, problems.map((d) => `${d.object}: ${d.path}: ${d.message}`).join('\n'));
  assert.match(`${field.message}\n${field.expected}\n${field.hint}`, expected);
}

for (const origin of ORIGINS) {
  test(`${origin}: refuse names the Secret's field; inline refuses without --allow-secret-values`, async () => {
    refusedAtTheField((await renderTo(origin, 'refuse')).problems, new RegExp(`would receive the secret value of ${VARIABLE}`));
    refusedAtTheField((await renderTo(origin, 'inline')).problems, /--allow-secret-values/);
  });

  test(`${origin}: inline --allow-secret-values writes the value, names the file in a warning every run and in the README`, async () => {
    for (let run = 0; run < 2; run++) {
      const { out, prefix, files, warnings } = await renderTo(origin, 'inline', true);
      assert.ok(files?.get(prefix + SECRET_FILE)?.includes(B64));
      assert.ok(
        warnings?.some((w) => w.includes('these files hold secret values') && w.includes(SECRET_FILE)),
        warnings?.join('\n'),
      );
      // a fleet's one README, at the root, lists every cluster's files
      assert.deepEqual(inlineSecretFiles(out), [path.join(out, prefix + SECRET_FILE)]);
      assertNoSecret(SECRETS, { dirs: [out], allowedFiles: inlineSecretFiles(out) });
    }
  });

  test(`${origin}: external-secrets writes an ExternalSecret that reads ${VARIABLE} from the store, and no value`, async () => {
    const { out, prefix, files } = await renderTo(origin, 'external-secrets');
    assert.ok(files && !files.has(prefix + SECRET_FILE), 'the Secret is written');
    const external = YAML.parse(files.get(prefix + EXTERNAL_SECRET_FILE)!);
    assert.deepEqual(external.spec.data, [
      { secretKey: VARIABLE, remoteRef: { key: 'capa-system/capa-manager-bootstrap-credentials', property: VARIABLE } },
    ]);
    assert.equal(external.spec.target.template.data.credentials, `{{ .${VARIABLE} | b64dec }}`);
    assertNoSecret(SECRETS, { dirs: [out] });
  });

  test(`${origin}: flux-substitute leaves \${${VARIABLE}} for Flux, and no value`, async () => {
    const { out, prefix, files } = await renderTo(origin, 'flux-substitute');
    assert.match(files?.get(prefix + SECRET_FILE) ?? '', new RegExp(`credentials: \\$\\{${VARIABLE}\\}`));
    assertNoSecret(SECRETS, { dirs: [out] });
  });

  test(`${origin}: sops encrypts the Secret's data, and no value is in clear`, { skip: AGE_MISSING }, async () => {
    const { out, prefix, files } = await renderTo(origin, 'sops');
    const secret = YAML.parse(files?.get(prefix + SECRET_FILE) ?? '{}');
    assert.match(String(secret.data?.credentials), /^ENC\[AES256_GCM,/);
    assert.ok(secret.sops?.age?.length === 1);
    assertNoSecret(SECRETS, { dirs: [out] });
  });
}

test('a Config variable that lands in a Secret says why it is secret, and a warning asks to move it out of the manifest', async () => {
  const refused = (await renderTo('Config.variables', 'refuse')).problems!;
  const field = refused.find((d) => d.path === 'data.credentials')!;
  assert.match(
    field.message,
    /AWS_B64ENCODED_CREDENTIALS from Config\.variables: a value in a Secret's data is secret wherever it is given/,
  );
  assert.match(field.hint!, /--secret-file/);
  assert.match(field.hint!, /not Config\.variables/);
  const { warnings } = await renderTo('Config.variables', 'external-secrets');
  assert.ok(
    warnings?.some((w) => w.startsWith(`${VARIABLE} from Config.variables lands in a Secret's data, so it is secret: keep it out of Git`)),
    warnings?.join('\n'),
  );
});

test('Config.secrets.public is the way to write a plain value into a Secret: no refusal, no warning', async () => {
  // a value that is not a credential (a suite secret here would be found by the sweep, rightly)
  const plain = Buffer.from('[default]\nregion = eu-west-1\n').toString('base64');
  const { dir } = landingManifest(
    '--env-secret',
    `variables:\n  ${VARIABLE}: ${plain}\nsecrets:\n  strategy: refuse\n  public: [${VARIABLE}]\n`,
  );
  const out = path.join(tempDir('capi-gitops-landing-'), 'out');
  const result = await render({ manifestPaths: [dir], command: 'capi-gitops render', outputDir: out }, out);
  assert.deepEqual(result.warnings, []);
  assert.ok(readFileSync(path.join(out, SECRET_FILE), 'utf8').includes(plain));
});

test('a plain value that lands in a Secret through additionalManifests is secret at every place it lands (operator phase_load.go appends them before substitution)', async () => {
  // CAPA_LOGLEVEL is the manager's --v; a Secret added by additionalManifests takes it too
  const extra = `---
apiVersion: v1
kind: ConfigMap
metadata: {name: aws-extra, namespace: capa-system}
data:
  manifests: |
    apiVersion: v1
    kind: Secret
    metadata: {name: capa-log-settings, namespace: capa-system}
    stringData:
      level: "\${CAPA_LOGLEVEL}"
`;
  const manifest = (secrets: string) => {
    const { dir } = landingManifest('--env-secret', `variables:\n  CAPA_LOGLEVEL: "4"\n${secrets}${extra}`);
    const file = path.join(dir, 'management-cluster.yaml');
    const text = readFileSync(file, 'utf8').replace('  version: v0.3.0\n', '  version: v0.3.0\n  additionalManifests: {name: aws-extra}\n');
    writeFileSync(file, text);
    return dir;
  };
  process.env[VARIABLE] = B64;
  try {
    const options = { command: 'capi-gitops render', envSecrets: [VARIABLE], secretsStrategy: 'refuse' as const };
    const refused = await render({ manifestPaths: [manifest('')], ...options }, path.join(tempDir(), 'out')).then(
      () => assert.fail('rendered'),
      (err: CapiGitopsError) => err.diagnostics.map((d) => `${d.object}: ${d.path}: ${d.message}`),
    );
    // one value, one way out: told once, naming both places it lands
    assert.ok(
      refused.includes(
        "Secret/capa-system/capa-log-settings: stringData.level: would receive the secret value of CAPA_LOGLEVEL (CAPA_LOGLEVEL from Config.variables: a value in a Secret's data is secret wherever it is given)" +
          '; also Deployment/capa-system/capa-controller-manager at spec.template.spec.containers[0].args[2]',
      ),
      refused.join('\n'),
    );
    assert.equal(refused.filter((r) => r.includes('CAPA_LOGLEVEL')).length, 1, refused.join('\n'));
    // declared public, it is written in both places (the credential still goes through the strategy)
    const out = path.join(tempDir(), 'out');
    const secrets =
      'secrets:\n  public: [CAPA_LOGLEVEL]\n  strategy: external-secrets\n  externalSecrets:\n    secretStoreRef: {name: aws-store}\n';
    const written = await render({ manifestPaths: [manifest(secrets)], ...options, secretsStrategy: undefined, outputDir: out }, out);
    assert.match(written.files.get(`${COMPONENT}/secret-capa-log-settings.yaml`)!, /level: "4"/);
    assert.match(written.files.get(`${COMPONENT}/deployment-capa-controller-manager.yaml`)!, /--v=4/);
    assertNoSecret(SECRETS, { dirs: [out] });
  } finally {
    delete process.env[VARIABLE];
  }
});

test('render --list-variables masks a Config variable that lands in a Secret, and shows one declared public', async () => {
  const { dir } = landingManifest('--env-secret', `variables:\n  ${VARIABLE}: ${B64}\n  CAPA_LOGLEVEL: "4"\n`);
  const listed = await listVariables({ manifestPaths: [dir] });
  const aws = listed.find((p) => p.label === 'infrastructure-aws')!;
  const credentials = aws.variables.find((v) => v.name === VARIABLE)!;
  assert.equal(credentials.value?.fromSecret, true);
  assert.equal(aws.variables.find((v) => v.name === 'CAPA_LOGLEVEL')!.value?.fromSecret, false);
  const { dir: declared } = landingManifest('Config.variables', `secrets:\n  public: [${VARIABLE}]\n`);
  const shown = (await listVariables({ manifestPaths: [declared] })).find((p) => p.label === 'infrastructure-aws')!;
  assert.equal(shown.variables.find((v) => v.name === VARIABLE)!.value?.fromSecret, false);
});

test('a missing variable declared public that lands in a Secret: the hint offers Config.variables, as for any setting', async () => {
  const { dir } = landingManifest('--env-secret', `secrets:\n  public: [${VARIABLE}]\n`);
  const missing = await render({ manifestPaths: [dir], command: 'capi-gitops render' }, path.join(tempDir(), 'out')).then(
    () => assert.fail('rendered'),
    (err: CapiGitopsError) => err.diagnostics[0]!,
  );
  assert.match(missing.message, /value for variable \[AWS_B64ENCODED_CREDENTIALS\] is not set/);
  assert.doesNotMatch(missing.hint!, /so it is secret|never under `variables:`/);
  assert.match(missing.hint!, /^set it as data keys of the Secret named by the provider's spec\.configSecret, or under `variables:`/);
});

test('no hint points at Git for a value that lands in a Secret: the missing-variable hint and the missing-configSecret hint', async () => {
  // a ConfigMap added with additionalManifests takes a plain variable that has no value either
  const { dir } = landingManifest(
    '--env-secret',
    `secrets:\n  strategy: external-secrets\n  externalSecrets:\n    secretStoreRef: {name: aws-store}\n---
apiVersion: v1
kind: ConfigMap
metadata: {name: aws-extra, namespace: capa-system}
data:
  manifests: |
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: capa-cluster, namespace: capa-system}
    data:
      name: "\${CLUSTER_NAME}"
`,
  );
  const file = path.join(dir, 'management-cluster.yaml');
  writeFileSync(
    file,
    readFileSync(file, 'utf8').replace('  version: v0.3.0\n', '  version: v0.3.0\n  additionalManifests: {name: aws-extra}\n'),
  );
  const missing = await render({ manifestPaths: [dir], command: 'capi-gitops render' }, path.join(tempDir(), 'out')).then(
    () => assert.fail('rendered'),
    (err: CapiGitopsError) => err.diagnostics[0]!,
  );
  assert.match(missing.message, /value for variables \[AWS_B64ENCODED_CREDENTIALS, CLUSTER_NAME\] is not set/);
  const [secret, plain] = missing.hint!.split('; ');
  assert.match(
    secret!,
    /^AWS_B64ENCODED_CREDENTIALS lands in a Secret's data, so it is secret: pass it with --secret-file .* or --env-secret NAME/,
  );
  assert.match(secret!, /in a -f file kept outside Git/);
  assert.match(secret!, /never under `variables:`/);
  assert.match(plain!, /^set CLUSTER_NAME as data keys of the Secret named by the provider's spec\.configSecret, or under `variables:`/);

  const { dir: named } = landingManifest('configSecret');
  const secretFile = path.join(named, 'aws-variables.yaml');
  writeFileSync(secretFile, '# kept outside Git now\n');
  const noSecret = await render({ manifestPaths: [named], command: 'capi-gitops render' }, path.join(tempDir(), 'out')).then(
    () => assert.fail('rendered'),
    (err: CapiGitopsError) => err.diagnostics.find((d) => d.path === 'spec.configSecret')!,
  );
  assert.match(noSecret.message, /Secret capa-system\/aws-variables is not in the input/);
  assert.match(noSecret.hint!, /its own -f file kept outside Git \(outside the repository, or listed in \.gitignore\)/);
  assert.match(noSecret.hint!, /--secret-file or --env-secret/);
  assert.doesNotMatch(noSecret.hint!, /one of the -f files/);
});

test("a fleet rendered one cluster at a time keeps listing the other clusters' inline files in its README", async () => {
  const { dir } = landingManifest('a fleet overlay');
  const file = path.join(dir, 'management-cluster.yaml');
  writeFileSync(
    file,
    readFileSync(file, 'utf8').replace('clusters:\n', `clusters:\n- name: mgmt-2\n  variables:\n    ${VARIABLE}: ${B64}\n`),
  );
  const out = path.join(tempDir('capi-gitops-landing-'), 'out');
  const options = {
    manifestPaths: [dir],
    command: 'capi-gitops render',
    secretsStrategy: 'inline' as const,
    allowSecretValues: true,
    outputDir: out,
  };
  await render(options, out);
  const both = [path.join(out, 'clusters/mgmt-1', SECRET_FILE), path.join(out, 'clusters/mgmt-2', SECRET_FILE)];
  assert.deepEqual(inlineSecretFiles(out), both);
  await render({ ...options, clusters: ['mgmt-2'] }, out);
  assert.deepEqual(inlineSecretFiles(out), both);
});

test("--set: under inline, a chart value the wiring chart writes into a Secret is refused in the README's regenerate command, and --values from a file outside Git, as the hint says, renders", async () => {
  const { dir } = landingManifest('--env-secret', 'output: {layout: flux}\ngitops: {chart: ./chart, path: clusters/mgmt}\n');
  const chart = path.join(dir, 'chart');
  const builtIn = path.join(PROJECT_ROOT, 'charts', 'flux');
  cpSync(builtIn, chart, { recursive: true });
  rmSync(path.join(chart, 'values.schema.json')); // optional; this chart adds a value
  writeFileSync(path.join(chart, 'values.yaml'), `${readFileSync(path.join(builtIn, 'values.yaml'), 'utf8')}\ngitPassword: null\n`);
  writeFileSync(
    path.join(chart, 'templates', 'git-credentials.yaml'),
    'apiVersion: v1\nkind: Secret\nmetadata:\n  name: git-credentials\n  namespace: {{Release.namespace}}\nstringData:\n  password: {{quote Values.gitPassword}}\n',
  );
  const token = SUITE_SECRETS.landingSecretKey;
  process.env[VARIABLE] = B64;
  try {
    const base = { manifestPaths: [dir], envSecrets: [VARIABLE], secretsStrategy: 'inline' as const, allowSecretValues: true };
    const out = path.join(tempDir('capi-gitops-landing-'), 'out');
    // the command as the CLI records it in the README
    const command = `capi-gitops render -f ${dir} -o ${out} --secrets inline --allow-secret-values --env-secret ${VARIABLE}`;
    const set = [{ expression: `gitPassword=${token}`, forceString: true }];
    const refused = await render({ ...base, set, command: `${command} --set-string gitPassword=${token}`, outputDir: out }, out).then(
      () => assert.fail('rendered'),
      (err: CapiGitopsError) => err,
    );
    assert.match(refused.message, /README\.md: error: .*Secret\/flux-system\/git-credentials stringData\.password/);
    assert.match(refused.message, /--values <file kept outside Git>/);
    assert.ok(!refused.message.includes(token));
    assert.ok(!existsSync(out));
    const values = path.join(tempDir('capi-gitops-landing-values-'), 'values.yaml');
    writeFileSync(values, `gitPassword: ${token}\n`);
    await render({ ...base, valuesFiles: [values], command: `${command} --values ${values}`, outputDir: out }, out);
    assertNoSecret([token, ...SECRETS], { dirs: [out], allowedFiles: inlineSecretFiles(out) });
  } finally {
    delete process.env[VARIABLE];
  }
});

test('--set: a chart value the wiring chart writes into a Secret is refused, at the template line that writes its data, under every strategy but inline --allow-secret-values, which declares the file', async () => {
  const { dir } = landingManifest('--env-secret', 'output: {layout: flux}\ngitops: {chart: ./chart, path: clusters/mgmt}\n');
  const chart = path.join(dir, 'chart');
  const builtIn = path.join(PROJECT_ROOT, 'charts', 'flux');
  cpSync(builtIn, chart, { recursive: true });
  rmSync(path.join(chart, 'values.schema.json')); // optional; this chart adds a value
  writeFileSync(path.join(chart, 'values.yaml'), `${readFileSync(path.join(builtIn, 'values.yaml'), 'utf8')}\ngitPassword: null\n`);
  writeFileSync(
    path.join(chart, 'templates', 'git-credentials.yaml'),
    'apiVersion: v1\nkind: Secret\nmetadata:\n  name: git-credentials\n  namespace: {{Release.namespace}}\nstringData:\n  password: {{quote Values.gitPassword}}\n',
  );
  const token = SUITE_SECRETS.landingSecretKey;
  const set = [{ expression: `gitPassword=${token}`, forceString: true }];
  process.env[VARIABLE] = B64;
  try {
    const base = { manifestPaths: [dir], command: 'capi-gitops render', envSecrets: [VARIABLE], set };
    const refused = await render({ ...base, secretsStrategy: 'flux-substitute' }, path.join(tempDir(), 'out')).then(
      () => assert.fail('rendered'),
      (err: CapiGitopsError) => err,
    );
    // at the template (the output file was never written), naming the file it would have been
    assert.match(
      refused.message,
      /chart\/templates\/git-credentials\.yaml:6:1: error: Secret\/flux-system\/git-credentials: stringData: the wiring chart writes values into this Secret \(flux\/secret-git-credentials\.yaml\)/,
    );
    assert.ok(!refused.message.includes(token));
    const out = path.join(tempDir('capi-gitops-landing-'), 'out');
    const inline = await render({ ...base, secretsStrategy: 'inline', allowSecretValues: true, outputDir: out }, out);
    assert.ok(
      inline.warnings.some((w) => w.includes('flux/secret-git-credentials.yaml')),
      inline.warnings.join('\n'),
    );
    assert.ok(inlineSecretFiles(out).includes(path.join(out, 'flux', 'secret-git-credentials.yaml')));
    assertNoSecret([token, ...SECRETS], { dirs: [out], allowedFiles: inlineSecretFiles(out) });
  } finally {
    delete process.env[VARIABLE];
  }
});

test('a chart value the wiring chart writes into a Secret, written inline, is a secret of the run: masked under GitHub Actions and redacted from printed lines as any other (onSecretValues)', async () => {
  const { dir } = landingManifest('--env-secret', 'output: {layout: flux}\ngitops: {chart: ./chart, path: clusters/mgmt}\n');
  const chart = path.join(dir, 'chart');
  const builtIn = path.join(PROJECT_ROOT, 'charts', 'flux');
  cpSync(builtIn, chart, { recursive: true });
  rmSync(path.join(chart, 'values.schema.json'));
  writeFileSync(path.join(chart, 'values.yaml'), `${readFileSync(path.join(builtIn, 'values.yaml'), 'utf8')}\ngitPassword: null\n`);
  writeFileSync(
    path.join(chart, 'templates', 'git-credentials.yaml'),
    'apiVersion: v1\nkind: Secret\nmetadata:\n  name: git-credentials\n  namespace: {{Release.namespace}}\nstringData:\n  password: {{quote Values.gitPassword}}\n',
  );
  const token = SUITE_SECRETS.landingSecretKey;
  const values = path.join(tempDir('capi-gitops-landing-values-'), 'values.yaml');
  writeFileSync(values, `gitPassword: ${token}\n`);
  const known: string[] = [];
  process.env[VARIABLE] = B64;
  try {
    const out = path.join(tempDir('capi-gitops-landing-'), 'out');
    await render(
      {
        manifestPaths: [dir],
        command: `capi-gitops render --values ${values}`,
        envSecrets: [VARIABLE],
        valuesFiles: [values],
        secretsStrategy: 'inline',
        allowSecretValues: true,
        outputDir: out,
        onSecretValues: (needles) => known.push(...needles.needles.map(([form]) => form)),
      },
      out,
    );
    assert.ok(known.includes(B64));
    assert.ok(known.includes(token), 'the chart value drawn into a Secret is not among the secret values');
  } finally {
    delete process.env[VARIABLE];
  }
});

test("a Turtles CAPIProvider's spec.variables value that lands in a Secret: the hint names that field, not Config.variables", async () => {
  const dir = writeTempManifest({
    'management-cluster.yaml': `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec:
  version: v0.2.0
  fetchConfig: {url: ${JSON.stringify(CORE_URL)}}
---
apiVersion: turtles-capi.cattle.io/v1alpha1
kind: CAPIProvider
metadata: {name: aws, namespace: capa-system}
spec:
  type: infrastructure
  version: v0.3.0
  fetchConfig: {url: ${JSON.stringify(AWS_URL)}}
  variables:
    ${VARIABLE}: ${B64}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
secrets: {strategy: refuse}
`,
  });
  const out = path.join(tempDir('capi-gitops-landing-'), 'out');
  const err = await render({ manifestPaths: [dir], command: 'capi-gitops render', outputDir: out }, out).then(
    () => assert.fail('rendered'),
    (error: unknown) => error,
  );
  assert.ok(err instanceof CapiGitopsError, String(err));
  assertNoSecret(SECRETS, { texts: { error: err.message } });
  const field = err.diagnostics.find((d) => d.path === 'data.credentials')!;
  assert.ok(field, err.message);
  assert.match(field.message, /from CAPIProvider\/capa-system\/aws spec\.variables/);
  assert.match(field.hint!, /not CAPIProvider\/capa-system\/aws spec\.variables/);
  assert.doesNotMatch(field.hint!, /Config\.variables/);
});

test("an Argo CD repository Secret the wiring chart draws with url and password (argo-cd docs operator-manual/declarative-setup): the refusal's hint, followed literally, renders; url is no credential there", async () => {
  const { dir } = landingManifest(
    '--env-secret',
    `output: {layout: argocd}\ngitops: {chart: ./chart, path: clusters/mgmt}\n${secretsConfig('external-secrets')}`,
  );
  const chart = path.join(dir, 'chart');
  const builtIn = path.join(PROJECT_ROOT, 'charts', 'argocd');
  cpSync(builtIn, chart, { recursive: true });
  rmSync(path.join(chart, 'values.schema.json'));
  writeFileSync(path.join(chart, 'values.yaml'), `${readFileSync(path.join(builtIn, 'values.yaml'), 'utf8')}\nrepoPassword: null\n`);
  writeFileSync(
    path.join(chart, 'templates', 'repository.yaml'),
    'apiVersion: v1\nkind: Secret\nmetadata:\n  name: repo\n  namespace: {{Release.namespace}}\n  labels:\n    argocd.argoproj.io/secret-type: repository\n' +
      'stringData:\n  type: git\n  url: {{quote Values.repoURL}}\n  password: {{quote Values.repoPassword}}\n',
  );
  const token = SUITE_SECRETS.landingSecretKey;
  const values = path.join(tempDir('capi-gitops-landing-values-'), 'values.yaml');
  writeFileSync(values, `repoPassword: ${token}\n`);
  const repoURL = 'https://git.example.com/platform/management.git';
  process.env[VARIABLE] = B64;
  try {
    const base = {
      manifestPaths: [dir],
      command: `capi-gitops render --set repoURL=${repoURL} --values ${values}`,
      envSecrets: [VARIABLE],
      set: [{ expression: `repoURL=${repoURL}`, forceString: false }],
      valuesFiles: [values],
    };
    const refused = await render(base, path.join(tempDir(), 'out')).then(
      () => assert.fail('rendered'),
      (err: CapiGitopsError) => err,
    );
    const problem = refused.diagnostics.find((d) => d.object === 'Secret/argocd/repo');
    assert.ok(problem, refused.message);
    assert.equal(problem.path, 'stringData');
    assert.match(problem.hint!, /--secrets inline --allow-secret-values/);
    assert.doesNotMatch(problem.hint!, /--values/, 'no value is on the command line');
    // given with --set, the README's command would hold it: the hint says to give it with --values (as above)
    const onCommandLine = await render(
      {
        ...base,
        command: `capi-gitops render --set repoURL=${repoURL} --set repoPassword=${token}`,
        set: [...base.set, { expression: `repoPassword=${token}`, forceString: false }],
        valuesFiles: [],
      },
      path.join(tempDir(), 'out'),
    ).then(
      () => assert.fail('rendered'),
      (err: CapiGitopsError) => err,
    );
    const told = onCommandLine.diagnostics.find((d) => d.object === 'Secret/argocd/repo');
    assert.match(
      told?.hint ?? '',
      /--secrets inline --allow-secret-values to accept the values in Git, giving them with --values <file kept outside Git> rather than --set/,
    );
    assert.ok(!onCommandLine.message.includes(token));
    const out = path.join(tempDir('capi-gitops-landing-'), 'out');
    await render({ ...base, secretsStrategy: 'inline', allowSecretValues: true, outputDir: out }, out);
    assert.match(readFileSync(path.join(out, 'argocd', 'application-capi-gitops.yaml'), 'utf8'), /repoURL: https:\/\/git\.example\.com/);
    assertNoSecret([token, ...SECRETS], { dirs: [out], allowedFiles: inlineSecretFiles(out) });
  } finally {
    delete process.env[VARIABLE];
  }
});
