import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseLockfile, serializeLockfile } from '../../../src/resolve/lock/lockfile.js';
import { type LockEntry } from '../../../src/resolve/lock/types.js';
import { assertFrozen, diffLockfiles } from '../../../src/resolve/lock/diff.js';
import { verifyLockedArtifacts, digestMismatch } from '../../../src/resolve/lock/verify.js';
import { tempDir } from '../../helpers/corpus-manifest.js';
import { sha256Hex } from '../../../src/core/digest.js';
import { failsWith } from '../../helpers/assertions.js';

const digest = (text: string): string => sha256Hex(text);

function entry(kind: LockEntry['kind'], name: string, namespace: string, version: string, extra: Partial<LockEntry> = {}): LockEntry {
  return {
    kind,
    name,
    namespace,
    requestedVersion: '',
    version,
    ...(kind === 'CertManager' ? {} : { contract: 'v1beta2' }),
    source: { type: 'registry', url: `https://example.test/${name}` },
    files: [{ name: 'metadata.yaml', url: `repo/${name}/${version}/metadata.yaml`, sha256: digest(`${name} ${version}`) }],
    ...extra,
  };
}

const core10 = entry('CoreProvider', 'cluster-api', 'capi-system', 'v1.10.4', { contract: 'v1beta1' });
const core12 = entry('CoreProvider', 'cluster-api', 'capi-system', 'v1.12.0');
const kubeadm = entry('BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system', 'v1.12.0');
const certManager = entry('CertManager', 'cert-manager', 'cert-manager', 'v1.19.1');

test('no change, no lines', () => {
  assert.deepEqual(diffLockfiles({ entries: [core12, kubeadm] }, { entries: [kubeadm, core12] }), []);
});

test('added, removed and upgraded components, in install order, with printable lines', () => {
  const changes = diffLockfiles({ entries: [core10, certManager] }, { entries: [kubeadm, core12] });
  assert.deepEqual(
    changes.map((c) => c.line),
    ['- cert-manager v1.19.1', '~ cluster-api v1.10.4 → v1.12.0: contract v1beta1 → v1beta2', '+ bootstrap-kubeadm v1.12.0'],
  );
  assert.deepEqual(changes[1], {
    type: 'changed',
    kind: 'CoreProvider',
    name: 'cluster-api',
    namespace: 'capi-system',
    fromVersion: 'v1.10.4',
    toVersion: 'v1.12.0',
    details: ['contract v1beta1 → v1beta2'],
    line: '~ cluster-api v1.10.4 → v1.12.0: contract v1beta1 → v1beta2',
  });
});

test('the first lock lists everything as added', () => {
  assert.deepEqual(
    diffLockfiles(undefined, { entries: [core12, certManager] }).map((c) => c.line),
    ['+ cert-manager v1.19.1', '+ cluster-api v1.12.0'],
  );
});

test('same version, new digest, URL, source or request: each named, digests shortened', () => {
  const before = core12;
  const after: LockEntry = {
    ...core12,
    requestedVersion: 'v1.12.0',
    source: { type: 'url', url: 'repo/cluster-api/latest/core-components.yaml' },
    files: [
      { name: 'core-components.yaml', url: 'repo/c.yaml', sha256: digest('c') },
      { name: 'metadata.yaml', url: 'elsewhere/metadata.yaml', sha256: digest('other bytes') },
    ],
  };
  const [change] = diffLockfiles({ entries: [before] }, { entries: [after] });
  assert.deepEqual(change.details, [
    'requested version "" → "v1.12.0"',
    'source registry https://example.test/cluster-api → url repo/cluster-api/latest/core-components.yaml',
    'file core-components.yaml added',
    `metadata.yaml sha256 ${digest('cluster-api v1.12.0').slice(0, 12)}… → ${digest('other bytes').slice(0, 12)}…`,
    'metadata.yaml url repo/cluster-api/v1.12.0/metadata.yaml → elsewhere/metadata.yaml',
  ]);
  assert.match(change.line, /^~ cluster-api v1\.12\.0: requested version "" → "v1\.12\.0"; source /);
});

test('a provider installed in two namespaces is told apart by namespace', () => {
  const a = entry('InfrastructureProvider', 'docker', 'capd-a', 'v1.12.0');
  const b = entry('InfrastructureProvider', 'docker', 'capd-b', 'v1.12.0');
  const changes = diffLockfiles({ entries: [a] }, { entries: [a, b] });
  assert.deepEqual(
    changes.map((c) => c.line),
    ['+ infrastructure-docker (capd-b) v1.12.0'],
  );
});

test('--frozen passes when nothing changes', () => {
  assert.doesNotThrow(() => assertFrozen({ entries: [core12, certManager] }, { entries: [certManager, core12] }));
});

test('--frozen fails naming every change, or the missing lockfile', () => {
  assert.throws(
    () => assertFrozen({ entries: [core10] }, { entries: [core12, kubeadm] }, '/m/capi-gitops.lock.yaml'),
    failsWith(/--frozen \(or check, which implies it\): the lockfile would change: ~ cluster-api v1\.10\.4 → v1\.12\.0/, (error) => {
      assert.equal(error.diagnostics.length, 2);
      assert.match(error.diagnostics[1].message, /\+ bootstrap-kubeadm v1\.12\.0/);
      assert.equal(error.diagnostics[0].file, '/m/capi-gitops.lock.yaml');
      assert.match(error.diagnostics[0].hint ?? '', /capi-gitops lock/);
    }),
  );
  assert.throws(
    () => assertFrozen(undefined, { entries: [core12] }),
    failsWith(/there is no lockfile, and --frozen \(or check, which implies it\) needs one/),
  );
});

test('--frozen tells a change at the lock entry that records it: a contract edited by hand at its contract line, a removed entry at its first line, an added one at the file', () => {
  const file = path.join(tempDir(), 'capi-gitops.lock.yaml');
  const edited = { ...core12, contract: 'v1beta1' };
  const text = serializeLockfile({ entries: [certManager, edited] });
  writeFileSync(file, text);
  const lines = text.split('\n');
  const contractLine = lines.findIndex((l, i) => l.includes('contract: v1beta1') && lines[i - 5]?.includes('kind: CoreProvider')) + 1;
  const certManagerLine = lines.findIndex((l) => l.includes('kind: CertManager')) + 1;
  assert.ok(contractLine > 0 && certManagerLine > 0, text);
  assert.throws(
    () => assertFrozen(parseLockfile(text, file), { entries: [core12, kubeadm] }, file),
    failsWith(/contract v1beta1 → v1beta2/, (error) => {
      const at = (pattern: RegExp) => error.diagnostics.find((d) => pattern.test(d.message))!;
      assert.deepEqual([at(/cluster-api/).line, at(/cluster-api/).column], [contractLine, 15]);
      assert.deepEqual([at(/- cert-manager/).line, at(/- cert-manager/).column], [certManagerLine, 5]);
      assert.equal(at(/\+ bootstrap-kubeadm/).line, undefined);
    }),
  );
});

test('a file whose digest differs from the lock is a hard failure naming both digests and re-tagging', () => {
  const file = core12.files[0];
  const actual = digest('re-tagged bytes');
  assert.equal(digestMismatch(file, { ...file, sha256: file.sha256.toUpperCase() }, core12), undefined);
  assert.throws(
    () => verifyLockedArtifacts(core12, [{ name: file.name, url: file.url, sha256: actual }]),
    failsWith(
      new RegExp(
        `cluster-api v1\\.12\\.0: metadata\\.yaml from repo/cluster-api/v1\\.12\\.0/metadata\\.yaml has sha256 ${actual}, but the lockfile recorded sha256 ${file.sha256}; the release was probably re-tagged`,
      ),
      (error) => {
        assert.match(
          error.diagnostics[0].hint ?? '',
          /accept it for this component only with `capi-gitops lock --accept-digest cluster-api`/,
        );
      },
    ),
  );
  assert.equal(digestMismatch(file, file, core12), undefined);
});

test("a fetched file the lock entry does not list (a files item removed by hand) is told at that entry's files in the lockfile, not without a position, with a hint that works (lock alone failed alike)", () => {
  const where = (sha256: string) =>
    sha256 === core12.files[0].sha256 ? { file: 'capi-gitops.lock.yaml', line: 27, column: 17 } : undefined;
  assert.throws(
    () => verifyLockedArtifacts(core12, [{ name: 'core-components.yaml', url: 'c', sha256: digest('c') }], where),
    failsWith(/core-components\.yaml was fetched but the lockfile does not list it/, (error) => {
      const [problem] = error.diagnostics;
      assert.deepEqual([problem.file, problem.line, problem.column], ['capi-gitops.lock.yaml', 27, 17]);
      // `lock` alone keeps the entry as locked, and failed the same way: the entry must go first
      assert.match(problem.hint ?? '', /delete the entry of cluster-api from it and run `capi-gitops lock`/);
    }),
  );
  // an entry that lists no file (files: []) is told at the entry itself
  const entryAt = () => ({ file: 'capi-gitops.lock.yaml', line: 16, column: 5 });
  assert.throws(
    () => verifyLockedArtifacts({ ...core12, files: [] }, [{ name: 'metadata.yaml', url: 'm', sha256: digest('m') }], where, entryAt),
    failsWith(/metadata\.yaml was fetched but the lockfile does not list it/, (error) => {
      const [problem] = error.diagnostics;
      assert.deepEqual([problem.file, problem.line, problem.column], ['capi-gitops.lock.yaml', 16, 5]);
    }),
  );
});

test('all fetched files of a locked component are checked together; a file the lock does not list fails too', () => {
  const locked: LockEntry = { ...core12, files: [...core12.files, { name: 'core-components.yaml', url: 'c', sha256: digest('c') }] };
  assert.doesNotThrow(() => verifyLockedArtifacts(locked, [{ name: 'core-components.yaml', url: 'c', sha256: digest('c') }]));
  assert.throws(
    () =>
      verifyLockedArtifacts(locked, [
        { name: 'metadata.yaml', url: 'm', sha256: digest('x') },
        { name: 'core-components.yaml', url: 'c', sha256: digest('y') },
        { name: 'extra.yaml', url: 'e', sha256: digest('e') },
      ]),
    failsWith(/re-tagged/, (error) => {
      assert.equal(error.diagnostics.length, 3);
      assert.match(error.diagnostics[2].message, /extra\.yaml was fetched but the lockfile does not list it/);
    }),
  );
});
