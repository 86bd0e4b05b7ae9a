/**
 * A fleet's unused variables are judged across its clusters, once each, at the variable's own
 * line: the shared Config's value when no cluster's component reads it (every cluster sets its own
 * or has no component using it), a cluster's own value when none of its components reads it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exampleCopy } from '../helpers/cli.js';
import { corpusUrl, writeTempManifest } from '../helpers/corpus-manifest.js';
import { renderOutput } from '../../src/app/run.js';
import { CapiGitopsError, type Diagnostic } from '../../src/core/diagnostics.js';

/** The example (EXAMPLE_REGION in its Config, read by its infrastructure provider) as a fleet. */
async function warningsOf(clusters: string, ...args: string[]): Promise<{ warnings: Diagnostic[]; manifest: string }> {
  const manifest = path.join(exampleCopy(), 'management-cluster');
  rmSync(path.join(manifest, 'capi-gitops.lock.yaml'));
  writeFileSync(path.join(manifest, 'fleet.yaml'), `apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n${clusters}`);
  const warnings: Diagnostic[] = [];
  await renderOutput({ manifestPaths: [manifest], clusters: args, onWarning: (w) => warnings.push(w) });
  return { warnings: warnings.filter((w) => /variable|Config's value/.test(w.message)), manifest };
}

/** The 1-based line of `text` in `file` and the column where `value` starts on it. */
function place(file: string, text: string, value: string): { line: number; column: number } {
  const lines = readFileSync(file, 'utf8').split('\n');
  const index = lines.findIndex((l) => l.includes(text));
  assert.ok(index >= 0, `${text} not in ${file}`);
  return { line: index + 1, column: lines[index]!.indexOf(value) + 1 };
}

function assertAt(w: Diagnostic, file: string, where: { line: number; column: number }): void {
  assert.deepEqual({ file: path.resolve(w.file!), line: w.line, column: w.column }, { file: path.resolve(file), ...where });
}

test('a Config variable one cluster overrides and the other has no component for is warned once, at its own line, saying so (hint needs no single-cluster command)', async () => {
  const { warnings, manifest } = await warningsOf(
    '- name: lab-1\n  providers:\n    InfrastructureProvider/example: null\n- name: eu-1\n  variables: {EXAMPLE_REGION: eu-central-1}\n',
  );
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  const [w] = warnings;
  const config = path.join(manifest, 'config.yaml');
  assertAt(w!, config, place(config, '  EXAMPLE_REGION: eu-west-1', 'eu-west-1'));
  assert.equal(w!.object, 'Config');
  assert.equal(w!.path, 'variables.EXAMPLE_REGION');
  assert.equal(
    w!.message,
    "the Config's value of EXAMPLE_REGION is never used: it is overridden in cluster eu-1, and no component of cluster lab-1 reads it",
  );
  assert.equal(w!.hint, "remove EXAMPLE_REGION from the Config's variables");
});

test('a Config variable every cluster overrides is warned once: its value is never used', async () => {
  const { warnings } = await warningsOf('- name: eu-1\n  variables: {EXAMPLE_REGION: a}\n- name: us-1\n  variables: {EXAMPLE_REGION: b}\n');
  assert.deepEqual(
    warnings.map((w) => w.message),
    ["the Config's value of EXAMPLE_REGION is overridden by every cluster, so it is never used"],
  );
});

test("a Config variable a cluster's component reads is not warned about, whatever the other clusters do", async () => {
  const { warnings } = await warningsOf('- name: eu-1\n- name: us-1\n  variables: {EXAMPLE_REGION: us-east-1}\n');
  assert.deepEqual(warnings, []);
});

test("a cluster's own variable no component of it reads is warned at the overlay's line, naming the cluster, with did-you-mean", async () => {
  const { warnings, manifest } = await warningsOf('- name: eu-1\n  variables: {EXAMPLE_REGON: x}\n- name: us-1\n');
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  const fleet = path.join(manifest, 'fleet.yaml');
  assertAt(warnings[0]!, fleet, place(fleet, 'EXAMPLE_REGON', 'x}'));
  assert.equal(warnings[0]!.object, 'cluster eu-1, overlay: Config');
  assert.match(
    warnings[0]!.message,
    /^variable EXAMPLE_REGON is not used by any component of cluster eu-1; did you mean EXAMPLE_REGION\?$/,
  );
  assert.equal(warnings[0]!.hint, 'rename EXAMPLE_REGON to EXAMPLE_REGION');
});

test('with --cluster, the shared Config is not judged from the clusters rendered alone', async () => {
  const { warnings } = await warningsOf('- name: eu-1\n  variables: {EXAMPLE_REGION: a}\n- name: us-1\n', 'eu-1');
  assert.deepEqual(warnings, []);
});

/**
 * The example with EXAMPLE_REGION also in the infrastructure provider's configSecret (public, so
 * it may land in the Deployment): the Secret's value wins over the Config's (docs/secrets.md).
 */
function withConfigSecret(manifest: string): void {
  const providers = path.join(manifest, 'providers.yaml');
  const text = readFileSync(providers, 'utf8');
  const infra = 'kind: InfrastructureProvider\nmetadata:\n  name: example\n  namespace: capex-system\nspec:\n';
  assert.ok(text.includes(infra));
  writeFileSync(providers, text.replace(infra, `${infra}  configSecret: {name: capex-vars}\n`));
  writeFileSync(
    path.join(manifest, 'secret.yaml'),
    'apiVersion: v1\nkind: Secret\nmetadata: {name: capex-vars, namespace: capex-system}\nstringData:\n  EXAMPLE_REGION: us-east-2\n',
  );
  writeFileSync(
    path.join(manifest, 'public.yaml'),
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nsecrets: {public: [EXAMPLE_REGION]}\n',
  );
}

test('a Config variable the configSecret also gives is warned at its line: the Secret wins, so the value is not used (docs/secrets.md precedence)', async () => {
  const manifest = path.join(exampleCopy(), 'management-cluster');
  rmSync(path.join(manifest, 'capi-gitops.lock.yaml'));
  withConfigSecret(manifest);
  const warnings: Diagnostic[] = [];
  await renderOutput({ manifestPaths: [manifest], onWarning: (w) => warnings.push(w) });
  const told = warnings.filter((w) => /variable/.test(w.message));
  assert.equal(told.length, 1, JSON.stringify(warnings));
  const config = path.join(manifest, 'config.yaml');
  assertAt(told[0]!, config, place(config, '  EXAMPLE_REGION: eu-west-1', 'eu-west-1'));
  assert.equal(
    told[0]!.message,
    "variable EXAMPLE_REGION is not used: Secret/capex-system/capex-vars has it too, and a configSecret's value wins",
  );
  assert.equal(
    told[0]!.hint,
    "remove EXAMPLE_REGION from the Config's variables, or from Secret/capex-system/capex-vars so that this value is used",
  );
});

test("a cluster's own variable that the shared configSecret also gives is warned at the overlay's line: every cluster gets the Secret's value", async () => {
  const manifest = path.join(exampleCopy(), 'management-cluster');
  rmSync(path.join(manifest, 'capi-gitops.lock.yaml'));
  withConfigSecret(manifest);
  const fleet = path.join(manifest, 'fleet.yaml');
  writeFileSync(
    fleet,
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: eu-1\n  variables: {EXAMPLE_REGION: eu-central-1}\n- name: us-1\n',
  );
  const warnings: Diagnostic[] = [];
  await renderOutput({ manifestPaths: [manifest], onWarning: (w) => warnings.push(w) });
  const told = warnings.filter((w) => /variable|Config's value/.test(w.message)).sort((a, b) => a.message.localeCompare(b.message));
  assert.deepEqual(
    told.map((w) => w.message),
    [
      "the Config's value of EXAMPLE_REGION is never used: it is overridden in cluster eu-1, and cluster us-1 reads it from Secret/capex-system/capex-vars, whose value wins",
      "variable EXAMPLE_REGION is not used: Secret/capex-system/capex-vars has it too, and a configSecret's value wins",
    ],
  );
  const own = told.find((w) => w.message.startsWith('variable'))!;
  assertAt(own, fleet, place(fleet, 'EXAMPLE_REGION: eu-central-1', 'eu-central-1'));
  assert.equal(own.object, 'cluster eu-1, overlay: Config');
  assert.equal(
    own.hint,
    "remove EXAMPLE_REGION from cluster eu-1's variables, or from Secret/capex-system/capex-vars so that this value is used",
  );
});

test("a cluster's value that breaks the components' YAML is told at the overlay's line, with a hint that names no `render --list-variables` (it refuses a fleet)", async () => {
  const manifest = path.join(exampleCopy(), 'management-cluster');
  rmSync(path.join(manifest, 'capi-gitops.lock.yaml'));
  const fleet = path.join(manifest, 'fleet.yaml');
  writeFileSync(
    fleet,
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: eu-1\n  variables: {EXAMPLE_REGION: "eu\\n  bad: [x"}\n- name: us-1\n',
  );
  const error = await renderOutput({ manifestPaths: [manifest] }).then(
    () => assert.fail('expected the render to fail'),
    (err: unknown) => err as CapiGitopsError,
  );
  assert.ok(error instanceof CapiGitopsError, String(error));
  assert.equal(error.diagnostics.length, 1, error.message);
  const [problem] = error.diagnostics;
  assertAt(problem!, fleet, place(fleet, 'EXAMPLE_REGION: "eu', '"eu'));
  assert.match(problem!.message, /the value of variable EXAMPLE_REGION \(from Config\.variables\) breaks the YAML/);
  assert.doesNotMatch(problem!.hint ?? '', /--list-variables/);
  assert.equal(problem!.hint, 'check the value of EXAMPLE_REGION where Config.variables gives it');
});

test("a fleet's configSecret key no cluster reads is hinted without render --list-variables, which refuses a fleet", async () => {
  const manifest = path.join(exampleCopy(), 'management-cluster');
  rmSync(path.join(manifest, 'capi-gitops.lock.yaml'));
  withConfigSecret(manifest);
  const secret = path.join(manifest, 'secret.yaml');
  writeFileSync(secret, `${readFileSync(secret, 'utf8')}  EXAMPLE_UNUSED: x\n`);
  writeFileSync(
    path.join(manifest, 'fleet.yaml'),
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: eu-1\n- name: us-1\n',
  );
  const warnings: Diagnostic[] = [];
  await renderOutput({ manifestPaths: [manifest], onWarning: (w) => warnings.push(w) });
  const told = warnings.filter((w) => /EXAMPLE_UNUSED/.test(w.message));
  assert.equal(told.length, 1, JSON.stringify(warnings));
  assertAt(told[0]!, secret, place(secret, 'EXAMPLE_UNUSED', 'EXAMPLE_UNUSED'));
  assert.equal(told[0]!.message, 'variable EXAMPLE_UNUSED is not used by any component');
  assert.equal(told[0]!.hint, 'remove it from Secret/capex-system/capex-vars');
});

/** A fleet whose core is a Rancher Turtles CAPIProvider (`spec` lines given), cluster a2 setting EXP_MACHINE_POOL. */
async function turtlesFleetWarnings(spec: string): Promise<{ warnings: Diagnostic[]; core: string }> {
  const dir = writeTempManifest({
    'core.yaml': `apiVersion: turtles-capi.cattle.io/v1alpha1
kind: CAPIProvider
metadata: {name: cluster-api, namespace: capi-system}
spec:
  type: core
  version: v1.10.4
  fetchConfig:
    url: ${corpusUrl('cluster-api', 'latest', 'core-components.yaml')}
${spec}`,
    'config.yaml': `apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {version: v1.13.0, url: "${corpusUrl('cert-manager', 'v1.13.0', 'cert-manager.yaml')}"}
clusters:
- name: a1
- name: a2
  variables: {EXP_MACHINE_POOL: "false"}
`,
  });
  const warnings: Diagnostic[] = [];
  await renderOutput({ manifestPaths: [dir], onWarning: (w) => warnings.push(w) });
  return { warnings: warnings.filter((w) => /variable/.test(w.message)), core: path.join(dir, 'core.yaml') };
}

test("a cluster's variable that the config Secret made from a Turtles CAPIProvider also gives: the Secret wins as any configSecret (Turtles writes its defaults and variables into it, internal/provider/defaults.go), and the hint names the CAPIProvider's field at its line, not a Secret the input does not have", async () => {
  const { warnings, core } = await turtlesFleetWarnings('');
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  const [w] = warnings;
  assert.match(
    w!.message,
    /^variable EXP_MACHINE_POOL is not used: Secret\/capi-system\/cluster-api \(the config Secret Turtles writes from CAPIProvider\/capi-system\/cluster-api\) has it too/,
  );
  // no spec.variables yet: where it goes, beside spec.type
  const at = place(core, '  type: core', 'type');
  assert.equal(
    w!.hint,
    `remove EXP_MACHINE_POOL from cluster a2's variables, or set EXP_MACHINE_POOL to this value in CAPIProvider/capi-system/cluster-api's spec.variables (${core}:${at.line}:${at.column})`,
  );
  const given = await turtlesFleetWarnings('  variables:\n    EXP_MACHINE_POOL: "true"\n');
  const own = place(given.core, '    EXP_MACHINE_POOL: "true"', 'EXP_MACHINE_POOL');
  assert.match(given.warnings[0]!.hint!, new RegExp(`spec\\.variables \\(${given.core}:${own.line}:${own.column}\\)$`));
});

test('when the CAPIProvider has spec.features, which Turtles applies after its variables (defaults.go setFeatures), the hint names the feature at its line', async () => {
  const { warnings, core } = await turtlesFleetWarnings('  features:\n    machinePool: true\n');
  const at = place(core, '    machinePool: true', 'machinePool');
  assert.equal(
    warnings[0]!.hint,
    `remove EXP_MACHINE_POOL from cluster a2's variables, or set spec.features.machinePool in CAPIProvider/capi-system/cluster-api (${core}:${at.line}:${at.column}) to this value`,
  );
});
