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
  'corpus kustomize': '47175bdc7241cf5ef41e06d14ccd12b140c257cc8bad2d8dc0b1a844beeb2f30',
  'corpus argocd': 'da55566628dd7b5589b9fd8be3c5bf07d407f4ff65bad1c846fffa00b7248633',
  'corpus flux': 'ae71c4d3ef56007cf98492eff5f7c2416b219bf6f09603baf5cdffad25fe1004',
  'example kustomize': '554777b5aa0c149ffe8ed1d3848e7768dea2d4d33e28c092b119d52119b12b7e',
  'example argocd': '079063c1675533ada9d0b21c2a6f1dc9c79020798dc1cd53f92fddb97c561640',
  'example flux': '0ecb818f9e938f188d6c87bfb6794ac525472f9ea4004b251a7331bc18ad1263',
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
  'full kustomize': 'b0ed0e1d0362de8278e0015512175b1cda4a2ee6f4f48db176f9ad861de20305',
  'full argocd': '48ff1ab10a5dd0bab20e37e7ef34405bdac1a1b953c093ccf094dcbc07291ff7',
  // the ApplicationSet's lookups one cluster a line: a cluster joining is its own line of the diff
  'full argocd applicationSet': '573f58e618ed29689516b2b1f33382c589729a7a3fb50afff335591c4606c84d',
  'full flux': '8801ce10bb6db6ca3fdab1688c7440899907bf51ec5a21a4c00d372586a2f5e7',
  // the shared layout (issue 24): bases/ for what two or more clusters render alike
  'shared kustomize': 'ebcce749e93ff971f8edc53f10637e25f68517a35edc62d5b3317aaf5e401e1a',
  'shared argocd': '9a3a0d7511e177c988642525299ce30e98cf3b57bc479dfecc923a9781427a15',
  'shared argocd applicationSet': '1b3ab259a38e6ebfe61c3e1ca4d46d73fcb53c638aa01f990cecb6501225e779',
  'shared flux': '2697a49bc2e7be04b507726652cd048fb944479c8bdf2c1562332d13048e13e1',
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
  argocd: '692f2f2a879164044cea5c50d00473ea809c8dfb44faa4f13e3afc2cfd460d9b',
  flux: 'ef57a5605fd4b90794e43441f93932c5e76a3f7d94058267a8cdc94ba714d9b1',
};

for (const [layout, clusters] of Object.entries(FLAT_GITOPS)) {
  test(`a fleet with flat gitops values on its clusters in the ${layout} layout has the recorded tree hash`, async () => {
    const manifest = writeTempManifest({ 'providers.yaml': corpusManifest('v1.12.0', 'repository') + clusters });
    const result = await renderOutput({ manifestPaths: [manifest], layout: layout as 'argocd' | 'flux', set: fleetWiring[layout] });
    assert.ok(result.fleet);
    assert.equal(treeHash(result.files), RECORDED_FLAT_GITOPS[layout], layout);
  });
}
