/**
 * Fleets at scale (issue 24): a problem many clusters share is reported once, naming them; the
 * YAML node budget counts each distinct document once; a release rollout in the shared layout
 * adds a base per moved component and touches only the clusters that moved, and `diff` reports a
 * base's change once with the clusters it reaches; kubectl builds the same objects from both layouts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderOutput } from '../../src/app/run.js';
import { render } from '../../src/app/render.js';
import { clusterRanges, DiagnosticsByCluster } from '../../src/core/cluster-ranges.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { reviewChanges } from '../../src/review/index.js';
import { formatText } from '../../src/review/format-text.js';
import { writeOutput } from '../../src/output/write.js';
import { corpusManifest, tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { kubectlAvailable, kubectlKustomize, readTree } from '../helpers/tree.js';
import { rejection } from '../helpers/assertions.js';
import { SUITE_SECRETS } from '../helpers/secret-scan.js';
import { localCoreRelease } from '../helpers/local-release.js';

const coreRelease = localCoreRelease;

function fleetOf(url: string, clusters: string[], version = 'v0.1.0'): string {
  return `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec:
  version: ${version}
  fetchConfig: {url: "${url}"}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager: {enabled: false}
clusters:
${clusters.join('\n')}
`;
}

test('cluster names in a message: runs of consecutive numbers as ranges, other names listed', () => {
  const names = Array.from({ length: 100 }, (_, i) => `c${String(i).padStart(3, '0')}`);
  assert.equal(clusterRanges(names), 'c000–c099');
  assert.equal(clusterRanges(['us-1', 'c002', 'c001', 'eu-1', 'c003', 'c007', 'c008']), 'c001–c003, c007, c008, eu-1, us-1');
  assert.equal(clusterRanges(['c9', 'c10', 'c11', 'c12']), 'c9, c10–c12');
});

test("a problem at a file of each cluster's own tree is one problem for those clusters, told at the first cluster's file; a name inside another word is no cluster's (a, argocd)", () => {
  const problems = new DiagnosticsByCluster();
  for (const cluster of ['b', 'a'])
    problems.add({ file: `clusters/${cluster}/argocd/application-capi-gitops-${cluster}-00.yaml`, message: 'holds a URL' }, cluster);
  problems.add({ file: 'clusters/eu.1/argocd/x.yaml', message: 'other' }, 'eu.1');
  problems.add({ file: 'clusters/eu-1/argocd/x.yaml', message: 'other' }, 'eu-1');
  assert.deepEqual(
    problems.take().map((d) => [d.file, d.object]),
    [
      ['clusters/a/argocd/application-capi-gitops-a-00.yaml', 'clusters a, b'],
      ['clusters/eu-1/argocd/x.yaml', 'clusters eu-1, eu.1'],
    ],
  );
});

test('a problem 100 clusters share is reported once, naming them; every resolution problem of the fleet in the same run', async () => {
  const url = coreRelease(
    'apiVersion: v1\nkind: Namespace\nmetadata: {name: capi-system}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: capi-system}\ndata: {region: "${EXAMPLE_REGION}"}\n',
  );
  const clusters = Array.from({ length: 100 }, (_, i) => `- name: c${String(i).padStart(3, '0')}`);
  clusters.push('- name: lab-1\n  providers: {CoreProvider/cluster-api: {spec: {version: v9.9.9}}}');
  clusters.push('- name: lab-2\n  providers: {CoreProvider/cluster-api: {spec: {version: v8.8.8}}}');
  const error = await rejection(renderOutput({ manifestPaths: [writeTempManifest({ 'fleet.yaml': fleetOf(url, clusters) })] }));
  assert.ok(error instanceof CapiGitopsError);
  const missing = error.diagnostics.filter((d) => /EXAMPLE_REGION/.test(d.message));
  assert.equal(missing.length, 1, error.message);
  assert.match(missing[0]!.object!, /^clusters c000–c099: CoreProvider\/capi-system\/cluster-api$/);
  const versions = error.diagnostics.filter((d) => /v9\.9\.9|v8\.8\.8/.test(d.message));
  assert.deepEqual(versions.map((d) => d.object!.split(/[,:]/)[0]).sort(), ['cluster lab-1', 'cluster lab-2']);
});

test('the YAML node budget counts each distinct document once: a fleet whose clusters each give a value of their own passes a budget of two clusters', async () => {
  // one large document every cluster shares, and a small one with the cluster's value
  const large = Array.from({ length: 3000 }, (_, i) => `  key${i}: value${i}`).join('\n');
  const url = coreRelease(
    `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: large, namespace: capi-system}\ndata:\n${large}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: own, namespace: capi-system}\ndata: {region: "\${REGION}"}\n`,
  );
  const clusters = Array.from({ length: 30 }, (_, i) => `- name: c${String(i).padStart(2, '0')}\n  variables: {REGION: region-${i}}`);
  const dir = writeTempManifest({ 'fleet.yaml': fleetOf(url, clusters) });
  const previous = process.env.CAPI_GITOPS_YAML_MAX_NODES_PER_RUN;
  // about two clusters' worth: the fleet's texts hold 30 times the nodes of one
  process.env.CAPI_GITOPS_YAML_MAX_NODES_PER_RUN = '20000';
  try {
    const result = await renderOutput({ manifestPaths: [dir] });
    assert.ok(result.fleet);
    assert.deepEqual(result.documents, { requested: 60, parsed: 31 });
    assert.equal(new Set([...result.files.keys()].flatMap((f) => /^bases\/[^/]+\/[^/]+\//.exec(f) ?? [])).size, 1, 'one base');
  } finally {
    if (previous === undefined) delete process.env.CAPI_GITOPS_YAML_MAX_NODES_PER_RUN;
    else process.env.CAPI_GITOPS_YAML_MAX_NODES_PER_RUN = previous;
  }
});

const RELEASES = `apiVersion: capi-gitops.dev/v1alpha1
kind: Release
metadata: {name: "2025.05.0"}
providers:
  CoreProvider/cluster-api: v1.10.4
  BootstrapProvider/kubeadm: v1.10.4
  ControlPlaneProvider/kubeadm: v1.10.4
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Release
metadata: {name: "2026.11.0"}
providers:
  CoreProvider/cluster-api: v1.12.0
  BootstrapProvider/kubeadm: v1.12.0
  ControlPlaneProvider/kubeadm: v1.12.0
`;

/** Six clusters with a diagnostics address of their own; those in `moved` on the newer release. */
function rolloutFleet(moved: string[]): Record<string, string> {
  const clusters = ['clusters:'];
  for (let i = 0; i < 6; i++) {
    const name = `c${i}`;
    clusters.push(`- name: ${name}`, `  release: "${moved.includes(name) ? '2026.11.0' : '2025.05.0'}"`);
    clusters.push(`  variables: {CAPI_DIAGNOSTICS_ADDRESS: ":${9440 + i}"}`);
  }
  return { 'providers.yaml': corpusManifest('v1.10.4') + clusters.join('\n') + '\n', 'releases.yaml': RELEASES };
}

// started by the first test that needs it (the budget test above changes the environment)
let rolled: ReturnType<typeof rollOut> | undefined;
const rollout = () => (rolled ??= rollOut());
async function rollOut() {
  return (async () => {
    const dir = writeTempManifest(rolloutFleet([]));
    const out = path.join(tempDir(), 'out');
    await render({ manifestPaths: [dir] }, out);
    const before = readTree(out);
    writeFileSync(path.join(dir, 'providers.yaml'), rolloutFleet(['c4', 'c5'])['providers.yaml']!);
    const result = await render({ manifestPaths: [dir] }, out);
    return { dir, out, before, after: readTree(out), result };
  })();
}

const basesOf = (tree: Map<string, string>) =>
  [...new Set([...tree.keys()].filter((f) => f.startsWith('bases/')).map((f) => f.split('/').slice(0, 3).join('/')))].sort();

test('a release rollout in the shared layout adds one base per moved component, touches only the moved clusters, and prunes what no cluster uses', async () => {
  const { before, after, result } = await rollout();
  const added = basesOf(after).filter((b) => !basesOf(before).includes(b));
  assert.deepEqual(
    added.map((b) => b.replace(/-[0-9a-f]{12}$/, '')),
    ['bases/bootstrap-kubeadm/v1.12.0', 'bases/cluster-api/v1.12.0', 'bases/control-plane-kubeadm/v1.12.0'],
  );
  // the bases the other clusters use keep their names and bytes
  for (const base of basesOf(before))
    for (const [file, text] of before) if (file.startsWith(`${base}/`)) assert.equal(after.get(file), text, file);
  const touched = [
    ...new Set([...result.summary.written, ...result.summary.removed].map((f) => f.split('/').slice(0, 2).join('/'))),
  ].sort();
  // and the README, which lists each cluster's versions
  assert.deepEqual(touched, [
    'README.md',
    'bases/bootstrap-kubeadm',
    'bases/cluster-api',
    'bases/control-plane-kubeadm',
    'clusters/c4',
    'clusters/c5',
  ]);
  // every base is listed by some cluster's kustomization
  const listed = [...after]
    .filter(([f]) => f.startsWith('clusters/') && f.endsWith('/kustomization.yaml'))
    .map(([, t]) => t)
    .join('\n');
  for (const base of basesOf(after)) assert.ok(listed.includes(`../../../${base}`), base);
});

test("diff reports a change to a shared base once, with the clusters it reaches; the moved clusters' own objects each", async () => {
  const { before, after } = await rollout();
  const report = reviewChanges({ label: 'before', files: before }, { label: 'after', files: after });
  const objects = report.components.flatMap((c) => c.kinds.flatMap((k) => k.objects.map((o) => ({ ...o, directory: c.directory }))));
  const crd = objects.filter((o) => o.kind === 'CustomResourceDefinition' && o.name === 'clusters.cluster.x-k8s.io');
  assert.equal(crd.length, 1, JSON.stringify(crd));
  assert.deepEqual(crd[0]!.clusters, ['c4', 'c5']);
  assert.match(crd[0]!.directory, /^bases\/cluster-api\/v1\.12\.0-[0-9a-f]{12}$/);
  // each moved cluster's Deployment carries its own address: reported for each
  const deployments = objects.filter((o) => o.kind === 'Deployment' && o.name === 'capi-controller-manager');
  assert.deepEqual(deployments.map((o) => o.directory).sort(), ['clusters/c4/01-cluster-api', 'clusters/c5/01-cluster-api']);
  assert.ok(!objects.some((o) => /clusters\/c[0-3]\//.test(o.file)));
  assert.match(formatText(report), /~ clusters\.cluster\.x-k8s\.io \(clusters c4, c5\)/);
});

test(
  'kubectl kustomize builds a cluster directory the rollout moved in the shared layout to the objects of the full layout',
  { skip: kubectlAvailable() ? false : 'kubectl not installed' },
  async () => {
    const { dir, out } = await rollout();
    const full = await renderOutput({ manifestPaths: [dir], fleetLayout: 'full' });
    const fullOut = tempDir();
    await writeOutput(fullOut, full.files);
    // c0-c3 hold the old release and c4-c5 the new, each with its own variables: a moved cluster
    // is built (corpus-fleet.test.ts reads every cluster of two releases' shared tree back as its full one)
    assert.deepEqual(readdirSync(path.join(out, 'clusters')).sort(), ['c0', 'c1', 'c2', 'c3', 'c4', 'c5']);
    for (const cluster of ['c5']) {
      const built = kubectlKustomize(path.join(out, 'clusters', cluster));
      assert.match(built, /kind: Deployment/);
      assert.equal(built, kubectlKustomize(path.join(fullOut, 'clusters', cluster)), cluster);
    }
  },
);

for (const fleetLayout of ['shared', 'full'] as const) {
  test(`the secrets gate holds in the ${fleetLayout} fleet layout: a Secret's value bound for two clusters' files is refused, nothing written`, async () => {
    // the same secret value in every cluster: byte-identical objects the shared layout would put in a base
    const url = coreRelease(
      'apiVersion: v1\nkind: Namespace\nmetadata: {name: capi-system}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: vault, namespace: capi-system}\ndata: {token: "${VAULT_TOKEN}"}\n',
    );
    const dir = writeTempManifest({ 'fleet.yaml': fleetOf(url, ['- name: eu-1', '- name: us-1']) });
    const secrets = path.join(tempDir(), 'secrets.env');
    writeFileSync(secrets, `VAULT_TOKEN=${SUITE_SECRETS.oldToken}\n`);
    const out = path.join(tempDir(), 'out');
    const error = await rejection(render({ manifestPaths: [dir], secretFiles: [secrets], fleetLayout }, out));
    assert.ok(error instanceof CapiGitopsError);
    assert.ok(!error.message.includes(SUITE_SECRETS.oldToken));
    assert.match(error.message, /VAULT_TOKEN/);
    assert.deepEqual(readdirSync(path.dirname(out)), []);
  });
}
