/**
 * The fleet's one Argo CD ApplicationSet (`applicationSet: true` with clusters): valid against the
 * real CRD, and, run the way Argo CD runs it over the written tree, it generates exactly the
 * Applications the per-cluster wiring would (names, projects, destinations from the overlays,
 * paths, sync policy).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { FleetResult } from '../../src/app/fleet.js';
import { CapiGitopsError, type Diagnostic } from '../../src/core/diagnostics.js';
import { renderOutput } from '../../src/app/run.js';
import { writeOutput } from '../../src/output/write.js';
import type { KObject } from '../../src/core/kobject.js';
import { corpusManifest, tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { kubectlAvailable, kubectlKustomize } from '../helpers/tree.js';
import { wiringProblems } from '../helpers/crd-schema.js';
import { rejection } from '../helpers/assertions.js';
import { PROJECT_ROOT } from '../helpers/paths.js';

const REPO = 'https://git.example.com/platform/fleet.git';
/** The output's place in the repository (`path` value). */
const ROOT = 'fleet';

const CLUSTERS = `clusters:
- name: eu-1
  variables: {CLUSTER_TOPOLOGY: "true"}
  gitops: {destination: {name: eu-1}}
- name: us-1
  variables: {CLUSTER_TOPOLOGY: "false"}
  gitops: {destination: {name: us-1}}
- name: lab-1
  gitops: {destination: {server: "https://10.0.0.3:6443"}, project: lab}
`;

async function render(dir: string, applicationSet: boolean, clusters?: string[], outputDir?: string): Promise<FleetResult> {
  const set = [`repoURL=${REPO}`, `path=${ROOT}`, `applicationSet=${applicationSet}`].map((expression) => ({
    expression,
    forceString: false,
  }));
  const result = await renderOutput({ manifestPaths: [dir], layout: 'argocd', set, clusters, outputDir });
  assert.ok(result.fleet);
  return result;
}

// ---- Argo CD's Git directory generator and goTemplate, for the constructs the ApplicationSet uses ----

/** Go's path.Match for patterns of plain names and `*` (which never matches `/`). */
function pathMatch(pattern: string, name: string): boolean {
  const re = new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]*')}$`,
  );
  return re.test(name);
}

/** Every directory of the repository (Argo CD lists the repository's directories). */
function directories(repoDir: string, prefix = ''): string[] {
  return readdirSync(path.join(repoDir, prefix)).flatMap((entry) => {
    const rel = prefix ? `${prefix}/${entry}` : entry;
    return statSync(path.join(repoDir, rel)).isDirectory() ? [rel, ...directories(repoDir, rel)] : [];
  });
}

type Params = Record<string, unknown>;

/** Evaluates one pipeline-free Go template action: fields, string and integer literals, index, dict, get, parentheses. */
function evaluate(expression: string, params: Params): unknown {
  const tokens = expression.match(/"(?:[^"\\]|\\.)*"|\(|\)|[^\s()]+/g) ?? [];
  let i = 0;
  const term = (): unknown => {
    const token = tokens[i++]!;
    if (token === '(') {
      const value = call();
      assert.equal(tokens[i++], ')');
      return value;
    }
    if (token.startsWith('"')) return JSON.parse(token) as string;
    if (/^\d+$/.test(token)) return Number(token);
    if (token.startsWith('.')) {
      let value: unknown = params;
      for (const key of token.slice(1).split('.')) {
        // missingkey=error
        if (value === null || typeof value !== 'object' || !(key in value)) throw new Error(`map has no entry for key "${key}"`);
        value = (value as Params)[key];
      }
      return value;
    }
    return { fn: token };
  };
  const call = (): unknown => {
    const head = term();
    if (!(head && typeof head === 'object' && 'fn' in head)) return head;
    const args: unknown[] = [];
    while (i < tokens.length && tokens[i] !== ')') args.push(term());
    switch ((head as { fn: string }).fn) {
      case 'index':
        return (args[0] as unknown[])[args[1] as number];
      case 'dict': {
        const out: Params = {};
        for (let k = 0; k < args.length; k += 2) out[args[k] as string] = args[k + 1];
        return out;
      }
      case 'get':
        return (args[0] as Params)[args[1] as string] ?? '';
      default:
        throw new Error(`function ${(head as { fn: string }).fn} not handled`);
    }
  };
  return call();
}

function replace(text: string, params: Params): string {
  // an action may span lines (Go's text/template, since Go 1.16)
  return text.replace(/\{\{([\s\S]*?)\}\}/g, (_, expression: string) => String(evaluate(expression.trim(), params)));
}

function templated(value: unknown, params: Params): unknown {
  if (typeof value === 'string') return replace(value, params);
  if (Array.isArray(value)) return value.map((v) => templated(v, params));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, templated(v, params)]));
  return value;
}

/**
 * The Applications an ApplicationSet with one Git directory generator makes from the repository
 * (argo-cd applicationset/generators/git.go, value_interpolation.go).
 */
function generate(appSet: KObject, repoDir: string): KObject[] {
  const spec = appSet.spec as {
    generators: { git: { directories: { path: string; exclude?: boolean }[]; values?: Record<string, string> } }[];
    template: Params;
    goTemplate: boolean;
  };
  assert.equal(spec.goTemplate, true);
  const git = spec.generators[0]!.git;
  const apps = directories(repoDir).filter(
    (dir) =>
      git.directories.some((d) => !d.exclude && pathMatch(d.path, dir)) &&
      !git.directories.some((d) => d.exclude && pathMatch(d.path, dir)),
  );
  return apps.map((dir) => {
    const params: Params = { path: { path: dir, basename: path.posix.basename(dir), segments: dir.split('/') } };
    params.values = Object.fromEntries(Object.entries(git.values ?? {}).map(([k, v]) => [k, replace(v, params)]));
    return { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', ...(templated(spec.template, params) as Params) } as KObject;
  });
}

/** What both wirings must agree on, with an empty destination field left out as Argo CD does (omitempty). */
function essentials(app: KObject): unknown {
  const spec = app.spec as { project: string; source: Params; destination: { name?: string; server?: string }; syncPolicy?: unknown };
  const destination = Object.fromEntries(
    Object.entries(spec.destination).filter(([k, v]) => k !== 'namespace' && v !== '' && v !== undefined),
  );
  return { name: app.metadata.name, project: spec.project, source: spec.source, destination, syncPolicy: spec.syncPolicy };
}

const fleetDir = writeTempManifest({ 'providers.yaml': corpusManifest('v1.12.0') + CLUSTERS });
/** The fleet with its ApplicationSet, rendered once for the tests that only read it. */
const appSetFleet = render(fleetDir, true);

test('applicationSet: true draws one ApplicationSet for the fleet, valid against the real CRD; each cluster keeps its AppProject and root Application; kustomize builds', async () => {
  const { files } = await appSetFleet;
  const sets = [...files].filter(([, text]) => /^kind: ApplicationSet$/m.test(text));
  assert.deepEqual(
    sets.map(([f]) => f),
    ['argocd/applicationset-capi-gitops-fleet.yaml'],
  );
  const appSet = YAML.parse(sets[0]![1]) as KObject;
  assert.deepEqual(wiringProblems(appSet), []);
  const git = (appSet.spec as { generators: { git: { directories: unknown } }[] }).generators[0]!.git;
  assert.deepEqual(git.directories, [{ path: 'fleet/clusters/*/*' }, { path: 'fleet/clusters/*/argocd', exclude: true }]);
  for (const cluster of ['eu-1', 'us-1', 'lab-1']) {
    const wiring = [...files.keys()].filter((f) => f.startsWith(`clusters/${cluster}/argocd/`)).sort();
    assert.deepEqual(wiring, [
      `clusters/${cluster}/argocd/application-capi-gitops-${cluster}.yaml`,
      `clusters/${cluster}/argocd/appproject-${cluster === 'lab-1' ? 'lab' : `capi-gitops-${cluster}`}.yaml`,
      `clusters/${cluster}/argocd/kustomization.yaml`,
    ]);
  }
  if (kubectlAvailable()) {
    const out = tempDir();
    await writeOutput(out, files);
    const built = YAML.parseAllDocuments(kubectlKustomize(path.join(out, 'argocd'))).map((d) => d.toJS() as KObject);
    assert.deepEqual(
      built.map((o) => o.kind),
      ['ApplicationSet'],
    );
    for (const cluster of ['eu-1', 'us-1', 'lab-1']) kubectlKustomize(path.join(out, 'clusters', cluster, 'argocd'));
  }
});

test('the fleet ApplicationSet, run as Argo CD runs its Git directory generator over the written tree, makes exactly the per-cluster Applications: destination from each overlay (argo-cd applicationset/generators/git.go, value_interpolation.go)', async () => {
  const repo = tempDir();
  const out = path.join(repo, ROOT);
  const fleet = await appSetFleet;
  await writeOutput(out, fleet.files);
  const appSet = YAML.parse(fleet.files.get('argocd/applicationset-capi-gitops-fleet.yaml')!) as KObject;
  const generated = generate(appSet, repo);
  for (const app of generated) assert.deepEqual(wiringProblems(app), [], app.metadata.name);

  const perCluster = await render(fleetDir, false);
  const expected = [...perCluster.files]
    .filter(([f]) => /^clusters\/[^/]+\/argocd\/application-/.test(f))
    .map(([, text]) => YAML.parse(text) as KObject)
    .filter((app) => !(app.spec as { source: { path: string } }).source.path.endsWith('/argocd'));
  const sortByName = (apps: unknown[]) => [...apps].sort((a, b) => ((a as { name: string }).name < (b as { name: string }).name ? -1 : 1));
  assert.equal(generated.length, 12);
  assert.equal(expected.length, 12);
  assert.deepEqual(sortByName(generated.map(essentials)), sortByName(expected.map(essentials)));
  const lab = generated.find((a) => a.metadata.name === 'capi-gitops-lab-1-01-cluster-api')!;
  assert.deepEqual(essentials(lab), { ...(essentials(lab) as object), project: 'lab', destination: { server: 'https://10.0.0.3:6443' } });
});

test('--cluster with the fleet ApplicationSet: the lookups still cover every cluster', async () => {
  const out = tempDir();
  await writeOutput(out, (await render(fleetDir, true, undefined, out)).files);
  const { files } = await render(fleetDir, true, ['eu-1'], out);
  const text = files.get('argocd/applicationset-capi-gitops-fleet.yaml')!;
  for (const cluster of ['eu-1', 'us-1', 'lab-1']) assert.match(text, new RegExp(`"${cluster}" "`));
  assert.ok(!files.has('clusters/eu-1/argocd/applicationset-capi-gitops-eu-1.yaml'));
});

test('clusters that disagree on what one ApplicationSet holds once (repoURL, applicationSet) are refused, naming them', async () => {
  const dir = writeTempManifest({
    'providers.yaml':
      corpusManifest('v1.12.0') +
      CLUSTERS.replace('gitops: {destination: {name: us-1}}', 'gitops: {destination: {name: us-1}, targetRevision: release}'),
  });
  const err = (await rejection(render(dir, true))).message;
  assert.match(err, /targetRevision differ: eu-1, lab-1: "HEAD"; us-1: "release"/);
  const mixed = writeTempManifest({
    'providers.yaml':
      corpusManifest('v1.12.0') +
      CLUSTERS.replace('gitops: {destination: {name: us-1}}', 'gitops: {destination: {name: us-1}, applicationSet: true}'),
  });
  const set = [`repoURL=${REPO}`, `path=${ROOT}`].map((expression) => ({ expression, forceString: false }));
  const message = (await rejection(renderOutput({ manifestPaths: [mixed], layout: 'argocd', set }))).message;
  assert.match(message, /applicationSet is true for us-1 and not for eu-1, lab-1/);
});

test("a cluster's gitops value the chart does not declare is told at the line and column the cluster's overlay wrote it", async () => {
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest('v1.12.0') + CLUSTERS });
  const set = [`repoURL=${REPO}`, `path=${ROOT}`].map((expression) => ({ expression, forceString: false }));
  // Argo CD's destination is not a value of the flux chart
  const error = await rejection(renderOutput({ manifestPaths: [dir], layout: 'flux', set }));
  assert.ok(error instanceof CapiGitopsError);
  const file = path.join(dir, 'providers.yaml');
  const lines = readFileSync(file, 'utf8').split('\n');
  const eu1 = lines.indexOf('  gitops: {destination: {name: eu-1}}') + 1;
  const found = error.diagnostics.find((d) => d.message === 'value destination is not a value of this chart' && d.object?.includes('eu-1'));
  assert.deepEqual([found?.file, found?.line], [file, eu1]);
  assert.match(
    found!.hint!,
    /a fleet cluster's own gitops values reach the chart of every layout: if destination is a value of the argocd chart, move it to clusters\[0\]\.argocd\.values\.destination, for the argocd chart only/,
  );
  // followed: with Argo CD's values under the clusters' argocd.values, the fleet renders with both layouts
  const moved = writeTempManifest({
    'providers.yaml': corpusManifest('v1.12.0') + CLUSTERS.replace(/gitops: (.*)$/gm, 'argocd: {values: $1}'),
  });
  assert.ok(
    (await renderOutput({ manifestPaths: [moved], layout: 'flux', set: [{ expression: `path=${ROOT}`, forceString: false }] })).fleet,
  );
  const argocd = await renderOutput({ manifestPaths: [moved], layout: 'argocd', set });
  assert.match(argocd.files.get('clusters/eu-1/argocd/application-capi-gitops-eu-1-01-cluster-api.yaml')!, /name: eu-1\n/);
});

test("a shared Config gitops value the chart does not declare is not blamed on the fleet's clusters; its hint, followed, renders", async () => {
  const shared = (gitops: string) => corpusManifest('v1.12.0') + gitops + 'clusters:\n- name: eu-1\n- name: us-1\n';
  const dir = writeTempManifest({ 'providers.yaml': shared(`gitops: {values: {repoURL: ${REPO}}}\n`) });
  const set = [{ expression: `path=${ROOT}`, forceString: false }];
  const error = await rejection(renderOutput({ manifestPaths: [dir], layout: 'flux', set }));
  assert.ok(error instanceof CapiGitopsError);
  const found = error.diagnostics.find((d) => d.message === 'value repoURL is not a value of this chart');
  assert.ok(found, error.message);
  assert.match(found.hint!, /gitops\.argocd\.values\.repoURL\)$/);
  assert.doesNotMatch(found.hint!, /fleet cluster's own gitops values/);
  const moved = writeTempManifest({ 'providers.yaml': shared(`gitops: {argocd: {values: {repoURL: ${REPO}}}}\n`) });
  assert.ok((await renderOutput({ manifestPaths: [moved], layout: 'flux', set })).fleet);
});

test("with a chart of one's own (no per-cluster releaseName or project defaults), clusters whose Applications, root Application or AppProject would share a name in the one Argo CD are refused at Config clusters; the hints followed render distinct names", async () => {
  const chartCopy = (dir: string) => cpSync(path.join(PROJECT_ROOT, 'charts', 'argocd'), path.join(dir, 'my-chart'), { recursive: true });
  const manifest = (entries: string) =>
    corpusManifest('v1.12.0') +
    `gitops: {chart: ./my-chart}\nclusters:\n- name: eu-1\n  ${entries.replaceAll('CLUSTER', 'eu-1')}\n` +
    `- name: us-1\n  ${entries.replaceAll('CLUSTER', 'us-1')}\n`;
  const dir = writeTempManifest({ 'providers.yaml': manifest('argocd: {values: {destination: {name: CLUSTER}}}') });
  chartCopy(dir);
  const error = await rejection(render(dir, true));
  assert.ok(error instanceof CapiGitopsError);
  const file = path.join(dir, 'providers.yaml');
  const line = readFileSync(file, 'utf8').split('\n').indexOf('clusters:') + 1;
  assert.deepEqual(
    error.diagnostics.map((d) => [d.file, d.line, d.object, d.hint]),
    [
      [
        file,
        line,
        'Config clusters[].gitops',
        'give each cluster its own in its entry, e.g. gitops: {releaseName: capi-gitops-eu-1} in the cluster eu-1',
      ],
      [
        file,
        line,
        'AppProject argocd/capi-gitops',
        'give each cluster its own project in its entry, e.g. gitops: {project: capi-gitops-eu-1} in the cluster eu-1',
      ],
    ],
  );
  assert.match(
    error.diagnostics[0]!.message,
    /the clusters eu-1, us-1 have the same releaseName capi-gitops: .* Argo CD refuses an ApplicationSet/,
  );
  const followed = writeTempManifest({
    'providers.yaml': manifest(
      'argocd: {values: {destination: {name: CLUSTER}}}\n  gitops: {releaseName: capi-gitops-CLUSTER, project: capi-gitops-CLUSTER}',
    ),
  });
  chartCopy(followed);
  const { files } = await render(followed, true);
  assert.ok(files.has('clusters/eu-1/argocd/appproject-capi-gitops-eu-1.yaml'));
  assert.ok(files.has('clusters/us-1/argocd/application-capi-gitops-us-1.yaml'));
  assert.match(files.get('argocd/applicationset-capi-gitops-fleet.yaml')!, /"eu-1" "capi-gitops-eu-1"\n\s+"us-1" "capi-gitops-us-1"/);
});

test("a chart of one's own whose applicationset.yaml was changed is warned about with applicationSet: true (the fleet's ApplicationSet is not drawn by it); the template as chart show wrote it is not", async () => {
  const entries = (c: string) =>
    `- name: ${c}\n  argocd: {values: {destination: {name: ${c}}}}\n  gitops: {releaseName: r-${c}, project: p-${c}}\n`;
  const dir = writeTempManifest({
    'providers.yaml': corpusManifest('v1.12.0') + `gitops: {chart: ./my-chart}\nclusters:\n${entries('eu-1')}${entries('us-1')}`,
  });
  cpSync(path.join(PROJECT_ROOT, 'charts', 'argocd'), path.join(dir, 'my-chart'), { recursive: true });
  const warned = async () => {
    const warnings: string[] = [];
    const set = [`repoURL=${REPO}`, `path=${ROOT}`, 'applicationSet=true'].map((expression) => ({ expression, forceString: false }));
    await renderOutput({ manifestPaths: [dir], layout: 'argocd', set, onWarning: (w) => warnings.push(`${w.file}: ${w.message}`) });
    return warnings.filter((w) => w.includes('applicationset.yaml'));
  };
  assert.deepEqual(await warned(), []);
  const template = path.join(dir, 'my-chart', 'templates', 'applicationset.yaml');
  writeFileSync(template, readFileSync(template, 'utf8').replace('app.kubernetes.io/managed-by: capi-gitops', 'team: platform'));
  const [warning, ...more] = await warned();
  assert.deepEqual(more, []);
  assert.match(
    warning!,
    /applicationset\.yaml: with applicationSet: true, the fleet's one ApplicationSet .* only ignoreDifferences are kept$/,
  );
});

test("two clusters on one Argo CD destination (the chart's default, or a copied destination.name) are a warning per destination naming its clusters, at the copy's line or the entry the hint names, as Argo CD's SharedResourceWarning is; the hints followed render without it (argo-cd common/common.go KubernetesInternalAPIServerAddr)", async () => {
  const manifest = (a2: string, a4: string) =>
    corpusManifest('v1.12.0') +
    'clusters:\n' +
    '- name: a1\n' +
    `- name: a2\n${a2}` +
    '- name: a3\n  argocd: {values: {destination: {name: a3}}}\n' +
    `- name: a4\n  argocd: {values: {destination: {name: ${a4}}}}\n`;
  const dir = writeTempManifest({ 'providers.yaml': manifest('', 'a3') });
  const file = path.join(dir, 'providers.yaml');
  const lines = readFileSync(file, 'utf8').split('\n');
  const shared = async (manifestDir: string, applicationSet: boolean) => {
    const warnings: Diagnostic[] = [];
    const set = [`repoURL=${REPO}`, `path=${ROOT}`, `applicationSet=${applicationSet}`].map((expression) => ({
      expression,
      forceString: false,
    }));
    await renderOutput({ manifestPaths: [manifestDir], layout: 'argocd', set, onWarning: (w) => warnings.push(w) });
    return warnings.filter((w) => w.path?.startsWith('argocd.values.destination.'));
  };
  const warnings = await shared(dir, true);
  assert.deepEqual(
    warnings.map((d) => [d.file, d.line, d.column, d.path]),
    [
      [file, lines.indexOf('- name: a2') + 1, 9, 'argocd.values.destination.server'],
      [file, lines.indexOf('- name: a4') + 2, 41, 'argocd.values.destination.name'],
    ],
  );
  assert.match(
    warnings[0]!.message,
    /^the clusters a1, a2 have the chart's default destination server https:\/\/kubernetes\.default\.svc .*: the fleet's ApplicationSet would apply each cluster's providers to that one cluster/,
  );
  assert.match(warnings[1]!.message, /^the clusters a3, a4 have the Argo CD destination name a3:/);
  assert.match(warnings[0]!.hint!, /e\.g\. argocd: \{values: \{destination: \{name: a2\}\}\} in the cluster a2 /);
  assert.match(warnings[1]!.hint!, /e\.g\. argocd: \{values: \{destination: \{name: a4\}\}\} in the cluster a4 /);
  // one root Application per cluster: the default is the cluster each one's own Argo CD runs in; a copied name is still one cluster
  assert.deepEqual(
    (await shared(dir, false)).map((d) => d.message.split(':')[0]),
    ['the clusters a3, a4 have the Argo CD destination name a3'],
  );
  const followed = writeTempManifest({ 'providers.yaml': manifest('  argocd: {values: {destination: {name: a2}}}\n', 'a4') });
  const { files } = await render(followed, true);
  assert.deepEqual(await shared(followed, true), []);
  assert.match(
    files.get('argocd/applicationset-capi-gitops-fleet.yaml')!,
    /destinationName: \|-\n\s+\{\{ get \(dict\n\s+"a1" ""\n\s+"a2" "a2"\n\s+"a3" "a3"\n\s+"a4" "a4"\n\s+\)/,
  );
});

test("a path written as Flux writes one (./fleet/) gives the fleet ApplicationSet the repository's own paths: its Git directory generator, run as Argo CD runs it (path.Match on the repository's clean paths), makes the per-cluster Applications (argo-cd applicationset/generators/git.go)", async () => {
  const set = [`repoURL=${REPO}`, `path=./${ROOT}/`, 'applicationSet=true'].map((expression) => ({ expression, forceString: false }));
  const fleet = await renderOutput({ manifestPaths: [fleetDir], layout: 'argocd', set });
  const repo = tempDir();
  await writeOutput(path.join(repo, ROOT), fleet.files);
  const appSet = YAML.parse(fleet.files.get('argocd/applicationset-capi-gitops-fleet.yaml')!) as KObject;
  const git = (appSet.spec as { generators: { git: { directories: unknown; values: Record<string, string> } }[] }).generators[0]!.git;
  assert.deepEqual(git.directories, [{ path: 'fleet/clusters/*/*' }, { path: 'fleet/clusters/*/argocd', exclude: true }]);
  const generated = generate(appSet, repo);
  const expected = (await appSetFleet).files.get('argocd/applicationset-capi-gitops-fleet.yaml')!;
  assert.equal(generated.length, 12);
  assert.deepEqual(
    git.values,
    (YAML.parse(expected) as typeof appSet & { spec: { generators: { git: { values: unknown } }[] } }).spec.generators[0]!.git.values,
  );
  assert.ok(generated.some((a) => a.metadata.name === 'capi-gitops-lab-1-01-cluster-api'));
});

test("--cluster with the fleet ApplicationSet keeps the lookups of the clusters it does not render as the last run wrote them: another cluster's new destination waits for its own render, with its AppProject (argo-cd applicationset/generators/git.go)", async () => {
  const dir = writeTempManifest({ 'providers.yaml': corpusManifest('v1.12.0') + CLUSTERS });
  const out = tempDir();
  await writeOutput(out, (await render(dir, true, undefined, out)).files);
  const before = readFileSync(path.join(out, 'argocd/applicationset-capi-gitops-fleet.yaml'), 'utf8');
  writeFileSync(
    path.join(dir, 'providers.yaml'),
    corpusManifest('v1.12.0') + CLUSTERS.replace('destination: {name: us-1}', 'destination: {name: us-1-new}'),
  );
  const eu = await render(dir, true, ['eu-1'], out);
  assert.equal(eu.files.get('argocd/applicationset-capi-gitops-fleet.yaml'), before);
  await writeOutput(out, eu.files);
  const us = await render(dir, true, ['us-1'], out);
  const after = us.files.get('argocd/applicationset-capi-gitops-fleet.yaml')!;
  assert.match(after, /"us-1" "us-1-new"/);
  assert.match(us.files.get('clusters/us-1/argocd/appproject-capi-gitops-us-1.yaml')!, /name: us-1-new/);
});

test("a cluster added to the fleet changes the ApplicationSet by one line per lookup, each naming that cluster: the lookups are written one cluster a line (Go's text/template reads an action across lines), so a pull request's line diff shows who joined", async () => {
  const before = (await appSetFleet).files.get('argocd/applicationset-capi-gitops-fleet.yaml')!;
  const dir = writeTempManifest({
    'providers.yaml': `${corpusManifest('v1.12.0')}${CLUSTERS}- name: ap-1\n  gitops: {destination: {name: ap-1}}\n`,
  });
  const after = (await render(dir, true)).files.get('argocd/applicationset-capi-gitops-fleet.yaml')!;
  const lines = (text: string) => text.split('\n');
  const removed = lines(before).filter((l) => !lines(after).includes(l));
  const added = lines(after).filter((l) => !lines(before).includes(l));
  assert.deepEqual(removed, []);
  assert.deepEqual(
    added,
    ['    "ap-1" "capi-gitops-ap-1"', '    "ap-1" "capi-gitops-ap-1"', '    "ap-1" "ap-1"', '    "ap-1" ""'].map((l) => `        ${l}`),
  );
});
