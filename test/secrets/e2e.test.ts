/**
 * No secret byte leaves the process except where a strategy puts it: every command a user runs
 * (render, lock, plan, update, check, diff in every format, GitHub annotations and the step
 * summary, failures with --json), on a real file tree with the real CLI, and then everything it
 * left behind (output directories, lockfiles, the cache directory, stdout, stderr) is scanned
 * for each secret, raw and encoded (base64 at every alignment, base64 of base64).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { FIXTURES, PROJECT_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { assertNoSecret, inlineSecretFiles, SUITE_SECRETS } from '../helpers/secret-scan.js';

const CORE = pathToFileURL(path.join(PROJECT_ROOT, 'examples', 'repository', 'cluster-api', 'latest', 'core-components.yaml')).href;
const OLD = { token: SUITE_SECRETS.oldToken, b64: Buffer.from(SUITE_SECRETS.oldCredentials).toString('base64') };
const NEW = { token: SUITE_SECRETS.newToken, b64: Buffer.from(SUITE_SECRETS.newCredentials).toString('base64') };
const ALL_SECRETS = [OLD.token, OLD.b64, NEW.token, NEW.b64, SUITE_SECRETS.oldSecretKey, SUITE_SECRETS.newSecretKey];

/** A provider of our own whose manager takes a token as a flag, beside a CAPA-style Secret. */
const TOKEN_COMPONENTS = `apiVersion: v1
kind: Namespace
metadata:
  name: capvault-system
---
apiVersion: v1
kind: Secret
metadata:
  name: capvault-manager-bootstrap-credentials
  namespace: capvault-system
type: Opaque
data:
  credentials: \${VAULT_B64ENCODED_CREDENTIALS}
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
        - --feature-gates=MachinePool=\${EXP_MACHINE_POOL:=false}
        - --api-token=\${VAULT_API_TOKEN}
`;

function git(cwd: string, args: string[]): void {
  const r = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
}

interface Workspace {
  root: string;
  mc: string;
  secretFile: string;
  cache: string;
  summary: string;
}

/**
 * A Git repository with a manifest whose configSecret holds the API token (and a public flag),
 * the credentials in a --secret-file outside it, and a private cache directory.
 */
function workspace(components: string, values = OLD): Workspace {
  const root = tempDir('capi-gitops-secrets-e2e-');
  const repo = path.join(root, 'repository', 'infrastructure-vault', 'v0.1.0');
  mkdirSync(repo, { recursive: true });
  writeFileSync(path.join(repo, 'infrastructure-components.yaml'), components);
  cpSync(path.join(FIXTURES, 'secrets', 'infrastructure-vault', 'v0.1.0', 'metadata.yaml'), path.join(repo, 'metadata.yaml'));
  const mc = path.join(root, 'git', 'mc');
  mkdirSync(mc, { recursive: true });
  writeFileSync(
    path.join(mc, 'providers.yaml'),
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
  namespace: capi-system
spec:
  version: v0.2.0
  fetchConfig:
    url: ${CORE}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata:
  name: vault
  namespace: capvault-system
spec:
  version: v0.1.0
  configSecret:
    name: vault-variables
  fetchConfig:
    url: ${pathToFileURL(path.join(repo, 'infrastructure-components.yaml')).href}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager:
  enabled: false
secrets:
  public: [EXP_MACHINE_POOL]
`,
  );
  writeSecret(mc, values.token);
  const secretFile = path.join(root, 'secrets.env');
  writeFileSync(secretFile, `VAULT_B64ENCODED_CREDENTIALS=${values.b64}\n`);
  git(path.join(root, 'git'), ['init', '-q', '-b', 'main']);
  git(path.join(root, 'git'), ['add', '-A']);
  git(path.join(root, 'git'), ['commit', '-q', '-m', 'manifest']);
  return { root, mc, secretFile, cache: path.join(root, 'cache'), summary: path.join(root, 'step-summary.md') };
}

function writeSecret(mc: string, token: string): void {
  writeFileSync(
    path.join(mc, 'secret.yaml'),
    `apiVersion: v1\nkind: Secret\nmetadata:\n  name: vault-variables\n  namespace: capvault-system\nstringData:\n  VAULT_API_TOKEN: ${JSON.stringify(token)}\n  EXP_MACHINE_POOL: "true"\n`,
  );
}

/** Runs the CLI as a GitHub Actions job would, keeping every result for the final scan. */
function runner(ws: Workspace, results: Record<string, CliResult>) {
  return async (name: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<CliResult> => {
    const env = { ...process.env, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: ws.summary, NO_COLOR: '1', ...extraEnv };
    const result = await runCli([...args, '--cache-dir', ws.cache], { cwd: ws.root, env });
    results[name] = result;
    return result;
  };
}

/** stderr without the `::add-mask::` commands, which carry each secret to the runner by design. */
function withoutMasks(text: string): string {
  return text
    .split('\n')
    .filter((l) => !l.startsWith('::add-mask::'))
    .join('\n');
}

function scanEverything(ws: Workspace, results: Record<string, CliResult>, outputs: string[], allowed: string[] = []): void {
  const texts: Record<string, string> = {};
  for (const [name, r] of Object.entries(results)) {
    texts[`${name} stdout`] = r.stdout;
    texts[`${name} stderr`] = withoutMasks(r.stderr);
  }
  assertNoSecret(ALL_SECRETS, {
    dirs: [...outputs, ws.cache],
    files: [path.join(ws.mc, 'capi-gitops.lock.yaml'), ws.summary],
    texts,
    allowedFiles: allowed,
  });
}

test('inline, rotated: check and diff (text, markdown, json, annotations, step summary, --base) show that the secret changed, never a value; nothing else holds one', async () => {
  const ws = workspace(TOKEN_COMPONENTS);
  const results: Record<string, CliResult> = {};
  const cli = runner(ws, results);
  const out = path.join(ws.root, 'git', 'out');
  const secretFlags = ['--secret-file', ws.secretFile];
  const inline = [...secretFlags, '--secrets', 'inline', '--allow-secret-values'];

  // refused by default, in both forms of the report
  const refused = await cli('render refused', ['render', '-f', ws.mc, '-o', out, ...secretFlags]);
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /args\[1\]: would receive the secret value of VAULT_API_TOKEN/);
  const refusedJson = await cli('render refused --json', ['render', '-f', ws.mc, '-o', out, ...secretFlags, '--json']);
  assert.equal(refusedJson.code, 1);
  assert.equal(JSON.parse(refusedJson.stdout).ok, false);
  const checkRefused = await cli('check refused', ['check', '-f', ws.mc, '-o', out, ...secretFlags]);
  assert.equal(checkRefused.code, 1);
  assert.match(checkRefused.stderr, /^::error /m, 'the failure is annotated');

  const written = await cli('render inline', ['render', '-f', ws.mc, '-o', out, ...inline, '--json']);
  assert.equal(written.code, 0, written.stderr);
  assert.ok(
    written.stderr.startsWith('::add-mask::') && written.stderr.includes(`::add-mask::${OLD.token}`),
    'masked before anything else',
  );
  assert.equal(JSON.parse(written.stdout).ok, true, 'stdout stays one JSON document');
  const allowed = inlineSecretFiles(out);
  assert.deepEqual(allowed.map((f) => path.relative(out, f)).sort(), [
    '04-infrastructure-vault/deployment-capvault-controller-manager.yaml',
    '04-infrastructure-vault/secret-capvault-manager-bootstrap-credentials.yaml',
  ]);
  await cli('render --list-variables', ['render', '-f', ws.mc, '--list-variables', ...secretFlags]);
  await cli('render --list-variables --json', ['render', '-f', ws.mc, '--list-variables', ...secretFlags, '--json']);
  await cli('lock', ['lock', '-f', ws.mc]);
  await cli('lock --json', ['lock', '-f', ws.mc, '--json']);
  await cli('plan', ['plan', '-f', ws.mc]);
  await cli('plan --json', ['plan', '-f', ws.mc, '--json']);
  await cli('update', ['update', '-f', ws.mc]);
  await cli('update --json', ['update', '-f', ws.mc, '--json']);
  const upToDate = await cli('check', ['check', '-f', ws.mc, '-o', out, ...inline]);
  assert.equal(upToDate.code, 0, upToDate.stderr);

  // rotate both: the token in the configSecret (committed) and the credentials in the secret file
  writeSecret(ws.mc, NEW.token);
  writeFileSync(ws.secretFile, `VAULT_B64ENCODED_CREDENTIALS=${NEW.b64}\n`);
  const drift = await cli('check rotated', ['check', '-f', ws.mc, '-o', out, ...inline]);
  assert.equal(drift.code, 1);
  assert.match(drift.stdout, /secret-capvault-manager-bootstrap-credentials\.yaml: differs/);
  await cli('check rotated --json', ['check', '-f', ws.mc, '-o', out, ...inline, '--json']);
  for (const format of ['text', 'markdown']) {
    const diff = await cli(`diff ${format}`, ['diff', '-f', ws.mc, '-o', out, ...inline, '--format', format]);
    assert.equal(diff.code, 0, diff.stderr);
    assert.match(
      diff.stdout,
      /flags --api-token changed \(values hidden: 04-infrastructure-vault\/deployment-capvault-controller-manager\.yaml holds secret values\)/,
      `${format}: the flag changed, both values hidden`,
    );
    assert.match(diff.stdout, /data\.credentials/, `${format}: the Secret's key changed`);
  }
  const json = await cli('diff json', ['diff', '-f', ws.mc, '-o', out, ...inline, '--format', 'json']);
  const report = JSON.parse(json.stdout);
  const secret = report.components
    .flatMap((c: { kinds: { kind: string; objects: { name: string; paths: string[] }[] }[] }) => c.kinds)
    .find((k: { kind: string }) => k.kind === 'Secret').objects[0];
  assert.deepEqual(secret.paths, ['data.credentials']);
  const flags = report.findings.find((f: { type: string }) => f.type === 'flags');
  assert.equal(flags.changed.length, 1);
  assert.equal(flags.changed[0].flag, '--api-token');
  assert.deepEqual(flags.changed[0], { flag: '--api-token', from: '(hidden)', to: '(hidden)' });
  // --base HEAD renders the committed manifest (the old token) beside the current one
  const base = await cli('diff --base', ['diff', '-f', ws.mc, '-o', out, ...inline, '--base', 'HEAD', '--format', 'markdown']);
  assert.equal(base.code, 0, base.stderr);
  assert.match(base.stdout, /--api-token/);
  assert.ok(readFileSync(ws.summary, 'utf8').includes('api-token'), 'the step summary was written');

  scanEverything(ws, results, [out], allowed);
  // the secrets are in the declared files, where inline was asked to put them
  assert.ok(readFileSync(allowed[1]!, 'utf8').includes(OLD.b64));
});

test(
  'sops and external-secrets: the output, the lockfile, the cache and every message hold no secret, encoded or not',
  { skip: spawnSync('age-keygen', ['--version']).status === 0 ? false : 'age-keygen is not installed' },
  async () => {
    const components = readFileSync(
      path.join(FIXTURES, 'secrets', 'infrastructure-vault', 'v0.1.0', 'infrastructure-components.yaml'),
      'utf8',
    );
    const ws = workspace(components);
    const results: Record<string, CliResult> = {};
    const cli = runner(ws, results);
    const key = path.join(ws.root, 'age.key');
    assert.equal(spawnSync('age-keygen', ['-o', key]).status, 0);
    const recipient = spawnSync('age-keygen', ['-y', key], { encoding: 'utf8' }).stdout.trim();
    const config = readFileSync(path.join(ws.mc, 'providers.yaml'), 'utf8');
    const secretFlags = ['--secret-file', ws.secretFile];
    const outputs: string[] = [];
    for (const [strategy, settings] of [
      ['sops', `  sops:\n    ageRecipients: [${recipient}]\n`],
      ['external-secrets', '  externalSecrets:\n    secretStoreRef:\n      name: vault\n'],
    ] as const) {
      writeFileSync(path.join(ws.mc, 'providers.yaml'), `${config}  strategy: ${strategy}\n${settings}`);
      const out = path.join(ws.root, `out-${strategy}`);
      outputs.push(out);
      const rendered = await cli(`render ${strategy}`, ['render', '-f', ws.mc, '-o', out, ...secretFlags, '--verbose']);
      assert.equal(rendered.code, 0, rendered.stderr);
      assert.deepEqual(inlineSecretFiles(out), [], 'no file declares a secret');
      const check = await cli(
        `check ${strategy}`,
        ['check', '-f', ws.mc, '-o', out, ...secretFlags, '--json'],
        strategy === 'sops' ? { SOPS_AGE_KEY_FILE: key } : {},
      );
      assert.equal(check.code, 0, check.stderr);
      await cli(`diff ${strategy}`, ['diff', '-f', ws.mc, '-o', out, ...secretFlags, '--format', 'json']);
    }
    const sopsFile = readFileSync(
      path.join(ws.root, 'out-sops', '04-infrastructure-vault', 'secret-capvault-manager-bootstrap-credentials.yaml'),
      'utf8',
    );
    assert.match(sopsFile, /credentials: ENC\[AES256_GCM,/);
    assert.ok(readdirSync(path.join(ws.cache, 'parsed')).length > 0, 'the parsed cache was used');
    scanEverything(ws, results, outputs);
  },
);
