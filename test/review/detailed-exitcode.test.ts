/**
 * `diff --detailed-exitcode` with helm-diff's codes (databus23/helm-diff cmd/upgrade.go: an
 * `Error{Code: 2}` when `detailedExitCode && seenAnyChanges`; any other error exits 1), so a
 * pipeline can branch on "something changed" without reading the output.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { assertNoStackTrace, exampleCopy, runCli } from '../helpers/cli.js';

const example = exampleCopy();
const rendered = await runCli(['render', '-f', 'management-cluster', '-o', 'old'], { cwd: example });
assert.equal(rendered.code, 0, rendered.stderr);
cpSync(path.join(example, 'old'), path.join(example, 'same'), { recursive: true });
cpSync(path.join(example, 'old'), path.join(example, 'new'), { recursive: true });
const deploymentDir = readdirSync(path.join(example, 'new')).find((d) => d.endsWith('cluster-api'))!;
const deployment = readdirSync(path.join(example, 'new', deploymentDir)).find((f) => f.startsWith('deployment-'))!;
const deploymentFile = path.join(example, 'new', deploymentDir, deployment);
writeFileSync(deploymentFile, readFileSync(deploymentFile, 'utf8').replace(/replicas: \d+/, 'replicas: 7'));

const diff = async (...args: string[]) => await runCli(['diff', ...args], { cwd: example });

test('diff --detailed-exitcode (helm-diff cmd/upgrade.go): 0 when no object changed, 2 when one did; without it both are 0', async () => {
  const none = await diff('--from', 'old', '--to', 'same', '--detailed-exitcode');
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stdout, /no object changed/i);
  for (const format of ['text', 'markdown', 'json']) {
    const changed = await diff('--from', 'old', '--to', 'new', '--detailed-exitcode', '--format', format);
    assert.equal(changed.code, 2, `${format}: ${changed.stderr}`);
    assert.match(changed.stdout, /replicas|"changed": 1/, format);
    assert.equal(changed.stderr, '', 'a change is not an error: nothing on stderr');
  }
  assert.equal((await diff('--from', 'old', '--to', 'new')).code, 0);
});

test('diff --detailed-exitcode: every error is 1, a usage error too (2 means changes)', async () => {
  const missing = await diff('--from', 'old', '--to', 'absent', '--detailed-exitcode');
  assert.equal(missing.code, 1);
  assertNoStackTrace(missing);
  const usage = await diff('--from', 'old', '--detailed-exitcode');
  assert.equal(usage.code, 1);
  assert.match(usage.stderr, /--from and --to go together/);
  const unknown = await diff('--from', 'old', '--to', 'new', '--detailed-exitcode', '--no-such-flag');
  assert.equal(unknown.code, 1);
  // without the flag a usage error keeps the CLI's usual 2
  assert.equal((await diff('--from', 'old')).code, 2);
});

test('diff --from/--to with -f or -o is a usage error: the directories are compared and nothing is rendered, so the manifest and output flags would be silently ignored', async () => {
  for (const extra of [
    ['-f', 'management-cluster'],
    ['-o', 'old'],
  ]) {
    const both = await diff('--from', 'old', '--to', 'new', ...extra);
    assert.equal(both.code, 2, both.stderr);
    assert.match(both.stderr, new RegExp(`--from/--to compare two directories and render nothing: drop ${extra[0]}`));
  }
});
