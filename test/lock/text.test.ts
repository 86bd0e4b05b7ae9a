/**
 * The lockfile writer without the `yaml` library (src/lock/text.ts) against the library's
 * `YAML.stringify` (lockfile.ts `libraryLockfileText`): wherever it writes a text, the bytes are
 * the library's; where it cannot be sure, it writes none and serializeLockfile falls back to it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import YAML from 'yaml';
import { fastDataText, fastLockfileText } from '../../src/resolve/lock/text.js';
import { libraryLockfileText, serializeLockfile, type LockEntry } from '../../src/resolve/lock/lockfile.js';

const SHA = 'a72e682fce88cdb016be2e90f596ac1b4b0f6c840263b35d107b9e81572ea3db';

function entry(overrides: Partial<LockEntry> = {}): LockEntry {
  return {
    kind: 'CoreProvider',
    name: 'cluster-api',
    namespace: 'capi-system',
    requestedVersion: 'v1.12.0',
    version: 'v1.12.0',
    contract: 'v1beta2',
    source: { type: 'url', url: 'https://github.com/kubernetes-sigs/cluster-api/releases/v1.12.0/core-components.yaml' },
    files: [
      { name: 'metadata.yaml', url: 'https://github.com/kubernetes-sigs/cluster-api/releases/v1.12.0/metadata.yaml', sha256: SHA },
      { name: 'core-components.yaml', url: '../repo/cluster-api/v1.12.0/core-components.yaml', sha256: SHA.replace(/a/g, '1') },
    ],
    ...overrides,
  };
}

/** Strings that need quoting or escaping, or look like other types, in YAML. */
const AWKWARD = [
  '',
  ' leading',
  'trailing ',
  'a: b',
  'a:b',
  'ends:',
  'x #y',
  'x#y',
  '#comment',
  '- item',
  '-',
  '?',
  'yes',
  'no',
  'on',
  'true',
  'False',
  'null',
  '~',
  '123',
  '0123',
  '1e3',
  '12e45',
  '1.5',
  '.5',
  '0x1F',
  '0o17',
  '.inf',
  '-.Inf',
  '.nan',
  '2024-01-02',
  '1:30',
  'v1.12.0',
  '@scope',
  '`tick',
  '%percent',
  '!tag',
  '&anchor',
  '*alias',
  '|block',
  '>folded',
  "'single",
  '"double',
  'it\'s "quoted"',
  '[flow]',
  '{flow}',
  'a,b',
  '---',
  '---x',
  '...',
  'multi\nline',
  'tab\there',
  'two  spaces',
  'ünïcödé',
  'emoji 🚀',
  'x'.repeat(300),
  'word '.repeat(40).trim(),
  'https://example.com/a?b=c&d=e#frag',
  'oci://ghcr.io/org/repo:v1.0.0',
  '3' + SHA.slice(1).replace(/[a-f]/g, '7'),
  SHA.slice(0, 10) + 'e' + '5'.repeat(53),
];

test('every text the fast lock writer writes is the library’s, byte for byte', () => {
  let written = 0;
  const check = (entries: LockEntry[]) => {
    const fast = fastLockfileText({ entries });
    const library = libraryLockfileText({ entries });
    if (fast !== undefined) {
      written++;
      assert.equal(fast, library);
    }
    assert.equal(serializeLockfile({ entries }), library);
  };
  for (const text of AWKWARD) {
    check([entry({ requestedVersion: text })]);
    check([entry({ name: text, namespace: text })]);
    check([entry({ source: { type: 'oci', oci: text } })]);
    check([entry({ files: [{ name: text, url: text, sha256: text }] })]);
    check([entry({ clusters: [text, 'prod'] })]);
    check([entry({ source: { type: 'selector', selector: { matchLabels: { [text]: text } } } })]);
    check([
      entry({
        source: {
          type: 'selector',
          selector: {
            matchExpressions: [
              { key: text, operator: 'In', values: [text, 'b'] },
              { key: 'k', operator: 'Exists' },
            ],
          },
        },
      }),
    ]);
  }
  // the common shapes are written here, not by the library
  const common: LockEntry[][] = [
    [],
    [entry()],
    [entry({ contract: undefined, kind: 'CertManager', name: 'cert-manager', namespace: 'cert-manager' }), entry()],
    [entry({ source: { type: 'registry', url: 'https://github.com/kubernetes-sigs/cluster-api/releases/latest/core-components.yaml' } })],
    [entry({ source: { type: 'oci', oci: 'ghcr.io/org/providers:v1.0.0' } })],
    [entry({ clusters: ['prod', 'dev'] }), entry({ clusters: ['staging'], version: 'v1.11.0' })],
    [entry({ files: [] })],
    [entry({ source: { type: 'selector', selector: {} } })],
    [
      entry({
        source: {
          type: 'selector',
          selector: {
            matchLabels: { 'provider.cluster.x-k8s.io/name': 'cluster-api', 'provider.cluster.x-k8s.io/type': 'core' },
            matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['b', 'a'] }],
          },
        },
      }),
    ],
  ];
  for (const entries of common) {
    assert.notEqual(fastLockfileText({ entries }), undefined, JSON.stringify(entries));
    check(entries);
  }
  assert.ok(written > common.length, 'awkward strings that need no quoting are written here too');
});

test('strings the library would quote, escape or type otherwise are left to it', () => {
  for (const text of ['', '123', '1e3', 'a: b', 'x #y', ' leading', 'multi\nline', 'ünïcödé', '- item', '---x', 'null', '0x1F']) {
    assert.equal(fastDataText({ key: text }), undefined, JSON.stringify(text));
    assert.equal(fastDataText({ [text]: 'value' }), undefined, JSON.stringify(text));
  }
  for (const text of ['v1.12.0', 'a:b', 'x#y', 'https://example.com/a?b=c&d=e#frag', 'on1', 'yes', 'two words', '1:30']) {
    assert.equal(fastDataText({ key: text }), YAML.stringify({ key: text }, { version: '1.2', lineWidth: 0, indentSeq: true }));
  }
});
