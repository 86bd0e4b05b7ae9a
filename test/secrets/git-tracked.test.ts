/**
 * A Secret's values in a -f file Git tracks, or would pick up, are warned about, naming the file
 * and the way to keep it out; real git answers (ls-files --error-unmatch, check-ignore).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gitTrackedSecretWarnings } from '../../src/secrets/git-tracked.js';
import type { SecretObject } from '../../src/manifest/types.js';
import { corpusUrl, tempDir } from '../helpers/corpus-manifest.js';
import { CORPUS_REPOSITORY, FIXTURES } from '../helpers/paths.js';
import { exampleCopy, runCli } from '../helpers/cli.js';

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

test('a Secret in the file that holds the providers (as the README writes it): the hint moves the Secret out, never ignores the file, and followed literally it warns no more', async () => {
  const example = exampleCopy();
  git(example, ['init', '-q', '-b', 'main']);
  const manifest = path.join(example, 'management-cluster');
  const providers = path.join(manifest, 'providers.yaml');
  const secretText =
    'apiVersion: v1\nkind: Secret\nmetadata:\n  name: capi-variables\n  namespace: capi-system\nstringData:\n  github-token: t0ken\n';
  const text = readFileSync(providers, 'utf8').replace(
    '  name: cluster-api\n  namespace: capi-system\nspec:\n',
    '  name: cluster-api\n  namespace: capi-system\nspec:\n  configSecret:\n    name: capi-variables\n',
  );
  writeFileSync(providers, `${text}---\n${secretText}`);
  const out = path.join(example, 'out');
  const warned = await runCli(['render', '-f', manifest, '-o', out], { cwd: example });
  assert.equal(warned.code, 0, warned.stderr);
  const hint = /providers\.yaml holds the values of Secret capi-system\/capi-variables and is not ignored by Git.*\n {2}hint: (.*)/.exec(
    warned.stderr,
  );
  assert.ok(hint, warned.stderr);
  // ignoring providers.yaml would take the provider objects out of Git with the Secret
  assert.doesNotMatch(hint[1]!, /add \S*providers\.yaml to \.gitignore/);
  assert.match(
    hint[1]!,
    /move Secret capi-system\/capi-variables out of \S*providers\.yaml into a file of its own kept outside Git .*give that file with -f.*keep \S*providers\.yaml itself in Git: it also holds the provider objects/,
  );
  // followed literally: the Secret in a file of its own, outside the repository
  writeFileSync(providers, text);
  const kept = path.join(tempDir('capi-gitops-outside-git-'), 'capi-variables.yaml');
  writeFileSync(kept, secretText);
  const followed = await runCli(['render', '-f', manifest, '-f', kept, '-o', out], { cwd: example });
  assert.equal(followed.code, 0, followed.stderr);
  assert.doesNotMatch(followed.stderr, /warning: Secret/);
});

test('a --secret-file Git would pick up is warned, and following the hint literally (.gitignore, git add -A) commits no credential (docs/secrets.md: --secret-file kept out of Git)', async () => {
  const repo = tempDir('capi-gitops-git-tracked-');
  git(repo, ['init', '-q', '-b', 'main']);
  const vault = pathToFileURL(path.join(FIXTURES, 'secrets', 'infrastructure-vault', 'v0.1.0', 'infrastructure-components.yaml')).href;
  const core = pathToFileURL(path.join(CORPUS_REPOSITORY, 'cluster-api', 'v1.12.0', 'core-components.yaml')).href;
  mkdirSync(path.join(repo, 'mc'));
  writeFileSync(
    path.join(repo, 'mc', 'providers.yaml'),
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec: {version: v1.12.0, fetchConfig: {url: ${core}}}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata: {name: vault, namespace: capvault-system}
spec: {version: v0.1.0, fetchConfig: {url: ${vault}}}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
secrets:
  strategy: external-secrets
  public: [EXP_MACHINE_POOL]
  externalSecrets: {secretStoreRef: {name: vault}}
`,
  );
  const credentials = Buffer.from('[default]\naws_secret_access_key = gitTrackedTrialKey0123456789abcdef\n').toString('base64');
  mkdirSync(path.join(repo, 'secrets'));
  writeFileSync(path.join(repo, 'secrets', 'vault.env'), `VAULT_B64ENCODED_CREDENTIALS=${credentials}\n`);
  const args = ['render', '-f', 'mc', '--secret-file', 'secrets/vault.env', '-o', 'out'];
  const first = await runCli(args, { cwd: repo });
  assert.equal(first.code, 0, first.stderr);
  assert.match(
    first.stderr,
    /secrets\/vault\.env: warning: --secret-file secrets\/vault\.env is not ignored by Git: git add -A would commit it/,
  );
  assert.match(first.stderr, /hint: add secrets\/vault\.env to \.gitignore, or move it outside the repository/);
  writeFileSync(path.join(repo, '.gitignore'), 'secrets/vault.env\n');
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'output']);
  const tracked = spawnSync('git', ['ls-files', 'out/README.md', 'secrets'], { cwd: repo, encoding: 'utf8' }).stdout;
  assert.equal(tracked, 'out/README.md\n', 'the output is committed, the --secret-file is not');
  // git grep over every commit: status 1 is "not found"
  for (const needle of [credentials, 'gitTrackedTrialKey'])
    assert.equal(spawnSync('git', ['grep', '-q', '-F', needle, 'HEAD'], { cwd: repo }).status, 1, 'a credential is in the commit');
  const again = await runCli(args, { cwd: repo });
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stderr, /--secret-file .* Git/);
});

test('a Turtles CAPIProvider in a file Git tracks: the config Secret made from it holds only values written in plain text there (docs/manifest.md), so no warning; a Secret of that name in the file keeps its own keys secret, and is warned about', async () => {
  const repo = tempDir('capi-gitops-git-tracked-');
  git(repo, ['init', '-q', '-b', 'main']);
  const capiProvider = `apiVersion: turtles-capi.cattle.io/v1alpha1
kind: CAPIProvider
metadata:
  name: cluster-api
  namespace: capi-system
spec:
  type: core
  version: v1.10.4
  fetchConfig:
    url: ${corpusUrl('cluster-api', 'latest', 'core-components.yaml')}
  variables:
    EXP_RUNTIME_SDK: "true"
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager:
  version: v1.13.0
  url: ${corpusUrl('cert-manager', 'v1.13.0', 'cert-manager.yaml')}
`;
  const providers = path.join(repo, 'providers.yaml');
  writeFileSync(providers, capiProvider);
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'providers']);
  const out = path.join(repo, 'out');
  const rendered = await runCli(['render', '-f', providers, '-o', out], { cwd: repo });
  assert.equal(rendered.code, 0, rendered.stderr);
  assert.doesNotMatch(rendered.stderr, /holds the values of Secret/);
  // Turtles writes into a Secret of that name (internal/sync/secret_sync.go): its own key is a secret in Git
  writeFileSync(
    providers,
    `${capiProvider}---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nstringData:\n  github-token: t0ken\n`,
  );
  git(repo, ['commit', '-q', '-a', '-m', 'token']);
  const withSecret = await runCli(['render', '-f', providers, '-o', out], { cwd: repo });
  assert.equal(withSecret.code, 0, withSecret.stderr);
  assert.match(withSecret.stderr, /providers\.yaml holds the values of Secret capi-system\/cluster-api and is tracked by Git/);
});

test('a -f directory of many Secret files (a fleet, one a cluster) asks git once a directory, not twice a file at once (300 files were 600 processes started together)', async () => {
  const repo = tempDir('capi-gitops-git-tracked-');
  const mc = path.join(repo, 'mc');
  mkdirSync(mc);
  git(repo, ['init', '-q', '-b', 'main']);
  writeFileSync(path.join(repo, '.gitignore'), 'mc/*.secret.yaml\n');
  const name = (i: number) => `c${String(i).padStart(3, '0')}`;
  const tracked = Array.from({ length: 100 }, (_, i) => secret(path.join(mc, `${name(i)}.yaml`), { TOKEN: 'x' }, name(i)));
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'manifest']);
  const loose = Array.from({ length: 100 }, (_, i) => secret(path.join(mc, `${name(100 + i)}[x].yaml`), { TOKEN: 'y' }, name(100 + i)));
  const ignored = Array.from({ length: 100 }, (_, i) =>
    secret(path.join(mc, `${name(200 + i)}.secret.yaml`), { TOKEN: 'z' }, name(200 + i)),
  );
  // git as found on PATH, counted
  const bin = tempDir('capi-gitops-git-counted-');
  const log = path.join(bin, 'calls');
  const realGit = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
  writeFileSync(path.join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${realGit}' "$@"\n`, { mode: 0o755 });
  const savedPath = process.env.PATH;
  process.env.PATH = `${bin}${path.delimiter}${savedPath}`;
  let warnings;
  try {
    warnings = await gitTrackedSecretWarnings([...ignored, ...loose, ...tracked], []);
  } finally {
    process.env.PATH = savedPath;
  }
  const states = new Map(warnings.map((w) => [w.file, /is tracked by Git/.test(w.message) ? 'tracked' : 'not ignored']));
  assert.equal(warnings.length, 200);
  for (const s of tracked) assert.equal(states.get(s.position.file), 'tracked', s.position.file);
  for (const s of loose) assert.equal(states.get(s.position.file), 'not ignored', s.position.file);
  const calls = readFileSync(log, 'utf8').trim().split('\n');
  assert.ok(calls.length <= 2, `git ran ${calls.length} times`);
});
