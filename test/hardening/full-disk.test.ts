/**
 * A full disk, for real: a small tmpfs mounted in a private mount namespace (`unshare --mount
 * --map-root-user`, no root needed where unprivileged user namespaces are allowed), filled with a
 * file until writes fail with ENOSPC, then freed by a chosen number of KiB. The CLI runs inside;
 * what is on the tmpfs afterwards is copied out and compared with what was there before.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';
import { tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { coreManifest, localCoreRelease } from '../helpers/local-release.js';
import { readTree } from '../helpers/tree.js';
import { assertNoStackTrace, CLI, EXAMPLE, runCli, type CliResult } from '../helpers/cli.js';
import { EchoServer } from '../helpers/echo-server.js';

const canMount = spawnSync('unshare', ['--mount', '--map-root-user', 'true']).status === 0;
const skip = canMount ? false : 'needs `unshare --mount --map-root-user` (user namespaces) to mount a small tmpfs';

// Mounts the tmpfs, copies the seed in, fills it, runs node with the CLI, frees the fill, copies the result out.
const SCRIPT = `
set -e
mnt="$1"; seed="$2"; result="$3"; size="$4"; free="$5"; shift 5
mount -t tmpfs -o "size=\${size}k" capi-gitops-full "$mnt"
if [ -n "$seed" ]; then cp -a "$seed/." "$mnt/"; fi
cat /dev/zero > "$mnt/.fill" 2>/dev/null || true
if [ "$free" -gt 0 ]; then truncate -s "-\${free}K" "$mnt/.fill"; fi
set +e
"$NODE" "$CLI" "$@"
status=$?
rm -f "$mnt/.fill"
cp -a "$mnt/." "$result/"
exit $status
`;

interface FullDisk {
  /** The mount point: paths under it in `args` are on the full file system. */
  mnt: string;
  /** Copied onto the tmpfs before it is filled. */
  seed?: string;
  sizeKiB?: number;
  freeKiB: number;
  args: (mnt: string) => string[];
  /** Extra environment for the CLI, given the mount point. */
  env?: (mnt: string) => NodeJS.ProcessEnv;
}

/** Runs the CLI with `mnt` on a full tmpfs; `result` holds the tmpfs's content afterwards. */
function onFullDisk(options: FullDisk): Promise<CliResult & { result: string }> {
  const result = tempDir();
  const argv = [
    '--mount',
    '--map-root-user',
    'bash',
    '-c',
    SCRIPT,
    'full-disk',
    options.mnt,
    options.seed ?? '',
    result,
    String(options.sizeKiB ?? 4096),
    String(options.freeKiB),
    ...options.args(options.mnt),
  ];
  return new Promise((resolve) => {
    const child = spawn('unshare', argv, { env: { ...process.env, ...options.env?.(options.mnt), NODE: process.execPath, CLI } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr, result }));
  });
}

/** Files and directories whose names say they were left behind by a write (temporary tree or file, backup, lock). */
function leftovers(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) =>
    /\.tmp$|\.tmp-\d|capi-gitops-(tmp|old)-|capi-gitops\.lock$/.test(name),
  );
}

/** The CLI in a child process, without blocking this one (the artifact server runs here). */
function runAsync(args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test(
  'a cache on a full disk is a warning: the render succeeds from memory, with the output of a render that could cache',
  { skip },
  async () => {
    const example = tempDir();
    cpSync(EXAMPLE, example, { recursive: true });
    const manifest = path.join(example, 'management-cluster');
    const reference = path.join(tempDir(), 'out');
    assert.equal((await runCli(['render', '-f', manifest, '-o', reference, '--cache-dir', path.join(tempDir(), 'cache')])).code, 0);
    const out = path.join(tempDir(), 'out');
    // The cache and the cache's key file (XDG_STATE_HOME) both on the full disk.
    const run = await onFullDisk({
      mnt: tempDir(),
      freeKiB: 0,
      args: (mnt) => ['render', '-f', manifest, '-o', out, '--cache-dir', path.join(mnt, 'cache')],
      env: (mnt) => ({ XDG_STATE_HOME: path.join(mnt, 'state') }),
    });
    assertNoStackTrace(run);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /warning: cache: no key file at .*\(ENOSPC\); cache records are used within this run only/);
    // a key for this run only signs nothing a later run reads: no parsed form is written
    assert.doesNotMatch(run.stderr, /parsed entries/);
    const state = readdirSync(path.join(run.result, 'state'), { recursive: true, encoding: 'utf8' }).filter((name) =>
      statSync(path.join(run.result, 'state', name)).isFile(),
    );
    assert.deepEqual(
      state,
      [],
      'a key file that could not be filled is not left behind (a short key would disable the cache after space is freed)',
    );
    const ours = readTree(out);
    for (const [file, text] of readTree(reference))
      if (file !== 'README.md' && file !== '.capi-gitops-index') assert.equal(ours.get(file), text, file);
    assert.deepEqual(leftovers(run.result), [], 'no temporary file left in the cache');

    // With a lasting key (a CI secret), the parsed forms are written, and the full disk refuses them.
    const keyed = await onFullDisk({
      mnt: tempDir(),
      freeKiB: 0,
      args: (mnt) => ['render', '-f', manifest, '-o', path.join(tempDir(), 'out'), '--cache-dir', path.join(mnt, 'cache')],
      env: () => ({ CAPI_GITOPS_CACHE_KEY: 'a-ci-secret-of-16-characters-or-more' }),
    });
    assertNoStackTrace(keyed);
    assert.equal(keyed.code, 0, keyed.stderr);
    assert.match(keyed.stderr, /warning: cache: cannot write parsed entries under .*\(ENOSPC\); continuing without caching them/);
    assert.deepEqual(leftovers(keyed.result), [], 'no temporary file left in the cache');
  },
);

const served: Record<string, Buffer> = {
  'core-components.yaml': readFileSync(path.join(CORPUS_REPOSITORY, 'cluster-api', 'v1.12.0', 'core-components.yaml')),
  'metadata.yaml': readFileSync(path.join(CORPUS_REPOSITORY, 'cluster-api', 'v1.12.0', 'metadata.yaml')),
};
const server = await EchoServer.start((request) => {
  const name = /^\/capi\/v1\.12\.0\/([a-z-]+\.yaml)$/.exec(request.url)?.[1];
  return name && served[name] ? { status: 200, body: served[name] } : undefined;
});
after(() => server.close());

test('a downloaded artifact that cannot be cached (ENOSPC) still renders from memory; the lockfile pins its digest', { skip }, async () => {
  const dir = tempDir();
  const manifest = path.join(dir, 'manifest.yaml');
  writeFileSync(
    manifest,
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  version: v1.12.0\n---\napiVersion: capi-gitops.dev/v1alpha1\nkind: Config\ncertManager:\n  enabled: false\nrepositories:\n- name: cluster-api\n  type: CoreProvider\n  url: ${server.origin}/capi/{version}/core-components.yaml\n  versions: [v1.12.0]\n`,
  );
  const lockfile = path.join(dir, 'capi-gitops.lock.yaml');
  const reference = path.join(tempDir(), 'out');
  const referenceRun = await runAsync(['render', '-f', manifest, '-o', reference, '--cache-dir', path.join(tempDir(), 'cache')]);
  assert.equal(referenceRun.code, 0, referenceRun.stderr);
  const referenceLock = readFileSync(lockfile, 'utf8');
  const requestsBefore = server.requests.length;
  const out = path.join(tempDir(), 'out');
  const run = await onFullDisk({
    mnt: tempDir(),
    freeKiB: 0,
    args: (mnt) => ['render', '-f', manifest, '-o', out, '--cache-dir', path.join(mnt, 'cache'), '--frozen'],
  });
  assertNoStackTrace(run);
  assert.equal(run.code, 0, run.stderr);
  assert.ok(server.requests.length > requestsBefore, 'the artifact was downloaded, not read from a cache');
  assert.match(run.stderr, /warning: cache: cannot write artifact entries under .*\(ENOSPC\)/);
  assert.equal(readFileSync(lockfile, 'utf8'), referenceLock);
  const ours = readTree(out);
  for (const [file, text] of readTree(reference))
    if (file !== 'README.md' && file !== '.capi-gitops-index') assert.equal(ours.get(file), text, file);
  assert.deepEqual(leftovers(run.result), [], 'no temporary file left in the cache');
});

test(
  'output and lockfile on a full disk: at every amount of free space the run either writes both or fails with exit 1 and changes nothing',
  { skip },
  async () => {
    // The previous state: the example rendered without its infrastructure provider.
    const seed = tempDir();
    cpSync(EXAMPLE, path.join(seed, 'ex'), { recursive: true });
    const providers = path.join(seed, 'ex', 'management-cluster', 'providers.yaml');
    const full = readFileSync(providers, 'utf8');
    const infrastructure = full.indexOf('---\napiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider');
    assert.ok(infrastructure > 0);
    writeFileSync(providers, full.slice(0, infrastructure));
    const cache = path.join(tempDir(), 'cache');
    const renderIn = (dir: string) =>
      runCli(['render', '-f', path.join(dir, 'ex', 'management-cluster'), '-o', path.join(dir, 'out'), '--cache-dir', cache]);
    const first = await renderIn(seed);
    assert.equal(first.code, 0, first.stderr);
    writeFileSync(providers, full); // the infrastructure provider comes back: output and lockfile both change
    const before = readTree(seed);

    const reference = tempDir();
    cpSync(seed, reference, { recursive: true });
    assert.equal((await renderIn(reference)).code, 0);
    const after = readTree(reference);
    assert.notEqual(after.get('ex/management-cluster/capi-gitops.lock.yaml'), before.get('ex/management-cluster/capi-gitops.lock.yaml'));

    const outcomes: string[] = [];
    for (const freeKiB of [0, 4, 8, 16, 32, 64, 128, 4096]) {
      const run = await onFullDisk({
        mnt: tempDir(),
        seed,
        sizeKiB: 4096,
        freeKiB,
        args: (m) => ['render', '-f', path.join(m, 'ex', 'management-cluster'), '-o', path.join(m, 'out'), '--cache-dir', cache],
      });
      const what = `${freeKiB} KiB free`;
      assertNoStackTrace(run, what);
      assert.deepEqual(leftovers(run.result), [], `${what}: something was left behind`);
      const now = readTree(run.result);
      if (run.code === 0) {
        // Everything the reference wrote, except the README and index lines that name the -o path.
        assert.deepEqual([...now.keys()].sort(), [...after.keys()].sort(), what);
        assert.equal(
          now.get('ex/management-cluster/capi-gitops.lock.yaml'),
          after.get('ex/management-cluster/capi-gitops.lock.yaml'),
          what,
        );
        outcomes.push('written');
      } else {
        assert.equal(run.code, 1, `${what}: ${run.stderr}`);
        assert.match(run.stderr, /ENOSPC|no space left/i, what);
        assert.match(run.stderr, /nothing was written/, what);
        assert.deepEqual(now, before, `${what}: the previous output or lockfile changed`);
        outcomes.push(`failed: ${run.stderr.split('\n').find((line) => line.includes('error:'))}`);
      }
    }
    // Each stage meets the full disk at some size: the lockfile's temporary file (written first), the lock, the tree.
    for (const stage of [
      /cannot write the lockfile: ENOSPC/,
      /cannot take the output lock: ENOSPC/,
      /could not write the output directory: ENOSPC/,
    ]) {
      assert.ok(
        outcomes.some((o) => stage.test(o)),
        `no run failed at ${stage}: ${outcomes.join('; ')}`,
      );
    }
    assert.equal(outcomes.at(-1), 'written', 'with room, the same run succeeds');
  },
);

test(
  "diff of a fleet with TMPDIR on a full disk, where it keeps the fleet's render: exit 1, the hint names TMPDIR, nothing left there",
  { skip },
  async () => {
    const url = localCoreRelease(
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: capi-system}\ndata: {region: "\${REGION}", padding: ${'x'.repeat(64 * 1024)}}\n`,
    );
    const clusters = ['a', 'b', 'c'].map((name) => `- name: ${name}\n  variables: {REGION: ${name}}`).join('\n');
    const dir = writeTempManifest({ 'fleet.yaml': coreManifest(url, `clusters:\n${clusters}\n`) });
    const out = path.join(tempDir(), 'out');
    assert.equal((await runCli(['render', '-f', dir, '-o', out])).code, 0);
    const run = await onFullDisk({
      mnt: tempDir(),
      freeKiB: 0,
      args: () => ['diff', '-f', dir, '-o', out],
      env: (mnt) => ({ TMPDIR: mnt }),
    });
    assertNoStackTrace(run);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /ENOSPC/);
    assert.match(run.stderr, /hint: .*set TMPDIR to a file system with room/);
    assert.deepEqual(
      readdirSync(run.result).filter((name) => name.startsWith('capi-gitops-')),
      [],
    );
  },
);
