/**
 * `check`: a render held in memory against the output directory on disk, told apart with the
 * ownership index: out of date, edited by hand, missing, extra. It never writes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, unlinkSync, writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { writeOutput } from '../../src/output/write.js';
import { INDEX_FILE } from '../../src/layout/output-paths.js';
import { checkOutput } from '../../src/review/check.js';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { readTree } from '../helpers/tree.js';
import { runCli, exampleCopy } from '../helpers/cli.js';

const FILES = new Map([
  ['kustomization.yaml', 'resources:\n- 01-a\n'],
  ['01-a/kustomization.yaml', 'resources:\n- x.yaml\n'],
  ['01-a/x.yaml', 'kind: X\n'],
  ['01-a/crds/y.yaml', 'kind: Y\n'],
]);

async function written(): Promise<string> {
  const out = path.join(tempDir('capi-gitops-check-'), 'out');
  await writeOutput(out, FILES);
  return out;
}

const statuses = (report: Awaited<ReturnType<typeof checkOutput>>) => report.problems.map((p) => [p.status, p.path]);

test('check: an output written from the same files is clean, and checking writes nothing', async () => {
  const out = await written();
  const before = readTree(out);
  const report = await checkOutput(out, FILES);
  assert.deepEqual(report.problems, []);
  assert.equal(report.unchanged, FILES.size);
  assert.deepEqual(readTree(out), before);
});

test('check: a newer render is "changed", a hand edit is "edited" (its digest is not the index\'s)', async () => {
  const out = await written();
  const newer = new Map(FILES).set('01-a/x.yaml', 'kind: X\nspec: 2\n');
  assert.deepEqual(statuses(await checkOutput(out, newer)), [['changed', '01-a/x.yaml']]);
  writeFileSync(path.join(out, '01-a/x.yaml'), 'kind: X\n# mine\n');
  assert.deepEqual(statuses(await checkOutput(out, FILES)), [['edited', '01-a/x.yaml']]);
  assert.deepEqual(statuses(await checkOutput(out, newer)), [['edited', '01-a/x.yaml']]);
});

test('check: a v1 index (paths only) still works; a differing file is "changed" since no digest says otherwise', async () => {
  const out = await written();
  const index = readFileSync(path.join(out, INDEX_FILE), 'utf8')
    .replace('index v2', 'index v1')
    .replace(/^[0-9a-f]{64} {2}/gm, '');
  writeFileSync(path.join(out, INDEX_FILE), index);
  writeFileSync(path.join(out, '01-a/x.yaml'), 'kind: X\n# mine\n');
  assert.deepEqual(statuses(await checkOutput(out, FILES)), [['changed', '01-a/x.yaml']]);
});

test('check: missing, extra in a rendered directory, and stale files are named; hidden files and user directories are not', async () => {
  const out = await written();
  unlinkSync(path.join(out, '01-a/crds/y.yaml'));
  writeFileSync(path.join(out, '01-a/stray.yaml'), 'kind: Z\n');
  writeFileSync(path.join(out, '01-a/.gitkeep'), '');
  mkdirSync(path.join(out, 'team-overlays'));
  writeFileSync(path.join(out, 'team-overlays/patch.yaml'), 'kind: P\n');
  const fewer = new Map(FILES);
  fewer.delete('01-a/crds/y.yaml');
  fewer.delete('01-a/x.yaml');
  assert.deepEqual(statuses(await checkOutput(out, FILES)), [
    ['missing', '01-a/crds/y.yaml'],
    ['extra', '01-a/stray.yaml'],
  ]);
  assert.deepEqual(statuses(await checkOutput(out, fewer)), [
    ['extra', '01-a/stray.yaml'],
    ['extra', '01-a/x.yaml'],
  ]);
});

test('check: no output directory at all lists every file missing; a damaged index is an error at its line', async () => {
  const missing = path.join(tempDir('capi-gitops-check-'), 'never-rendered');
  assert.deepEqual(
    statuses(await checkOutput(missing, FILES)).map(([s]) => s),
    ['missing', 'missing', 'missing', 'missing'],
  );
  const out = await written();
  writeFileSync(path.join(out, INDEX_FILE), readFileSync(path.join(out, INDEX_FILE), 'utf8') + `${'0'.repeat(64)}  ../escape.yaml\n`);
  await assert.rejects(
    checkOutput(out, FILES),
    (err: Error) => err.message.includes(`${INDEX_FILE}:8:1`) && err.message.includes('../escape.yaml'),
  );
});

test('check honours every layout: rendered with --layout X, check --layout X passes and another layout fails', async () => {
  const repo = tempDir('capi-gitops-check-layouts-');
  try {
    spawnSync('git', ['init', '-q'], { cwd: repo });
    const cache = path.join(repo, '.cache');
    const manifest = path.join(PROJECT_ROOT, 'examples', 'management-cluster');
    const run = async (args: string[]) => await runCli([...args, '-f', manifest, '--cache-dir', cache], { cwd: repo });
    const setFor = { kustomize: [], argocd: ['--set', 'repoURL=https://git.example.com/mgmt.git'], flux: [] } as Record<string, string[]>;
    for (const layout of ['kustomize', 'argocd', 'flux']) {
      const out = `out-${layout}`;
      const render = await run(['render', '-o', out, '--layout', layout, ...setFor[layout]!]);
      assert.equal(render.code, 0, render.stderr);
      const check = await run(['check', '-o', out, '--layout', layout, ...setFor[layout]!]);
      assert.equal(check.code, 0, `${layout}: ${check.stdout}${check.stderr}`);
      const other = layout === 'flux' ? 'kustomize' : 'flux';
      const wrong = await run(['check', '-o', out, '--layout', other]);
      assert.equal(wrong.code, 1, `${layout} checked as ${other}: ${wrong.stdout}${wrong.stderr}`);
      assert.match(wrong.stdout, /is not what the manifest renders/);
    }
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test('check: a README recording other flags (rendered --layout argocd, checked without) names that render and the check to run, which passes as printed', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const cli = async (args: string[]) => await runCli([...args], { cwd: manifest });
  const wiring = ['--layout', 'argocd', '--set', 'repoURL=https://git.example.com/platform.git', '--set', 'path=out'];
  assert.equal((await cli(['render', '-f', '.', '-o', '../out', ...wiring])).code, 0);
  const plain = await cli(['check', '-f', '.', '-o', '../out']);
  assert.equal(plain.code, 1, plain.stderr);
  assert.match(
    plain.stdout,
    /the output's README\.md records that it was written by: capi-gitops render -f \. -o \.\.\/out --layout argocd --set repoURL=https:\/\/git\.example\.com\/platform\.git --set path=out\n/,
  );
  const printed = /to check it against that render, run: (capi-gitops check .*)\n/.exec(plain.stdout)?.[1];
  assert.equal(
    printed,
    'capi-gitops check -f . -o ../out --layout argocd --set repoURL=https://git.example.com/platform.git --set path=out',
  );
  assert.match(plain.stdout, /to regenerate it with this check's flags instead, run: capi-gitops render -f \. -o \.\.\/out\n/);
  // followed literally (the words as printed; `capi-gitops` is this checkout's CLI)
  const again = await cli(printed!.split(' ').slice(1));
  assert.equal(again.code, 0, again.stdout + again.stderr);
  const json = JSON.parse((await cli(['check', '-f', '.', '-o', '../out', '--json'])).stdout) as { renderedWith?: string };
  assert.match(json.renderedWith ?? '', /--layout argocd/);
});

test("check: in a Git work tree, the README's command is from the repository's root, so a render in a subdirectory checks clean from the root", async () => {
  const repo = exampleCopy();
  spawnSync('git', ['init', '-q'], { cwd: repo });
  const run = async (cwd: string, args: string[]) => await runCli([...args], { cwd });
  const rendered = await run(path.join(repo, 'management-cluster'), ['render', '-f', '.', '-o', '../clusters/mgmt']);
  assert.equal(rendered.code, 0, rendered.stderr);
  const readme = readFileSync(path.join(repo, 'clusters', 'mgmt', 'README.md'), 'utf8');
  assert.match(readme, /```sh\n# from the root of the Git repository\ncapi-gitops render -f management-cluster -o clusters\/mgmt\n```/);
  const fromRoot = await run(repo, ['check', '-f', 'management-cluster', '-o', 'clusters/mgmt']);
  assert.equal(fromRoot.code, 0, fromRoot.stdout + fromRoot.stderr);
  // the hint a failing check prints is still from where it runs
  writeFileSync(path.join(repo, 'clusters', 'mgmt', 'README.md'), readme.replace('Layout', 'layout'));
  const drift = await run(path.join(repo, 'clusters'), ['check', '-f', '../management-cluster', '-o', 'mgmt']);
  assert.equal(drift.code, 1);
  assert.match(drift.stdout, /to regenerate, run: capi-gitops render -f \.\.\/management-cluster -o mgmt\n/);
});

test('check without a lockfile says check implies --frozen (the user never typed it); the hint, `capi-gitops render`, makes it pass', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const cli = async (args: string[]) => await runCli([...args], { cwd: manifest });
  assert.equal((await cli(['render', '-f', '.', '-o', '../out'])).code, 0);
  unlinkSync(path.join(manifest, 'capi-gitops.lock.yaml'));
  const missing = await cli(['check', '-f', '.', '-o', '../out']);
  assert.equal(missing.code, 1, missing.stdout + missing.stderr);
  assert.match(missing.stderr, /there is no lockfile, and --frozen \(or check, which implies it\) needs one/);
  // followed literally (`capi-gitops` is this checkout's CLI)
  const hinted = /hint: run `capi-gitops (render[^`]*)`/.exec(missing.stderr)?.[1];
  assert.equal(hinted, 'render -f . -o ../out');
  assert.equal((await cli(hinted!.split(' '))).code, 0);
  const again = await cli(['check', '-f', '.', '-o', '../out']);
  assert.equal(again.code, 0, again.stdout + again.stderr);
});

test('check -o a directory that does not exist (a typo, or never rendered): one line saying so with the render to run, not a line per file', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const result = await runCli(['check', '-f', '.', '-o', '../clusters/mgmnt'], { cwd: manifest });
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stdout,
    /^\.\.\/clusters\/mgmnt does not exist \(render writes \d+ files there\); check the -o path, or run: capi-gitops render -f \. -o \.\.\/clusters\/mgmnt\n$/,
  );
  // --json keeps every file, for tools
  const json = await runCli(['check', '-f', '.', '-o', '../clusters/mgmnt', '--json'], { cwd: manifest });
  assert.ok((JSON.parse(json.stdout) as { problems: unknown[] }).problems.length > 1);
});

test('check and diff -o a regular file (a typo naming a file): an error that it is not a directory, not every file missing with a render to run that refuses the path', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  writeFileSync(path.join(example, 'notes.txt'), 'not an output\n');
  for (const args of [
    ['check', '-f', '.', '-o', '../notes.txt'],
    ['check', '-f', '.', '-o', '../notes.txt', '--json'],
    ['diff', '-f', '.', '-o', '../notes.txt'],
    ['diff', '--from', '../notes.txt', '--to', '../notes.txt'],
  ]) {
    const result = await runCli(args, { cwd: manifest });
    assert.equal(result.code, 1, args.join(' ') + '\n' + result.stdout + result.stderr);
    assert.match(result.stderr, /^\.\.\/notes\.txt: error: the output path exists and is not a directory\n/m, args.join(' '));
    assert.doesNotMatch(result.stdout + result.stderr, /render writes|would write it|render into it/, args.join(' '));
  }
});

test('check and diff -o a directory render refuses (your own files, no ownership index; the file system root): told as render tells it, from its top alone; check offered a render that refuses it, and -o / read the whole file system', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  mkdirSync(path.join(example, 'mine', 'sub'), { recursive: true });
  writeFileSync(path.join(example, 'mine', 'sub', 'notes.txt'), 'not an output\n');
  const render = await runCli(['render', '-f', '.', '-o', '../mine'], { cwd: manifest });
  assert.equal(render.code, 1, render.stdout + render.stderr);
  assert.match(render.stderr, /already holds files capi-gitops did not write \(sub\)/);
  for (const out of ['../mine', '/']) {
    for (const args of [
      ['check', '-f', '.', '-o', out],
      ['check', '-f', '.', '-o', out, '--json'],
      ['diff', '-f', '.', '-o', out],
    ]) {
      const result = await runCli(args, { cwd: manifest });
      assert.equal(result.code, 1, args.join(' ') + '\n' + result.stdout + result.stderr);
      const shown = out === '/' ? '/' : '\\.\\./mine';
      assert.match(
        result.stderr,
        new RegExp(`^${shown}: error: the output directory holds files capi-gitops did not write \\(`, 'm'),
        args.join(' '),
      );
      assert.doesNotMatch(result.stdout + result.stderr, /to regenerate|would write it/, args.join(' '));
    }
  }
});

test("a clone with core.autocrlf=true (Git for Windows' default) checks out the output byte for byte: check passes there, the ownership index read", async () => {
  const repo = tempDir('capi-gitops-autocrlf-');
  const git = (cwd: string, ...args: string[]) => {
    const r = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  };
  cpSync(path.join(PROJECT_ROOT, 'examples'), path.join(repo, 'examples'), { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  // the example's local repository is locked by digest: kept byte for byte as the output is (the manifest may turn CRLF)
  writeFileSync(path.join(repo, '.gitattributes'), 'examples/repository/** -text\n');
  assert.equal((await runCli(['render', '--quiet', '-f', 'examples/management-cluster', '-o', 'clusters/mgmt'], { cwd: repo })).code, 0);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'render');
  const clone = path.join(tempDir('capi-gitops-autocrlf-clone-'), 'clone');
  git(path.dirname(clone), '-c', 'core.autocrlf=true', 'clone', '-q', repo, clone);
  assert.doesNotMatch(readFileSync(path.join(clone, 'clusters', 'mgmt', 'kustomization.yaml'), 'utf8'), /\r/);
  const result = await runCli(['check', '-f', 'examples/management-cluster', '-o', 'clusters/mgmt'], { cwd: clone });
  assert.equal(result.code, 0, result.stdout + result.stderr);
});

test('an output a Git with core.autocrlf=true checked out before its .gitattributes said -text (CRLF everywhere): check reads the index and names the files, and its render, run as printed, brings the output back', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const out = path.join(example, 'out');
  assert.equal((await runCli(['render', '--quiet', '-f', manifest, '-o', out])).code, 0);
  for (const file of ['.capi-gitops-index', 'kustomization.yaml']) {
    const at = path.join(out, file);
    writeFileSync(at, readFileSync(at, 'utf8').replace(/\n/g, '\r\n'));
  }
  const result = await runCli(['check', '-f', manifest, '-o', out]);
  assert.equal(result.code, 1, result.stdout + result.stderr);
  assert.doesNotMatch(result.stderr, /not a capi-gitops ownership index/);
  assert.match(result.stdout, /edited +kustomization\.yaml/);
  const hinted = /to regenerate, run: capi-gitops (render .*)\n/.exec(result.stdout)?.[1];
  assert.ok(hinted, result.stdout);
  assert.equal((await runCli(hinted.split(' '))).code, 0);
  assert.equal((await runCli(['check', '-f', manifest, '-o', out])).code, 0);
});

test('a directory where a rendered file goes: check says render does not replace it and names it to remove first; followed literally, render and check pass', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const out = path.join(example, 'out');
  assert.equal((await runCli(['render', '--quiet', '-f', manifest, '-o', out])).code, 0);
  const file = path.join(out, '01-cluster-api', 'kustomization.yaml');
  rmSync(file);
  mkdirSync(file);
  writeFileSync(path.join(file, 'notes.txt'), 'x\n');
  const result = await runCli(['check', '-f', manifest, '-o', out]);
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stdout,
    /missing +01-cluster-api\/kustomization\.yaml: missing: a directory capi-gitops did not write is in its place/,
  );
  assert.ok(result.stdout.includes(`to regenerate, remove ${file}, then run: capi-gitops render`), result.stdout);
  rmSync(file, { recursive: true });
  assert.equal((await runCli(['render', '--quiet', '-f', manifest, '-o', out])).code, 0);
  assert.equal((await runCli(['check', '-f', manifest, '-o', out])).code, 0);
});

test("check: the README's secret sources are read back as the shell reads them, a quote in a path included (core/shell.ts shellWord)", async () => {
  const readme = (command: string) => `# Generated by capi-gitops\n\n\`\`\`sh\n${command}\n\`\`\`\n`;
  const files = new Map([...FILES, ['README.md', readme('capi-gitops render -f mc -o out')]]);
  const out = path.join(tempDir('capi-gitops-check-'), 'out');
  await writeOutput(
    out,
    new Map([
      ...files,
      ['README.md', readme("capi-gitops render -f mc -o out --secret-file '/home/o'\\''brien/a b.env' --env-secret AWS_X")],
    ]),
  );
  const report = await checkOutput(out, files);
  assert.deepEqual(report.recordedSecretSources, { secretFile: ["/home/o'brien/a b.env"], envSecret: ['AWS_X'] });
  // and the README differs only by those: it is kept, so nothing is out of date
  assert.deepEqual(statuses(report), []);
});
