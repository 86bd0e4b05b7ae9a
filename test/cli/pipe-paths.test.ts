/**
 * A secret kept off the disk reaches render through a pipe: `--secret-file <(vault read …)`,
 * `-f <(kubectl get secret … -o yaml)`. The shell names it /dev/fd/63, a path that is gone when the
 * command ends and whose number the shell picks; the command the README records (and check
 * prints) names it by a placeholder instead, the same on every run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { CLI } from '../helpers/cli.js';
import { regenerateCommand } from '../../src/cli/commands.js';

const PLACEHOLDER = '<file-given-through-a-pipe>';

test('regenerateCommand writes a pipe the shell named (/dev/fd/N, /proc/self/fd/N, /dev/stdin) as a placeholder, unquoted', () => {
  const command = regenerateCommand(
    {
      file: ['/work/repo/mc', '/dev/fd/62'],
      output: '/work/repo/out',
      secretFile: ['/dev/fd/63', '/proc/self/fd/12', '/work/repo/secrets.env'],
      values: ['/dev/stdin'],
    },
    true,
    '/work/repo',
  );
  assert.equal(
    command,
    `capi-gitops render -f mc -f ${PLACEHOLDER} -o out --secret-file ${PLACEHOLDER} --secret-file ${PLACEHOLDER} --secret-file secrets.env --values ${PLACEHOLDER}`,
  );
  // the placeholder read back from a README (check re-bases it to the work tree's root) stays the placeholder
  const again = regenerateCommand(
    { file: ['/work/repo/mc'], output: '/work/repo/out', secretFile: [`/work/repo/${PLACEHOLDER}`] },
    true,
    '/work/repo',
  );
  assert.equal(again, `capi-gitops render -f mc -o out --secret-file ${PLACEHOLDER}`);
});

const BASH =
  spawnSync('bash', ['-c', 'cat <(echo ok)'], { encoding: 'utf8' }).stdout === 'ok\n'
    ? false
    : 'bash with process substitution is not available';

test('render --secret-file <(…): the README records the placeholder, not ../../dev/fd/63', { skip: BASH }, () => {
  const dir = tempDir('capi-gitops-pipe-');
  cpSync(path.join(PROJECT_ROOT, 'examples'), dir, { recursive: true });
  const cli = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)}`;
  const rendered = spawnSync(
    'bash',
    ['-c', `${cli} render -f management-cluster -o out --quiet --secret-file <(printf 'UNUSED_TOKEN=from-a-pipe-0123\\n')`],
    { cwd: dir, encoding: 'utf8' },
  );
  assert.equal(rendered.status, 0, rendered.stderr);
  const readme = readFileSync(path.join(dir, 'out', 'README.md'), 'utf8');
  assert.match(readme, new RegExp(`^capi-gitops render -f management-cluster -o out --secret-file ${PLACEHOLDER}$`, 'm'));
  assert.doesNotMatch(readme, /dev\/fd/);
});
