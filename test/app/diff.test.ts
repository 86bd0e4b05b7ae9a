/**
 * `diff` without --base (src/app/diff.ts) compares the output directory as it is on disk, not
 * as Git holds it, so its label names the directory without claiming it is committed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { exampleCopy, runCli } from '../helpers/cli.js';
import type { ReviewReport } from '../../src/review/types.js';

test('diff: the old side of a diff against the output directory is labelled as that directory, not "as committed" (it is read from disk)', async () => {
  const example = exampleCopy();
  const run = async (...args: string[]) => await runCli(args, { cwd: example });
  const rendered = await run('render', '-f', 'management-cluster', '-o', 'out');
  assert.equal(rendered.code, 0, rendered.stderr);
  // a file no commit holds: the diff still reads it
  writeFileSync(
    path.join(example, 'out', '01-cluster-api', 'mine.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: mine, namespace: capi-system}\n',
  );
  const json = await run('diff', '-f', 'management-cluster', '-o', 'out', '--format', 'json');
  assert.equal(json.code, 0, json.stderr);
  assert.equal((JSON.parse(json.stdout) as ReviewReport).old.label, 'the output directory out');
  const text = await run('diff', '-f', 'management-cluster', '-o', 'out');
  assert.match(text.stdout, /^the output directory out → the manifest as it is now$/m);
  assert.doesNotMatch(text.stdout, /committed/);
});
