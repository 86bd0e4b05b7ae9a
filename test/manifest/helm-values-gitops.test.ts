/**
 * `import helm-values -f` on the objects GitOps users keep the chart's values in: an Argo CD
 * Application, a Flux HelmRelease with its valuesFrom, a k3s/RKE2 HelmChart with its
 * HelmChartConfig. Each is composed as its tool composes it (upstream file in the test name),
 * and the chart version it names is followed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { readHelmValuesFiles } from '../../src/manifest/helm-values-sources.js';
import { importHelmValues } from '../../src/manifest/import-helm-values.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { tempDir } from '../helpers/corpus-manifest.js';
import { assertNoStackTrace, CLI, runCli } from '../helpers/cli.js';

function files(entries: Record<string, string>): string[] {
  const dir = tempDir('capi-gitops-import-');
  return Object.entries(entries).map(([name, text]) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  });
}

/** The providers the chart would install, by kind/name, for what the files hold. */
async function importFiles(paths: string[]) {
  const sources = await readHelmValuesFiles(paths);
  const { text, warnings } = importHelmValues({ layers: sources.layers, sets: [], chartVersion: sources.chartVersion });
  const byId: Record<string, Record<string, unknown> | null> = {};
  for (const doc of parseAllDocuments(text)) {
    const value = doc.toJS() as { kind: string; metadata: { name: string }; spec?: Record<string, unknown> } | null;
    if (value?.kind?.endsWith('Provider')) byId[`${value.kind}/${value.metadata.name}`] = value.spec ?? null;
  }
  const shown = (w: { path?: string; message: string }) => [w.path, w.message].filter(Boolean).join(': ');
  return { sources, byId, warnings: [...sources.warnings.map(shown), ...warnings.map((warning) => warning.message)], text };
}

const FLUX_RELEASE = `apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: capi-operator
  namespace: flux-system
spec:
  interval: 1h
  url: https://kubernetes-sigs.github.io/cluster-api-operator
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: capi-operator
  namespace: capi-operator-system
spec:
  interval: 10m
  chart:
    spec:
      chart: cluster-api-operator
      version: "0.23.0"
      sourceRef:
        kind: HelmRepository
        name: capi-operator
        namespace: flux-system
  valuesFrom:
    - kind: ConfigMap
      name: capi-providers
    - kind: Secret
      name: capi-provider-credentials
      valuesKey: secret-name
      targetPath: configSecret.name
    - kind: ConfigMap
      name: capi-overrides
      optional: true
  values:
    core:
      cluster-api:
        version: v1.8.4
    infrastructure:
      aws:
        version: v2.6.1
    manager:
      featureGates:
        core:
          ClusterTopology: true
          MachinePool: true
        aws:
          MachinePool: true
`;

const FLUX_VALUES = `apiVersion: v1
kind: ConfigMap
metadata:
  name: capi-providers
  namespace: capi-operator-system
data:
  values.yaml: |
    infrastructure:
      aws:
        version: v2.5.0
        namespace: capa-system
    configSecret:
      name: placeholder
      namespace: capa-system
---
apiVersion: v1
kind: Secret
metadata:
  name: capi-provider-credentials
  namespace: capi-operator-system
stringData:
  secret-name: capa-variables
`;

test('Flux HelmRelease: valuesFrom in order (a values.yaml merged, a Secret key set at targetPath), spec.values over them; the chart version from spec.chart.spec.version (fluxcd/helm-controller internal/chartutil/values.go ChartValuesFromReferences)', async () => {
  const { byId, sources, warnings } = await importFiles(files({ 'helmrelease.yaml': FLUX_RELEASE, 'values.yaml': FLUX_VALUES }));
  assert.equal(sources.chartVersion?.text, '0.23.0');
  assert.match(sources.chartVersion!.origin, /^HelmRelease capi-operator-system\/capi-operator spec\.chart\.spec\.version$/);
  assert.equal(sources.chartVersion!.position?.line, 20);
  // spec.values wins over the ConfigMap's version; the namespace the ConfigMap set stays (a deep merge).
  assert.deepEqual(byId['InfrastructureProvider/aws'], {
    version: 'v2.6.1',
    manager: { featureGates: { MachinePool: true } },
    configSecret: { name: 'capa-variables', namespace: 'capa-system' },
  });
  // chart v0.23.0 still reads the top-level gates
  assert.deepEqual((byId['CoreProvider/cluster-api'] as { manager: unknown }).manager, {
    featureGates: { ClusterTopology: true, MachinePool: true },
  });
  assert.ok(
    warnings.some((w) =>
      /spec\.valuesFrom\.2: ConfigMap capi-operator-system\/capi-overrides is not in the files given; it is optional/.test(w),
    ),
  );
});

test('a v1 List of the HelmRelease and its valuesFrom objects (kubectl get helmrelease,configmap,secret -o yaml) imports as its items would, each field at its line in the item (kubectl pkg/cmd/get/get.go prints several objects as a v1 List)', async () => {
  const items = [...parseAllDocuments(FLUX_RELEASE), ...parseAllDocuments(FLUX_VALUES)].map((doc) => doc.toJS() as object);
  const list = stringify({ apiVersion: 'v1', kind: 'List', items, metadata: { resourceVersion: '' } });
  const fromList = await importFiles(files({ 'export.yaml': list }));
  const fromDocuments = await importFiles(files({ 'helmrelease.yaml': FLUX_RELEASE, 'values.yaml': FLUX_VALUES }));
  assert.deepEqual(fromList.byId, fromDocuments.byId);
  assert.deepEqual(fromList.warnings, fromDocuments.warnings);
  assert.equal(fromList.sources.chartVersion?.text, '0.23.0');
  assert.equal(fromList.sources.chartVersion!.position?.line, list.split('\n').findIndex((line) => line.includes('0.23.0')) + 1);
  // what kubectl prints when nothing matched: never exit 0 with nothing
  const empty = files({ 'empty.yaml': 'apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: ""\n' });
  await assert.rejects(readHelmValuesFiles(empty), (error: CapiGitopsError) => /a List without objects/.test(error.message));
});

test('Flux HelmRelease: a required valuesFrom missing from the files is an error at its line, with the file to add', async () => {
  const [file] = files({ 'helmrelease.yaml': FLUX_RELEASE });
  await assert.rejects(readHelmValuesFiles([file!]), (error: CapiGitopsError) => {
    const problems = error.diagnostics.filter((d) => /^spec\.valuesFrom\.\d$/.test(d.path ?? ''));
    assert.equal(problems.length, 2);
    assert.equal(problems[0]!.file, file);
    assert.equal(problems[0]!.line, 26);
    assert.match(problems[0]!.hint ?? '', /another -f/);
    return true;
  });
});

test('Argo CD Application: valuesObject, then parameters (--set, forceString as --set-string), the chart version from targetRevision (argo-cd reposerver/repository/repository.go helmTemplate)', async () => {
  const application = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: capi-operator
  namespace: argocd
spec:
  project: platform
  destination:
    server: https://kubernetes.default.svc
    namespace: capi-operator-system
  source:
    repoURL: https://kubernetes-sigs.github.io/cluster-api-operator
    chart: cluster-api-operator
    targetRevision: 0.15.1
    helm:
      releaseName: capi-operator
      valuesObject:
        core: cluster-api:v1.6.2
        infrastructure: "capd-system:docker:v1.6.2"
        manager:
          featureGates:
            core:
              ClusterTopology: true
      parameters:
        - name: manager.featureGates.docker.MachinePool
          value: "true"
        - name: configSecret.name
          value: capd-variables
          forceString: true
`;
  const { byId, sources } = await importFiles(files({ 'application.yaml': application }));
  assert.equal(sources.chartVersion?.text, '0.15.1');
  assert.deepEqual(byId['CoreProvider/cluster-api'], {
    version: 'v1.6.2',
    manager: { featureGates: { ClusterTopology: true } },
    configSecret: { name: 'capd-variables' },
  });
  assert.deepEqual((byId['InfrastructureProvider/docker'] as { manager: unknown }).manager, { featureGates: { MachinePool: true } });
});

test('Argo CD: the `values` string when there is no valuesObject, and valuesObject over it when both are set (argo-cd pkg/apis/application/v1alpha1 ApplicationSourceHelm.ValuesYAML); multi-source spec.sources[] picks the chart', async () => {
  const application = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: capi-operator
  namespace: argocd
spec:
  project: default
  destination:
    server: https://kubernetes.default.svc
    namespace: capi-operator-system
  sources:
    - repoURL: https://git.example.com/platform/values.git
      targetRevision: main
      ref: values
    - repoURL: https://kubernetes-sigs.github.io/cluster-api-operator
      chart: cluster-api-operator
      targetRevision: ">=0.24.0 <0.25.0"
      helm:
        valueFiles:
          - $values/capi-operator/values.yaml
        values: |
          infrastructure:
            vsphere:
              version: v1.11.2
          configSecret:
            name: vsphere-variables
`;
  const { byId, sources, warnings } = await importFiles(files({ 'application.yaml': application }));
  assert.equal(sources.chartVersion?.text, '>=0.24.0 <0.25.0');
  assert.ok(
    warnings.some((w) => w.startsWith('--chart-version') || /">=0\.24\.0 <0\.25\.0" is a range; read as v0\.24\.1/.test(w)),
    warnings.join('\n'),
  );
  assert.ok(
    warnings.some((w) =>
      /spec\.sources\.1\.helm\.valueFiles: \$values\/capi-operator\/values\.yaml: files in a repository, which are not read/.test(w),
    ),
  );
  // at the field's own line, in the Application's file
  const valueFiles = sources.warnings.find((w) => w.path === 'spec.sources.1.helm.valueFiles')!;
  assert.match(application.split('\n')[valueFiles.line! - 1]!, /\$values\/capi-operator\/values\.yaml|valueFiles:/);
  assert.equal(valueFiles.hint, 'pass each with -f before this file, in the same order');
  assert.deepEqual(byId['InfrastructureProvider/vsphere'], { version: 'v1.11.2', configSecret: { name: 'vsphere-variables' } });

  const both = application.replace(
    '        values: |',
    '        valuesObject:\n          addon:\n            helm:\n              version: v0.2.6\n        values: |',
  );
  const second = await importFiles(files({ 'application.yaml': both }));
  assert.deepEqual(Object.keys(second.byId).sort(), ['AddonProvider/helm', 'CoreProvider/cluster-api']);
});

test('Argo CD: with spec.sources set, spec.source is ignored, as Argo CD reads only spec.sources then (argo-cd pkg/apis/application/v1alpha1/types.go ApplicationSpec.GetSources, HasMultipleSources)', async () => {
  const application = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: capi-operator
  namespace: argocd
spec:
  project: default
  destination:
    server: https://kubernetes.default.svc
    namespace: capi-operator-system
  source:
    repoURL: https://kubernetes-sigs.github.io/cluster-api-operator
    chart: cluster-api-operator
    targetRevision: 0.18.1
    helm:
      values: |
        core: "cluster-api:v1.7.7"
  sources:
    - repoURL: https://kubernetes-sigs.github.io/cluster-api-operator
      chart: cluster-api-operator
      targetRevision: 0.28.0
      helm:
        valuesObject:
          core:
            cluster-api:
              version: v1.12.0
`;
  const { byId, sources, warnings } = await importFiles(files({ 'application.yaml': application }));
  assert.equal(sources.chartVersion?.text, '0.28.0');
  assert.deepEqual(byId['CoreProvider/cluster-api'], { version: 'v1.12.0' });
  const ignored = sources.warnings.filter((w) => w.path === 'spec.source');
  assert.equal(ignored.length, 1, warnings.join('\n'));
  assert.match(ignored[0]!.message, /is ignored, as Argo CD ignores it: the Application has spec\.sources/);
  assert.equal(ignored[0]!.line, 12);

  // followed, the hint leaves one source, and nothing to warn about
  const followed = await importFiles(files({ 'application.yaml': application.replace(/ {2}source:\n[\s\S]*?(?= {2}sources:)/, '') }));
  assert.deepEqual(followed.byId['CoreProvider/cluster-api'], { version: 'v1.12.0' });
  assert.equal(followed.sources.warnings.filter((w) => w.path === 'spec.source').length, 0);
});

test('k3s/RKE2 HelmChart: valuesContent, a HelmChartConfig of the same name over it, then spec.set; the chart version from spec.version (k3s-io/helm-controller pkg/controllers/chart/chart.go valuesSecret, valuesSecretAddConfig, args)', async () => {
  const helmChart = `apiVersion: helm.cattle.io/v1
kind: HelmChart
metadata:
  name: capi-operator
  namespace: kube-system
spec:
  repo: https://kubernetes-sigs.github.io/cluster-api-operator
  chart: cluster-api-operator
  version: 0.24.0
  targetNamespace: capi-operator-system
  createNamespace: true
  valuesContent: |-
    core:
      cluster-api:
        version: v1.9.4
    bootstrap:
      rke2:
        version: v0.9.0
    controlPlane:
      rke2:
        version: v0.9.0
    infrastructure:
      docker:
        version: v1.9.4
  set:
    infrastructure.docker.configSecret.name: capd-variables
    core.cluster-api.version: "v1.9.5"
---
apiVersion: helm.cattle.io/v1
kind: HelmChartConfig
metadata:
  name: capi-operator
  namespace: kube-system
spec:
  valuesContent: |-
    bootstrap:
      rke2:
        version: v0.10.1
`;
  const { byId, sources } = await importFiles(files({ 'helmchart.yaml': helmChart }));
  assert.equal(sources.chartVersion?.text, '0.24.0');
  assert.deepEqual(byId['CoreProvider/cluster-api'], { version: 'v1.9.5' });
  assert.deepEqual(byId['BootstrapProvider/rke2'], { version: 'v0.10.1' });
  assert.deepEqual(byId['InfrastructureProvider/docker'], { version: 'v1.9.4', configSecret: { name: 'capd-variables' } });
});

test('never exit 0 with nothing: objects that install no cluster-api-operator chart, and a values file that is an object, fail with exit 1 at the file', async () => {
  const [other, objectLike, twoReleases] = files({
    'cert-manager.yaml': `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: cert-manager
  namespace: cert-manager
spec:
  chart:
    spec:
      chart: cert-manager
      version: v1.16.2
  values:
    crds:
      enabled: true
`,
    'values.yaml': `metadata:
  name: capi-operator
spec:
  values:
    infrastructure:
      aws: {}
`,
    'two.yaml': `${FLUX_RELEASE.split('---\n')[1]}---\n${FLUX_RELEASE.split('---\n')[1]!.replace('name: capi-operator\n  namespace: capi-operator-system', 'name: capi-operator-2\n  namespace: capi-operator-system')}`,
  });
  const result = await runCli(['import', 'helm-values', '-f', other!, '-f', objectLike!]);
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  assert.equal(result.stdout, '');
  assert.match(
    result.stderr,
    /cert-manager\.yaml:1:1.*names no provider: it holds Kubernetes objects \(HelmRelease cert-manager\/cert-manager \(chart cert-manager\)\)/,
  );
  assert.match(
    result.stderr,
    /values\.yaml:1:1.*names no provider, and its top-level keys \(metadata, spec\) are those of a Kubernetes object/,
  );
  const two = await runCli(['import', 'helm-values', '-f', twoReleases!]);
  assert.equal(two.code, 1);
  assert.match(two.stderr, /2 releases of the cluster-api-operator chart/);
  // the hint exports one release as a document of its own; that file imports
  const exported =
    /e\.g\. kubectl get (\S+) -n (\S+) (\S+) -o yaml > (\S+) && capi-gitops import helm-values -f (\S+) \(with -f for the ConfigMaps and Secrets its valuesFrom names\)$/m.exec(
      two.stderr,
    );
  assert.ok(exported, two.stderr);
  assert.deepEqual(exported.slice(1), [
    'helmreleases.helm.toolkit.fluxcd.io',
    'capi-operator-system',
    'capi-operator',
    'capi-operator.yaml',
    'capi-operator.yaml',
  ]);
  const one = path.join(path.dirname(twoReleases!), exported[4]!);
  writeFileSync(one, readFileSync(twoReleases!, 'utf8').split('---\n')[0]!);
  const single = await runCli(['import', 'helm-values', '-f', one]);
  assert.doesNotMatch(single.stderr, /releases of the cluster-api-operator chart/);
  assert.match(single.stderr, /the ConfigMap capi-operator-system\/capi-providers with key "values\.yaml" in one of the -f files/);
});

test('CLI: import helm-values -f a HelmRelease and its ConfigMap writes a manifest that follows the chart version it names', async () => {
  const [release, values] = files({ 'helmrelease.yaml': FLUX_RELEASE, 'values.yaml': FLUX_VALUES });
  const result = await runCli(['import', 'helm-values', '-f', release!, '-f', values!]);
  assertNoStackTrace(result);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /# Read as chart v0\.23\.0 of cluster-api-operator reads them\./);
  assert.match(result.stdout, /kind: InfrastructureProvider\nmetadata:\n {2}name: aws\n {2}namespace: capa-system/);
  // the Secret's value reached the manifest as the configSecret name; nothing else of it is printed
  assert.doesNotMatch(result.stderr, /capa-variables/);
});

test('YAML held in a string is bounded like the file: a valuesContent that escapes its lines fails at its field (hostile input)', async () => {
  const lines = Array.from({ length: 400 }, (_, i) => `key${i}: value`).join('\\n');
  const [file] = files({
    'helmchart.yaml': `apiVersion: helm.cattle.io/v1
kind: HelmChart
metadata: {name: capi-operator, namespace: kube-system}
spec:
  chart: cluster-api-operator
  valuesContent: "${lines}"
`,
  });
  const before = process.env.CAPI_GITOPS_YAML_MAX_NODES;
  process.env.CAPI_GITOPS_YAML_MAX_NODES = '300';
  try {
    await assert.rejects(readHelmValuesFiles([file!]), (error: CapiGitopsError) => {
      assert.equal(error.diagnostics[0]!.line, 6);
      assert.equal(error.diagnostics[0]!.path, 'spec.valuesContent');
      assert.match(error.diagnostics[0]!.message, /YAML nodes|nodes/);
      return true;
    });
  } finally {
    if (before === undefined) delete process.env.CAPI_GITOPS_YAML_MAX_NODES;
    else process.env.CAPI_GITOPS_YAML_MAX_NODES = before;
  }
});

test('CLI: a typo in a top-level key of the values is warned about at its line, with the key it likely meant; the chart Deployment values are not', async () => {
  const [values] = files({
    'values.yaml': `image:
  manager:
    tag: v0.23.0
resources: {}
infrastucture:
  docker:
    version: v1.10.4
`,
  });
  const result = await runCli(['import', 'helm-values', '-f', values!]);
  assertNoStackTrace(result);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    /values\.yaml:5:1: warning: infrastucture is not a value of the cluster-api-operator chart, which ignores it\n {2}expected: .*\n {2}hint: did you mean "infrastructure"\?/,
  );
  assert.doesNotMatch(result.stderr, /warning: (image|resources)/);
});

test('CLI: the top-level manager.featureGates warning and a provider key the chart ignores point at their lines', async () => {
  const [values] = files({
    'values.yaml': `infrastructure:
  docker:
    version: v1.10.4
    replicas: 3
manager:
  featureGates:
    docker: {MachinePool: true}
`,
  });
  const result = await runCli(['import', 'helm-values', '-f', values!]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /values\.yaml:4:5: warning: infrastructure\.docker\.replicas is ignored/);
  assert.match(result.stderr, /values\.yaml:6:3: warning: manager\.featureGates \(top level\) is read by charts v0\.10\.0 to v0\.24\.1/);
});

test('a key in a HelmRelease spec.values is located at its line; one from a valuesFrom ConfigMap at the ConfigMap key', async () => {
  const release = FLUX_RELEASE.replace('  values:\n', '  values:\n    infrastucture: {}\n');
  const configMap = FLUX_VALUES.replace('    configSecret:', '    controlPlan: {}\n    configSecret:');
  const paths = files({ 'helmrelease.yaml': release, 'values.yaml': configMap });
  const sources = await readHelmValuesFiles(paths);
  const { warnings } = importHelmValues({ layers: sources.layers, sets: [], chartVersion: sources.chartVersion });
  const typo = warnings.find((w) => w.message.startsWith('infrastucture '));
  assert.equal(typo?.file, paths[0]);
  assert.equal(release.split('\n')[typo!.line! - 1], '    infrastucture: {}');
  const plan = warnings.find((w) => w.message.startsWith('controlPlan '));
  assert.equal(plan?.hint, 'did you mean "controlPlane"?');
  assert.equal(plan?.file, paths[1]);
  assert.equal(configMap.split('\n')[plan!.line! - 1], '  values.yaml: |');
});

/** A Flux HelmRelease naming its chart through spec.chartRef (helm-controller api/v2 HelmReleaseSpec.ChartRef). */
const CHART_REF_RELEASE = `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: capi-operator
  namespace: flux-system
spec:
  interval: 10m
  chartRef:
    kind: OCIRepository
    name: capi-operator
  values:
    core:
      cluster-api:
        version: v1.9.0
`;

const ociRepository = (ref: string) => `apiVersion: source.toolkit.fluxcd.io/v1beta2
kind: OCIRepository
metadata:
  name: capi-operator
  namespace: flux-system
spec:
  url: oci://ghcr.io/kubernetes-sigs/cluster-api-operator/charts/cluster-api-operator
  ref:
    ${ref}
`;

test('CLI: a HelmRelease spec.chartRef follows the chart version of the OCIRepository (ref.tag, ref.semver) or source HelmChart (spec.version) given with it (fluxcd/source-controller OCIRepositoryRef, HelmChartSpec.Version)', async () => {
  const helmChart = `apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmChart
metadata:
  name: capi-operator
  namespace: flux-system
spec:
  chart: cluster-api-operator
  version: 0.22.0
  sourceRef: {kind: HelmRepository, name: capi-operator}
`;
  const cases: [string, string, RegExp][] = [
    [CHART_REF_RELEASE, ociRepository('tag: 0.23.0'), /# Read as chart v0\.23\.0 of cluster-api-operator reads them\./],
    [CHART_REF_RELEASE, ociRepository('semver: ">=0.19.0 <0.20.0"'), /# Read as chart v0\.19\.\d+ of cluster-api-operator reads them\./],
    [
      CHART_REF_RELEASE.replace('kind: OCIRepository', 'kind: HelmChart'),
      helmChart,
      /# Read as chart v0\.22\.0 of cluster-api-operator reads them\./,
    ],
  ];
  for (const [release, source, version] of cases) {
    const [hr, src] = files({ 'helmrelease.yaml': release, 'source.yaml': source });
    const result = await runCli(['import', 'helm-values', '-f', hr!, '-f', src!]);
    assertNoStackTrace(result);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, version);
    assert.doesNotMatch(result.stderr, /chart version|--chart-version/);
    assert.match(
      result.stdout,
      /kind: CoreProvider\nmetadata:\n {2}name: cluster-api\n {2}namespace: capi-system\nspec:\n {2}version: v1\.9\.0/,
    );
  }
});

test('CLI: a HelmRelease spec.chartRef whose object is not in the files, or an OCIRepository pinned only by digest, is warned at its field with a hint; each way the hint offers silences it', async () => {
  const [hr, digest, tagged] = files({
    'helmrelease.yaml': CHART_REF_RELEASE,
    'digest.yaml': ociRepository(`digest: sha256:${'0'.repeat(64)}`),
    'tagged.yaml': ociRepository('tag: 0.23.0'),
  });
  const missing = await runCli(['import', 'helm-values', '-f', hr!]);
  assert.equal(missing.code, 0, missing.stderr);
  assert.equal(
    missing.stderr,
    `${hr}:9:5: warning: HelmRelease flux-system/capi-operator: spec.chartRef: names OCIRepository capi-operator, which is not in the ` +
      "files given; its values are read as the cluster-api-operator chart's, and the chart version (in that object) is not known\n" +
      '  hint: pass the file that holds OCIRepository capi-operator with another -f, or the chart version with --chart-version <version>\n',
  );
  const pinned = await runCli(['import', 'helm-values', '-f', hr!, '-f', digest!]);
  assert.equal(pinned.code, 0, pinned.stderr);
  assert.equal(
    pinned.stderr,
    `${digest}:9:5: warning: OCIRepository flux-system/capi-operator: spec.ref: names no chart version (spec.ref.tag or spec.ref.semver), ` +
      "so the newest chart's templates are followed\n" +
      '  hint: pass the chart version it holds: --chart-version <version>, e.g. --chart-version 0.23.0\n',
  );
  for (const followed of [
    ['-f', hr!, '-f', tagged!],
    ['-f', hr!, '--chart-version', '0.23.0'],
    ['-f', hr!, '-f', digest!, '--chart-version', '0.23.0'],
  ]) {
    const result = await runCli(['import', 'helm-values', ...followed]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, '', followed.join(' '));
    assert.match(result.stdout, /# Read as chart v0\.23\.0 of cluster-api-operator reads them\./);
  }
});

test('CLI: a chart version range or a missing valuesFrom in a HelmRelease is told at its field, the object and field named once', async () => {
  const ranged = FLUX_RELEASE.replace('version: "0.23.0"', 'version: ">=0.23.0 <0.24.0"');
  const [release, values] = files({ 'helmrelease.yaml': ranged, 'values.yaml': FLUX_VALUES });
  const read = await runCli(['import', 'helm-values', '-f', release!, '-f', values!]);
  assert.equal(read.code, 0, read.stderr);
  assert.match(
    read.stderr,
    /helmrelease\.yaml:20:16: warning: HelmRelease capi-operator-system\/capi-operator: spec\.chart\.spec\.version: ">=0\.23\.0 <0\.24\.0" is a range; read as v0\.23\.1/,
  );
  assert.doesNotMatch(read.stderr, /capi-operator: HelmRelease/);

  const result = await runCli(['import', 'helm-values', '-f', release!]);
  assertNoStackTrace(result);
  assert.equal(result.code, 1, result.stderr);
  const lines = result.stderr.split('\n');
  const missing = lines.find((line) => /is not in the files given$/.test(line));
  assert.match(
    missing ?? result.stderr,
    /helmrelease\.yaml:26:7: error: HelmRelease capi-operator-system\/capi-operator: spec\.valuesFrom\.0: ConfigMap/,
  );
  assert.doesNotMatch(result.stderr, /spec\.valuesFrom\.\d: spec\.valuesFrom/);

  // --chart-version over the file's version: told at the field it overrides
  const over = await runCli(['import', 'helm-values', '-f', release!, '-f', values!, '--chart-version', '0.24.0']);
  assert.equal(over.code, 0, over.stderr);
  assert.match(
    over.stderr,
    /helmrelease\.yaml:20:16: warning: HelmRelease capi-operator-system\/capi-operator: spec\.chart\.spec\.version: --chart-version 0\.24\.0 is followed, not this version \(>=0\.23\.0 <0\.24\.0\)/,
  );

  const flag = await runCli(['import', 'helm-values', '--set', 'core.cluster-api.version=v1.12.0', '--chart-version', '0.9.0']);
  assert.equal(flag.code, 1);
  assert.match(flag.stderr, /^error: --chart-version: chart v0\.9\.0 is older than v0\.10\.0/m);
});

test('CLI: a Flux valuesFrom Secret value the manifest would hold (a credential in a fetchConfig URL) is refused at its valuesFrom, without the value, nothing printed or written; --allow-secret-values writes it with a warning, --quiet too', async () => {
  const release = `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: capi-operator
  namespace: flux-system
spec:
  chart:
    spec:
      chart: cluster-api-operator
      version: 0.24.0
  valuesFrom:
    - kind: Secret
      name: capi-fetch
      valuesKey: url
      targetPath: infrastructure.docker.fetchConfig.url
    - kind: Secret
      name: capi-fetch
      valuesKey: creds
      targetPath: configSecret.name
  values:
    infrastructure:
      docker:
        version: v1.12.0
---
apiVersion: v1
kind: Secret
metadata:
  name: capi-fetch
  namespace: flux-system
stringData:
  url: https://deploy:not-a-suite-value@git.example.com/infra.yaml
  creds: capd-variables
`;
  const [file] = files({ 'helmrelease.yaml': release });
  const output = path.join(path.dirname(file!), 'providers.yaml');
  const refused = await runCli(['import', 'helm-values', '-f', file!, '-o', output]);
  assertNoStackTrace(refused);
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(
    refused.stderr,
    /helmrelease\.yaml:12:7: error: HelmRelease flux-system\/capi-operator: spec\.valuesFrom\.0: the value infrastructure\.docker\.fetchConfig\.url of Secret flux-system\/capi-fetch is written into the manifest in plain text/,
  );
  assert.match(
    refused.stderr,
    /hint: .*or, to write Secret values into the manifest anyway, add --allow-secret-values \(warned on every run\)/,
  );
  assert.equal(existsSync(output), false, 'nothing written');
  assert.equal((await runCli(['import', 'helm-values', '-f', file!])).stdout, '', 'nothing printed');
  // a name from a Secret is no credential; and no value is printed on stderr
  assert.doesNotMatch(refused.stderr, /configSecret\.name of Secret|not-a-suite-value|capd-variables/);

  for (const quiet of [[], ['--quiet']]) {
    const allowed = await runCli(['import', 'helm-values', '-f', file!, '--allow-secret-values', ...quiet]);
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.match(allowed.stdout, /url: https:\/\/deploy:not-a-suite-value@git\.example\.com\/infra\.yaml/);
    assert.match(
      allowed.stderr,
      /helmrelease\.yaml:12:7: warning: HelmRelease flux-system\/capi-operator: spec\.valuesFrom\.0: the value infrastructure\.docker\.fetchConfig\.url of Secret flux-system\/capi-fetch is written into the manifest in plain text/,
    );
    assert.doesNotMatch(allowed.stderr, /not-a-suite-value|capd-variables/);
  }
});

test('CLI: several values of one valuesFrom Secret that the manifest would hold are one problem at that entry, naming each value (a version, a fetchConfig URL with a token)', async () => {
  const release = `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: capi-operator
  namespace: flux-system
spec:
  chart:
    spec:
      chart: cluster-api-operator
      version: 0.24.1
  valuesFrom:
    - kind: Secret
      name: capi-private
---
apiVersion: v1
kind: Secret
metadata:
  name: capi-private
  namespace: flux-system
stringData:
  values.yaml: |
    infrastructure:
      acme:
        version: v0.4.0
        fetchConfig:
          url: https://oauth2:not-a-suite-value@gitlab.example.com/acme/infrastructure-components.yaml
`;
  const [file] = files({ 'helmrelease.yaml': release });
  const refused = await runCli(['import', 'helm-values', '-f', file!]);
  assertNoStackTrace(refused);
  assert.equal(refused.code, 1, refused.stderr);
  assert.equal(refused.stderr.match(/error: /g)?.length, 1, refused.stderr);
  assert.match(
    refused.stderr,
    /helmrelease\.yaml:12:7: error: HelmRelease flux-system\/capi-operator: spec\.valuesFrom\.0: the values infrastructure\.acme\.version and infrastructure\.acme\.fetchConfig\.url of Secret flux-system\/capi-private are written into the manifest in plain text/,
  );
  assert.doesNotMatch(refused.stderr, /not-a-suite-value/);
  const allowed = await runCli(['import', 'helm-values', '-f', file!, '--allow-secret-values']);
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.equal(allowed.stderr.match(/warning: HelmRelease/g)?.length, 1, allowed.stderr);
});

test('CLI: a valuesFrom Secret value of several lines (additionalManifests.manifests holding a Secret, templates/infra.yaml writes it as a block) is refused: re-indented, it is still written', async () => {
  const release = `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: capi-operator
  namespace: flux-system
spec:
  chart:
    spec:
      chart: cluster-api-operator
      version: 0.24.0
  valuesFrom:
    - kind: Secret
      name: capi-extra
  values:
    infrastructure:
      aws:
        version: v2.8.1
---
apiVersion: v1
kind: Secret
metadata:
  name: capi-extra
  namespace: flux-system
stringData:
  values.yaml: |
    infrastructure:
      aws:
        additionalManifests:
          name: aws-extra
          manifests: |
            apiVersion: v1
            kind: Secret
            metadata:
              name: aws-creds
            stringData:
              key: not-a-suite-value
`;
  const [file] = files({ 'helmrelease.yaml': release });
  const refused = await runCli(['import', 'helm-values', '-f', file!]);
  assertNoStackTrace(refused);
  assert.equal(refused.code, 1, refused.stderr);
  assert.equal(refused.stdout, '', 'nothing printed');
  assert.match(
    refused.stderr,
    /helmrelease\.yaml:12:7: error: HelmRelease flux-system\/capi-operator: spec\.valuesFrom\.0: the value infrastructure\.aws\.additionalManifests\.manifests of Secret flux-system\/capi-extra is written into the manifest in plain text/,
  );
  assert.doesNotMatch(refused.stderr, /not-a-suite-value/);
  const allowed = await runCli(['import', 'helm-values', '-f', file!, '--allow-secret-values']);
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(allowed.stdout, /key: not-a-suite-value/);
});

test('CLI: an Argo CD fileParameter (argo-cd reposerver/repository/repository.go, helm template --set-file) is not read: the hint gives the --set-literal that reads the file, and followed in a shell, the value is imported', async () => {
  const application = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: capi-operator
  namespace: argocd
spec:
  source:
    repoURL: https://kubernetes-sigs.github.io/cluster-api-operator
    chart: cluster-api-operator
    targetRevision: 0.24.0
    helm:
      valuesObject:
        infrastructure:
          vsphere:
            version: v1.13.0
            additionalManifests:
              name: vsphere-extra
      fileParameters:
        - name: infrastructure.vsphere.additionalManifests.manifests
          path: files/vsphere extra.yaml
`;
  const [file] = files({ 'application.yaml': application });
  const dir = path.dirname(file!);
  mkdirSync(path.join(dir, 'files'));
  writeFileSync(
    path.join(dir, 'files', 'vsphere extra.yaml'),
    'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: vsphere-extra-sa\n',
  );
  const told = await runCli(['import', 'helm-values', '-f', 'application.yaml'], { cwd: dir });
  assert.equal(told.code, 0, told.stderr);
  assert.match(
    told.stderr,
    /application\.yaml:19:9: warning: .*spec\.source\.helm\.fileParameters: name files in a repository, which are not read\n/,
  );
  const hint = /hint: pass each file's text, from a checkout of that repository: (.*)\n/.exec(told.stderr)?.[1];
  assert.equal(hint, `--set-literal "infrastructure.vsphere.additionalManifests.manifests=$(cat 'files/vsphere extra.yaml')"`);
  const followed = execFileSync('bash', ['-c', `node ${CLI} import helm-values -f application.yaml ${hint}`], {
    cwd: dir,
    encoding: 'utf8',
  });
  assert.match(followed, /manifests: \|-\n {4}apiVersion: v1\n {4}kind: ServiceAccount\n/);
});

test('CLI: the string form under a chart that reads a map is an error at its line in the values file, with the map form of that very value; from --set, the flags that write it', async () => {
  const [values] = files({ 'values.yaml': 'core: "cluster-api:v1.7.7"\ninfrastructure: "docker:v1.7.7;capa:aws:v2.0.0"\n' });
  const result = await runCli(['import', 'helm-values', '-f', values!, '--chart-version', '0.20.0']);
  assertNoStackTrace(result);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /values\.yaml:2:1: error: infrastructure: infrastructure is the string form/);
  assert.match(
    result.stderr,
    /hint: write it as a map: infrastructure: \{docker: \{version: v1\.7\.7\}, aws: \{namespace: capa, version: v2\.0\.0\}\}, or pass/,
  );
  const set = await runCli(['import', 'helm-values', '--set', 'infrastructure=docker:v1.7.7;aws', '--chart-version', '0.20.0']);
  assert.equal(set.code, 1);
  const flags = /hint: write it as a map: (.*), or pass/.exec(set.stderr)?.[1];
  assert.equal(flags, "--set infrastructure.docker.version=v1.7.7 --set-json 'infrastructure.aws={}'");
  // followed as written, the flags import both providers
  const fixed = await runCli([
    'import',
    'helm-values',
    '--set',
    'infrastructure.docker.version=v1.7.7',
    '--set-json',
    'infrastructure.aws={}',
    '--chart-version',
    '0.20.0',
  ]);
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.match(fixed.stdout, /name: aws\n/);
  assert.match(fixed.stdout, /name: docker\n/);
});

test('CLI: a gate list that is not a map and a malformed string-form entry are errors at their lines in the values file', async () => {
  const [gates, entry] = files({
    'gates.yaml': 'infrastructure:\n  docker:\n    version: v1.7.7\nmanager:\n  featureGates:\n    docker: "MachinePool=true"\n',
    'entry.yaml': 'infrastructure: "a:b:c:d"\n',
  });
  const gate = await runCli(['import', 'helm-values', '-f', gates!, '--chart-version', '0.23.0']);
  assert.equal(gate.code, 1);
  assert.match(gate.stderr, /gates\.yaml:6:5: error: manager\.featureGates\.docker: .* ranges over it as a map of gates/);
  const malformed = await runCli(['import', 'helm-values', '-f', entry!]);
  assert.equal(malformed.code, 1);
  assert.match(malformed.stderr, /entry\.yaml:1:1: error: infrastructure: infrastructure="a:b:c:d": "a:b:c:d" is not name/);
});

test('CLI: import helm-values -f a directory reads its *.yaml files in order, as -f does elsewhere; a missing path says so, with the -f hint', async () => {
  const [release] = files({ 'a-helmrelease.yaml': FLUX_RELEASE, 'b-values.yaml': FLUX_VALUES });
  const dir = path.dirname(release!);
  const fromDirectory = await runCli(['import', 'helm-values', '-f', dir]);
  assertNoStackTrace(fromDirectory);
  assert.equal(fromDirectory.code, 0, fromDirectory.stderr);
  assert.equal(
    fromDirectory.stdout,
    (await runCli(['import', 'helm-values', '-f', release!, '-f', path.join(dir, 'b-values.yaml')])).stdout,
  );
  const missing = await runCli(['import', 'helm-values', '-f', path.join(dir, 'nope.yaml')]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /nope\.yaml: error: no such file or directory\n.*\n {2}hint: check the -f path/);
});

test('CLI: an Argo CD Application on a chart older than v0.10.0 (string form values): the hint names --chart-version 0.10.0, and followed, it imports', async () => {
  const [application] = files({
    'application.yaml': `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: capi-operator
  namespace: argocd
spec:
  source:
    chart: cluster-api-operator
    repoURL: https://kubernetes-sigs.github.io/cluster-api-operator
    targetRevision: 0.9.1
    helm:
      values: |
        core: cluster-api:v1.7.7
        infrastructure: "docker:v1.7.7"
`,
  });
  const refused = await runCli(['import', 'helm-values', '-f', application!]);
  assert.equal(refused.code, 1, refused.stderr);
  assertNoStackTrace(refused);
  const hint = /hint: .*--chart-version ([0-9.]+)/.exec(refused.stderr);
  assert.equal(hint?.[1], '0.10.0', refused.stderr);
  const followed = await runCli(['import', 'helm-values', '-f', application!, '--chart-version', hint[1]]);
  assert.equal(followed.code, 0, followed.stderr);
  assert.match(followed.stdout, /kind: InfrastructureProvider\nmetadata:\n {2}name: docker/);
});

test('Argo CD: with helm.valuesObject set, helm.values is ignored, with a warning at it (argo-cd pkg/apis/application/v1alpha1/types.go ApplicationSourceHelm.ValuesYAML)', async () => {
  const application = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: capi-operator
  namespace: argocd
spec:
  project: default
  destination:
    server: https://kubernetes.default.svc
    namespace: capi-operator-system
  source:
    repoURL: https://kubernetes-sigs.github.io/cluster-api-operator
    chart: cluster-api-operator
    targetRevision: 0.28.0
    helm:
      values: |
        infrastructure:
          docker:
            version: v1.12.0
      valuesObject:
        core:
          cluster-api:
            version: v1.12.0
`;
  const { byId, sources, warnings } = await importFiles(files({ 'application.yaml': application }));
  assert.deepEqual(byId['CoreProvider/cluster-api'], { version: 'v1.12.0' });
  assert.equal(byId['InfrastructureProvider/docker'], undefined);
  const ignored = sources.warnings.filter((w) => w.path === 'spec.source.helm.values');
  assert.equal(ignored.length, 1, warnings.join('\n'));
  assert.match(ignored[0]!.message, /is ignored, as Argo CD ignores it: the source has helm\.valuesObject/);
  assert.equal(ignored[0]!.line, 16);

  // followed, the hint installs both providers, and nothing is left to warn about
  const followed = await importFiles(
    files({
      'application.yaml': application
        .replace(/ {6}values: \|\n[\s\S]*?(?= {6}valuesObject:)/, '')
        .concat('        infrastructure:\n          docker:\n            version: v1.12.0\n'),
    }),
  );
  assert.deepEqual(followed.byId['CoreProvider/cluster-api'], { version: 'v1.12.0' });
  assert.deepEqual(followed.byId['InfrastructureProvider/docker'], { version: 'v1.12.0' });
  assert.equal(followed.sources.warnings.filter((w) => w.path === 'spec.source.helm.values').length, 0);
});

test("YAML 1.1's scalars (yes, on, y) are booleans wherever the values are kept, as each tool's reader types them: a values file, a Flux valuesFrom ConfigMap and an Argo CD helm.values string as Helm reads a values file (helm pkg/chart/common/values.go ReadValues → sigs.k8s.io/yaml → go-yaml v2 resolve.go), HelmRelease spec.values and Argo CD valuesObject as kubectl and the API server read the manifest (sigs.k8s.io/yaml, the same go-yaml v2)", async () => {
  const gates = (on: string, off: string) => `manager:
  featureGates:
    core:
      ClusterTopology: ${on}
      MachinePool: ${off}
`;
  const indent = (text: string, by: string) => text.replace(/^(?=.)/gm, by);
  const release = `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: capi-operator
  namespace: capi-operator-system
spec:
  chart:
    spec:
      chart: cluster-api-operator
      version: "0.23.0"
  valuesFrom:
    - kind: ConfigMap
      name: capi-gates
  values:
    core:
      cluster-api:
        version: v1.8.4
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: capi-gates
  namespace: capi-operator-system
data:
  values.yaml: |
${indent(gates('yes', 'off'), '    ')}`;
  const application = (field: 'values: |' | 'valuesObject:') => `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: capi-operator
  namespace: argocd
spec:
  source:
    repoURL: https://kubernetes-sigs.github.io/cluster-api-operator
    chart: cluster-api-operator
    targetRevision: 0.23.0
    helm:
      ${field}
        core:
          cluster-api:
            version: v1.8.4
${indent(gates('On', 'n'), '        ')}`;
  const inRelease = release.replace('        version: v1.8.4\n', `        version: v1.8.4\n${indent(gates('y', 'NO'), '    ')}`);
  const shapes = {
    // chart v0.28.0 (no version named) reads the gates under the provider's own key
    'values file': `core:\n  cluster-api:\n    version: v1.8.4\n${indent(gates('yes', 'off').replace('    core:\n', '').replace(/^ {4}/gm, '  '), '    ')}`,
    'Flux valuesFrom ConfigMap': release,
    'HelmRelease spec.values': inRelease.replace(/ {2}valuesFrom:\n(?: {4}.*\n)+/, ''),
    'Argo CD helm.values': application('values: |'),
    'Argo CD valuesObject': application('valuesObject:'),
  };
  for (const [shape, text] of Object.entries(shapes)) {
    const { byId } = await importFiles(files({ 'release.yaml': text }));
    assert.deepEqual(
      (byId['CoreProvider/cluster-api'] as { manager?: unknown } | undefined)?.manager,
      { featureGates: { ClusterTopology: true, MachinePool: false } },
      shape,
    );
  }
});

test("a key given twice in values Helm reads as a values file (a values file, an Argo CD helm.values string) is the last, with a warning at the repeat, as Helm reads it (go-yaml v2 decode.go setMapIndex, not strict); in a HelmRelease's own fields it is still an error at its line", async () => {
  const twice = `infrastructure:
  aws:
    version: v2.5.0
  aws:
    version: v2.6.1
`;
  const plain = await importFiles(files({ 'values.yaml': twice }));
  assert.equal((plain.byId['InfrastructureProvider/aws'] as { version?: string }).version, 'v2.6.1');
  const warned = plain.sources.warnings.map((w) => [w.line, w.column, w.path, w.message]);
  assert.deepEqual(warned, [
    [4, 3, 'infrastructure.aws', 'given again in its map (first at line 2): Helm reads the last one, this one, and so does capi-gitops'],
  ]);

  const application = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: capi-operator
  namespace: argocd
spec:
  source:
    repoURL: https://kubernetes-sigs.github.io/cluster-api-operator
    chart: cluster-api-operator
    targetRevision: 0.23.0
    helm:
      values: |
${twice.replace(/^/gm, '        ').trimEnd()}
`;
  const argo = await importFiles(files({ 'application.yaml': application }));
  assert.equal((argo.byId['InfrastructureProvider/aws'] as { version?: string }).version, 'v2.6.1');
  assert.deepEqual(
    argo.sources.warnings.map((w) => [w.line, w.column, w.path, w.message, w.hint]),
    [
      [
        12,
        15,
        'spec.source.helm.values',
        'line 4 of the value gives infrastructure.aws again (first at line 2): Helm reads the last one, and so does capi-gitops',
        'keep the value you mean: delete line 2 or line 4 of the value (with the lines below it that belong to it)',
      ],
    ],
  );

  const release = `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: capi-operator
  namespace: capi-operator-system
spec:
  chart:
    spec:
      chart: cluster-api-operator
      version: "0.23.0"
  values:
${twice.replace(/^/gm, '    ').trimEnd()}
`;
  const error = await readHelmValuesFiles(files({ 'release.yaml': release })).then(
    () => assert.fail('expected an error'),
    (err: unknown) => err as CapiGitopsError,
  );
  assert.deepEqual(
    error.diagnostics.map((d) => [d.line, d.column, d.message]),
    [[15, 7, 'invalid YAML: map keys must be unique (the first is at line 13)']],
  );
});
