import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, chmod, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LOCKFILE_NAME } from '../../../src/manifest/files.js';
import { lockfilePath, parseLockfile, readLockfile, serializeLockfile, writeLockfile } from '../../../src/resolve/lock/lockfile.js';
import { type LockEntry, type Lockfile } from '../../../src/resolve/lock/types.js';
import { sha256Hex } from '../../../src/core/digest.js';
import { failsWith } from '../../helpers/assertions.js';

const digest = (text: string): string => sha256Hex(text);

const core: LockEntry = {
  kind: 'CoreProvider',
  name: 'cluster-api',
  namespace: 'capi-system',
  requestedVersion: '',
  version: 'v1.12.0',
  contract: 'v1beta2',
  source: { type: 'registry', url: 'https://github.com/kubernetes-sigs/cluster-api/releases/latest/core-components.yaml' },
  files: [
    { name: 'metadata.yaml', url: 'repo/cluster-api/v1.12.0/metadata.yaml', sha256: digest('core metadata') },
    { name: 'core-components.yaml', url: 'repo/cluster-api/v1.12.0/core-components.yaml', sha256: digest('core components') },
  ],
};
const bootstrap: LockEntry = {
  kind: 'BootstrapProvider',
  name: 'kubeadm',
  namespace: 'capi-kubeadm-bootstrap-system',
  requestedVersion: '~1.10',
  version: 'v1.10.4',
  contract: 'v1beta1',
  source: {
    type: 'selector',
    selector: { matchLabels: { 'provider.cluster.x-k8s.io/version': 'v1.10.4', 'provider.cluster.x-k8s.io/name': 'kubeadm' } },
  },
  files: [
    {
      name: 'metadata.yaml',
      url: 'configmap:capi-kubeadm-bootstrap-system/bootstrap-kubeadm-v1.10.4#metadata',
      sha256: digest('bootstrap metadata'),
    },
    {
      name: 'bootstrap-components.yaml',
      url: 'configmap:capi-kubeadm-bootstrap-system/bootstrap-kubeadm-v1.10.4#components',
      sha256: digest('bootstrap components'),
    },
  ],
};
const certManager: LockEntry = {
  kind: 'CertManager',
  name: 'cert-manager',
  namespace: 'cert-manager',
  requestedVersion: 'v1.13.0',
  version: 'v1.13.0',
  source: { type: 'url', url: '../corpus/repository/cert-manager/v1.13.0/cert-manager.yaml' },
  files: [
    { name: 'cert-manager.yaml', url: '../corpus/repository/cert-manager/v1.13.0/cert-manager.yaml', sha256: digest('cert-manager') },
  ],
};

const EXPECTED_TEXT = `# Written by capi-gitops (\`capi-gitops lock\`, or render when the manifest changes). Do not edit by hand.
apiVersion: capi-gitops.dev/v1alpha1
kind: Lock
entries:
  - kind: CertManager
    name: cert-manager
    namespace: cert-manager
    requestedVersion: v1.13.0
    version: v1.13.0
    source:
      url: ../corpus/repository/cert-manager/v1.13.0/cert-manager.yaml
    files:
      - name: cert-manager.yaml
        url: ../corpus/repository/cert-manager/v1.13.0/cert-manager.yaml
        sha256: ${digest('cert-manager')}
  - kind: CoreProvider
    name: cluster-api
    namespace: capi-system
    requestedVersion: ""
    version: v1.12.0
    contract: v1beta2
    source:
      registry: https://github.com/kubernetes-sigs/cluster-api/releases/latest/core-components.yaml
    files:
      - name: core-components.yaml
        url: repo/cluster-api/v1.12.0/core-components.yaml
        sha256: ${digest('core components')}
      - name: metadata.yaml
        url: repo/cluster-api/v1.12.0/metadata.yaml
        sha256: ${digest('core metadata')}
  - kind: BootstrapProvider
    name: kubeadm
    namespace: capi-kubeadm-bootstrap-system
    requestedVersion: ~1.10
    version: v1.10.4
    contract: v1beta1
    source:
      selector:
        matchLabels:
          provider.cluster.x-k8s.io/name: kubeadm
          provider.cluster.x-k8s.io/version: v1.10.4
    files:
      - name: bootstrap-components.yaml
        url: configmap:capi-kubeadm-bootstrap-system/bootstrap-kubeadm-v1.10.4#components
        sha256: ${digest('bootstrap components')}
      - name: metadata.yaml
        url: configmap:capi-kubeadm-bootstrap-system/bootstrap-kubeadm-v1.10.4#metadata
        sha256: ${digest('bootstrap metadata')}
`;

async function tempDir(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'capi-gitops-lock-'));
}

test('the lock text: install order (cert-manager first), files by name, fixed key order, no timestamps, final newline', () => {
  const text = serializeLockfile({ entries: [bootstrap, core, certManager] });
  assert.equal(text, EXPECTED_TEXT);
});

test('the lock text does not depend on input order, and the input is not modified', () => {
  const before = structuredClone(bootstrap);
  const a = serializeLockfile({ entries: [core, bootstrap, certManager] });
  const b = serializeLockfile({ entries: [certManager, { ...bootstrap, files: [...bootstrap.files].reverse() }, core] });
  assert.equal(a, b);
  assert.deepEqual(bootstrap, before);
});

test('a selector is written in canonical form: labels and expressions sorted, values deduplicated', () => {
  const entry: LockEntry = {
    ...bootstrap,
    source: {
      type: 'selector',
      selector: {
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['b', 'a', 'b'] },
          { key: 'env', operator: 'Exists' },
        ],
      },
    },
  };
  const text = serializeLockfile({ entries: [entry] });
  assert.deepEqual(parseLockfile(text, 'lock.yaml').entries[0].source, {
    type: 'selector',
    selector: {
      matchExpressions: [
        { key: 'env', operator: 'Exists' },
        { key: 'tier', operator: 'In', values: ['a', 'b'] },
      ],
    },
  });
  assert.match(
    text,
    /matchExpressions:\n {10}- key: env\n {12}operator: Exists\n {10}- key: tier\n {12}operator: In\n {12}values:\n {14}- a\n {14}- b\n/,
  );
});

test('parse(serialize(lock)) gives the lock back, sorted', () => {
  const lock = parseLockfile(serializeLockfile({ entries: [bootstrap, core, certManager] }), 'lock.yaml');
  assert.equal(lock.apiVersion, 'capi-gitops.dev/v1alpha1');
  assert.equal(lock.kind, 'Lock');
  assert.deepEqual(
    lock.entries.map((e) => e.kind),
    ['CertManager', 'CoreProvider', 'BootstrapProvider'],
  );
  assert.deepEqual(lock.entries[1], { ...core, files: [core.files[1], core.files[0]] });
  assert.equal(lock.entries[0].contract, undefined);
  assert.equal(lock.entries[2].requestedVersion, '~1.10');
  assert.equal(serializeLockfile(lock), EXPECTED_TEXT);
});

test('requested versions that look like other YAML (ranges, numbers, booleans) stay strings', () => {
  for (const requestedVersion of ['>=1.10 <1.13', '*', '1.10', 'yes', '~1', '- 1', '1.x || 2.x']) {
    const text = serializeLockfile({ entries: [{ ...core, requestedVersion }] });
    assert.equal(parseLockfile(text, 'lock.yaml').entries[0].requestedVersion, requestedVersion, text);
  }
});

test('an empty lock (no providers, cert-manager disabled) round-trips', () => {
  const text = serializeLockfile({ entries: [] });
  assert.match(text, /\nentries: \[\]\n$/);
  assert.deepEqual(parseLockfile(text, 'lock.yaml').entries, []);
});

test('readLockfile: a missing file is undefined; an existing one is parsed', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, LOCKFILE_NAME);
    assert.equal(await readLockfile(file), undefined);
    await writeFile(file, EXPECTED_TEXT);
    const lock = (await readLockfile(file)) as Lockfile;
    assert.equal(lock.entries.length, 3);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('malformed YAML is an error with the file, line and column', () => {
  const text = 'apiVersion: capi-gitops.dev/v1alpha1\nkind: Lock\nentries:\n  - kind: [CoreProvider\n';
  assert.throws(
    () => parseLockfile(text, '/x/capi-gitops.lock.yaml'),
    failsWith(/^\/x\/capi-gitops\.lock\.yaml:\d+:\d+: error: invalid YAML/, (error) => {
      assert.equal(error.diagnostics[0].file, '/x/capi-gitops.lock.yaml');
      assert.ok((error.diagnostics[0].line ?? 0) >= 4);
      assert.match(error.diagnostics[0].hint ?? '', /capi-gitops lock/);
    }),
  );
});

test('a tab indenting a lockfile line is one problem at that line, with the hint to replace it, not the parser errors that follow from it (go-yaml, as kubectl reads YAML, stops at the first)', () => {
  const text = EXPECTED_TEXT.replace('\n  - kind:', '\n\t- kind:');
  const tabLine = text.split('\n').findIndex((line) => line.startsWith('\t')) + 1;
  assert.ok(tabLine > 0);
  assert.throws(
    () => parseLockfile(text, '/x/capi-gitops.lock.yaml'),
    failsWith(/invalid YAML/, (error) => {
      assert.equal(error.diagnostics.length, 1, error.message);
      const [problem] = error.diagnostics;
      assert.deepEqual([problem!.line, problem!.column], [tabLine, 1]);
      assert.match(problem!.message, /^invalid YAML: tabs are not allowed as indentation/);
      assert.match(problem!.hint ?? '', new RegExp(`^replace the tab at the start of line ${tabLine} with spaces`));
    }),
  );
});

test('a lockfile with Git conflict markers is one problem per conflict, with a hint that keeps one side and relocks', () => {
  const text = [
    'apiVersion: capi-gitops.dev/v1alpha1', // 1
    'kind: Lock', // 2
    'entries:', // 3
    '  - kind: CoreProvider', // 4
    '<<<<<<< HEAD', // 5
    '    version: v1.10.4', // 6
    '=======', // 7
    '    version: v1.12.0', // 8
    '>>>>>>> feat-b', // 9
    '    files:', // 10
    '<<<<<<< HEAD', // 11
    '      - {name: metadata.yaml, url: a, sha256: x}', // 12
    '=======', // 13
    '      - {name: metadata.yaml, url: b, sha256: y}', // 14
    '>>>>>>> feat-b', // 15
  ].join('\n');
  assert.throws(
    () => parseLockfile(text, '/x/capi-gitops.lock.yaml'),
    failsWith(/unresolved Git merge conflict/, (error) => {
      assert.deepEqual(
        error.diagnostics.map((d) => `${d.line}:${d.column} ${d.message}`),
        ['5:1 unresolved Git merge conflict (lines 5-9)', '11:1 unresolved Git merge conflict (lines 11-15)'],
      );
      assert.match(error.diagnostics[0].hint ?? '', /git checkout --ours -- \/x\/capi-gitops\.lock\.yaml.*`capi-gitops lock`/);
    }),
  );
});

test('a lock that does not fit the model lists every problem at its line and column', () => {
  const text = [
    'apiVersion: capi-gitops.dev/v2', // 1
    'kind: Lock', // 2
    'entries:', // 3
    '  - kind: CoreProvider', // 4
    '    name: cluster-api', // 5
    '    namespace: capi-system', // 6
    '    requestedVersion: ""', // 7
    '    version: v1.12.0', // 8
    '    contract: v1beta2', // 9
    '    colour: blue', // 10
    '    source: {url: a, oci: b}', // 11
    '    files:', // 12
    '      - {name: metadata.yaml, url: x, sha256: ABC}', // 13
    '  - kind: CoreProvider', // 14
    '    name: cluster-api', // 15
    '    namespace: capi-system', // 16
    '    requestedVersion: 1.12', // 17
    '    version: latest', // 18
    '    source: {registry: r}', // 19
    '    files: []', // 20
  ].join('\n');
  assert.throws(
    () => parseLockfile(text, 'lock.yaml'),
    failsWith(/unsupported lockfile apiVersion/, (error) => {
      const at = error.diagnostics.map((d) => `${d.line}:${d.column} ${d.path ?? ''} ${d.message}`);
      assert.deepEqual([...at].sort(), [
        '10:5 entries[0] unknown field "colour"',
        '11:13 entries[0].source a source has exactly one of url, registry, oci and selector, found 2',
        '13:47 entries[0].files[0].sha256 not a sha256 digest',
        '14:5 entries[1] missing field "contract"',
        '17:23 entries[1].requestedVersion expected a string',
        '18:14 entries[1].version "latest" is not a semantic version',
        '1:13 apiVersion unsupported lockfile apiVersion "capi-gitops.dev/v2"',
      ]);
    }),
  );
});

test('a mistyped kind in a hand-edited lock is one problem, at the kind (not also a missing contract, which only some kinds have)', () => {
  const text = [
    'apiVersion: capi-gitops.dev/v1alpha1',
    'kind: Lock',
    'entries:',
    '  - kind: CertManagr',
    '    name: cert-manager',
    '    namespace: cert-manager',
    '    requestedVersion: v1.13.0',
    '    version: v1.13.0',
    '    source: {url: https://example.test/cert-manager.yaml}',
    '    files: []',
  ].join('\n');
  assert.throws(
    () => parseLockfile(text, 'lock.yaml'),
    failsWith(/unknown kind "CertManagr"/, (error) => {
      assert.deepEqual(
        error.diagnostics.map((d) => `${d.line}:${d.column} ${d.message}`),
        ['4:11 unknown kind "CertManagr"'],
      );
    }),
  );
});

test('a component locked twice is an error at the second entry', () => {
  const entry = (line: string) =>
    `  - {kind: IPAMProvider, name: in-cluster, namespace: ${line}, requestedVersion: "", version: v1.0.0, contract: v1beta1, source: {registry: r}, files: []}`;
  const text = ['apiVersion: capi-gitops.dev/v1alpha1', 'kind: Lock', 'entries:', entry('ipam'), entry('other'), entry('ipam')].join('\n');
  assert.throws(
    () => parseLockfile(text, 'lock.yaml'),
    failsWith(/IPAMProvider ipam\/in-cluster appears twice/, (error) => {
      assert.equal(error.diagnostics.length, 1);
      assert.equal(error.diagnostics[0].line, 6);
    }),
  );
});

test('an empty lockfile is malformed, not absent', () => {
  assert.throws(() => parseLockfile('', 'lock.yaml'), failsWith(/the lockfile is empty/));
});

test('writeLockfile writes through a temporary file and a rename, leaving nothing behind', async () => {
  const dir = await tempDir();
  try {
    const file = lockfilePath(dir);
    assert.equal(path.basename(file), 'capi-gitops.lock.yaml');
    assert.equal(await writeLockfile(file, { entries: [core, certManager, bootstrap] }), true);
    assert.equal(await readFile(file, 'utf8'), EXPECTED_TEXT);
    assert.deepEqual(await readdir(dir), ['capi-gitops.lock.yaml']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('writeLockfile leaves an unchanged lock alone and keeps the mode of an existing one', async () => {
  const dir = await tempDir();
  try {
    const file = lockfilePath(dir);
    await writeLockfile(file, { entries: [core] });
    await chmod(file, 0o640);
    const inode = (await stat(file)).ino;
    assert.equal(await writeLockfile(file, { entries: [core] }), false);
    assert.equal((await stat(file)).ino, inode, 'not replaced');
    assert.equal(await writeLockfile(file, { entries: [core, bootstrap] }), true);
    assert.notEqual((await stat(file)).ino, inode, 'replaced by rename');
    assert.equal((await stat(file)).mode & 0o777, 0o640);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('writeLockfile into a missing directory fails with the path and leaves no temporary file', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, 'missing', LOCKFILE_NAME);
    await assert.rejects(
      writeLockfile(file, { entries: [core] }),
      failsWith(/cannot write the lockfile/, (error) => assert.equal(error.diagnostics[0].file, file)),
    );
    assert.deepEqual(await readdir(dir), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
