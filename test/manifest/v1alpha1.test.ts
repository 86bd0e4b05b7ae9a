/**
 * operator.cluster.x-k8s.io/v1alpha1 input, converted as the cluster-api-operator's conversion
 * webhook did (api/v1alpha1/provider_conversion.go, removed upstream in commit c3f32df), and
 * `capi-gitops convert`. The README examples are test/fixtures/operator-readme/NN.v1alpha1.yaml
 * (verbatim from the operator's docs/README.md at v0.5.0), each beside its hand-written v1alpha2 form.
 */
import { formatWarning } from '../../src/core/diagnostics.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { convert } from '../../src/app/convert.js';
import { InterruptedError, resetInterruptState, settleInterrupted } from '../../src/core/interrupt.js';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { loadManifest } from '../../src/manifest/load.js';
import type { Manifest } from '../../src/manifest/types.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { convertManifestText } from '../../src/manifest/convert-documents.js';
import { imageUrlOf } from '../../src/manifest/v1alpha1.js';
import { renderManagementCluster } from '../../src/app/cluster.js';
import { corpusManifest, tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { FIXTURES, PROJECT_ROOT } from '../helpers/paths.js';
import { runCli } from '../helpers/cli.js';
import { SUITE_SECRETS } from '../helpers/secret-scan.js';

const README = path.join(FIXTURES, 'operator-readme');
const EXAMPLES = ['01', '02', '03', '04', '05', '06', '07', '08', '09'];

async function run(args: string[], cwd = PROJECT_ROOT) {
  const result = await runCli([...args], { cwd });
  return { code: result.code, stdout: result.stdout, stderr: result.stderr };
}

/** What resolve receives, without where it was written. */
function content(manifest: Manifest): unknown {
  const bare = <T extends { position?: unknown }>(items: T[]) => items.map(({ position: _, ...rest }) => rest);
  return {
    providers: bare(manifest.providers),
    secrets: bare(manifest.secrets),
    configMaps: bare(manifest.configMaps),
    config: manifest.config,
  };
}

async function loadOrError(file: string): Promise<Manifest | string> {
  try {
    return await loadManifest([file]);
  } catch (error) {
    if (error instanceof CapiGitopsError) return error.diagnostics.map((d) => `${d.line}:${d.column} ${d.message}`).join('\n');
    throw error;
  }
}

function values(text: string): unknown[] {
  return parseAllDocuments(text).map((doc) => doc.toJS());
}

for (const example of EXAMPLES) {
  test(`operator docs/README.md v0.5.0 example ${example}: v1alpha1 loads as its v1alpha2 form, one warning per object (api/v1alpha1/provider_conversion.go)`, async () => {
    const v1 = await loadOrError(path.join(README, `${example}.v1alpha1.yaml`));
    const v2 = await loadOrError(path.join(README, `${example}.v1alpha2.yaml`));
    if (typeof v2 === 'string') {
      // Example 03's Secret holds the README's placeholder `...` as base64 data: both forms fail alike.
      assert.equal(v1, v2);
      assert.match(v2, /not valid base64/);
      return;
    }
    assert.ok(typeof v1 !== 'string', v1 as string);
    assert.deepEqual(content(v1), content(v2));
    assert.equal(v1.warnings?.length, v1.providers.length);
    for (const warning of (v1.warnings ?? []).map(formatWarning)) {
      assert.match(
        warning,
        new RegExp(
          `${example}\\.v1alpha1\\.yaml:\\d+:\\d+: warning: \\w+Provider/[\\w-]+/[\\w-]+: operator\\.cluster\\.x-k8s\\.io/v1alpha1 object`,
        ),
      );
      assert.match(warning, /capi-gitops convert -f \S+ --in-place/);
    }
    assert.deepEqual(v2.warnings, []);
  });

  test(`convert gives the v1alpha2 form of operator docs/README.md v0.5.0 example ${example}, keeping its comments and other documents`, () => {
    const file = path.join(README, `${example}.v1alpha1.yaml`);
    const text = readFileSync(file, 'utf8');
    const { result, problems } = convertManifestText(file, text);
    assert.deepEqual(problems, []);
    const expected = readFileSync(path.join(README, `${example}.v1alpha2.yaml`), 'utf8');
    assert.deepEqual(values(result.text), values(expected));
    for (const comment of text.split('\n').filter((line) => line.trim().startsWith('#')))
      assert.ok(result.text.includes(comment.trim()), `lost comment ${comment}`);
    assert.equal(
      result.converted.length,
      values(text).filter((v) => (v as { apiVersion?: string }).apiVersion?.endsWith('v1alpha1')).length,
    );
    // Documents without v1alpha1 objects keep their bytes.
    const secret = /apiVersion: v1\nkind: (Secret|ConfigMap)\n[\s\S]*?(?=\n---|$)/.exec(text);
    if (secret) assert.ok(result.text.includes(secret[0]));
  });
}

test('fromImageMeta on the TestConvertImageMeta vectors (api/v1alpha1/provider_conversion_test.go)', () => {
  assert.equal(imageUrlOf({ repository: 'registry/namespace', name: 'image', tag: 'tag' }), 'registry/namespace/image:tag');
  assert.equal(imageUrlOf({ name: 'image', tag: 'tag' }), 'image:tag');
  assert.equal(imageUrlOf({ repository: 'registry/namespace', name: 'image' }), 'registry/namespace/image');
  assert.equal(imageUrlOf({ repository: 'registry', name: 'image', tag: 'tag' }), 'registry/image:tag');
  assert.equal(imageUrlOf({ name: 'image' }), 'image');
  assert.equal(imageUrlOf({ repository: 'registry:5000/namespace', name: 'image', tag: 'tag' }), 'registry:5000/namespace/image:tag');
  assert.equal(imageUrlOf({ repository: 'registry:5000/namespace', name: 'image' }), 'registry:5000/namespace/image');
});

const ANNOTATED = `apiVersion: operator.cluster.x-k8s.io/v1alpha1
kind: CoreProvider
metadata:
  name: cluster-api
  namespace: capi-system
  annotations:
    cluster.x-k8s.io/conversion-data: '{"spec":{"version":"v1.12.0","manifestPatches":["kind: Deployment"],"fetchConfig":{"oci":"registry.example.com/capi:v1.12.0"},"manager":{"additionalArgs":{"--kube-api-qps":"50"}},"additionalDeployments":{"extra":{"deployment":{"replicas":2}}}}}'
spec:
  version: v1.12.0
  secretNamespace: capi-system # where the variables are
  secretName: capi-variables
  manager:
    syncPeriod: 500s
  fetchConfig: {}
`;

test('the conversion-data annotation restores manifestPatches, additionalDeployments, fetchConfig.oci and manager.additionalArgs, and goes (provider_conversion.go ConvertTo, utilconversion.UnmarshalData)', async () => {
  const dir = writeTempManifest({ 'core.yaml': ANNOTATED });
  const manifest = await loadManifest([dir]);
  const spec = manifest.providers[0].spec;
  assert.deepEqual(spec.configSecret, { name: 'capi-variables', namespace: 'capi-system' });
  assert.deepEqual(spec.manifestPatches, ['kind: Deployment']);
  assert.deepEqual(spec.fetchConfig, { oci: 'registry.example.com/capi:v1.12.0' });
  assert.deepEqual(spec.manager?.additionalArgs, { '--kube-api-qps': '50' });
  assert.deepEqual(spec.additionalDeployments, { extra: { deployment: { replicas: 2 } } });
  const { result, problems } = convertManifestText('core.yaml', ANNOTATED);
  assert.deepEqual(problems, []);
  assert.ok(!result.text.includes('conversion-data'));
  assert.ok(result.text.includes('# where the variables are'));
  assert.match(result.text, /^ {2}configSecret:\n {4}# where the variables are\n {4}name: capi-variables\n {4}namespace: capi-system/m);
  const again = await loadManifest([writeTempManifest({ 'core.yaml': result.text })]);
  assert.deepEqual(content(again), content(manifest));
});

test('a converted v1alpha1 provider locates each v1alpha2 field the render reports at the v1alpha1 field it came from: configSecret at secretName, imageUrl at the image map, restored additionalArgs at the conversion-data annotation (api/v1alpha1/provider_conversion.go ConvertTo)', async () => {
  const text = `apiVersion: operator.cluster.x-k8s.io/v1alpha1
kind: BootstrapProvider
metadata:
  annotations:
    cluster.x-k8s.io/conversion-data: '{"spec":{"manager":{"additionalArgs":{"--bootstrap-token-ttl":"30m"}}}}'
  name: kubeadm
  namespace: capi-kubeadm-bootstrap-system
spec:
  version: v1.12.0
  secretName: capi-variables
  deployment:
    containers:
    - name: manager
      image:
        repository: registry.example.com/capi
        name: kubeadm-bootstrap-controller
  manager:
    featureGates:
      MachinePool: true
`;
  const manifest = await loadManifest([writeTempManifest({ 'bootstrap.yaml': text })]);
  const provider = manifest.providers[0]!;
  const lineOf = (needle: string) => text.split('\n').findIndex((line) => line.includes(needle)) + 1;
  assert.equal(provider.fieldPosition!(['spec', 'configSecret', 'name']).line, lineOf('secretName:'));
  assert.equal(provider.fieldPosition!(['spec', 'deployment', 'containers', 0, 'imageUrl']).line, lineOf('repository:'));
  assert.equal(provider.fieldPosition!(['spec', 'manager', 'additionalArgs']).line, lineOf('conversion-data'));
  assert.equal(provider.fieldPosition!(['spec', 'manager', 'featureGates']).line, lineOf('MachinePool:'));
});

test('v1alpha1 fields with no v1alpha2 equivalent are errors naming them, at their position', async () => {
  const text = `apiVersion: operator.cluster.x-k8s.io/v1alpha1
kind: InfrastructureProvider
metadata:
 name: azure
 namespace: capz-system
spec:
 version: v1.9.3
 configSecret:
   name: azure-variables
 deployment:
   containers:
   - name: manager
     image:
       repository: gcr.io/myregistry
       tag: v1
 manager:
   syncPeriodd: 5s
---
apiVersion: operator.cluster.x-k8s.io/v1alpha1
kind: AddonProvider
metadata:
  name: helm
  namespace: caaph-system
`;
  // The first object is the v1alpha1 example of the operator's current docs/README.md (which writes v1alpha2's configSecret).
  const dir = writeTempManifest({ 'm.yaml': text });
  await assert.rejects(loadManifest([dir]), (error: CapiGitopsError) => {
    const lines = error.diagnostics.map((d) => `${d.line}:${d.column} ${d.path ?? ''} ${d.message}`);
    assert.equal(lines.length, 4, lines.join('\n'));
    assert.match(lines[0], /^8:2 spec\.configSecret "configSecret" is a v1alpha2 field/);
    assert.match(lines[1], /^13:6 spec\.deployment\.containers\[0\]\.image image has no name: .* imageUrl "gcr\.io\/myregistry\/:v1"/);
    assert.match(lines[2], /^17:4 spec\.manager\.syncPeriodd unknown v1alpha1 field/);
    assert.match(lines[3], /^19:13 apiVersion .*v1alpha1 never served AddonProvider/);
    assert.match(error.diagnostics[2].hint ?? '', /did you mean "syncPeriod"/);
    return true;
  });
  const problems = convertManifestText('m.yaml', text).problems;
  assert.equal(problems.length, 4);
  const cli = await run(['convert', '-f', path.join(dir, 'm.yaml'), '--in-place']);
  assert.equal(cli.code, 1);
  assert.equal(readFileSync(path.join(dir, 'm.yaml'), 'utf8'), text, 'nothing is written');
});

test('a v1alpha1 provider renders the same bytes as its v1alpha2 form', async () => {
  const v2 = corpusManifest('v1.12.0', 'repository', {
    CoreProvider: `  configSecret:\n    name: capi-variables\n  manager:\n    syncPeriod: 500s\n  deployment:\n    containers:\n    - name: manager\n      imageUrl: registry.example.com/capi/cluster-api-controller:v1.12.0\n`,
  });
  const secret = `---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: capi-variables\n  namespace: capi-system\nstringData:\n  UNUSED_SETTING: "v1alpha1-conversion-check"\n`;
  const v1 = v2
    .replace(
      'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider',
      'apiVersion: operator.cluster.x-k8s.io/v1alpha1\nkind: CoreProvider',
    )
    .replace('  configSecret:\n    name: capi-variables\n', '  secretName: capi-variables\n')
    .replace(
      '      imageUrl: registry.example.com/capi/cluster-api-controller:v1.12.0\n',
      '      image:\n        repository: registry.example.com/capi\n        name: cluster-api-controller\n        tag: v1.12.0\n',
    );
  assert.notEqual(v1, v2);
  const render = async (text: string) =>
    (await renderManagementCluster({ manifestPaths: [writeTempManifest({ 'm.yaml': text + secret })] })).files;
  assert.deepEqual(await render(v1), await render(v2));
});

test('CLI: convert prints no Secret: a file of Secrets (kubectl get secret -o yaml, the value also in plain text in last-applied-configuration) is not printed, a file with a Secret beside objects to convert fails at the Secret; --in-place rewrites it (kubectl apply.go last-applied-configuration)', async () => {
  const dir = tempDir();
  const token = SUITE_SECRETS.gitToken;
  const applied = JSON.stringify({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'capi-variables', namespace: 'capi-system' },
    stringData: { GITHUB_TOKEN: token },
  });
  const secret = `apiVersion: v1\nkind: Secret\nmetadata:\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '${applied}'\n  name: capi-variables\n  namespace: capi-system\ndata:\n  GITHUB_TOKEN: ${Buffer.from(token).toString('base64')}\n`;
  const v1 = readFileSync(path.join(README, '05.v1alpha1.yaml'), 'utf8');
  writeFileSync(path.join(dir, 'providers.yaml'), v1);
  writeFileSync(path.join(dir, 'secrets.yaml'), secret);
  const printed = await run(['convert', '-f', '.'], dir);
  assert.equal(printed.code, 0, printed.stderr);
  assert.match(printed.stderr, /secrets\.yaml:1:1: warning: Secret\/capi-system\/capi-variables: its file is not printed/);
  assert.match(printed.stdout, /kind: ControlPlaneProvider/);
  for (const output of [printed.stdout, printed.stderr]) assert.ok(!output.includes(token) && !output.includes('GITHUB_TOKEN'));
  writeFileSync(path.join(dir, 'mixed.yaml'), `${v1.trimEnd()}\n---\n${secret}`);
  const mixed = await run(['convert', '-f', 'mixed.yaml'], dir);
  assert.equal(mixed.code, 1);
  assert.equal(mixed.stdout, '');
  assert.ok(!mixed.stderr.includes(token));
  assert.match(mixed.stderr, /mixed\.yaml:\d+:1: error: Secret\/capi-system\/capi-variables: is in a file with objects to convert/);
  assert.match(mixed.stderr, /hint: rewrite it in place, which prints nothing: capi-gitops convert -f mixed\.yaml --in-place/);
  const inPlace = await run(['convert', '-f', 'mixed.yaml', '--in-place'], dir);
  assert.equal(inPlace.code, 0, inPlace.stderr);
  assert.ok(readFileSync(path.join(dir, 'mixed.yaml'), 'utf8').includes(secret));
});

test('CLI: render warns once per v1alpha1 object; convert --in-place rewrites only files with v1alpha1 objects', async () => {
  const dir = tempDir();
  const v1 = readFileSync(path.join(README, '05.v1alpha1.yaml'), 'utf8');
  const other = 'apiVersion: v1\nkind: ConfigMap\nmetadata:   {name: x, namespace: y}\n';
  writeFileSync(path.join(dir, 'a.yaml'), v1);
  writeFileSync(path.join(dir, 'b.yaml'), other);
  const printed = await run(['convert', '-f', 'a.yaml', '-f', 'b.yaml'], dir);
  assert.equal(printed.code, 0, printed.stderr);
  assert.match(printed.stderr, /a\.yaml:3: converted ControlPlaneProvider\/capi-kubeadm-control-plane-system\/kubeadm to v1alpha2/);
  assert.ok(printed.stdout.endsWith(`---\n${other}`));
  assert.equal(readFileSync(path.join(dir, 'a.yaml'), 'utf8'), v1, 'without --in-place nothing is written');
  const inPlace = await run(['convert', '-f', dir, '--in-place'], dir);
  assert.equal(inPlace.code, 0, inPlace.stderr);
  assert.match(inPlace.stderr, /rewrote 1 of 2 file\(s\)/);
  assert.equal(readFileSync(path.join(dir, 'b.yaml'), 'utf8'), other);
  assert.deepEqual(
    values(readFileSync(path.join(dir, 'a.yaml'), 'utf8')),
    values(readFileSync(path.join(README, '05.v1alpha2.yaml'), 'utf8')),
  );
  const again = await run(['convert', '-f', dir, '--in-place'], dir);
  assert.match(again.stderr, /rewrote 0 of 2 file\(s\)/);
  // render (and lock, plan, update: the same loader) warns once per converted object.
  const v1Corpus = corpusManifest('v1.12.0').replace(
    /operator\.cluster\.x-k8s\.io\/v1alpha2\nkind: (Core|Bootstrap)Provider/g,
    'operator.cluster.x-k8s.io/v1alpha1\nkind: $1Provider',
  );
  const renderDir = writeTempManifest({ 'm.yaml': v1Corpus });
  const rendered = await run(['render', '-f', 'm.yaml', '-o', 'out'], renderDir);
  assert.equal(rendered.code, 0, rendered.stderr);
  const warnings = rendered.stderr.split('\n').filter((line) => / warning: .*v1alpha1 object/.test(line));
  assert.equal(warnings.length, 2, rendered.stderr);
  assert.match(
    warnings[0],
    /^m\.yaml:1:1: warning: CoreProvider\/capi-system\/cluster-api: operator\.cluster\.x-k8s\.io\/v1alpha1 object, converted to v1alpha2/,
  );
  assert.match(rendered.stderr, /hint: rewrite it with: capi-gitops convert -f m\.yaml --in-place/);
});

test('convert --in-place refuses a file that is a symbolic link (a pull request can commit one to a file outside the repository), writing nothing; its hint, run as printed, lets it run', async () => {
  const dir = tempDir();
  const outside = path.join(tempDir(), 'outside.yaml');
  const v1 = readFileSync(path.join(README, '05.v1alpha1.yaml'), 'utf8');
  writeFileSync(outside, v1);
  symlinkSync(outside, path.join(dir, 'a.yaml'));
  const refused = await run(['convert', '-f', 'a.yaml', '--in-place'], dir);
  assert.equal(refused.code, 1, refused.stderr);
  assert.ok(refused.stderr.includes(`a.yaml: error: the manifest file is a symbolic link to ${outside}`), refused.stderr);
  assert.equal(readFileSync(outside, 'utf8'), v1, 'convert wrote through the link');
  assert.ok(lstatSync(path.join(dir, 'a.yaml')).isSymbolicLink());
  assert.deepEqual(readdirSync(dir), ['a.yaml'], 'nothing left beside the file');
  const hint = /hint: replace the link with the file itself \((rm .+)\), then run convert --in-place again/.exec(refused.stderr);
  assert.ok(hint, refused.stderr);
  execFileSync('sh', ['-c', hint[1]!], { cwd: dir });
  const converted = await run(['convert', '-f', 'a.yaml', '--in-place'], dir);
  assert.equal(converted.code, 0, converted.stderr);
  assert.match(readFileSync(path.join(dir, 'a.yaml'), 'utf8'), /v1alpha2/);
  assert.equal(readFileSync(outside, 'utf8'), v1);
});

test('convert --in-place rewrites its files together: a signal before the rename leaves every file as it was, and nothing Git would pick up', async () => {
  const dir = tempDir();
  const v1 = readFileSync(path.join(README, '05.v1alpha1.yaml'), 'utf8');
  writeFileSync(path.join(dir, 'a.yaml'), v1);
  writeFileSync(path.join(dir, 'b.yaml'), v1);
  await settleInterrupted('SIGINT');
  try {
    await assert.rejects(convert([dir], true), InterruptedError);
  } finally {
    resetInterruptState();
  }
  assert.equal(readFileSync(path.join(dir, 'a.yaml'), 'utf8'), v1);
  assert.equal(readFileSync(path.join(dir, 'b.yaml'), 'utf8'), v1);
  assert.deepEqual(readdirSync(dir).sort(), ['a.yaml', 'b.yaml'], 'no temporary file or scratch directory left');
  const { rewritten } = await convert([dir], true);
  assert.equal(rewritten, 2);
  assert.notEqual(readFileSync(path.join(dir, 'a.yaml'), 'utf8'), v1);
});

test('convert keeps flow collections as written: [a] and {a: b} stay unpadded, [ a ] stays padded', () => {
  const doc = (list: string, map: string) =>
    `apiVersion: operator.cluster.x-k8s.io/v1alpha1\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\n  labels: ${map}\nspec:\n  version: v1.7.7\n  deployment:\n    containers:\n    - name: manager\n      command: ${list}\n`;
  const tight = convertManifestText('tight.yaml', doc('[/manager]', '{a: b}')).result.text;
  assert.match(tight, /labels: \{a: b\}\n[\s\S]*command: \[\/manager\]\n/);
  const padded = convertManifestText('padded.yaml', doc('[ /manager ]', '{ a: b }')).result.text;
  assert.match(padded, /labels: \{ a: b \}\n[\s\S]*command: \[ \/manager \]\n/);
});

test('CLI: convert with nothing to convert says so, and prints the input unchanged', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'providers.yaml');
  const text = corpusManifest('v1.12.0');
  writeFileSync(file, text);
  const result = await run(['convert', '-f', file]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, text);
  assert.match(
    result.stderr,
    /^nothing to convert: no operator\.cluster\.x-k8s\.io\/v1alpha1 provider objects, Turtles CAPIProviders or provider objects exported from a cluster in the input$/m,
  );
});

test('convert changes only the lines the conversion changes: comments keep their spacing, a "#" inside quotes is not a comment', () => {
  const text = [
    '# the core provider',
    'apiVersion: operator.cluster.x-k8s.io/v1alpha1',
    'kind: CoreProvider',
    'metadata:',
    '  name: cluster-api     # aligned comment',
    '  namespace: capi-system',
    '  annotations:',
    '    note: "a   # not a comment"   # but this is',
    '    other: "a # not a comment"   # a line that is another\'s form once its spacing is one',
    '    k: "x   # y"',
    '  labels:',
    '    k: "x # y"',
    'spec:',
    '  version: v1.12.0\t# after a tab',
    '  secretName: capi-variables',
    '',
  ].join('\n');
  const { result, problems } = convertManifestText('providers.yaml', text);
  assert.deepEqual(problems, []);
  const before = text.split('\n');
  const after = result.text.split('\n');
  const changed = after.filter((line) => !before.includes(line));
  assert.deepEqual(changed, ['apiVersion: operator.cluster.x-k8s.io/v1alpha2', '  configSecret:', '    name: capi-variables']);
  assert.deepEqual(
    before.filter((line) => !after.includes(line)),
    ['apiVersion: operator.cluster.x-k8s.io/v1alpha1', '  secretName: capi-variables'],
  );
});

test('convert keeps the value of an alias whose anchor the conversion removes (an anchor on the conversion-data annotation, which goes); printing it was an internal error, "Unresolved alias"', () => {
  const text = [
    'apiVersion: operator.cluster.x-k8s.io/v1alpha1',
    'kind: CoreProvider',
    'metadata:',
    '  name: cluster-api',
    '  namespace: capi-system',
    '  annotations:',
    `    cluster.x-k8s.io/conversion-data: &data '{"spec":{"manager":{"additionalArgs":{"--v":"5"}}}}'`,
    '    kept: *data',
    'spec:',
    '  version: v1.7.7',
    '',
  ].join('\n');
  const { result, problems } = convertManifestText('core.yaml', text);
  assert.deepEqual(problems, []);
  const [converted] = parseAllDocuments(result.text).map((d) => d.toJS());
  assert.deepEqual(converted.metadata.annotations, { kept: '{"spec":{"manager":{"additionalArgs":{"--v":"5"}}}}' });
});

test('convert edits a field under an alias (spec: *anchored): the alias takes a copy of its value, edited; setIn through it threw "Expected YAML collection at spec", an internal error', () => {
  const text = [
    'apiVersion: operator.cluster.x-k8s.io/v1alpha1',
    'kind: InfrastructureProvider',
    'metadata:',
    '  name: aws',
    '  namespace: capa-system',
    '  annotations:',
    `    cluster.x-k8s.io/conversion-data: '{"spec":{"fetchConfig":{"oci":"registry.example/capa:v2.9.0"}}}'`,
    'x-spec: &spec',
    '  version: v2.9.0',
    '  fetchConfig: {url: https://example.com/capa}',
    'spec: *spec',
    '',
  ].join('\n');
  const { result } = convertManifestText('aws.yaml', text);
  const [converted] = parseAllDocuments(result.text).map((d) => d.toJS());
  assert.equal(converted.spec.version, 'v2.9.0');
  assert.deepEqual(converted.spec.fetchConfig, { url: 'https://example.com/capa', oci: 'registry.example/capa:v2.9.0' });
});

test('convert keeps a CRLF file CRLF: the converted documents too, so the file has one line ending and the diff shows the conversion alone', () => {
  const lf = [
    '# providers',
    'apiVersion: v1',
    'kind: Namespace',
    'metadata:',
    '  name: capi-system',
    '---',
    'apiVersion: operator.cluster.x-k8s.io/v1alpha1',
    'kind: CoreProvider',
    'metadata:',
    '  name: cluster-api',
    '  namespace: capi-system',
    'spec:',
    '  version: v1.7.7   # pinned',
    '  secretName: capi-secrets',
    '',
  ].join('\n');
  const { result, problems } = convertManifestText('crlf.yaml', lf.replace(/\n/g, '\r\n'));
  assert.deepEqual(problems, []);
  assert.equal(result.text.replace(/\r\n/g, ''), result.text.replace(/\r\n/g, '').replace(/\n/g, ''), 'no bare LF');
  assert.equal(result.text, convertManifestText('lf.yaml', lf).result.text.replace(/\n/g, '\r\n'));
  assert.match(result.text, /\r\n {2}version: v1\.7\.7 {3}# pinned\r\n {2}configSecret:\r\n {4}name: capi-secrets\r\n$/);
});

/** A v1alpha1 object as `kubectl get coreproviders -A -o yaml` prints it from the cluster. */
const EXPORTED = `apiVersion: v1
items:
- apiVersion: operator.cluster.x-k8s.io/v1alpha1
  kind: CoreProvider
  metadata:
    annotations:
      kubectl.kubernetes.io/last-applied-configuration: |
        {"apiVersion":"operator.cluster.x-k8s.io/v1alpha1","kind":"CoreProvider","metadata":{"annotations":{},"name":"cluster-api","namespace":"capi-system"},"spec":{"secretName":"capi-variables","version":"v1.12.0"}}
      team.example.com/owner: platform # kept
    creationTimestamp: "2024-02-12T08:01:10Z"
    finalizers:
    - provider.cluster.x-k8s.io
    generation: 4
    labels:
      tier: management
    managedFields:
    - apiVersion: operator.cluster.x-k8s.io/v1alpha1
      fieldsType: FieldsV1
      fieldsV1:
        f:spec:
          f:secretName: {}
      manager: kubectl-client-side-apply
      operation: Update
    name: cluster-api
    namespace: capi-system
    resourceVersion: "99120"
    uid: 1d5a8c3e-0b7e-4f11-8f0e-6e5a1b2c3d4e
  spec:
    secretName: capi-variables
    version: v1.12.0
  status:
    conditions:
    - lastTransitionTime: "2024-02-12T08:03:00Z"
      status: "True"
      type: Ready
    contract: v1beta2
    installedVersion: v1.12.0
    observedGeneration: 4
kind: List
metadata:
  resourceVersion: ""
`;

/** EXPORTED's object as convert writes it, v1alpha2, without what the cluster wrote. */
const EXPORTED_AS_WRITTEN = {
  apiVersion: 'operator.cluster.x-k8s.io/v1alpha2',
  kind: 'CoreProvider',
  metadata: {
    annotations: { 'team.example.com/owner': 'platform' },
    labels: { tier: 'management' },
    name: 'cluster-api',
    namespace: 'capi-system',
  },
  spec: { configSecret: { name: 'capi-variables' }, version: 'v1.12.0' },
};

test('convert writes an exported object as a desired state for Git: status, managedFields, uid, resourceVersion, generation, creationTimestamp, finalizers and the v1alpha1 last-applied-configuration go, name, labels and other annotations stay (kubectl-neat cmd/neat.go neatMetadata and neatStatus; apiserver storage/errors.go ErrResourceVersionSetOnCreate)', () => {
  const { result, problems } = convertManifestText('providers.yaml', EXPORTED);
  assert.deepEqual(problems, []);
  const [list] = values(result.text) as { items: Record<string, unknown>[] }[];
  assert.deepEqual(list!.items[0], EXPORTED_AS_WRITTEN);
  assert.match(result.text, /team\.example\.com\/owner: platform # kept\n/);
  // the List's own metadata is kubectl's, not an object's: it stays as printed
  assert.match(result.text, /\nmetadata:\n {2}resourceVersion: ""\n$/);
});

test('convert writes an exported v1alpha2 object as a desired state too, saying so; one written for Git (no server-set field) is left as it is, byte for byte (kubectl-neat cmd/neat.go neatMetadata and neatStatus)', async () => {
  const v1alpha2 = EXPORTED.replace('operator.cluster.x-k8s.io/v1alpha1', 'operator.cluster.x-k8s.io/v1alpha2').replace(
    'secretName: capi-variables',
    'configSecret:\n      name: capi-variables',
  );
  const written = `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: BootstrapProvider
metadata:
  name: kubeadm # as written
  namespace: capi-kubeadm-bootstrap-system
spec:
  version: v1.12.0
`;
  const { result, problems } = convertManifestText('providers.yaml', `${v1alpha2}---\n${written}`);
  assert.deepEqual(problems, []);
  const [list, bootstrap] = values(result.text) as { items: Record<string, unknown>[] }[];
  assert.deepEqual(list!.items[0], EXPORTED_AS_WRITTEN);
  assert.ok(bootstrap);
  assert.ok(result.text.endsWith(`---\n${written}`), result.text);
  assert.deepEqual(
    result.converted.map((c) => `${c.line} ${c.note}`),
    ['3 removed the status and server-set metadata of CoreProvider/capi-system/cluster-api'],
  );

  // the CLI, in place: the file is rewritten once, and a second run has nothing to convert
  const dir = tempDir();
  const file = path.join(dir, 'providers.yaml');
  writeFileSync(file, v1alpha2);
  const first = await run(['convert', '-f', file, '--in-place']);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stderr, /providers\.yaml:3: removed the status and server-set metadata of CoreProvider\/capi-system\/cluster-api\n/);
  assert.doesNotMatch(readFileSync(file, 'utf8'), /managedFields|resourceVersion: "99120"|status:|uid:/);
  const second = await run(['convert', '-f', file, '--in-place']);
  assert.match(second.stderr, /^nothing to convert: /m);
  assert.match(second.stderr, /rewrote 0 of 1 file\(s\)/);
});

test("convert of an export Argo CD tracks by label drops that label as render does, and names the Application to stop: the converted file renders the same labels, not the old Application's tracking label as the team's own (argo-cd docs user-guide/resource_tracking.md)", async () => {
  const exported = `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
  namespace: capi-system
  resourceVersion: "48213"
  labels:
    app.kubernetes.io/instance: capi-providers
    tier: management
spec:
  version: v1.12.0
`;
  const { result, problems } = convertManifestText('providers.yaml', exported);
  assert.deepEqual(problems, []);
  const labels = async (text: string) => (await loadManifest([writeTempManifest({ 'providers.yaml': text })])).providers[0]!.labels;
  assert.deepEqual(await labels(exported), { tier: 'management' });
  assert.deepEqual(await labels(result.text), await labels(exported));
  // render told which Application to stop; the converted file no longer says it was tracked, so convert tells it
  assert.deepEqual(
    result.warnings.map((w) => `${w.line}:${w.column} ${w.message.split(';')[0]}`),
    ['8:5 exported from a cluster where Argo CD Application capi-providers applies it'],
  );
});

test('convert of an export Flux, Helm or Argo CD applied drops their tracking metadata as render does, telling each owner once: the converted file renders with no owner warning (fluxcd/pkg ssa labels, helm pkg/action/validate.go, argo-cd docs user-guide/resource_tracking.md)', async () => {
  const exported = `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
  namespace: capi-system
  resourceVersion: "48213"
  labels:
    kustomize.toolkit.fluxcd.io/name: capi
    kustomize.toolkit.fluxcd.io/namespace: flux-system
    app.kubernetes.io/managed-by: Helm
    tier: management
  annotations:
    argocd.argoproj.io/tracking-id: capi-app:operator.cluster.x-k8s.io/CoreProvider:capi-system/cluster-api
    meta.helm.sh/release-name: capi
    meta.helm.sh/release-namespace: capi-system
spec:
  version: v1.12.0
`;
  const { result, problems } = convertManifestText('providers.yaml', exported);
  assert.deepEqual(problems, []);
  assert.deepEqual(
    result.warnings.map((w) => `${w.line}:${w.column} ${w.message.split(';')[0]}`),
    [
      '8:5 exported from a cluster where Flux Kustomization flux-system/capi applies it',
      '13:5 exported from a cluster where Argo CD Application capi-app applies it',
    ],
  );
  const load = async (text: string) => loadManifest([writeTempManifest({ 'providers.yaml': text })]);
  const [before, after] = [await load(exported), await load(result.text)];
  assert.deepEqual(after.providers[0]!.labels, before.providers[0]!.labels);
  assert.deepEqual(after.providers[0]!.annotations, before.providers[0]!.annotations);
  assert.deepEqual(after.warnings ?? [], []);
  assert.match(result.text, /labels:\n    tier: management\nspec:/);

  // written for Git, the same labels are the team's: convert leaves the file alone
  const written = exported.replace('  resourceVersion: "48213"\n', '');
  assert.equal(convertManifestText('providers.yaml', written).result.converted.length, 0);
});
