/**
 * .pre-commit-hooks.yaml with the real `pre-commit` (installed by .ci/install-test-deps.sh) in a
 * temporary Git repository: the hooks repository is a local Git repository holding this
 * project's hook definitions, and `capi-gitops` is on PATH (the hooks are `language: system`,
 * so pre-commit installs nothing and needs no network).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { pushImage, Registry, registrySkipReason } from '../helpers/registry.js';

const preCommit = spawnSync('pre-commit', ['--version'], { encoding: 'utf8' });
const skip = preCommit.status === 0 ? false : 'pre-commit is not installed (run .ci/install-test-deps.sh)';

const EXAMPLE_IMAGES = [
  ['cluster-api-controller', 'v0.2.0'],
  ['example-bootstrap-controller', 'v0.2.0'],
  ['example-control-plane-controller', 'v0.2.0'],
  ['capex-controller', 'v0.2.0'],
  ['cert-manager-controller', 'v0.1.0-example'],
  ['cert-manager-webhook', 'v0.1.0-example'],
];

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const result = spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
  return { status: result.status, output: result.stdout + result.stderr };
}

/** A temporary Git repository holding the examples, with pre-commit installed for the given hooks. */
function hookRepository(root: string, hookIds: string[], args = '[-f, examples/management-cluster, -o, clusters/mgmt]') {
  const bin = path.join(root, 'bin');
  mkdirSync(bin);
  const capiGitops = path.join(bin, 'capi-gitops');
  writeFileSync(
    capiGitops,
    // capi-gitops installed on PATH: the package's bin
    `#!/usr/bin/env bash\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(PROJECT_ROOT, 'dist', 'bin', 'capi-gitops.mjs'))} "$@"\n`,
  );
  chmodSync(capiGitops, 0o755);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${bin}${path.delimiter}${process.env.PATH}`,
    PRE_COMMIT_HOME: path.join(root, 'pre-commit-home'),
    GIT_AUTHOR_NAME: 'Dev',
    GIT_AUTHOR_EMAIL: 'dev@example.com',
    GIT_COMMITTER_NAME: 'Dev',
    GIT_COMMITTER_EMAIL: 'dev@example.com',
    XDG_CACHE_HOME: path.join(root, 'xdg-cache'),
  };
  const git = (cwd: string, ...args: string[]) => {
    const result = run('git', args, cwd, env);
    assert.equal(result.status, 0, result.output);
    return result.output.trim();
  };

  const hooks = path.join(root, 'hooks');
  mkdirSync(hooks);
  copyFileSync(path.join(PROJECT_ROOT, '.pre-commit-hooks.yaml'), path.join(hooks, '.pre-commit-hooks.yaml'));
  git(hooks, 'init', '-q');
  git(hooks, 'add', '-A');
  git(hooks, 'commit', '-q', '-m', 'hooks');
  const rev = git(hooks, 'rev-parse', 'HEAD');

  const repo = path.join(root, 'repo');
  mkdirSync(repo);
  cpSync(path.join(PROJECT_ROOT, 'examples'), path.join(repo, 'examples'), { recursive: true });
  const config = hookIds.map((id) => `  - id: ${id}\n    args: ${args}\n`).join('');
  writeFileSync(path.join(repo, '.pre-commit-config.yaml'), `repos:\n- repo: ${hooks}\n  rev: ${rev}\n  hooks:\n${config}`);
  git(repo, 'init', '-q');
  const install = run('pre-commit', ['install'], repo, env);
  assert.equal(install.status, 0, install.output);
  return { repo, env, git, capiGitops };
}

test('pre-commit: capi-gitops-render regenerates on commit, capi-gitops-check passes, then catches a hand edit', { skip }, () => {
  const root = tempDir('capi-gitops-pre-commit-');
  try {
    const { repo, env, git } = hookRepository(root, ['capi-gitops-render', 'capi-gitops-check']);

    // First commit without the output: the render hook writes it and fails the commit (new
    // files too, which pre-commit alone would not notice); adding them lets the commit through.
    git(repo, 'add', '-A');
    const first = run('git', ['commit', '-q', '-m', 'manifest'], repo, env);
    assert.equal(first.status, 1, first.output);
    assert.match(first.output, /capi-gitops render.*Failed/);
    assert.match(first.output, /untracked +clusters\/mgmt\/kustomization\.yaml/);
    assert.match(first.output, /capi-gitops rendered the output again: review and git add it/);
    git(repo, 'add', '-A');
    const second = run('git', ['commit', '-q', '-m', 'manifest and output'], repo, env);
    assert.equal(second.status, 0, second.output);
    assert.match(second.output, /capi-gitops check.*Passed/);
    assert.equal(git(repo, 'status', '--porcelain'), '');

    // A hand edit of the output is caught by the check hook, which names the file.
    const edited = path.join(repo, 'clusters', 'mgmt', 'kustomization.yaml');
    writeFileSync(edited, readFileSync(edited, 'utf8') + '# by hand\n');
    const check = run('pre-commit', ['run', 'capi-gitops-check', '--all-files'], repo, env);
    assert.equal(check.status, 1, check.output);
    assert.match(check.output, /edited +kustomization\.yaml: edited by hand/);

    // A manifest change: the render hook rewrites tracked files and fails; adding them commits.
    git(repo, 'checkout', '--', 'clusters');
    const config = path.join(repo, 'examples', 'management-cluster', 'config.yaml');
    writeFileSync(config, readFileSync(config, 'utf8').replace('EXAMPLE_REGION: eu-west-1', 'EXAMPLE_REGION: us-east-1'));
    git(repo, 'add', '-A');
    const change = run('git', ['commit', '-q', '-m', 'region'], repo, env);
    assert.equal(change.status, 1, change.output);
    git(repo, 'add', '-A');
    const changed = run('git', ['commit', '-q', '-m', 'region and output'], repo, env);
    assert.equal(changed.status, 0, changed.output);

    // An output file in the work tree and not in Git (rendered by hand, then `git add -u`, which
    // adds no new file): check reads the work tree and pre-commit leaves untracked files there, so
    // the check hook names it rather than let a commit through that lacks it.
    git(repo, 'rm', '-q', '--cached', 'clusters/mgmt/01-cluster-api/deployment-capi-controller-manager.yaml');
    const lacking = run('git', ['commit', '-q', '-m', 'without the Deployment'], repo, env);
    assert.equal(lacking.status, 1, lacking.output);
    assert.match(lacking.output, /capi-gitops check.*Failed/);
    assert.match(lacking.output, /untracked +clusters\/mgmt\/01-cluster-api\/deployment-capi-controller-manager\.yaml/);
    assert.match(lacking.output, /these files of clusters\/mgmt are not in Git, so the commit would lack them: git add clusters\/mgmt/);
    git(repo, 'add', 'clusters/mgmt');
    assert.equal(git(repo, 'status', '--porcelain'), '');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test(
  'pre-commit: a render that moves the lockfile names it, and adding it with the output lets the commit through (adding the output alone would render again from the old lock)',
  { skip },
  () => {
    const root = tempDir('capi-gitops-pre-commit-lock-');
    try {
      const { repo, env, git } = hookRepository(root, ['capi-gitops-render', 'capi-gitops-check']);
      git(repo, 'add', '-A');
      run('git', ['commit', '-q', '-m', 'manifest'], repo, env);
      git(repo, 'add', '-A');
      assert.equal(run('git', ['commit', '-q', '-m', 'manifest and output'], repo, env).status, 0);

      // the range becomes an exact pin: the lock's requested version moves with the output
      const providers = path.join(repo, 'examples', 'management-cluster', 'providers.yaml');
      writeFileSync(providers, readFileSync(providers, 'utf8').replace('version: "~0.2"', 'version: v0.2.0'));
      git(repo, 'add', providers);
      const pinned = run('git', ['commit', '-q', '-m', 'pin'], repo, env);
      assert.equal(pinned.status, 1, pinned.output);
      assert.match(pinned.output, /changed +examples\/management-cluster\/capi-gitops\.lock\.yaml/);
      assert.match(
        pinned.output,
        /the render moved the lockfile with the manifest: git add examples\/management-cluster\/capi-gitops\.lock\.yaml too/,
      );
      git(repo, 'add', 'clusters/mgmt', 'examples/management-cluster/capi-gitops.lock.yaml');
      const committed = run('git', ['commit', '-q', '-m', 'pin, lock and output'], repo, env);
      assert.equal(committed.status, 0, committed.output);
      assert.equal(git(repo, 'status', '--porcelain'), '');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);

test('pre-commit: capi-gitops-render alone fails a commit that lacks output files rendered by hand and never added', { skip }, () => {
  const root = tempDir('capi-gitops-pre-commit-render-');
  try {
    const { repo, env, git, capiGitops } = hookRepository(root, ['capi-gitops-render']);
    // Rendered by hand, then only the manifest added (as `git add -u` would leave a new cluster's
    // files): the work tree is what the manifest renders, so nothing is rendered, yet the commit
    // would hold no output at all.
    const render = run(capiGitops, ['render', '--quiet', '-f', 'examples/management-cluster', '-o', 'clusters/mgmt'], repo, env);
    assert.equal(render.status, 0, render.output);
    git(repo, 'add', 'examples', '.pre-commit-config.yaml');
    const lacking = run('git', ['commit', '-q', '-m', 'manifest without its output'], repo, env);
    assert.equal(lacking.status, 1, lacking.output);
    assert.match(lacking.output, /capi-gitops render.*Failed/);
    assert.match(lacking.output, /untracked +clusters\/mgmt\/kustomization\.yaml/);
    assert.match(lacking.output, /these files of clusters\/mgmt are not in Git, so the commit would lack them: git add clusters\/mgmt/);
    assert.doesNotMatch(lacking.output, /rendered the output again/);
    // The hint, followed literally, lets the commit through.
    git(repo, 'add', 'clusters/mgmt');
    const whole = run('git', ['commit', '-q', '-m', 'manifest and output'], repo, env);
    assert.equal(whole.status, 0, whole.output);
    assert.match(whole.output, /capi-gitops render.*Passed/);
    assert.equal(git(repo, 'status', '--porcelain'), '');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test(
  "pre-commit: an output directory whose name has a space: each untracked file listed whole, and the hint's git add, run by a shell as printed, lets the commit through",
  { skip },
  () => {
    const root = tempDir('capi-gitops-pre-commit-space-');
    try {
      const { repo, env, git, capiGitops } = hookRepository(
        root,
        ['capi-gitops-check'],
        '[-f, examples/management-cluster, -o, "clusters/my mgmt"]',
      );
      const render = run(capiGitops, ['render', '--quiet', '-f', 'examples/management-cluster', '-o', 'clusters/my mgmt'], repo, env);
      assert.equal(render.status, 0, render.output);
      git(repo, 'add', 'examples', '.pre-commit-config.yaml');
      const lacking = run('git', ['commit', '-q', '-m', 'manifest without its output'], repo, env);
      assert.equal(lacking.status, 1, lacking.output);
      assert.match(lacking.output, /untracked +clusters\/my mgmt\/kustomization\.yaml\n/);
      assert.doesNotMatch(lacking.output, /untracked +clusters\/my\n/);
      const hinted = /so the commit would lack them: (git add .*)\n/.exec(lacking.output)?.[1];
      assert.ok(hinted, lacking.output);
      const added = run('bash', ['-c', hinted], repo, env);
      assert.equal(added.status, 0, added.output);
      const whole = run('git', ['commit', '-q', '-m', 'manifest and output'], repo, env);
      assert.equal(whole.status, 0, whole.output);
      assert.equal(git(repo, 'status', '--porcelain'), '');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);

test(
  'pre-commit: both hooks find the output in -oDIR and fail, naming file and rule, when Git ignores files capi-gitops wrote; the hint followed literally lets the commit through',
  { skip },
  () => {
    const root = tempDir('capi-gitops-pre-commit-ignored-');
    try {
      // -oDIR, one word, as commander reads it; a .gitignore that catches the output (a build
      // directory rule): `git add -A` skips the files, and `git ls-files --others` does not list them
      const { repo, env, git } = hookRepository(
        root,
        ['capi-gitops-render', 'capi-gitops-check'],
        '[-f, examples/management-cluster, -oclusters/mgmt]',
      );
      writeFileSync(path.join(repo, '.gitignore'), 'clusters/\n');
      git(repo, 'add', '-A');
      const first = run('git', ['commit', '-q', '-m', 'manifest'], repo, env);
      assert.equal(first.status, 1, first.output);
      assert.match(first.output, /capi-gitops render.*Failed/);
      assert.match(first.output, /ignored +clusters\/mgmt\/kustomization\.yaml +\(\.gitignore:1:clusters\/\)/);
      assert.match(first.output, /ignored +clusters\/mgmt\/\.capi-gitops-index /);
      assert.match(
        first.output,
        /these files of clusters\/mgmt are ignored by Git, so the commit would lack them: remove the rules named above, then git add clusters\/mgmt/,
      );
      git(repo, 'add', '-A');
      const again = run('git', ['commit', '-q', '-m', 'manifest'], repo, env);
      assert.equal(again.status, 1, again.output);
      assert.match(again.output, /capi-gitops check.*Failed/);
      assert.match(again.output, /ignored +clusters\/mgmt\/01-cluster-api\//);
      // the hint, literally
      writeFileSync(path.join(repo, '.gitignore'), '');
      git(repo, 'add', '.gitignore', 'clusters/mgmt');
      const whole = run('git', ['commit', '-q', '-m', 'manifest and output'], repo, env);
      assert.equal(whole.status, 0, whole.output);
      assert.equal(git(repo, 'status', '--porcelain'), '');
      // -oDIR: a file taken out of Git is named by the check hook too
      git(repo, 'rm', '-q', '--cached', 'clusters/mgmt/kustomization.yaml');
      const check = run('pre-commit', ['run', 'capi-gitops-check'], repo, env);
      assert.equal(check.status, 1, check.output);
      assert.match(check.output, /untracked +clusters\/mgmt\/kustomization\.yaml/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);

test(
  "pre-commit: an output directory whose name has sed's special characters (| and &): both hooks still name the files Git ignores, each under the whole directory",
  { skip },
  () => {
    const root = tempDir('capi-gitops-pre-commit-sed-');
    try {
      const out = 'clusters/a|b&c';
      const { repo, env, git } = hookRepository(
        root,
        ['capi-gitops-render', 'capi-gitops-check'],
        `[-f, examples/management-cluster, -o, "${out}"]`,
      );
      writeFileSync(path.join(repo, '.gitignore'), 'clusters/\n');
      git(repo, 'add', '-A');
      const first = run('git', ['commit', '-q', '-m', 'manifest'], repo, env);
      assert.equal(first.status, 1, first.output);
      assert.match(first.output, /capi-gitops render.*Failed/);
      assert.match(first.output, /ignored +clusters\/a\|b&c\/kustomization\.yaml +\(\.gitignore:1:clusters\/\)/);
      assert.doesNotMatch(first.output, /unknown option|unterminated/);
      git(repo, 'add', '-A');
      const again = run('git', ['commit', '-q', '-m', 'manifest'], repo, env);
      assert.equal(again.status, 1, again.output);
      assert.match(again.output, /capi-gitops check.*Failed/);
      assert.match(again.output, /ignored +clusters\/a\|b&c\/\.capi-gitops-index /);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);

test(
  'pre-commit: a pinned image whose tag moved fails the render hook with what check says (the update --images to run), not a render to add that changed nothing; that hint followed literally commits',
  { skip: skip || registrySkipReason() },
  async () => {
    const root = tempDir('capi-gitops-pre-commit-pins-');
    const registry = await Registry.start();
    try {
      for (const [image, tag] of EXAMPLE_IMAGES) await pushImage(registry.url, `capi/${image}`, tag!);
      const { repo, env, git, capiGitops } = hookRepository(root, ['capi-gitops-render', 'capi-gitops-check']);
      const config = path.join(repo, 'examples', 'management-cluster', 'config.yaml');
      const pinned = readFileSync(config, 'utf8').replace('mirror.example.internal/capi', `${registry.host}/capi`);
      writeFileSync(config, `${pinned}pinImages: true\n`);
      git(repo, 'add', '-A');
      run('git', ['commit', '-q', '-m', 'manifest'], repo, env);
      git(repo, 'add', '-A');
      const first = run('git', ['commit', '-q', '-m', 'manifest, lock and output'], repo, env);
      assert.equal(first.status, 0, first.output);

      // the same tag pushed again with other content
      await pushImage(registry.url, 'capi/example-bootstrap-controller', 'v0.2.0', { content: 'v2' });
      const providers = path.join(repo, 'examples', 'management-cluster', 'providers.yaml');
      writeFileSync(providers, `${readFileSync(providers, 'utf8')}# reviewed\n`);
      git(repo, 'add', providers);
      const moved = run('git', ['commit', '-q', '-m', 'comment'], repo, env);
      assert.equal(moved.status, 1, moved.output);
      assert.match(moved.output, /capi-gitops render.*Failed/);
      assert.match(moved.output, /the tag of image .*example-bootstrap-controller:v0\.2\.0 now serves/);
      assert.doesNotMatch(moved.output, /rendered the output again/);
      assert.equal(git(repo, 'status', '--porcelain'), 'M  examples/management-cluster/providers.yaml');

      // the hint, literally: update --images, then the hooks render and the commit goes through
      const hint = /run `capi-gitops (update -f examples\/management-cluster --images bootstrap-example)`/.exec(moved.output);
      assert.ok(hint, moved.output);
      const update = run(capiGitops, hint[1]!.split(' '), repo, env);
      assert.equal(update.status, 0, update.output);
      git(repo, 'add', '-A');
      const rendered = run('git', ['commit', '-q', '-m', 'comment and new digest'], repo, env);
      assert.equal(rendered.status, 1, rendered.output);
      assert.match(rendered.output, /capi-gitops rendered the output again: review and git add it/);
      git(repo, 'add', '-A');
      const committed = run('git', ['commit', '-q', '-m', 'comment and new digest'], repo, env);
      assert.equal(committed.status, 0, committed.output);
      assert.equal(git(repo, 'status', '--porcelain'), '');
    } finally {
      await registry.stop();
      rmSync(root, { recursive: true, force: true });
    }
  },
);
