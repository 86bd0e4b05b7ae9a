/**
 * `plan` and `update` with a provider whose spec.version range holds it below the plan, on the
 * corpus's core and kubeadm releases: update never leaves them split, and says where the range is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { corpusManifest, writeTempManifest } from './helpers/corpus-manifest.js';
import { assertNoStackTrace, runCli } from './helpers/cli.js';

const KINDS = ['CoreProvider', 'BootstrapProvider', 'ControlPlaneProvider'] as const;

/** The corpus's three providers at `version` (v1.10.4), locked; the file and the line of each one's spec.version. */
async function lockedAt(version = 'v1.10.4'): Promise<{ dir: string; file: string; lines: Record<(typeof KINDS)[number], number> }> {
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest(version) });
  const locked = await runCli(['lock', '-f', '.'], { cwd: dir });
  assert.equal(locked.code, 0, locked.stderr);
  const file = path.join(dir, 'providers.yaml');
  const text = readFileSync(file, 'utf8').split('\n');
  // each kind's spec.version: the first version line after its header
  const lines = { CoreProvider: 0, BootstrapProvider: 0, ControlPlaneProvider: 0 };
  for (const kind of KINDS)
    lines[kind] = text.findIndex((line, i) => i > text.indexOf(`kind: ${kind}`) && line.startsWith('  version:')) + 1;
  return { dir, file, lines };
}

/** Writes `value` as the spec.version at `line` (1-based). */
function setVersion(file: string, line: number, value: string): void {
  const text = readFileSync(file, 'utf8').split('\n');
  text[line - 1] = `  version: ${value}`;
  writeFileSync(file, text.join('\n'));
}

function versions(dir: string): string[] {
  const lock = readFileSync(path.join(dir, 'capi-gitops.lock.yaml'), 'utf8');
  return [...lock.matchAll(/^ {4}version: (\S+)$/gm)].map((m) => m[1]);
}

test('update --contract v1beta2 refuses a range that keeps kubeadm bootstrap on v1.10 while core and control plane go to v1.12, writes nothing, and its hint works as written (clusterctl cmd/clusterctl/client/cluster/upgrader.go getUpgradePlan)', async () => {
  const { dir, file, lines } = await lockedAt();
  setVersion(file, lines.BootstrapProvider, '"~1.10"');
  const [manifest, lock] = [readFileSync(file, 'utf8'), readFileSync(path.join(dir, 'capi-gitops.lock.yaml'), 'utf8')];

  const plan = await runCli(['plan', '-f', '.'], { cwd: dir });
  assert.equal(plan.code, 0, plan.stderr);
  assert.match(plan.stdout, /\nbootstrap-kubeadm +\S+ +BootstrapProvider +v1\.10\.4 +v1beta1 +up to date +held back\n/);
  assert.ok(
    plan.stdout.includes(
      `  v1beta2: providers.yaml:${lines.BootstrapProvider}:12: the range "~1.10" keeps bootstrap-kubeadm at v1.10.4 while cluster-api v1.12.0 and control-plane-kubeadm v1.12.0`,
    ),
    plan.stdout,
  );
  assert.match(plan.stdout, /the v1beta2 plan would move bootstrap-kubeadm to v1\.12\.0\n/);
  assert.doesNotMatch(plan.stdout, /To update/);

  const update = await runCli(['update', '-f', '.', '--contract', 'v1beta2'], { cwd: dir });
  assert.equal(update.code, 1, update.stderr);
  assertNoStackTrace(update);
  const errors = update.stderr.split('\n').filter((line) => / error: /.test(line));
  assert.deepEqual(
    errors.map((line) => line.slice(0, line.indexOf(' error:'))),
    [`providers.yaml:${lines.BootstrapProvider}:12:`],
    update.stderr,
  );
  assert.match(update.stderr, /hint: set spec\.version to v1\.10\.4, the locked release \(update moves an exact pin with the others\)/);
  assert.match(update.stderr, /nothing was written/);
  assert.equal(readFileSync(file, 'utf8'), manifest, 'the manifest changed');
  assert.equal(readFileSync(path.join(dir, 'capi-gitops.lock.yaml'), 'utf8'), lock, 'the lockfile changed');

  // the hint, followed as written
  setVersion(file, lines.BootstrapProvider, 'v1.10.4');
  const again = await runCli(['update', '-f', '.', '--contract', 'v1beta2'], { cwd: dir });
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(versions(dir).slice(1), ['v1.12.0', 'v1.12.0', 'v1.12.0']);
});

test('the same range on core and both kubeadm providers holds them together: update proceeds and warns at each range (docs/book/src/reference/versions.md: kubeadm providers of the core version)', async () => {
  const { dir, file, lines } = await lockedAt();
  for (const kind of KINDS) setVersion(file, lines[kind], '"~1.10"');
  const update = await runCli(['update', '-f', '.', '--contract', 'v1beta2'], { cwd: dir });
  assert.equal(update.code, 0, update.stderr);
  for (const [kind, label] of [
    ['CoreProvider', 'cluster-api'],
    ['BootstrapProvider', 'bootstrap-kubeadm'],
    ['ControlPlaneProvider', 'control-plane-kubeadm'],
  ] as const) {
    assert.ok(
      update.stderr.includes(`providers.yaml:${lines[kind]}:12: warning: ${kind}/`) &&
        update.stderr.includes(`the range "~1.10" keeps ${label} at v1.10.4; the v1beta2 plan would move it to v1.12.0`),
      update.stderr,
    );
  }
  assert.deepEqual(versions(dir).slice(1), ['v1.10.4', 'v1.10.4', 'v1.10.4']);
  assert.match(
    update.stderr,
    /hint: to move it, set spec\.version to v1\.10\.4, the release this update locks .*; likewise cluster-api and control-plane-kubeadm/,
  );

  // the hint, followed as written: the three pinned where they are locked move together
  for (const kind of KINDS) setVersion(file, lines[kind], 'v1.10.4');
  const again = await runCli(['update', '-f', '.', '--contract', 'v1beta2'], { cwd: dir });
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(versions(dir).slice(1), ['v1.12.0', 'v1.12.0', 'v1.12.0']);
});

test('update never moves a provider back: a range that excludes the locked v1.12.0 and resolves to v1.10.4 is refused at its spec.version, once, nothing written, and the hint works as written (cluster-api-operator internal/controller/preflight_checks.go checkProviderVersion)', async () => {
  const { dir, file, lines } = await lockedAt('v1.12.0');
  const lockFile = path.join(dir, 'capi-gitops.lock.yaml');
  setVersion(file, lines.BootstrapProvider, '"~1.10"');
  const [manifest, lock] = [readFileSync(file, 'utf8'), readFileSync(lockFile, 'utf8')];
  const at = `providers.yaml:${lines.BootstrapProvider}:12:`;

  // the render's warning does not send to update, which would not move a range that excludes cluster-api's version
  const render = await runCli(['lock', '-f', '.'], { cwd: dir });
  assert.equal(render.code, 0, render.stderr);
  assert.match(
    render.stderr,
    /bootstrap-kubeadm v1\.10\.4 while cluster-api is at v1\.12\.0: .*\n\s+hint: set spec\.version to v1\.12\.0, as cluster-api's, or a range that allows it, e\.g\. "~1\.12"\n/,
  );
  assert.doesNotMatch(render.stderr, /capi-gitops update/);
  writeFileSync(lockFile, lock);

  const update = await runCli(['update', '-f', '.'], { cwd: dir });
  assert.equal(update.code, 1, update.stderr);
  assertNoStackTrace(update);
  // one problem at the range: not the render's warnings beside it
  assert.deepEqual(
    update.stderr.split('\n').filter((line) => line.startsWith(at)),
    [
      `${at} error: BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm: spec.version: the range "~1.10" excludes the locked v1.12.0 and resolves to v1.10.4: update never moves a provider back (Cluster API does not support downgrades; the operator refuses them), and it would leave bootstrap-kubeadm on another minor version than cluster-api v1.12.0, which it is released with`,
    ],
    update.stderr,
  );
  assert.match(update.stderr, /hint: set spec\.version to v1\.12\.0, the locked release, or to a range that allows it, e\.g\. "~1\.12"\n/);
  assert.match(update.stderr, /nothing was written/);
  assert.equal(readFileSync(file, 'utf8'), manifest, 'the manifest changed');
  assert.equal(readFileSync(lockFile, 'utf8'), lock, 'the lockfile changed');

  // an exact pin edited back is refused the same way
  setVersion(file, lines.BootstrapProvider, 'v1.10.4');
  const pinned = await runCli(['update', '-f', '.'], { cwd: dir });
  assert.equal(pinned.code, 1, pinned.stderr);
  assert.match(pinned.stderr, /spec\.version: v1\.10\.4 is below the locked v1\.12\.0: update never moves a provider back/);
  assert.match(pinned.stderr, /hint: set spec\.version to v1\.12\.0, the locked release\n/);
  assert.equal(readFileSync(lockFile, 'utf8'), lock, 'the lockfile changed');

  // the hint, followed as written: the range that allows the locked release keeps it there
  setVersion(file, lines.BootstrapProvider, '"~1.12"');
  const again = await runCli(['update', '-f', '.'], { cwd: dir });
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stderr, /warning/);
  assert.deepEqual(versions(dir).slice(1), ['v1.12.0', 'v1.12.0', 'v1.12.0']);
});
