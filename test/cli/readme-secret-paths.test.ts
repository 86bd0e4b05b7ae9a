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
import { runCli } from '../helpers/cli.js';

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
