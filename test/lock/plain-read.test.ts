/**
 * The render path reads the lockfile without the `yaml` library (src/lock/lockfile.ts
 * plainLockfile): the fast parser where YAML 1.1 and the library's 1.2 reading agree, checked by
 * the same reader. It must give exactly the library's lock, or nothing (then the library reads
 * it and reports each problem at its position). Checked on the example's lock, every lock the
 * writer makes from varied entries, and edits of them a person or a merge could make.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseLockfile, serializeLockfile, type LockEntry, type Lockfile } from '../../src/resolve/lock/lockfile.js';
import { plainLockfile } from '../../src/resolve/lock/lockfile.js';
import { PROJECT_ROOT } from '../helpers/paths.js';

const EXAMPLE_LOCK = readFileSync(path.join(PROJECT_ROOT, 'examples', 'management-cluster', 'capi-gitops.lock.yaml'), 'utf8');

/** The library's lock, or undefined when it refuses the text. */
function libraryLock(text: string): Lockfile | undefined {
  try {
    return parseLockfile(text, 'lock.yaml');
  } catch {
    return undefined;
  }
}

function assertAgrees(text: string): Lockfile | undefined {
  const plain = plainLockfile(text, 'lock.yaml');
  if (plain !== undefined) assert.deepEqual(plain, libraryLock(text), `the plain reading differs from the library's for:\n${text}`);
  return plain;
}

const entry = (overrides: Partial<LockEntry>): LockEntry => ({
  kind: 'InfrastructureProvider',
  name: 'docker',
  namespace: 'capd-system',
  requestedVersion: 'v1.12.0',
  version: 'v1.12.0',
  contract: 'v1beta2',
  source: {
    type: 'url',
    url: 'https://github.com/kubernetes-sigs/cluster-api/releases/v1.12.0/infrastructure-components-development.yaml',
  },
  files: [{ name: 'infrastructure-components-development.yaml', url: 'https://example.com/a.yaml', sha256: 'a'.repeat(64) }],
  ...overrides,
});

const WRITTEN: Lockfile['entries'][] = [
  [entry({})],
  [entry({ requestedVersion: '' }), entry({ kind: 'CoreProvider', name: 'cluster-api', namespace: 'capi-system' })],
  [entry({ source: { type: 'oci', oci: 'registry.example.com/capi/docker:v1.12.0' } })],
  [entry({ source: { type: 'registry', url: '../repository/docker/latest/infrastructure-components.yaml' } })],
  [
    entry({
      source: {
        type: 'selector',
        selector: {
          matchLabels: { 'provider.cluster.x-k8s.io/name': 'docker' },
          matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }],
        },
      },
    }),
  ],
  [entry({ clusters: ['eu-1', 'us-1'] }), entry({ clusters: ['ap-1'], version: 'v1.11.0', requestedVersion: '~1.11' })],
  [entry({ requestedVersion: '>=1.10.0 <2.0.0', name: 'yes', namespace: 'on' })],
  [entry({ name: 'with: colon', files: [{ name: '#hash', url: 'u', sha256: 'b'.repeat(64) }] })],
  [entry({ name: 'ünïcode' })],
  [entry({ kind: 'CertManager', name: 'cert-manager', namespace: 'cert-manager', contract: undefined })],
  // local artifacts: the file's url relative to the lock (`../../`), the source's as a file:// URL
  [
    entry({
      source: { type: 'url', url: 'file:///srv/corpus/core-components.yaml' },
      files: [{ name: 'core-components.yaml', url: '../../srv/corpus/core-components.yaml', sha256: 'c'.repeat(64) }],
    }),
  ],
];

test('the example lock and every lock the writer makes read the same without the library, and without it at all for the common shapes', () => {
  assert.ok(assertAgrees(EXAMPLE_LOCK), "the example's lock is read without the library");
  for (const entries of WRITTEN) {
    const text = serializeLockfile({ entries });
    const plain = assertAgrees(text);
    // strings the library writes plainly are read plainly; quoted ones may be left to the library
    if (!/"|'/.test(text)) assert.ok(plain, `read without the library:\n${text}`);
  }
});

test('edits a person or a merge could make: the plain reading gives the library lock or declines, never another lock', () => {
  const base = EXAMPLE_LOCK;
  const edits: [string, string][] = [
    ['    version: v0.1.0\n', '    version: v0.1\n'],
    ['    version: v0.1.0\n', '    version: v0.1.0\n    version: v0.1.0\n'],
    ['    version: v0.1.0\n', '    version:\n'],
    ['    version: v0.1.0\n', '    version: null\n'],
    ['    version: v0.1.0\n', '    version: 1.0\n'],
    ['    version: v0.1.0\n', '    version: 010\n'],
    ['    version: v0.1.0\n', "    version: 'v0.1.0'\n"],
    ['    version: v0.1.0\n', '    version: "v0.1.0"\n'],
    ['    version: v0.1.0\n', '    version: !!str v0.1.0\n'],
    ['    version: v0.1.0\n', '    version: &v v0.1.0\n'],
    ['    version: v0.1.0\n', '    version: v0.1.0 # pinned\n'],
    ['    version: v0.1.0\n', '    version: v0.1.0\n    extra: true\n'],
    ['kind: Lock\n', 'kind: Lockfile\n'],
    ['kind: Lock\n', 'kind: Lock\nkind: Lock\n'],
    ['apiVersion: capi-gitops.dev/v1alpha1\n', ''],
    ['entries:\n', 'entries: []\nunused:\n'],
    ['        sha256: 2cbf', '        sha256: 2CBF'],
    ['        sha256: 2cbf', '        sha256: yes2cbf'],
    ['    requestedVersion: ""\n', '    requestedVersion:\n'],
    ['    requestedVersion: ""\n', "    requestedVersion: ''\n"],
    ['    requestedVersion: ""\n', '    requestedVersion: ~\n'],
    ['    requestedVersion: ""\n', '    requestedVersion: yes\n'],
    ['    namespace: cert-manager\n', '    namespace: cert-manager\n    1: x\n'],
    ['    namespace: cert-manager\n', '    namespace: {a: b}\n'],
    ['    namespace: cert-manager\n', '    namespace: [a]\n'],
    ['      url: ../repository/cert-manager/v0.1.0/cert-manager.yaml\n', '      url: ../a\n      oci: b\n'],
    ['# Written', '%YAML 1.1\n---\n# Written'],
    ['\n', '\r\n'],
  ];
  for (const [from, to] of edits) {
    assert.ok(base.includes(from), from);
    assertAgrees(base.replace(from, to));
    assertAgrees(base.replaceAll(from, to));
  }
  for (const text of ['', '---\n', 'null\n', '[]\n', 'a: b\n', 'apiVersion: capi-gitops.dev/v1alpha1\nkind: Lock\nentries: []\n'])
    assertAgrees(text);
});
