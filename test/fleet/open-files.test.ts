/**
 * A fleet's tree in the full layout is tens of thousands of files at 200 clusters: `check` and a
 * render over it read them a few at a time, not all at once (EMFILE, too many open files). A
 * child process with a low limit of open files stands for the large fleet.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CLI, exampleCopy, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/corpus-manifest.js';

const CLUSTERS = 12;
const OPEN_FILES_LIMIT = 128;

function underLimit(args: string[]): { status: number | null; stderr: string } {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = spawnSync('sh', ['-c', `ulimit -n ${OPEN_FILES_LIMIT} && exec ${quoted}`], { encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}

test(`check and a second render of a ${CLUSTERS}-cluster full-layout fleet (more files than ${OPEN_FILES_LIMIT} open files) read the tree a few files at a time`, async () => {
  const manifest = path.join(exampleCopy(), 'management-cluster');
  rmSync(path.join(manifest, 'capi-gitops.lock.yaml'));
  const names = Array.from({ length: CLUSTERS }, (_, i) => `- name: c${String(i).padStart(2, '0')}`);
  writeFileSync(path.join(manifest, 'fleet.yaml'), `apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n${names.join('\n')}\n`);
  const out = path.join(tempDir('capi-gitops-open-files-'), 'out');
  const args = ['-f', manifest, '-o', out, '--fleet-layout', 'full', '--quiet'];
  const first = await runCli(['render', ...args]);
  assert.equal(first.code, 0, first.stderr);
  const check = underLimit(['check', ...args]);
  assert.doesNotMatch(check.stderr, /EMFILE|too many open files/);
  assert.equal(check.status, 0, check.stderr);
  const again = underLimit(['render', ...args]);
  assert.doesNotMatch(again.stderr, /EMFILE|too many open files/);
  assert.equal(again.status, 0, again.stderr);
});
