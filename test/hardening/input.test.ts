/**
 * Hostile or broken input as it arrives on disk: unreadable entries in a -f directory, bytes
 * that are not UTF-8, control characters meant to hide an error in a terminal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { assertNoStackTrace, CLI, exampleCopy, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/corpus-manifest.js';

const entries: Array<[string, (file: string) => void, RegExp]> = [
  [
    'a dangling symlink',
    (file) => symlinkSync(path.join(path.dirname(file), 'gone.yaml.orig'), file),
    /cannot read: a symbolic link to nothing/,
  ],
  [
    'a symlink loop',
    (file) => {
      symlinkSync(file + '.other', file);
      symlinkSync(file, file + '.other');
    },
    /cannot read: a symbolic link loop/,
  ],
  ['a FIFO', (file) => execFileSync('mkfifo', [file]), /cannot read: a named pipe/],
  ['a directory named like a manifest', (file) => execFileSync('mkdir', [file]), /cannot read: a directory/],
];

for (const [what, make, message] of entries) {
  test(`${what} in a -f directory is an error, never skipped (skipping would drop a provider, and pruning would uninstall it)`, async () => {
    const example = exampleCopy();
    const manifest = path.join(example, 'management-cluster');
    const out = path.join(tempDir(), 'out');
    const bad = path.join(manifest, 'extra-providers.yaml');
    make(bad);
    const result = await runCli(['render', '-f', manifest, '-o', out]);
    assertNoStackTrace(result);
    assert.equal(result.code, 1, result.stderr);
    assert.ok(result.stderr.includes(bad), result.stderr);
    assert.match(result.stderr, message);
    assert.match(result.stderr, /nothing was written/);
  });
}

test('a FIFO beside Secret-only files in a -f directory is an error too, not a run blocked for ever (deaf to SIGTERM) reading it for the README command', () => {
  const example = exampleCopy();
  const secrets = path.join(tempDir(), 'secrets');
  mkdirSync(secrets);
  writeFileSync(
    path.join(secrets, 'a.yaml'),
    'apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: capi-system}\nstringData: {K: v}\n',
  );
  execFileSync('mkfifo', [path.join(secrets, 'b.yaml')]);
  const args = ['render', '-f', path.join(example, 'management-cluster'), '-f', secrets, '-o', path.join(tempDir(), 'out')];
  // without the bound the child never ends: killed, it has no exit code
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' });
  assert.equal(result.status, 1, result.stderr);
  assert.match(result.stderr, /b\.yaml: error: cannot read: a named pipe/);
});

test('a manifest that is not valid UTF-8 is an error naming the file, byte offset, line and column (no U+FFFD)', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const config = path.join(manifest, 'config.yaml');
  const text = readFileSync(config, 'utf8');
  const at = text.indexOf('eu-west-1');
  const bytes = Buffer.concat([Buffer.from(text.slice(0, at), 'utf8'), Buffer.from([0xe9]), Buffer.from(text.slice(at), 'utf8')]);
  writeFileSync(config, bytes);
  const line = text.slice(0, at).split('\n').length;
  const result = await runCli(['render', '-f', manifest, '-o', path.join(tempDir(), 'out')]);
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  assert.ok(result.stderr.includes(`config.yaml:${line}:`), result.stderr);
  assert.match(result.stderr, new RegExp(`not valid UTF-8: byte 0xe9 at byte offset ${Buffer.byteLength(text.slice(0, at))}`));
});

test("a manifest saved as UTF-16 (Windows editors) or Latin-1, in a directory whose name has a space: the hint's iconv, run as printed, converts it in place and render passes", async () => {
  for (const encoding of ['utf16', 'latin1'] as const) {
    const example = exampleCopy();
    const manifest = path.join(example, 'management cluster');
    renameSync(path.join(example, 'management-cluster'), manifest);
    const config = path.join(manifest, 'config.yaml');
    const text = readFileSync(config, 'utf8');
    const converted =
      encoding === 'utf16'
        ? Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])
        : Buffer.from(text.replace('eu-west-1', 'eu-west-1 # région'), 'latin1');
    writeFileSync(config, converted);
    const args = ['render', '-f', manifest, '-o', path.join(tempDir(), 'out')];
    const failed = await runCli(args, { cwd: example });
    assertNoStackTrace(failed);
    assert.equal(failed.code, 1, failed.stderr);
    const hint = /hint: (?:.*?: )?(iconv .*)$/m.exec(failed.stderr)?.[1];
    assert.ok(hint, failed.stderr);
    execFileSync('sh', ['-c', hint], { cwd: example });
    const passed = await runCli(args, { cwd: example });
    assert.equal(passed.code, 0, `${encoding}: ${hint}\n${passed.stderr}`);
  }
});

test("a manifest with a NUL byte (a file padded by a tool, or binary) is told at the byte's line and column, and the hint's tr, run as printed in a directory whose name has a space, removes it", async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management cluster');
  renameSync(path.join(example, 'management-cluster'), manifest);
  const config = path.join(manifest, 'config.yaml');
  const lines = readFileSync(config, 'utf8').split('\n').length;
  writeFileSync(config, `${readFileSync(config, 'utf8')}\0`);
  const args = ['render', '-f', manifest, '-o', path.join(tempDir(), 'out')];
  const failed = await runCli(args, { cwd: example });
  assertNoStackTrace(failed);
  assert.equal(failed.code, 1, failed.stderr);
  assert.match(failed.stderr, new RegExp(`config\\.yaml:${lines}:1: error: holds a NUL byte \\(U\\+0000\\), which YAML text cannot hold`));
  const hint = /hint: .*?; remove its NUL bytes: (tr .*)$/m.exec(failed.stderr)?.[1];
  assert.ok(hint, failed.stderr);
  execFileSync('sh', ['-c', hint], { cwd: example });
  const passed = await runCli(args, { cwd: example });
  assert.equal(passed.code, 0, `${hint}\n${passed.stderr}`);
});

test('a name or version of the wrong type is one problem at its position, not followed by another about the text JavaScript made of it', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const providers = path.join(manifest, 'providers.yaml');
  const text = readFileSync(providers, 'utf8');
  writeFileSync(
    providers,
    text
      .replace('name: cluster-api\n', 'name: [cluster-api]\n')
      .replace('version: v0.2.0\n', 'version: {v: 0.2.0}\n')
      .replace('name: example\n  namespace: capex-control-plane-system', 'name: [example]\n  namespace: capex-control-plane-system'),
  );
  const result = await runCli(['render', '-f', manifest, '-o', path.join(tempDir(), 'out'), '--json']);
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  const problems = (JSON.parse(result.stdout) as { problems: { line: number; column: number; path: string; message: string }[] }).problems;
  assert.doesNotMatch(result.stderr, /\[object Object\]|found "cluster-api"|knows no/);
  assert.deepEqual(
    problems.map((p) => `${p.line}:${p.column} ${p.path}: ${p.message}`),
    [
      '8:9 metadata.name: must be a string, got a list (lines starting with "- ")',
      '22:12 spec.version: must be a string, got a mapping (key: value lines)',
      '27:9 metadata.name: must be a string, got a list (lines starting with "- ")',
    ],
  );
});

test('an artifact that is not valid UTF-8 (an overlong sequence, a truncated one) is an error naming the artifact', async () => {
  for (const bad of [Buffer.from([0xc0, 0xaf]), Buffer.from([0xe2, 0x82])]) {
    const example = exampleCopy();
    const components = path.join(example, 'repository', 'bootstrap-example', 'v0.2.0', 'bootstrap-components.yaml');
    writeFileSync(components, Buffer.concat([readFileSync(components), Buffer.from('# '), bad, Buffer.from('\n')]));
    const result = await runCli(['render', '-f', path.join(example, 'management-cluster'), '-o', path.join(tempDir(), 'out')]);
    assertNoStackTrace(result);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /bootstrap-components\.yaml.*not valid UTF-8/);
  }
});

test('control characters from input (ESC, CR, NUL, bidi overrides) are escaped in every message', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const providers = path.join(manifest, 'providers.yaml');
  const text = readFileSync(providers, 'utf8');
  // A provider name that tries to clear the line and print a fake success.
  writeFileSync(
    providers,
    text.replace(
      'name: example\n  namespace: capex-bootstrap-system',
      'name: "ex\\e[2K\\rok: all good\\0\\u202e"\n  namespace: capex-bootstrap-system',
    ),
  );
  const result = await runCli(['render', '-f', manifest, '-o', path.join(tempDir(), 'out')]);
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  assert.ok(!/[\u0000\u001b\r\u202e]/.test(result.stderr + result.stdout), JSON.stringify(result.stderr));
  assert.match(result.stderr, /\\x1b\[2K\\rok: all good\\x00\\u202e/);
});

test('-f naming an endless device (/dev/zero) stops at the 64 MiB manifest bound with an error, not an out-of-memory crash', async () => {
  const result = await runCli(['render', '-f', '/dev/zero', '-o', path.join(tempDir(), 'out')]);
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /\/dev\/zero: error: larger than 64 MiB/);
});

test('a --values or --secret-file file over 64 MiB (a sparse 200 MB file here) is an error at the manifest bound, not a heap exhausted reading it', async () => {
  const example = exampleCopy();
  const huge = path.join(tempDir(), 'huge.yaml');
  writeFileSync(huge, '');
  truncateSync(huge, 200 * 1024 * 1024);
  for (const flags of [
    ['--layout', 'argocd', '--values', huge],
    ['--secret-file', huge],
  ]) {
    const result = await runCli(['render', '-f', path.join(example, 'management-cluster'), '-o', path.join(tempDir(), 'out'), ...flags]);
    assertNoStackTrace(result);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /huge\.yaml: error: larger than 64 MiB\n {2}expected: a file of at most 64 MiB\n/);
  }
});

test('--cache-dir "" is a usage error, not a cache spread over the working directory', async () => {
  const example = exampleCopy();
  const cwd = tempDir();
  const result = await runCli(
    ['render', '-f', path.join(example, 'management-cluster'), '-o', path.join(tempDir(), 'out'), '--cache-dir', ''],
    {
      cwd,
    },
  );
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /--cache-dir "": expected a directory/);
  assert.deepEqual(readdirSync(cwd), []);
});

test('a -f directory of more files than the open-file limit (ulimit -n 256, 600 files) is read whole, not "cannot read: EMFILE" for the files past the limit', () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  for (let i = 0; i < 600; i++)
    writeFileSync(
      path.join(manifest, `cm-${String(i).padStart(3, '0')}.yaml`),
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c${i}\n  namespace: capi-system\ndata:\n  a: b\n`,
    );
  const out = path.join(tempDir(), 'out');
  const result = spawnSync(
    'bash',
    ['-c', 'ulimit -n 256 && exec "$@"', 'bash', process.execPath, CLI, 'render', '--quiet', '-f', manifest, '-o', out],
    {
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  assert.doesNotMatch(result.stderr, /EMFILE/);
  assert.equal(result.status, 0, result.stderr);
});

test("diff's text names no object with a raw line break, CR or ESC: a name from a committed file cannot start a GitHub Actions workflow command (::add-mask::, ::error) or rewrite the terminal", async () => {
  const root = tempDir();
  for (const side of ['a', 'b']) mkdirSync(path.join(root, side, '01-x'), { recursive: true });
  const object = (data: string) =>
    [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: "x\\n::error file=evil.yaml::injected\\n::add-mask::capi\\e[2J"',
      '  namespace: "ns\\r\\n::warning::ns"',
      `data: {k: ${data}}`,
      '',
    ].join('\n');
  writeFileSync(path.join(root, 'a', '01-x', 'c.yaml'), object('v'));
  writeFileSync(path.join(root, 'b', '01-x', 'c.yaml'), object('w'));
  writeFileSync(path.join(root, 'b', '01-x', 'd.yaml'), object('v').replace('name: "x', 'name: "y'));
  for (const format of ['text', 'markdown']) {
    const result = await runCli(['diff', '--from', path.join(root, 'a'), '--to', path.join(root, 'b'), '--format', format]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /injected/);
    for (const line of result.stdout.split('\n')) assert.doesNotMatch(line, /^\s*::|\r|\x1b/, `${format}: ${JSON.stringify(line)}`);
  }
});

test("render's object lines name an artifact's object on one line: a name holding a line break cannot start a workflow command in a CI log", async () => {
  const example = exampleCopy();
  const components = path.join(example, 'repository', 'infrastructure-example', 'v0.2.0', 'infrastructure-components.yaml');
  writeFileSync(
    components,
    `${readFileSync(components, 'utf8')}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "x\\n::add-mask::capi\\r\\n::error::injected"\n  namespace: capex-system\ndata: {k: v}\n`,
  );
  const manifest = path.join(example, 'management-cluster');
  rmSync(path.join(manifest, 'capi-gitops.lock.yaml'));
  const result = await runCli(['render', '-f', manifest, '-o', path.join(tempDir(), 'out')]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /\+ ConfigMap capex-system\/x\\n::add-mask::capi\\r\\n::error::injected \(/);
  for (const line of (result.stdout + result.stderr).split('\n')) assert.doesNotMatch(line, /^\s*::|\r/, JSON.stringify(line));
});

test("diff -o over a committed output file holding Git conflict markers (two renders merged): one problem at the conflict, not the parser's dozen; render, as the hint says, clears it", async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const out = path.join(example, 'out');
  assert.equal((await runCli(['render', '--quiet', '-f', manifest, '-o', out])).code, 0);
  const file = path.join(out, 'kustomization.yaml');
  const lines = readFileSync(file, 'utf8').split('\n');
  const at = lines.findIndex((line) => line.startsWith('- '));
  lines.splice(at, 1, '<<<<<<< HEAD', lines[at]!, '=======', `${lines[at]!}-theirs`, '>>>>>>> topic');
  writeFileSync(file, lines.join('\n'));
  const result = await runCli(['diff', '-f', manifest, '-o', out]);
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stderr,
    new RegExp(`kustomization\\.yaml:${at + 1}:1: error: unresolved Git merge conflict \\(lines ${at + 1}-${at + 5}\\)\\n`),
  );
  assert.match(result.stderr, /hint: render writes this file: render again to rewrite it whole/);
  assert.doesNotMatch(result.stderr, /Implicit|Not a YAML token/);
  assert.equal((await runCli(['render', '--quiet', '-f', manifest, '-o', out])).code, 0);
  assert.equal((await runCli(['diff', '-f', manifest, '-o', out])).code, 0);
});

test('diff -o or --from naming a link loop: the loop is told, not "render into it first", which fails the same way', async () => {
  const dir = tempDir();
  const loop = path.join(dir, 'out');
  symlinkSync(path.join(dir, 'other'), loop);
  symlinkSync(loop, path.join(dir, 'other'));
  const result = await runCli(['diff', '--from', loop, '--to', loop]);
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /ELOOP|symbolic link/);
  assert.doesNotMatch(result.stderr, /render into it first/);
});

test('an ownership index with Git conflict markers (two pull requests rendered, then merged) is one problem a conflict; its hint keeps both sides, and render, run after it, passes check', async () => {
  const example = exampleCopy();
  const manifest = path.join(example, 'management-cluster');
  const out = path.join(example, 'out');
  assert.equal((await runCli(['render', '--quiet', '-f', manifest, '-o', out])).code, 0);
  const index = path.join(out, '.capi-gitops-index');
  const lines = readFileSync(index, 'utf8').split('\n');
  const at = lines.findIndex((line) => /^[0-9a-f]{64} {2}/.test(line));
  const theirs = `${'0'.repeat(64)}${lines[at]!.slice(64)}`;
  lines.splice(at, 1, '<<<<<<< HEAD', lines[at]!, '=======', theirs, `${'1'.repeat(64)}  01-their-cluster/x.yaml`, '>>>>>>> topic');
  writeFileSync(index, lines.join('\n'));
  for (const command of ['check', 'render']) {
    const result = await runCli([command, '-f', manifest, '-o', out]);
    assertNoStackTrace(result);
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      new RegExp(`\\.capi-gitops-index:${at + 1}:1: error: unresolved Git merge conflict \\(lines ${at + 1}-${at + 6}\\)\\n`),
    );
    assert.doesNotMatch(result.stderr, /is not "<sha256>/);
  }
  const hinted = /hint: .*?: (grep .*?), then/.exec((await runCli(['check', '-f', manifest, '-o', out])).stderr)?.[1];
  assert.ok(hinted);
  const followed = spawnSync('bash', ['-c', hinted], { cwd: example, encoding: 'utf8' });
  assert.equal(followed.status, 0, followed.stderr);
  assert.equal((await runCli(['render', '--quiet', '-f', manifest, '-o', out])).code, 0);
  assert.equal((await runCli(['check', '-f', manifest, '-o', out])).code, 0);
});
