/**
 * A fleet's review in the shared layout, where one cluster's changes to a component can sit in
 * several directories: its own and a base, or two bases (objects the same clusters share, written
 * once per set of clusters that render them alike). The markdown's rows and sections and the
 * GitHub annotations must still say which clusters a change reaches, once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { render } from '../../src/app/render.js';
import { formatMarkdown, reviewChanges } from '../../src/review/index.js';
import { reviewAnnotations } from '../../src/review/github-actions.js';
import { tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { readTree } from '../helpers/tree.js';
import { coreManifest, localCoreRelease } from '../helpers/local-release.js';

/** A ClusterRole whose verb and a Deployment whose verbosity each cluster sets on its own. */
const COMPONENTS = `apiVersion: v1
kind: Namespace
metadata: {name: capi-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: capi-manager-role}
rules:
- {apiGroups: [""], resources: [nodes], verbs: ["\${VERB}"]}
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

interface Cluster {
  verb: 'get' | 'list';
  verbose?: boolean;
}

function fleet(url: string, clusters: Record<string, Cluster>): string {
  const list = Object.entries(clusters).map(
    ([name, c]) =>
      `- name: ${name}\n  variables: {VERB: ${c.verb}}` +
      (c.verbose ? `\n  providers: {CoreProvider/cluster-api: {spec: {manager: {verbosity: 5}}}}` : ''),
  );
  return coreManifest(url, `clusters:\n${list.join('\n')}\n`);
}

/** The review of the fleet rendered as `before`, then as `after`. */
async function review(before: Record<string, Cluster>, after: Record<string, Cluster>) {
  const url = localCoreRelease(COMPONENTS);
  const trees = [];
  for (const clusters of [before, after]) {
    const out = path.join(tempDir(), 'out');
    await render({ manifestPaths: [writeTempManifest({ 'fleet.yaml': fleet(url, clusters) })] }, out);
    trees.push(readTree(out));
  }
  return reviewChanges({ label: 'before', files: trees[0]! }, { label: 'after', files: trees[1]! });
}

const rows = (markdown: string) => markdown.split('\n').filter((line) => line.startsWith('| `') || line.startsWith('<details>'));

test('markdown: one cluster set whose changes moved into two bases is one row and one section, not two identical ones', async () => {
  // eu-1 and us-1 share the ClusterRole with ap-1 now (one base) and the verbose Deployment with each other (another)
  const report = await review(
    { 'eu-1': { verb: 'get' }, 'us-1': { verb: 'get' }, 'ap-1': { verb: 'list' } },
    { 'eu-1': { verb: 'list', verbose: true }, 'us-1': { verb: 'list', verbose: true }, 'ap-1': { verb: 'list' } },
  );
  assert.deepEqual(
    report.components.map((c) => c.directory.replace(/-[0-9a-f]{12}$/, '-…')),
    ['bases/cluster-api/v0.1.0-…', 'bases/cluster-api/v0.1.0-…'],
  );
  const markdown = formatMarkdown(report);
  assert.deepEqual(rows(markdown), [
    '| `cluster-api` (clusters eu-1, us-1) | v0.1.0 | 0 | 0 | 2 |',
    '<details><summary><code>cluster-api</code> (clusters eu-1, us-1) v0.1.0: 0 added, 0 removed, 2 changed</summary>',
  ]);
  assert.match(markdown, /\*\*ClusterRole\*\* \(rbac\.authorization\.k8s\.io\)\n\n- ✏️ `capi-manager-role \(clusters eu-1, us-1\)`/);
  assert.match(markdown, /\*\*Deployment\*\* \(apps\)\n\n- ✏️ `capi-system\/capi-controller-manager \(clusters eu-1, us-1\)`/);
  assert.match(markdown, /\| \*\*total\*\* \| \| 0 \| 0 \| 2 \|/);
});

test("markdown: a cluster's changes in a base and in its own directory are one row", async () => {
  // us-1 shares the ClusterRole with ap-1 now (a base); its verbose Deployment is its own
  const report = await review(
    { 'eu-1': { verb: 'get' }, 'us-1': { verb: 'get' }, 'ap-1': { verb: 'list' } },
    { 'eu-1': { verb: 'get' }, 'us-1': { verb: 'list', verbose: true }, 'ap-1': { verb: 'list' } },
  );
  assert.equal(report.components.length, 2);
  assert.deepEqual(rows(formatMarkdown(report)), [
    '| `cluster-api` (cluster us-1) | v0.1.0 | 0 | 0 | 2 |',
    '<details><summary><code>cluster-api</code> (cluster us-1) v0.1.0: 0 added, 0 removed, 2 changed</summary>',
  ]);
});

test("GitHub annotations: a base's warning names the clusters it concerns, as its call-out does (findings[].clusters)", async () => {
  const report = await review(
    { 'eu-1': { verb: 'get' }, 'us-1': { verb: 'get' }, 'ap-1': { verb: 'list' } },
    { 'eu-1': { verb: 'list', verbose: true }, 'us-1': { verb: 'list', verbose: true }, 'ap-1': { verb: 'list' } },
  );
  assert.deepEqual(
    reviewAnnotations(report, 'out').map((line) => line.replace(/-[0-9a-f]{12}\//, '-…/')),
    [
      '::warning file=out/bases/cluster-api/v0.1.0-…/clusterrole-capi-manager-role.yaml,title=capi-gitops%3A rbac::' +
        'clusters eu-1, us-1: ClusterRole/capi-manager-role: RBAC widened: list nodes',
    ],
  );
});
