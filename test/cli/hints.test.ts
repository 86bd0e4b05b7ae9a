/**
 * Every command a message suggests runs as printed: the suggestions are taken from real output
 * and run by a real shell, with `capi-gitops` on PATH being the CLI under test.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CORPUS_REPOSITORY, PROJECT_ROOT } from '../helpers/paths.js';
import { corpusManifest, tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { CLI, exampleCopy, runCli } from '../helpers/cli.js';
import { completeSuggestions } from '../../src/cli/hints.js';

/** A directory holding a `capi-gitops` that runs the CLI under test, to put first on PATH. */
function binDir(): string {
  const dir = tempDir('capi-gitops-bin-');
  const shim = path.join(dir, 'capi-gitops');
  writeFileSync(shim, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`);
  chmodSync(shim, 0o755);
  return dir;
}

/** The capi-gitops commands a message suggests: in backticks, or after "To update:". */
function suggestedCommands(text: string): string[] {
  const quoted = [...text.matchAll(/`(capi-gitops [^`]+)`/g)].map((m) => m[1]);
  const listed = [...text.matchAll(/^To update: (capi-gitops .+)$/gm)].map((m) => m[1]);
  return [...quoted, ...listed];
}

/** Runs a suggested command exactly as printed, in `cwd`, through /bin/sh. */
function runAsPrinted(command: string, cwd: string) {
  const env = { ...process.env, PATH: `${binDir()}${path.delimiter}${process.env.PATH ?? ''}` };
  const result = spawnSync('/bin/sh', ['-c', command], { cwd, env, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A private copy of the example, with the manifest edited by `edit`. */
function example(edit: (providers: string) => string): string {
  const dir = tempDir('capi-gitops-hints-');
  cpSync(path.join(PROJECT_ROOT, 'examples'), dir, { recursive: true });
  const file = path.join(dir, 'management-cluster', 'providers.yaml');
  writeFileSync(file, edit(readFileSync(file, 'utf8')));
  return dir;
}

test('plan suggests `capi-gitops update … --contract v1beta2` with the -f it was given, and that command runs as printed', async () => {
  // Only the core provider, pinned to v0.1.0 (contract v1beta1); v0.2.0 implements v1beta2.
  const dir = example((text) => text.slice(0, text.indexOf('---')).replace('spec:\n', 'spec:\n  version: v0.1.0\n'));
  assert.equal((await runCli(['lock', '-f', 'management-cluster'], { cwd: dir })).code, 0);
  const plan = await runCli(['plan', '-f', 'management-cluster'], { cwd: dir });
  assert.equal(plan.code, 0, plan.stderr);
  const [command, ...more] = suggestedCommands(plan.stdout);
  assert.equal(command, 'capi-gitops update -f management-cluster --contract v1beta2', plan.stdout);
  assert.deepEqual(more, []);
  const update = runAsPrinted(command, dir);
  assert.equal(update.code, 0, update.stderr);
  assert.match(update.stdout, /spec\.version v0\.1\.0 → v0\.2\.0/);
  assert.match(readFileSync(path.join(dir, 'management-cluster', 'providers.yaml'), 'utf8'), /version: v0\.2\.0/);
});

test('a core provider range that excludes v1beta2: plan suggests no update it would refuse, update names that range at its spec.version, and its hint runs as written (clusterctl cmd/clusterctl/client/cluster/upgrader.go createCustomPlan)', async () => {
  // The corpus's kubeadm releases: 1.10 implements v1beta1, 1.12 v1beta2. The bootstrap provider
  // pins v1.10.4 (update moves it), the core asks for ~1.10 (update cannot move it).
  const latest = (label: string, file: string) => pathToFileURL(path.join(CORPUS_REPOSITORY, label, 'latest', file)).href;
  const dir = writeTempManifest({
    'providers.yaml': [
      'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata: {name: cluster-api, namespace: capi-system}',
      'spec:\n  version: "~1.10"\n---',
      'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: BootstrapProvider\nmetadata: {name: kubeadm, namespace: capi-kubeadm-bootstrap-system}',
      'spec:\n  version: v1.10.4\n---',
      'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\ncertManager: {enabled: false}\nrepositories:',
      `  - {name: cluster-api, type: CoreProvider, url: "${latest('cluster-api', 'core-components.yaml')}"}`,
      `  - {name: kubeadm, type: BootstrapProvider, url: "${latest('bootstrap-kubeadm', 'bootstrap-components.yaml')}"}`,
      '',
    ].join('\n'),
  });
  assert.equal((await runCli(['lock', '-f', '.'], { cwd: dir })).code, 0);
  const plan = await runCli(['plan', '-f', '.'], { cwd: dir });
  assert.equal(plan.code, 0, plan.stderr);
  // the v1beta2 plan would split the contracts: plan says why, and suggests no update
  assert.deepEqual(suggestedCommands(plan.stdout), [], plan.stdout);
  assert.match(plan.stdout, /\n {2}v1beta2: providers\.yaml:5:12: the range "~1\.10" keeps cluster-api at v1\.10\.4 \(contract v1beta1\)/);
  const before = readFileSync(path.join(dir, 'providers.yaml'), 'utf8');
  const update = await runCli(['update', '-f', '.', '--contract', 'v1beta2'], { cwd: dir });
  assert.equal(update.code, 1, update.stderr);
  // one error, the cause, where to fix it: not the contract mismatch it would lead to
  assert.match(
    update.stderr,
    /^providers\.yaml:5:12: error: CoreProvider\/capi-system\/cluster-api: spec\.version: the range "~1\.10" keeps cluster-api at v1\.10\.4 \(contract v1beta1\), which accepts only v1beta1 providers, not bootstrap-kubeadm v1\.12\.0 \(contract v1beta2\); .*\n {2}hint: set spec\.version to v1\.10\.4, the locked release \(update moves an exact pin with the others\); or set spec\.version of bootstrap-kubeadm to "~1\.10" as well\nnothing was written\n$/,
  );
  assert.equal(readFileSync(path.join(dir, 'providers.yaml'), 'utf8'), before);
  // the hint as written: the core pinned, update moves both
  writeFileSync(path.join(dir, 'providers.yaml'), before.replace('version: "~1.10"', 'version: v1.10.4'));
  const again = await runCli(['update', '-f', '.', '--contract', 'v1beta2'], { cwd: dir });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(readFileSync(path.join(dir, 'providers.yaml'), 'utf8').match(/version: v1\.12\.0/g)?.length, 2);
});

test('render --frozen with a stale lockfile suggests `capi-gitops lock -f …`, which runs as printed and makes --frozen pass', async () => {
  // Dropping the infrastructure provider changes the lock.
  const dir = example((text) => text.slice(0, text.lastIndexOf('---')));
  const frozen = ['render', '-f', 'management-cluster', '-f', 'management-cluster/config.yaml', '-o', 'out', '--frozen'];
  const failed = await runCli(frozen, { cwd: dir });
  assert.equal(failed.code, 1, failed.stderr);
  const commands = [...new Set(suggestedCommands(failed.stderr))];
  assert.deepEqual(commands, ['capi-gitops lock -f management-cluster -f management-cluster/config.yaml'], failed.stderr);
  const lock = runAsPrinted(commands[0], dir);
  assert.equal(lock.code, 0, lock.stderr);
  const again = await runCli(frozen, { cwd: dir });
  assert.equal(again.code, 0, again.stderr);
});

/** Runs git in `cwd`, failing the test when it fails (a conflicted merge is allowed to). */
function git(cwd: string, ...args: string[]): string {
  const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
  const result = spawnSync('git', args, { cwd, env, encoding: 'utf8' });
  assert.ok(result.status === 0 || args[0] === 'merge', `git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

test('a lockfile left conflicted by a merge: each conflict is named, and the hint (keep one side, `capi-gitops lock -f …`) runs as printed', async () => {
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest('v1.8.0') });
  git(dir, 'init', '-q', '-b', 'main');
  assert.equal((await runCli(['lock', '-f', '.'], { cwd: dir })).code, 0);
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'v1.8.0');
  git(dir, 'checkout', '-qb', 'upgrade');
  writeFileSync(path.join(dir, 'providers.yaml'), corpusManifest('v1.12.0'));
  assert.equal((await runCli(['lock', '-f', '.'], { cwd: dir })).code, 0);
  git(dir, 'commit', '-qam', 'v1.12.0');
  git(dir, 'checkout', '-q', 'main');
  writeFileSync(path.join(dir, 'providers.yaml'), corpusManifest('v1.10.4'));
  assert.equal((await runCli(['lock', '-f', '.'], { cwd: dir })).code, 0);
  git(dir, 'commit', '-qam', 'v1.10.4');
  git(dir, 'merge', 'upgrade');
  git(dir, 'checkout', '--theirs', '--', 'providers.yaml');
  const failed = await runCli(['lock', '-f', '.'], { cwd: dir });
  assert.equal(failed.code, 1, failed.stderr);
  assert.match(failed.stderr, /^capi-gitops\.lock\.yaml:\d+:1: error: unresolved Git merge conflict \(lines \d+-\d+\)$/m);
  assert.doesNotMatch(failed.stderr, /invalid YAML/);
  const keepOurs = failed.stderr.match(/`(git checkout --ours -- [^`]+)`/)?.[1];
  assert.ok(keepOurs, failed.stderr);
  assert.equal(runAsPrinted(keepOurs, dir).code, 0);
  const [lock] = new Set(suggestedCommands(failed.stderr));
  assert.equal(lock, 'capi-gitops lock -f .');
  const relocked = runAsPrinted(lock, dir);
  assert.equal(relocked.code, 0, relocked.stderr);
  assert.match(relocked.stdout, /~ cluster-api v1\.10\.4 → v1\.12\.0/);
});

test('a lockfile that does not fit the model: the hint (remove it, `capi-gitops lock -f …`) runs as printed and makes --frozen pass', async () => {
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest('v1.12.0') });
  assert.equal((await runCli(['lock', '-f', '.'], { cwd: dir })).code, 0);
  const lockFile = path.join(dir, 'capi-gitops.lock.yaml');
  writeFileSync(lockFile, readFileSync(lockFile, 'utf8') + 'reviewedBy: me\n');
  const frozen = ['render', '-f', '.', '-o', 'out', '--frozen'];
  const failed = await runCli(frozen, { cwd: dir });
  assert.equal(failed.code, 1, failed.stderr);
  const remove = failed.stderr.match(/`(rm [^`]+)`/)?.[1];
  assert.ok(remove, failed.stderr);
  assert.equal(runAsPrinted(remove, dir).code, 0);
  const [lock] = new Set(suggestedCommands(failed.stderr));
  const relocked = runAsPrinted(lock, dir);
  assert.equal(relocked.code, 0, relocked.stderr);
  const again = await runCli(frozen, { cwd: dir });
  assert.equal(again.code, 0, again.stderr);
});

test('suggested commands get the invocation flags, shell-quoted, and nothing else is touched', () => {
  const invocation = { file: ['my manifests/'], cacheDir: '/tmp/cache', output: 'out dir' };
  assert.equal(
    completeSuggestions('run `capi-gitops lock` to record it', invocation),
    "run `capi-gitops lock -f 'my manifests/' --cache-dir /tmp/cache` to record it",
  );
  assert.equal(
    completeSuggestions('To update: capi-gitops update --contract v1beta2', invocation),
    "To update: capi-gitops update -f 'my manifests/' --cache-dir /tmp/cache --contract v1beta2",
  );
  assert.equal(
    completeSuggestions('try `capi-gitops render`', invocation),
    "try `capi-gitops render -f 'my manifests/' -o 'out dir' --cache-dir /tmp/cache`",
  );
  // already complete, or not a command of a manifest
  assert.equal(completeSuggestions('`capi-gitops lock -f x`', invocation), '`capi-gitops lock -f x`');
  assert.equal(completeSuggestions('capi-gitops chart show argocd', invocation), 'capi-gitops chart show argocd');
  assert.equal(completeSuggestions('the lockfile capi-gitops wrote', invocation), 'the lockfile capi-gitops wrote');
});

test('a suggested render repeats the flags that shape the output (layout, fleet layout, secrets, values files), so followed it rewrites the output in the same form; never a --set value, which may be secret', () => {
  const invocation = {
    file: ['m/'],
    output: 'out',
    layout: 'flux',
    fleetLayout: 'full',
    secrets: 'sops',
    secretFile: ['../secrets.env'],
    envSecret: ['AWS_B64ENCODED_CREDENTIALS'],
    values: ['chart values.yaml'],
    set: ['repoURL=https://user:hunter2@git.example.com/x.git'],
  };
  const completed = completeSuggestions('run `capi-gitops render` without --frozen', invocation);
  assert.equal(
    completed,
    "run `capi-gitops render -f m/ -o out --layout flux --fleet-layout full --secrets sops --secret-file ../secrets.env --env-secret AWS_B64ENCODED_CREDENTIALS --values 'chart values.yaml'` without --frozen",
  );
  assert.doesNotMatch(completed, /hunter2|--set/);
  // lock and plan take none of them
  assert.equal(completeSuggestions('run `capi-gitops lock`', invocation), 'run `capi-gitops lock -f m/`');
});

test("an unused variable: the warning suggests `capi-gitops render … --list-variables` with the run's flags, runnable as printed", async () => {
  const dir = example((text) => text);
  const config = path.join(dir, 'management-cluster', 'config.yaml');
  writeFileSync(
    config,
    readFileSync(config, 'utf8').replace(
      '  EXAMPLE_REGION: eu-west-1\n',
      '  EXAMPLE_REGION: eu-west-1\n  EXP_CLUSTER_RESOURCE_SET: "true"\n',
    ),
  );
  const result = await runCli(['render', '-f', 'management-cluster', '-o', 'out', '--cache-dir', 'cache'], { cwd: dir });
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    /warning: Config: variables\.EXP_CLUSTER_RESOURCE_SET: variable EXP_CLUSTER_RESOURCE_SET is not used by any component/,
  );
  const commands = suggestedCommands(result.stderr);
  assert.deepEqual(commands, ['capi-gitops render -f management-cluster -o out --cache-dir cache --list-variables'], result.stderr);
  const listed = runAsPrinted(commands[0]!, dir);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(
    listed.stdout,
    /^infrastructure-example v0\.2\.0 \(namespace capex-system\)\n(.*\n)*  EXAMPLE_REGION = "eu-west-1" from Config/m,
  );
});

test('a suggested command repeats --offline when the run had it, so followed literally in an air gap it stays offline; a hint that says to go online is left as it is', () => {
  const invocation = { file: ['m/'], output: 'out', offline: true };
  assert.equal(completeSuggestions('run `capi-gitops lock`', invocation), 'run `capi-gitops lock -f m/ --offline`');
  assert.equal(
    completeSuggestions('see `capi-gitops plan --release r2`', invocation),
    'see `capi-gitops plan -f m/ --offline --release r2`',
  );
  // update --images asks the registries: --offline would refuse it
  assert.equal(
    completeSuggestions('To take the new digests: capi-gitops update --images', invocation),
    'To take the new digests: capi-gitops update -f m/ --images',
  );
  // already said, or told to drop it
  assert.equal(
    completeSuggestions('To update: capi-gitops update --contract v1beta2 --offline', invocation),
    'To update: capi-gitops update -f m/ --contract v1beta2 --offline',
  );
  assert.equal(
    completeSuggestions('run once without --offline (e.g. `capi-gitops lock`) on a machine with network access', invocation),
    'run once without --offline (e.g. `capi-gitops lock -f m/`) on a machine with network access',
  );
});

test('render --frozen --offline with a stale lockfile suggests `capi-gitops lock -f … --offline`, which runs as printed, offline, and makes the run pass', async () => {
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest('v1.8.0') });
  const frozen = ['render', '-f', '.', '-o', 'out', '--frozen', '--offline'];
  assert.equal((await runCli(['lock', '-f', '.'], { cwd: dir })).code, 0);
  writeFileSync(path.join(dir, 'providers.yaml'), corpusManifest('v1.10.4'));
  const failed = await runCli(frozen, { cwd: dir });
  assert.equal(failed.code, 1, failed.stderr);
  const commands = [...new Set(suggestedCommands(failed.stderr))];
  assert.deepEqual(commands, ['capi-gitops lock -f . --offline'], failed.stderr);
  const lock = runAsPrinted(commands[0]!, dir);
  assert.equal(lock.code, 0, lock.stderr);
  const again = await runCli(frozen, { cwd: dir });
  assert.equal(again.code, 0, again.stderr);
});

test('check --offline --cache-dir of an output edited by hand: the render it suggests keeps --cache-dir and --offline, and followed as printed brings the output back', async () => {
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest('v1.8.0') });
  const cache = 'artifact cache';
  assert.equal((await runCli(['render', '-f', '.', '-o', 'out', '--cache-dir', cache], { cwd: dir })).code, 0);
  const readme = readFileSync(path.join(dir, 'out', 'README.md'), 'utf8');
  writeFileSync(path.join(dir, 'out', 'README.md'), readme + '# edited\n');
  const checked = await runCli(['check', '-f', '.', '-o', 'out', '--cache-dir', cache, '--offline'], { cwd: dir });
  assert.equal(checked.code, 1, checked.stderr);
  const fix = /run: (capi-gitops render .*)$/m.exec(checked.stdout)?.[1];
  assert.equal(fix, "capi-gitops render -f . -o out --cache-dir 'artifact cache' --offline", checked.stdout);
  const render = runAsPrinted(fix!, dir);
  assert.equal(render.code, 0, render.stderr);
  assert.equal(readFileSync(path.join(dir, 'out', 'README.md'), 'utf8'), readme);
});

test('check with a lockfile that no longer answers the manifest suggests the one render that updates lockfile and output, which runs as printed and makes check pass', async () => {
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest('v1.8.0') });
  assert.equal((await runCli(['render', '-f', '.', '-o', 'out'], { cwd: dir })).code, 0);
  writeFileSync(path.join(dir, 'providers.yaml'), corpusManifest('v1.10.4'));
  const checked = await runCli(['check', '-f', '.', '-o', 'out'], { cwd: dir });
  assert.equal(checked.code, 1, checked.stderr);
  const commands = [...new Set(suggestedCommands(checked.stderr))];
  assert.deepEqual(commands, ['capi-gitops render -f . -o out'], checked.stderr);
  const render = runAsPrinted(commands[0]!, dir);
  assert.equal(render.code, 0, render.stderr);
  const again = await runCli(['check', '-f', '.', '-o', 'out'], { cwd: dir });
  assert.equal(again.code, 0, again.stdout + again.stderr);
});

test('check --offline of an output rendered with other flags: the check against that render keeps --offline, and runs as printed', async () => {
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest('v1.8.0') });
  assert.equal((await runCli(['render', '-f', '.', '-o', 'out', '--layout', 'flux', '--set', 'path=clusters/x'], { cwd: dir })).code, 0);
  const checked = await runCli(['check', '-f', '.', '-o', 'out', '--offline'], { cwd: dir });
  assert.equal(checked.code, 1, checked.stderr);
  const against = /to check it against that render, run: (capi-gitops check .*)$/m.exec(checked.stdout)?.[1];
  assert.equal(against, 'capi-gitops check -f . -o out --layout flux --set path=clusters/x --offline', checked.stdout);
  const again = runAsPrinted(against!, dir);
  assert.equal(again.code, 0, again.stdout + again.stderr);
});

test("check prints its suggested commands and the README's recorded one redacted, as render prints its lines: a --set URL with credentials, accepted into Git with --allow-secret-values, is not in check's output (text or --json)", async () => {
  const dir = example((text) => text);
  const token = 'ghp_Tok3nForTheCheckHint0123456789';
  const flags = [
    '-f',
    'management-cluster',
    '-o',
    'out',
    '--cache-dir',
    'cache',
    '--layout',
    'argocd',
    '--set',
    `repoURL=https://bot:${token}@git.example.com/platform/gitops.git`,
    '--set',
    'path=out',
    '--secrets',
    'inline',
    '--allow-secret-values',
  ];
  const rendered = await runCli(['render', ...flags], { cwd: dir });
  assert.equal(rendered.code, 0, rendered.stderr);
  assert.doesNotMatch(rendered.stdout + rendered.stderr, new RegExp(token));
  const edited = path.join(dir, 'out', 'README.md');
  writeFileSync(edited, readFileSync(edited, 'utf8') + '\nedited by hand\n');
  for (const json of [[], ['--json']]) {
    const checked = await runCli(['check', ...flags, ...json], { cwd: dir });
    assert.equal(checked.code, 1, checked.stderr);
    assert.match(checked.stdout, json.length ? /"upToDate": false/ : /to regenerate, run: capi-gitops render/);
    assert.doesNotMatch(checked.stdout + checked.stderr, new RegExp(token));
  }
});

test('render --secrets flux-substitute outside the flux layout names the flag that chose the strategy, not Config.secrets', async () => {
  const root = exampleCopy();
  const result = await runCli([
    'render',
    '-f',
    path.join(root, 'management-cluster'),
    '-o',
    path.join(root, 'out'),
    '--secrets',
    'flux-substitute',
  ]);
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stderr,
    /^error: --secrets: the flux-substitute strategy needs the flux layout, and the output layout is kustomize$/m,
  );
  assert.doesNotMatch(result.stderr, /Config\.secrets/);
});
