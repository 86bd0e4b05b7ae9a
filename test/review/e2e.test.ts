/**
 * The pull-request workflow end to end, in a temporary Git repository with the real `git` and
 * the CLI as a user runs it: render and commit, check, drift of each kind, a core upgrade
 * v1.10.4 → v1.12.0 from the corpus reviewed with `diff --base HEAD`, render again, check.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync, appendFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { PROJECT_ROOT, FIXTURES } from '../helpers/paths.js';
import { corpusManifest, tempDir } from '../helpers/corpus-manifest.js';
import { runCli, type CliResult } from '../helpers/cli.js';

const SNAPSHOT = path.join(FIXTURES, 'review', 'core-v1.10.4-to-v1.12.0.md');

/** Nothing from the machine running the tests (a CI job's own summary file) leaks in. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  for (const key of ['GITHUB_ACTIONS', 'GITHUB_STEP_SUMMARY', 'NO_COLOR']) if (!(key in extra)) delete env[key];
  return env;
}

function git(cwd: string, ...args: string[]): string {
  const env = { ...process.env, GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z' };
  const result = spawnSync('git', args, { cwd, encoding: 'utf8', env });
  assert.equal(result.status, 0, `git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

function makeRepository(): {
  repo: string;
  cli: (args: string[], env?: Record<string, string>) => Promise<CliResult>;
} {
  const repo = tempDir('capi-gitops-review-e2e-');
  const cache = path.join(tempDir('capi-gitops-review-cache-'), 'cache');
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.email', 'reviewer@example.com');
  git(repo, 'config', 'user.name', 'Reviewer');
  mkdirSync(path.join(repo, 'mgmt'));
  writeFileSync(path.join(repo, 'mgmt', 'providers.yaml'), corpusManifest('v1.10.4'));
  const cli = async (args: string[], env: Record<string, string> = {}) =>
    await runCli([...args, '--cache-dir', cache], { cwd: repo, env: cleanEnv(env) });
  return { repo, cli };
}

const SOURCE = ['-f', 'mgmt', '-o', 'out'];

test('pull-request workflow: render, check, drift named, core v1.10.4 → v1.12.0 reviewed with diff --base HEAD, render, check', async () => {
  const { repo, cli } = makeRepository();
  try {
    // 1. render and commit
    const rendered = await cli(['render', ...SOURCE]);
    assert.equal(rendered.code, 0, rendered.stderr);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'render v1.10.4');

    // 2. check passes, in both spellings
    const clean = await cli(['check', ...SOURCE]);
    assert.equal(clean.code, 0, clean.stderr + clean.stdout);
    assert.match(clean.stdout, /^out is up to date: \d+ files match/);
    assert.equal((await cli(['render', '--check', ...SOURCE])).code, 0);

    // 3. a hand edit, a deletion and a stray file, each named
    const edited = 'out/01-cluster-api/deployment-capi-controller-manager.yaml';
    const deleted = 'out/02-bootstrap-kubeadm/service-capi-kubeadm-bootstrap-webhook-service.yaml';
    const stray = 'out/01-cluster-api/notes.yaml';
    appendFileSync(path.join(repo, edited), '# tuned by hand\n');
    unlinkSync(path.join(repo, deleted));
    writeFileSync(path.join(repo, stray), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\n');
    const drift = await cli(['check', ...SOURCE]);
    assert.equal(drift.code, 1, drift.stderr);
    assert.match(drift.stdout, new RegExp(`edited +${edited.slice('out/'.length)}: edited by hand since the last render`));
    assert.match(drift.stdout, new RegExp(`missing +${deleted.slice('out/'.length)}: missing`));
    assert.match(
      drift.stdout,
      new RegExp(`extra +${stray.slice('out/'.length)}: not written by capi-gitops .*render leaves it, so remove it`),
    );
    // render never removes a file it did not write: the hint says to remove it first
    assert.match(
      drift.stdout,
      /3 files out of date; to regenerate, remove out\/01-cluster-api\/notes\.yaml, then run: capi-gitops render -f mgmt -o out\n$/,
    );
    const json = await cli(['check', ...SOURCE, '--json']);
    assert.equal(json.code, 1);
    assert.deepEqual(
      JSON.parse(json.stdout).problems.map((p: { path: string; status: string }) => [p.status, p.path]),
      [
        ['edited', edited],
        ['missing', deleted],
        ['extra', stray],
      ]
        .map(([s, p]) => [s, p!.slice('out/'.length)])
        .sort((a, b) => (a[1]! < b[1]! ? -1 : 1)),
    );
    const annotated = await cli(['render', '--check', ...SOURCE], { GITHUB_ACTIONS: 'true' });
    assert.equal(annotated.code, 1);
    assert.match(annotated.stderr, new RegExp(`::error file=${edited},title=capi-gitops check%3A edited::`));
    assert.equal(git(repo, 'status', '--porcelain'), ` M ${edited}\n D ${deleted}\n?? ${stray}\n`, 'check wrote nothing');
    // the hint, followed literally, fixes the check
    rmSync(path.join(repo, stray));
    assert.equal((await cli(['render', ...SOURCE])).code, 0);
    assert.equal((await cli(['check', ...SOURCE])).code, 0);
    git(repo, 'checkout', '-q', '--', 'out');

    // 4. bump core (and its kubeadm providers) v1.10.4 → v1.12.0; review against HEAD
    writeFileSync(path.join(repo, 'mgmt', 'providers.yaml'), corpusManifest('v1.12.0'));
    const summaryFile = path.join(tempDir('capi-gitops-summary-'), 'summary.md');
    writeFileSync(summaryFile, '# earlier step\n');
    const diff = await cli(['diff', ...SOURCE, '--base', 'HEAD', '--format', 'markdown'], {
      GITHUB_ACTIONS: 'true',
      GITHUB_STEP_SUMMARY: summaryFile,
    });
    assert.equal(diff.code, 0, diff.stderr);
    const markdown = diff.stdout;
    assert.equal(
      git(repo, 'status', '--porcelain'),
      ' M mgmt/providers.yaml\n',
      'diff --base touched neither the checkout nor the lockfile',
    );
    assert.equal(
      readFileSync(summaryFile, 'utf8'),
      `# earlier step\n${markdown}${markdown.endsWith('\n') ? '' : '\n'}`,
      'the markdown is appended to the step summary',
    );
    for (const component of ['cluster-api', 'bootstrap-kubeadm', 'control-plane-kubeadm']) {
      assert.ok(markdown.includes(`| \`${component}\` | v1.10.4 → v1.12.0 |`), `version bump of ${component} in the table`);
    }
    assert.match(
      markdown,
      /\*\*image\*\* Deployment\/capi-system\/capi-controller-manager container manager: image registry\.k8s\.io\/cluster-api\/cluster-api-controller:v1\.10\.4 → registry\.k8s\.io\/cluster-api\/cluster-api-controller:v1\.12\.0/,
    );
    assert.match(markdown, /\*\*crd\*\* clusters\.cluster\.x-k8s\.io: versions added: v1beta2; v1beta1 storage true → false/);
    assert.match(markdown, /\*\*version\*\* cluster-api upgraded v1\.10\.4 → v1\.12\.0/);
    // the contract each provider moves to, as the lockfile records it (metadata.yaml), and a CRD that now needs a conversion webhook
    assert.match(markdown, /\*\*contract\*\* cluster-api v1\.10\.4 → v1\.12\.0 moves from contract v1beta1 to v1beta2/);
    assert.match(
      markdown,
      /\*\*crd\*\* ipaddresses\.ipam\.cluster\.x-k8s\.io: [^\n]*; conversion None → Webhook \(service capi-system\/capi-webhook-service, CA from capi-system\/capi-serving-cert\)/,
    );
    for (const schemaText of ['openAPIV3Schema', 'x-kubernetes-', 'description:', 'properties:'])
      assert.ok(!markdown.includes(schemaText), `no CRD schema text (${schemaText})`);
    assert.ok(markdown.length < 65_536);
    assert.match(
      diff.stderr,
      /^::warning file=out\/01-cluster-api\/crds\/customresourcedefinition-clusters\.cluster\.x-k8s\.io\.yaml,title=capi-gitops%3A crd::/m,
    );
    const normalized = markdown.replace(/\(([0-9a-f]{12})\)/g, '(<commit>)');
    if (process.env.UPDATE_SNAPSHOTS || !existsSync(SNAPSHOT)) {
      mkdirSync(path.dirname(SNAPSHOT), { recursive: true });
      writeFileSync(SNAPSHOT, normalized);
    }
    assert.equal(
      normalized,
      readFileSync(SNAPSHOT, 'utf8'),
      `the markdown differs from ${path.relative(PROJECT_ROOT, SNAPSHOT)} (UPDATE_SNAPSHOTS=1 rewrites it)`,
    );

    // the same change as JSON, valid against the published schema
    const jsonDiff = await cli(['diff', ...SOURCE, '--base', 'HEAD', '--format', 'json']);
    assert.equal(jsonDiff.code, 0, jsonDiff.stderr);
    const report = JSON.parse(jsonDiff.stdout);
    const schema = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'schema', 'capi-gitops-diff.schema.json'), 'utf8'));
    const validate = new Ajv.default({ allErrors: true, strict: true }).compile(schema);
    assert.ok(validate(JSON.parse(jsonDiff.stdout)), JSON.stringify(validate.errors, null, 2));
    assert.equal(report.schemaVersion, 1);
    assert.deepEqual(
      report.findings
        .filter((f: { type: string }) => f.type === 'version')
        .map((f: { component: string; from: string; to: string; direction: string }) => [f.component, f.from, f.to, f.direction]),
      [
        ['01-cluster-api', 'v1.10.4', 'v1.12.0', 'upgrade'],
        ['02-bootstrap-kubeadm', 'v1.10.4', 'v1.12.0', 'upgrade'],
        ['03-control-plane-kubeadm', 'v1.10.4', 'v1.12.0', 'upgrade'],
      ],
    );
    assert.deepEqual(
      report.findings
        .filter((f: { type: string }) => f.type === 'contract')
        .map((f: { component: string; from: string; to: string; risk: string }) => [f.component, f.from, f.to, f.risk]),
      [
        ['01-cluster-api', 'v1beta1', 'v1beta2', 'info'],
        ['02-bootstrap-kubeadm', 'v1beta1', 'v1beta2', 'info'],
        ['03-control-plane-kubeadm', 'v1beta1', 'v1beta2', 'info'],
      ],
    );

    // the default sources (committed output against a fresh render) see the same change
    const committed = await cli(['diff', ...SOURCE, '--format', 'json']);
    assert.equal(committed.code, 0, committed.stderr);
    assert.deepEqual(JSON.parse(committed.stdout).summary, report.summary);

    // 5. render, commit, check passes again; --from/--to on the two trees agrees
    const previous = path.join(tempDir('capi-gitops-previous-'), 'wt');
    git(repo, 'worktree', 'add', '-q', previous, 'HEAD');
    const rerender = await cli(['render', ...SOURCE]);
    assert.equal(rerender.code, 0, rerender.stderr);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'core v1.12.0');
    const after = await cli(['check', ...SOURCE]);
    assert.equal(after.code, 0, after.stdout + after.stderr);
    const dirs = await cli(['diff', '--from', path.join(previous, 'out'), '--to', 'out', '--format', 'json']);
    assert.equal(dirs.code, 0, dirs.stderr);
    assert.deepEqual(JSON.parse(dirs.stdout).summary, report.summary);
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test('diff --base with a ref that is not a commit: exit 1 with a runnable hint, nothing written', async () => {
  const { repo, cli } = makeRepository();
  try {
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'manifest');
    const result = await cli(['diff', ...SOURCE, '--base', 'no-such-branch']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /--base no-such-branch is not a commit/);
    assert.match(result.stderr, /hint: git fetch/);
    assert.ok(!result.stderr.includes('    at '), 'no stack trace');
    assert.equal(git(repo, 'status', '--porcelain'), '');
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test('diff --base in a shallow clone (actions/checkout without fetch-depth: 0): the annotation says the clone is shallow and how to fetch the history, and points at no file', async () => {
  const { repo } = makeRepository();
  const shallow = path.join(tempDir('capi-gitops-review-shallow-'), 'clone');
  try {
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'manifest');
    const base = git(repo, 'rev-parse', 'HEAD').trim();
    writeFileSync(path.join(repo, 'README.md'), '# platform\n');
    git(repo, 'add', 'README.md');
    git(repo, 'commit', '-q', '-m', 'readme');
    git(path.dirname(shallow), 'clone', '-q', '--depth', '1', `file://${repo}`, shallow);
    const result = await runCli(['diff', ...SOURCE, '--base', base], { cwd: shallow, env: cleanEnv({ GITHUB_ACTIONS: 'true' }) });
    assert.equal(result.code, 1, result.stderr);
    const annotation = result.stderr.split('\n').find((line) => line.startsWith('::error'));
    assert.ok(annotation, result.stderr);
    assert.ok(annotation.startsWith(`::error title=capi-gitops::--base ${base} is not in this clone: it is shallow`), annotation);
    assert.match(annotation, /\(hint: .*actions\/checkout with fetch-depth: 0.*git fetch --unshallow/);
    assert.doesNotMatch(annotation, /Needed a single revision/);
  } finally {
    rmSync(repo, { recursive: true, force: true });
    rmSync(path.dirname(shallow), { recursive: true, force: true });
  }
});

test('diff --base on the pull request that introduces the manifest (the Action on its first pull request): every object added, exit 0', async () => {
  const { repo, cli } = makeRepository();
  try {
    // the base branch has no mgmt/ yet; the pull request adds it with its rendered output
    writeFileSync(path.join(repo, 'README.md'), '# platform\n');
    git(repo, 'add', 'README.md');
    git(repo, 'commit', '-q', '-m', 'initial');
    assert.equal((await cli(['render', ...SOURCE, '--quiet'])).code, 0);
    const result = await cli(['diff', ...SOURCE, '--base', 'HEAD']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      /^nothing at HEAD \([0-9a-f]{12}\): mgmt is not there → the manifest as it is now\n(\d+) added, 0 removed, 0 changed/,
    );
    const added = Number(/\n(\d+) added/.exec(result.stdout)?.[1]);
    const json = await cli(['diff', ...SOURCE, '--base', 'HEAD', '--format', 'json']);
    assert.equal(json.code, 0, json.stderr);
    assert.ok(added > 50, result.stdout);
    // a -f file the base lacks beside one it has: the base is rendered from the one it has
    writeFileSync(
      path.join(repo, 'config.yaml'),
      'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nvariables: {EXP_MACHINE_POOL: "false"}\n',
    );
    git(repo, 'add', 'mgmt');
    git(repo, 'commit', '-q', '-m', 'manifest');
    const partial = await cli(['diff', '-f', 'mgmt', '-f', 'config.yaml', '-o', 'out', '--base', 'HEAD']);
    assert.equal(partial.code, 0, partial.stderr);
    assert.match(
      partial.stdout,
      /^the manifest at HEAD \([0-9a-f]{12}\), without config\.yaml \(not there yet\) → the manifest as it is now\n0 added, 0 removed, \d+ changed/,
    );
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test('diff --base: a problem of the base commit names its file as <ref>:<path>, which git show opens, not the temporary copy', async () => {
  const { repo, cli } = makeRepository();
  try {
    const manifest = path.join(repo, 'mgmt', 'providers.yaml');
    writeFileSync(manifest, corpusManifest('v1.12.0').replace('kind: CoreProvider', 'kind: CoreProvider\nbad: field'));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'a typo');
    writeFileSync(manifest, corpusManifest('v1.12.0'));
    const result = await cli(['diff', ...SOURCE, '--base', 'HEAD']);
    assert.equal(result.code, 1, result.stderr);
    const at = /^(HEAD:mgmt\/providers\.yaml):\d+:\d+: error: .*bad/m.exec(result.stderr)?.[1];
    assert.ok(at, result.stderr);
    assert.ok(!result.stderr.includes('capi-gitops-base-'), result.stderr);
    assert.match(git(repo, 'show', at), /\nbad: field\n/);
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test('in GitHub Actions, invalid input also becomes ::error file=…,line=… annotations (check and diff)', async () => {
  const { repo, cli } = makeRepository();
  try {
    writeFileSync(
      path.join(repo, 'mgmt', 'providers.yaml'),
      corpusManifest('v1.12.0').replace('kind: CoreProvider', 'kind: CoreProvider\n  bad: [unclosed'),
    );
    for (const command of [
      ['check', ...SOURCE],
      ['diff', ...SOURCE, '--format', 'json'],
    ]) {
      const result = await cli(command, { GITHUB_ACTIONS: 'true' });
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /^::error file=mgmt\/providers\.yaml,line=\d+,col=\d+,title=capi-gitops::/m);
      assert.match(result.stderr, /^mgmt\/providers\.yaml:\d+:\d+: error: /m, 'the usual message too');
      // check (no --json) prints nothing on stdout; diff --format json its ok: false document (docs/cli.md#json-output)
      if (command[0] === 'check') assert.equal(result.stdout, '');
      else assert.deepEqual([JSON.parse(result.stdout).command, JSON.parse(result.stdout).ok], ['diff', false]);
    }
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});
