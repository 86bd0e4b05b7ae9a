/**
 * A Secret's values in a -f file Git tracks, or would pick up, are warned about, naming the file
 * and the way to keep it out; real git answers (ls-files --error-unmatch, check-ignore).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gitTrackedSecretWarnings } from '../../src/secrets/git-tracked.js';
import type { SecretObject } from '../../src/manifest/types.js';
import { tempDir } from '../helpers/corpus-manifest.js';

function git(cwd: string, args: string[]): void {
  const r = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
}

function secret(file: string, data: Record<string, string>, name = 'aws-variables'): SecretObject {
  writeFileSync(file, 'apiVersion: v1\nkind: Secret\n');
  return { name, namespace: 'capa-system', data, position: { file, line: 1, column: 1 } };
}

test('tracked, untracked and not ignored, ignored, outside any repository: only the first two warn, each naming the file and the way out', async () => {
  const repo = tempDir('capi-gitops-git-tracked-');
  const mc = path.join(repo, 'mc');
  mkdirSync(mc);
  git(repo, ['init', '-q', '-b', 'main']);
  writeFileSync(path.join(repo, '.gitignore'), 'mc/*.secret.yaml\n');
  const tracked = secret(path.join(mc, 'secrets.yaml'), { AWS_B64ENCODED_CREDENTIALS: 'x' });
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'manifest']);
  const loose = secret(path.join(mc, 'more.yaml'), { TOKEN: 'y' }, 'tokens');
  const ignored = secret(path.join(mc, 'aws.secret.yaml'), { AWS_B64ENCODED_CREDENTIALS: 'x' });
  const outside = secret(path.join(tempDir('capi-gitops-outside-git-'), 'aws.yaml'), { AWS_B64ENCODED_CREDENTIALS: 'x' });
  const warnings = await gitTrackedSecretWarnings([tracked, loose, ignored, outside], []);
  assert.deepEqual(
    warnings.map((w) => w.file),
    [loose.position.file, tracked.position.file],
  );
  const [untracked, committed] = warnings;
  assert.match(
    committed!.message,
    /holds the values of Secret capa-system\/aws-variables and is tracked by Git \(git ls-files --error-unmatch /,
  );
  assert.match(committed!.hint!, /git rm --cached .*secrets\.yaml, add it to \.gitignore, and rotate the values/);
  assert.equal(committed!.object, 'Secret/capa-system/aws-variables');
  assert.match(untracked!.message, /is not ignored by Git: git add -A would commit it/);
  assert.match(untracked!.hint!, /add .*more\.yaml to \.gitignore/);
});

test('a Secret that holds only public keys (a feature flag) is meant for Git: no warning', async () => {
  const repo = tempDir('capi-gitops-git-tracked-');
  git(repo, ['init', '-q', '-b', 'main']);
  const flags = secret(path.join(repo, 'flags.yaml'), { EXP_MACHINE_POOL: 'true' });
  assert.deepEqual(await gitTrackedSecretWarnings([flags], ['EXP_MACHINE_POOL']), []);
  assert.equal((await gitTrackedSecretWarnings([flags], [])).length, 1);
});

test("a provider's configSecret in a file Git would pick up: the hint keeps the file out of Git and offers no --secret-file, which never serves a configSecret", async () => {
  const repo = tempDir('capi-gitops-git-tracked-');
  git(repo, ['init', '-q', '-b', 'main']);
  const config = secret(path.join(repo, 'aws.yaml'), { AWS_B64ENCODED_CREDENTIALS: 'x' });
  const variables = secret(path.join(repo, 'tokens.yaml'), { TOKEN: 'y' }, 'tokens');
  const [asConfig, asVariables] = await gitTrackedSecretWarnings([config, variables], [], new Set(['capa-system/aws-variables']));
  assert.equal(asConfig!.file, config.position.file);
  assert.match(
    asConfig!.hint!,
    /add .*aws\.yaml to \.gitignore \(or move it outside the repository\): a provider's configSecret is read from its -f file/,
  );
  assert.doesNotMatch(asConfig!.hint!, /--secret-file/);
  assert.match(asVariables!.hint!, /or pass the values with --secret-file or --env-secret/);
});
