/**
 * The mistakes a new user makes in the first hour (issue #10): every problem in one run at its
 * field, and warnings for valid input that is most likely wrong. Each test starts from a copy of
 * the bundled example (a real file tree) with one realistic mistake.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './helpers/paths.js';
import { tempDir } from './helpers/corpus-manifest.js';
import { loadManifest } from '../src/manifest/load.js';
import { renderManagementCluster } from '../src/app/cluster.js';
import { CapiGitopsError, type Diagnostic } from '../src/core/diagnostics.js';
import { planUpgrades, renderUpgradePlanText, type ProviderUpgradeInput } from '../src/resolve/upgrade-plan.js';
import { runCli } from './helpers/cli.js';

/** A private copy of the example without its lockfile, with `edit` applied to providers.yaml and config.yaml. */
function example(
  edit: { providers?: (text: string) => string; config?: (text: string) => string; files?: Record<string, (text: string) => string> } = {},
): string {
  const dir = tempDir('capi-gitops-first-hour-');
  cpSync(path.join(PROJECT_ROOT, 'examples'), dir, { recursive: true });
  rmSync(path.join(dir, 'management-cluster', 'capi-gitops.lock.yaml'));
  const change = (file: string, f?: (text: string) => string) => {
    if (!f) return;
    const full = path.join(dir, file);
    const before = readFileSync(full, 'utf8');
    const after = f(before);
    assert.notEqual(after, before, `the edit of ${file} changed nothing`);
    writeFileSync(full, after);
  };
  change('management-cluster/providers.yaml', edit.providers);
  change('management-cluster/config.yaml', edit.config);
  for (const [file, f] of Object.entries(edit.files ?? {})) change(file, f);
  return dir;
}

async function problems(run: () => Promise<unknown>): Promise<Diagnostic[]> {
  try {
    await run();
  } catch (error) {
    if (error instanceof CapiGitopsError) return error.diagnostics;
    throw error;
  }
  assert.fail('expected the run to fail');
}

/** 1-based line of the first line of `file` containing `text`, and the column where `text` starts. */
function where(file: string, text: string): { line: number; column: number } {
  const lines = readFileSync(file, 'utf8').split('\n');
  const index = lines.findIndex((l) => l.includes(text));
  assert.ok(index >= 0, `${text} not in ${file}`);
  return { line: index + 1, column: lines[index]!.indexOf(text) + 1 };
}

const render = (dir: string, warnings: Diagnostic[] = []) =>
  renderManagementCluster({ manifestPaths: [path.join(dir, 'management-cluster')], onWarning: (w) => warnings.push(w) });

test('an invalid syncPeriod is reported at its value by validation, before anything is fetched (an unknown version elsewhere does not hide it)', async () => {
  const dir = example({
    providers: (t) =>
      t
        .replace('  manager:\n    verbosity: 2', '  manager:\n    verbosity: 2\n    syncPeriod: "10 minutes"')
        .replace('version: "~0.2"', 'version: v0.9.0'),
  });
  const file = path.join(dir, 'management-cluster', 'providers.yaml');
  const found = await problems(() => render(dir));
  const sync = found.find((d) => d.path === 'spec.manager.syncPeriod');
  assert.ok(sync, `no syncPeriod problem in ${JSON.stringify(found)}`);
  assert.deepEqual({ line: sync.line, column: sync.column }, where(file, '"10 minutes"'));
  assert.match(sync.message, /invalid duration "10 minutes"/);
  assert.match(sync.hint ?? '', /units are/);
  // The manifest stage finds it on its own: no provider was resolved to see it.
  const loaded = await problems(() => loadManifest([path.join(dir, 'management-cluster')]));
  assert.equal(loaded.length, 1);
});

test('a misspelled container name is reported at the name in the manifest, not at the object (operator deployment customisation)', async () => {
  const dir = example({ providers: (t) => t.replace('    - name: manager\n      args:', '    - name: manger\n      args:') });
  const file = path.join(dir, 'management-cluster', 'providers.yaml');
  const found = await problems(() => render(dir));
  assert.equal(found.length, 1, JSON.stringify(found));
  assert.equal(found[0]!.path, 'spec.deployment.containers[0].name');
  assert.deepEqual({ line: found[0]!.line, column: found[0]!.column }, where(file, 'manger'));
});

test('deployment.containers[].args keys without -- are a warning at the key, suggesting the flag (operator setArgs writes keys verbatim)', async () => {
  const dir = example({
    providers: (t) => t.replace('        --sync-period: 10m', '        --sync-period: 10m\n        kubeadmconfig-concurrency: "12"'),
  });
  const file = path.join(dir, 'management-cluster', 'providers.yaml');
  const manifest = await loadManifest([path.join(dir, 'management-cluster')]);
  assert.equal(manifest.warnings?.length, 1);
  const [warning] = manifest.warnings!;
  assert.deepEqual({ line: warning!.line, column: warning!.column }, where(file, 'kubeadmconfig-concurrency'));
  assert.match(warning!.message, /no leading "--"/);
  assert.equal(warning!.hint, 'write it as --kubeadmconfig-concurrency');
  // The CLI prints it in the compiler shape, and the render still succeeds.
  const out = path.join(dir, 'out');
  const run = await runCli(['render', '-f', path.join(dir, 'management-cluster'), '-o', out]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stderr,
    /providers\.yaml:\d+:\d+: warning: InfrastructureProvider\/capex-system\/example: spec\.deployment\.containers\[0\]\.args\["kubeadmconfig-concurrency"\]: /,
  );
});

test('manifestPatches given as a mapping: the hint shows the "- |" block form', async () => {
  const dir = example({
    providers: (t) =>
      t.replace(
        '  manager:\n    verbosity: 2',
        '  manager:\n    verbosity: 2\n  manifestPatches:\n    apiVersion: v1\n    kind: ConfigMap',
      ),
  });
  const found = await problems(() => loadManifest([path.join(dir, 'management-cluster')]));
  assert.equal(found.length, 1);
  assert.equal(found[0]!.path, 'spec.manifestPatches');
  assert.match(found[0]!.hint ?? '', /write it as a block:$/);
  // the block is the hint's example, printed with its line breaks under hint:
  assert.match(found[0]!.example ?? '', /^manifestPatches:\n- \|\n {2}apiVersion: v1/);
});

test('a missing variable is reported at the provider object with the artifact as context, suggesting the close name that was given; the given one is warned unused with did-you-mean', async () => {
  const dir = example({ config: (t) => t.replace('  EXAMPLE_REGION: eu-west-1', '  EXAMPLE_REGON: eu-west-1') });
  const file = path.join(dir, 'management-cluster', 'providers.yaml');
  const warnings: Diagnostic[] = [];
  const found = await problems(() => render(dir, warnings));
  assert.equal(found.length, 1, JSON.stringify(found));
  const [missing] = found;
  assert.equal(missing!.object, 'InfrastructureProvider/capex-system/example');
  assert.equal(path.resolve(missing!.file!), path.resolve(file));
  assert.equal(missing!.line, where(file, 'kind: InfrastructureProvider').line - 1);
  assert.match(missing!.message, /value for variable \[EXAMPLE_REGION\] is not set \(used by .*infrastructure-components\.yaml\)/);
  assert.match(missing!.hint ?? '', /EXAMPLE_REGON was given: did you mean EXAMPLE_REGION\?/);
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  assert.match(warnings[0]!.message, /variable EXAMPLE_REGON is not used by any component; did you mean EXAMPLE_REGION\?/);
});

test("a configSecret key no component uses is warned at its own line in the Secret, not at the Secret's first line", async () => {
  const dir = example({
    providers: (t) =>
      t.replace('  version: v0.2.0\n  # A provider', '  version: v0.2.0\n  configSecret:\n    name: example-vars\n  # A provider') +
      '---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: example-vars\n  namespace: capex-system\nstringData:\n  EXP_UNUSED_FLAG: "true"\n',
  });
  const file = path.join(dir, 'management-cluster', 'providers.yaml');
  const warnings: Diagnostic[] = [];
  await render(dir, warnings);
  const unused = warnings.filter((w) => /variable EXP_UNUSED_FLAG is not used/.test(w.message));
  assert.equal(unused.length, 1, JSON.stringify(warnings));
  assert.equal(unused[0]!.object, 'Secret/capex-system/example-vars');
  assert.equal(path.resolve(unused[0]!.file!), path.resolve(file));
  assert.deepEqual({ line: unused[0]!.line, column: unused[0]!.column }, where(file, 'EXP_UNUSED_FLAG'));
});

test('a variable nobody uses is warned even when the render succeeds (EXP_MACHINEPOOL → EXP_MACHINE_POOL)', async () => {
  const dir = example({
    config: (t) => t.replace('  EXAMPLE_REGION: eu-west-1', '  EXAMPLE_REGION: eu-west-1\n  EXP_MACHINEPOOL: "true"'),
  });
  const warnings: Diagnostic[] = [];
  await render(dir, warnings);
  assert.deepEqual(
    warnings.map((w) => w.message),
    ['variable EXP_MACHINEPOOL is not used by any component; did you mean EXP_MACHINE_POOL?'],
  );
});

test('an unknown provider name suggests the closest built-in name of that kind (clusterctl config/providers.go)', async () => {
  const dir = example({
    providers: (t) =>
      t +
      '---\napiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: vpshere\n  namespace: capv-system\n',
  });
  const found = await problems(() => render(dir));
  const unknown = found.find((d) => d.object === 'InfrastructureProvider/capv-system/vpshere');
  assert.ok(unknown, JSON.stringify(found));
  assert.match(unknown.hint ?? '', /did you mean "vsphere"\? set metadata\.name: vsphere/);
});

test('--list-variables prints default "" for an empty quoted default', async () => {
  const dir = example({
    files: {
      'repository/infrastructure-example/v0.2.0/infrastructure-components.yaml': (t) =>
        t.replace('        - --region=${EXAMPLE_REGION}', '        - --region=${EXAMPLE_REGION}\n        - --proxy=${EXAMPLE_PROXY:=""}'),
    },
  });
  const run = await runCli(['render', '-f', path.join(dir, 'management-cluster'), '--list-variables']);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^ {2}EXAMPLE_PROXY = default ""$/m);
});

test('a variable value that breaks the YAML once substituted is reported as the variable and its origin, never its value; *_B64 gets the base64 hint', async () => {
  const components = 'repository/infrastructure-example/v0.2.0/infrastructure-components.yaml';
  const dir = example({
    files: {
      [components]: (t) =>
        t.replace(
          '        - --region=${EXAMPLE_REGION}',
          '        - --region=${EXAMPLE_REGION}\n        - --credentials=${EXAMPLE_CREDENTIALS_B64}',
        ),
    },
    providers: (t) =>
      t.replace('  version: v0.2.0\n  # A provider', '  version: v0.2.0\n  configSecret:\n    name: example-credentials\n  # A provider') +
      '---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: example-credentials\n  namespace: capex-system\nstringData:\n  EXAMPLE_CREDENTIALS_B64: |\n    [default]\n    aws_secret_access_key: s3cr3t-value\n',
  });
  const file = path.join(dir, 'management-cluster', 'providers.yaml');
  const found = await problems(() =>
    renderManagementCluster({ manifestPaths: [path.join(dir, 'management-cluster')], allowSecretValues: true }),
  );
  assert.equal(found.length, 1, JSON.stringify(found));
  const [broken] = found;
  assert.equal(broken!.object, 'InfrastructureProvider/capex-system/example');
  // at the Secret's key, where the value is changed
  assert.equal(broken!.line, where(file, '  EXAMPLE_CREDENTIALS_B64: |').line);
  assert.match(
    broken!.message,
    /the value of variable EXAMPLE_CREDENTIALS_B64 \(from Secret capex-system\/example-credentials\) breaks the YAML of the components it is substituted into/,
  );
  assert.match(broken!.hint ?? '', /under the Secret's stringData the base64 text itself, under data the base64 of that base64/);
  assert.doesNotMatch(JSON.stringify(found), /s3cr3t|aws_secret_access_key/);
});

test('plan shows cert-manager first, as clusterctl upgrade plan does (cmd/clusterctl/cmd/upgrade_plan.go runUpgradePlan)', async () => {
  const core: ProviderUpgradeInput = {
    kind: 'CoreProvider',
    name: 'cluster-api',
    namespace: 'capi-system',
    installed: 'v1.12.0',
    available: ['v1.12.0'],
    releaseSeries: [{ major: 1, minor: 12, contract: 'v1beta2' }],
  };
  const upgrade = renderUpgradePlanText(planUpgrades({ providers: [core], certManager: { installed: 'v1.18.2', target: 'v1.19.1' } }));
  assert.match(upgrade, /^Cert-Manager will be upgraded from "v1\.18\.2" to "v1\.19\.1"\n\nCore provider contract: v1beta2/);
  const current = planUpgrades({ providers: [core], certManager: { installed: 'v1.19.1', target: 'v1.19.1' } });
  assert.deepEqual(current.certManager, { installed: 'v1.19.1', target: 'v1.19.1', shouldUpgrade: false });
  assert.match(renderUpgradePlanText(current), /^Cert-Manager is already up to date\n\n/);
  // certManager.enabled: false is clusterctl's "externally managed": nothing is said.
  assert.match(renderUpgradePlanText(planUpgrades({ providers: [core] })), /^Core provider contract/);
  // The CLI on the example: the locked cert-manager is the one the Config pins, below the default.
  const run = await runCli(['plan', '-f', path.join(PROJECT_ROOT, 'examples', 'management-cluster')]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stdout,
    /^Cert-Manager is at "v0\.1\.0", pinned by certManager\.version and certManager\.url; "v1\.19\.1" is available \(the default, as in clusterctl\): to move, set certManager\.version to it and point certManager\.url at that release\n/,
  );
  const json = JSON.parse((await runCli(['plan', '--json', '-f', path.join(PROJECT_ROOT, 'examples', 'management-cluster')])).stdout) as {
    certManager?: unknown;
  };
  assert.deepEqual(json.certManager, {
    installed: 'v0.1.0',
    target: 'v0.1.0',
    shouldUpgrade: false,
    pinnedBy: ['certManager.version', 'certManager.url'],
    available: 'v1.19.1',
  });

  // update moves providers only, and says so rather than "everything is up to date"
  const copy = tempDir('capi-gitops-update-');
  cpSync(path.join(PROJECT_ROOT, 'examples'), copy, { recursive: true });
  const updated = await runCli(['update', '-f', path.join(copy, 'management-cluster')]);
  assert.equal(updated.code, 0, updated.stderr);
  assert.match(
    updated.stdout,
    /^Cert-Manager is at "v0\.1\.0", pinned by certManager\.version and certManager\.url; "v1\.19\.1" is available/m,
  );
  assert.match(updated.stdout, /\nthe providers are up to date\n$/);
  assert.doesNotMatch(updated.stdout, /everything is up to date/);
});

test('a provider with its own fetchConfig whose name is one typo from a built-in of its kind gets a warning at metadata.name', async () => {
  const dir = example({
    providers: (t) =>
      t +
      '---\napiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: vpshere\n  namespace: capv-system\nspec:\n  version: v0.2.0\n  fetchConfig:\n    url: ../repository/infrastructure-example/latest/infrastructure-components.yaml\n',
  });
  const file = path.join(dir, 'management-cluster', 'providers.yaml');
  const warnings: Diagnostic[] = [];
  await render(dir, warnings).catch(() => undefined);
  assert.deepEqual(
    warnings.map((w) => `${w.line}:${w.column} ${w.object}: ${w.path}: ${w.message}`),
    [
      `${where(file, 'vpshere').line}:${where(file, 'vpshere').column} InfrastructureProvider/capv-system/vpshere: metadata.name: "vpshere" is not a built-in InfrastructureProvider name; did you mean "vsphere"?`,
    ],
  );
});

test('an unknown version of one provider hides no render problem of another: both in one run, each at its field, nothing written (CLI)', async () => {
  // The control plane asks for a release that does not exist; the infrastructure provider has a
  // misspelled container name (found only when its components are rendered) and a missing variable elsewhere.
  const dir = example({
    providers: (t) =>
      t.replace('version: "~0.2"', 'version: v0.9.0').replace('    - name: manager\n      args:', '    - name: manger\n      args:'),
  });
  const file = path.join(dir, 'management-cluster', 'providers.yaml');
  const found = await problems(() => render(dir));
  assert.equal(found.length, 2, JSON.stringify(found));
  const unknown = found.find((d) => d.object === 'ControlPlaneProvider/capex-control-plane-system/example');
  assert.ok(unknown, JSON.stringify(found));
  assert.match(unknown.message, /v0\.9\.0/);
  // at the version the manifest wrote, not at the object
  assert.equal(unknown.path, 'spec.version');
  assert.deepEqual({ line: unknown.line, column: unknown.column }, where(file, 'v0.9.0'));
  const container = found.find((d) => d.path === 'spec.deployment.containers[0].name');
  assert.ok(container, JSON.stringify(found));
  assert.deepEqual({ line: container.line, column: container.column }, where(file, 'manger'));
  // The CLI says both, exits 1 and writes nothing, lockfile included.
  const out = path.join(dir, 'out');
  const run = await runCli(['render', '-f', path.join(dir, 'management-cluster'), '-o', out]);
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /v0\.9\.0/);
  assert.match(run.stderr, /manger/);
  assert.match(run.stderr, /2 problems; nothing was written/);
  assert.ok(!existsSync(out));
  assert.ok(!existsSync(path.join(dir, 'management-cluster', 'capi-gitops.lock.yaml')));
});

test('every provider whose release cannot be fetched, cert-manager included, is reported with the variables the others miss (resolve what resolves, render what renders)', async () => {
  const dir = example({
    providers: (t) =>
      t.replace(
        '  version: v0.2.0\n---\napiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: ControlPlaneProvider',
        '  version: v0.7.0\n---\napiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: ControlPlaneProvider',
      ),
    config: (t) =>
      t
        .replace('variables:\n  EXAMPLE_REGION: eu-west-1\n', '')
        .replace('url: ../repository/cert-manager/v0.1.0/cert-manager.yaml', 'url: ../repository/cert-manager/v0.1.0/missing.yaml'),
  });
  const found = await problems(() => render(dir));
  const objects = found.map((d) => `${d.object ?? ''} ${d.message}`);
  assert.equal(found.length, 3, objects.join('\n'));
  assert.ok(
    found.some((d) => d.object === 'BootstrapProvider/capex-bootstrap-system/example' && /v0\.7\.0/.test(d.message)),
    objects.join('\n'),
  );
  assert.ok(
    found.some((d) => /missing\.yaml/.test(`${d.message} ${d.file ?? ''}`)),
    objects.join('\n'),
  );
  assert.ok(
    found.some((d) => d.object === 'InfrastructureProvider/capex-system/example' && /EXAMPLE_REGION/.test(d.message)),
    objects.join('\n'),
  );
});

test('a variable only an unresolved provider uses is not called unused while the others render', async () => {
  // EXAMPLE_REGION is used by the infrastructure provider alone, whose release does not exist.
  const dir = example({ providers: (t) => t.replace('  version: v0.2.0\n  # A provider', '  version: v0.9.0\n  # A provider') });
  const warnings: Diagnostic[] = [];
  const found = await problems(() => render(dir, warnings));
  assert.equal(found.length, 1, JSON.stringify(found));
  assert.equal(found[0]!.object, 'InfrastructureProvider/capex-system/example');
  assert.deepEqual(warnings, []);
});
