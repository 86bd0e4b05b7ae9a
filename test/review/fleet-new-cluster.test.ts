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

async function fleetTree(url: string, clusters: string[]): Promise<Map<string, string>> {
  const out = path.join(tempDir(), 'out');
  const config = `output: {layout: argocd}\ngitops: {path: out, argocd: {values: {repoURL: https://git.example.com/fleet.git}}}\nclusters:\n${clusters.map((c) => `- name: ${c}\n  argocd: {values: {destination: {name: ${c}}}}`).join('\n')}\n`;
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
