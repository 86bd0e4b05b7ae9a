/**
 * Commands that act on one cluster refuse a fleet instead of acting on its shared part: `update`
 * would otherwise rewrite the fleet's lock as one cluster's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeTempManifest } from '../helpers/corpus-manifest.js';
import { runCli, exampleCopy } from '../helpers/cli.js';

const FLEET = `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec: {version: v1.12.0}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
clusters:
- name: eu-1
`;

for (const [args, what] of [
  [['update'], 'update works on a single cluster'],
  [['plan'], 'plan without --release works on a single cluster'],
  [['render', '--list-variables'], 'render --list-variables works on a single cluster'],
] as const) {
  test(`${args.join(' ')} refuses a fleet, naming the clusters field, and writes nothing`, async () => {
    const dir = writeTempManifest({ 'fleet.yaml': FLEET });
    const r = await runCli([...args, '-f', dir, '--offline', '--cache-dir', path.join(dir, 'cache')]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`fleet\\.yaml:\\d+:\\d+: error: Config: clusters: ${what}, and this manifest declares a fleet`));
    assert.match(r.stderr, /hint: /);
    assert.equal(existsSync(path.join(dir, 'capi-gitops.lock.yaml')), false);
  });
}

test('update --images refuses a fleet with the way a fleet takes a moved tag (docs/images.md), not a version move', async () => {
  const dir = writeTempManifest({ 'fleet.yaml': FLEET });
  const r = await runCli(['update', '--images', '-f', dir, '--cache-dir', path.join(dir, 'cache')]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /error: Config: clusters: update works on a single cluster, and this manifest declares a fleet/);
  const hint = /hint: (.*)/.exec(r.stderr)?.[1] ?? '';
  assert.match(hint, /delete the two lines of each moved image \(its `- image:` and `digest:`\) from every lockfile entry that lists it/);
  assert.match(hint, /then render the fleet/);
  assert.doesNotMatch(hint, /kind: Release|--release/);
  // a suggested render would need -o, which update does not have: the hint names none
  assert.doesNotMatch(hint, /capi-gitops render/);
});

test('plan --cluster without --release is a usage error, not silently ignored', async () => {
  const dir = writeTempManifest({ 'fleet.yaml': FLEET });
  const r = await runCli(['plan', '-f', dir, '--cluster', 'eu-1', '--offline']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /plan --cluster chooses the clusters of a fleet that --release moves; add --release <name>, or drop --cluster/);
});

test('check --cluster renders a fleet and compares, naming a hand-edited file of that cluster (check honours --cluster)', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  writeFileSync(
    path.join(manifest, 'fleet.yaml'),
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\noutput: {fleetLayout: full}\nclusters:\n- name: eu-1\n- name: us-1\n',
  );
  const out = path.join(example, 'out');
  const run = async (...args: string[]) => await runCli([...args, '-f', manifest, '-o', out, '--cache-dir', path.join(example, 'cache')]);
  assert.equal((await run('render')).code, 0);
  const clean = await run('check', '--cluster', 'eu-1');
  assert.equal(clean.code, 0, clean.stdout + clean.stderr);
  const edited = path.join(out, 'clusters', 'eu-1', '01-cluster-api', 'deployment-capi-controller-manager.yaml');
  writeFileSync(edited, readFileSync(edited, 'utf8').replace('replicas: 1', 'replicas: 2'));
  const drift = await run('check', '--cluster', 'eu-1');
  assert.equal(drift.code, 1, drift.stderr);
  assert.match(drift.stdout, /clusters\/eu-1\/01-cluster-api\/deployment-capi-controller-manager\.yaml/);
});

test('check on the shared layout: clean after render, and a hand-edited base is drift', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  writeFileSync(
    path.join(manifest, 'fleet.yaml'),
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: eu-1\n- name: us-1\n',
  );
  const out = path.join(example, 'out');
  const run = async (...args: string[]) => await runCli([...args, '-f', manifest, '-o', out, '--cache-dir', path.join(example, 'cache')]);
  assert.equal((await run('render')).code, 0);
  assert.equal((await run('check')).code, 0);
  const base = readdirSync(path.join(out, 'bases', 'cluster-api'));
  assert.equal(base.length, 1);
  const edited = path.join(out, 'bases', 'cluster-api', base[0]!, 'deployment-capi-controller-manager.yaml');
  writeFileSync(edited, readFileSync(edited, 'utf8').replace('replicas: 1', 'replicas: 2'));
  const drift = await run('check');
  assert.equal(drift.code, 1, drift.stderr);
  assert.match(drift.stdout, new RegExp(`bases/cluster-api/${base[0]}/deployment-capi-controller-manager\\.yaml`));
});

for (const command of ['plan', 'update'])
  test(`${command === 'plan' ? 'plan without --release' : command} on a fleet suggests plan --release with the run's own -f and the newest release, which runs as printed`, async () => {
    const example = exampleCopy();
    const manifest = path.join(example, 'management-cluster');
    writeFileSync(
      path.join(manifest, 'fleet.yaml'),
      `apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: eu-1\n${['2026.11.0', '2026.5.0']
        .map(
          (name) =>
            `---\napiVersion: capi-gitops.dev/v1alpha1\nkind: Release\nmetadata: {name: "${name}"}\nproviders: {BootstrapProvider/example: v0.2.0}\n`,
        )
        .join('')}`,
    );
    const refused = await runCli([command, '-f', manifest, '--offline'], { cwd: example });
    assert.equal(refused.code, 1, refused.stderr);
    const suggested = /hint: .*`capi-gitops (plan [^`]*)`/.exec(refused.stderr)?.[1];
    // the run was offline: followed literally, the suggestion stays offline
    assert.equal(suggested, `plan -f ${manifest} --offline --release 2026.11.0`, refused.stderr);
    const run = await runCli([...suggested.split(' ')], { cwd: example });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /cluster eu-1: \(no release\) → 2026\.11\.0/);
  });

test('a fleet tells each warning once: the manifest its clusters share (v1alpha1 objects) and a cluster advice naming its clusters', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const providers = path.join(manifest, 'providers.yaml');
  // v1alpha1 objects, and the infrastructure provider (fetched from its own URL) named one letter off a built-in name
  writeFileSync(
    providers,
    readFileSync(providers, 'utf8')
      .replaceAll('operator.cluster.x-k8s.io/v1alpha2', 'operator.cluster.x-k8s.io/v1alpha1')
      .replace('  name: example\n  namespace: capex-system\n', '  name: dockr\n  namespace: capex-system\n')
      .replace('infrastructure-example/latest', 'infrastructure-dockr/latest'),
  );
  renameSync(path.join(example, 'repository', 'infrastructure-example'), path.join(example, 'repository', 'infrastructure-dockr'));
  writeFileSync(
    path.join(manifest, 'fleet.yaml'),
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: eu-1\n- name: us-1\n',
  );
  for (const command of ['render', 'lock', 'check']) {
    const args = [command, '-f', manifest, ...(command === 'lock' ? [] : ['-o', path.join(example, 'out')])];
    const r = await runCli([...args, '--cache-dir', path.join(example, 'cache')]);
    assert.equal(r.code, 0, r.stderr);
    const converted = r.stderr.match(/warning: \w+Provider\/[^:]+: operator\.cluster\.x-k8s\.io\/v1alpha1 object, converted/g) ?? [];
    assert.equal(converted.length, 4, `${command}: each of the 4 v1alpha1 objects once\n${r.stderr}`);
    const named =
      r.stderr.match(
        /warning: clusters eu-1, us-1: InfrastructureProvider\/capex-system\/dockr: metadata\.name: "dockr" is not a built-in/g,
      ) ?? [];
    assert.equal(named.length, 1, `${command}: the name advice once, naming both clusters\n${r.stderr}`);
  }
});

test('a fleet check without the configSecret is told at spec.configSecret of the shared provider, as for one cluster, not at the document start', async () => {
  // the team's CI checkout: the Secret's -f file is ignored by Git, so it is not there
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const providers = path.join(manifest, 'providers.yaml');
  const text = readFileSync(providers, 'utf8').replace('spec:\n', 'spec:\n  configSecret: {name: capi-variables}\n');
  writeFileSync(providers, text);
  writeFileSync(
    path.join(manifest, 'fleet.yaml'),
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: eu-1\n- name: us-1\n',
  );
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.includes('configSecret')) + 1;
  const column = lines[line - 1]!.indexOf('{') + 1;
  const cache = ['--cache-dir', path.join(example, 'cache')];
  assert.equal((await runCli(['lock', '-f', manifest, ...cache])).code, 0);
  const r = await runCli(['check', '-f', manifest, '-o', path.join(example, 'out'), ...cache, '--secrets', 'inline']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    new RegExp(
      `providers\\.yaml:${line}:${column}: error: clusters eu-1, us-1: CoreProvider/capi-system/cluster-api: spec\\.configSecret: `,
    ),
  );
});

test('render of a fleet tells clusters that resolved alike once, naming them as a range: render --cluster prints one line for the clusters it leaves', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const names = ['c01', 'c02', 'c03', 'c04', 'c05'];
  writeFileSync(
    path.join(manifest, 'fleet.yaml'),
    `apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n${names.map((n) => `- name: ${n}\n`).join('')}`,
  );
  const out = path.join(example, 'out');
  const run = async (...args: string[]) => await runCli([...args, '-f', manifest, '-o', out, '--cache-dir', path.join(example, 'cache')]);
  const all = await run('render');
  assert.equal(all.code, 0, all.stderr);
  const resolvedLines = (stdout: string) => stdout.split('\n').filter((l) => l.includes('resolved cluster-api')).length;
  assert.match(all.stdout, /^clusters c01–c05$/m);
  assert.equal(resolvedLines(all.stdout), 1, all.stdout);
  const one = await run('render', '--cluster', 'c03');
  assert.equal(one.code, 0, one.stderr);
  assert.match(one.stdout, /^cluster c03$/m);
  assert.match(one.stdout, /^clusters c01, c02, c04, c05: not rendered \(--cluster\), their files are kept$/m);
  assert.equal(resolvedLines(one.stdout), 2, one.stdout);
});

test('lock of a fleet tells clusters that resolved alike once, naming them as a range, not each cluster its own lines', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const names = ['c01', 'c02', 'c03', 'c04'];
  writeFileSync(
    path.join(manifest, 'fleet.yaml'),
    `apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n${names.map((n) => `- name: ${n}\n`).join('')}`,
  );
  const r = await runCli(['lock', '-f', manifest, '--cache-dir', path.join(example, 'cache')]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^clusters c01–c04$/m);
  assert.equal(r.stdout.split('\n').filter((l) => l.includes('resolved cluster-api')).length, 1, r.stdout);
});

test('render --cluster in another layout than the fleet output is in fails before writing (the cluster would leave the fleet wiring), naming the layout; --layout as the hint says renders it, and a run without --cluster moves the whole fleet', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  writeFileSync(
    path.join(manifest, 'fleet.yaml'),
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\ngitops:\n  path: fleet\n  argocd: {values: {repoURL: https://git.example.com/x.git}}\n' +
      'clusters:\n- name: eu-1\n- name: us-1\n',
  );
  const out = path.join(example, 'out');
  const run = async (...args: string[]) => await runCli([...args, '-f', manifest, '-o', out, '--cache-dir', path.join(example, 'cache')]);
  assert.equal((await run('render', '--layout', 'argocd')).code, 0);
  const tree = (dir: string): string[] =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => statSync(path.join(dir, f)).isFile())
      .map((f) => `${f}\0${readFileSync(path.join(dir, f), 'utf8')}`)
      .sort();
  const before = tree(path.join(out, 'clusters'));

  const other = await run('render', '--cluster', 'eu-1');
  assert.equal(other.code, 1, other.stdout + other.stderr);
  assert.match(
    other.stderr,
    /clusters\/us-1: error: --cluster eu-1 would be written in the kustomize layout, but the output's other clusters \(us-1\) are in the argocd layout/,
  );
  assert.match(
    other.stderr,
    /hint: add --layout argocd \(or set output: \{layout: argocd\} in the Config document\); to move the whole fleet to kustomize, render without --cluster/,
  );
  assert.match(other.stderr, /nothing was written\n$/);
  assert.deepEqual(tree(path.join(out, 'clusters')), before);

  const followed = await run('render', '--cluster', 'eu-1', '--layout', 'argocd');
  assert.equal(followed.code, 0, followed.stderr);
  const whole = await run('render');
  assert.equal(whole.code, 0, whole.stderr);
  assert.equal(existsSync(path.join(out, 'clusters', 'us-1', 'argocd')), false);
});

test("render --cluster keeps the other clusters' Secret files in the README's command (it is the whole fleet's), which runs as written; check --cluster prints a render of its clusters, which runs as written with that cluster's file alone", async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  writeFileSync(
    path.join(manifest, 'config.yaml'),
    readFileSync(path.join(manifest, 'config.yaml'), 'utf8').replace(/^variables:\n {2}EXAMPLE_REGION: eu-west-1\n/m, '') +
      'clusters:\n' +
      ['eu', 'lab']
        .map((c) => `- name: ${c}-1\n  providers:\n    InfrastructureProvider/example: {spec: {configSecret: {name: ${c}-vars}}}\n`)
        .join(''),
  );
  const secrets = path.join(example, 'secrets');
  mkdirSync(secrets);
  for (const c of ['eu', 'lab'])
    writeFileSync(
      path.join(secrets, `${c}.yaml`),
      `apiVersion: v1\nkind: Secret\nmetadata: {name: ${c}-vars, namespace: capex-system}\nstringData:\n  EXAMPLE_REGION: ${c}-region-1\n`,
    );
  const flags = ['-o', 'out', '--secrets', 'inline', '--allow-secret-values', '--cache-dir', 'cache'];
  const run = async (args: string[]) => await runCli(args, { cwd: example });
  const recorded = () => /^(capi-gitops render .*)$/m.exec(readFileSync(path.join(example, 'out', 'README.md'), 'utf8'))![1]!;
  const all = await run(['render', '-f', 'management-cluster', '-f', 'secrets/eu.yaml', '-f', 'secrets/lab.yaml', ...flags]);
  assert.equal(all.code, 0, all.stderr);
  const whole = recorded();

  const lab = ['-f', 'management-cluster', '-f', 'secrets/lab.yaml', ...flags];
  const one = await run(['render', ...lab, '--cluster', 'lab-1']);
  assert.equal(one.code, 0, one.stderr);
  assert.equal(recorded(), whole);
  const again = await run(recorded().split(' ').slice(1));
  assert.equal(again.code, 0, again.stderr);

  const edited = path.join(example, 'out', 'clusters', 'lab-1', '04-infrastructure-example', 'deployment-capex-controller-manager.yaml');
  writeFileSync(edited, readFileSync(edited, 'utf8').replace('replicas: 2', 'replicas: 3'));
  const check = await run(['check', ...lab, '--cluster', 'lab-1']);
  assert.equal(check.code, 1, check.stdout + check.stderr);
  const fix = /to regenerate, run: (capi-gitops render .*)$/m.exec(check.stdout)?.[1];
  assert.ok(fix, check.stdout);
  assert.match(fix, / --cluster lab-1\b/);
  const followed = await run(fix.split(' ').slice(1));
  assert.equal(followed.code, 0, followed.stderr);
  assert.equal((await run(['check', ...lab, '--cluster', 'lab-1'])).code, 0);
});
