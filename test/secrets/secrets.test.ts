/**
 * Secrets never reach Git: taint tracking, the strategies and the final gate, on a small
 * CAPA-style provider of our own (test/fixtures/secrets) whose components substitute a
 * credential into a Secret beside a feature flag from the same configSecret.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { createDecipheriv, createHash } from 'node:crypto';
import { renderManagementCluster, type RenderOptions } from '../../src/app/cluster.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { substituteVariables } from '../../src/render/variables.js';
import { taintMarker } from '../../src/secrets/taint.js';
import { isScannableSecret, secretForms } from '../../src/secrets/gate.js';
import { sopsUserKeyFile } from '../../src/secrets/sops.js';
import { CORPUS_REPOSITORY, FIXTURES, PROJECT_ROOT } from '../helpers/paths.js';
import { corpusReleases, FakeGitHub } from '../helpers/fake-github.js';
import { corpusManifest, tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { crdValidator, wiringProblems } from '../helpers/crd-schema.js';
import { assertNoSecret, SUITE_SECRETS } from '../helpers/secret-scan.js';
import { runCli } from '../helpers/cli.js';
import { VAULT_B64, VAULT_CREDENTIALS, vaultManifest } from '../helpers/vault-manifest.js';

const CREDENTIALS = VAULT_CREDENTIALS;
const B64 = VAULT_B64;
const SECRETS = [B64, SUITE_SECRETS.vaultSecretKey];
const INFRA_DIR = '04-infrastructure-vault';
const SECRET_FILE = `${INFRA_DIR}/secret-capvault-manager-bootstrap-credentials.yaml`;
const ESO_CRD = path.join(FIXTURES, 'external-secrets', 'external-secrets.io_externalsecrets.yaml');

interface Setup {
  secrets?: string;
  /** Extra spec of the vault provider. */
  spec?: string;
  extraDocs?: string;
  /** Secret data; default: credentials and the flag. */
  data?: Record<string, string>;
  output?: string;
}

function manifest(setup: Setup = {}): string {
  const config = `${setup.output ?? ''}${setup.secrets ? `secrets:\n${setup.secrets}` : ''}`;
  return vaultManifest({ config, spec: setup.spec, extraDocs: setup.extraDocs, data: setup.data });
}

async function render(setup: Setup, options: Partial<RenderOptions> = {}) {
  return renderManagementCluster({ manifestPaths: [manifest(setup)], command: 'capi-gitops render', ...options });
}

async function renderFails(setup: Setup, options: Partial<RenderOptions> = {}): Promise<CapiGitopsError> {
  try {
    await render(setup, options);
  } catch (err) {
    if (err instanceof CapiGitopsError) {
      assertNoSecret(SECRETS, { texts: { error: err.message } });
      return err;
    }
    throw err;
  }
  assert.fail('the render succeeded');
}

const PUBLIC_FLAG = '  public: [EXP_MACHINE_POOL]\n';

function filesText(files: Map<string, string>): Record<string, string> {
  return Object.fromEntries(files);
}

test('taint follows string functions; ${#V} is not secret (drone/envsubst funcs.go)', () => {
  const lookup = (name: string) =>
    name === 'S'
      ? { value: 'SuperSecret', origin: 'Secret a/b', fromSecret: true }
      : name === 'P'
        ? { value: 'plain', origin: 'Config.variables', fromSecret: false }
        : undefined;
  const marker = taintMarker('');
  const text = 'a: ${S:0:4}\nb: ${S^^}\nc: ${#S}\nd: ${P}\ne: x-${S/Secret/}-y\nf: ${MISSING:=${S}}\n';
  const out = substituteVariables(text, lookup, 'f.yaml', marker.marker).text;
  assert.equal(out, 'a: CapiGitopsTaint0x\nb: CapiGitopsTaint1x\nc: 11\nd: plain\ne: x-CapiGitopsTaint2x-y\nf: CapiGitopsTaint3x\n');
  assert.deepEqual(
    marker.marks.map((m) => [m.reference, m.result, m.variables]),
    [
      ['${S:0:4}', 'Supe', ['S']],
      ['${S^^}', 'SUPERSECRET', ['S']],
      ['${S/Secret/}', 'Super', ['S']],
      ['${MISSING:=${S}}', 'SuperSecret', ['S']],
    ],
  );
  // without a marker the text is what clusterctl writes
  assert.equal(substituteVariables(text, lookup).text, 'a: Supe\nb: SUPERSECRET\nc: 11\nd: plain\ne: x-Super-y\nf: SuperSecret\n');
});

test('refuse (the default) names each object, field and variable, and no value', async () => {
  const err = await renderFails({});
  const text = err.message;
  assert.match(
    text,
    /Secret\/capvault-system\/capvault-manager-bootstrap-credentials: data\.credentials: would receive the secret value of VAULT_B64ENCODED_CREDENTIALS/,
  );
  assert.match(
    text,
    /Secret\/capvault-system\/capvault-manager-bootstrap-credentials: stringData\.machine-pool: would receive the secret value of EXP_MACHINE_POOL/,
  );
  assert.match(
    text,
    /Deployment\/capvault-system\/capvault-controller-manager: spec\.template\.spec\.containers\[0\]\.args\[0\]: .*EXP_MACHINE_POOL/,
  );
  assert.match(text, /Config\.secrets\.public/);
  assert.match(text, /--secrets external-secrets/);
  // the flag declared public is no longer refused; the credential still is
  const publicFlag = (await renderFails({ secrets: PUBLIC_FLAG })).message;
  assert.match(publicFlag, /data\.credentials/);
  assert.ok(!publicFlag.includes('EXP_MACHINE_POOL'), publicFlag);
});

test("a refused value is located where it was given (the Secret key); outside a Secret's data the hint offers only what works there", async () => {
  const err = await renderFails({});
  const file = err.diagnostics.find((d) => d.file)!.file!;
  const lines = readFileSync(file, 'utf8').split('\n');
  const arg = err.diagnostics.find((d) => d.object?.startsWith('Deployment/') && d.message.includes('EXP_MACHINE_POOL'))!;
  assert.equal(lines[arg.line! - 1]!.trim(), 'EXP_MACHINE_POOL: "true"');
  assert.equal(arg.column, 3);
  assert.match(arg.hint!, /secrets: \{public: \[EXP_MACHINE_POOL\]\}/);
  assert.match(arg.hint!, /--secrets inline --allow-secret-values/);
  assert.doesNotMatch(arg.hint!, /external-secrets|sops/);
  const data = err.diagnostics.find((d) => d.path === 'data.credentials')!;
  assert.match(lines[data.line! - 1]!, /^ {2}VAULT_B64ENCODED_CREDENTIALS: /);
  assert.match(data.hint!, /--secrets external-secrets \(with Config secrets\.externalSecrets\.secretStoreRef\)/);
  assert.match(data.hint!, /--secrets sops \(with Config secrets\.sops\.ageRecipients\)/);
});

test('external-secrets without a store is an error at the Config secrets field', async () => {
  const err = await renderFails({ secrets: '  strategy: external-secrets\n' });
  const problem = err.diagnostics.find((d) => d.path === 'externalSecrets.secretStoreRef')!;
  const lines = readFileSync(problem.file!, 'utf8').split('\n');
  assert.equal(lines[problem.line! - 1], 'secrets:');
});

test('a refused value given with --secret-file is located at its key line there: dotenv, YAML map and Secret manifest', async () => {
  const dir = tempDir('capi-gitops-secret-files-');
  const files = {
    'values.env': '# CI values\nexport OTHER=1\nEXP_MACHINE_POOL=true\n',
    'values.yaml': 'OTHER: "1"\nEXP_MACHINE_POOL: "true"\n',
    'secret.yaml': 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: flags\nstringData:\n  OTHER: "1"\n  EXP_MACHINE_POOL: "true"\n',
  };
  const expected = { 'values.env': [3, 1], 'values.yaml': [2, 1], 'secret.yaml': [7, 3] } as const;
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    const err = await renderFails({}, { secretFiles: [file] });
    const arg = err.diagnostics.find((d) => d.object?.startsWith('Deployment/') && d.message.includes('EXP_MACHINE_POOL'));
    assert.ok(arg, err.message);
    assert.deepEqual([arg.file, arg.line, arg.column], [file, ...expected[name as keyof typeof expected]], name);
  }
});

test('the README manifest renders as written: its Secret holds a feature flag declared public (GitHub releases served on 127.0.0.1)', async () => {
  const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
  const block = /## The manifest[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readme)![1]!;
  const docs = YAML.parseAllDocuments(block).map((d) => d.toJS());
  assert.deepEqual(docs.find((d) => d.kind === 'Secret').stringData, { EXP_MACHINE_POOL: 'true' });
  const certManager = docs.find((d) => d.kind === 'Config').certManager.version;
  // the corpus's cluster-api releases; cert-manager v1.13.0's manifest stands in for the README's version
  const github = await FakeGitHub.start({
    'kubernetes-sigs/cluster-api': corpusReleases(['cluster-api']),
    'cert-manager/cert-manager': [
      {
        tag: certManager,
        assets: { 'cert-manager.yaml': readFileSync(path.join(CORPUS_REPOSITORY, 'cert-manager', 'v1.13.0', 'cert-manager.yaml')) },
      },
    ],
  });
  try {
    const dir = writeTempManifest({ 'management-cluster.yaml': block });
    const result = await renderManagementCluster({ manifestPaths: [dir], sources: { github: { apiUrl: github.apiUrl } } });
    const manager = [...result.files].find(([f]) => f.startsWith('01-cluster-api/deployment-'))![1];
    assert.match(manager, /MachinePool=true/);
    assert.match(manager, /ClusterTopology=true/);
    // undeclared, the same flag is a secret: refused, naming the field and the way out
    await assert.rejects(
      renderManagementCluster({
        manifestPaths: [writeTempManifest({ 'management-cluster.yaml': block.replace(/\nsecrets:\n.*\n/, '\n') })],
        sources: { github: { apiUrl: github.apiUrl } },
      }),
      (err: Error) => {
        assert.match(err.message, /args\[\d+\]: would receive the secret value of EXP_MACHINE_POOL/);
        assert.match(err.message, /Config\.secrets\.public/);
        return true;
      },
    );
  } finally {
    await github.close();
  }
});

test('external-secrets: the Secret becomes an ExternalSecret that validates against the real CRD (external-secrets config/crds/bases/external-secrets.io_externalsecrets.yaml)', async () => {
  const result = await render({
    secrets: `${PUBLIC_FLAG}  strategy: external-secrets\n  externalSecrets:\n    secretStoreRef:\n      name: vault-store\n`,
  });
  assert.ok(!result.files.has(SECRET_FILE), 'the Secret is still written');
  const file = `${INFRA_DIR}/externalsecret-capvault-manager-bootstrap-credentials.yaml`;
  const external = YAML.parse(result.files.get(file)!);
  const validate = crdValidator(ESO_CRD, 'v1');
  assert.ok(validate(external as object), JSON.stringify(validate.errors));
  assert.equal(external.metadata.namespace, 'capvault-system');
  assert.deepEqual(external.spec.secretStoreRef, { kind: 'ClusterSecretStore', name: 'vault-store' });
  assert.deepEqual(external.spec.data, [
    {
      secretKey: 'VAULT_B64ENCODED_CREDENTIALS',
      remoteRef: { key: 'capvault-system/capvault-manager-bootstrap-credentials', property: 'VAULT_B64ENCODED_CREDENTIALS' },
    },
  ]);
  assert.equal(external.spec.target.template.type, 'Opaque');
  assert.equal(external.spec.target.template.metadata.labels.app, 'capvault');
  assert.deepEqual(external.spec.target.template.data, {
    credentials: '{{ .VAULT_B64ENCODED_CREDENTIALS | b64dec }}',
    endpoint: 'https://vault.example.com',
    'machine-pool': 'true',
  });
  assert.ok(result.files.get(`${INFRA_DIR}/kustomization.yaml`)!.includes('externalsecret-capvault-manager-bootstrap-credentials.yaml'));
  assertNoSecret(SECRETS, { texts: filesText(result.files) });
  // a secret outside a Secret cannot be fetched by the operator: refused with the way out
  const err = await renderFails({
    secrets: `  strategy: external-secrets\n  externalSecrets:\n    secretStoreRef:\n      name: vault-store\n`,
  });
  assert.match(
    err.message,
    /Deployment\/capvault-system\/capvault-controller-manager: spec\.template\.spec\.containers\[0\]\.args\[0\]: receives the secret EXP_MACHINE_POOL/,
  );
  assert.match(err.message, /move the value into a Secret/);
});

test('flux-substitute leaves exactly the tainted references, escapes every other ${, and wires postBuild.substituteFrom', async () => {
  const secrets = `${PUBLIC_FLAG}  strategy: flux-substitute\n`;
  const set = [{ expression: 'path=clusters/mgmt', forceString: false }];
  const result = await render({ secrets }, { layout: 'flux', set });
  const inline = await render({ secrets: PUBLIC_FLAG }, { layout: 'flux', set, secretsStrategy: 'inline', allowSecretValues: true });
  const secret = result.files.get(SECRET_FILE)!;
  assert.match(secret, /credentials: \$\{VAULT_B64ENCODED_CREDENTIALS\}/);
  assert.match(secret, /machine-pool: "true"|machine-pool: 'true'/);
  const deployment = result.files.get(`${INFRA_DIR}/deployment-capvault-controller-manager.yaml`)!;
  assert.ok(deployment.includes('$${NOT_A_VARIABLE}'), deployment);
  // Flux's envsubst (drone's grammar) with the in-cluster Secret gives exactly the inline output
  const lookup = (name: string) =>
    name === 'VAULT_B64ENCODED_CREDENTIALS' ? { value: B64, origin: 'flux', fromSecret: false } : undefined;
  for (const file of [SECRET_FILE, `${INFRA_DIR}/deployment-capvault-controller-manager.yaml`]) {
    const substituted = YAML.parse(substituteVariables(result.files.get(file)!, lookup).text);
    assert.equal(substituted.metadata.labels['kustomize.toolkit.fluxcd.io/substitute'], 'enabled', 'Flux must not skip the object');
    delete substituted.metadata.labels['kustomize.toolkit.fluxcd.io/substitute'];
    const written = YAML.parse(inline.files.get(file)!);
    delete written.metadata.labels['kustomize.toolkit.fluxcd.io/substitute'];
    assert.deepEqual(substituted, written, file);
  }
  const kustomization = YAML.parse(result.files.get('flux/kustomization-capi-gitops-04-infrastructure-vault.yaml')!);
  assert.deepEqual(kustomization.spec.postBuild, { substituteFrom: [{ kind: 'Secret', name: 'capi-gitops-variables' }] });
  assert.deepEqual(wiringProblems(kustomization), []);
  const core = YAML.parse(result.files.get('flux/kustomization-capi-gitops-01-cluster-api.yaml')!);
  assert.equal(core.spec.postBuild, undefined, 'a component without secrets is not substituted');
  assert.ok(result.warnings.some((w) => w.includes('VAULT_B64ENCODED_CREDENTIALS') && w.includes('capi-gitops-variables')));
  assertNoSecret(SECRETS, { texts: filesText(result.files) });
  const elsewhere = await renderFails({ secrets });
  assert.match(elsewhere.message, /flux-substitute strategy needs the flux layout/);
});

test(
  "flux-substitute: the warning gives the kubectl command that creates the Secret the Kustomizations' postBuild.substituteFrom name, " +
    'in their namespace, a key per variable and no value (fluxcd/pkg kustomize/kustomize_varsub.go loadVars; ' +
    'fluxcd/kustomize-controller docs/spec/v1/kustomizations.md Post build variable substitution)',
  async () => {
    const secrets = `${PUBLIC_FLAG}  strategy: flux-substitute\n  fluxSubstitute: {secretName: vault-variables}\n`;
    const set = [
      { expression: 'path=clusters/mgmt', forceString: false },
      { expression: 'namespace=capi-flux', forceString: false },
    ];
    const result = await render({ secrets }, { layout: 'flux', set });
    const kustomization = YAML.parse(result.files.get('flux/kustomization-capi-gitops-04-infrastructure-vault.yaml')!);
    // kustomize-controller reads each substituteFrom Secret in the Kustomization's own namespace
    const [reference] = kustomization.spec.postBuild.substituteFrom;
    const command =
      `kubectl create secret generic ${reference.name} --namespace ${kustomization.metadata.namespace} ` +
      '--from-literal=VAULT_B64ENCODED_CREDENTIALS="$VAULT_B64ENCODED_CREDENTIALS"';
    assert.deepEqual([reference.name, kustomization.metadata.namespace], ['vault-variables', 'capi-flux']);
    const warning = result.warnings.find((w) => w.startsWith('--secrets flux-substitute:'));
    assert.ok(warning?.endsWith(`: ${command}`), warning);
    assert.match(warning!, /postBuild\.substituteFrom in flux\/kustomization-capi-gitops-04-infrastructure-vault\.yaml/);
    // run as printed, with the variable in the environment: the key Flux substitutes holds its value
    const args = spawnSync('sh', ['-c', `kubectl() { printf '%s\\n' "$@"; }; ${command}`], {
      env: { PATH: process.env.PATH, VAULT_B64ENCODED_CREDENTIALS: B64 },
      encoding: 'utf8',
    }).stdout;
    assert.deepEqual(args.trimEnd().split('\n').slice(-1), [`--from-literal=VAULT_B64ENCODED_CREDENTIALS=${B64}`]);
    assert.match(result.files.get(SECRET_FILE)!, /credentials: \$\{VAULT_B64ENCODED_CREDENTIALS\}/);
    assertNoSecret(SECRETS, { texts: { warnings: result.warnings.join('\n') } });
  },
);

function ageKey(): { identityFile: string; recipient: string } {
  const dir = tempDir('capi-gitops-age-');
  const identityFile = path.join(dir, 'key.txt');
  const made = spawnSync('age-keygen', ['-o', identityFile], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  const recipient = spawnSync('age-keygen', ['-y', identityFile], { encoding: 'utf8' }).stdout.trim();
  return { identityFile, recipient };
}

function gcmOpen(enc: string, key: Buffer, aad: string): string {
  const [, data, iv, tag] = /^ENC\[AES256_GCM,data:([^,]*),iv:([^,]*),tag:([^,]*),type:\w+\]$/.exec(enc)!;
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv!, 'base64'));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(Buffer.from(tag!, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(data!, 'base64')), decipher.final()]).toString('utf8');
}

/**
 * sops's decryption of a document (getsops/sops sops.go Tree.Decrypt, aes/cipher.go Decrypt):
 * every ENC[] leaf opens with the data key, with its mapping keys joined by ':' and a trailing
 * ':' as additional data (sequence items keep their parent's path); `type:` restores the scalar.
 */
function sopsDecrypt(doc: Record<string, unknown>, dataKey: Buffer): Record<string, unknown> {
  const open = (value: unknown, keys: string[]): unknown => {
    if (Array.isArray(value)) return value.map((item) => open(item, keys));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, open(item, [...keys, key])]));
    }
    if (typeof value !== 'string' || !value.startsWith('ENC[')) return value;
    const text = gcmOpen(value, dataKey, keys.join(':') + ':');
    const type = /,type:(\w+)\]$/.exec(value)![1];
    if (type === 'int' || type === 'float') return Number(text);
    if (type === 'bool') return text === 'True';
    return text;
  };
  const { sops: _metadata, ...tree } = doc;
  return open(tree, []) as Record<string, unknown>;
}

const AGE_MISSING =
  spawnSync('age', ['--version']).status === 0 ? false : 'the age binary is not installed (.ci/install-test-deps.sh installs it)';

test(
  'sops: age -d opens the data key, the Secret decrypts as sops decrypts to what inline writes, and the MAC holds (getsops/sops sops.go, aes/cipher.go)',
  { skip: AGE_MISSING },
  async () => {
    const { identityFile, recipient } = ageKey();
    const result = await render({ secrets: `${PUBLIC_FLAG}  strategy: sops\n  sops:\n    ageRecipients: [${recipient}]\n` });
    const inline = await render({ secrets: PUBLIC_FLAG }, { secretsStrategy: 'inline', allowSecretValues: true });
    const encrypted = result.files.get(SECRET_FILE)!;
    assertNoSecret(SECRETS, { texts: filesText(result.files) });
    // the real age binary opens the data key; with it every value decrypts to what inline writes
    const doc = YAML.parse(encrypted);
    const encFile = path.join(path.dirname(identityFile), 'data-key.age');
    writeFileSync(encFile, doc.sops.age[0].enc);
    const opened = spawnSync('age', ['-d', '-i', identityFile, encFile]);
    assert.equal(opened.status, 0, opened.stderr?.toString());
    assert.equal(opened.stdout.length, 32);
    const decrypted = sopsDecrypt(doc, opened.stdout as Buffer);
    assert.deepEqual(decrypted, YAML.parse(inline.files.get(SECRET_FILE)!));
    assert.match(encrypted, /ENC\[AES256_GCM,data:/, 'the values are encrypted');
    // MAC: SHA-512 over every value in file order, encrypted with lastmodified as additional data
    const dataKey = opened.stdout as Buffer;
    const hash = createHash('sha512');
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') Object.values(v).forEach(walk);
      else hash.update(typeof v === 'boolean' ? (v ? 'True' : 'False') : String(v ?? ''));
    };
    walk(decrypted);
    assert.equal(gcmOpen(doc.sops.mac, dataKey, doc.sops.lastmodified), hash.digest('hex').toUpperCase());
    assert.equal(doc.sops.encrypted_regex, '^(data|stringData)$');
    assert.equal(doc.metadata.name, 'capvault-manager-bootstrap-credentials', 'metadata stays readable for kustomize');
    // without recipients the strategy has nothing to encrypt to
    assert.match((await renderFails({ secrets: `${PUBLIC_FLAG}  strategy: sops\n` })).message, /at least one age recipient/);
  },
);

/** A sops render to a new age key, its encrypted Secret file written into the output as a commit would leave it. */
async function sopsOutputCommitted() {
  const { identityFile, recipient } = ageKey();
  const secrets = `${PUBLIC_FLAG}  strategy: sops\n  sops:\n    ageRecipients: [${recipient}]\n`;
  const out = tempDir('capi-gitops-sops-out-');
  const first = (await render({ secrets }, { outputDir: out })).files.get(SECRET_FILE)!;
  mkdirSync(path.join(out, INFRA_DIR), { recursive: true });
  writeFileSync(path.join(out, SECRET_FILE), first);
  return { identityFile, secrets, out, first };
}

/** Config.secrets for the sops strategy, encrypting to a new age key's recipient. */
function sopsToNewRecipient(): string {
  return `${PUBLIC_FLAG}  strategy: sops\n  sops:\n    ageRecipients: [${ageKey().recipient}]\n`;
}

test(
  'sops with the flux layout: the Kustomization of a component holding an encrypted Secret decrypts it (fluxcd/kustomize-controller internal/decryptor/decryptor.go DecryptResource)',
  { skip: AGE_MISSING },
  async () => {
    // without spec.decryption kustomize-controller applies the ENC[…] values as they are
    const secrets = sopsToNewRecipient();
    const set = [{ expression: 'path=clusters/mgmt', forceString: false }];
    const result = await render({ secrets }, { layout: 'flux', set });
    const kustomization = YAML.parse(result.files.get('flux/kustomization-capi-gitops-04-infrastructure-vault.yaml')!);
    assert.deepEqual(kustomization.spec.decryption, { provider: 'sops', secretRef: { name: 'sops-age' } });
    assert.deepEqual(wiringProblems(kustomization), []);
    const core = YAML.parse(result.files.get('flux/kustomization-capi-gitops-01-cluster-api.yaml')!);
    assert.equal(core.spec.decryption, undefined, 'a component without an encrypted Secret decrypts nothing');
    // the chart value names the age key's Secret; null leaves it to the controller's --sops-age-secret
    const other = await render({ secrets }, { layout: 'flux', set: [...set, { expression: 'sops.secretRef=null', forceString: false }] });
    const unnamed = YAML.parse(other.files.get('flux/kustomization-capi-gitops-04-infrastructure-vault.yaml')!);
    assert.deepEqual(unnamed.spec.decryption, { provider: 'sops' });
    assert.ok(!other.warnings.some((w) => w.includes('age key in Secret')), other.warnings.join('\n'));
  },
);

test(
  'sops with the flux layout tells which Secret the age key goes in and how to create it; the command, run as printed, makes the Secret kustomize-controller reads (fluxcd/kustomize-controller internal/decryptor/decryptor.go DecryptionAgeExt)',
  {
    skip:
      AGE_MISSING || (spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status !== 0 ? 'kubectl not installed' : false),
  },
  async () => {
    const { identityFile, recipient } = ageKey();
    const secrets = `${PUBLIC_FLAG}  strategy: sops\n  sops:\n    ageRecipients: [${recipient}]\n`;
    const result = await render({ secrets }, { layout: 'flux', set: [{ expression: 'path=clusters/mgmt', forceString: false }] });
    const told = result.warnings.filter((w) => w.includes('age key in Secret'));
    assert.equal(told.length, 1, result.warnings.join('\n'));
    assert.ok(told[0]!.includes(SECRET_FILE), told[0]);
    assert.match(
      told[0]!,
      /Secret sops-age in namespace flux-system \(spec\.decryption\.secretRef in flux\/kustomization-capi-gitops-04-infrastructure-vault\.yaml\)/,
    );
    const command = /: (kubectl create secret generic .*)$/.exec(told[0]!)![1]!;
    const created = spawnSync('sh', ['-c', `${command} --dry-run=client -o yaml`], {
      encoding: 'utf8',
      env: { ...process.env, SOPS_AGE_KEY_FILE: identityFile },
    });
    assert.equal(created.status, 0, created.stderr);
    const secret = YAML.parse(created.stdout);
    assert.deepEqual([secret.kind, secret.metadata.name, secret.metadata.namespace], ['Secret', 'sops-age', 'flux-system']);
    assert.equal(Buffer.from(secret.data['age.agekey'], 'base64').toString('utf8'), readFileSync(identityFile, 'utf8'));
  },
);

test(
  'sops with the argocd layout warns that Argo CD applies the files as they are: its Applications need a SOPS plugin (argoproj/argo-cd has no decryption of its own)',
  { skip: AGE_MISSING },
  async () => {
    const secrets = sopsToNewRecipient();
    const set = [
      { expression: 'path=clusters/mgmt', forceString: false },
      { expression: 'repoURL=https://git.example.com/p.git', forceString: false },
    ];
    const argocd = await render({ secrets }, { layout: 'argocd', set });
    assert.ok(
      argocd.warnings.some((w) => /--secrets sops.*Argo CD.*plugin/.test(w) && w.includes(SECRET_FILE)),
      argocd.warnings.join('\n'),
    );
    // Flux decrypts them itself (spec.decryption): no such warning
    const flux = await render({ secrets }, { layout: 'flux', set: set.slice(0, 1) });
    assert.ok(!flux.warnings.some((w) => /Argo CD/.test(w)), flux.warnings.join('\n'));
  },
);

test(
  'sops with the kustomize layout (the default) warns that kubectl apply -k does not decrypt, naming the files and the appliers that do (kubernetes-sigs/kustomize has no SOPS support; fluxcd/kustomize-controller decrypts with spec.decryption)',
  { skip: AGE_MISSING },
  async () => {
    const secrets = sopsToNewRecipient();
    const kustomize = await render({ secrets });
    const told = kustomize.warnings.filter((w) => /--secrets sops: the kustomize layout/.test(w));
    assert.equal(told.length, 1, kustomize.warnings.join('\n'));
    assert.ok(told[0]!.includes(SECRET_FILE), told[0]);
    assert.match(told[0]!, /kubectl apply -k/);
    assert.match(told[0]!, /spec\.decryption .*--layout flux/);
    assert.match(told[0]!, /sops --decrypt/);
    // Flux decrypts them itself (spec.decryption): no such warning
    const flux = await render({ secrets }, { layout: 'flux', set: [{ expression: 'path=clusters/mgmt', forceString: false }] });
    assert.ok(!flux.warnings.some((w) => /kustomize layout/.test(w)), flux.warnings.join('\n'));
  },
);

test(
  "sops: with the age key at hand (SOPS_AGE_KEY_FILE, or sops' default key file, as sops reads them), an unchanged Secret keeps its bytes; a changed one is encrypted afresh",
  { skip: AGE_MISSING },
  async () => {
    const { identityFile, secrets, out, first } = await sopsOutputCommitted();
    // sops' default key file is looked for under XDG_CONFIG_HOME: an empty one here, whatever the machine's user keeps
    const configHome = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = tempDir('capi-gitops-sops-config-');
    try {
      // without the key there is no way to tell: a fresh encryption, and a warning that says why
      const keyless = await render({ secrets }, { outputDir: out });
      assert.notEqual(keyless.files.get(SECRET_FILE), first);
      const keyFile = path.join(process.env.XDG_CONFIG_HOME, 'sops', 'age', 'keys.txt');
      assert.ok(
        keyless.warnings.some((w) =>
          w.includes(`no age identity in SOPS_AGE_KEY, SOPS_AGE_KEY_FILE, SOPS_AGE_KEY_CMD or ${keyFile}, so 1 Secret file`),
        ),
        keyless.warnings.join('\n'),
      );
      // the key where sops looks when nothing is set (age-keygen -o ~/.config/sops/age/keys.txt)
      mkdirSync(path.dirname(keyFile), { recursive: true });
      writeFileSync(keyFile, readFileSync(identityFile));
      const defaultKey = await render({ secrets }, { outputDir: out });
      assert.equal(defaultKey.files.get(SECRET_FILE), first);
      assert.ok(!defaultKey.warnings.some((w) => /no age identity/.test(w)));
      rmSync(keyFile);
    } finally {
      if (configHome === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = configHome;
    }
    process.env.SOPS_AGE_KEY_FILE = identityFile;
    try {
      const keyed = await render({ secrets }, { outputDir: out });
      assert.equal(keyed.files.get(SECRET_FILE), first);
      assert.ok(!keyed.warnings.some((w) => /no age identity/.test(w)));
      const changed = {
        VAULT_B64ENCODED_CREDENTIALS: Buffer.from(CREDENTIALS + '# rotated\n').toString('base64'),
        EXP_MACHINE_POOL: 'true',
      };
      assert.notEqual((await render({ secrets, data: changed }, { outputDir: out })).files.get(SECRET_FILE), first);
    } finally {
      delete process.env.SOPS_AGE_KEY_FILE;
    }
  },
);

/** A command for SOPS_AGE_KEY_CMD: a shell script that prints `stdout`, checks its arguments, and exits with `code`. */
function keyCommand(body: string): string {
  const script = path.join(tempDir('capi-gitops-age-cmd-'), 'print key.sh');
  writeFileSync(script, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return script;
}

test(
  'sops: SOPS_AGE_KEY_CMD, split as a shell would and run without one, gives the identities from its stdout; a failed command is named with its exit code, never its output (getsops/sops age/keysource.go loadIdentities)',
  { skip: AGE_MISSING },
  async () => {
    const { identityFile, secrets, out, first } = await sopsOutputCommitted();
    const key = readFileSync(identityFile, 'utf8').match(/AGE-SECRET-KEY-\S+/)![0];
    const configHome = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = tempDir('capi-gitops-sops-config-');
    const run = async (command: string) => {
      process.env.SOPS_AGE_KEY_CMD = command;
      const result = await render({ secrets }, { outputDir: out });
      const text = [...result.warnings, ...result.files.values()].join('\n');
      assert.ok(!text.includes(key), 'the identity was printed or written');
      return { kept: result.files.get(SECRET_FILE) === first, warnings: result.warnings.join('\n') };
    };
    try {
      // shlex.Split: a quoted word with a space and a backslash escape are one argument each; no shell runs it
      const script = keyCommand(`[ "$1" = "two words" ] && [ "$2" = 'a b' ] && [ "$3" = '$HOME' ] || exit 9\ncat '${identityFile}'`);
      const keyed = await run(`'${script}' "two words" a\\ b '$HOME'`);
      assert.ok(keyed.kept, `the key from the command keeps the Secret's bytes: ${keyed.warnings}`);
      assert.doesNotMatch(keyed.warnings, /no age identity/);
      // a failure is told as sops tells it, with the exit code; what the command printed is not repeated
      const failed = await run(`'${keyCommand(`cat '${identityFile}'\ncat '${identityFile}' >&2\nexit 3`)}'`);
      assert.ok(!failed.kept);
      assert.match(failed.warnings, /no age identity in SOPS_AGE_KEY, SOPS_AGE_KEY_FILE, SOPS_AGE_KEY_CMD or /);
      assert.match(failed.warnings, /SOPS_AGE_KEY_CMD: the command .*print key\.sh failed with exit code 3/);
      const missing = await run('/nonexistent/age-key-command');
      assert.match(missing.warnings, /SOPS_AGE_KEY_CMD: the command \/nonexistent\/age-key-command could not be run \(ENOENT\)/);
      const unsplit = await run(`'${script}`);
      assert.match(unsplit.warnings, /SOPS_AGE_KEY_CMD: cannot be split into words: a quote is not closed/);
      const empty = await run('  ');
      assert.match(empty.warnings, /SOPS_AGE_KEY_CMD: names no command/);
    } finally {
      delete process.env.SOPS_AGE_KEY_CMD;
      if (configHome === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = configHome;
    }
  },
);

function smuggledConfigMap(value: string): string {
  return `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: extra
  namespace: capvault-system
data:
  manifests: |
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: smuggled
      namespace: capvault-system
    data:
      copy: ${JSON.stringify(value)}
`;
}

function smugglingPatch(value: string): string {
  return `  manifestPatches:
  - |
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: capvault-controller-manager
      annotations:
        leak: ${JSON.stringify(value)}
`;
}

test('the final gate catches a secret smuggled in through additionalManifests, a patch, chart values and an image override, raw and base64', async () => {
  const secrets = `${PUBLIC_FLAG}  strategy: external-secrets\n  externalSecrets:\n    secretStoreRef:\n      name: vault-store\n`;
  // raw, base64 at each alignment, and base64 of base64
  const disguises = [
    B64,
    Buffer.from(B64).toString('base64'),
    Buffer.from(`x${B64}`).toString('base64'),
    Buffer.from(`xy${B64}!`).toString('base64'),
    Buffer.from(Buffer.from(B64).toString('base64')).toString('base64'),
  ];
  for (const value of disguises) {
    const viaManifests = await renderFails({
      secrets,
      spec: '  additionalManifests:\n    name: extra\n',
      extraDocs: smuggledConfigMap(value),
    });
    assert.match(
      viaManifests.message,
      /04-infrastructure-vault\/configmap-smuggled\.yaml: error: ConfigMap\/smuggled: the output would contain the secret value of VAULT_B64ENCODED_CREDENTIALS/,
    );
    const viaPatch = await renderFails({ secrets, spec: smugglingPatch(value) });
    assert.match(
      viaPatch.message,
      /deployment-capvault-controller-manager\.yaml: error: Deployment\/capvault-controller-manager: the output would contain the secret value of VAULT_B64ENCODED_CREDENTIALS/,
    );
    for (const message of [viaManifests.message, viaPatch.message])
      assert.ok(!message.includes(value.slice(4, 40)), 'the message quotes the smuggled text');
  }
  // through chart values (--set, into the wiring) and an image override of the Config document
  const token = SUITE_SECRETS.gitToken;
  const data = { VAULT_B64ENCODED_CREDENTIALS: B64, EXP_MACHINE_POOL: 'true', GIT_TOKEN: token };
  const viaChart = await renderFails(
    { secrets, data },
    { layout: 'flux', set: [{ expression: `path=clusters/${token}`, forceString: true }] },
  );
  assert.match(viaChart.message, /flux\/[^:]+\.yaml: error: Kustomization\/[^:]+: the output would contain the secret value of GIT_TOKEN/);
  const viaImages = await renderFails({ secrets, data, output: `images:\n  infrastructure-vault:\n    tag: ${token}\n` });
  assert.match(
    viaImages.message,
    /deployment-capvault-controller-manager\.yaml: error: Deployment\/capvault-controller-manager: the output would contain the secret value of GIT_TOKEN/,
  );
  for (const message of [viaChart.message, viaImages.message]) assert.ok(!message.includes(token), message);
  // a setting without the strategy's requirements fails even when no secret needs placing
  assert.match(
    (
      await renderFails({
        data: { EXP_MACHINE_POOL: 'true', VAULT_B64ENCODED_CREDENTIALS: 'x' },
        secrets: '  public: [EXP_MACHINE_POOL, VAULT_B64ENCODED_CREDENTIALS]\n  strategy: sops\n',
      })
    ).message,
    /at least one age recipient/,
  );
});

test('the final gate in check and diff, which never write, says nothing about writing; render says nothing was written once', async () => {
  const secrets = `${PUBLIC_FLAG}  strategy: external-secrets\n  externalSecrets:\n    secretStoreRef:\n      name: vault-store\n`;
  const dir = manifest({ secrets, spec: '  additionalManifests:\n    name: extra\n', extraDocs: smuggledConfigMap(B64) });
  const out = path.join(tempDir(), 'out');
  assert.equal((await cli(['lock', '-f', dir, '--quiet'])).code, 0);
  for (const command of ['check', 'diff']) {
    const result = await cli([command, '-f', dir, '-o', out]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      /configmap-smuggled\.yaml: error: ConfigMap\/smuggled: the output would contain the secret value of VAULT_B64ENCODED_CREDENTIALS/,
    );
    assert.doesNotMatch(result.stderr, /nothing was written/, command);
  }
  const rendered = await cli(['render', '-f', dir, '-o', out]);
  assert.equal(rendered.code, 1, rendered.stderr);
  assert.equal(rendered.stderr.match(/nothing was written/g)?.length, 1, rendered.stderr);
});

test('the operator layout, which substitutes nothing, still passes the final gate: a secret in a patch or an additionalManifests ConfigMap is caught', async () => {
  const output = `operator:\n  url: ${path.join(FIXTURES, 'operator-release', 'v0.28.0', 'operator-components.yaml')}\n`;
  const clean = await render({ output }, { layout: 'operator' });
  assert.ok([...clean.files.keys()].some((f) => f.startsWith('02-providers/')));
  assertNoSecret(SECRETS, { texts: filesText(clean.files) });
  const viaPatch = await renderFails({ output, spec: smugglingPatch(B64) }, { layout: 'operator' });
  assert.match(
    viaPatch.message,
    /02-providers\/[^:]*: error: InfrastructureProvider\/vault: the output would contain the secret value of VAULT_B64ENCODED_CREDENTIALS/,
  );
  const viaManifests = await renderFails(
    { output, spec: '  additionalManifests:\n    name: extra\n', extraDocs: smuggledConfigMap(Buffer.from(B64).toString('base64')) },
    { layout: 'operator' },
  );
  assert.match(viaManifests.message, /ConfigMap\/extra: the output would contain the secret value of VAULT_B64ENCODED_CREDENTIALS/);
});

test('the gate also searches the text a base64 value encodes, and a multi-line value line by line (YAML re-indents a block)', async () => {
  const forms = secretForms(B64);
  assert.ok(forms.includes(CREDENTIALS), 'the decoded credentials file');
  assert.ok(forms.includes(`aws_secret_access_key = ${SUITE_SECRETS.vaultSecretKey}`), 'its key line');
  assert.ok(!forms.includes('[default]'), 'a short line alone is not searched');
  // the credentials file smuggled as a block scalar of a ConfigMap: each line is indented in the output
  const secrets = `${PUBLIC_FLAG}  strategy: external-secrets\n  externalSecrets:\n    secretStoreRef:\n      name: vault-store\n`;
  const smuggled = await renderFails({
    secrets,
    spec: '  additionalManifests:\n    name: extra\n',
    extraDocs: smuggledConfigMap(CREDENTIALS),
  });
  assert.match(
    smuggled.message,
    /configmap-smuggled\.yaml: error: ConfigMap\/smuggled: the output would contain the secret value of VAULT_B64ENCODED_CREDENTIALS/,
  );
});

test('the gate searches raw, base64 in three alignments and base64 of base64', () => {
  const forms = secretForms('hunter22');
  for (const prefix of ['', 'a', 'ab']) {
    const encoded = Buffer.from(prefix + 'hunter22' + 'zz').toString('base64');
    assert.ok(
      forms.some((f) => encoded.includes(f)),
      prefix,
    );
    const twice = Buffer.from(prefix + Buffer.from('hunter22').toString('base64') + 'q').toString('base64');
    assert.ok(
      forms.some((f) => twice.includes(f)),
      `twice ${prefix}`,
    );
  }
  assert.deepEqual(secretForms('abc'), [], 'values under 4 characters are not searched');
});

test('the gate passes by values too common to be credentials ("true", "false", "1", "9443"); taint still protects them, and a real credential in a stray place is still caught', async () => {
  // undeclared: a Secret value is secret, whatever it looks like
  const data = { VAULT_B64ENCODED_CREDENTIALS: B64, EXP_MACHINE_POOL: 'true', DEBUG: 'false', REPLICAS: '1', WEBHOOK_PORT: '9443' };
  const refused = (await renderFails({ data })).message;
  assert.match(
    refused,
    /args\[0\]: would receive the secret value of EXP_MACHINE_POOL/,
    'taint still follows "true" where it is substituted',
  );
  // every output file holds "true" (served: true), yet the gate does not fail on it
  const inline = await render({ data }, { secretsStrategy: 'inline', allowSecretValues: true });
  assert.ok([...inline.files.values()].some((text) => /: true$/m.test(text)));
  assert.ok(inline.warnings.some((w) => w.includes(SECRET_FILE)));
  // the credential smuggled beside them is still caught, and named alone
  const smuggled = await renderFails(
    { data, spec: '  additionalManifests:\n    name: extra\n', extraDocs: smuggledConfigMap(B64) },
    { secretsStrategy: 'inline', allowSecretValues: true },
  );
  assert.match(
    smuggled.message,
    /configmap-smuggled\.yaml: error: ConfigMap\/smuggled: the output would contain the secret value of VAULT_B64ENCODED_CREDENTIALS/,
  );
  assert.doesNotMatch(smuggled.message, /EXP_MACHINE_POOL|DEBUG|REPLICAS|WEBHOOK_PORT/);
  for (const common of ['true', 'False', 'yes', 'OFF', 'null', '~', '1', '9443', '-1', '0.5', '1e3', '1234567'])
    assert.equal(isScannableSecret(common), false, common);
  for (const credential of ['12345678', 'hunter22', 'truer', 'true-ish', 'Zm9v', 'abcd'])
    assert.equal(isScannableSecret(credential), true, credential);
});

async function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  return await runCli(args, { env: { ...process.env, GITHUB_ACTIONS: '', ...env } });
}

test('CLI: --env-secret and --secret-file supply secrets; inline warns naming the files every run; GitHub Actions masks first; nothing leaks', async () => {
  const dir = manifest({ data: { EXP_MACHINE_POOL: 'true' }, secrets: PUBLIC_FLAG });
  const out = path.join(tempDir(), 'out');
  const lockfile = path.join(dir, 'capi-gitops.lock.yaml');
  // refused by default, value supplied from the environment
  const refused = await cli(['render', '-f', dir, '-o', out, '--env-secret', 'VAULT_B64ENCODED_CREDENTIALS'], {
    VAULT_B64ENCODED_CREDENTIALS: B64,
  });
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /data\.credentials: would receive the secret value of VAULT_B64ENCODED_CREDENTIALS/);
  assertNoSecret(SECRETS, { dirs: [out], files: [lockfile], texts: { stdout: refused.stdout, stderr: refused.stderr } });
  // inline: written, with a warning naming the file, on every run
  const secretFile = path.join(tempDir(), 'secrets.env');
  writeFileSync(secretFile, `VAULT_B64ENCODED_CREDENTIALS=${B64}\n`);
  for (let run = 0; run < 2; run++) {
    const inline = await cli(
      ['render', '-f', dir, '-o', out, '--secret-file', secretFile, '--secrets', 'inline', '--allow-secret-values'],
      {
        GITHUB_ACTIONS: 'true',
      },
    );
    assert.equal(inline.code, 0, inline.stderr);
    // on stderr (the runner reads workflow commands there too), before anything else
    assert.ok(inline.stderr.startsWith('::add-mask::'), inline.stderr.slice(0, 200));
    assert.ok(inline.stderr.includes(`::add-mask::${B64}`));
    assert.match(
      inline.stderr,
      new RegExp(
        `warning: --secrets inline: these files hold secret values and will be committed to Git: ${SECRET_FILE.replace(/[.]/g, '\\.')}`,
      ),
    );
    const masked = inline.stderr
      .split('\n')
      .filter((l) => !l.startsWith('::add-mask::'))
      .join('\n');
    assertNoSecret(SECRETS, {
      dirs: [out],
      files: [lockfile],
      texts: { stdout: inline.stdout, stderr: masked },
      allowedFiles: [path.join(out, SECRET_FILE)],
    });
  }
  assert.ok(readFileSync(path.join(out, SECRET_FILE), 'utf8').includes(B64));
  assert.match(
    readFileSync(path.join(out, 'README.md'), 'utf8'),
    new RegExp(`files holding secret values[\\s\\S]*${SECRET_FILE.replace(/[.]/g, '\\.')}`),
  );
  // inline without --allow-secret-values is refused
  const noAllow = await cli(['render', '-f', dir, '-o', path.join(tempDir(), 'o'), '--secret-file', secretFile, '--secrets', 'inline']);
  assert.equal(noAllow.code, 1);
  assert.match(noAllow.stderr, /--allow-secret-values/);
  // --list-variables masks secret values, shows public ones
  const listed = await cli(['render', '-f', dir, '--list-variables', '--secret-file', secretFile]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /VAULT_B64ENCODED_CREDENTIALS = \*+ from --secret-file/);
  assert.match(listed.stdout, /EXP_MACHINE_POOL = "true" from Secret capvault-system\/vault-variables/);
  assertNoSecret(SECRETS, { texts: { listed: listed.stdout, stderr: listed.stderr, noAllow: noAllow.stderr } });
  // a missing --env-secret is named, not guessed
  const unset = await cli(['render', '-f', dir, '-o', out, '--env-secret', 'NO_SUCH_VARIABLE_X']);
  assert.equal(unset.code, 1);
  assert.match(unset.stderr, /NO_SUCH_VARIABLE_X is not set/);
});

test('a secret that breaks the YAML is reported by variable, never quoted', async () => {
  const broken = 'line-one\n  bad: [unclosed-VERYSECRETTOKEN';
  const err = await renderFails({ data: { VAULT_B64ENCODED_CREDENTIALS: broken, EXP_MACHINE_POOL: 'true' }, secrets: PUBLIC_FLAG });
  assert.ok(!err.message.includes('VERYSECRETTOKEN'), err.message);
  assert.match(err.message, /the value of variable VAULT_B64ENCODED_CREDENTIALS \(from Secret [^)]+\) breaks the YAML/);
  assert.match(err.message, /Secret capvault-system\/vault-variables/);
});

test("sopsUserKeyFile is sops' default key file: Go's os.UserConfigDir (XDG_CONFIG_HOME, else ~/.config; macOS's Application Support unless XDG_CONFIG_HOME; %AppData%), sops/age/keys.txt", () => {
  const key = (env: NodeJS.ProcessEnv, platform: NodeJS.Platform) => sopsUserKeyFile(env, platform);
  assert.equal(key({ HOME: '/home/ops' }, 'linux'), '/home/ops/.config/sops/age/keys.txt');
  assert.equal(key({ HOME: '/home/ops', XDG_CONFIG_HOME: '/cfg' }, 'linux'), '/cfg/sops/age/keys.txt');
  assert.equal(key({ HOME: '/home/ops', XDG_CONFIG_HOME: 'relative' }, 'linux'), undefined, 'Go refuses a relative XDG_CONFIG_HOME');
  assert.equal(key({}, 'linux'), undefined);
  assert.equal(key({ HOME: '/Users/ops' }, 'darwin'), '/Users/ops/Library/Application Support/sops/age/keys.txt');
  assert.equal(key({ HOME: '/Users/ops', XDG_CONFIG_HOME: '/cfg' }, 'darwin'), '/cfg/sops/age/keys.txt');
});

test('refuse: a configSecret value that providers sharing one namespace all substitute is one problem at the Secret key, naming every field it reaches', async () => {
  const shared = '  configSecret:\n    name: capi-variables\n    namespace: capi-system\n';
  const manifest = corpusManifest('v1.12.0', 'repository', { BootstrapProvider: shared, ControlPlaneProvider: shared });
  const secret =
    'apiVersion: v1\nkind: Secret\nmetadata: {name: capi-variables, namespace: capi-system}\nstringData:\n  EXP_MACHINE_POOL: "true"\n';
  const error = await renderManagementCluster({
    manifestPaths: [writeTempManifest({ 'providers.yaml': manifest, 'secret.yaml': secret })],
  }).then(
    () => assert.fail('rendered'),
    (err: unknown) => err,
  );
  assert.ok(error instanceof CapiGitopsError, String(error));
  assert.deepEqual(
    error.diagnostics.map((d) => `${path.basename(d.file ?? '')}:${d.line}:${d.column} ${d.object}: ${d.path}: ${d.message}`),
    [
      'secret.yaml:5:3 Deployment/capi-kubeadm-bootstrap-system/capi-kubeadm-bootstrap-controller-manager: spec.template.spec.containers[0].args[3]: ' +
        'would receive the secret value of EXP_MACHINE_POOL; also Deployment/capi-kubeadm-control-plane-system/capi-kubeadm-control-plane-controller-manager ' +
        'at spec.template.spec.containers[0].args[3]',
    ],
  );
});
