/**
 * `--secret-file` reads what users already have: a dotenv file, a flat YAML map, or the Secret
 * manifests they would otherwise pass with -f (one, several documents, or kubectl's `kind: List`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readRunSecrets } from '../../src/secrets/sources.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { SUITE_SECRETS } from '../helpers/secret-scan.js';
import { exampleCopy, runCli } from '../helpers/cli.js';

const B64 = Buffer.from(SUITE_SECRETS.landingCredentials).toString('base64');
const TOKEN = SUITE_SECRETS.landingSecretKey;

function secretFile(name: string, text: string): string {
  const file = path.join(tempDir('capi-gitops-secret-file-'), name);
  writeFileSync(file, text);
  return file;
}

async function read(text: string, name = 'secrets.yaml'): Promise<Record<string, string>> {
  const file = secretFile(name, text);
  const { values } = await readRunSecrets({ secretFiles: [file], env: {} });
  for (const v of values.values()) assert.equal(v.origin, `--secret-file ${file}`);
  return Object.fromEntries([...values].map(([name, v]) => [name, v.value]));
}

async function problems(text: string): Promise<string> {
  try {
    await readRunSecrets({ secretFiles: [secretFile('secrets.yaml', text)], env: {} });
  } catch (err) {
    assert.ok(err instanceof CapiGitopsError);
    for (const secret of [B64, TOKEN, Buffer.from(TOKEN).toString('base64')]) assert.ok(!err.message.includes(secret), err.message);
    return err.message;
  }
  return assert.fail('the file was read');
}

test('a dotenv file and a flat YAML map, as before', async () => {
  assert.deepEqual(await read(`# CI secrets\nexport AWS_B64ENCODED_CREDENTIALS=${B64}\nTOKEN="${TOKEN}"\n`, 'secrets.env'), {
    AWS_B64ENCODED_CREDENTIALS: B64,
    TOKEN,
  });
  assert.deepEqual(await read(`AWS_B64ENCODED_CREDENTIALS: ${B64}\nREPLICAS: 3\n`), { AWS_B64ENCODED_CREDENTIALS: B64, REPLICAS: '3' });
});

test('a v1 Secret manifest: data decoded from base64, stringData as is and winning over data (the API server merges them so)', async () => {
  const manifest = `apiVersion: v1
kind: Secret
metadata:
  name: aws-variables
  namespace: capa-system
type: Opaque
data:
  AWS_B64ENCODED_CREDENTIALS: ${Buffer.from(B64).toString('base64')}
  TOKEN: ${Buffer.from('overridden').toString('base64')}
stringData:
  TOKEN: ${JSON.stringify(TOKEN)}
`;
  assert.deepEqual(await read(manifest), { AWS_B64ENCODED_CREDENTIALS: B64, TOKEN });
});

test('several Secret documents, and kubectl get secrets -o yaml (kind: List): a later Secret wins', async () => {
  const secret = (name: string, key: string, value: string) =>
    `apiVersion: v1\nkind: Secret\nmetadata: {name: ${name}, namespace: capa-system}\nstringData:\n  ${key}: ${JSON.stringify(value)}\n`;
  assert.deepEqual(
    await read(
      `---\n${secret('a', 'TOKEN', 'first')}---\n${secret('b', 'TOKEN', TOKEN)}---\n${secret('c', 'AWS_B64ENCODED_CREDENTIALS', B64)}`,
    ),
    {
      TOKEN,
      AWS_B64ENCODED_CREDENTIALS: B64,
    },
  );
  const list = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Secret
  metadata: {name: aws-variables, namespace: capa-system}
  data:
    AWS_B64ENCODED_CREDENTIALS: ${Buffer.from(B64).toString('base64')}
metadata:
  resourceVersion: ""
`;
  assert.deepEqual(await read(list), { AWS_B64ENCODED_CREDENTIALS: B64 });
});

test('a file of Secrets with something else in it, data that is not base64, keys that are not variable names: every problem, no value', async () => {
  const message = await problems(`apiVersion: v1
kind: Secret
metadata: {name: aws-variables}
data:
  AWS_B64ENCODED_CREDENTIALS: "${TOKEN}!"
  credentials.ini: ${Buffer.from(TOKEN).toString('base64')}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {A: b}
`);
  // each at the key's file:line:column, as every problem is
  assert.match(message, /secrets\.yaml:5:3: error: Secret aws-variables: data\.AWS_B64ENCODED_CREDENTIALS: is not base64/);
  assert.match(message, /document 2: is not a v1 Secret/);
  assert.match(message, /credentials\.ini: is not a variable name/);
  // what used to be said of a manifest ("metadata: is not a string … quote the value") is gone
  assert.doesNotMatch(message, /quote the value/);
});

test('a value that is not a string is told at its key: in a Secret of a kind: List, and in a YAML map', async () => {
  const list = await problems(`apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Secret
  metadata: {name: aws-variables}
  stringData:
    AWS_B64ENCODED_CREDENTIALS: [${TOKEN}]
`);
  assert.match(list, /secrets\.yaml:8:5: error: Secret aws-variables: stringData\.AWS_B64ENCODED_CREDENTIALS: is not a string/);
  const map = await problems(`OTHER: "1"\nTOKEN: {value: ${TOKEN}}\n`);
  assert.match(map, /secrets\.yaml:2:1: error: TOKEN: is not a string/);
});

test('several documents that are not Secrets are refused as such', async () => {
  assert.match(await problems(`A: "1"\n---\nB: "2"\n`), /holds several YAML documents that are not Secrets/);
});

test('a YAML secret file that does not parse is told at the line and column of the error, never quoting it', async () => {
  const message = await problems(`apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  TOKEN: [${TOKEN}\n`);
  assert.match(message, /secrets\.yaml:\d+:\d+: error: is neither a dotenv file nor YAML/);
});

test('a dotenv line that is not NAME=value (dotenv skips it) is an error at its line, never quoted; multi-line quoted values, comments and blanks are fine', async () => {
  const text = `# CI secrets\nTOKEN="${TOKEN}"\nMULTI="first\nsecond ${TOKEN}"\n\n  # indented comment\n${TOKEN} AWS=1\nKEY: value\n`;
  const message = await problems(text);
  assert.match(message, /secrets\.yaml:7:1: error: is not a NAME=value line, and dotenv would skip it/);
  assert.equal(message.match(/is not a NAME=value line/g)?.length, 1, message);
  assert.deepEqual(await read(`TOKEN="${TOKEN}"\nMULTI="first\nsecond"\n# note\nKEY: value\n`, 'secrets.env'), {
    TOKEN,
    MULTI: 'first\nsecond',
    KEY: 'value',
  });
});

test('a configSecret exported with kubectl and given with --secret-file: the error says so, and its hint (-f instead) reads it as the configSecret', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const providers = path.join(manifest, 'providers.yaml');
  writeFileSync(
    providers,
    readFileSync(providers, 'utf8').replace(
      '  name: cluster-api\n  namespace: capi-system\nspec:\n',
      '  name: cluster-api\n  namespace: capi-system\nspec:\n  configSecret:\n    name: capi-variables\n',
    ),
  );
  // kept outside Git, beside the example; a feature flag, declared public so the render may write it
  const exported = path.join(example, 'capi-variables.yaml');
  writeFileSync(
    exported,
    'apiVersion: v1\nkind: Secret\nmetadata:\n  name: capi-variables\n  namespace: capi-system\nstringData:\n  EXP_MACHINE_POOL: "true"\n',
  );
  writeFileSync(
    path.join(manifest, 'public.yaml'),
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nsecrets:\n  public: [EXP_MACHINE_POOL]\n',
  );
  const out = path.join(example, 'out');
  const given = await runCli(['render', '-f', manifest, '-o', out, '--secret-file', exported]);
  assert.equal(given.code, 1, given.stderr);
  assert.match(
    given.stderr,
    /providers\.yaml:\d+:\d+: error: CoreProvider\/capi-system\/cluster-api: spec\.configSecret: Secret capi-system\/capi-variables is not in the input/,
  );
  const hint =
    /hint: (\S+) holds it, given with --secret-file, which makes its keys variables of every provider; to read it as this provider's configSecret, give it with -f (\S+) instead/.exec(
      given.stderr,
    );
  assert.ok(hint, given.stderr);
  assert.equal(hint[2], exported);
  const followed = await runCli(['render', '-f', manifest, '-f', hint[2]!, '-o', out]);
  assert.equal(followed.code, 0, followed.stderr);
});

test('Config.secrets.public opts a --secret-file or --env-secret value out, as it does a configSecret key (docs/secrets.md "the one opt-out"): written, not refused with a hint to declare what is declared', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  // kept outside Git, beside the example: a feature flag in a dotenv file, and a region from CI
  const flags = path.join(example, 'flags.env');
  writeFileSync(flags, 'CLUSTER_TOPOLOGY=true\n');
  const out = path.join(example, 'out');
  const env = { ...process.env, EXAMPLE_REGION: 'ap-south-1' };
  const args = ['render', '-f', manifest, '-o', out, '--secret-file', flags, '--env-secret', 'EXAMPLE_REGION'];
  // undeclared, both are secret: refused, each with the hint to declare it public
  const undeclared = await runCli(args, { env });
  assert.equal(undeclared.code, 1, undeclared.stderr);
  assert.match(undeclared.stderr, /secrets: \{public: \[CLUSTER_TOPOLOGY\]\}/);
  assert.match(undeclared.stderr, /secrets: \{public: \[EXAMPLE_REGION\]\}/);
  // the hint followed literally
  writeFileSync(
    path.join(manifest, 'public.yaml'),
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nsecrets:\n  public: [CLUSTER_TOPOLOGY, EXAMPLE_REGION]\n',
  );
  const declared = await runCli(args, { env });
  assert.equal(declared.code, 0, declared.stderr);
  assert.doesNotMatch(declared.stderr, /secret value of/);
  const bootstrap = readFileSync(path.join(out, '02-bootstrap-example', 'deployment-capex-bootstrap-controller-manager.yaml'), 'utf8');
  assert.match(bootstrap, /ClusterTopology=true/);
  const infrastructure = readFileSync(path.join(out, '04-infrastructure-example', 'deployment-capex-controller-manager.yaml'), 'utf8');
  assert.match(infrastructure, /--region=ap-south-1/);
});

test('an alias bomb in a YAML secret file is the bound manifests have (too many alias references, at the alias), not a syntax error', async () => {
  const levels = ['a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]'];
  for (let i = 1; i < 8; i++) {
    const [name, previous] = [String.fromCharCode(97 + i), String.fromCharCode(96 + i)];
    levels.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(', ')}]`);
  }
  const message = await problems(`${levels.join('\n')}\n`);
  assert.match(message, /secrets\.yaml:\d+:\d+: error: invalid YAML: too many alias references/);
  assert.match(message, /at most 1000 alias expansions per document/);
  assert.doesNotMatch(message, /neither a dotenv file nor YAML/);
  // a few aliases, as manifests take them, still read
  assert.deepEqual(await read(`A: &v "1"\nB: *v\n`), { A: '1', B: '1' });
});

test('a kind: List with items: null gives no values, as kubectl apply applies nothing of it; items that are not a list are told at items', async () => {
  assert.deepEqual(await read('apiVersion: v1\nkind: List\nitems: null\n'), {});
  assert.deepEqual(await read('apiVersion: v1\nkind: List\nmetadata: {}\n'), {});
  const message = await problems('apiVersion: v1\nkind: List\nitems: {a: b}\n');
  assert.match(message, /secrets\.yaml:3:1: error: document 1: items: is not a list/);
  assert.doesNotMatch(message, /is not a v1 Secret/);
});

test('a YAML or JSON secret file nested past the bound manifests have is told at the line and column where it passes it, with the limit and what a secret file holds, not as a syntax error; a map within the bound is told as a map, not "quote the value"', async () => {
  const levels = 600;
  const flow = await problems(`TOKEN: ${'['.repeat(levels)}${TOKEN}${']'.repeat(levels)}\n`);
  assert.match(flow, /^\S*secrets\.yaml:1:\d+: error: YAML nesting here is deeper than 512 levels$/m);
  assert.match(flow, /expected: at most 512 levels of nesting: NAME=value lines, a YAML map NAME: "value", or v1 Secret manifests/);
  assert.match(flow, /hint: check that \S+secrets\.yaml is the secret file meant, and write each variable as NAME: "value"/);
  assert.doesNotMatch(flow, /neither a dotenv file nor YAML|check the syntax|CAPI_GITOPS_YAML_MAX_DEPTH/);
  const json = await problems(`{"TOKEN": ${'{"k": '.repeat(levels)}"${TOKEN}"${'}'.repeat(levels)}}\n`);
  assert.match(json, /^\S*secrets\.yaml:1:\d+: error: YAML nesting here is deeper than 512 levels$/m);
  const block = await problems(`TOKEN:\n${Array.from({ length: levels }, (_, i) => `${'  '.repeat(i + 1)}k${i}:`).join('\n')}\n`);
  assert.match(block, /^\S*secrets\.yaml:\d+:\d+: error: YAML nesting here is deeper than 512 levels$/m);
  const map = await problems(`OTHER: "1"\nTOKEN:\n  a:\n    b: ${TOKEN}\n`);
  assert.match(
    map,
    /secrets\.yaml:2:1: error: TOKEN: is not a string but a map\n {2}expected: a string value, one level below the variable's name\n {2}hint: write the value as one string: TOKEN: "value"/,
  );
  assert.doesNotMatch(map, /quote the value/);
});
