/**
 * A fleet-wide change read once: a version bump (and its contract move) that several clusters get
 * in their own directories, and a chart value every cluster's Application gets, are one row and
 * one call-out with the clusters' range, as a shared base's object change is; a component whose
 * version alone changed opens no empty section; a wiring field reads old → new.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { render } from '../../src/app/render.js';
import { formatMarkdown, formatText, reviewChanges } from '../../src/review/index.js';
import type { ContractSeries, ReviewReport } from '../../src/review/types.js';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { readTree } from '../helpers/tree.js';
import { coreManifest, localReleases, managerDeployment } from '../helpers/local-release.js';

const CLUSTERS = ['mc01', 'mc02', 'mc03', 'mc04', 'mc05', 'mc06'];
/** metadata.yaml's releaseSeries: v0.2 moves to contract v1beta2, as cluster-api v1.11 did. */
const SERIES = '- {major: 0, minor: 1, contract: v1beta1}\n- {major: 0, minor: 2, contract: v1beta2}\n';
const CONTRACTS: ContractSeries[] = [
  { label: 'cluster-api', major: 0, minor: 1, contract: 'v1beta1' },
  { label: 'cluster-api', major: 0, minor: 2, contract: 'v1beta2' },
];

interface Side {
  moved: string[];
  revision: string;
  /** A cluster's own targetRevision. */
  own?: Record<string, string>;
}

/** The fleet: every cluster on v0.1.0 but `moved`, on v0.2.0; Argo CD's Applications at `revision`. */
function fleet(url: string, { moved, revision, own = {} }: Side): string {
  const clusters = CLUSTERS.map(
    (name) =>
      `- name: ${name}\n  argocd: {values: {destination: {name: ${name}}${own[name] ? `, targetRevision: ${own[name]}` : ''}}}` +
      (moved.includes(name) ? `\n  providers: {CoreProvider/cluster-api: {spec: {version: v0.2.0}}}` : ''),
  );
  return coreManifest(
    url,
    'output: {layout: argocd}\n' +
      `gitops: {path: out, argocd: {values: {repoURL: https://git.example.com/fleet.git, targetRevision: ${revision}}}}\n` +
      `clusters:\n${clusters.join('\n')}\n`,
  );
}

const validateJson = new Ajv.default({ allErrors: true, strict: true }).compile(
  JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'schema', 'capi-gitops-diff.schema.json'), 'utf8')),
);

/** `diff --format json` keeps schemaVersion 1: the new fields are optional ones the schema lists. */
function assertValidJson(report: ReviewReport): void {
  assert.ok(validateJson(JSON.parse(JSON.stringify(report))), JSON.stringify(validateJson.errors, null, 2));
}

async function review(before: Side, after: Side) {
  const url = localReleases(tempDir(), 'cluster-api', 'core-components.yaml', ['v0.1.0', 'v0.2.0'], SERIES, (tag) =>
    managerDeployment('capi-controller-manager', 'capi-system', 'capi', tag),
  );
  const trees = [];
  for (const side of [before, after]) {
    const out = path.join(tempDir(), 'out');
    await render({ manifestPaths: [writeTempManifest({ 'fleet.yaml': fleet(url, side) })] }, out);
    trees.push(readTree(out));
  }
  return reviewChanges(
    { label: 'before', files: trees[0]!, contracts: CONTRACTS },
    { label: 'after', files: trees[1]!, contracts: CONTRACTS },
  );
}

test('a version bump four clusters get in their own directories is one row and one version and contract call-out each, with the clusters range; no empty section', async () => {
  const report = await review({ moved: [], revision: 'HEAD' }, { moved: ['mc01', 'mc02', 'mc03', 'mc04'], revision: 'HEAD' });
  // the JSON keeps each cluster's finding, and names the clusters that have it alike
  const versions = report.findings.filter((f) => f.type === 'version');
  assert.equal(versions.length, 4);
  for (const f of versions) assert.deepEqual(f.sameInClusters, ['mc01', 'mc02', 'mc03', 'mc04']);
  assertValidJson(report);

  const markdown = formatMarkdown(report);
  const rows = markdown.split('\n').filter((line) => line.startsWith('| `'));
  assert.deepEqual(
    rows.filter((line) => line.includes('v0.1.0 → v0.2.0')),
    ['| `cluster-api` (clusters mc01–mc04) | v0.1.0 → v0.2.0 | 0 | 0 | 0 |'],
  );
  const callOuts = markdown.split('\n').filter((line) => /^- (⚠️ )?\*\*(version|contract)\*\*/.test(line));
  assert.deepEqual(callOuts, [
    '- **contract** (clusters mc01–mc04) cluster-api v0.1.0 → v0.2.0 moves from contract v1beta1 to v1beta2',
    '- **version** (clusters mc01–mc04) cluster-api upgraded v0.1.0 → v0.2.0',
  ]);
  // counted as told: contract, version and the image the base's Deployment changed
  assert.match(markdown, /\*\*Risk:\*\* no risky changes found \(3 call-outs\)/);
  // the version-only components open nothing: their row says it all
  assert.doesNotMatch(markdown, /<summary>[^\n]*: 0 added, 0 removed, 0 changed/);

  const text = formatText(report);
  assert.equal(text.match(/upgraded v0\.1\.0 → v0\.2\.0/g)?.length, 1, text);
  assert.match(text, /info {4}version {8}\(clusters mc01–mc04\) cluster-api upgraded v0\.1\.0 → v0\.2\.0/);
  assert.match(
    text,
    /cluster-api v0\.1\.0 → v0\.2\.0 {2}\(clusters\/<cluster>\/01-cluster-api: 0 added, 0 removed, 0 changed in each of clusters mc01–mc04\)/,
  );
});

test("a chart value every cluster's Application gets is one row and section, with the field's old → new value (argo-cd Application spec.source.targetRevision)", async () => {
  const report = await review({ moved: [], revision: 'HEAD' }, { moved: [], revision: 'main' });
  const applications = report.components.filter((c) => /^clusters\/mc\d+\/argocd$/.test(c.directory));
  assert.equal(applications.length, 6);
  // the root Application and the component one: each reads its revision old → new
  for (const object of applications[0]!.kinds[0]!.objects)
    assert.deepEqual(object.values, [{ path: 'spec.source.targetRevision', from: 'HEAD', to: 'main' }]);
  assertValidJson(report);

  const markdown = formatMarkdown(report);
  assert.deepEqual(
    markdown.split('\n').filter((line) => line.startsWith('| `') || line.startsWith('<details>')),
    [
      '| `clusters/<cluster>/argocd` (clusters mc01–mc06) |  | 0 | 0 | 12 |',
      '<details><summary><code>clusters/&#60;cluster&#62;/argocd</code> (clusters mc01–mc06): 0 added, 0 removed, 2 changed in each</summary>',
    ],
  );
  assert.match(markdown, /- ✏️ `argocd\/capi-gitops-<cluster>`: `spec\.source\.targetRevision` `HEAD` → `main`/);
  assert.match(markdown, /\| \*\*total\*\* \| \| 0 \| 0 \| 12 \|/);
  assert.match(formatText(report), /spec\.source\.targetRevision: HEAD → main/);
});

test('a cluster whose Applications changed the same path to another value stays apart', async () => {
  const report = await review({ moved: [], revision: 'HEAD' }, { moved: ['mc01'], revision: 'main', own: { mc01: 'v2' } });
  const markdown = formatMarkdown(report);
  assert.deepEqual(
    markdown.split('\n').filter((line) => line.startsWith('| `clusters/')),
    ['| `clusters/mc01/argocd` (cluster mc01) |  | 0 | 0 | 2 |', '| `clusters/<cluster>/argocd` (clusters mc02–mc06) |  | 0 | 0 | 10 |'],
  );
  assert.match(markdown, /- ✏️ `argocd\/capi-gitops-mc01`: `spec\.source\.targetRevision` `HEAD` → `v2`/);
  assert.match(markdown, /\| `cluster-api` \(cluster mc01\) \| v0\.1\.0 → v0\.2\.0 \|/);
  assert.match(markdown, /\*\*version\*\* \(cluster mc01\) cluster-api upgraded/);
});
