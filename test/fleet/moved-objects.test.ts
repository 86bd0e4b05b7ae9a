/**
 * In the shared layout an object moves between a base and a cluster's directory (or between
 * bases) when what the clusters share changes. A move is no change; a changed object is one
 * change, for the clusters it reaches; a version is never "removed" while clusters render it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { render } from '../../src/app/render.js';
import { formatMarkdown, formatText, reviewChanges } from '../../src/review/index.js';
import { objectChanges } from '../../src/review/object-changes.js';
import { tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { readTree } from '../helpers/tree.js';
import { coreManifest, localCoreRelease } from '../helpers/local-release.js';

const COMPONENTS = `apiVersion: v1
kind: Namespace
metadata: {name: capi-system}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: capi-system}
data: {mode: shared}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: capi-controller-manager, namespace: capi-system}
spec:
  selector: {matchLabels: {app: capi}}
  template:
    metadata: {labels: {app: capi}}
    spec:
      containers:
      - name: manager
        image: registry.example/capi:v0.1.0
        args: [--leader-elect]
`;

const coreRelease = () => localCoreRelease(COMPONENTS);

/** Four clusters; those in `verbose` give the core provider's manager a verbosity of their own. */
function fleet(url: string, verbose: string[]): string {
  const clusters = ['eu-1', 'us-1', 'ap-1', 'lab-1'].map((name) =>
    verbose.includes(name)
      ? `- name: ${name}\n  providers: {CoreProvider/cluster-api: {spec: {manager: {verbosity: 5}}}}`
      : `- name: ${name}`,
  );
  return coreManifest(url, `clusters:\n${clusters.join('\n')}\n`);
}

/** Renders the fleet with `first` verbose, then with `verbose` (only `only` rendered, when given). */
async function change(verbose: string[], only?: string[], first: string[] = []) {
  const url = coreRelease();
  const dir = writeTempManifest({ 'fleet.yaml': fleet(url, first) });
  const out = path.join(tempDir(), 'out');
  await render({ manifestPaths: [dir] }, out);
  const before = readTree(out);
  writeFileSync(path.join(dir, 'fleet.yaml'), fleet(url, verbose));
  // as the CLI runs it: the clusters left out are read back from the output
  const result = await render({ manifestPaths: [dir], outputDir: out, ...(only ? { clusters: only } : {}) }, out);
  return { before, after: readTree(out), result };
}

const listed = (changes: { change: string; kind: string; file: string; clusters?: string[] }[]) =>
  changes.map((c) => `${c.change} ${c.kind} ${c.file}${c.clusters ? ` (${c.clusters.join(', ')})` : ''}`);

test('render --cluster lab-1: its Deployment leaving the shared base is one changed object, the moves of the others none', async () => {
  const { before, result } = await change(['lab-1'], ['lab-1']);
  // the base all three shared is gone: the objects moved
  assert.ok([...before.keys()].some((f) => result.summary.removed.includes(f) && f.startsWith('bases/')));
  assert.deepEqual(listed(objectChanges(result.summary, result.written)), [
    'changed Deployment clusters/lab-1/01-cluster-api/deployment-capi-controller-manager.yaml',
  ]);
});

const SHARED_CHANGE =
  /^changed Deployment bases\/cluster-api\/v0\.1\.0-[0-9a-f]{12}\/deployment-capi-controller-manager\.yaml \(eu-1, us-1\)$/;

test('render: a change two clusters share, moved into a base of their own, is one changed object naming them', async () => {
  const { result } = await change(['eu-1', 'us-1']);
  const changes = listed(objectChanges(result.summary, result.written));
  assert.equal(changes.length, 1, changes.join('\n'));
  assert.match(changes[0]!, SHARED_CHANGE);
});

test('render: a cluster leaving a base the others keep (its files untouched) for one it shares with another is one changed object', async () => {
  // the base of eu-1's and us-1's Deployment keeps its bytes: ap-1 only stops listing it
  const { before, result } = await change(['lab-1', 'ap-1'], ['ap-1'], ['lab-1']);
  const kept = [...before.keys()].filter((f) => f.startsWith('bases/') && f.endsWith('/deployment-capi-controller-manager.yaml'));
  assert.equal(kept.length, 1);
  assert.ok(result.summary.unchanged.includes(kept[0]!));
  assert.deepEqual(
    listed(objectChanges(result.summary, result.written)).map((c) => c.replace(/-[0-9a-f]{12}\//, '-…/')),
    ['changed Deployment bases/cluster-api/v0.1.0-…/deployment-capi-controller-manager.yaml (ap-1)'],
  );
});

test('diff: a change two clusters share, moved into a base of their own, is one changed object naming them', async () => {
  const { before, after } = await change(['eu-1', 'us-1']);
  const report = reviewChanges({ label: 'before', files: before }, { label: 'after', files: after });
  const changes = listed(report.components.flatMap((c) => c.kinds.flatMap((k) => k.objects.map((o) => ({ ...o, kind: k.kind })))));
  assert.equal(changes.length, 1, changes.join('\n'));
  assert.match(changes[0]!, SHARED_CHANGE);
  assert.deepEqual(
    report.findings.filter((f) => f.type === 'version'),
    [],
  );
});

test('diff: objects that moved out of a base are no change, and no version is removed or added while the clusters render it', async () => {
  const { before, after } = await change(['lab-1'], ['lab-1']);
  const report = reviewChanges({ label: 'before', files: before }, { label: 'after', files: after });
  assert.deepEqual(
    report.findings.filter((f) => f.type === 'version'),
    [],
  );
  assert.deepEqual(
    report.components.map((c) => `${c.directory}: ${c.added} added, ${c.removed} removed, ${c.changed} changed`),
    ['clusters/lab-1/01-cluster-api: 0 added, 0 removed, 1 changed'],
  );
  assert.deepEqual(
    report.findings.map((f) => `${f.type} ${f.component}`),
    ['flags clusters/lab-1/01-cluster-api'],
  );
});

test('render() with clusters and no outputDir keeps the other clusters as the output holds them (the CLI passes outputDir; code may not)', async () => {
  const url = coreRelease();
  const dir = writeTempManifest({ 'fleet.yaml': fleet(url, []) });
  const out = path.join(tempDir(), 'out');
  await render({ manifestPaths: [dir] }, out);
  const before = readTree(out);
  writeFileSync(path.join(dir, 'fleet.yaml'), fleet(url, ['lab-1']));
  await render({ manifestPaths: [dir], clusters: ['lab-1'] }, out);
  const after = readTree(out);
  for (const file of before.keys())
    if (file.startsWith('clusters/') && !file.startsWith('clusters/lab-1/')) assert.ok(after.has(file), `${file} was kept`);
});

test("diff: a cluster added onto a base whose object the others get changed: each call-out names the clusters of its own object change, not the base's", async () => {
  const url = coreRelease();
  const clusters = (names: string[], verbose: boolean) =>
    names
      .map((n) => `- name: ${n}${verbose ? `\n  providers: {CoreProvider/cluster-api: {spec: {manager: {verbosity: 5}}}}` : ''}`)
      .join('\n');
  const manifest = (names: string[], verbose: boolean) =>
    fleet(url, []).replace(/clusters:\n[\s\S]*$/, `clusters:\n${clusters(names, verbose)}\n`);
  const dir = writeTempManifest({ 'fleet.yaml': manifest(['eu-1', 'us-1'], false) });
  const out = path.join(tempDir(), 'out');
  await render({ manifestPaths: [dir] }, out);
  const before = readTree(out);
  // the pull request: ap-1 added, and every cluster's manager more verbose, so all three share one new base
  writeFileSync(path.join(dir, 'fleet.yaml'), manifest(['eu-1', 'us-1', 'ap-1'], true));
  await render({ manifestPaths: [dir], outputDir: out }, out);
  const report = reviewChanges({ label: 'before', files: before }, { label: 'after', files: readTree(out) });
  const deployment = report.findings.filter((f) => f.object === 'Deployment/capi-system/capi-controller-manager');
  // ap-1's Deployment is new (its image appears); eu-1's and us-1's get the flag
  assert.deepEqual(
    deployment.map((f) => `${f.type} ${f.clusters?.join(', ')}`),
    ['flags eu-1, us-1', 'image ap-1'],
  );
  const text = formatText(report);
  assert.match(text, /flags +\(clusters eu-1, us-1\) Deployment\/capi-system\/capi-controller-manager/);
  assert.match(text, /image +\(cluster ap-1\) Deployment\/capi-system\/capi-controller-manager/);
  const markdown = formatMarkdown(report);
  assert.match(markdown, /\*\*flags\*\* \(clusters eu-1, us-1\) Deployment/);
  assert.match(markdown, /\*\*image\*\* \(cluster ap-1\) Deployment/);
});
