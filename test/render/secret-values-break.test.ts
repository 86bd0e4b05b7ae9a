/**
 * A variable value (from a configSecret or the Config) that breaks the artifact once substituted,
 * changes an object's shape, or is read by a transform: through the CLI, each problem at its
 * file:line:column, nothing written, and no secret value in any output.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { assertNoStackTrace, exampleCopy, runCli, type CliResult } from '../helpers/cli.js';
import { assertNoSecret, inlineSecretFiles, SUITE_SECRETS } from '../helpers/secret-scan.js';

interface Example {
  dir: string;
  manifest: string;
  out: string;
  /** The configSecret's file. */
  secretFile: string;
}

/** The example with the infrastructure provider reading `stringData` from a configSecret (and `extra` provider fields). */
function example(stringData: Record<string, string>, extra = ''): Example {
  const dir = exampleCopy();
  const manifest = path.join(dir, 'management-cluster');
  appendFileSync(path.join(manifest, 'providers.yaml'), `  configSecret:\n    name: capex-variables\n${extra}`);
  const secretFile = path.join(manifest, 'secret.yaml');
  const data = Object.entries(stringData).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}\n`);
  writeFileSync(
    secretFile,
    `apiVersion: v1\nkind: Secret\nmetadata:\n  name: capex-variables\n  namespace: capex-system\nstringData:\n${data.join('')}`,
  );
  return { dir, manifest, out: path.join(dir, 'out'), secretFile };
}

function assertRefused(result: CliResult, ex: Example, secrets: string[]): void {
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /nothing was written\n$/);
  assert.equal(existsSync(ex.out), false);
  assertNoSecret(secrets, { texts: { stdout: result.stdout, stderr: result.stderr } });
}

/** 1-based line of `key:` in the configSecret's file. */
function keyLine(ex: Example, key: string): number {
  return (
    readFileSync(ex.secretFile, 'utf8')
      .split('\n')
      .findIndex((l) => l.startsWith(`  ${key}:`)) + 1
  );
}

// "a: b: c" after `--region=` is no YAML at all; two such values break the artifact together
const BREAKS_REGION = `${SUITE_SECRETS.splitToken}: x: y`;
const BREAKS_ADDRESS = `${SUITE_SECRETS.newToken}: x: y`;

test('one secret value that breaks the artifact YAML names its variable and Secret at the Secret key, never the value', async () => {
  const ex = example({ EXAMPLE_REGION: BREAKS_REGION });
  const result = await runCli(['render', '-f', ex.manifest, '-o', ex.out]);
  assertRefused(result, ex, [BREAKS_REGION, SUITE_SECRETS.splitToken]);
  // (after the warning that the Config's EXAMPLE_REGION loses to the Secret's)
  assert.ok(
    result.stderr.includes(
      `${ex.secretFile}:${keyLine(ex, 'EXAMPLE_REGION')}:3: error: InfrastructureProvider/capex-system/example: ` +
        'the value of variable EXAMPLE_REGION (from Secret capex-system/capex-variables) breaks the YAML of the components it is substituted into\n',
    ),
    result.stderr,
  );
});

test('two secret values that each break the artifact: each variable is named with its Secret at its key, as one is (the parser message withheld)', async () => {
  const ex = example({ EXAMPLE_REGION: BREAKS_REGION, EXAMPLE_DIAGNOSTICS_ADDRESS: BREAKS_ADDRESS });
  const result = await runCli(['render', '-f', ex.manifest, '-o', ex.out]);
  assertRefused(result, ex, [BREAKS_REGION, BREAKS_ADDRESS, SUITE_SECRETS.splitToken, SUITE_SECRETS.newToken]);
  // either value alone left the artifact broken: the parser's errors deep in the substituted text were told instead
  const errors = result.stderr.split('\n').filter((l) => l.includes(': error: '));
  assert.deepEqual(
    errors,
    ['EXAMPLE_REGION', 'EXAMPLE_DIAGNOSTICS_ADDRESS'].map(
      (name) =>
        `${ex.secretFile}:${keyLine(ex, name)}:3: error: InfrastructureProvider/capex-system/example: the value of variable ${name} ` +
        '(from Secret capex-system/capex-variables) breaks the YAML of the components it is substituted into',
    ),
  );
});

test('a value with ": " that parses but makes a container arg a mapping is refused naming the variable (operator component_customizer.go scheme.Convert)', async () => {
  // before: `internal error: TypeError: a.startsWith is not a function` from the manager customisation
  const value = `${SUITE_SECRETS.oldToken}: on`;
  const ex = example({ EXAMPLE_DIAGNOSTICS_ADDRESS: value });
  const result = await runCli(['render', '-f', ex.manifest, '-o', ex.out]);
  assertRefused(result, ex, [value, SUITE_SECRETS.oldToken]);
  assert.ok(
    result.stderr.startsWith(
      `${ex.secretFile}:${keyLine(ex, 'EXAMPLE_DIAGNOSTICS_ADDRESS')}:3: error: InfrastructureProvider/capex-system/example: ` +
        'the value of variable EXAMPLE_DIAGNOSTICS_ADDRESS (from Secret capex-system/capex-variables) breaks the YAML of the components it is substituted into\n',
    ),
    result.stderr,
  );
});

test('the same value from Config.variables on a provider without customisation is refused too (the operator converts every Deployment): once, at the variable, naming the four providers', async () => {
  const dir = exampleCopy();
  const manifest = path.join(dir, 'management-cluster');
  appendFileSync(path.join(manifest, 'config.yaml'), '  EXAMPLE_DIAGNOSTICS_ADDRESS: "localhost: 8443"\n');
  const out = path.join(dir, 'out');
  const result = await runCli(['render', '-f', manifest, '-o', out]);
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  // all four providers use the variable; the bootstrap one has no spec.deployment nor spec.manager
  const line =
    readFileSync(path.join(manifest, 'config.yaml'), 'utf8').split('\n').indexOf('  EXAMPLE_DIAGNOSTICS_ADDRESS: "localhost: 8443"') + 1;
  assert.match(
    result.stderr,
    new RegExp(
      `config\\.yaml:${line}:\\d+: error: CoreProvider/capi-system/cluster-api, BootstrapProvider/capex-bootstrap-system/example, ` +
        'ControlPlaneProvider/capex-control-plane-system/example, InfrastructureProvider/capex-system/example: ' +
        'the value of variable EXAMPLE_DIAGNOSTICS_ADDRESS \\(from Config\\.variables\\) breaks the YAML of the components it is substituted into\n',
    ),
  );
  assert.equal(result.stderr.match(/: error: /g)?.length, 1, result.stderr);
  assert.equal(existsSync(out), false);
});

test('a secret value with a line break that adds an arg is refused at the Secret key, naming the field and the Secret (taint structureError)', async () => {
  const value = `${SUITE_SECRETS.fleetOldToken}\n        - --extra=on`;
  const ex = example({ EXAMPLE_DIAGNOSTICS_ADDRESS: value });
  for (const strategy of [[], ['--secrets', 'inline', '--allow-secret-values']]) {
    const result = await runCli(['render', '-f', ex.manifest, '-o', ex.out, ...strategy]);
    assertRefused(result, ex, [SUITE_SECRETS.fleetOldToken]);
    assert.equal(
      result.stderr,
      `${ex.secretFile}:${keyLine(ex, 'EXAMPLE_DIAGNOSTICS_ADDRESS')}:3: error: Deployment/capex-system/capex-controller-manager: ` +
        'spec.template.spec.containers[0].args: the value of EXAMPLE_DIAGNOSTICS_ADDRESS (from Secret capex-system/capex-variables) ' +
        'changes the YAML structure of this object, so its fields cannot be tracked\n' +
        '  expected: secret values that substitute into a scalar (no line breaks or YAML syntax that adds fields)\n' +
        '  hint: check the value of EXAMPLE_DIAGNOSTICS_ADDRESS: a line break, or ": " or "- " after one, adds fields where the component expects one value\n' +
        'nothing was written\n',
    );
  }
});

test('of two secret values in one object, the one whose line break changes its structure is named, at its key; an address with a colon is not blamed', async () => {
  const value = `${SUITE_SECRETS.fleetOldToken}\n        - --extra=on`;
  // sorted first, and at the first key: it was blamed beside the value that broke the object, and its key was the one shown
  const ex = example({ EXAMPLE_DIAGNOSTICS_ADDRESS: 'localhost:8443', EXAMPLE_REGION: value });
  const result = await runCli(['render', '-f', ex.manifest, '-o', ex.out]);
  assertRefused(result, ex, [SUITE_SECRETS.fleetOldToken]);
  const errors = result.stderr.split('\n').filter((l) => l.includes(': error: '));
  assert.deepEqual(errors, [
    `${ex.secretFile}:${keyLine(ex, 'EXAMPLE_REGION')}:3: error: Deployment/capex-system/capex-controller-manager: ` +
      'spec.template.spec.containers[0].args: the value of EXAMPLE_REGION (from Secret capex-system/capex-variables) ' +
      'changes the YAML structure of this object, so its fields cannot be tracked',
  ]);
});

/** Not a suite secret: one test declares it public, after which it is written and cached. */
const AGENT_TAG = 'v0-Tq8ZrLw5Mv3Qc8';

/** An extra DaemonSet (spec.additionalManifests) whose image is `${CAPEX_AGENT_IMAGE}`. */
function exampleWithSecretImage(patches = ''): Example {
  const ex = example(
    { CAPEX_AGENT_IMAGE: `registry.example/agent:${AGENT_TAG}` },
    `  additionalManifests:\n    name: capex-extra\n${patches}`,
  );
  const daemonSet = [
    'apiVersion: apps/v1',
    'kind: DaemonSet',
    'metadata: {name: capex-agent, namespace: capex-system}',
    'spec:',
    '  selector: {matchLabels: {app: capex-agent}}',
    '  template:',
    '    metadata: {labels: {app: capex-agent}}',
    '    spec:',
    '      containers:',
    '      - name: agent',
    '        image: ${CAPEX_AGENT_IMAGE}',
  ];
  writeFileSync(
    path.join(ex.manifest, 'extra.yaml'),
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: capex-extra\n  namespace: capex-system\ndata:\n  manifests: |\n${daemonSet.map((l) => `    ${l}\n`).join('')}`,
  );
  return ex;
}

const AGENT = '04-infrastructure-example/daemonset-capex-agent.yaml';

test('an image from a Secret that Config.images rewrites is refused as any secret field, with the hint that works (declare it public)', async () => {
  // before: "with secret values tracked: cannot parse image "${CAPEX_AGENT_IMAGE}": repository name must be lowercase"
  const ex = exampleWithSecretImage();
  const result = await runCli(['render', '-f', ex.manifest, '-o', ex.out]);
  assertRefused(result, ex, [AGENT_TAG]);
  assert.match(
    result.stderr,
    new RegExp(
      `^${ex.secretFile}:${keyLine(ex, 'CAPEX_AGENT_IMAGE')}:3: error: DaemonSet/capex-system/capex-agent: spec\\.template\\.spec\\.containers\\[0\\]\\.image: would receive the secret value of CAPEX_AGENT_IMAGE\\n`,
    ),
  );
  assert.match(result.stderr, /hint: declare it in Config\.secrets\.public \(secrets: \{public: \[CAPEX_AGENT_IMAGE\]\}/);
  appendFileSync(path.join(ex.manifest, 'config.yaml'), 'secrets:\n  public: [CAPEX_AGENT_IMAGE]\n');
  const followed = await runCli(['render', '-f', ex.manifest, '-o', ex.out]);
  assert.equal(followed.code, 0, followed.stderr);
  assert.match(readFileSync(path.join(ex.out, AGENT), 'utf8'), /image: mirror\.example\.internal\/capi\/agent:/);
});

test('an image from a Secret is written with --secrets inline --allow-secret-values, its file declared', async () => {
  const ex = exampleWithSecretImage();
  const result = await runCli(['render', '-f', ex.manifest, '-o', ex.out, '--secrets', 'inline', '--allow-secret-values']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    new RegExp(`warning: --secrets inline: these files hold secret values and will be committed to Git: ${AGENT}\n`),
  );
  assert.deepEqual(inlineSecretFiles(ex.out), [path.join(ex.out, AGENT)]);
  assert.match(readFileSync(path.join(ex.out, AGENT), 'utf8'), /image: mirror\.example\.internal\/capi\/agent:/);
});

/** The flux layout with the flux-substitute strategy, which leaves secret values for Flux to substitute. */
const renderFluxSubstitute = async (ex: { manifest: string; out: string }) =>
  await runCli([
    'render',
    '-f',
    ex.manifest,
    '-o',
    ex.out,
    '--layout',
    'flux',
    '--secrets',
    'flux-substitute',
    '--set',
    'path=clusters/mgmt',
  ]);

test('flux-substitute cannot place an image an override computed from a secret: the hint names what works, at the Secret key', async () => {
  const ex = exampleWithSecretImage();
  const result = await renderFluxSubstitute(ex);
  assertRefused(result, ex, [AGENT_TAG]);
  assert.match(
    result.stderr,
    new RegExp(
      `^${ex.secretFile}:${keyLine(ex, 'CAPEX_AGENT_IMAGE')}:3: error: DaemonSet/capex-system/capex-agent: spec\\.template\\.spec\\.containers\\[0\\]\\.image: receives the secret CAPEX_AGENT_IMAGE, and the flux-substitute strategy cannot substitute a value a transform computed`,
    ),
  );
  // before: "… or choose --secrets flux-substitute", the strategy that refused it
  assert.match(
    result.stderr,
    /hint: declare CAPEX_AGENT_IMAGE in Config\.secrets\.public only if it is a setting, not a credential \(a public variable is written to Git in clear text\), or write it in clear text: --secrets inline --allow-secret-values\n/,
  );
});

test('flux-substitute leaves an image no override touches as the reference Flux substitutes', async () => {
  const ex = exampleWithSecretImage();
  const config = path.join(ex.manifest, 'config.yaml');
  writeFileSync(config, readFileSync(config, 'utf8').replace(/^images:\n  all:\n    repository: .*\n/m, ''));
  const result = await renderFluxSubstitute(ex);
  assert.equal(result.code, 0, result.stderr);
  assert.match(readFileSync(path.join(ex.out, AGENT), 'utf8'), /\n {8}image: \$\{CAPEX_AGENT_IMAGE\}\n/);
  assertNoSecret([AGENT_TAG], { dirs: [ex.out], texts: { stderr: result.stderr } });
});

test('a patch that reads a secret value (RFC 6902 test) is refused at the Secret key, naming the reference and the way out', async () => {
  const patch = [
    '  patches:',
    '  - target: {kind: DaemonSet, name: capex-agent}',
    '    patch: |',
    '      - op: test',
    '        path: /metadata/annotations/token',
    `        value: ${SUITE_SECRETS.oldSecretKey}`,
  ];
  const ex = example({ CAPEX_TOKEN: SUITE_SECRETS.oldSecretKey }, `  additionalManifests:\n    name: capex-extra\n${patch.join('\n')}\n`);
  writeFileSync(
    path.join(ex.manifest, 'extra.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: capex-extra\n  namespace: capex-system\ndata:\n  manifests: |\n' +
      '    apiVersion: apps/v1\n    kind: DaemonSet\n    metadata: {name: capex-agent, namespace: capex-system, annotations: {token: "${CAPEX_TOKEN}"}}\n' +
      '    spec: {selector: {matchLabels: {app: a}}, template: {metadata: {labels: {app: a}}, spec: {containers: [{name: a, image: a.example/a:1}]}}}\n',
  );
  const result = await runCli(['render', '-f', ex.manifest, '-o', ex.out, '--secrets', 'inline', '--allow-secret-values']);
  // the patch value is the secret too: it is in the manifest, so only the CLI output is searched
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  assert.equal(existsSync(ex.out), false);
  assertNoSecret([SUITE_SECRETS.oldSecretKey], { texts: { stdout: result.stdout, stderr: result.stderr } });
  assert.match(
    result.stderr,
    /error: .*with secret values tracked: patches\[0\] \(target .*\) failed on DaemonSet\/capex-system\/capex-agent: /,
  );
  assert.match(
    result.stderr,
    /hint: a transform \(patch target, image, name\) reads the secret value of CAPEX_TOKEN: declare it in Config\.secrets\.public only if it is a setting, not a credential \(a public variable is written to Git in clear text\)\n/,
  );
});
