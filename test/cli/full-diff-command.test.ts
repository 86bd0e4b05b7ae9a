/** The command the cut markdown note suggests is read back by the shell as the words it ran with. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fullDiffCommand } from '../../src/cli/review-commands.js';

/** The words a POSIX shell reads from a command line (after `capi-gitops diff`). */
function shellWords(command: string): string[] {
  const read = spawnSync('sh', ['-c', `set -- ${command.replace(/^capi-gitops diff /, '')}; for w in "$@"; do printf "%s\\0" "$w"; done`], {
    encoding: 'utf8',
  });
  return read.stdout.split('\0').slice(0, -1);
}

test('diff --from/--to with a space in a path: the suggested full diff quotes each path', () => {
  const command = fullDiffCommand({ from: 'old out', to: "it's new" });
  assert.deepEqual(shellWords(command), ['--from', 'old out', '--to', "it's new", '--format', 'text']);
});

test('diff -f/-o/--base with a space in a path: the suggested full diff reads back word for word', () => {
  const command = fullDiffCommand({ file: ['my manifests/providers.yaml'], output: 'my out', base: 'origin/main~1' });
  assert.deepEqual(shellWords(command), [
    '-f',
    'my manifests/providers.yaml',
    '-o',
    'my out',
    '--base',
    'origin/main~1',
    '--format',
    'text',
  ]);
});
