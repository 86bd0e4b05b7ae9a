/**
 * The CLI as a user runs it: exit codes, messages on stderr, and the output directory left
 * untouched by every kind of bad input.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { readTree } from '../helpers/tree.js';

import { runCli } from '../helpers/cli.js';
import { coreManifest, localCoreRelease, managerDeployment } from '../helpers/local-release.js';

const EXAMPLE = path.join(PROJECT_ROOT, 'examples');

async function run(args: string[], cwd = PROJECT_ROOT) {
  return await runCli(args, { cwd });
}

/** A private copy of the example (manifest + repository), so a test can break it. */
function exampleCopy(): string {
  const dir = tempDir('capi-gitops-example-');
  cpSync(EXAMPLE, dir, { recursive: true });
  return dir;
}

/** Renders the good example into a fresh output directory and returns its path and contents. */
async function renderedOutput(): Promise<{ out: string; before: Map<string, string> }> {
  const out = path.join(tempDir(), 'out');
  const ok = await run(['render', '-f', path.join(EXAMPLE, 'management-cluster'), '-o', out]);
  assert.equal(ok.code, 0, ok.stderr);
  return { out, before: readTree(out) };
}

async function expectFailureLeavesOutput(args: (out: string) => string[], stderrIncludes: (string | RegExp)[]) {
  const { out, before } = await renderedOutput();
  const result = await run(args(out));
  assert.equal(result.code, 1, `exit code; stderr:\n${result.stderr}`);
  for (const expected of stderrIncludes) {
    if (typeof expected === 'string')
      assert.ok(result.stderr.includes(expected), `stderr lacks ${JSON.stringify(expected)}:\n${result.stderr}`);
    else assert.match(result.stderr, expected);
  }
  assert.match(result.stderr, /nothing was written/);
  assert.deepEqual(readTree(out), before, 'the output directory changed');
  return result;
}

test('the bundled example renders, and a second run changes nothing', async () => {
  const { out, before } = await renderedOutput();
  const again = await run(['render', '-f', path.join(EXAMPLE, 'management-cluster'), '-o', out]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /0 written, \d+ unchanged, 0 removed/);
  assert.deepEqual(readTree(out), before);
  assert.match(again.stdout, /resolved cluster-api v0\.2\.0 \(requested latest\)/);
  assert.match(again.stdout, /resolved control-plane-example v0\.2\.0 \(requested ~0\.2\)/);
});

test('broken YAML: exit 1, file:line:column, output untouched', async () => {
  const dir = exampleCopy();
  writeFileSync(path.join(dir, 'management-cluster', 'broken.yaml'), 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: [unclosed\n');
  await expectFailureLeavesOutput(
    (out) => ['render', '-f', path.join(dir, 'management-cluster'), '-o', out],
    [/broken\.yaml:\d+:\d+: error/],
  );
});

test('an unknown field: exit 1, the field path and the closest known field', async () => {
  const dir = exampleCopy();
  const file = path.join(dir, 'management-cluster', 'providers.yaml');
  const text = readTree(path.dirname(file)).get('providers.yaml')!.replace('  version: v0.2.0\n', '  versoin: v0.2.0\n');
  writeFileSync(file, text);
  const result = await expectFailureLeavesOutput(
    (out) => ['render', '-f', path.join(dir, 'management-cluster'), '-o', out],
    [/providers\.yaml:\d+:\d+: error/, 'spec.versoin', 'version'],
  );
  assert.match(result.stderr, /did you mean/i);
});

test('a missing variable: exit 1, the variable named, with a hint', async () => {
  const dir = exampleCopy();
  const file = path.join(dir, 'management-cluster', 'config.yaml');
  writeFileSync(
    file,
    readTree(path.dirname(file))
      .get('config.yaml')!
      .replace(/variables:\n  EXAMPLE_REGION: eu-west-1\n/, ''),
  );
  await expectFailureLeavesOutput((out) => ['render', '-f', path.join(dir, 'management-cluster'), '-o', out], ['EXAMPLE_REGION', 'hint:']);
});

test('two core providers: exit 1 (operator preflight_checks.go)', async () => {
  const dir = exampleCopy();
  writeFileSync(
    path.join(dir, 'management-cluster', 'second-core.yaml'),
    'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: other-system\nspec:\n  version: v0.2.0\n',
  );
  await expectFailureLeavesOutput(
    (out) => ['render', '-f', path.join(dir, 'management-cluster'), '-o', out],
    [/core provider/i, 'second-core.yaml'],
  );
});

test('a contract mismatch (core v1beta2 with a provider whose metadata says v1alpha4): exit 1', async () => {
  const dir = exampleCopy();
  cpSync(
    path.join(PROJECT_ROOT, 'test', 'fixtures', 'resolve', 'repository', 'infrastructure-old'),
    path.join(dir, 'repository', 'infrastructure-old'),
    { recursive: true },
  );
  writeFileSync(
    path.join(dir, 'management-cluster', 'old.yaml'),
    'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: old\n  namespace: old-system\nspec:\n  version: v0.4.0\n  fetchConfig:\n    url: ../repository/infrastructure-old/latest/infrastructure-components.yaml\n',
  );
  await expectFailureLeavesOutput((out) => ['render', '-f', path.join(dir, 'management-cluster'), '-o', out], ['v1alpha4', 'v1beta2']);
});

test('an unreadable source: exit 1, the provider and the location named', async () => {
  const dir = exampleCopy();
  const file = path.join(dir, 'management-cluster', 'providers.yaml');
  writeFileSync(
    file,
    readTree(path.dirname(file))
      .get('providers.yaml')!
      .replace('../repository/infrastructure-example/latest', '../repository/no-such-provider/latest'),
  );
  await expectFailureLeavesOutput(
    (out) => ['render', '-f', path.join(dir, 'management-cluster'), '-o', out],
    ['no-such-provider', 'InfrastructureProvider/capex-system/example'],
  );
});

test('several problems in several files are reported together', async () => {
  const dir = exampleCopy();
  const mc = path.join(dir, 'management-cluster');
  const files = readTree(mc);
  writeFileSync(
    path.join(mc, 'providers.yaml'),
    files.get('providers.yaml')!.replace('maxConcurrentReconciles: 5', 'maxConcurrentReconciles: 0'),
  );
  writeFileSync(path.join(mc, 'config.yaml'), files.get('config.yaml')!.replace('certManager:', 'certManagr:'));
  const result = await expectFailureLeavesOutput((out) => ['render', '-f', mc, '-o', out], ['maxConcurrentReconciles', 'certManagr']);
  assert.match(result.stderr, /\d+ problems/);
});

test('usage errors exit 2: no -f, an unknown flag, render without -o', async () => {
  assert.equal((await run(['render', '-o', 'x'])).code, 2);
  assert.equal((await run(['render', '-f', 'x', '--no-such-flag'])).code, 2);
  const noOutput = await run(['render', '-f', path.join(EXAMPLE, 'management-cluster')]);
  assert.equal(noOutput.code, 2);
  assert.match(noOutput.stderr, /--output/);
  assert.equal((await run(['no-such-command'])).code, 2);
});

test('--help describes every flag', async () => {
  const help = await run(['render', '--help']);
  assert.equal(help.code, 0);
  for (const flag of ['--file', '--output', '--list-variables', '--allow-secret-values']) assert.ok(help.stdout.includes(flag), flag);
  // every option line has a description after the flag column
  // option lines are indented two spaces; a wrapped description is indented to the description column
  const optionLines = help.stdout.split('\n').filter((l) => /^ {2}-/.test(l));
  for (const line of optionLines) assert.match(line, /\S\s{2,}\S/, `no description: ${line}`);
});

test("clusterctl's flags and commands are usage errors that say where capi-gitops takes their meaning", async () => {
  const mc = path.join(EXAMPLE, 'management-cluster');
  const cases: [string[], RegExp][] = [
    [
      ['render', '-f', mc, '-o', 'out', '--target-namespace=capi'],
      /hint: clusterctl's --target-namespace is each provider object's metadata\.namespace/,
    ],
    [['render', '-f', mc, '-o', 'out', '--watching-namespace', 'a'], /hint: .* is its spec\.manager\.cacheNamespace/],
    [['render', '--config', 'clusterctl.yaml'], /hint: clusterctl's configuration is a Config document among the -f files/],
    [['render', '--infrastructure', 'docker'], /hint: each provider is an InfrastructureProvider/],
    [['init'], /hint: clusterctl init's providers are objects in a manifest: capi-gitops render -f <manifest> -o <dir>/],
    [['upgrade', 'plan'], /hint: clusterctl upgrade plan is capi-gitops plan -f <manifest>/],
  ];
  for (const [args, hint] of cases) {
    const result = await run(args);
    assert.equal(result.code, 2, args.join(' '));
    assert.match(result.stderr, /^error: unknown (option|command) /);
    assert.match(result.stderr, hint, args.join(' '));
  }
  assert.doesNotMatch((await run(['render', '--bogus'])).stderr, /hint:/);
});

test('update --images --offline is a usage error (exit 2) naming both flags and the command to run instead, in text and under --json', async () => {
  const mc = path.join(EXAMPLE, 'management-cluster');
  const result = await run(['update', '-f', mc, '--images', '--offline', 'cluster-api']);
  assert.equal(result.code, 2, result.stderr);
  assert.match(
    result.stderr,
    /^error: --images and --offline cannot be used together: --images asks each registry which digest its tags serve now, and --offline asks no registry; run `capi-gitops update -f \S+ --images cluster-api` \(without --offline\)\n\(run with --help for usage\)\n$/,
  );
  const json = await run(['update', '-f', mc, '--images', '--offline', '--json']);
  assert.equal(json.code, 2, json.stderr);
  const document = JSON.parse(json.stdout) as { ok: boolean; usageError?: string };
  assert.equal(document.ok, false);
  assert.match(document.usageError ?? '', /^--images and --offline cannot be used together: /);
});

test('diff --base "" (a base variable left empty) is a usage error, not a diff against no base that looks like a clean one', async () => {
  const mc = path.join(EXAMPLE, 'management-cluster');
  for (const base of ['', ' ']) {
    const result = await run(['diff', '-f', mc, '-o', 'out', '--base', base]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /^error: --base "\s?": expected a branch, tag or commit, e\.g\. --base origin\/main/);
    assert.equal(result.stdout, '');
  }
});

test('-f mc/*.yaml (a shell glob: -f gets the first file, the rest are extra arguments) is a usage error whose hint passes the directory', async () => {
  const mc = path.join(EXAMPLE, 'management-cluster');
  const result = await run(['check', '-f', path.join(mc, 'config.yaml'), path.join(mc, 'providers.yaml'), '-o', 'out']);
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /^error: too many arguments/);
  assert.ok(
    result.stderr.includes(
      `hint: -f takes one path: a shell glob such as -f ${mc}/*.yaml gives it the first file only; pass the directory (-f ${mc})`,
    ),
    result.stderr,
  );
});

test('a variable set only in the environment, as clusterctl users give them, is a warning: capi-gitops renders its default', async () => {
  const out = path.join(tempDir(), 'out');
  // CLUSTER_TOPOLOGY: read by every example provider with default false; EXAMPLE_REGION is given in the
  // Config; EXP_MACHINE_POOL is its default already
  const env = { ...process.env, CLUSTER_TOPOLOGY: 'value-from-env-7f3a', EXAMPLE_REGION: 'us-east-1', EXP_MACHINE_POOL: 'true' };
  const result = await runCli(['render', '-f', path.join(EXAMPLE, 'management-cluster'), '-o', out], { env });
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    new RegExp(
      'providers\\.yaml:5:1: warning: CoreProvider/capi-system/cluster-api: CLUSTER_TOPOLOGY is set in the environment, ' +
        'which capi-gitops does not read \\(clusterctl does\\), so cluster-api, bootstrap-example, control-plane-example and ' +
        'infrastructure-example get its default "false"\\n {2}hint: set CLUSTER_TOPOLOGY under variables: in the Config document',
    ),
  );
  assert.equal(result.stderr.match(/is set in the environment/g)?.length, 1, result.stderr);
  assert.ok(!result.stderr.includes('value-from-env-7f3a'), 'the environment value is never shown');
  // a variable without a default, only in the environment: the warning says why the error follows
  const dir = exampleCopy();
  const config = path.join(dir, 'management-cluster', 'config.yaml');
  writeFileSync(config, readFileSync(config, 'utf8').replace('variables:\n  EXAMPLE_REGION: eu-west-1\n', ''));
  const missing = await runCli(['render', '-f', path.join(dir, 'management-cluster'), '-o', out], { env });
  assert.equal(missing.code, 1, missing.stderr);
  assert.match(missing.stderr, /EXAMPLE_REGION is set in the environment, .*, so infrastructure-example gets no value for it\n/);
  assert.match(missing.stderr, /error: .*value for variable \[EXAMPLE_REGION\] is not set/);
});

test('a credential set only in the environment that lands in a Secret is hinted as --env-secret, never the Config variables that would commit it; the hint followed renders', async () => {
  const components = `${managerDeployment('capi-controller-manager', 'capi-system', 'cluster-api', 'v0.1.0')}---
apiVersion: v1
kind: Secret
metadata: {name: capi-credentials, namespace: capi-system}
stringData:
  token: \${EXAMPLE_API_TOKEN}
`;
  const dir = tempDir();
  writeFileSync(path.join(dir, 'providers.yaml'), coreManifest(localCoreRelease(components), 'secrets: {strategy: inline}\n'));
  const env = { ...process.env, EXAMPLE_API_TOKEN: 'env-token-Tq8ZrLw5Mv3Q' };
  const out = path.join(tempDir(), 'out');
  const result = await runCli(['render', '-f', dir, '-o', out], { env });
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stderr,
    /EXAMPLE_API_TOKEN is set in the environment, .*\n {2}hint: pass it with --env-secret EXAMPLE_API_TOKEN: it lands in a Secret's data, so it is secret \(never under variables: in the Config document\)\n/,
  );
  assert.ok(!result.stderr.includes('env-token-Tq8ZrLw5Mv3Q'), 'the environment value is never shown');
  const followed = await runCli(['render', '-f', dir, '-o', out, '--env-secret', 'EXAMPLE_API_TOKEN', '--allow-secret-values'], { env });
  assert.equal(followed.code, 0, followed.stderr);
  assert.doesNotMatch(followed.stderr, /is set in the environment/);
});

test('--list-variables prints variables, defaults and origins, and masks Secret values', async () => {
  const dir = exampleCopy();
  const mc = path.join(dir, 'management-cluster');
  writeFileSync(
    path.join(mc, 'secret.yaml'),
    'apiVersion: v1\nkind: Secret\nmetadata:\n  name: capex-variables\n  namespace: capex-system\nstringData:\n  EXAMPLE_REGION: top-secret-region\n',
  );
  const providers = readTree(mc)
    .get('providers.yaml')!
    .replace('  version: v0.2.0\n  # A provider', '  version: v0.2.0\n  configSecret:\n    name: capex-variables\n  # A provider');
  writeFileSync(path.join(mc, 'providers.yaml'), providers);
  const result = await run(['render', '-f', mc, '--list-variables']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /EXAMPLE_REGION = \*+ from Secret capex-system\/capex-variables/);
  assert.match(result.stdout, /EXP_MACHINE_POOL = default "true"/);
  assert.ok(!result.stdout.includes('top-secret-region'));
});

test('values from a Secret are refused in the output unless --allow-secret-values', async () => {
  const dir = exampleCopy();
  const mc = path.join(dir, 'management-cluster');
  writeFileSync(
    path.join(mc, 'secret.yaml'),
    'apiVersion: v1\nkind: Secret\nmetadata:\n  name: capex-variables\n  namespace: capex-system\nstringData:\n  EXAMPLE_REGION: top-secret-region\n',
  );
  writeFileSync(
    path.join(mc, 'providers.yaml'),
    readTree(mc)
      .get('providers.yaml')!
      .replace('  version: v0.2.0\n  # A provider', '  version: v0.2.0\n  configSecret:\n    name: capex-variables\n  # A provider'),
  );
  const refused = await expectFailureLeavesOutput((out) => ['render', '-f', mc, '-o', out], ['EXAMPLE_REGION', '--allow-secret-values']);
  assert.ok(!refused.stderr.includes('top-secret-region'), 'the secret value leaked into stderr');
  const out = path.join(tempDir(), 'out');
  const allowed = await run(['render', '-f', mc, '-o', out, '--allow-secret-values']);
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.ok(!allowed.stdout.includes('top-secret-region'));
  assert.ok(
    readTree(out).get('04-infrastructure-example/deployment-capex-controller-manager.yaml')!.includes('--region=top-secret-region'),
  );
});

test('a manifest that moves a locked provider to a lower minor warns at its spec.version (cluster-api-operator internal/controller/preflight_checks.go checkProviderVersion)', async () => {
  const dir = exampleCopy();
  const mc = path.join(dir, 'management-cluster');
  // the example's lock holds cluster-api v0.2.0 (requested latest); pin it back to v0.1.0
  const providers = readTree(mc).get('providers.yaml')!;
  // only the core provider: the example's other providers implement v1beta2, which v0.1.0 refuses
  const core = providers.slice(0, providers.indexOf('---')).replace(/^spec:\n/m, 'spec:\n  version: v0.1.0\n');
  writeFileSync(path.join(mc, 'providers.yaml'), core);
  const result = await run(['render', '-f', mc, '-o', path.join(tempDir(), 'out')]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    /providers\.yaml:\d+:\d+: warning: CoreProvider\/capi-system\/cluster-api: spec\.version: v0\.1\.0 is below the locked v0\.2\.0: a downgrade/,
  );
  // a second render, the lock now at v0.1.0: nothing to warn about
  const again = await run(['render', '-f', mc, '-o', path.join(tempDir(), 'out')]);
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stderr, /downgrade/);
});

test('plan shows the locked version as installed, not a manifest pin edited since (clusterctl cmd/clusterctl/client/cluster/upgrader.go Plan: what runs)', async () => {
  const dir = exampleCopy();
  const mc = path.join(dir, 'management-cluster');
  // the lock holds cluster-api v0.2.0; the manifest now pins v0.1.0, not rendered yet
  const providers = readTree(mc).get('providers.yaml')!;
  writeFileSync(
    path.join(mc, 'providers.yaml'),
    providers.slice(0, providers.indexOf('---')).replace(/^spec:\n/m, 'spec:\n  version: v0.1.0\n'),
  );
  const plan = await run(['plan', '-f', mc, '--json']);
  assert.equal(plan.code, 0, plan.stderr);
  const core = (JSON.parse(plan.stdout) as { providers: { label: string; installed: string }[] }).providers.find(
    (p) => p.label === 'cluster-api',
  );
  assert.equal(core?.installed, 'v0.2.0', plan.stdout);
});

test('a Config.overrides entry that names no rendered object is told at its line, with the rendered object it likely meant (docs/layouts.md)', async () => {
  const dir = exampleCopy();
  const config = path.join(dir, 'management-cluster', 'config.yaml');
  const before = readFileSync(config, 'utf8');
  writeFileSync(
    config,
    `${before}overrides:\n- {kind: Deployment, group: apps, name: capex-controler-manager, namespace: capex-system, unmanaged: true}\n`,
  );
  const line = before.split('\n').length + 1;
  const result = await run(['render', '-f', 'management-cluster', '-o', 'out'], dir);
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stderr,
    new RegExp(
      `^management-cluster/config\\.yaml:${line}:3: error: .*no rendered object is apps Deployment capex-system/capex-controler-manager`,
      'm',
    ),
  );
  assert.match(result.stderr, /hint: did you mean capex-controller-manager\?/);
});

test('convert without -f is a usage error (exit 2), as a missing -f is for every other command (docs/cli.md exit codes)', async () => {
  for (const args of [['convert'], ['convert', '--in-place']]) {
    const result = await run(args);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /^error: at least one -f\/--file <file or directory> is needed\n\(run with --help for usage\)/);
  }
});

test('-f naming the lockfile is told as that, with the -f <dir> that reads the manifest beside it, not as an object of unsupported kind Lock', async () => {
  const mc = path.join(EXAMPLE, 'management-cluster');
  const args = ['-f', path.join(mc, 'capi-gitops.lock.yaml'), '-f', path.join(mc, 'config.yaml'), '-f', path.join(mc, 'providers.yaml')];
  const result = await run(['check', ...args, '-o', 'out']);
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stderr,
    /capi-gitops\.lock\.yaml: error: this is the lockfile capi-gitops keeps beside the manifest, not a manifest file\n/,
  );
  assert.doesNotMatch(result.stderr, /unsupported kind/);
  assert.ok(result.stderr.includes(`(pass the directory, -f ${mc}, which reads`), result.stderr);
});
