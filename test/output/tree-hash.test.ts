/**
 * The rendered trees of the corpus and of the bundled example, in every layout, hashed and
 * compared with recorded values: a refactoring or an optimisation that changes one output byte
 * fails here. When a change to the output is intended, update the value and say why in the
 * commit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { renderManagementCluster, type RenderOptions } from '../../src/app/cluster.js';
import { renderOutput } from '../../src/app/run.js';
import { compareStrings } from '../../src/core/diagnostics.js';
import { corpusManifest, writeTempManifest } from '../helpers/corpus-manifest.js';
import { PROJECT_ROOT } from '../helpers/paths.js';

/** sha256 over every (path, text) of a file tree, in code-unit order of the paths. */
export function treeHash(files: Map<string, string>): string {
  const hash = createHash('sha256');
  for (const [file, text] of [...files].sort(([a], [b]) => compareStrings(a, b))) hash.update(`${file}\0${text}\0`);
  return hash.digest('hex');
}

const corpus = writeTempManifest({ 'providers.yaml': corpusManifest('v1.12.0', 'repository') });
const example = path.join(PROJECT_ROOT, 'examples', 'management-cluster');
const wiring: Record<string, RenderOptions['set']> = {
  kustomize: [],
  argocd: [{ expression: 'repoURL=https://git.example.com/platform/management.git,path=clusters/mgmt', forceString: false }],
  flux: [{ expression: 'path=clusters/mgmt', forceString: false }],
};

const RECORDED: Record<string, string> = {
  'corpus kustomize': '5ce82f1944fd12cdbbfdbc729d5e9972f210c899cd1cb53aa3b2fba51e82a0d5',
  'corpus argocd': 'af917f8b2ed604c4ea82714b9a4540309f6fee087af714d66ea958745a52106f',
  'corpus flux': '948a05de19f49e31f73c4f1ac9e8f46bfeefc142c389fb87b23c00d56eb5b28d',
  'example kustomize': 'af6d79ebb01213c894ef0fe896ccaef5ec31efd0d67731119f9df437a3636eac',
  'example argocd': '4b01ebef9da373447e1e72e19b040052e790839496a6d01c75f7a240e1b18eb8',
  'example flux': 'c93d0ad2d452b4362666530e8b33099b35a42cdb84e12c99f753cc4c9c7df55f',
};

for (const [name, manifest] of [
  ['corpus', corpus],
  ['example', example],
] as const) {
  for (const layout of ['kustomize', 'argocd', 'flux'] as const) {
    test(`${name} rendered in the ${layout} layout has the recorded tree hash`, async () => {
      const { files } = await renderManagementCluster({ manifestPaths: [manifest], layout, set: wiring[layout] });
      const key = `${name} ${layout}`;
      assert.equal(treeHash(files), RECORDED[key], key);
    });
  }
}

/** A fleet on the corpus: two clusters on v1.12.0 that differ in a variable, one on an older release. */
const FLEET_RELEASE = `apiVersion: capi-gitops.dev/v1alpha1
kind: Release
metadata: {name: "2025.05.0"}
providers:
  CoreProvider/cluster-api: v1.10.4
  BootstrapProvider/kubeadm: v1.10.4
  ControlPlaneProvider/kubeadm: v1.10.4
`;
const FLEET_CLUSTERS = `clusters:
- name: eu-1
  variables: {CLUSTER_TOPOLOGY: "true"}
- name: us-1
  variables: {CLUSTER_TOPOLOGY: "false"}
- name: old-1
  release: "2025.05.0"
`;
const fleet = writeTempManifest({
  'providers.yaml': corpusManifest('v1.12.0', 'repository') + FLEET_CLUSTERS,
  'releases.yaml': FLEET_RELEASE,
});
const fleetWiring: Record<string, RenderOptions['set']> = {
  kustomize: [],
  argocd: [{ expression: 'repoURL=https://git.example.com/platform/fleet.git,path=fleet', forceString: false }],
  'argocd applicationSet': [
    { expression: 'repoURL=https://git.example.com/platform/fleet.git,path=fleet,applicationSet=true', forceString: false },
  ],
  flux: [{ expression: 'path=fleet', forceString: false }],
};

const RECORDED_FLEET: Record<string, string> = {
  'full kustomize': '266af0f5e42e82142eb42ca6a02f27d2621c59e6b6b9b55cc0da0068edb18976',
  'full argocd': '56fcba0105154384ffe50b930f6ce424d9a04f61037c618838a16ac7f47682e4',
  // the ApplicationSet's lookups one cluster a line: a cluster joining is its own line of the diff
  'full argocd applicationSet': 'abf1234efcdda8c145f27945708c85e01bee72716fa4f5c4e30f760976e83a74',
  'full flux': 'c669e718a2bcb4699b6b5ffce186c48c1bb18e6d624003fce90ff6a5515f40a5',
  // the shared layout (issue 24): bases/ for what two or more clusters render alike
  'shared kustomize': 'b9c0f9a2b5bb43c7d3c8267427c1740be591d2fb4864691285b5d127b358f338',
  'shared argocd': '480204b973ed2df4355e6f9a18f89026292169773efa356174892081dca1be66',
  'shared argocd applicationSet': 'a478036151bf72aaf6babb52a43b8cb951dbb62e0fffcf3761e29b0bdfc7df9b',
  'shared flux': 'aaa1c8973a4bd84ba80696d8b1b6c0541023b4a41a1c2766d4a9b47778ba2408',
};

for (const fleetLayout of ['full', 'shared'] as const) {
  for (const [name, set] of Object.entries(fleetWiring)) {
    const layout = name.split(' ')[0] as 'kustomize' | 'argocd' | 'flux';
    test(`the corpus fleet in the ${name} layout (${fleetLayout}) has the recorded tree hash`, async () => {
      const result = await renderOutput({ manifestPaths: [fleet], layout, set, fleetLayout });
      assert.ok(result.fleet);
      assert.equal(treeHash(result.files), RECORDED_FLEET[`${fleetLayout} ${name}`], `${fleetLayout} ${name}`);
    });
  }
}

/**
 * A fleet whose clusters give flat `gitops` values (for either layout's chart), some of which the
 * shared Config's gitops.<layout>.values also set (and win): recorded before clusters could give
 * values per layout (`argocd.values`, `flux.values`), so that change left such fleets' bytes alone.
 */
const FLAT_GITOPS: Record<string, string> = {
  argocd: `gitops:
  values: {project: shared}
  argocd: {values: {destination: {name: hub}, project: hub}}
clusters:
- name: eu-1
  gitops: {destination: {name: eu-1}, project: eu}
- name: us-1
  gitops: {namespace: argo, targetRevision: stable}
`,
  flux: `gitops:
  values: {interval: 5m}
  flux: {values: {timeout: 9m}}
clusters:
- name: eu-1
  gitops: {timeout: 3m, interval: 1m}
- name: us-1
  gitops: {releaseName: us}
`,
};

const RECORDED_FLAT_GITOPS: Record<string, string> = {
  argocd: '548affc4fe4de4256b3e4d1b05437b3a50c26d2be0de222a5c208a6290f54758',
  flux: '1b66c3b372aba088e4527d08e715c9a9fdfbce609297ab734818e7b8847702e3',
};

for (const [layout, clusters] of Object.entries(FLAT_GITOPS)) {
  test(`a fleet with flat gitops values on its clusters in the ${layout} layout has the recorded tree hash`, async () => {
    const manifest = writeTempManifest({ 'providers.yaml': corpusManifest('v1.12.0', 'repository') + clusters });
    const result = await renderOutput({ manifestPaths: [manifest], layout: layout as 'argocd' | 'flux', set: fleetWiring[layout] });
    assert.ok(result.fleet);
    assert.equal(treeHash(result.files), RECORDED_FLAT_GITOPS[layout], layout);
  });
}
