/**
 * A fleet on the real corpus: three clusters, two at v1.12.0 with different variables and one
 * at v1.10.4 through a release. Each artifact fetched and parsed once; each cluster's tree
 * differs from the others' only where its overlay says; wiring valid against the real CRDs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { planRelease, type FleetResult } from '../../src/app/fleet.js';
import { lockOutput, renderOutput } from '../../src/app/run.js';
import { renderManagementCluster } from '../../src/app/cluster.js';
import { writeOutput } from '../../src/output/write.js';
import { expandClusterTree } from '../../src/layout/fleet.js';
import { parseLockfile } from '../../src/resolve/lock/lockfile.js';
import type { KObject } from '../../src/core/kobject.js';
import type { Diagnostic } from '../../src/core/diagnostics.js';
import { corpusManifest, tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { kubectlAvailable, kubectlKustomize, readTree } from '../helpers/tree.js';
import { wiringProblems } from '../helpers/crd-schema.js';
import { rejection } from '../helpers/assertions.js';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';
import { runCli } from '../helpers/cli.js';

const COMPONENT_FILES: [string, string][] = [
  ['01-cluster-api', 'cluster-api/v1.12.0/core-components.yaml'],
  ['02-bootstrap-kubeadm', 'bootstrap-kubeadm/v1.12.0/bootstrap-components.yaml'],
  ['03-control-plane-kubeadm', 'control-plane-kubeadm/v1.12.0/control-plane-components.yaml'],
];
const REPO = 'https://git.example.com/platform/fleet.git';

const RELEASES = `apiVersion: capi-gitops.dev/v1alpha1
kind: Release
metadata: {name: "2025.05.0"}
providers:
  CoreProvider/cluster-api: v1.10.4
  BootstrapProvider/kubeadm: v1.10.4
  ControlPlaneProvider/kubeadm: v1.10.4
certManager: {version: v1.13.0}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Release
metadata: {name: "2026.11.0"}
providers:
  CoreProvider/cluster-api: v1.12.0
  BootstrapProvider/kubeadm: v1.12.0
  ControlPlaneProvider/kubeadm: v1.12.0
certManager: {version: v1.13.0}
`;

/** Argo CD chart values: each cluster's Applications go to that cluster. */
const destination = (name: string) => `\n  gitops: {destination: {name: ${name}}}`;

const CLUSTERS = (oldRelease = '2025.05.0', gitops: (name: string) => string = destination) => `clusters:
- name: eu-1
  variables: {CLUSTER_TOPOLOGY: "true"}${gitops('eu-1')}
- name: us-1
  variables: {CLUSTER_TOPOLOGY: "false"}${gitops('us-1')}
- name: old-1
  release: "${oldRelease}"${gitops('old-1')}
`;

/** The shared manifest (the corpus core, kubeadm bootstrap and control plane, cert-manager) with a fleet. */
function fleetFiles(clusters = CLUSTERS(), extraConfig = ''): Record<string, string> {
  return { 'providers.yaml': corpusManifest('v1.12.0') + extraConfig + clusters, 'releases.yaml': RELEASES };
}

function clusterTree(files: Map<string, string>, cluster: string): Map<string, string> {
  const prefix = `clusters/${cluster}/`;
  return new Map([...files].filter(([f]) => f.startsWith(prefix)).map(([f, t]) => [f.slice(prefix.length), t]));
}

function differing(a: Map<string, string>, b: Map<string, string>): string[] {
  return [...new Set([...a.keys(), ...b.keys()])].filter((f) => a.get(f) !== b.get(f)).sort();
}

async function renderFleetDir(
  dir: string,
  layout: 'kustomize' | 'argocd' | 'flux' = 'kustomize',
  fleetLayout: 'full' | 'shared' = 'full',
): Promise<FleetResult> {
  const set =
    layout === 'kustomize'
      ? []
      : [...(layout === 'argocd' ? [`repoURL=${REPO}`] : []), 'path=fleet'].map((expression) => ({ expression, forceString: false }));
  const result = await renderOutput({ manifestPaths: [dir], layout, set, fleetLayout });
  assert.ok(result.fleet);
  return result;
}

const kustomizeDir = writeTempManifest(fleetFiles());
const kustomizeFleet = renderFleetDir(kustomizeDir);
const sharedFleet = kustomizeFleet.then(() => renderFleetDir(kustomizeDir, 'kustomize', 'shared'));

test('each artifact is fetched once and each distinct text parsed once, however many clusters use it', async () => {
  const { parsing, fetching } = await kustomizeFleet;
  // 3 clusters × 4 components asked for a parse. Distinct texts: core and control plane v1.12.0
  // twice each (both read CLUSTER_TOPOLOGY, which eu-1 and us-1 set differently), bootstrap v1.12.0
  // once (it does not read it), the three v1.10.4 components, and cert-manager once for all three.
  assert.deepEqual(parsing, { requested: 12, parsed: 9 });
  // metadata.yaml and the components file of 3 providers at 2 versions; cert-manager given by a
  // local path is read in place, not through a source
  assert.equal(fetching.fetched, 12);
  assert.ok(fetching.requested > fetching.fetched, JSON.stringify(fetching));
});

test('variables are substituted once per distinct text and values: clusters that give an artifact the same values share the result', async () => {
  const { substitution } = await kustomizeFleet;
  // 3 clusters × 3 providers. eu-1 and us-1 differ in CLUSTER_TOPOLOGY, which core and control
  // plane v1.12.0 read and bootstrap v1.12.0 does not: bootstrap is substituted once for both
  assert.deepEqual(substitution, { requested: 9, substituted: 8 });
});

test("two clusters on one release differ only where their overlays' variables say (compared as trees)", async () => {
  const { files } = await kustomizeFleet;
  const eu = clusterTree(files, 'eu-1');
  const us = clusterTree(files, 'us-1');
  assert.deepEqual([...eu.keys()], [...us.keys()]);
  // the overlays differ in CLUSTER_TOPOLOGY: exactly the Deployments of the artifacts that read it differ
  const readers = COMPONENT_FILES.filter(([, file]) =>
    readFileSync(path.join(CORPUS_REPOSITORY, file), 'utf8').includes('${CLUSTER_TOPOLOGY'),
  ).map(([dir]) => dir);
  assert.deepEqual(readers, ['01-cluster-api', '03-control-plane-kubeadm']);
  assert.deepEqual(differing(eu, us), [
    '01-cluster-api/deployment-capi-controller-manager.yaml',
    '03-control-plane-kubeadm/deployment-capi-kubeadm-control-plane-controller-manager.yaml',
  ]);
  for (const file of differing(eu, us)) {
    const gate = (tree: Map<string, string>) =>
      tree
        .get(file)!
        .split('\n')
        .filter((l) => l.includes('ClusterTopology='))
        .join('\n');
    assert.match(gate(eu), /ClusterTopology=true/);
    assert.match(gate(us), /ClusterTopology=false/);
  }
  // the cluster on the release differs in its providers' versions, not in cert-manager
  const old = clusterTree(files, 'old-1');
  assert.deepEqual(
    differing(us, old).filter((f) => f.startsWith('00-cert-manager/')),
    [],
  );
  assert.match(old.get('01-cluster-api/provider-cluster-api.yaml')!, /version: v1\.10\.4/);
  assert.match(us.get('01-cluster-api/provider-cluster-api.yaml')!, /version: v1\.12\.0/);
});

test('each cluster renders exactly what a single-cluster manifest with its merged settings renders', async () => {
  const { files } = await kustomizeFleet;
  const single = async (text: string) =>
    (await renderManagementCluster({ manifestPaths: [writeTempManifest({ 'providers.yaml': text })] })).files;
  const strip = (tree: Map<string, string>) => new Map([...tree].filter(([f]) => f !== 'README.md' && f !== '.gitattributes'));
  const eu = await single(corpusManifest('v1.12.0') + 'variables: {CLUSTER_TOPOLOGY: "true"}\n');
  assert.deepEqual(differing(clusterTree(files, 'eu-1'), strip(eu)), []);
  const old = await single(corpusManifest('v1.10.4'));
  assert.deepEqual(differing(clusterTree(files, 'old-1'), strip(old)), []);
});

test('the fleet lockfile records an artifact shared by several clusters once', async () => {
  const { lock } = await kustomizeFleet;
  const entries = lock.lock.entries.map((e) => [e.kind, e.version, e.clusters]);
  assert.deepEqual(entries, [
    ['CertManager', 'v1.13.0', ['eu-1', 'old-1', 'us-1']],
    ['CoreProvider', 'v1.12.0', ['eu-1', 'us-1']],
    ['CoreProvider', 'v1.10.4', ['old-1']],
    ['BootstrapProvider', 'v1.12.0', ['eu-1', 'us-1']],
    ['BootstrapProvider', 'v1.10.4', ['old-1']],
    ['ControlPlaneProvider', 'v1.12.0', ['eu-1', 'us-1']],
    ['ControlPlaneProvider', 'v1.10.4', ['old-1']],
  ]);
});

test('the output README lists every cluster with its release and provider versions', async () => {
  const readme = (await kustomizeFleet).files.get('README.md')!;
  assert.match(readme, /\| `old-1` \| 2025\.05\.0 \| cluster-api \| v1\.10\.4 \| capi-system \|/);
  assert.match(readme, /\| `eu-1` \| - \| bootstrap-kubeadm \| v1\.12\.0 \| capi-kubeadm-bootstrap-system \|/);
  assert.equal(readme.split('\n').filter((l) => l.startsWith('| `')).length, 12);
});

/** A shared tree read back as the full layout writes it, cluster by cluster (layout/fleet.ts expandClusterTree). */
async function expandShared(files: Map<string, string>, cluster: string): Promise<Map<string, string>> {
  const resources = (text: string) => (YAML.parse(text) as { resources: string[] }).resources;
  return expandClusterTree(clusterTree(files, cluster), async (file) => files.get(file), resources);
}

test('the shared layout writes each object two or more clusters hold once, under bases/, and each cluster reads back as its full tree', async () => {
  const full = (await kustomizeFleet).files;
  const shared = await sharedFleet;
  for (const cluster of ['eu-1', 'us-1', 'old-1']) {
    assert.deepEqual([...(await expandShared(shared.files, cluster))].sort(), [...clusterTree(full, cluster)].sort(), cluster);
  }
  // every object file of the full layout held by two or more clusters is in exactly one base
  const holders = new Map<string, string[]>();
  // an object of a component's version: the version is in the component kustomization's header
  const version = (cluster: string, dir: string) =>
    / (v[\d.]+) \(sha256/.exec(full.get(`clusters/${cluster}/${dir}/kustomization.yaml`)!)![1];
  for (const [file, text] of full) {
    const m = /^clusters\/([^/]+)\/(\d\d-[^/]+)\/(.+)$/.exec(file);
    if (!m || m[3] === 'kustomization.yaml') continue;
    const key = `${m[2]}/${m[3]}\0${text}\0${version(m[1]!, m[2]!)}`;
    holders.set(key, [...(holders.get(key) ?? []), m[1]!]);
  }
  for (const [key, clusters] of holders) {
    const [place, text, at] = key.split('\0') as [string, string, string];
    const file = place.slice(place.indexOf('/') + 1);
    const ofVersion = (f: string) =>
      f.startsWith('bases/') ? f.includes(`/${at}-`) : version(f.split('/')[1]!, place.slice(0, place.indexOf('/'))) === at;
    const copies = [...shared.files].filter(([f, t]) => t === text && f.endsWith(`/${file}`) && ofVersion(f)).map(([f]) => f);
    if (clusters.length >= 2)
      assert.deepEqual(copies.length === 1 && copies[0]!.startsWith('bases/'), true, `${place}: ${copies.join(', ')}`);
    else assert.deepEqual(copies, [`clusters/${clusters[0]}/${place}`]);
  }
  // the clusters on v1.12.0 share a base per component; cert-manager is one base for all three
  const bases = new Map<string, string[]>();
  for (const [file, text] of shared.files) {
    const cluster = /^clusters\/([^/]+)\/[^/]+\/kustomization\.yaml$/.exec(file)?.[1];
    if (cluster === undefined) continue;
    for (const resource of (YAML.parse(text) as { resources: string[] }).resources) {
      const base = resource.startsWith('../../../bases/') ? resource.slice('../../../'.length) : undefined;
      if (base !== undefined) bases.set(base, [...(bases.get(base) ?? []), cluster]);
    }
  }
  assert.deepEqual([...bases].map(([base, clusters]) => [base.replace(/-[0-9a-f]{12}$/, ''), clusters.sort()]).sort(), [
    ['bases/bootstrap-kubeadm/v1.12.0', ['eu-1', 'us-1']],
    ['bases/cert-manager/v1.13.0', ['eu-1', 'old-1', 'us-1']],
    ['bases/cluster-api/v1.12.0', ['eu-1', 'us-1']],
    ['bases/control-plane-kubeadm/v1.12.0', ['eu-1', 'us-1']],
  ]);
  assert.ok(shared.files.get('README.md')!.includes('bases/<component>/<version>-<digest>/'));
});

/** The object files of an output directory and those under it (one object a file), kustomization files aside. */
function objectFiles(dir: string): number {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml') && !f.endsWith('kustomization.yaml'))
    .length;
}

test(
  'kubectl kustomize builds every cluster directory to the same objects from the shared and the full layout, and each shared component directory of each release on its own, with the default load restrictions, to as many objects as the full layout holds there',
  { skip: kubectlAvailable() ? false : 'kubectl not installed' },
  async () => {
    const full = tempDir();
    const shared = tempDir();
    await writeOutput(full, (await kustomizeFleet).files);
    await writeOutput(shared, (await sharedFleet).files);
    for (const cluster of ['eu-1', 'us-1', 'old-1']) {
      const built = kubectlKustomize(path.join(shared, 'clusters', cluster));
      assert.ok(
        built.split('\n---\n').some((d) => /^kind: Deployment$/m.test(d) && /^ {2}name: capi-controller-manager$/m.test(d)),
        cluster,
      );
      assert.equal(built, kubectlKustomize(path.join(full, 'clusters', cluster)), cluster);
      // Argo CD syncs each component directory on its own: one cluster of each release (us-1
      // shares eu-1's bases); an object in another component would change the counts
      if (cluster === 'us-1') continue;
      for (const dir of readdirSync(path.join(full, 'clusters', cluster)).filter((d) => /^\d\d-/.test(d))) {
        const component = kubectlKustomize(path.join(shared, 'clusters', cluster, dir));
        assert.equal(component.split('\n---\n').length, objectFiles(path.join(full, 'clusters', cluster, dir)), `${cluster}/${dir}`);
      }
    }
  },
);

for (const fleetLayout of ['shared', 'full'] as const) {
  test(`argocd fleet (${fleetLayout}): every wiring object valid against the real CRDs, destinations from the overlays, names per cluster, kustomize builds`, async () => {
    const { files } = await renderFleetDir(writeTempManifest(fleetFiles()), 'argocd', fleetLayout);
    const out = tempDir();
    await writeOutput(out, files);
    for (const cluster of ['eu-1', 'us-1', 'old-1']) {
      const wiring = [...clusterTree(files, cluster)]
        .filter(([f]) => f.startsWith('argocd/') && !f.endsWith('kustomization.yaml'))
        .map(([, t]) => YAML.parse(t) as KObject);
      for (const o of wiring) assert.deepEqual(wiringProblems(o), [], `${cluster} ${o.kind} ${o.metadata.name}`);
      const apps = wiring.filter((o) => o.kind === 'Application' && o.metadata.name !== `capi-gitops-${cluster}`);
      assert.equal(apps.length, 4);
      for (const app of apps) {
        const spec = app.spec as { destination: { name?: string }; source: { path: string }; project: string };
        assert.equal(spec.destination.name, cluster);
        assert.match(spec.source.path, new RegExp(`^fleet/clusters/${cluster}/0\\d-`));
        assert.ok(app.metadata.name!.startsWith(`capi-gitops-${cluster}-`), app.metadata.name);
        assert.equal(spec.project, `capi-gitops-${cluster}`);
        // what each Application syncs builds with Argo CD's default kustomize options (in the
        // shared layout, where it reaches into bases/; the full layout's holds its files)
        if (kubectlAvailable() && cluster === 'eu-1' && fleetLayout === 'shared')
          assert.match(kubectlKustomize(path.join(out, spec.source.path.slice('fleet/'.length))), /kind: /);
      }
      if (kubectlAvailable()) kubectlKustomize(path.join(out, 'clusters', cluster, 'argocd'));
    }
  });

  test(`flux fleet (${fleetLayout}): each cluster's Kustomizations carry their own dependsOn chain, valid against the real CRDs`, async () => {
    const { files } = await renderFleetDir(writeTempManifest(fleetFiles(CLUSTERS('2025.05.0', () => ''))), 'flux', fleetLayout);
    const out = tempDir();
    await writeOutput(out, files);
    for (const cluster of ['eu-1', 'us-1', 'old-1']) {
      const wiring = [...clusterTree(files, cluster)]
        .filter(([f]) => f.startsWith('flux/') && !f.endsWith('kustomization.yaml'))
        .map(([, t]) => YAML.parse(t) as KObject);
      for (const o of wiring) assert.deepEqual(wiringProblems(o), [], `${cluster} ${o.kind} ${o.metadata.name}`);
      const names = new Set(wiring.map((o) => o.metadata.name));
      for (const k of wiring.filter((o) => o.kind === 'Kustomization')) {
        const spec = k.spec as { dependsOn?: { name: string }[]; path: string };
        for (const dep of spec.dependsOn ?? []) {
          assert.ok(dep.name.startsWith(`capi-gitops-${cluster}-`), dep.name);
          assert.ok(names.has(dep.name), `${dep.name} is one of ${cluster}'s Kustomizations`);
        }
        assert.ok(spec.path.startsWith(`./fleet/clusters/${cluster}/`), spec.path);
      }
      if (kubectlAvailable()) kubectlKustomize(path.join(out, 'clusters', cluster, 'flux'));
    }
  });
}

async function cli(args: string[], cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const r = await runCli([...args], { cwd });
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
}

function snapshot(dir: string): Map<string, { bytes: string; mtimeMs: number; ino: number }> {
  return new Map(
    [...readTree(dir)].map(([f, bytes]) => {
      const st = statSync(path.join(dir, f));
      return [f, { bytes, mtimeMs: st.mtimeMs, ino: st.ino }];
    }),
  );
}

test('render --cluster writes only that cluster; the others keep their bytes and timestamps (full layout)', async () => {
  const dir = writeTempManifest(fleetFiles());
  const out = path.join(tempDir(), 'out');
  const first = await cli(['render', '-f', dir, '-o', out, '--quiet', '--fleet-layout', 'full'], dir);
  assert.equal(first.status, 0, first.stderr);
  const before = snapshot(out);
  const lockBefore = readFileSync(path.join(dir, 'capi-gitops.lock.yaml'), 'utf8');
  // both clusters change; only us-1 is rendered
  writeFileSync(
    path.join(dir, 'providers.yaml'),
    corpusManifest('v1.12.0') +
      CLUSTERS()
        .replace('CLUSTER_TOPOLOGY: "true"', 'CLUSTER_TOPOLOGY: "false"')
        .replace(
          '{CLUSTER_TOPOLOGY: "false"}\n  gitops: {destination: {name: us-1}}',
          '{CLUSTER_TOPOLOGY: "true"}\n  gitops: {destination: {name: us-1}}',
        ),
  );
  const second = await cli(['render', '-f', dir, '-o', out, '--cluster', 'us-1', '--fleet-layout', 'full'], dir);
  assert.equal(second.status, 0, second.stderr);
  assert.match(second.stdout, /cluster eu-1: not rendered \(--cluster\), its files are kept/);
  const after = snapshot(out);
  const changed = [...after.keys()].filter(
    (f) => f !== '.capi-gitops-index' && JSON.stringify(after.get(f)) !== JSON.stringify(before.get(f)),
  );
  assert.deepEqual(changed, [
    'clusters/us-1/01-cluster-api/deployment-capi-controller-manager.yaml',
    'clusters/us-1/03-control-plane-kubeadm/deployment-capi-kubeadm-control-plane-controller-manager.yaml',
  ]);
  assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort());
  assert.match(after.get('clusters/us-1/01-cluster-api/deployment-capi-controller-manager.yaml')!.bytes, /ClusterTopology=true/);
  assert.match(after.get('clusters/eu-1/01-cluster-api/deployment-capi-controller-manager.yaml')!.bytes, /ClusterTopology=true/);
  assert.equal(readFileSync(path.join(dir, 'capi-gitops.lock.yaml'), 'utf8'), lockBefore);
  const unknown = await cli(['render', '-f', dir, '-o', out, '--cluster', 'us-2'], dir);
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /--cluster us-2: no such cluster[\s\S]*did you mean --cluster us-1\?/);
});

test("render --cluster in the shared layout: the others' objects keep their bytes, wherever sharing puts them", async () => {
  const dir = writeTempManifest(fleetFiles());
  const out = path.join(tempDir(), 'out');
  assert.equal((await cli(['render', '-f', dir, '-o', out, '--quiet'], dir)).status, 0);
  const before = readTree(out);
  // both clusters change; only us-1 is rendered, and now renders what eu-1 renders
  writeFileSync(path.join(dir, 'providers.yaml'), corpusManifest('v1.12.0') + CLUSTERS().replace('"false"', '"true"'));
  const second = await cli(['render', '-f', dir, '-o', out, '--cluster', 'us-1'], dir);
  assert.equal(second.status, 0, second.stderr);
  const after = readTree(out);
  assert.deepEqual(await expandShared(after, 'eu-1'), await expandShared(before, 'eu-1'));
  assert.deepEqual(await expandShared(after, 'us-1'), await expandShared(after, 'eu-1'));
  // old-1 shares cert-manager's base, which stays as it was
  assert.deepEqual(clusterTree(after, 'old-1'), clusterTree(before, 'old-1'));
  // eu-1's Deployments, its own before, are now in the bases both clusters list
  assert.ok(!after.has('clusters/eu-1/01-cluster-api/deployment-capi-controller-manager.yaml'));
  assert.match(
    [...after].find(([f]) => /^bases\/cluster-api\/[^/]+\/deployment-capi-controller-manager\.yaml$/.test(f))![1],
    /ClusterTopology=true/,
  );
});

const FROZEN_CHANGE = '--frozen (or check, which implies it): the lockfile would change: ';

test('a cluster moved to another release changes exactly its versions; the lock changes only for it; plan --release shows the move first', async () => {
  const dir = writeTempManifest(fleetFiles());
  const first = await lockOutput({ manifestPaths: [dir] });
  assert.ok(first.fleet);
  writeFileSync(
    path.join(dir, 'capi-gitops.lock.yaml'),
    (await import('../../src/resolve/lock/lockfile.js')).serializeLockfile(first.lock.lock),
  );
  const plan = await planRelease({ manifestPaths: [dir], clusters: ['old-1'] }, '2026.11.0');
  assert.deepEqual(plan.clusters, [
    {
      name: 'old-1',
      from: '2025.05.0',
      moves: [
        {
          cluster: 'old-1',
          component: 'cluster-api (capi-system)',
          from: 'v1.10.4',
          to: 'v1.12.0',
          fromContract: 'v1beta1',
          toContract: 'v1beta2',
        },
        {
          cluster: 'old-1',
          component: 'bootstrap-kubeadm (capi-kubeadm-bootstrap-system)',
          from: 'v1.10.4',
          to: 'v1.12.0',
          fromContract: 'v1beta1',
          toContract: 'v1beta2',
        },
        {
          cluster: 'old-1',
          component: 'control-plane-kubeadm (capi-kubeadm-control-plane-system)',
          from: 'v1.10.4',
          to: 'v1.12.0',
          fromContract: 'v1beta1',
          toContract: 'v1beta2',
        },
      ],
    },
  ]);
  writeFileSync(path.join(dir, 'providers.yaml'), corpusManifest('v1.12.0') + CLUSTERS('2026.11.0'));
  const frozen = await rejection(lockOutput({ manifestPaths: [dir], frozen: true }));
  // told before any request, at the release's line of each version that moves
  assert.deepEqual(
    frozen.diagnostics.map((d) => [d.object, d.line, d.message]),
    [
      ['cluster old-1, release 2026.11.0: CoreProvider/capi-system/cluster-api', 14, `${FROZEN_CHANGE}~ cluster-api v1.10.4 → v1.12.0`],
      [
        'cluster old-1, release 2026.11.0: BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm',
        15,
        `${FROZEN_CHANGE}~ bootstrap-kubeadm v1.10.4 → v1.12.0`,
      ],
      [
        'cluster old-1, release 2026.11.0: ControlPlaneProvider/capi-kubeadm-control-plane-system/kubeadm',
        16,
        `${FROZEN_CHANGE}~ control-plane-kubeadm v1.10.4 → v1.12.0`,
      ],
    ],
  );
  const moved = await lockOutput({ manifestPaths: [dir] });
  assert.ok(moved.fleet);
  assert.deepEqual(
    moved.lock.changes.map((c) => c.line),
    [
      'old-1: ~ cluster-api v1.10.4 → v1.12.0: requested version "v1.10.4" → "v1.12.0"; contract v1beta1 → v1beta2',
      'old-1: ~ bootstrap-kubeadm v1.10.4 → v1.12.0: requested version "v1.10.4" → "v1.12.0"; contract v1beta1 → v1beta2',
      'old-1: ~ control-plane-kubeadm v1.10.4 → v1.12.0: requested version "v1.10.4" → "v1.12.0"; contract v1beta1 → v1beta2',
    ],
  );
  // the fleet's lock round-trips through its text form
  const text = (await import('../../src/resolve/lock/lockfile.js')).serializeLockfile(moved.lock.lock);
  assert.deepEqual(parseLockfile(text, 'capi-gitops.lock.yaml'), moved.lock.lock);
});

test('an incompatible release is refused, naming the release, the provider and both contracts, at the release line', async () => {
  const broken = `---
apiVersion: capi-gitops.dev/v1alpha1
kind: Release
metadata: {name: broken}
providers:
  CoreProvider/cluster-api: v1.7.7
  BootstrapProvider/kubeadm: v1.12.0
`;
  const dir = writeTempManifest({ ...fleetFiles(), 'releases.yaml': RELEASES + broken });
  const error = await rejection(renderOutput({ manifestPaths: [dir] }));
  const d = error.diagnostics.find((x) => x.object?.includes('BootstrapProvider'));
  assert.ok(d, error.message);
  assert.equal(d.object, 'release broken: BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm');
  assert.match(
    d.message,
    /bootstrap-kubeadm v1\.12\.0 implements contract v1beta2, but the core provider cluster-api v1\.7\.7 \(contract v1beta1\)/,
  );
  assert.equal(d.file, path.join(dir, 'releases.yaml'));
  // the line of `BootstrapProvider/kubeadm: v1.12.0` in the broken Release
  assert.equal(d.line, RELEASES.split('\n').length - 1 + broken.split('\n').indexOf('  BootstrapProvider/kubeadm: v1.12.0') + 1);
});

test('a contract problem of a release a cluster runs is told once, naming the cluster and the release, where the shared manifest chose the version (docs/fleets.md)', async () => {
  // the release pins the core provider at v1.7.7 and leaves the control plane to the shared manifest (v1.12.0)
  const broken = `---
apiVersion: capi-gitops.dev/v1alpha1
kind: Release
metadata: {name: broken}
providers:
  CoreProvider/cluster-api: v1.7.7
  BootstrapProvider/kubeadm: v1.10.4
`;
  const dir = writeTempManifest({ ...fleetFiles(CLUSTERS('broken')), 'releases.yaml': RELEASES + broken });
  const error = await rejection(renderOutput({ manifestPaths: [dir] }));
  const told = error.diagnostics.filter((d) => d.object?.includes('ControlPlaneProvider'));
  assert.equal(told.length, 1, error.message);
  assert.equal(told[0]!.object, 'cluster old-1, release broken: ControlPlaneProvider/capi-kubeadm-control-plane-system/kubeadm');
  assert.equal(told[0]!.file, path.join(dir, 'providers.yaml'));
});

test('a cluster on a deprecated release renders with a warning', async () => {
  const dir = writeTempManifest({
    ...fleetFiles(),
    'releases.yaml': RELEASES.replace('metadata: {name: "2025.05.0"}', 'metadata: {name: "2025.05.0"}\ndeprecated: true'),
  });
  const warnings: Diagnostic[] = [];
  const result = await renderOutput({ manifestPaths: [dir], clusters: ['old-1'], onWarning: (w) => warnings.push(w) });
  assert.ok(result.fleet);
  const deprecated = warnings.find(
    (w) => w.message === 'cluster old-1 runs release 2025.05.0, which is deprecated; move it to a current release',
  );
  assert.ok(deprecated, warnings.map((w) => w.message).join('\n'));
  // at the line that chose the release
  assert.ok(deprecated.file && deprecated.line, JSON.stringify(deprecated));
});

test('without clusters, renderOutput is the single-cluster render, byte for byte', async () => {
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest('v1.12.0') });
  const result = await renderOutput({ manifestPaths: [dir] });
  assert.equal(result.fleet, false);
  const single = await renderManagementCluster({ manifestPaths: [dir] });
  assert.deepEqual([...result.files], [...single.files]);
  const error = await rejection(renderOutput({ manifestPaths: [dir], clusters: ['eu-1'] }));
  assert.match(error.message, /--cluster was given, but the manifest declares no clusters/);
});

test('a contract problem found while resolving names the cluster and the layer that chose the version, at its line', async () => {
  const clusters = `clusters:
- name: eu-1
- name: lab-1
  providers:
    BootstrapProvider/kubeadm: {spec: {version: v1.12.0}}
    CoreProvider/cluster-api: {spec: {version: v1.10.4}}
`;
  const dir = writeTempManifest(fleetFiles(clusters));
  const error = await rejection(renderOutput({ manifestPaths: [dir] }));
  const bootstrap = error.diagnostics.find((d) => d.object?.includes('BootstrapProvider'));
  assert.ok(bootstrap, error.message);
  assert.equal(bootstrap.object, 'cluster lab-1, overlay: BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm');
  assert.equal(bootstrap.file, path.join(dir, 'providers.yaml'));
  const text = corpusManifest('v1.12.0') + clusters;
  assert.equal(bootstrap.line, text.split('\n').findIndex((l) => l.includes('BootstrapProvider/kubeadm: {spec: {version: v1.12.0}}')) + 1);
  assert.match(bootstrap.message, /implements contract v1beta2, but the core provider cluster-api v1\.10\.4 \(contract v1beta1\)/);
  // the control plane's version comes from the shared manifest
  const controlPlane = error.diagnostics.find((d) => d.object?.includes('ControlPlaneProvider'));
  assert.equal(controlPlane?.object, 'cluster lab-1, shared manifest: ControlPlaneProvider/capi-kubeadm-control-plane-system/kubeadm');
  assert.ok(!error.diagnostics.some((d) => d.object?.includes('eu-1')), error.message);
});
