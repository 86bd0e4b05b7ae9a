/**
 * action.yml, exercised the way the runner does it for a pull request: each `run` step's
 * commands through `bash --noprofile --norc -eo pipefail`, its env evaluated from the inputs
 * and the event, GITHUB_PATH/GITHUB_OUTPUT carried between steps, GITHUB_STEP_SUMMARY pointing
 * at a file, and the pull-request comment sent to a GitHub API on 127.0.0.1.
 * `uses:` steps (actions/setup-node) are the runner's business and are skipped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import YAML from 'yaml';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { runCli } from '../helpers/cli.js';

interface Step {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  shell?: string;
  run?: string;
  env?: Record<string, string>;
}

type Context = Record<string, unknown>;

function lookup(context: Context, expression: string): unknown {
  return expression
    .split('.')
    .reduce<unknown>((value, key) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined), context);
}

/** The expression subset action.yml uses: paths, 'strings', ==, !=, !, &&, || and parentheses, with GitHub's precedence. */
function evaluate(expression: string, context: Context): unknown {
  const text = expression
    .trim()
    .replace(/^\$\{\{([\s\S]*)\}\}$/, '$1')
    .trim();
  const tokens = text.match(/'[^']*'|==|!=|&&|\|\||[!()]|[\w.-]+/g) ?? [];
  let at = 0;
  const value = (v: unknown) => (v === undefined || v === null ? '' : v);
  const primary = (): unknown => {
    const token = tokens[at++]!;
    if (token === '(') {
      const inner = or();
      assert.equal(tokens[at++], ')', `unbalanced parentheses in ${text}`);
      return inner;
    }
    if (token === '!') return !primary();
    if (token.startsWith("'")) return token.slice(1, -1);
    return lookup(context, token);
  };
  const comparison = (): unknown => {
    const left = primary();
    if (tokens[at] !== '==' && tokens[at] !== '!=') return left;
    const equal = tokens[at++] === '==';
    const same = String(value(left)) === String(value(primary()));
    return equal ? same : !same;
  };
  const and = (): unknown => {
    let result = comparison();
    while (tokens[at] === '&&') {
      at++;
      const right = comparison();
      result = result ? right : result;
    }
    return result;
  };
  const or = (): unknown => {
    let result = and();
    while (tokens[at] === '||') {
      at++;
      const right = and();
      result = result ? result : right;
    }
    return result;
  };
  const result = or();
  assert.equal(at, tokens.length, `unparsed expression ${text}`);
  return result;
}

function substitute(template: string, context: Context): string {
  return template.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expression: string) => String(evaluate(expression, context) ?? ''));
}

interface Recorded {
  method: string;
  url: string;
  body: string;
  authorization: string | undefined;
}

interface FakeCommentsApi {
  url: string;
  requests: Recorded[];
  comments: { id: number; body: string }[];
  close: () => Promise<void>;
}

/**
 * The issue-comments API of acme/mgmt pull request 7 as GitHub answers it: pages of `per_page`
 * (at most 100) with a Link header to the next page; `readOnly` answers writes with 403 and
 * GitHub's message, as for the read-only token of a pull request from a fork.
 */
async function fakeGitHub(options: { comments?: string[]; readOnly?: boolean } = {}): Promise<FakeCommentsApi> {
  const requests: Recorded[] = [];
  const comments = (options.comments ?? []).map((body, index) => ({ id: 1000 + index, body }));
  let origin = '';
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      requests.push({ method: req.method!, url: req.url!, body, authorization: req.headers.authorization });
      res.setHeader('content-type', 'application/json');
      const url = new URL(req.url!, origin);
      if (options.readOnly && req.method !== 'GET') {
        res.statusCode = 403;
        return void res.end(JSON.stringify({ message: 'Resource not accessible by integration', status: '403' }));
      }
      if (req.method === 'GET' && url.pathname === '/repos/acme/mgmt/issues/7/comments') {
        const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 30), 100);
        const page = Number(url.searchParams.get('page') ?? 1);
        if (page * perPage < comments.length)
          res.setHeader('link', `<${origin}${url.pathname}?per_page=${perPage}&page=${page + 1}>; rel="next"`);
        return void res.end(JSON.stringify(comments.slice((page - 1) * perPage, page * perPage)));
      }
      if (req.method === 'POST' && url.pathname === '/repos/acme/mgmt/issues/7/comments') {
        comments.push({ id: 1000 + comments.length, body: JSON.parse(body).body });
        return void res.end(JSON.stringify(comments.at(-1)));
      }
      const patch = /^\/repos\/acme\/mgmt\/issues\/comments\/(\d+)$/.exec(url.pathname);
      if (req.method === 'PATCH' && patch) {
        const comment = comments.find((c) => c.id === Number(patch[1]))!;
        comment.body = JSON.parse(body).body;
        return void res.end(JSON.stringify(comment));
      }
      res.statusCode = 404;
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return { url: origin, requests, comments, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8' });
  assert.equal(result.status, 0, `git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

/** Asynchronous, so the fake API server in this process can answer while a step runs. */
function runScript(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', args, { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Runs the action's steps for one job; returns each executed step's exit status and output. */
async function runAction(workspace: string, inputs: Record<string, string>, github: Context, env: Record<string, string>) {
  const action = YAML.parse(readFileSync(path.join(PROJECT_ROOT, 'action.yml'), 'utf8')) as {
    inputs: Record<string, { default?: string }>;
    runs: { using: string; steps: Step[] };
  };
  assert.equal(action.runs.using, 'composite');
  const runnerTemp = tempDir('capi-gitops-runner-');
  const pathFile = path.join(runnerTemp, 'path');
  writeFileSync(pathFile, '');
  const context: Context = { github, steps: {}, inputs: {} };
  for (const [name, input] of Object.entries(action.inputs))
    (context.inputs as Record<string, string>)[name] = inputs[name] ?? substitute(input.default ?? '', context);
  const results: { name: string; status: number | null; stdout: string; stderr: string; outputs: Record<string, string> }[] = [];
  for (const step of action.runs.steps) {
    if (step.uses) continue;
    if (step.if !== undefined && !evaluate(step.if, context)) continue;
    assert.equal(step.shell, 'bash', 'every run step names its shell (required in composite actions)');
    const outputFile = path.join(runnerTemp, `output-${results.length}`);
    writeFileSync(outputFile, '');
    const extraPath = readFileSync(pathFile, 'utf8').split('\n').filter(Boolean).reverse();
    const stepEnv: NodeJS.ProcessEnv = {
      ...process.env,
      ...env,
      GITHUB_ACTIONS: 'true',
      GITHUB_ACTION_PATH: String(github.action_path ?? PROJECT_ROOT),
      GITHUB_PATH: pathFile,
      GITHUB_OUTPUT: outputFile,
      RUNNER_TEMP: runnerTemp,
      PATH: [...extraPath, process.env.PATH].join(path.delimiter),
    };
    for (const [key, value] of Object.entries(step.env ?? {})) stepEnv[key] = substitute(String(value), context);
    const script = path.join(runnerTemp, `step-${results.length}.sh`);
    writeFileSync(script, step.run!);
    const result = await runScript(['--noprofile', '--norc', '-eo', 'pipefail', script], workspace, stepEnv);
    const outputs = Object.fromEntries(
      readFileSync(outputFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    if (step.id) (context.steps as Record<string, unknown>)[step.id] = { outputs };
    results.push({ name: step.name ?? step.id ?? '', status: result.status, stdout: result.stdout, stderr: result.stderr, outputs });
    if (result.status !== 0) break;
  }
  return results;
}

test('action.yml on a pull request: install, diff to the step summary, PR comment created then updated, check passes; drift fails the job', async () => {
  const workspace = tempDir('capi-gitops-action-');
  const server = await fakeGitHub();
  try {
    cpSync(path.join(PROJECT_ROOT, 'examples'), path.join(workspace, 'examples'), { recursive: true });
    git(workspace, 'init', '-q', '-b', 'main');
    git(workspace, 'config', 'user.email', 'ci@example.com');
    git(workspace, 'config', 'user.name', 'CI');
    const cli = async (args: string[]) => await runCli([...args], { cwd: workspace });
    assert.equal((await cli(['render', '-f', 'examples/management-cluster', '-o', 'clusters/mgmt'])).code, 0);
    git(workspace, 'add', '-A');
    git(workspace, 'commit', '-q', '-m', 'base');
    const base = git(workspace, 'rev-parse', 'HEAD');
    // The pull request: a new image mirror, rendered and committed.
    const config = path.join(workspace, 'examples', 'management-cluster', 'config.yaml');
    writeFileSync(
      config,
      readFileSync(config, 'utf8').replace('repository: mirror.example.internal/capi', 'repository: mirror2.example.internal/capi'),
    );
    assert.equal((await cli(['render', '-f', 'examples/management-cluster', '-o', 'clusters/mgmt'])).code, 0);
    git(workspace, 'commit', '-q', '-am', 'new mirror');

    const summary = path.join(tempDir('capi-gitops-summary-'), 'step-summary.md');
    writeFileSync(summary, '');
    const github = {
      event_name: 'pull_request',
      action_path: PROJECT_ROOT,
      token: 'ghs_fake',
      event: { pull_request: { number: 7, base: { sha: base } } },
    };
    const env = { GITHUB_STEP_SUMMARY: summary, GITHUB_API_URL: server.url, GITHUB_REPOSITORY: 'acme/mgmt' };
    const inputs = { manifest: 'examples/management-cluster', output: 'clusters/mgmt', comment: 'true' };

    const first = await runAction(workspace, inputs, github, env);
    assert.deepEqual(
      first.map((s) => [s.name, s.status]),
      [
        ['Install capi-gitops', 0],
        ["Diff against the pull request's base", 0],
        ['Comment on the pull request', 0],
        ['Check the committed output', 0],
      ],
      JSON.stringify(first, null, 2),
    );
    const markdown = readFileSync(summary, 'utf8');
    assert.match(markdown, /^## capi-gitops diff\n/);
    assert.match(markdown, /\*\*image\*\* .*mirror\.example\.internal\/capi\/.* → mirror2\.example\.internal\/capi\//);
    assert.match(first[3]!.stdout, /clusters\/mgmt is up to date/);
    const posted = server.requests.filter((r) => r.method === 'POST');
    assert.equal(posted.length, 1);
    assert.equal(posted[0]!.authorization, 'Bearer ghs_fake');
    assert.equal(JSON.parse(posted[0]!.body).body, `<!-- capi-gitops diff -->\n${markdown}`);

    // A later push: the same comment is updated in place, not duplicated.
    await runAction(workspace, inputs, github, env);
    assert.equal(server.requests.filter((r) => r.method === 'POST').length, 1);
    assert.equal(server.requests.filter((r) => r.method === 'PATCH').length, 1);

    // Drift: the check step fails the job, with an annotation naming the file.
    writeFileSync(path.join(workspace, 'clusters', 'mgmt', 'kustomization.yaml'), '# edited\n');
    const drift = await runAction(workspace, { ...inputs, comment: 'false' }, github, env);
    assert.deepEqual(
      drift.map((s) => [s.name, s.status]),
      [
        ['Install capi-gitops', 0],
        ["Diff against the pull request's base", 0],
        ['Check the committed output', 1],
      ],
    );
    assert.match(drift[2]!.stderr, /::error file=clusters\/mgmt\/kustomization\.yaml,title=capi-gitops check%3A edited::/);

    // On a push (no pull request) only install and check run.
    const push = await runAction(workspace, inputs, { ...github, event_name: 'push', event: {} }, env);
    assert.deepEqual(
      push.map((s) => s.name),
      ['Install capi-gitops', 'Check the committed output'],
    );
    assert.ok(!existsSync(path.join(workspace, 'node_modules')), 'the install step did not npm install into the workspace');
  } finally {
    await server.close();
    rmSync(workspace, { recursive: true, force: true });
  }
});

test('action.yml on the pull request that fixes a base whose manifest does not render: the diff is told as not made, and check, the gate, passes the job', async () => {
  const workspace = tempDir('capi-gitops-action-');
  try {
    cpSync(path.join(PROJECT_ROOT, 'examples'), path.join(workspace, 'examples'), { recursive: true });
    git(workspace, 'init', '-q', '-b', 'main');
    git(workspace, 'config', 'user.email', 'ci@example.com');
    git(workspace, 'config', 'user.name', 'CI');
    const cli = async (args: string[]) => await runCli([...args], { cwd: workspace });
    assert.equal((await cli(['render', '-f', 'examples/management-cluster', '-o', 'clusters/mgmt'])).code, 0);
    // the base: a merge committed with its conflict markers
    const providers = path.join(workspace, 'examples', 'management-cluster', 'providers.yaml');
    const fixed = readFileSync(providers, 'utf8');
    writeFileSync(providers, `${fixed}<<<<<<< HEAD\n# ours\n=======\n# theirs\n>>>>>>> topic\n`);
    git(workspace, 'add', '-A');
    git(workspace, 'commit', '-q', '-m', 'base');
    const base = git(workspace, 'rev-parse', 'HEAD');
    writeFileSync(providers, fixed);
    git(workspace, 'commit', '-q', '-am', 'resolve the conflict');

    const summary = path.join(tempDir('capi-gitops-summary-'), 'step-summary.md');
    writeFileSync(summary, '');
    const github = {
      event_name: 'pull_request',
      action_path: PROJECT_ROOT,
      token: 'ghs_fake',
      event: { pull_request: { number: 7, base: { sha: base } } },
    };
    const steps = await runAction(workspace, { manifest: 'examples/management-cluster', output: 'clusters/mgmt' }, github, {
      GITHUB_STEP_SUMMARY: summary,
    });
    assert.deepEqual(
      steps.map((s) => [s.name, s.status]),
      [
        ['Install capi-gitops', 0],
        ["Diff against the pull request's base", 0],
        ['Check the committed output', 0],
      ],
      JSON.stringify(steps, null, 2),
    );
    assert.match(steps[1]!.stderr, /unresolved Git merge conflict/);
    assert.match(steps[1]!.stderr, /::warning title=capi-gitops diff::/);
    // the diff is no gate: what it could not do is told as warnings, not as errors on a job that passes
    assert.match(steps[1]!.stderr, /^::warning title=capi-gitops::.*unresolved Git merge conflict/m);
    assert.doesNotMatch(steps[1]!.stderr, /^::error/m);
    assert.match(readFileSync(summary, 'utf8'), /the diff against the pull request's base could not be made/);
    // the comment step posts that, not an earlier push's diff
    assert.match(
      readFileSync(steps[1]!.outputs.file!, 'utf8'),
      /^## capi-gitops diff\n\nthe diff against the pull request's base could not be made/,
    );
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
});

/**
 * The action's own checkout with a stand-in for the single-file bundle that records the argument
 * list and the secret variables it was started with, so the test sees exactly what a workflow's
 * inputs become.
 */
function stubActionCheckout(): { actionPath: string; log: string } {
  const actionPath = tempDir('capi-gitops-action-checkout-');
  cpSync(path.join(PROJECT_ROOT, 'action'), path.join(actionPath, 'action'), { recursive: true });
  mkdirSync(path.join(actionPath, 'dist'));
  const log = path.join(actionPath, 'calls.jsonl');
  writeFileSync(
    path.join(actionPath, 'dist', 'capi-gitops.mjs'),
    `import { appendFileSync } from 'node:fs';
const argv = process.argv.slice(2);
const env = { API_TOKEN: process.env.API_TOKEN, MULTI_LINE: process.env.MULTI_LINE };
appendFileSync(${JSON.stringify(log)}, JSON.stringify({ argv, env }) + '\\n');
if (argv[0] === 'diff') process.stdout.write('## capi-gitops diff\\n\\nno changes\\n');
`,
  );
  return { actionPath, log };
}

test('action.yml: args with quotes and a glob reach capi-gitops word for word; secret inputs are masked, then passed as --env-secret; a read-only token skips the comment with a notice', async () => {
  const workspace = tempDir('capi-gitops-action-');
  const server = await fakeGitHub({ readOnly: true });
  const { actionPath, log } = stubActionCheckout();
  try {
    // what an unquoted $ARGS would have globbed into
    for (const file of ['a.yaml', 'b.yaml']) writeFileSync(path.join(workspace, file), '{}\n');
    const args = [
      `--layout argocd --set 'repoURL=https://git.example.com/platform/management.git'`,
      `--set "path=clusters/mgmt two" --values *.yaml   # a comment`,
      `--set-string 'note=it'"'"'s $HOME ~' \\`,
      `  --set 'empty='`,
    ].join('\n');
    const secrets = ['API_TOKEN=tok%en value', '# from the step env, spanning lines:', 'MULTI_LINE', ''].join('\n');
    const github = {
      event_name: 'pull_request',
      action_path: actionPath,
      token: 'ghs_read_only',
      event: { pull_request: { number: 7, base: { sha: 'abc123' } } },
    };
    const env = {
      GITHUB_API_URL: server.url,
      GITHUB_REPOSITORY: 'acme/mgmt',
      GITHUB_STEP_SUMMARY: path.join(workspace, 'summary.md'),
      MULTI_LINE: 'line-one-secret\r\nline-two-secret',
    };
    const steps = await runAction(workspace, { manifest: 'mc/', output: 'out dir', args, secrets, comment: 'true' }, github, env);
    assert.deepEqual(
      steps.map((s) => [s.name, s.status]),
      [
        ['Install capi-gitops', 0],
        ["Diff against the pull request's base", 0],
        ['Comment on the pull request', 0],
        ['Check the committed output', 0],
      ],
      JSON.stringify(steps, null, 2),
    );
    const render = [
      '-f',
      'mc/',
      '-o',
      'out dir',
      '--layout',
      'argocd',
      '--set',
      'repoURL=https://git.example.com/platform/management.git',
      '--set',
      'path=clusters/mgmt two',
      '--values',
      '*.yaml',
      '--set-string',
      "note=it's $HOME ~",
      '--set',
      'empty=',
      '--env-secret',
      'API_TOKEN',
      '--env-secret',
      'MULTI_LINE',
    ];
    const calls = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { argv: string[]; env: Record<string, string> });
    assert.deepEqual(
      calls.map((c) => c.argv),
      [
        ['diff', ...render, '--base', 'abc123', '--format', 'markdown'],
        ['check', ...render],
      ],
    );
    for (const call of calls) assert.deepEqual(call.env, { API_TOKEN: 'tok%en value', MULTI_LINE: 'line-one-secret\r\nline-two-secret' });
    // masked before capi-gitops starts, escaped as actions/toolkit escapeData does, and line by line
    for (const step of [steps[1]!, steps[3]!])
      assert.deepEqual(
        step.stdout.split('\n').filter((line) => line.startsWith('::add-mask::')),
        [
          '::add-mask::tok%25en value',
          '::add-mask::line-one-secret%0D%0Aline-two-secret',
          '::add-mask::line-one-secret',
          '::add-mask::line-two-secret',
        ],
      );
    assert.match(steps[2]!.stdout, /^::notice title=capi-gitops::the pull-request comment was skipped: .*403.*forks/m);
    assert.equal(server.requests.filter((r) => r.method === 'POST').length, 1, 'the comment was tried once');
    assert.equal(server.comments.length, 0);
  } finally {
    await server.close();
    rmSync(workspace, { recursive: true, force: true });
    rmSync(actionPath, { recursive: true, force: true });
  }
});

test('action.yml: an unterminated quote in args or a malformed secrets line fails the step before capi-gitops runs, without printing the value', async () => {
  const workspace = tempDir('capi-gitops-action-');
  const { actionPath, log } = stubActionCheckout();
  try {
    const github = { event_name: 'push', action_path: actionPath, token: 'ghs_fake', event: {} };
    const steps = await runAction(
      workspace,
      { manifest: 'mc/', output: 'out', args: `--set 'path=x`, secrets: 'API TOKEN=hunter2-secret\nMISSING_ONE' },
      github,
      {},
    );
    assert.deepEqual(
      steps.map((s) => [s.name, s.status]),
      [
        ['Install capi-gitops', 0],
        ['Check the committed output', 1],
      ],
    );
    const stderr = steps[1]!.stderr;
    assert.match(stderr, /^::error title=capi-gitops action::args: the single quote at character 7 is not closed/m);
    assert.match(stderr, /^::error title=capi-gitops action::secrets, line 1: expected NAME=value or NAME/m);
    assert.match(stderr, /^::error title=capi-gitops action::secrets, line 2: MISSING_ONE is not in the environment/m);
    assert.ok(!stderr.includes('hunter2'), stderr);
    assert.ok(!existsSync(log), 'capi-gitops ran');
  } finally {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(actionPath, { recursive: true, force: true });
  }
});

test('action.yml mode upgrade: plan, update and render leave the upgrade in the work tree with the plan as the pull-request body; check then passes', async () => {
  const workspace = tempDir('capi-gitops-action-');
  try {
    cpSync(path.join(PROJECT_ROOT, 'examples'), path.join(workspace, 'examples'), { recursive: true });
    // a patch release of the example core provider, same contract
    const releases = path.join(workspace, 'examples', 'repository', 'cluster-api');
    cpSync(path.join(releases, 'v0.2.0'), path.join(releases, 'v0.2.1'), { recursive: true });
    const components = path.join(releases, 'v0.2.1', 'core-components.yaml');
    writeFileSync(components, readFileSync(components, 'utf8').replaceAll('v0.2.0', 'v0.2.1'));
    const providers = path.join(workspace, 'examples', 'management-cluster', 'providers.yaml');
    const pinned = readFileSync(providers, 'utf8').replace(
      '  namespace: capi-system\nspec:\n',
      '  namespace: capi-system\nspec:\n  version: v0.2.0\n',
    );
    writeFileSync(providers, pinned);
    git(workspace, 'init', '-q', '-b', 'main');
    git(workspace, 'config', 'user.email', 'ci@example.com');
    git(workspace, 'config', 'user.name', 'CI');
    const render = await runCli(['render', '-f', 'examples/management-cluster', '-o', 'clusters/mgmt'], { cwd: workspace });
    assert.equal(render.code, 0, render.stderr);
    git(workspace, 'add', '-A');
    git(workspace, 'commit', '-q', '-m', 'base');

    const github = { event_name: 'schedule', action_path: PROJECT_ROOT, token: 'ghs_fake', event: {} };
    const inputs = { manifest: 'examples/management-cluster', output: 'clusters/mgmt', mode: 'upgrade' };
    const steps = await runAction(workspace, inputs, github, {});
    assert.deepEqual(
      steps.map((s) => [s.name, s.status]),
      [
        ['Install capi-gitops', 0],
        ['Upgrade providers', 0],
      ],
      JSON.stringify(steps, null, 2),
    );
    const { outputs } = steps[1]!;
    assert.equal(outputs.changed, 'true');
    const body = readFileSync(outputs['body-file']!, 'utf8');
    assert.match(body, /^## capi-gitops upgrade\n/);
    assert.match(body, /```\n[\s\S]*cluster-api\s+capi-system\s+CoreProvider\s+v0\.2\.0\s+v1beta2\s+v0\.2\.1\n[\s\S]*```\n$/);
    assert.equal(
      readFileSync(providers, 'utf8'),
      pinned.replace('capi-system\nspec:\n  version: v0.2.0\n', 'capi-system\nspec:\n  version: v0.2.1\n'),
    );
    const changed = git(workspace, 'status', '--porcelain').split('\n');
    assert.ok(changed.includes(' M examples/management-cluster/capi-gitops.lock.yaml'), changed.join('\n'));
    assert.ok(
      changed.some((line) => line.startsWith(' M clusters/mgmt/')),
      changed.join('\n'),
    );

    // the pull request the upgrade opens passes the action's check
    const check = await runAction(workspace, { ...inputs, mode: 'check' }, { ...github, event_name: 'push' }, {});
    assert.deepEqual(
      check.map((s) => [s.name, s.status]),
      [
        ['Install capi-gitops', 0],
        ['Check the committed output', 0],
      ],
    );
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
});

test('action.yml: an unknown mode fails the job before anything is installed', async () => {
  const workspace = tempDir('capi-gitops-action-');
  const { actionPath } = stubActionCheckout();
  try {
    const github = { event_name: 'push', action_path: actionPath, token: 'ghs_fake', event: {} };
    const steps = await runAction(workspace, { manifest: 'mc/', output: 'out', mode: 'upgrades' }, github, {});
    assert.deepEqual(
      steps.map((s) => [s.name, s.status]),
      [['Refuse an unknown mode', 1]],
    );
    assert.match(steps[0]!.stdout, /::error title=capi-gitops action::mode: expected check or upgrade, got 'upgrades'/);
  } finally {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(actionPath, { recursive: true, force: true });
  }
});
