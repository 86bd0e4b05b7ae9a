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
  'corpus kustomize': '00fe09bd303c104ca5fa752acdbd9839130d692117281f834bb3325b0bf36a82',
  'corpus argocd': '156daa23a1482a88f267d69fd04848988c83aaa5eef8f94b0ff40e34f9d408e2',
  'corpus flux': '32d11ad085aa2c4d728beb51426bed9446918c7924bb692c15efed6a5c3ddfb3',
  'example kustomize': '439e2832a4278b667c819c75431338a4d3d0101b26d8041ea528fe5f5db8ec26',
  'example argocd': 'cf9e93b8f17fd2fc7b917a0a05b5ea5b7fc47de424224a181df5b036a62b50e6',
  'example flux': '7a30a8ce0974ccff1c98261f7f903cd06848a2e03e7c0c89970734ed6381e85b',
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
  'full kustomize': '8598944a4e63c07a4f001795b2742c95c5455fc1b836e0a8c24a29df60b9700a',
  'full argocd': '1b3ce7d2662927a2f97765708833cc917fbcc3507efe0fe8731a246314606d48',
  // the ApplicationSet's lookups one cluster a line: a cluster joining is its own line of the diff
  'full argocd applicationSet': '756f8165ee7c95b6773af991f2b63e09d13ef6cb9e93756c0d6a4ac495b34fb9',
  'full flux': 'e654cb65932c3ebf88d42d62189d79bfc7ad101cecf9b512250a15aed6f85ae7',
  // the shared layout (issue 24): bases/ for what two or more clusters render alike
  'shared kustomize': 'f100df3122852e35186c31b81d9ca37267a60c6a6ef80d2b0295e84e031b2e4b',
  'shared argocd': '86945a72c876d8c4b63222d3f683826a47aff7f6d6d9ca488fc8fdc11add8503',
  'shared argocd applicationSet': 'ce4840bd14c4462bb53daa3943e70ff2f7ecb72620b691524df58064039f7861',
  'shared flux': '99f2b6e1b7812f2b170c4c58bdc0c3730e24036774e1280a55d89d619c27fa37',
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
  argocd: '12fbaaba5c2a028ea03293de69aff61b8f36be407400696c24ef19d055bc4db1',
  flux: '276630da23951d7a429d8761e3ad95517e5fe7f4b373cfde193ab47009917b1b',
};

for (const [layout, clusters] of Object.entries(FLAT_GITOPS)) {
  test(`a fleet with flat gitops values on its clusters in the ${layout} layout has the recorded tree hash`, async () => {
    const manifest = writeTempManifest({ 'providers.yaml': corpusManifest('v1.12.0', 'repository') + clusters });
    const result = await renderOutput({ manifestPaths: [manifest], layout: layout as 'argocd' | 'flux', set: fleetWiring[layout] });
    assert.ok(result.fleet);
    assert.equal(treeHash(result.files), RECORDED_FLAT_GITOPS[layout], layout);
  });
}
