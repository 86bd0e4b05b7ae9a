/**
 * A cluster added to a fleet: its component's objects come from the base the other clusters
 * share, its version from its own directory. The summary table reads that as one row.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { render } from '../../src/app/render.js';
import { formatMarkdown, reviewChanges } from '../../src/review/index.js';
import { tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { readTree } from '../helpers/tree.js';
import { coreManifest, localReleases, managerDeployment } from '../helpers/local-release.js';

const SERIES = '- {major: 0, minor: 1, contract: v1beta1}\n';

async function fleetTree(
  url: string,
  clusters: string[],
  fleetLayout = 'shared',
  overlays: Record<string, string> = {},
): Promise<Map<string, string>> {
  const out = path.join(tempDir(), 'out');
  const config = `output: {layout: argocd, fleetLayout: ${fleetLayout}}\ngitops: {path: out, argocd: {values: {repoURL: https://git.example.com/fleet.git}}}\nclusters:\n${clusters.map((c) => `- name: ${c}\n  argocd: {values: {destination: {name: ${c}}}}${overlays[c] ? `\n  ${overlays[c]}` : ''}`).join('\n')}\n`;
  await render({ manifestPaths: [writeTempManifest({ 'fleet.yaml': coreManifest(url, config) })] }, out);
  return readTree(out);
}

test('a cluster added to a fleet is one table row per component, (none) → its version, with the objects of the base it shares (capi-gitops diff --base on a fleet)', async () => {
  const url = localReleases(tempDir(), 'cluster-api', 'core-components.yaml', ['v0.1.0'], SERIES, (tag) =>
    managerDeployment('capi-controller-manager', 'capi-system', 'capi', tag),
  );
  const before = await fleetTree(url, ['mc01', 'mc02']);
  const after = await fleetTree(url, ['mc01', 'mc02', 'mc03']);
  const markdown = formatMarkdown(reviewChanges({ label: 'before', files: before }, { label: 'after', files: after }));
  const rows = markdown.split('\n').filter((l) => l.startsWith('| `cluster-api` (cluster mc03)'));
  assert.equal(rows.length, 1, markdown);
  assert.match(rows[0]!, /^\| `cluster-api` \(cluster mc03\) \| \(none\) → v0\.1\.0 \| [1-9]\d* \| 0 \| 0 \|$/, rows[0]);
});

/** The manager with a ClusterRole and a leader-election Role; v0.2.0's ClusterRole also deletes Secrets. */
function withRbac(tag: string): string {
  const secrets = tag === 'v0.2.0' ? '\n- {apiGroups: [""], resources: [secrets], verbs: [delete]}' : '';
  return `${managerDeployment('capi-controller-manager', 'capi-system', 'capi', tag)}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: capi-manager-role}
rules:
- {apiGroups: [cluster.x-k8s.io], resources: [clusters], verbs: [get, list, watch]}${secrets}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: capi-leader-election-role, namespace: capi-system}
rules:
- {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, create, update]}
`;
}

for (const fleetLayout of ['shared', 'full'])
  test(`a cluster added to a fleet (${fleetLayout} layout) whose roles equal another cluster's raises no "RBAC widened" (reviewed there); one whose role grants more than every existing cluster's still does`, async () => {
    const url = localReleases(
      tempDir(),
      'cluster-api',
      'core-components.yaml',
      ['v0.1.0', 'v0.2.0'],
      SERIES + '- {major: 0, minor: 2, contract: v1beta1}\n',
      withRbac,
    );
    const before = await fleetTree(url, ['mc01', 'mc02'], fleetLayout);
    const after = await fleetTree(url, ['mc01', 'mc02', 'mc03', 'mc04'], fleetLayout, {
      mc04: 'providers: {CoreProvider/cluster-api: {spec: {version: v0.2.0}}}',
    });
    const report = reviewChanges({ label: 'before', files: before }, { label: 'after', files: after });
    const widened = report.findings.filter((f) => f.type === 'rbac' && f.direction === 'widened');
    assert.deepEqual(
      widened.map((f) => [f.component.split('/')[1] ?? f.component, f.clusters ?? [], f.object, f.risk]),
      [[widened[0]?.component.split('/')[1] ?? '?', widened[0]?.clusters ?? [], 'ClusterRole/capi-manager-role', 'warning']],
      JSON.stringify(widened, null, 1),
    );
    const where = `${widened[0]!.component} ${(widened[0]!.clusters ?? []).join(',')}`;
    assert.match(where, /mc04/, "the widening is mc04's");
    assert.doesNotMatch(where, /mc03/);
  });
