import { createHash } from 'node:crypto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  existsSync,
  statSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import type { RenderedComponent } from '../../src/render/types.js';
import { layoutKustomize } from '../../src/layout/kustomize.js';
import { GENERATED_COMMENT } from '../../src/layout/provenance.js';
import { INDEX_FILE } from '../../src/layout/output-paths.js';
import { formatIndex, parseIndex } from '../../src/output/ownership-index.js';
import { scanTree } from '../../src/output/tree.js';
import { planWrite } from '../../src/output/write-plan.js';
import { cleanUpBackup, writeOutput } from '../../src/output/write.js';
import { kubectlAvailable } from '../helpers/tree.js';

/** A fresh parent directory per test; outDir is `<parent>/out`, so siblings can be checked. */
function workspace(): { parent: string; out: string; done: () => void } {
  const parent = mkdtempSync(path.join(os.tmpdir(), 'capi-gitops-write-'));
  return { parent, out: path.join(parent, 'out'), done: () => rmSync(parent, { recursive: true, force: true }) };
}

function put(root: string, rel: string, content: string): void {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), content);
}

/** Everything under root, by lstat, with file bytes, link targets and inodes. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(root, rel)).sort()) {
      const child = rel ? `${rel}/${name}` : name;
      const full = path.join(root, child);
      const st = lstatSync(full);
      if (st.isSymbolicLink()) out[child] = `symlink ${readlinkSync(full)} ino=${st.ino}`;
      else if (st.isDirectory()) {
        out[child] = `dir mode=${(st.mode & 0o7777).toString(8)}`;
        walk(child);
      } else out[child] = `file ino=${st.ino} mode=${(st.mode & 0o7777).toString(8)} ${readFileSync(full, 'utf8')}`;
    }
  };
  walk('');
  return out;
}

const siblings = (parent: string) => readdirSync(parent).sort();

async function expectRejects(promise: Promise<unknown>, ...fragments: string[]): Promise<CapiGitopsError> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof CapiGitopsError, `expected a CapiGitopsError, got ${String(caught)}`);
  for (const f of fragments) assert.ok(caught.message.includes(f), `error should mention ${JSON.stringify(f)}:\n${caught.message}`);
  return caught;
}

/** A file as capi-gitops writes it: only such a file is removed once no run produces it. */
const generated = (text: string) => GENERATED_COMMENT + text;

const FILES = new Map(
  [
    ['kustomization.yaml', 'resources: [a, b]\n'],
    ['a/kustomization.yaml', 'resources: [x.yaml, y.yaml]\n'],
    ['a/x.yaml', 'kind: X\n'],
    ['a/y.yaml', 'kind: Y\n'],
    ['b/crds/z.yaml', 'kind: Z\n'],
  ].map(([p, text]) => [p!, generated(text!)]),
);

test('write: creates outDir with the files and a sorted ownership index', async () => {
  const ws = workspace();
  try {
    const summary = await writeOutput(ws.out, FILES);
    assert.deepEqual(summary, {
      directory: ws.out,
      written: ['a/kustomization.yaml', 'a/x.yaml', 'a/y.yaml', 'b/crds/z.yaml', 'kustomization.yaml'],
      unchanged: [],
      removed: [],
      warnings: [],
      previous: new Map(),
    });
    for (const [rel, content] of FILES) assert.equal(readFileSync(path.join(ws.out, rel), 'utf8'), content);
    assert.equal(
      readFileSync(path.join(ws.out, INDEX_FILE), 'utf8'),
      [
        '# capi-gitops ownership index v2',
        '# capi-gitops wrote the files listed below; its next run replaces or removes them.',
        '# Files not listed here are never touched. Do not edit.',
        ...[...FILES.keys()].sort().map((p) => `${createHash('sha256').update(FILES.get(p)!).digest('hex')}  ${p}`),
        '',
      ].join('\n'),
    );
    assert.deepEqual(siblings(ws.parent), ['out'], 'no temporary or backup directory is left beside outDir');
  } finally {
    ws.done();
  }
});

test('write: a second run with the same files reports all unchanged and touches nothing', async () => {
  const ws = workspace();
  try {
    await writeOutput(ws.out, FILES);
    const before = snapshot(ws.out);
    const inode = statSync(ws.out).ino;
    const summary = await writeOutput(ws.out, new Map([...FILES].reverse()));
    assert.deepEqual(summary.written, []);
    assert.deepEqual(summary.removed, []);
    assert.deepEqual(summary.unchanged, [...FILES.keys()].sort());
    assert.deepEqual(snapshot(ws.out), before, 'same bytes, same inodes');
    assert.equal(statSync(ws.out).ino, inode, 'outDir was not swapped');
  } finally {
    ws.done();
  }
});

test('write: only changed files are reported written; unchanged files keep their inode', async () => {
  const ws = workspace();
  try {
    await writeOutput(ws.out, FILES);
    const xInode = statSync(path.join(ws.out, 'a/x.yaml')).ino;
    const summary = await writeOutput(ws.out, new Map([...FILES, ['a/y.yaml', 'kind: Y2\n']]));
    assert.deepEqual(summary.written, ['a/y.yaml']);
    assert.deepEqual(
      [...summary.previous].map(([p, bytes]) => [p, bytes.toString()]),
      [['a/y.yaml', FILES.get('a/y.yaml')]],
      'the bytes before, to report changed objects',
    );
    assert.equal(summary.unchanged.length, FILES.size - 1);
    assert.equal(readFileSync(path.join(ws.out, 'a/y.yaml'), 'utf8'), 'kind: Y2\n');
    assert.equal(statSync(path.join(ws.out, 'a/x.yaml')).ino, xInode);
    assert.deepEqual(siblings(ws.parent), ['out']);
  } finally {
    ws.done();
  }
});

test('write: a file the run rewrites keeps the mode of the file it replaces, as the lockfile does (write-file-atomic), whatever the umask', async () => {
  const ws = workspace();
  const umask = process.umask(0o022);
  try {
    await writeOutput(ws.out, FILES);
    chmodSync(path.join(ws.out, 'a/y.yaml'), 0o664);
    chmodSync(path.join(ws.out, INDEX_FILE), 0o664);
    // a teammate with another umask re-renders: the rewritten file and the index keep their modes
    process.umask(0o077);
    await writeOutput(ws.out, new Map([...FILES, ['a/y.yaml', 'kind: Y2\n'], ['a/new.yaml', 'kind: N\n']]));
    const mode = (p: string) => (statSync(path.join(ws.out, p)).mode & 0o7777).toString(8);
    assert.deepEqual(
      { y: mode('a/y.yaml'), index: mode(INDEX_FILE), x: mode('a/x.yaml'), created: mode('a/new.yaml') },
      { y: '664', index: '664', x: '644', created: '600' },
      'a new file takes the umask, as Git gives a file it checks out',
    );
  } finally {
    process.umask(umask);
    ws.done();
  }
});

test('write: files of a previous run that this run does not produce are removed, with the directories they leave empty', async () => {
  const ws = workspace();
  try {
    await writeOutput(ws.out, FILES);
    const next = new Map([
      ['kustomization.yaml', 'resources: [a]\n'],
      ['a/kustomization.yaml', 'resources: [x.yaml]\n'],
      ['a/x.yaml', generated('kind: X\n')],
    ]);
    const summary = await writeOutput(ws.out, next);
    assert.deepEqual(summary.removed, ['a/y.yaml', 'b/crds/z.yaml']);
    assert.deepEqual(summary.written, ['a/kustomization.yaml', 'kustomization.yaml']);
    assert.deepEqual(
      [...summary.previous.keys()].sort(),
      ['a/kustomization.yaml', 'a/y.yaml', 'b/crds/z.yaml', 'kustomization.yaml'],
      'the bytes before of rewritten and removed files',
    );
    assert.deepEqual(Object.keys(snapshot(ws.out)), [INDEX_FILE, 'a', 'a/kustomization.yaml', 'a/x.yaml', 'kustomization.yaml']);
    assert.deepEqual(parseIndex(readFileSync(path.join(ws.out, INDEX_FILE), 'utf8'), INDEX_FILE), [...next.keys()].sort());
  } finally {
    ws.done();
  }
});

test("write: a directory emptied by hand of files the tool wrote is removed; a user's empty directory is kept", async () => {
  const ws = workspace();
  try {
    await writeOutput(ws.out, FILES);
    rmSync(path.join(ws.out, 'b/crds/z.yaml'));
    mkdirSync(path.join(ws.out, 'overlays'));
    const summary = await writeOutput(ws.out, new Map([...FILES].filter(([p]) => !p.startsWith('b/'))));
    assert.deepEqual(summary.removed, [], 'b/crds/z.yaml was already gone');
    assert.ok(!existsSync(path.join(ws.out, 'b')));
    assert.ok(statSync(path.join(ws.out, 'overlays')).isDirectory());
  } finally {
    ws.done();
  }
});

test('write: files and directories the tool did not write are carried over untouched (same inode, bytes and mode)', async () => {
  const ws = workspace();
  try {
    await writeOutput(ws.out, FILES);
    put(ws.out, 'README.md', '# mine\n');
    put(ws.out, '.git/HEAD', 'ref: refs/heads/main\n');
    put(ws.out, 'a/user-patch.yaml', 'kind: Mine\n');
    mkdirSync(path.join(ws.out, 'overlays'));
    symlinkSync('README.md', path.join(ws.out, 'readme-link'));
    const foreign = (s: Record<string, string>) =>
      Object.fromEntries(
        Object.entries(s).filter(([k]) => ['README.md', '.git', '.git/HEAD', 'a/user-patch.yaml', 'overlays', 'readme-link'].includes(k)),
      );
    const before = foreign(snapshot(ws.out));

    // This run drops everything under a/: the owned files go, a/ stays for the user's file.
    const summary = await writeOutput(
      ws.out,
      new Map([
        ['kustomization.yaml', 'resources: [b]\n'],
        ['b/crds/z.yaml', 'kind: Z\n'],
      ]),
    );
    assert.deepEqual(summary.removed, ['a/kustomization.yaml', 'a/x.yaml', 'a/y.yaml']);
    const after = snapshot(ws.out);
    assert.deepEqual(foreign(after), before);
    assert.deepEqual(Object.keys(after), [
      '.capi-gitops-index',
      '.git',
      '.git/HEAD',
      'README.md',
      'a',
      'a/user-patch.yaml',
      'b',
      'b/crds',
      'b/crds/z.yaml',
      'kustomization.yaml',
      'overlays',
      'readme-link',
    ]);
    assert.deepEqual(siblings(ws.parent), ['out']);
  } finally {
    ws.done();
  }
});

test('write: refuses a non-empty directory without an index, changing nothing', async () => {
  const ws = workspace();
  try {
    put(ws.out, 'README.md', '# someone else\n');
    put(ws.out, 'app.yaml', 'kind: ConfigMap\n');
    const before = snapshot(ws.out);
    const err = await expectRejects(writeOutput(ws.out, FILES), 'README.md', 'app.yaml', INDEX_FILE);
    assert.match(err.diagnostics[0].hint ?? '', /empty directory/);
    assert.deepEqual(snapshot(ws.out), before);
    assert.deepEqual(siblings(ws.parent), ['out']);
  } finally {
    ws.done();
  }
});

test('write: a directory holding only hidden entries (a fresh Git repository) is accepted and they are kept', async () => {
  const ws = workspace();
  try {
    put(ws.out, '.git/HEAD', 'ref: refs/heads/main\n');
    put(ws.out, '.gitignore', 'tmp/\n');
    const head = snapshot(ws.out)['.git/HEAD'];
    const summary = await writeOutput(ws.out, FILES);
    assert.equal(summary.written.length, FILES.size);
    assert.equal(snapshot(ws.out)['.git/HEAD'], head);
    assert.equal(readFileSync(path.join(ws.out, '.gitignore'), 'utf8'), 'tmp/\n');
    assert.ok(!readFileSync(path.join(ws.out, INDEX_FILE), 'utf8').includes('.git'));
  } finally {
    ws.done();
  }
});

test('write: a file the tool did not write, where this run would write, is an error and nothing changes', async () => {
  const ws = workspace();
  try {
    await writeOutput(ws.out, FILES);
    put(ws.out, 'c/kustomization.yaml', 'mine\n');
    put(ws.out, 'd', 'a file where a directory is needed\n');
    const before = snapshot(ws.out);
    await expectRejects(
      writeOutput(ws.out, new Map([...FILES, ['c/kustomization.yaml', 'ours\n'], ['d/e.yaml', 'ours\n']])),
      'c/kustomization.yaml',
      `${path.join(ws.out, 'd')}: error: is a file`,
    );
    assert.deepEqual(snapshot(ws.out), before);
  } finally {
    ws.done();
  }
});

test('write: a file the index does not list that already holds the bytes this run writes there (a render discarded with git checkout, its new files left behind) is taken as written, not refused', async () => {
  const ws = workspace();
  try {
    await writeOutput(ws.out, FILES);
    const index = readFileSync(path.join(ws.out, INDEX_FILE), 'utf8');
    const added = new Map([...FILES, ['c/new.yaml', generated('kind: New\n')]]);
    await writeOutput(ws.out, added);
    // `git checkout .` restores the tracked index; the new file, untracked, stays
    writeFileSync(path.join(ws.out, INDEX_FILE), index);
    const inode = statSync(path.join(ws.out, 'c/new.yaml')).ino;
    const summary = await writeOutput(ws.out, added);
    assert.deepEqual(summary.written, []);
    assert.ok(summary.unchanged.includes('c/new.yaml'), JSON.stringify(summary));
    assert.equal(statSync(path.join(ws.out, 'c/new.yaml')).ino, inode);
    assert.match(readFileSync(path.join(ws.out, INDEX_FILE), 'utf8'), /  c\/new\.yaml\n/);
    // other bytes are still someone else's file: refused, as before
    writeFileSync(path.join(ws.out, INDEX_FILE), index);
    await expectRejects(writeOutput(ws.out, new Map([...FILES, ['c/new.yaml', generated('kind: Other\n')]])), 'c/new.yaml');
  } finally {
    ws.done();
  }
});

test('write: a symlink where a directory of many files goes is one problem, naming the first file and how many more', async () => {
  const ws = workspace();
  try {
    await writeOutput(ws.out, FILES);
    rmSync(path.join(ws.out, 'a'), { recursive: true });
    symlinkSync(ws.parent, path.join(ws.out, 'a'));
    const error = await expectRejects(writeOutput(ws.out, FILES));
    assert.deepEqual(
      error.diagnostics.map((d) => [d.file, d.message]),
      [
        [
          path.join(ws.out, 'a'),
          'is a symlink capi-gitops did not write; this run needs a directory there for a/kustomization.yaml and 2 more files',
        ],
      ],
    );
  } finally {
    ws.done();
  }
});

test('write: an output path in .capi-gitops-tmp (the scratch directory, which Git ignores) is refused, and nothing is created', async () => {
  const ws = workspace();
  try {
    for (const out of [path.join(ws.parent, '.capi-gitops-tmp'), path.join(ws.parent, '.capi-gitops-tmp', 'out')]) {
      const error = await expectRejects(writeOutput(out, FILES), 'where capi-gitops keeps the files of runs in progress');
      assert.equal(error.diagnostics[0]!.hint, 'choose another output directory');
    }
    assert.deepEqual(siblings(ws.parent), []);
  } finally {
    ws.done();
  }
});

test('write: a write failing midway leaves outDir exactly as it was and no temporary directory', async () => {
  const ws = workspace();
  try {
    await writeOutput(ws.out, FILES);
    put(ws.out, 'README.md', '# mine\n');
    const before = snapshot(ws.out);
    // A 300-character file name passes the path rules but the filesystem refuses it (ENAMETOOLONG).
    const failing = new Map([
      ...FILES,
      ['a/x.yaml', 'kind: X2\n'],
      [`a/${'n'.repeat(300)}.yaml`, 'kind: Long\n'],
      ['b/new.yaml', 'kind: New\n'],
    ]);
    await expectRejects(
      writeOutput(ws.out, failing),
      'could not write the output directory',
      'nothing in the output directory was changed',
    );
    assert.deepEqual(snapshot(ws.out), before);
    assert.deepEqual(siblings(ws.parent), ['out']);
  } finally {
    ws.done();
  }
});

test('write: a first run failing midway does not create outDir', async () => {
  const ws = workspace();
  try {
    await expectRejects(
      writeOutput(
        ws.out,
        new Map([
          ['a.yaml', 'x\n'],
          [`${'n'.repeat(300)}.yaml`, 'y\n'],
        ]),
      ),
      'was not created',
    );
    assert.deepEqual(siblings(ws.parent), []);
  } finally {
    ws.done();
  }
});

test('write: symlinks are never followed out of outDir, neither when pruning nor when carrying over', async () => {
  const ws = workspace();
  const outside = mkdtempSync(path.join(os.tmpdir(), 'capi-gitops-outside-'));
  try {
    await writeOutput(ws.out, FILES);
    // The user replaces our directory a/ with a symlink to a directory outside holding the same names.
    put(outside, 'x.yaml', 'outside x\n');
    put(outside, 'y.yaml', 'outside y\n');
    rmSync(path.join(ws.out, 'a'), { recursive: true });
    symlinkSync(outside, path.join(ws.out, 'a'));
    symlinkSync(path.join(outside, 'x.yaml'), path.join(ws.out, 'outside-link.yaml'));
    const outsideBefore = snapshot(outside);

    const summary = await writeOutput(
      ws.out,
      new Map([
        ['kustomization.yaml', 'resources: [b]\n'],
        ['b/crds/z.yaml', 'kind: Z\n'],
      ]),
    );
    assert.deepEqual(summary.removed, [], 'a/x.yaml behind the symlink was not ours to see');
    assert.deepEqual(snapshot(outside), outsideBefore);
    assert.equal(readlinkSync(path.join(ws.out, 'a')), outside);
    assert.equal(readlinkSync(path.join(ws.out, 'outside-link.yaml')), path.join(outside, 'x.yaml'));
  } finally {
    ws.done();
    rmSync(outside, { recursive: true, force: true });
  }
});

test('write: a tampered index listing a path outside outDir is an error and nothing is removed', async () => {
  const ws = workspace();
  try {
    await writeOutput(ws.out, FILES);
    put(ws.parent, 'victim.yaml', 'keep me\n');
    writeFileSync(path.join(ws.out, INDEX_FILE), formatIndex(FILES) + `${'0'.repeat(64)}  ../victim.yaml\n`);
    const before = snapshot(ws.parent);
    await expectRejects(writeOutput(ws.out, new Map()), '../victim.yaml', `${INDEX_FILE}:9:1`);
    assert.deepEqual(snapshot(ws.parent), before);
  } finally {
    ws.done();
  }
});

test('write: an index without the header is refused', async () => {
  const ws = workspace();
  try {
    put(ws.out, INDEX_FILE, 'a.yaml\n');
    await expectRejects(writeOutput(ws.out, FILES), 'not a capi-gitops ownership index');
  } finally {
    ws.done();
  }
});

test('write: output paths that could leave outDir or hit reserved names are refused before anything is written', async () => {
  const ws = workspace();
  try {
    const bad = new Map([
      ['../escape.yaml', ''],
      ['/abs.yaml', ''],
      ['a//b.yaml', ''],
      ['a/./b.yaml', ''],
      ['.git/config', ''],
      [INDEX_FILE, ''],
      ['dir', ''],
      ['dir/file.yaml', ''],
      ['win\\path.yaml', ''],
    ]);
    const err = await expectRejects(
      writeOutput(ws.out, bad),
      '"../escape.yaml"',
      '"/abs.yaml"',
      '"a//b.yaml"',
      '"a/./b.yaml"',
      '".git/config"',
      `"${INDEX_FILE}"`,
      '"dir" is both a file and the directory',
      'backslash',
    );
    assert.equal(err.diagnostics.length, 8);
    assert.ok(!existsSync(ws.out));
  } finally {
    ws.done();
  }
});

test('write: a symlinked outDir is written through to its real directory and stays a symlink', async () => {
  const ws = workspace();
  try {
    mkdirSync(path.join(ws.parent, 'real'));
    symlinkSync('real', ws.out);
    const summary = await writeOutput(ws.out, FILES);
    assert.equal(summary.directory, path.join(ws.parent, 'real'));
    assert.ok(lstatSync(ws.out).isSymbolicLink());
    assert.equal(readFileSync(path.join(ws.out, 'a/x.yaml'), 'utf8'), generated('kind: X\n'));
    assert.deepEqual(siblings(ws.parent), ['out', 'real']);
  } finally {
    ws.done();
  }
});

test('write: the ownership index is hidden and has no extension Argo CD, Flux or kustomize read as a manifest', () => {
  assert.ok(INDEX_FILE.startsWith('.'));
  assert.doesNotMatch(INDEX_FILE, /\.(ya?ml|json|jsonnet)$/i);
});

test(
  'write: kubectl kustomize builds the written tree and ignores the index',
  { skip: !kubectlAvailable() && 'kubectl not found' },
  async () => {
    const ws = workspace();
    try {
      const component: RenderedComponent = {
        type: 'CoreProvider',
        label: 'cluster-api',
        name: 'cluster-api',
        version: 'v1.12.0',
        namespace: 'capi-system',
        artifactSha256: 'a'.repeat(64),
        objects: [
          { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'capi-system' } },
          { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'capi-manager', namespace: 'capi-system' } },
        ],
      };
      await writeOutput(ws.out, layoutKustomize([component]));
      assert.ok(existsSync(path.join(ws.out, INDEX_FILE)));
      const out = execFileSync('kubectl', ['kustomize', ws.out], { encoding: 'utf8' });
      const kinds = YAML.parseAllDocuments(out)
        .map((d) => (d.toJS() as { kind: string }).kind)
        .sort();
      assert.deepEqual(kinds, ['Namespace', 'ServiceAccount']);
    } finally {
      ws.done();
    }
  },
);

test('write: cleanup keeps the backup, and says so, when something appeared in outDir during the write', async () => {
  const ws = workspace();
  try {
    await writeOutput(ws.out, FILES);
    const entries = await scanTree(ws.out);
    const existing = {
      entries,
      ownedPaths: [...FILES.keys()],
      indexText: readFileSync(path.join(ws.out, INDEX_FILE), 'utf8'),
      ownedContents: new Map(),
    };
    const plan = planWrite(existing, new Map());
    put(ws.out, 'a/appeared-during-the-run.yaml', 'new\n');
    const warnings = await cleanUpBackup(ws.out, existing, plan, new Set());
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /kept at/);
    assert.deepEqual(
      Object.keys(snapshot(ws.out)),
      ['a', 'a/appeared-during-the-run.yaml'],
      'owned files and the index were deleted, the newcomer kept',
    );

    rmSync(path.join(ws.out, 'a/appeared-during-the-run.yaml'));
    assert.deepEqual(await cleanUpBackup(ws.out, existing, plan, new Set()), []);
    assert.ok(!existsSync(ws.out), 'an emptied backup is removed');
  } finally {
    ws.done();
  }
});

test('write: what killed runs left is settled silently: staging trees removed, a backup emptied of what the output still has', async () => {
  const ws = workspace();
  const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  try {
    await writeOutput(ws.out, FILES);
    put(ws.out, 'notes/mine.txt', 'my notes\n');
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const scratch = path.join(ws.parent, '.capi-gitops-tmp');
    // In the scratch directory: a staging tree (removed whatever its process) and a backup.
    put(path.join(scratch, `out.stage-${live.pid}-0123456789ab`), 'a/x.yaml', 'half written\n');
    const backup = path.join(scratch, `out.old-${dead}-0123456789ab`);
    put(backup, INDEX_FILE, formatIndex(new Map([['gone.yaml', 'gone: 1\n']])));
    put(backup, 'gone.yaml', 'gone: 1\n'); // written by capi-gitops (the digest matches), since removed
    put(backup, 'a/x.yaml', readFileSync(path.join(ws.out, 'a/x.yaml'), 'utf8')); // the same bytes as the output's
    mkdirSync(path.join(backup, 'notes'));
    execFileSync('ln', [path.join(ws.out, 'notes/mine.txt'), path.join(backup, 'notes/mine.txt')]); // carried: the same inode
    // Beside the output, where earlier versions wrote them: a dead run's are settled, a live run's left alone.
    put(path.join(ws.parent, `.out.capi-gitops-tmp-${dead}-0123456789ab`), 'a/x.yaml', 'half written\n');
    put(path.join(ws.parent, `.out.capi-gitops-tmp-${live.pid}-0123456789ab`), 'a/x.yaml', 'being written\n');

    const summary = await writeOutput(ws.out, FILES);
    assert.deepEqual(summary.warnings, []);
    assert.deepEqual(siblings(ws.parent), [`.out.capi-gitops-tmp-${live.pid}-0123456789ab`, 'out']);
    assert.equal(readFileSync(path.join(ws.out, 'notes/mine.txt'), 'utf8'), 'my notes\n');

    // A backup holding something the output does not have stays, named in a warning.
    put(backup, 'appeared-during-that-run.txt', 'only copy\n');
    const kept = await writeOutput(ws.out, FILES);
    assert.equal(kept.warnings.length, 1);
    assert.match(kept.warnings[0]!, /out\.old-\d+-0123456789ab holds files an interrupted run left/);
    assert.deepEqual(readdirSync(backup), ['appeared-during-that-run.txt']);
  } finally {
    live.kill();
    ws.done();
  }
});

test('write: a run killed between the two renames left only the backup: the next run puts it back, then writes', async () => {
  const ws = workspace();
  try {
    await writeOutput(ws.out, FILES);
    put(ws.out, 'notes.txt', 'mine\n');
    const backup = path.join(ws.parent, '.capi-gitops-tmp', 'out.old-999999999-0123456789ab');
    mkdirSync(path.dirname(backup));
    execFileSync('mv', [ws.out, backup]);
    const summary = await writeOutput(ws.out, new Map([...FILES, ['new.yaml', 'n: 1\n']]));
    // nothing about the backup: only the file the tool did not write, which it leaves
    assert.deepEqual(
      summary.warnings.map((w) => w.split(':')[0]),
      [`left notes.txt in ${ws.out}`],
    );
    assert.deepEqual(summary.written, ['new.yaml']);
    assert.equal(readFileSync(path.join(ws.out, 'notes.txt'), 'utf8'), 'mine\n');
    assert.deepEqual(siblings(ws.parent), ['out']);
  } finally {
    ws.done();
  }
});

test('write: a file the tool did not write, in a directory this run writes or the last one wrote into, is named in warnings and left; one in a directory of its own is not named', async () => {
  const ws = workspace();
  try {
    const old = new Map([
      ['gone/kustomization.yaml', generated('resources: [a.yaml]\n')],
      ['gone/a.yaml', generated('a: 1\n')],
      ['kept/b.yaml', generated('b: 1\n')],
    ]);
    await writeOutput(ws.out, old);
    put(ws.out, 'gone/team.yaml', 'team: 1\n');
    put(ws.out, 'kept/team.yaml', 'team: 2\n');
    put(ws.out, 'kept/mine/own.yaml', 'own: 1\n');
    put(ws.out, 'kept/.gitkeep', '');
    const summary = await writeOutput(ws.out, new Map([['kept/b.yaml', generated('b: 1\n')]]));
    assert.deepEqual(summary.removed, ['gone/a.yaml', 'gone/kustomization.yaml']);
    assert.equal(summary.warnings.length, 1, summary.warnings.join('\n'));
    assert.match(summary.warnings[0]!, /^left gone\/team\.yaml, kept\/team\.yaml in .*: capi-gitops did not write them/);
    for (const file of ['gone/team.yaml', 'kept/team.yaml', 'kept/mine/own.yaml']) assert.ok(existsSync(path.join(ws.out, file)), file);
    // the index records gone/ as an earlier render's, so the next run still names its file
    const again = await writeOutput(ws.out, new Map([['kept/b.yaml', generated('b: 1\n')]]));
    assert.match(again.warnings.join('\n'), /^left gone\/team\.yaml, kept\/team\.yaml in /);
    rmSync(path.join(ws.out, 'gone/team.yaml'));
    rmSync(path.join(ws.out, 'kept/team.yaml'));
    const clean = await writeOutput(ws.out, new Map([['kept/b.yaml', generated('b: 1\n')]]));
    assert.deepEqual(clean.warnings, []);
    assert.ok(!existsSync(path.join(ws.out, 'gone')), 'emptied by hand, the directory an earlier render wrote goes');
    assert.equal(readFileSync(path.join(ws.out, INDEX_FILE), 'utf8'), formatIndex(new Map([['kept/b.yaml', generated('b: 1\n')]])));
  } finally {
    ws.done();
  }
});

test('write: a directory the tool did not write where a file goes is named by its full path as the user gave the output (file set), and the hint, followed literally, lets the next run write', async () => {
  const ws = workspace();
  try {
    await writeOutput(ws.out, FILES);
    rmSync(path.join(ws.out, 'a/x.yaml'));
    put(ws.out, 'a/x.yaml/mine.txt', 'mine\n');
    const error = await expectRejects(writeOutput(ws.out, FILES, { shownAs: 'my out' }));
    const [problem] = error.diagnostics;
    assert.equal(problem?.file, path.join('my out', 'a/x.yaml'));
    assert.equal(problem?.message, 'is a directory capi-gitops did not write; this run would write a file there');
    // the hint's command, run from where the user gave the output's path
    const command = problem?.hint?.match(/\(([^()]*)\)/)?.[1];
    assert.equal(command, "rm -r -- 'my out/a/x.yaml'");
    rmSync(path.join(ws.out, 'a/x.yaml'), { recursive: true });
    await writeOutput(ws.out, FILES);
  } finally {
    ws.done();
  }
});
