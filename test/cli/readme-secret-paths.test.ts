/**
 * Secret sources are kept out of Git, so they live where each machine keeps them: a laptop's
 * `~/secrets/mgmt.env`, a CI runner's `$RUNNER_TEMP/secrets.env`. The command the output README
 * records names a `--secret-file` (or a `-f` of Secrets) outside the repository by a placeholder,
 * so the committed README has the same bytes whoever renders, and names no one's home directory.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { exampleCopy, runCli } from '../helpers/cli.js';

const PLACEHOLDER = '<file-outside-the-repository>';

test('the README records a --secret-file or -f of Secrets outside the Git repository as a placeholder: two machines render the same bytes', async () => {
  const dir = tempDir('capi-gitops-secret-paths-');
  const repo = path.join(dir, 'repo');
  cpSync(path.join(PROJECT_ROOT, 'examples'), repo, { recursive: true });
  execFileSync('git', ['init', '-q'], { cwd: repo });
  const providers = path.join(repo, 'management-cluster', 'providers.yaml');
  const infrastructure = 'kind: InfrastructureProvider\nmetadata:\n  name: example\n  namespace: capex-system\nspec:\n';
  const text = readFileSync(providers, 'utf8');
  assert.ok(text.includes(infrastructure));
  writeFileSync(providers, text.replace(infrastructure, `${infrastructure}  configSecret:\n    name: capex-variables\n`));
  // the same secret sources, kept where each machine keeps them
  const places = [path.join(dir, 'home', 'alice', 'secrets'), path.join(dir, 'runner', '_temp')];
  for (const place of places) {
    mkdirSync(place, { recursive: true });
    writeFileSync(path.join(place, 'vars.env'), 'UNUSED_TOKEN=kept-out-of-git-0123\n');
    writeFileSync(
      path.join(place, 'secret.yaml'),
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: capex-variables\n  namespace: capex-system\nstringData:\n  UNUSED_KEY: kept-out-of-git-4567\n',
    );
  }
  const render = (place: string) =>
    runCli(
      [
        'render',
        '-f',
        'management-cluster',
        '-f',
        path.join(place, 'secret.yaml'),
        '-o',
        'out',
        '--secret-file',
        path.join(place, 'vars.env'),
      ],
      {
        cwd: repo,
      },
    );
  const laptop = await render(places[0]!);
  assert.equal(laptop.code, 0, laptop.stderr);
  const readme = readFileSync(path.join(repo, 'out', 'README.md'), 'utf8');
  assert.match(readme, new RegExp(`^capi-gitops render -f management-cluster -f ${PLACEHOLDER} -o out --secret-file ${PLACEHOLDER}$`, 'm'));
  assert.doesNotMatch(readme, /alice|\.\.\//);
  const ci = await render(places[1]!);
  assert.equal(ci.code, 0, ci.stderr);
  assert.match(ci.stdout, /wrote out: 0 written/, 'the README keeps its bytes');
  assert.equal(readFileSync(path.join(repo, 'out', 'README.md'), 'utf8'), readme);
  // check, given the sources where CI keeps them, finds the output up to date
  const check = await runCli(['check', '-f', 'management-cluster', '-f', path.join(places[1]!, 'secret.yaml'), '-o', 'out'], { cwd: repo });
  assert.equal(check.code, 0, check.stdout + check.stderr);
});

test("a fleet's render --cluster meets the README's placeholders with its own: the command stays the whole fleet's, the same bytes", async () => {
  const repo = exampleCopy();
  execFileSync('git', ['init', '-q'], { cwd: repo });
  const manifest = path.join(repo, 'management-cluster');
  writeFileSync(
    path.join(manifest, 'config.yaml'),
    readFileSync(path.join(manifest, 'config.yaml'), 'utf8').replace(/^variables:\n {2}EXAMPLE_REGION: eu-west-1\n/m, '') +
      'clusters:\n' +
      ['eu', 'lab']
        .map((c) => `- name: ${c}-1\n  providers:\n    InfrastructureProvider/example: {spec: {configSecret: {name: ${c}-vars}}}\n`)
        .join(''),
  );
  // each cluster's Secret kept outside the repository
  const away = tempDir('capi-gitops-secret-paths-away-');
  for (const c of ['eu', 'lab'])
    writeFileSync(
      path.join(away, `${c}.yaml`),
      `apiVersion: v1\nkind: Secret\nmetadata: {name: ${c}-vars, namespace: capex-system}\nstringData:\n  EXAMPLE_REGION: ${c}-region-1\n`,
    );
  const flags = ['-o', 'out', '--secrets', 'inline', '--allow-secret-values', '--cache-dir', 'cache'];
  const recorded = () => readFileSync(path.join(repo, 'out', 'README.md'), 'utf8');
  const all = await runCli(
    ['render', '-f', 'management-cluster', '-f', path.join(away, 'eu.yaml'), '-f', path.join(away, 'lab.yaml'), ...flags],
    {
      cwd: repo,
    },
  );
  assert.equal(all.code, 0, all.stderr);
  const whole = recorded();
  assert.match(whole, new RegExp(`^capi-gitops render -f management-cluster -f ${PLACEHOLDER} -f ${PLACEHOLDER} -o out `, 'm'));
  const one = await runCli(['render', '-f', 'management-cluster', '-f', path.join(away, 'lab.yaml'), ...flags, '--cluster', 'lab-1'], {
    cwd: repo,
  });
  assert.equal(one.code, 0, one.stderr);
  assert.equal(recorded(), whole);
});
