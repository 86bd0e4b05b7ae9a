/**
 * The CLI for people and machines: version, completion, the sections of every --help, --json,
 * --quiet and --verbose, and render's list of changed objects.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import Ajv from 'ajv';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { runCli } from '../helpers/cli.js';
import { buildProgram } from '../../src/cli/program.js';
import { ENVIRONMENT } from '../../src/cli/help.js';

const VERSION = (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

function example(): string {
  const dir = tempDir('capi-gitops-output-');
  cpSync(path.join(PROJECT_ROOT, 'examples'), dir, { recursive: true });
  return dir;
}

/** Every command path of the program: ['render'], ['chart', 'show'], …, and [] for the program. */
function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return [prefix, ...command.commands.flatMap((sub) => commandPaths(sub, [...prefix, sub.name()]))];
}

test('--version prints the package version; version prints it with Node and the platform, also as JSON', async () => {
  const bare = await runCli(['--version']);
  assert.equal(bare.code, 0);
  assert.equal(bare.stdout, `${VERSION}\n`);
  const text = await runCli(['version']);
  assert.equal(text.code, 0, text.stderr);
  assert.equal(text.stdout, `capi-gitops ${VERSION}\nnode ${process.version}\nplatform ${process.platform}/${process.arch}\n`);
  const json = JSON.parse((await runCli(['version', '--json'])).stdout);
  assert.deepEqual(json, {
    schemaVersion: 1,
    command: 'version',
    ok: true,
    version: VERSION,
    node: process.version,
    platform: `${process.platform}/${process.arch}`,
  });
});

test('every --help has Examples, Environment and Exit codes, and every example parses as a real command', async () => {
  for (const words of commandPaths(buildProgram())) {
    const help = await runCli([...words, '--help']);
    assert.equal(help.code, 0, words.join(' '));
    const [, examples = ''] = help.stdout.split('\nExamples:\n');
    assert.ok(examples, `capi-gitops ${words.join(' ')} --help has no Examples section:\n${help.stdout}`);
    assert.match(help.stdout, /\nEnvironment:\n/, words.join(' '));
    assert.match(help.stdout, /\nExit codes:\n {2}0 {2}success\n {2}1 .*\n {2}2 {2}usage error/, words.join(' '));
    const lines = examples
      .slice(0, examples.indexOf('\n\n'))
      .split('\n')
      .map((line) => line.trim());
    for (const line of lines) {
      assert.match(line, /^(capi-gitops |source <\(capi-gitops |echo )/, line);
      if (!line.startsWith('capi-gitops ')) continue;
      // the command without a trailing comment or redirection, parsed by the real program with no-op actions
      const argv = line
        .replace(/\s+#.*$/, '')
        .replace(/\s+>.*$/, '')
        .split(/\s+/)
        .slice(1);
      if (argv.includes('--version')) continue; // commander answers it by exiting (tested above)
      const program = buildProgram();
      const silence = (command: Command): void => {
        command.action(() => undefined).configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
        command.commands.forEach(silence);
      };
      silence(program);
      await assert.doesNotReject(program.parseAsync(argv, { from: 'user' }), `example does not parse: ${line}`);
    }
  }
  // the program's help names every environment variable the tool reads
  const root = (await runCli(['--help'])).stdout;
  for (const name of Object.keys(ENVIRONMENT)) assert.ok(root.includes(`  ${name} `), `${name} missing from --help`);
  const render = (await runCli(['render', '--help'])).stdout;
  assert.match(render, /GITHUB_TOKEN/);
  assert.match(render, /XDG_CACHE_HOME/);
});

/** Runs bash completion for the words typed so far (the last one being completed). */
async function bashComplete(words: string[]): Promise<string[]> {
  const script = await runCli(['completion', 'bash']);
  assert.equal(script.code, 0, script.stderr);
  const program = `${script.stdout}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _capi_gitops; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', program], { encoding: 'utf8', cwd: PROJECT_ROOT });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.split('\n').filter(Boolean).sort();
}

test('bash completion completes commands, flags, flag choices, argument choices and paths', async () => {
  assert.deepEqual(await bashComplete(['capi-gitops', 're']), ['render']);
  assert.ok((await bashComplete(['capi-gitops', ''])).includes('completion'));
  assert.deepEqual(await bashComplete(['capi-gitops', 'render', '--la']), ['--layout']);
  assert.deepEqual(await bashComplete(['capi-gitops', 'render', '-f', 'x', '--layout', '']), ['argocd', 'flux', 'kustomize', 'operator']);
  assert.deepEqual(
    (await bashComplete(['capi-gitops', 'chart', 'show', ''])).filter((w) => !w.startsWith('-')),
    ['argocd', 'flux'],
  );
  assert.deepEqual(
    (await bashComplete(['capi-gitops', 'completion', ''])).filter((w) => !w.startsWith('-')),
    ['bash', 'zsh'],
  );
  assert.deepEqual(await bashComplete(['capi-gitops', 'render', '-f', 'exam']), ['examples']);
  // a flag value that looks like a command name is not taken for one
  assert.ok((await bashComplete(['capi-gitops', 'render', '-f', 'chart', '--fro'])).includes('--frozen'));
});

test(
  'zsh completion loads the same function through bashcompinit',
  { skip: spawnSync('zsh', ['--version']).error ? 'zsh is not installed' : false },
  async () => {
    const script = (await runCli(['completion', 'zsh'])).stdout;
    const complete = (words: string[]) =>
      `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _capi_gitops; print -r -- "\${COMPREPLY[@]}"`;
    const program = [
      script,
      'print -r -- ${_comps[capi-gitops]}',
      complete(['capi-gitops', 'render', '--la']),
      complete(['capi-gitops', 'render', '--layout', 'f']),
    ].join('\n');
    const result = spawnSync('zsh', ['-f', '-c', program], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    // zsh's compgen (bashcompinit) leaves the prefix match to zsh itself: the candidates are those of the right command
    const [registered, flags, layouts] = result.stdout.trim().split('\n');
    assert.equal(registered, '_bash_complete -o default -F _capi_gitops');
    assert.ok(flags.split(' ').includes('--layout') && !flags.split(' ').includes('render'), flags);
    assert.deepEqual(layouts.split(' ').sort(), ['argocd', 'flux', 'kustomize', 'operator']);
  },
);

test('render --json reports files written, changed and removed and the objects that changed; text lists the objects', async () => {
  const dir = example();
  const args = ['render', '-f', 'management-cluster', '-o', 'out'];
  const first = await runCli([...args, '--json'], { cwd: dir });
  assert.equal(first.code, 0, first.stderr);
  const created = JSON.parse(first.stdout);
  assert.equal(created.schemaVersion, 1);
  assert.equal(created.ok, true);
  assert.equal(created.files.written.length, 71);
  assert.deepEqual(created.files.changed, []);
  assert.ok(created.objects.every((o: { change: string }) => o.change === 'added'));
  assert.ok(created.objects.some((o: { kind: string; name: string }) => o.kind === 'Deployment' && o.name === 'capex-controller-manager'));
  assert.deepEqual(
    created.providers.map((p: { label: string; version: string }) => `${p.label} ${p.version}`),
    ['cluster-api v0.2.0', 'bootstrap-example v0.2.0', 'control-plane-example v0.2.0', 'infrastructure-example v0.2.0'],
  );

  // a variable the infrastructure Deployment uses changes one object in one file
  const config = path.join(dir, 'management-cluster', 'config.yaml');
  writeFileSync(config, readFileSync(config, 'utf8').replace('EXAMPLE_REGION: eu-west-1', 'EXAMPLE_REGION: eu-west-2'));
  const text = await runCli(args, { cwd: dir });
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /wrote out: 1 written, 70 unchanged, 0 removed\nobjects: 0 added, 1 changed, 0 removed\n {2}~ Deployment capex-system\/capex-controller-manager \(04-infrastructure-example\/deployment-capex-controller-manager\.yaml\)\n/,
  );

  // dropping a provider removes its files and objects
  const providers = path.join(dir, 'management-cluster', 'providers.yaml');
  const manifest = readFileSync(providers, 'utf8');
  writeFileSync(providers, manifest.slice(0, manifest.lastIndexOf('---')));
  const removed = JSON.parse((await runCli([...args, '--json'], { cwd: dir })).stdout);
  assert.ok(removed.files.removed.includes('04-infrastructure-example/deployment-capex-controller-manager.yaml'));
  assert.ok(removed.files.changed.includes('kustomization.yaml'));
  assert.ok(removed.objects.some((o: { change: string; kind: string }) => o.change === 'removed' && o.kind === 'Deployment'));
  assert.equal(removed.lockfile.updated, true);
  assert.deepEqual(
    removed.lockfile.changes.map((c: { type: string; name: string }) => `${c.type} ${c.name}`),
    ['removed example'],
  );
});

test('lock and plan --json are single documents; a failure with --json is one too, with every problem', async () => {
  const dir = example();
  const lock = JSON.parse((await runCli(['lock', '-f', 'management-cluster', '--json'], { cwd: dir })).stdout);
  assert.equal(lock.command, 'lock');
  assert.equal(lock.lockfile.updated, false);
  assert.equal(lock.certManager.version, 'v0.1.0');
  const variables = JSON.parse((await runCli(['render', '-f', 'management-cluster', '--list-variables', '--json'], { cwd: dir })).stdout);
  const region = variables.variables
    .flatMap((p: { variables: { name: string }[] }) => p.variables)
    .find((v: { name: string }) => v.name === 'EXAMPLE_REGION');
  assert.equal(region.value, 'eu-west-1');
  assert.equal(region.fromSecret, false);
  const plan = JSON.parse((await runCli(['plan', '-f', 'management-cluster', '--json'], { cwd: dir })).stdout);
  assert.equal(plan.command, 'plan');
  assert.equal(plan.currentContract, 'v1beta2');
  const providers = path.join(dir, 'management-cluster', 'providers.yaml');
  writeFileSync(providers, readFileSync(providers, 'utf8').replace('version: v0.2.0', 'versoin: v0.2.0'));
  const failed = await runCli(['render', '-f', 'management-cluster', '-o', 'out', '--json'], { cwd: dir });
  assert.equal(failed.code, 1);
  const problems = JSON.parse(failed.stdout);
  assert.equal(problems.ok, false);
  assert.equal(problems.command, 'render');
  assert.ok(
    problems.problems.some((p: { path?: string; line?: number }) => p.path === 'spec.versoin' && typeof p.line === 'number'),
    failed.stdout,
  );
  const usage = await runCli(['render', '--json'], { cwd: dir });
  assert.equal(usage.code, 2);
  assert.equal(JSON.parse(usage.stdout).ok, false);
});

/** schema/capi-gitops-diff.schema.json: a report, or the failure document. */
const diffSchemaValidator = new Ajv.default({ allErrors: true, strict: true }).compile(
  JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'schema', 'capi-gitops-diff.schema.json'), 'utf8')),
);
// not a type guard: the document stays as parsed for the assertions after it
const validateDiffJson = Object.assign((data: unknown): boolean => diffSchemaValidator(data), {
  get errors() {
    return diffSchemaValidator.errors;
  },
});

test('diff --format json that fails prints the ok: false document check --json prints, described by the diff schema, so CI always reads one JSON document (docs/cli.md#json-output)', async () => {
  const dir = example();
  assert.equal((await runCli(['render', '-f', 'management-cluster', '-o', 'out', '--quiet'], { cwd: dir })).code, 0);
  const providers = path.join(dir, 'management-cluster', 'providers.yaml');
  writeFileSync(providers, readFileSync(providers, 'utf8').replace('version: v0.2.0', 'versoin: v0.2.0'));
  for (const format of [['--format', 'json'], ['--format=json']]) {
    const failed = await runCli(['diff', '-f', 'management-cluster', '-o', 'out', ...format], { cwd: dir });
    assert.equal(failed.code, 1, failed.stderr);
    const document = JSON.parse(failed.stdout);
    assert.equal(document.schemaVersion, 1);
    assert.equal(document.command, 'diff');
    assert.equal(document.ok, false);
    assert.ok(validateDiffJson(document), JSON.stringify(validateDiffJson.errors));
    assert.ok(
      document.problems.some((p: { path?: string; line?: number }) => p.path === 'spec.versoin' && typeof p.line === 'number'),
      failed.stdout,
    );
  }
  const text = await runCli(['diff', '-f', 'management-cluster', '-o', 'out'], { cwd: dir });
  assert.equal(text.code, 1);
  assert.equal(text.stdout, '');
  for (const [args, code] of [
    [['diff', '-f', 'management-cluster', '-o', 'out', '--format', 'json', '--bogus'], 2],
    [['diff', '--format=json', '--detailed-exitcode', '--bogus'], 1],
  ] as const) {
    const usage = await runCli([...args], { cwd: dir });
    assert.equal(usage.code, code, usage.stderr);
    const document = JSON.parse(usage.stdout);
    assert.deepEqual([document.command, document.ok], ['diff', false]);
    assert.ok(document.usageError, usage.stdout);
    assert.ok(validateDiffJson(document), JSON.stringify(validateDiffJson.errors));
  }
});

/**
 * A stdout whose first write throws a TypeError, as a bug would: the fault is injected through the
 * streams main() takes, so the run meets an error that is neither a CapiGitopsError nor a system
 * error (an internal error), at the moment it prints its report.
 */
class FaultyStdout {
  text = '';
  faulted = false;
  readonly isTTY = false;
  write(chunk: string | Uint8Array, encoding?: unknown, callback?: () => void): boolean {
    if (!this.faulted) {
      this.faulted = true;
      throw new TypeError('injected: the report cannot be printed');
    }
    this.text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') queueMicrotask(done as () => void);
    return true;
  }
  on(): this {
    return this;
  }
  once(): this {
    return this;
  }
}

/** main() in this process with a faulty stdout, without the suite's internal-error log (this test means to make one). */
async function runWithFaultyStdout(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const { main } = await import('../../src/cli/program.js');
  const stdout = new FaultyStdout();
  const stderr = new FaultyStdout();
  stderr.faulted = true;
  const saved = { cwd: process.cwd(), log: process.env.CAPI_GITOPS_INTERNAL_ERROR_LOG };
  delete process.env.CAPI_GITOPS_INTERNAL_ERROR_LOG;
  try {
    process.chdir(cwd);
    const code = await main(args, { stdout, stderr } as unknown as Parameters<typeof main>[1]);
    assert.ok(stdout.faulted, `${args.join(' ')}: the fault was met`);
    return { code, stdout: stdout.text, stderr: stderr.text };
  } finally {
    process.chdir(saved.cwd);
    if (saved.log !== undefined) process.env.CAPI_GITOPS_INTERNAL_ERROR_LOG = saved.log;
  }
}

test('an internal error under --json (check, diff, plan, render) prints the failure document, exit 1, and no stack trace unless --verbose asks for it (docs/cli.md#json-output)', async () => {
  const dir = example();
  const cache = ['--cache-dir', path.join(dir, 'cache')];
  assert.equal((await runCli(['render', '-f', 'management-cluster', '-o', 'out', '--quiet', ...cache], { cwd: dir })).code, 0);
  const source = ['-f', 'management-cluster', ...cache];
  for (const args of [
    ['check', ...source, '-o', 'out', '--json'],
    ['diff', ...source, '-o', 'out', '--format', 'json'],
    ['plan', ...source, '--json'],
    ['render', ...source, '-o', 'out', '--json'],
  ]) {
    const result = await runWithFaultyStdout(args, dir);
    assert.equal(result.code, 1, `${args[0]}: ${result.stderr}`);
    const document = JSON.parse(result.stdout);
    assert.deepEqual([document.schemaVersion, document.command, document.ok], [1, args[0], false], result.stdout);
    assert.equal(document.problems.length, 1, result.stdout);
    assert.equal(document.problems[0].message, 'internal error: TypeError: injected: the report cannot be printed');
    assert.match(document.problems[0].hint, /a bug in capi-gitops: .*--verbose/);
    if (args[0] === 'diff') assert.ok(validateDiffJson(document), JSON.stringify(validateDiffJson.errors));
    assert.match(result.stderr, /^internal error: TypeError: injected: the report cannot be printed\n/m);
    assert.doesNotMatch(result.stdout + result.stderr, /\n\s+at .+:\d+:\d+\)?\n/, 'no stack trace');
  }
  const verbose = await runWithFaultyStdout(['check', ...source, '-o', 'out', '--json', '--verbose'], dir);
  assert.equal(verbose.code, 1);
  assert.match(verbose.stderr, /^internal error: TypeError: injected: the report cannot be printed\n\s+at /m, 'the stack with --verbose');
  assert.doesNotMatch(verbose.stdout, /\s+at /, 'never in the document');
});

test('a usage error commander finds (an unknown flag, a choice not offered) names its command in the --json document (docs/cli.md: every document has command)', async () => {
  const dir = example();
  for (const args of [
    ['render', '-f', 'management-cluster', '-o', 'out', '--bogus', '--json'],
    ['render', '-f', 'management-cluster', '-o', 'out', '--layout', 'helm', '--json'],
    ['plan', '--json', '-f', 'management-cluster', '--contract', 'v1beta2'],
    ['lock', '--json', '--frozen'],
  ]) {
    const usage = await runCli(args, { cwd: dir });
    assert.equal(usage.code, 2, usage.stderr);
    const document = JSON.parse(usage.stdout);
    assert.equal(document.ok, false);
    assert.equal(
      document.command,
      args.find((a) => !a.startsWith('-')),
      usage.stdout,
    );
    assert.ok(document.usageError, usage.stdout);
  }
});

test('in GitHub Actions every command annotates invalid input once (render --frozen in CI, lock, plan; check as before), as its --help says', async () => {
  const dir = example();
  const providers = path.join(dir, 'management-cluster', 'providers.yaml');
  writeFileSync(providers, readFileSync(providers, 'utf8').replace('version: v0.2.0', 'versoin: v0.2.0'));
  for (const args of [
    ['render', '-f', 'management-cluster', '-o', 'out', '--frozen'],
    ['lock', '-f', 'management-cluster'],
    ['plan', '-f', 'management-cluster'],
    ['check', '-f', 'management-cluster', '-o', 'out'],
  ]) {
    const failed = await runCli(args, { cwd: dir, env: { GITHUB_ACTIONS: 'true' } });
    assert.equal(failed.code, 1, failed.stderr);
    const annotations = failed.stderr.split('\n').filter((line) => line.includes('spec.versoin') && line.startsWith('::error '));
    assert.equal(annotations.length, 1, `${args[0]}: ${failed.stderr}`);
    assert.match(annotations[0]!, /^::error file=management-cluster\/providers\.yaml,line=\d+,col=\d+,title=capi-gitops::/);
    assert.match(failed.stderr, /^management-cluster\/providers\.yaml:\d+:\d+: error: .*spec\.versoin/m, 'the usual message too');
  }
  const local = await runCli(['render', '-f', 'management-cluster', '-o', 'out'], { cwd: dir, env: { GITHUB_ACTIONS: '' } });
  assert.doesNotMatch(local.stderr, /^::error/m, 'outside GitHub Actions, no annotation');
});

test('--quiet prints nothing on stdout; --verbose adds the files and sources on stderr', async () => {
  const dir = example();
  const quiet = await runCli(['render', '-f', 'management-cluster', '-o', 'out', '--quiet'], { cwd: dir });
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.equal(quiet.stdout, '');
  const config = path.join(dir, 'management-cluster', 'config.yaml');
  writeFileSync(config, readFileSync(config, 'utf8').replace('EXAMPLE_REGION: eu-west-1', 'EXAMPLE_REGION: eu-west-2'));
  const verbose = await runCli(['render', '-f', 'management-cluster', '-o', 'out', '--verbose'], { cwd: dir });
  assert.equal(verbose.code, 0, verbose.stderr);
  assert.match(verbose.stderr, /^ {2}changed 04-infrastructure-example\/deployment-capex-controller-manager\.yaml$/m);
  assert.match(verbose.stderr, /^ {2}cert-manager: .*cert-manager\.yaml$/m);
});

test('--quiet still prints warnings on stderr: an --env-secret no component uses is one', async () => {
  const dir = example();
  const env = { ...process.env, UNUSED_TOKEN: 'x' };
  const quiet = await runCli(['render', '-f', 'management-cluster', '-o', 'out', '--quiet', '--env-secret', 'UNUSED_TOKEN'], {
    cwd: dir,
    env,
  });
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.equal(quiet.stdout, '');
  assert.match(quiet.stderr, /^warning: --env-secret UNUSED_TOKEN: variable UNUSED_TOKEN is not used by any component/m);
});
