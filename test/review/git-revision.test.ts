/** review/git-revision.ts: `--base`'s revision, made in a temporary tree, does not outlive a signal. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { manifestAtRevision } from '../../src/review/git-revision.js';
import { InterruptedError, resetInterruptState, settleInterrupted } from '../../src/core/interrupt.js';
import { tempDir } from '../helpers/corpus-manifest.js';

test('SIGINT while --base materialises its revision: the run stops before the next file, and the temporary tree is removed, the file being made first', async () => {
  const repo = tempDir();
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo });
  git('init', '-q');
  // a name no other run's tree has, to find this one's among the system's temporary trees
  const marker = `providers-${randomBytes(6).toString('hex')}`;
  mkdirSync(path.join(repo, marker));
  for (let i = 0; i < 20; i++)
    writeFileSync(path.join(repo, marker, `p${i}.yaml`), `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c${i}}\n`);
  git('add', '.');
  git('commit', '-qm', 'manifest');
  resetInterruptState();
  try {
    const pending = manifestAtRevision('HEAD', [path.join(repo, marker)]);
    const settled = settleInterrupted('SIGINT');
    const outcome = await pending.then(
      async (revision) => {
        await revision.dispose();
        return 'made';
      },
      (err: unknown) => err,
    );
    await settled;
    assert.ok(outcome instanceof InterruptedError, `the revision was ${String(outcome)} after the signal`);
    const left = readdirSync(os.tmpdir()).filter(
      (name) => name.startsWith('capi-gitops-base-') && existsSync(path.join(os.tmpdir(), name, marker)),
    );
    assert.deepEqual(left, []);
  } finally {
    resetInterruptState();
  }
});

test("a problem in --base's revision names no path in the temporary tree (gone when it is printed): the commit's files as <ref>:<path>, with a hint that can be followed; the working tree's as they are", async () => {
  const repo = tempDir();
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo });
  git('init', '-q');
  mkdirSync(path.join(repo, 'mc'));
  writeFileSync(path.join(repo, 'mc', 'a.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n');
  git('add', '.');
  git('commit', '-qm', 'manifest');
  mkdirSync(path.join(repo, 'charts'));
  const revision = await manifestAtRevision('HEAD', [path.join(repo, 'mc')]);
  try {
    const tree = path.dirname(revision.manifestPaths[0]!);
    const inCommit = path.join(tree, 'mc', 'a.yaml');
    const problem = revision.located({
      file: inCommit,
      message: `not valid UTF-8 in ${inCommit}`,
      hint: `convert it in place: iconv -f LATIN1 -t UTF-8 ${inCommit} > ${inCommit}.utf8 && mv ${inCommit}.utf8 ${inCommit}`,
    });
    assert.equal(problem.file, 'HEAD:mc/a.yaml');
    assert.ok(!JSON.stringify(problem).includes(tree), JSON.stringify(problem));
    assert.match(problem.message, /not valid UTF-8 in HEAD:mc\/a\.yaml$/);
    assert.match(problem.hint, /HEAD:mc\/a\.yaml is the file as it was at HEAD/);
    const linked = path.join(tree, 'charts', 'values.yaml');
    const working = revision.located({ file: linked, message: 'bad', hint: `fix ${linked}` });
    assert.equal(working.file, path.join(repo, 'charts', 'values.yaml'));
    assert.equal(working.hint, `fix ${path.join(repo, 'charts', 'values.yaml')}`);
  } finally {
    await revision.dispose();
  }
});

test('--base follows a -f path through symbolic links, as the working tree does: a committed link to the manifest directory, and a repository reached through a linked directory (macOS /var → /private/var), read the manifest at the revision, not the link', async () => {
  const repo = tempDir();
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo });
  git('init', '-q');
  mkdirSync(path.join(repo, 'mc'));
  writeFileSync(path.join(repo, 'mc', 'a.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n');
  symlinkSync('mc', path.join(repo, 'mc-link'));
  git('add', '.');
  git('commit', '-qm', 'manifest');
  const viaLink = path.join(tempDir(), 'repo-link');
  symlinkSync(repo, viaLink);
  for (const given of [path.join(repo, 'mc-link'), path.join(viaLink, 'mc')]) {
    const revision = await manifestAtRevision('HEAD', [given]);
    try {
      assert.deepEqual(revision.absentPaths, [], given);
      assert.deepEqual(
        readdirSync(revision.manifestPaths[0]!).filter((f) => f.endsWith('.yaml')),
        ['a.yaml'],
        given,
      );
    } finally {
      await revision.dispose();
    }
  }
});
