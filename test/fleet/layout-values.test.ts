/**
 * A fleet cluster's values for one layout's chart (`argocd.values`, `flux.values`), beside its
 * `gitops` values for either layout's chart, as the Config's `gitops` has them: the README's fleet
 * renders with both layouts, the order of the four layers, and a bad value under the new fields
 * told at its line with a hint that, followed, renders.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { loadManifest } from '../../src/manifest/load.js';
import { expandFleet } from '../../src/manifest/fleet-expand.js';
import { prepareWiring } from '../../src/app/wiring.js';
import { renderOutput } from '../../src/app/run.js';
import type { Values } from '../../src/core/values.js';
import type { Diagnostic } from '../../src/core/diagnostics.js';
import { corpusManifest, tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { rejection } from '../helpers/assertions.js';
import { PROJECT_ROOT } from '../helpers/paths.js';

const PATH = [{ expression: 'path=fleet', forceString: false }];

/** The `Config` of the README's fleet example. */
function readmeFleetConfig(): { gitops?: unknown; clusters: Record<string, unknown>[] } {
  const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Fleets\n'));
  const block = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
  return YAML.parse(block) as { gitops?: unknown; clusters: Record<string, unknown>[] };
}

test("the README's fleet example renders with --layout argocd and with --layout flux, each cluster's values reaching its layout's chart", async () => {
  const config = readmeFleetConfig();
  // its wiring (the shared and the clusters' chart values) over the corpus's providers
  const wiring = {
    ...(config.gitops === undefined ? {} : { gitops: config.gitops }),
    clusters: config.clusters.map(({ name, gitops, argocd, flux }) => ({ name, gitops, argocd, flux })),
  };
  const dir = writeTempManifest({ 'fleet.yaml': corpusManifest('v1.12.0') + YAML.stringify(wiring) });
  const argocd = await renderOutput({ manifestPaths: [dir], layout: 'argocd', set: PATH });
  const flux = await renderOutput({ manifestPaths: [dir], layout: 'flux', set: PATH });
  for (const name of ['eu-1', 'us-1', 'lab-1']) {
    const application = YAML.parse(argocd.files.get(`clusters/${name}/argocd/application-capi-gitops-${name}-01-cluster-api.yaml`)!);
    assert.equal(application.spec.destination.name, name);
    assert.equal(application.spec.source.repoURL, 'https://git.example.com/platform/fleet.git');
    const kustomization = YAML.parse(flux.files.get(`clusters/${name}/flux/kustomization-capi-gitops-${name}-01-cluster-api.yaml`)!);
    assert.equal(kustomization.spec.interval, name === 'lab-1' ? '1m' : '10m', name);
  }
  // one ApplicationSet for the fleet looks each cluster's destination up from its argocd.values
  const applicationSet = [...PATH, { expression: 'applicationSet=true', forceString: false }];
  const fleetSet = await renderOutput({ manifestPaths: [dir], layout: 'argocd', set: applicationSet });
  const text = fleetSet.files.get('argocd/applicationset-capi-gitops-fleet.yaml')!;
  for (const name of ['eu-1', 'us-1', 'lab-1']) assert.match(text, new RegExp(`destinationName: \\|-\\n[^:]*"${name}" "${name}"`));
});

test("a --values file's key given twice is warned about once for the fleet, at the repeat, and its last value reaches every cluster (go-yaml v2 decode.go setMapIndex, as Helm reads values)", async () => {
  const config = readmeFleetConfig();
  const wiring = { clusters: config.clusters.map(({ name, gitops, argocd, flux }) => ({ name, gitops, argocd, flux })) };
  const dir = writeTempManifest({ 'fleet.yaml': corpusManifest('v1.12.0') + YAML.stringify(wiring) });
  // beside the manifest's directory, not in it (-f reads its *.yaml files)
  const valuesFile = path.join(tempDir('capi-gitops-values-'), 'values.yaml');
  writeFileSync(valuesFile, 'repoURL: https://git.example.com/platform/old.git\nrepoURL: https://git.example.com/platform/fleet.git\n');
  const warnings: Diagnostic[] = [];
  const argocd = await renderOutput({
    manifestPaths: [dir],
    layout: 'argocd',
    set: PATH,
    valuesFiles: [valuesFile],
    onWarning: (w) => warnings.push(w),
  });
  assert.deepEqual(
    warnings.filter((w) => w.file === valuesFile).map((w) => [w.line, w.column, w.object, w.message]),
    [
      [
        2,
        1,
        'clusters eu-1, lab-1, us-1',
        'given again in its map (first at line 1): Helm reads the last one, this one, and so does capi-gitops',
      ],
    ],
  );
  const application = YAML.parse(argocd.files.get('clusters/eu-1/argocd/application-capi-gitops-eu-1-01-cluster-api.yaml')!);
  assert.equal(application.spec.source.repoURL, 'https://git.example.com/platform/fleet.git');
});

/** The shared Config and eu-1 each give values for either chart and for one layout's chart; us-1 drops the shared argocd values. */
const SHARED = `gitops:
  path: fleet
  values: {targetRevision: a, destination: {name: a}, project: a, releaseName: a, namespace: a}
  argocd: {values: {project: c, releaseName: c, namespace: c}}
  flux: {values: {interval: 2m}}
`;
const CLUSTERS = `clusters:
- name: eu-1
  gitops: {destination: {name: b}, project: b, releaseName: b, namespace: b}
  argocd: {values: {releaseName: d, namespace: d}}
  flux: {values: {releaseName: flux-d}}
- name: us-1
  gitops: {project: b}
  argocd: null
`;

async function wiringValues(chart: 'argocd' | 'flux', config: string, set = PATH): Promise<Map<string, Values>> {
  const manifest = await loadManifest([writeTempManifest({ 'fleet.yaml': corpusManifest('v1.12.0') + config })]);
  const values = new Map<string, Values>();
  for (const cluster of expandFleet(manifest).clusters) {
    const wiring = await prepareWiring(chart, cluster.manifest, { manifestPaths: [], set, outputSubdirectory: `clusters/${cluster.name}` });
    values.set(cluster.name, wiring.values);
  }
  return values;
}

test("chart values, lowest first: shared gitops.values < the cluster's gitops < shared gitops.<layout>.values < the cluster's <layout>.values < --set", async () => {
  const set = [...PATH, { expression: 'namespace=set,repoURL=https://git.example.com/platform/fleet.git', forceString: false }];
  const argocd = await wiringValues('argocd', SHARED + CLUSTERS, set);
  const eu1 = argocd.get('eu-1')!;
  assert.equal(eu1.targetRevision, 'a');
  assert.deepEqual(eu1.destination, { server: 'https://kubernetes.default.svc', name: 'b' });
  assert.equal(eu1.project, 'c');
  assert.equal(eu1.releaseName, 'd');
  assert.equal(eu1.namespace, 'set');
  // argocd: null removes the shared gitops.argocd.values for that cluster alone
  const us1 = argocd.get('us-1')!;
  assert.deepEqual([us1.project, us1.releaseName, us1.destination], ['b', 'a', { server: 'https://kubernetes.default.svc', name: 'a' }]);
});

test("the flux chart reads a cluster's flux.values, not its argocd.values", async () => {
  const flux = await wiringValues(
    'flux',
    SHARED.replace('targetRevision: a, destination: {name: a}, project: a, ', '').replace('project: c, ', '') +
      CLUSTERS.replace('destination: {name: b}, project: b, ', '').replace('gitops: {project: b}', 'gitops: {}'),
  );
  const eu1 = flux.get('eu-1')!;
  assert.deepEqual([eu1.releaseName, eu1.namespace, eu1.interval], ['flux-d', 'b', '2m']);
  assert.equal(eu1.destination, undefined);
  assert.deepEqual([flux.get('us-1')!.releaseName, flux.get('us-1')!.interval], ['a', '2m']);
});

/** 1-based line of the first line of `file` that contains `text`, and the column `text` starts at. */
function place(file: string, text: string): [number, number] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const line = lines.findIndex((l) => l.includes(text));
  return [line + 1, lines[line]!.indexOf(text) + 1];
}

test("a value of a cluster's flux.values the flux chart refuses is told at its line and column; quoted as the hint says, it renders", async () => {
  const config = (source: string) => `clusters:\n- name: eu-1\n- name: us-1\n  flux: {values: {sourceRef: {name: ${source}}}}\n`;
  const dir = writeTempManifest({ 'fleet.yaml': corpusManifest('v1.12.0') + config('2024') });
  const error = await rejection(renderOutput({ manifestPaths: [dir], layout: 'flux', set: PATH }));
  const file = path.join(dir, 'fleet.yaml');
  const found = error.diagnostics.find((d) => d.path === 'sourceRef.name');
  assert.ok(found, error.message);
  assert.deepEqual([found.file, found.line, found.column], [file, ...place(file, '2024}}')]);
  assert.match(found.object!, /cluster us-1/);
  assert.equal(found.hint, 'quote it in clusters[1].flux.values: "2024" (YAML reads 2024 unquoted as a number)');
  const quoted = writeTempManifest({ 'fleet.yaml': corpusManifest('v1.12.0') + config('"2024"') });
  const result = await renderOutput({ manifestPaths: [quoted], layout: 'flux', set: PATH });
  const kustomization = result.files.get('clusters/us-1/flux/kustomization-capi-gitops-us-1-01-cluster-api.yaml')!;
  assert.equal(YAML.parse(kustomization).spec.sourceRef.name, '2024');
});

test("an Argo CD value under a cluster's flux.values is told at its line, with a hint that, followed, renders with both layouts", async () => {
  const config = (layout: string) => `clusters:\n- name: eu-1\n  ${layout}: {values: {destination: {name: eu-1}}}\n`;
  const dir = writeTempManifest({ 'fleet.yaml': corpusManifest('v1.12.0') + config('flux') });
  const error = await rejection(renderOutput({ manifestPaths: [dir], layout: 'flux', set: PATH }));
  const file = path.join(dir, 'fleet.yaml');
  const found = error.diagnostics.find((d) => d.message === 'value destination is not a value of this chart');
  assert.ok(found, error.message);
  assert.deepEqual([found.file, found.line], [file, place(file, 'flux: {values')[0]]);
  assert.match(
    found.hint!,
    /clusters\[0\]\.flux\.values reach the flux chart only: .*move it to clusters\[0\]\.argocd\.values\.destination/,
  );
  const moved = writeTempManifest({ 'fleet.yaml': corpusManifest('v1.12.0') + config('argocd') });
  assert.ok((await renderOutput({ manifestPaths: [moved], layout: 'flux', set: PATH })).fleet);
  const set = [...PATH, { expression: 'repoURL=https://git.example.com/platform/fleet.git', forceString: false }];
  const argocd = await renderOutput({ manifestPaths: [moved], layout: 'argocd', set });
  assert.match(argocd.files.get('clusters/eu-1/argocd/application-capi-gitops-eu-1-01-cluster-api.yaml')!, /name: eu-1\n/);
});

test("a cluster's argocd and flux take {values} only: another key is told at its line when the manifest is read", async () => {
  const dir = writeTempManifest({
    'fleet.yaml': corpusManifest('v1.12.0') + 'clusters:\n- name: eu-1\n  argocd: {valuse: {destination: {name: eu-1}}}\n',
  });
  const error = await rejection(loadManifest([dir]));
  const file = path.join(dir, 'fleet.yaml');
  const found = error.diagnostics.find((d) => d.path?.includes('valuse'));
  assert.ok(found, error.message);
  assert.deepEqual([found.file, found.line], [file, place(file, 'valuse')[0]]);
});

test("a cluster's gitops value that the shared gitops.<layout>.values replaces is warned at its line, for that layout, with where to write it instead", async () => {
  const dir = writeTempManifest({ 'fleet.yaml': corpusManifest('v1.12.0') + SHARED + CLUSTERS });
  const fleet = expandFleet(await loadManifest([dir]));
  const file = path.join(dir, 'fleet.yaml');
  // eu-1's project and releaseName lose to the shared argocd values; its own argocd.values keeps releaseName and namespace
  const [eu1, us1] = fleet.clusters.map((c) => c.warnings);
  assert.deepEqual(
    eu1!.map((w) => [w.line, w.message, w.hint]),
    [
      [
        place(file, 'project: b, releaseName: b')[0],
        "cluster eu-1: gitops.project is not used by the argocd chart: the Config's gitops.argocd.values.project replaces it " +
          "(a layout's own values win over values for either layout)",
        'to keep it for this cluster with --layout argocd, write it under clusters[0].argocd.values.project',
      ],
    ],
  );
  assert.equal(eu1![0]!.column, place(file, 'b, releaseName: b')[1]);
  // argocd: null drops the shared argocd values for us-1: nothing replaces its project
  assert.deepEqual(us1, []);
});
