import { test } from 'node:test';
import assert from 'node:assert/strict';
import { objectChanges, objectRefs } from '../../src/review/object-changes.js';

const cm = (name: string, data: string, namespace = 'ns') =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\ndata:\n  key: ${data}\n`;
const before = (files: Record<string, string>) => new Map(Object.entries(files).map(([p, text]) => [p, Buffer.from(text)]));

test('objects are matched by group, kind, namespace and name: a move between files or a new header comment is no change', () => {
  const files = new Map([
    ['b.yaml', cm('moved', 'same')],
    ['c.yaml', '# a new provenance header\n' + cm('header', 'same')],
  ]);
  const changes = objectChanges(
    { written: ['b.yaml', 'c.yaml'], previous: before({ 'a.yaml': cm('moved', 'same'), 'c.yaml': cm('header', 'same') }) },
    files,
  );
  assert.deepEqual(changes, []);
});

test('added, changed and removed objects, sorted by file, kind, namespace and name; cluster-scoped ones have no namespace', () => {
  const ns = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: fresh\n';
  const files = new Map([
    ['a.yaml', cm('kept', 'new') + '---\n' + cm('added', 'x')],
    ['n.yaml', ns],
  ]);
  const changes = objectChanges(
    {
      written: ['a.yaml', 'n.yaml'],
      previous: before({ 'a.yaml': cm('kept', 'old') + '---\n' + cm('gone', 'y'), 'z.yaml': cm('dropped', 'z', 'other') }),
    },
    files,
  );
  assert.deepEqual(
    changes.map((c) => `${c.change} ${c.kind} ${c.namespace}/${c.name} ${c.file}`),
    [
      'added ConfigMap ns/added a.yaml',
      'removed ConfigMap ns/gone a.yaml',
      'changed ConfigMap ns/kept a.yaml',
      'added Namespace /fresh n.yaml',
      'removed ConfigMap other/dropped z.yaml',
    ],
  );
  assert.equal(changes.find((c) => c.name === 'fresh')?.namespace, '');
});

test('files that are not YAML (README.md, .gitattributes) hold no objects', () => {
  assert.deepEqual(
    objectChanges({ written: ['README.md'], previous: before({ 'README.md': 'old' }) }, new Map([['README.md', 'kind: ConfigMap\n']])),
    [],
  );
});

test('kustomization.yaml files are layout, not objects: a new resource list is no object change', () => {
  const kustomization = (resources: string[]) =>
    `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n${resources.map((r) => `- ${r}\n`).join('')}`;
  // by its name (never parsed), in any folder, and by its group under any other name
  const names = ['kustomization.yaml', 'sub/kustomization.yml', 'components.yaml'];
  const files = new Map(names.map((name) => [name, kustomization(['a', 'b'])]));
  assert.deepEqual(
    objectChanges({ written: names, previous: before(Object.fromEntries(names.map((n) => [n, kustomization(['a'])]))) }, files),
    [],
  );
  assert.deepEqual(objectRefs('sub/kustomization.yml', 'not: [yaml'), []);
});

test('a fleet: every cluster has its own copy of an object, so a change in one cluster is reported there, and the others are no change', () => {
  const files = new Map([
    ['clusters/eu-1/01-cluster-api/configmap-shared.yaml', cm('shared', 'same')],
    ['clusters/us-1/01-cluster-api/configmap-shared.yaml', cm('shared', 'new')],
    ['clusters/lab-1/01-cluster-api/configmap-shared.yaml', cm('shared', 'same')],
  ]);
  const previous = before({
    'clusters/eu-1/01-cluster-api/configmap-shared.yaml': cm('shared', 'same'),
    'clusters/us-1/01-cluster-api/configmap-shared.yaml': cm('shared', 'same'),
    'clusters/gone-1/01-cluster-api/configmap-shared.yaml': cm('shared', 'same'),
  });
  const changes = objectChanges({ written: [...files.keys()], previous }, files);
  assert.deepEqual(
    changes.map((c) => `${c.change} ${c.name} ${c.file}`),
    [
      'removed shared clusters/gone-1/01-cluster-api/configmap-shared.yaml',
      'added shared clusters/lab-1/01-cluster-api/configmap-shared.yaml',
      'changed shared clusters/us-1/01-cluster-api/configmap-shared.yaml',
    ],
  );
});

test('a created file is read for its objects identities only, and whole when a document is shaped otherwise or an object moved into it', () => {
  const specFirst = 'spec:\n  x: 1\nkind: ConfigMap\napiVersion: v1\nmetadata:\n  name: odd\n  namespace: ns\n';
  const flowMetadata = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flow, namespace: ns}\ndata: {a: b}\n';
  const files = new Map([
    ['new.yaml', cm('fresh', 'x') + '---\n' + specFirst + '---\n' + flowMetadata],
    ['moved-same.yaml', cm('same', 'v')],
    ['moved-edited.yaml', cm('edited', 'new')],
  ]);
  const changes = objectChanges(
    {
      written: [...files.keys()],
      previous: before({ 'old.yaml': cm('same', 'v') + '---\n' + cm('edited', 'old') }),
    },
    files,
  );
  assert.deepEqual(
    changes.map((c) => `${c.change} ${c.kind} ${c.namespace}/${c.name} ${c.file}`),
    [
      'changed ConfigMap ns/edited moved-edited.yaml',
      'added ConfigMap ns/flow new.yaml',
      'added ConfigMap ns/fresh new.yaml',
      'added ConfigMap ns/odd new.yaml',
    ],
  );
});
