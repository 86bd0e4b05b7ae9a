#!/usr/bin/env node
/**
 * The Action's commands, run by action.yml as `node run.mjs <diff|check|upgrade>` with the inputs
 * in the environment (MANIFEST, OUTPUT, ARGS, SECRETS; BASE_SHA for diff). Arguments reach
 * capi-gitops as a list, never through a shell, so `args` is split once, by words.mjs.
 *   diff     diff --base BASE_SHA --format markdown into $RUNNER_TEMP/capi-gitops-diff.md (output `file`);
 *            a diff that fails is a warning, not the job's failure: check, run next, is the gate
 *            (its ::error annotations are printed as ::warning)
 *   check    check, failing the job when the committed output is stale
 *   upgrade  plan, update, render: the change is left in the work tree for a pull-request step,
 *            the plan as its body in $RUNNER_TEMP/capi-gitops-upgrade.md (outputs `body-file`, `changed`)
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { splitWords, WordsError } from './words.mjs';
import { maskCommands, parseSecrets } from './secrets.mjs';

const COMMANDS = ['diff', 'check', 'upgrade'];

/** The inputs, checked; every problem at once. */
export function readInputs(env) {
  const problems = [];
  let args = [];
  try {
    args = splitWords(env.ARGS ?? '');
  } catch (err) {
    if (!(err instanceof WordsError)) throw err;
    problems.push(err.message);
  }
  const secrets = parseSecrets(env.SECRETS ?? '', env);
  problems.push(...secrets.problems);
  for (const input of ['MANIFEST', 'OUTPUT']) if (!env[input]) problems.push(`the ${input.toLowerCase()} input is required`);
  return { manifest: env.MANIFEST, output: env.OUTPUT, args, secrets: secrets.variables, problems };
}

/** `--env-secret NAME` for each secret variable. */
function secretFlags(inputs) {
  return [...inputs.secrets.keys()].flatMap((name) => ['--env-secret', name]);
}

/** The capi-gitops argument lists a command runs, in order. */
export function commandLines(command, inputs, env) {
  const source = ['-f', inputs.manifest];
  const render = [...source, '-o', inputs.output, ...inputs.args, ...secretFlags(inputs)];
  if (command === 'diff') return [['diff', ...render, '--base', env.BASE_SHA, '--format', 'markdown']];
  if (command === 'check') return [['check', ...render]];
  // plan and update take the source flags only: settings they need live in the Config document
  return [
    ['plan', ...source],
    ['update', ...source],
    ['render', ...render],
  ];
}

/**
 * Runs capi-gitops. With `asWarnings`, the `::error` annotations it prints become `::warning`:
 * the step is no gate (diff), so what it could not do must not show as errors on a job that passes.
 */
function runCli(args, env, stdoutFile, asWarnings = false) {
  const fd = stdoutFile ? openSync(stdoutFile, 'w') : undefined;
  try {
    const result = spawnSync('capi-gitops', args, {
      env,
      stdio: ['ignore', fd ?? 'inherit', asWarnings ? 'pipe' : 'inherit'],
      maxBuffer: 256 * 1024 * 1024,
    });
    if (asWarnings && result.stderr) process.stderr.write(String(result.stderr).replace(/^::error(?=[ :])/gm, '::warning'));
    if (result.error) {
      process.stderr.write(`::error::capi-gitops could not be started: ${result.error.message}\n`);
      return 1;
    }
    return result.status ?? 1;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function setOutput(env, name, value) {
  if (env.GITHUB_OUTPUT) appendFileSync(env.GITHUB_OUTPUT, `${name}=${value}\n`);
}

/** The pull request's body: the plan, as `capi-gitops plan` printed it. */
export function upgradeBody(planText) {
  return `## capi-gitops upgrade\n\n\`capi-gitops plan\` before \`capi-gitops update\` and \`render\`:\n\n\`\`\`\n${planText.trimEnd()}\n\`\`\`\n`;
}

/** Whether the work tree has changes (the upgrade's output `changed`); undefined without Git. */
function workTreeChanged(env) {
  const status = spawnSync('git', ['status', '--porcelain'], { env, encoding: 'utf8' });
  return status.status === 0 ? status.stdout.trim() !== '' : undefined;
}

export function main(argv, env) {
  const command = argv[0];
  if (!COMMANDS.includes(command)) {
    process.stderr.write(`::error::run.mjs: expected one of ${COMMANDS.join(', ')}, got ${JSON.stringify(command)}\n`);
    return 1;
  }
  const inputs = readInputs(env);
  if (inputs.problems.length > 0) {
    for (const problem of inputs.problems) process.stderr.write(`::error title=capi-gitops action::${problem}\n`);
    return 1;
  }
  // masked before any value can be printed
  for (const line of maskCommands(inputs.secrets)) process.stdout.write(`${line}\n`);
  const childEnv = { ...env, ...Object.fromEntries(inputs.secrets) };
  const temp = env.RUNNER_TEMP ?? '.';
  const [first, ...rest] = commandLines(command, inputs, env);
  if (command === 'diff') {
    const file = path.join(temp, 'capi-gitops-diff.md');
    const status = runCli(first, childEnv, file, true);
    if (status === 0) {
      setOutput(env, 'file', file);
      return 0;
    }
    // the diff summarises, check (the next step) is the gate: a base whose manifest does not
    // render must not fail the pull request that fixes it, and a head that does not fails check
    const why = `the diff against the pull request's base could not be made (capi-gitops diff exited ${status}: its errors are above); the check step decides`;
    process.stderr.write(`::warning title=capi-gitops diff::${why}\n`);
    // the summary and the pull-request comment say so, rather than an earlier push's diff staying there
    const note = `## capi-gitops diff\n\n${why.replace('above', 'in the job log')}.\n`;
    writeFileSync(file, note);
    setOutput(env, 'file', file);
    if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, note);
    return 0;
  }
  if (command === 'check') return runCli(first, childEnv);
  const planFile = path.join(temp, 'capi-gitops-plan.txt');
  const planStatus = runCli(first, childEnv, planFile);
  const planText = readFileSync(planFile, 'utf8');
  process.stdout.write(planText);
  if (planStatus !== 0) return planStatus;
  for (const args of rest) {
    const status = runCli(args, childEnv);
    if (status !== 0) return status;
  }
  const bodyFile = path.join(temp, 'capi-gitops-upgrade.md');
  writeFileSync(bodyFile, upgradeBody(planText));
  setOutput(env, 'body-file', bodyFile);
  const changed = workTreeChanged(env);
  if (changed !== undefined) setOutput(env, 'changed', String(changed));
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2), process.env);
}
