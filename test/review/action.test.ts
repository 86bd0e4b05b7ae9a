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
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import YAML from 'yaml';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/corpus-manifest.js';

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

/** The expression subset action.yml uses: paths, 'strings', ==, !=, && and ||. */
function evaluate(expression: string, context: Context): unknown {
  const text = expression
    .trim()
    .replace(/^\$\{\{([\s\S]*)\}\}$/, '$1')
    .trim();
  if (text.includes('||')) return text.split('||').some((part) => evaluate(part, context));
  if (text.includes('&&')) return text.split('&&').every((part) => evaluate(part, context));
  const comparison = /^(.+?)\s*(==|!=)\s*(.+)$/.exec(text);
  const value = (side: string) => (/^'.*'$/.test(side.trim()) ? side.trim().slice(1, -1) : String(lookup(context, side.trim()) ?? ''));
  if (comparison)
    return comparison[2] === '==' ? value(comparison[1]!) === value(comparison[3]!) : value(comparison[1]!) !== value(comparison[3]!);
  return lookup(context, text);
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

async function fakeGitHub(): Promise<{ url: string; requests: Recorded[]; close: () => Promise<void> }> {
  const requests: Recorded[] = [];
  const comments: { id: number; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      requests.push({ method: req.method!, url: req.url!, body, authorization: req.headers.authorization });
      res.setHeader('content-type', 'application/json');
      if (req.method === 'GET' && /^\/repos\/acme\/mgmt\/issues\/7\/comments/.test(req.url!)) return void res.end(JSON.stringify(comments));
      if (req.method === 'POST' && req.url === '/repos/acme/mgmt/issues/7/comments') {
        comments.push({ id: 100 + comments.length, body: JSON.parse(body).body });
        return void res.end(JSON.stringify(comments.at(-1)));
      }
      const patch = /^\/repos\/acme\/mgmt\/issues\/comments\/(\d+)$/.exec(req.url!);
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
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
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
  const results: { name: string; status: number | null; stdout: string; stderr: string }[] = [];
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
      GITHUB_ACTION_PATH: PROJECT_ROOT,
      GITHUB_PATH: pathFile,
      GITHUB_OUTPUT: outputFile,
      RUNNER_TEMP: runnerTemp,
      PATH: [...extraPath, process.env.PATH].join(path.delimiter),
    };
    for (const [key, value] of Object.entries(step.env ?? {})) stepEnv[key] = substitute(String(value), context);
    const script = path.join(runnerTemp, `step-${results.length}.sh`);
    writeFileSync(script, step.run!);
    const result = await runScript(['--noprofile', '--norc', '-eo', 'pipefail', script], workspace, stepEnv);
    results.push({ name: step.name ?? step.id ?? '', status: result.status, stdout: result.stdout, stderr: result.stderr });
    if (step.id) {
      const outputs = Object.fromEntries(
        readFileSync(outputFile, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
      (context.steps as Record<string, unknown>)[step.id] = { outputs };
    }
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
    const cli = (args: string[]) =>
      spawnSync(process.execPath, [path.join(PROJECT_ROOT, 'dist', 'src', 'cli', 'main.js'), ...args], {
        cwd: workspace,
        encoding: 'utf8',
      });
    assert.equal(cli(['render', '-f', 'examples/management-cluster', '-o', 'clusters/mgmt']).status, 0);
    git(workspace, 'add', '-A');
    git(workspace, 'commit', '-q', '-m', 'base');
    const base = git(workspace, 'rev-parse', 'HEAD');
    // The pull request: a new image mirror, rendered and committed.
    const config = path.join(workspace, 'examples', 'management-cluster', 'config.yaml');
    writeFileSync(
      config,
      readFileSync(config, 'utf8').replace('repository: mirror.example.internal/capi', 'repository: mirror2.example.internal/capi'),
    );
    assert.equal(cli(['render', '-f', 'examples/management-cluster', '-o', 'clusters/mgmt']).status, 0);
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
