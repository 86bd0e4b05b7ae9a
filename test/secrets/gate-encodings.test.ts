/**
 * The final gate finds a configSecret value pasted into the output in any form the output can
 * carry it (issue 27, class 5): as the emitter escapes it in YAML quotes, inside a JSON string,
 * URL-encoded, in hex, as a multi-line value of short lines, and in two pieces; and it finds
 * nothing in a real render that holds none of them. `::add-mask::` carries values the runner
 * reads back exactly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { emitYamlDocument } from '../../src/yaml/emit.js';
import { githubMasks, lineRuns, scanOutput, secretNeedles } from '../../src/secrets/gate.js';
import { renderManagementCluster } from '../../src/app/cluster.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { FIXTURES, PROJECT_ROOT } from '../helpers/paths.js';
import { corpusManifest, writeTempManifest } from '../helpers/corpus-manifest.js';
import { assertNoSecret, SUITE_SECRETS } from '../helpers/secret-scan.js';
import { objectFilePath, sanitizeFileNamePart } from '../../src/layout/names.js';

const QUOTED = SUITE_SECRETS.quotedToken; // ' " \ and ": " in one value
const SPLIT = SUITE_SECRETS.splitToken;
const SHORT_LINES = SUITE_SECRETS.shortLinesKey;
const VALUES = new Map([
  ['API_TOKEN', [QUOTED]],
  ['SIGNING_KEY', [SHORT_LINES]],
  ['LICENSE_KEY', [SPLIT]],
]);
const NEEDLES = secretNeedles(VALUES);

/** One ConfigMap file as the layout writes it, its data given as values (the emitter escapes them). */
function configMapFile(data: Record<string, string>): string {
  return emitYamlDocument({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pasted', namespace: 'default' }, data });
}

function found(data: Record<string, string>): string[] {
  return scanOutput(new Map([['configmap-pasted.yaml', configMapFile(data)]]), NEEDLES, new Set()).map(
    (d) => /secret value of (\w+)/.exec(d.message)![1]!,
  );
}

test('the gate finds a value in every form the emitter escapes it: quotes, backslashes and ": " (yaml/emit.ts doubleQuoted, singleQuoted)', () => {
  const text = configMapFile({ token: QUOTED, line: `token=${QUOTED}; expires never` });
  assert.ok(!text.includes(QUOTED), `the emitter escapes it: ${text}`);
  assert.deepEqual(found({ token: QUOTED }), ['API_TOKEN']);
  assert.deepEqual(found({ line: `token=${QUOTED}; expires never` }), ['API_TOKEN']);
  // a value whose only special character is a single quote, in single quotes (`''`), and one ending in a space
  const single = secretNeedles(
    new Map([
      ['T', ['it\'s-a-token-"9Qz']],
      ['S', ['trailing-space-7Wp ']],
    ]),
  );
  const emitted = emitYamlDocument({ data: { a: 'it\'s-a-token-"9Qz', b: 'x trailing-space-7Wp \nmore' } });
  assert.deepEqual(
    scanOutput(new Map([['f.yaml', emitted]]), single, new Set())
      .map((d) => /of (\w+)/.exec(d.message)![1])
      .sort(),
    ['S', 'T'],
  );
});

test('the gate decodes every scalar: a JSON document in a string, URL encoding, form encoding, hex', () => {
  assert.deepEqual(found({ 'config.json': JSON.stringify({ auth: { token: QUOTED } }, null, 2) }), ['API_TOKEN'], 'pretty JSON, a block');
  assert.deepEqual(found({ 'config.json': JSON.stringify({ token: QUOTED }) }), ['API_TOKEN'], 'JSON in a quoted string');
  assert.deepEqual(found({ url: `https://hooks.example.com/notify?token=${encodeURIComponent(QUOTED)}` }), ['API_TOKEN']);
  assert.deepEqual(found({ body: new URLSearchParams({ token: QUOTED }).toString() }), ['API_TOKEN'], 'spaces as +');
  assert.deepEqual(found({ hex: Buffer.from(QUOTED).toString('hex') }), ['API_TOKEN']);
  assert.deepEqual(found({ hex: Buffer.from(QUOTED).toString('hex').toUpperCase() }), ['API_TOKEN']);
  assert.deepEqual(found({ both: encodeURIComponent(JSON.stringify({ token: QUOTED })) }), ['API_TOKEN'], 'JSON, then URL-encoded');
});

test('a multi-line value of short lines is found as a run of its lines, and a short line alone is not', () => {
  assert.ok(SHORT_LINES.split('\n').every((line) => line.length < 16));
  assert.deepEqual(found({ 'key.pem': SHORT_LINES }), ['SIGNING_KEY'], 'a literal block, re-indented');
  assert.deepEqual(found({ 'key.pem': `-----BEGIN-----\n${SHORT_LINES}-----END-----\n` }), ['SIGNING_KEY'], 'inside a longer block');
  assert.deepEqual(found({ 'key.pem': `${SHORT_LINES.replace('\n', ' \n')}` }), ['SIGNING_KEY'], 'written double-quoted on one line');
  assert.deepEqual(found({ first: 'MIIBqk7', last: 'YcEnd4Q', middle: 'x7Qa9kL' }), [], 'lines apart from each other');
  // a value that is a YAML document: its short lines are keys every manifest has
  assert.deepEqual(lineRuns('apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://10.0.0.1\n'), []);
  assert.deepEqual(lineRuns('[default]\nkey = ab12cd\n'), ['[default]\nkey = ab12cd']);
});

test('a long value without white space is found when split in two pieces anywhere (its first and last 12 characters)', () => {
  for (const at of [12, 16, SPLIT.length - 12])
    assert.deepEqual(found({ head: SPLIT.slice(0, at), tail: SPLIT.slice(at) }), ['LICENSE_KEY'], `split at ${at}`);
  // in two files
  const files = new Map([
    ['a.yaml', configMapFile({ head: SPLIT.slice(0, 15) })],
    ['b.yaml', configMapFile({ tail: SPLIT.slice(15) })],
  ]);
  assert.deepEqual(
    scanOutput(files, NEEDLES, new Set()).map((d) => d.file),
    ['a.yaml'],
  );
  assert.deepEqual(found({ head: SPLIT.slice(0, 12) }), [], 'one end alone is not a finding');
});

test('no false finding: a whole corpus render (3.5 MB of CRDs and Deployments) holds none of these forms', async () => {
  const result = await renderManagementCluster({ manifestPaths: [writeTempManifest({ 'providers.yaml': corpusManifest('v1.12.0') })] });
  assert.deepEqual(scanOutput(result.files, NEEDLES, new Set()), []);
});

const EXAMPLES = path.join(PROJECT_ROOT, 'examples');
const fileUrl = (...parts: string[]) => pathToFileURL(path.join(...parts)).href;

/** A configSecret value pasted by hand into an additionalManifests ConfigMap (`lines`: the ConfigMap's data, as written). */
async function pasted(lines: string): Promise<CapiGitopsError> {
  const dir = writeTempManifest({
    'management-cluster.yaml': `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec:
  version: v0.2.0
  fetchConfig: {url: ${fileUrl(EXAMPLES, 'repository', 'cluster-api', 'latest', 'core-components.yaml')}}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata: {name: vault, namespace: capvault-system}
spec:
  version: v0.1.0
  configSecret: {name: vault-variables}
  additionalManifests: {name: extra}
  fetchConfig: {url: ${fileUrl(FIXTURES, 'secrets', 'infrastructure-vault', 'latest', 'infrastructure-components.yaml')}}
---
apiVersion: v1
kind: Secret
metadata: {name: vault-variables, namespace: capvault-system}
stringData:
  VAULT_B64ENCODED_CREDENTIALS: ${JSON.stringify(Buffer.from(SUITE_SECRETS.vaultCredentials).toString('base64'))}
  API_TOKEN: ${JSON.stringify(QUOTED)}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: extra, namespace: capvault-system}
data:
  manifests: |
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: webhook-config, namespace: capvault-system}
    data:
${lines
  .split('\n')
  .map((line) => `      ${line}`)
  .join('\n')}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
secrets:
  strategy: inline
`,
  });
  try {
    await renderManagementCluster({ manifestPaths: [dir], allowSecretValues: true });
  } catch (err) {
    assert.ok(err instanceof CapiGitopsError, String(err));
    assertNoSecret([QUOTED], { texts: { error: err.message } });
    return err;
  }
  assert.fail('the render wrote the pasted value');
}

test('render: a configSecret value pasted into an additionalManifests ConfigMap in YAML single or double quotes, or as JSON, is refused', async () => {
  const single = `'${QUOTED.replace(/'/g, "''")}'`;
  const double = JSON.stringify(QUOTED);
  for (const [what, lines] of [
    ['single quotes', `token: ${single}`],
    ['double quotes', `token: ${double}`],
    ['a JSON file', `config.json: '{"token": ${double.replace(/'/g, "''")}}'`],
    ['a URL', `url: https://hooks.example.com/?t=${encodeURIComponent(QUOTED)}`],
  ]) {
    const err = await pasted(lines!);
    assert.match(
      err.message,
      /configmap-webhook-config\.yaml: error: ConfigMap\/webhook-config: the output would contain the secret value of API_TOKEN/,
      what!,
    );
  }
});

test('::add-mask:: escapes %, CR and LF as the runner reads workflow commands (actions/toolkit core/src/command.ts escapeData)', () => {
  const value = 'ab%0Acd-9Qz\r\nef%25gh-7Wp\rij-kl-mn';
  const masks = githubMasks(secretNeedles(new Map([['V', [value]]])));
  for (const mask of masks) {
    assert.ok(mask.startsWith('::add-mask::'));
    assert.doesNotMatch(mask, /[\r\n]/);
  }
  // What the runner masks: each command's data unescaped (%0D, %0A, then %25).
  const unescaped = masks.map((m) => m.slice('::add-mask::'.length).replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%'));
  assert.ok(unescaped.includes('ab%0Acd-9Qz'), 'the value as it is, not with a line break where it says %0A');
  assert.ok(unescaped.includes('ef%25gh-7Wp\rij-kl-mn'), 'a lone CR kept, escaped');
  assert.ok(masks.includes('::add-mask::ab%250Acd-9Qz'));
});

test('::add-mask:: leaves out a line of a multi-line secret as common as true, null or 9443 (the gate passes such values by too): its mask would star out every occurrence in the job log', () => {
  const value = 'user-one-secret\ntrue\n9443\nnull\npassword-two-secret';
  const masks = githubMasks(secretNeedles(new Map([['V', [value]]])));
  for (const common of ['true', '9443', 'null']) assert.ok(!masks.includes(`::add-mask::${common}`), common);
  assert.ok(masks.includes('::add-mask::user-one-secret'));
  assert.ok(masks.includes('::add-mask::password-two-secret'));
});

test('::add-mask:: of a multi-line secret (a credentials file, a PEM key) leaves out its [default] header, comments and PEM armour, and masks each assigned value (as action/secrets.mjs maskCommands)', () => {
  const credentials = '[default]\n# rotated monthly\naws_access_key_id = AKIAEXAMPLE123\naws_secret_access_key = s3cr3t/value+x\n';
  const pem =
    '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n-----END RSA PRIVATE KEY-----\n';
  const b64 = Buffer.from(credentials).toString('base64');
  const masks = githubMasks(
    secretNeedles(
      new Map([
        ['AWS_B64ENCODED_CREDENTIALS', [b64]],
        ['TLS_KEY', [pem]],
      ]),
    ),
  ).map((m) => m.slice('::add-mask::'.length));
  for (const structure of ['[default]', '# rotated monthly', '-----BEGIN RSA PRIVATE KEY-----', '-----END+RSA+PRIVATE+KEY-----'])
    assert.ok(!masks.includes(structure), structure);
  for (const line of masks) assert.ok(!/^-----(BEGIN|END)[ +][A-Z +]+-----$/.test(line), line);
  for (const secret of [
    b64,
    'AKIAEXAMPLE123',
    's3cr3t/value+x',
    'aws_access_key_id = AKIAEXAMPLE123',
    'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun',
  ])
    assert.ok(masks.includes(secret), secret);
});

test('the gate does not take a public certificate in the output for a secret PEM of a configSecret: armour lines alone are not searched, the body is', () => {
  const key = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUKeyBodyLineOneOfTheSecretCertificateAAAA\n-----END CERTIFICATE-----\n';
  const needles = secretNeedles(new Map([['PROXY_CA_PEM', [key]]]));
  const trust = '-----BEGIN CERTIFICATE-----\nMIIBdzCCAR2gAwIBAgIUPublicTrustBundleCertificateOnlyBBBBBB\n-----END CERTIFICATE-----\n';
  const scan = (value: string) => scanOutput(new Map([['configmap-pasted.yaml', configMapFile({ 'ca.crt': value })]]), needles, new Set());
  assert.deepEqual(scan(trust), []);
  assert.equal(scan(`${trust}${key}`).length, 1, 'the secret PEM beside it is still found');
});

test('the gate finds a mixed-case value in an output path as file naming writes it (layout/names.ts sanitizeFileNamePart: lower case, `-` for other characters), in an inline file too, and names the file without it', () => {
  const needles = secretNeedles(
    new Map([
      ['VAULT_API_TOKEN', ['XyZzy9_QwErTy7Plm']],
      ['SHORT', ['Capi1']],
    ]),
  );
  const file = '04-infrastructure-vault/secret-capvault-xyzzy9-qwerty7plm.yaml';
  const files = new Map([
    [file, 'kind: Secret\n'],
    ['01-cluster-api/deployment-capi1-controller-manager.yaml', 'kind: Deployment\n'],
  ]);
  const problems = scanOutput(files, needles, new Set([file]));
  assert.deepEqual(
    problems.map((d) => [d.file, /secret value of (\w+)/.exec(d.message)?.[1]]),
    [['04-infrastructure-vault/secret-capvault-[secret VAULT_API_TOKEN].yaml', 'VAULT_API_TOKEN']],
    'found in the path of an inline (exempt) file; a value shorter than 8 characters is not searched in paths',
  );
  assert.ok(!JSON.stringify(problems).toLowerCase().includes('qwerty7plm'), 'the report does not repeat the path');
});

test('the gate finds the start of a long value that a cut file name keeps (layout/names.ts: a stem over 200 characters is cut, then `-` and 8 hex digits), and names the file without it', () => {
  const value = `Tok_${'AbCdEf0123'.repeat(21)}`;
  const form = sanitizeFileNamePart(value);
  const needles = secretNeedles(new Map([['API_TOKEN', [value]]]));
  const cut = `04-infrastructure-vault/${objectFilePath({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: form } })}`;
  assert.ok(!cut.includes(form) && cut.includes(form.slice(0, 150)), cut);
  const files = new Map([
    [cut, 'kind: ConfigMap\n'],
    // not a cut name: a value's start before `.yaml` alone is not searched
    [`04-infrastructure-vault/configmap-${form.slice(0, 20)}.yaml`, 'kind: ConfigMap\n'],
  ]);
  const problems = scanOutput(files, needles, new Set());
  assert.deepEqual(
    problems.map((d) => [d.file, /secret value of (\w+)/.exec(d.message)?.[1]]),
    [[`04-infrastructure-vault/configmap-[secret API_TOKEN]${cut.slice(-'-12345678.yaml'.length)}`, 'API_TOKEN']],
  );
  assert.ok(!JSON.stringify(problems).includes('abcdef0123'), JSON.stringify(problems));
});
