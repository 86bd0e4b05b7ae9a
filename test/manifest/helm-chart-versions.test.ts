/**
 * `import helm-values --chart-version`: each chart release's templates, as the rules of
 * src/manifest/helm-chart-versions.ts read them from kubernetes-sigs/cluster-api-operator
 * hack/charts/cluster-api-operator/templates (file and line in each test name, at the tag named).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { importHelmValues, type HelmValuesInput } from '../../src/manifest/import-helm-values.js';
import { CHART_RELEASES, CHART_VALUE_RULES, resolveChartVersion } from '../../src/manifest/helm-chart-versions.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import semverGte from 'semver/functions/gte.js';
import semverLte from 'semver/functions/lte.js';
import { PROJECT_ROOT } from '../helpers/paths.js';

test('a chart newer than the newest known is read as that one, and the output header says so, as the warning does (docs/helm-chart-versions.md)', () => {
  const { text } = run({ core: { 'cluster-api': { version: 'v1.12.0' } } }, '0.31.0');
  assert.match(
    text,
    /^# Read as chart v0\.28\.0 of cluster-api-operator reads them \(chart v0\.31\.0 is newer than the charts capi-gitops knows\)\.$/m,
  );
  assert.doesNotMatch(text, /Read as chart v0\.31\.0/);
});

type Doc = { kind: string; metadata: { name: string; namespace: string }; spec?: Record<string, unknown> };

function run(values: Record<string, unknown>, chartVersion?: string, sets: string[] = []) {
  const input: HelmValuesInput = {
    layers: [{ source: 'values.yaml', values }],
    sets: sets.map((expression) => ({ expression, forceString: false })),
    ...(chartVersion ? { chartVersion: { text: chartVersion, origin: '--chart-version' } } : {}),
  };
  const { text, warnings } = importHelmValues(input);
  const byId: Record<string, Doc['spec'] | null> = {};
  for (const doc of parseAllDocuments(text)) {
    const value = doc.toJS() as Doc | null;
    if (value?.kind?.endsWith('Provider')) byId[`${value.kind}/${value.metadata.name}`] = value.spec ?? null;
  }
  return { byId, warnings: warnings.map((warning) => warning.message), text };
}

/** Values as a team pinned to an old chart writes them: gates for the core, AWS, the control plane and IPAM. */
const TOP_LEVEL_GATES = {
  manager: {
    featureGates: {
      core: { ClusterTopology: true, MachinePool: true },
      aws: { MachinePool: true, EKSEnableIAM: true },
      kubeadm: { ClusterTopology: true },
      'in-cluster': { SomeGate: false },
      rke2: { ClusterTopology: true },
    },
  },
  configSecret: { name: 'capa-variables', namespace: 'capa-system' },
};

test('the rules table: every row cites a template line at a released tag, and rows of one value never overlap', () => {
  for (const rule of CHART_VALUE_RULES) {
    assert.match(rule.template, /^templates\/[a-z_-]+\.(yaml|tpl):\d+\b.* at v0\.\d+\.\d+/, `${rule.value}: ${rule.template}`);
    assert.ok(CHART_RELEASES.includes(rule.since), rule.since);
    if (rule.until) assert.ok(CHART_RELEASES.includes(rule.until), rule.until);
  }
  for (const release of CHART_RELEASES) {
    for (const type of ['core', 'bootstrap', 'controlPlane', 'infrastructure', 'ipam', 'addon'] as const) {
      const seen = new Map<string, number>();
      for (const rule of CHART_VALUE_RULES) {
        const covers = rule.types.includes(type) && semverGte(release, rule.since) && (!rule.until || semverLte(release, rule.until));
        if (covers) seen.set(rule.value, (seen.get(rule.value) ?? 0) + 1);
      }
      for (const [value, count] of seen) assert.equal(count, 1, `${release} ${type} ${value}`);
    }
  }
});

test('docs/helm-chart-versions.md shows every rule of the table with its template line', () => {
  const doc = readFileSync(path.join(PROJECT_ROOT, 'docs', 'helm-chart-versions.md'), 'utf8');
  for (const rule of CHART_VALUE_RULES) {
    assert.ok(doc.includes(rule.template), `docs lack ${rule.value}: ${rule.template}`);
    assert.ok(doc.includes(`\`${rule.value}\``), `docs lack the value ${rule.value}`);
  }
});

test('chart v0.15.1, string form: manager.featureGates.core/.aws/.kubeadm into core, infrastructure and the explicit control plane (templates/core.yaml:48, infra.yaml:51, control-plane.yaml:49 at v0.15.x)', () => {
  const { byId, warnings } = run(
    { ...TOP_LEVEL_GATES, core: 'cluster-api:v1.6.2', controlPlane: 'kubeadm:v1.6.2', infrastructure: 'aws:v2.4.0' },
    '0.15.1',
  );
  assert.deepEqual(byId['CoreProvider/cluster-api'], {
    version: 'v1.6.2',
    manager: { featureGates: { ClusterTopology: true, MachinePool: true } },
    configSecret: { name: 'capa-variables', namespace: 'capa-system' },
  });
  assert.deepEqual((byId['InfrastructureProvider/aws'] as { manager: unknown }).manager, {
    featureGates: { EKSEnableIAM: true, MachinePool: true },
  });
  assert.deepEqual((byId['ControlPlaneProvider/kubeadm'] as { manager: unknown }).manager, { featureGates: { ClusterTopology: true } });
  // IPAM is read from v0.17.0 (no IPAM provider here), bootstrap and rke2 never take top-level gates.
  assert.ok(warnings.some((w) => w.startsWith('manager.featureGates.in-cluster is ignored')));
  assert.ok(warnings.some((w) => w.startsWith('manager.featureGates.rke2 is ignored')));
  assert.ok(!warnings.some((w) => w.includes('--chart-version')), 'a given chart version needs no advice to pass one');
});

test('charts v0.19.0 to v0.24.1, map form: the top-level gates still go to core, infrastructure, control plane and IPAM by name (templates/core.yaml:38, infra.yaml:38, ipam.yaml:38 at v0.24.1)', () => {
  for (const version of ['0.19.0', '0.23.0', '0.24.1']) {
    const { byId } = run(
      {
        ...TOP_LEVEL_GATES,
        core: { 'cluster-api': { version: 'v1.8.4' } },
        bootstrap: { kubeadm: { version: 'v1.8.4' } },
        controlPlane: { kubeadm: { version: 'v1.8.4' } },
        infrastructure: { aws: { version: 'v2.6.1' } },
        ipam: { 'in-cluster': { version: 'v0.1.0' } },
      },
      version,
    );
    assert.deepEqual(
      (byId['CoreProvider/cluster-api'] as { manager: unknown }).manager,
      { featureGates: { ClusterTopology: true, MachinePool: true } },
      version,
    );
    assert.deepEqual((byId['InfrastructureProvider/aws'] as { manager: unknown }).manager, {
      featureGates: { EKSEnableIAM: true, MachinePool: true },
    });
    assert.deepEqual((byId['ControlPlaneProvider/kubeadm'] as { manager: unknown }).manager, { featureGates: { ClusterTopology: true } });
    assert.deepEqual((byId['IPAMProvider/in-cluster'] as { manager: unknown }).manager, { featureGates: { SomeGate: false } });
    assert.equal((byId['BootstrapProvider/kubeadm'] as { manager?: unknown }).manager, undefined);
  }
});

test('chart v0.23.0 ignores <type>.<name>.manager (read from v0.25.0: templates/core.yaml:37 at v0.25.0) and says so', () => {
  const { byId, warnings } = run(
    { manager: { verbosity: 5 }, infrastructure: { aws: { version: 'v2.6.1', manager: { featureGates: { MachinePool: true } } } } },
    '0.23.0',
  );
  assert.deepEqual(byId['InfrastructureProvider/aws'], { version: 'v2.6.1' });
  assert.ok(
    warnings.includes('manager.verbosity (top level) is ignored by every chart: charts v0.10.0 to v0.24.1 read manager.featureGates only'),
  );
  assert.ok(
    warnings.some((w) => w.startsWith('infrastructure.aws.manager is ignored by chart v0.23.0; it is read from v0.25.0')),
    warnings.join('\n'),
  );
});

test('the kubeadm control plane the chart adds takes manager.featureGates.kubeadm only with configSecret set (templates/infra-conditions.yaml:65 inside with .Values.configSecret at v0.24.1)', () => {
  const values = { manager: { featureGates: { kubeadm: { ClusterTopology: true } } }, infrastructure: { aws: { version: 'v2.6.1' } } };
  const withSecret = run({ ...values, configSecret: { name: 'capa-variables' } }, '0.24.1');
  assert.deepEqual(withSecret.byId['ControlPlaneProvider/kubeadm'], {
    manager: { featureGates: { ClusterTopology: true } },
    configSecret: { name: 'capa-variables' },
  });
  const without = run(values, '0.24.1');
  assert.equal(without.byId['ControlPlaneProvider/kubeadm'], null);
  assert.ok(without.warnings.some((w) => w.startsWith('manager.featureGates.kubeadm is ignored')));
});

test('chart v0.25.0 removed the top-level manager.featureGates (templates/core.yaml:37 reads $core.manager at v0.25.0); the gates are left out with a warning', () => {
  const { byId, warnings } = run({ ...TOP_LEVEL_GATES, core: { 'cluster-api': { version: 'v1.9.4' } } }, '0.25.0');
  assert.deepEqual(byId['CoreProvider/cluster-api'], {
    version: 'v1.9.4',
    configSecret: { name: 'capa-variables', namespace: 'capa-system' },
  });
  const warning = warnings.find((w) => w.startsWith('manager.featureGates (top level)'));
  assert.ok(warning);
  assert.match(warning, /read by charts v0\.10\.0 to v0\.24\.1/);
  assert.match(warning, /chart v0\.25\.0 ignores it/);
  assert.doesNotMatch(warning, /v0\.19/);
});

test('without --chart-version: the newest chart, and every key an older chart read differently is named with --chart-version (the old "ignored by charts from v0.19" text is gone)', () => {
  const { byId, warnings } = run({
    ...TOP_LEVEL_GATES,
    core: { 'cluster-api': { version: 'v1.9.4' } },
    infrastructure: { aws: { version: 'v2.7.1', manager: { featureGates: { MachinePool: true } }, configSecret: { name: 'aws-creds' } } },
  });
  assert.deepEqual((byId['InfrastructureProvider/aws'] as { manager: unknown }).manager, { featureGates: { MachinePool: true } });
  assert.equal((byId['CoreProvider/cluster-api'] as { manager?: unknown }).manager, undefined);
  const gates = warnings.find((w) => w.startsWith('manager.featureGates (top level)'))!;
  assert.match(gates, /here: CoreProvider cluster-api, InfrastructureProvider aws/);
  assert.match(gates, /--chart-version/);
  const newer = warnings.find((w) => w.startsWith('read as the newest chart (v0.28.0)'))!;
  assert.match(newer, /infrastructure\.aws\.configSecret \(from v0\.24\.0\), infrastructure\.aws\.manager \(from v0\.25\.0\)/);
  assert.match(newer, /--chart-version/);
  assert.ok(!warnings.some((w) => w.includes('from v0.19 (')), warnings.join('\n'));
});

test('without --chart-version, the string form is read as chart v0.18.1 (templates/infra.yaml:3 at v0.18.1), gates included, and warns naming --chart-version', () => {
  const { byId, warnings } = run(
    { manager: { featureGates: { core: { ClusterTopology: true }, docker: { MachinePool: true } } } },
    undefined,
    ['core=cluster-api:v1.4.2', 'infrastructure=docker:v1.4.2'],
  );
  // the core gates: manager.featureGates.core, not .cluster-api (templates/core.yaml:56 at v0.18.1)
  assert.deepEqual(byId['CoreProvider/cluster-api'], { version: 'v1.4.2', manager: { featureGates: { ClusterTopology: true } } });
  assert.deepEqual(byId['InfrastructureProvider/docker'], { version: 'v1.4.2', manager: { featureGates: { MachinePool: true } } });
  assert.equal(warnings.filter((w) => w.includes('is the string form') && w.includes('--chart-version')).length, 2);
  assert.ok(
    warnings.some((w) => w.startsWith('manager.featureGates (top level) is read as chart v0.18.1') && w.includes('--chart-version')),
  );
});

test('a form the chart version cannot read fails as Helm would: a string for v0.19.0 (templates/infra.yaml:2), a map for v0.18.1 (infra.yaml:3)', () => {
  assert.throws(
    () => run({ infrastructure: 'docker:v1.4.2' }, '0.19.0'),
    (error: CapiGitopsError) => /string form "docker:v1\.4\.2", which chart v0\.19\.0 cannot read/.test(error.diagnostics[0]!.message),
  );
  assert.throws(
    () => run({ infrastructure: { docker: { version: 'v1.4.2' } } }, '0.18.1'),
    (error: CapiGitopsError) => /is a map, which chart v0\.18\.1 cannot read/.test(error.diagnostics[0]!.message),
  );
  assert.throws(
    () => run({ manager: { featureGates: { aws: 'MachinePool=true' } }, infrastructure: { aws: {} } }, '0.23.0'),
    (error: CapiGitopsError) => /ranges over it as a map of gates/.test(error.diagnostics[0]!.message),
  );
  // a gate whose value is a map: `{{ $k }}: {{ $v }}` prints Go text (map[enabled:true]), no true or false; it was "[object Object]"
  assert.throws(
    () =>
      run(
        { core: { 'cluster-api': { version: 'v1.8.0' } }, manager: { featureGates: { core: { ClusterTopology: { enabled: true } } } } },
        '0.23.0',
      ),
    (error: CapiGitopsError) =>
      error.diagnostics[0]!.path === 'manager.featureGates.core.ClusterTopology' &&
      /^is a map, which chart v0\.23\.0 prints as Go text \(ClusterTopology: map\[enabled:…\]\), not a gate's true or false$/.test(
        error.diagnostics[0]!.message,
      ) &&
      error.diagnostics[0]!.hint === 'write manager.featureGates.core.ClusterTopology=true (or false)',
  );
  // the pre-v0.25.0 nesting under a provider's own manager (core: {ClusterTopology: true}): followed,
  // `featureGates.core=true` would pass a gate named "core", which the manager refuses at start
  const nested = {
    core: { 'cluster-api': { version: 'v1.8.0', manager: { featureGates: { core: { ClusterTopology: true, MachinePool: 'false' } } } } },
  };
  assert.throws(
    () => run(nested, '0.25.0'),
    (error: CapiGitopsError) =>
      error.diagnostics[0]!.hint ===
      'write its gates one level up: core.cluster-api.manager.featureGates.ClusterTopology=true, core.cluster-api.manager.featureGates.MachinePool=false',
  );
  // followed literally, it imports the gates by their names
  const lifted = run(
    { core: { 'cluster-api': { version: 'v1.8.0', manager: { featureGates: { ClusterTopology: true, MachinePool: 'false' } } } } },
    '0.25.0',
  );
  assert.deepEqual((lifted.byId['CoreProvider/cluster-api'] as { manager: unknown }).manager, {
    featureGates: { ClusterTopology: true, MachinePool: false },
  });
});

test('configSecret per provider from v0.24.0, field by field under the top-level one, which wins when set: Sprig `default OWN GLOBAL` (templates/_helpers.tpl:26); the addon’s from v0.24.0 (addon.yaml:37); before, the global one only and none for addons', () => {
  const values = {
    configSecret: { name: 'shared', namespace: 'capi-secrets' },
    infrastructure: { aws: { version: 'v2.6.1', configSecret: { name: 'aws-variables' } } },
    addon: { helm: { version: 'v0.2.6' } },
  };
  const old = run(values, '0.23.1');
  assert.deepEqual((old.byId['InfrastructureProvider/aws'] as { configSecret: unknown }).configSecret, {
    name: 'shared',
    namespace: 'capi-secrets',
  });
  assert.deepEqual(old.byId['AddonProvider/helm'], { version: 'v0.2.6' });
  assert.ok(old.warnings.some((w) => w.startsWith('infrastructure.aws.configSecret is ignored by chart v0.23.1')));
  const next = run(values, '0.24.0');
  // `name: {{ default (($arg).configSecret).name (($.Values).configSecret).name }}`: the top-level
  // name is the value Sprig's default tests, the provider's only its fallback
  assert.deepEqual((next.byId['InfrastructureProvider/aws'] as { configSecret: unknown }).configSecret, {
    name: 'shared',
    namespace: 'capi-secrets',
  });
  assert.ok(
    next.warnings.some((w) =>
      w.startsWith('infrastructure.aws.configSecret.name is ignored by the chart: the top-level configSecret.name'),
    ),
    next.warnings.join('\n'),
  );
  assert.deepEqual(next.byId['AddonProvider/helm'], { version: 'v0.2.6', configSecret: { name: 'shared', namespace: 'capi-secrets' } });
});

test('a top-level configSecret without a name, every provider named: the name falls back to the provider’s own (templates/_helpers.tpl:26), and no provider is added to print an empty name into (core-conditions.yaml, infra-conditions.yaml)', () => {
  const values = {
    configSecret: { namespace: 'capi-secrets' },
    core: { 'cluster-api': { version: 'v1.12.0', configSecret: { name: 'core-variables' } } },
  };
  const { byId, warnings } = run(values, '0.28.0');
  assert.deepEqual(byId['CoreProvider/cluster-api'], {
    version: 'v1.12.0',
    configSecret: { name: 'core-variables', namespace: 'capi-secrets' },
  });
  assert.deepEqual(warnings, []);
  // the chart adds the kubeadm providers when infrastructure is set alone, printing `name:` empty: still refused
  assert.throws(
    () => run({ ...values, infrastructure: { docker: { version: 'v1.12.0' } } }, '0.28.0'),
    (error: CapiGitopsError) =>
      error.diagnostics.some((d) => d.path === 'configSecret.name' && /not set while configSecret is/.test(d.message)),
  );
});

test('fetchConfig.<name> for IPAM from v0.20.0 (templates/ipam.yaml:50), per provider from v0.24.0 (core.yaml:52); additionalDeployments reach IPAM providers (ipam.yaml:69 at v0.17.0)', () => {
  const values = {
    fetchConfig: { 'in-cluster': { url: 'https://example.com/ipam/releases/v0.1.0/ipam-components.yaml' } },
    additionalDeployments: { 'extra-manager': { deployment: { replicas: 1 } } },
    ipam: { 'in-cluster': { version: 'v0.1.0', fetchConfig: { oci: 'registry.example.com/ipam:v0.1.0' } } },
  };
  const v19 = run(values, '0.19.0').byId['IPAMProvider/in-cluster'] as Record<string, unknown>;
  assert.equal(v19.fetchConfig, undefined);
  assert.deepEqual(v19.additionalDeployments, values.additionalDeployments);
  const v20 = run(values, '0.20.0').byId['IPAMProvider/in-cluster'] as Record<string, unknown>;
  assert.deepEqual(v20.fetchConfig, { url: 'https://example.com/ipam/releases/v0.1.0/ipam-components.yaml' });
  const newest = run(values);
  assert.deepEqual((newest.byId['IPAMProvider/in-cluster'] as Record<string, unknown>).fetchConfig, {
    oci: 'registry.example.com/ipam:v0.1.0',
  });
  assert.ok(newest.warnings.some((w) => w.includes('fetchConfig are both set') || w.includes('both set')));
});

test('top-level fetchConfig.<name>.selector, a map the chart prints as Go text (selector: map[matchLabels:map[…]], a string the API server refuses), is refused at its line with the per-provider form as hint; it was written as selector: "[object Object]" with exit 0 (templates/infra.yaml:63 at v0.28.0, {{ $k }}: {{ $v }})', () => {
  const values = {
    infrastructure: { vsphere: { version: 'v1.11.0' } },
    fetchConfig: { vsphere: { selector: { matchLabels: { 'provider.cluster.x-k8s.io/name': 'vsphere' } } } },
  };
  const layers = [
    {
      source: 'values.yaml',
      values,
      locate: (at: readonly (string | number)[]) =>
        at.join('.') === 'fetchConfig.vsphere.selector' ? { file: 'values.yaml', line: 7, column: 5 } : undefined,
    },
  ];
  for (const chartVersion of ['0.23.0', '0.28.0']) {
    assert.throws(
      () => importHelmValues({ layers, sets: [], chartVersion: { text: chartVersion, origin: '--chart-version' } }),
      (error: unknown) => {
        assert.ok(error instanceof CapiGitopsError);
        const [problem] = error.diagnostics;
        assert.equal(error.diagnostics.length, 1);
        assert.equal(problem!.path, 'fetchConfig.vsphere.selector');
        assert.deepEqual([problem!.file, problem!.line, problem!.column], ['values.yaml', 7, 5]);
        assert.match(problem!.message, /selector: map\[matchLabels:…\]/);
        // keys only: the values may come from a valuesFrom Secret
        assert.doesNotMatch(problem!.message, /provider\.cluster\.x-k8s\.io/);
        assert.match(problem!.hint!, chartVersion === '0.28.0' ? /infrastructure\.vsphere\.fetchConfig\.selector/ : /v0\.24\.0/);
        return true;
      },
    );
  }
  // a scalar still goes through as the template prints it
  const url = run({ ...values, fetchConfig: { vsphere: { url: 'https://example.com/capv/releases' } } }, '0.28.0');
  assert.deepEqual((url.byId['InfrastructureProvider/vsphere'] as Record<string, unknown>).fetchConfig, {
    url: 'https://example.com/capv/releases',
  });
});

test('a map or list where the chart prints one value ({{ $v }}: a version, a namespace, a configSecret or additionalManifests field, metrics.insecureDiagnostics) comes out as Go text, so it is refused at its line; it was written as "[object Object]" (or a list\'s items joined) with exit 0', () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ core: { 'cluster-api': { version: { a: 'b' } } } }, 'core.cluster-api.version'],
    [{ core: { 'cluster-api': { version: ['v1.8.0'] } } }, 'core.cluster-api.version'],
    [{ infrastructure: { docker: { version: 'v1.7.7', namespace: { a: 1 } } } }, 'infrastructure.docker.namespace'],
    [{ core: { 'cluster-api': { version: 'v1.8.0', configSecret: { name: { a: 1 } } } } }, 'core.cluster-api.configSecret.name'],
    [{ configSecret: { name: 'vars', namespace: ['a'] }, core: { 'cluster-api': { version: 'v1.8.0' } } }, 'configSecret.namespace'],
    [
      { core: { 'cluster-api': { version: 'v1.8.0', additionalManifests: { name: ['m'], manifests: 'x' } } } },
      'core.cluster-api.additionalManifests.name',
    ],
    [
      { core: { 'cluster-api': { version: 'v1.8.0', manager: { metrics: { insecureDiagnostics: { a: true } } } } } },
      'core.cluster-api.manager.metrics.insecureDiagnostics',
    ],
  ];
  for (const [values, dotted] of cases) {
    const layers = [
      {
        source: 'values.yaml',
        values,
        locate: (at: readonly (string | number)[]) => (at.join('.') === dotted ? { file: 'values.yaml', line: 3, column: 14 } : undefined),
      },
    ];
    assert.throws(
      () => importHelmValues({ layers, sets: [], chartVersion: { text: '0.28.0', origin: '--chart-version' } }),
      (error: unknown) => {
        assert.ok(error instanceof CapiGitopsError, dotted);
        const problem = error.diagnostics.find((d) => d.path === dotted);
        assert.ok(problem, `${dotted}: ${error.diagnostics.map((d) => d.path).join(', ')}`);
        assert.deepEqual([problem.file, problem.line, problem.column], ['values.yaml', 3, 14]);
        assert.match(problem.message, /^is a (map|list), which chart v0\.28\.0 prints as Go text \(\w+: (map\[\w+:…\]|\[…\])\)/);
        assert.ok(problem.expected && problem.hint, dotted);
        return true;
      },
    );
  }
});

test('a top-level fetchConfig.<name> no provider takes is warned at its key: a core provider (only infrastructure and IPAM read it: templates/infra.yaml:62 at v0.16.0, ipam.yaml:50 at v0.20.0), a name no provider has, a chart older than v0.16.0; each was dropped without a word, so the operator fetched from GitHub', () => {
  const values = {
    core: { 'cluster-api': { version: 'v1.8.0' } },
    infrastructure: { aws: { version: 'v2.6.1' } },
    fetchConfig: {
      'cluster-api': { url: 'https://mirror.example.com/capi/releases' },
      asw: { url: 'https://mirror.example.com/capa/releases' },
    },
  };
  const newest = run(values, '0.23.0');
  assert.equal((newest.byId['CoreProvider/cluster-api'] as Record<string, unknown>).fetchConfig, undefined);
  const core = newest.warnings.find((w) => w.startsWith('fetchConfig.cluster-api'));
  assert.match(core ?? '', /only infrastructure and IPAM providers take the top-level fetchConfig.*core\.cluster-api\.fetchConfig/);
  const typo = newest.warnings.find((w) => w.startsWith('fetchConfig.asw'));
  assert.match(typo ?? '', /no infrastructure or IPAM provider is named asw/);
  const old = run({ infrastructure: 'aws:v2.6.1', fetchConfig: { aws: { url: 'https://mirror.example.com/capa/releases' } } }, '0.14.0');
  assert.equal((old.byId['InfrastructureProvider/aws'] as Record<string, unknown>).fetchConfig, undefined);
  assert.ok(old.warnings.some((w) => /^fetchConfig\.aws is ignored by chart v0\.14\.0/.test(w)));
  // taken: no warning
  const taken = run({ infrastructure: { aws: {} }, fetchConfig: { aws: { url: 'https://mirror.example.com/capa/releases' } } }, '0.23.0');
  assert.ok(!taken.warnings.some((w) => w.startsWith('fetchConfig')));
});

test('deployment from v0.26.0 (templates/core.yaml:37 at v0.26.0); chart v0.10.0 writes infrastructure gates without spec: unless a version or configSecret opens it (infra.yaml:43 at v0.11.0 added manager)', () => {
  const deployment = { replicas: 2 };
  assert.equal(
    (
      run({ core: { 'cluster-api': { version: 'v1.9.4', deployment } } }, '0.25.0').byId['CoreProvider/cluster-api'] as Record<
        string,
        unknown
      >
    ).deployment,
    undefined,
  );
  assert.deepEqual(
    (
      run({ core: { 'cluster-api': { version: 'v1.9.4', deployment } } }, '0.26.0').byId['CoreProvider/cluster-api'] as Record<
        string,
        unknown
      >
    ).deployment,
    deployment,
  );
  const lost = run({ manager: { featureGates: { docker: { MachinePool: true } } }, infrastructure: 'docker' }, '0.10.0');
  assert.equal(lost.byId['InfrastructureProvider/docker'], null);
  assert.ok(lost.warnings.some((w) => w.startsWith('infrastructure.docker: chart v0.10.0 writes manager without a spec: line')));
  const kept = run({ manager: { featureGates: { docker: { MachinePool: true } } }, infrastructure: 'docker' }, '0.11.0');
  assert.deepEqual(kept.byId['InfrastructureProvider/docker'], { manager: { featureGates: { MachinePool: true } } });
});

test('chart versions as written: v prefix, Flux/Argo CD ranges resolved to the newest release they allow, too old refused', () => {
  assert.deepEqual(resolveChartVersion({ text: 'v0.23.0', origin: '--chart-version' }), { version: 'v0.23.0' });
  const range = resolveChartVersion({ text: '>=0.19.0 <0.20.0', origin: 'HelmRelease x spec.chart.spec.version' });
  assert.ok(!('message' in range) && range.version === 'v0.19.0' && /range/.test(range.note?.message ?? ''));
  const tilde = resolveChartVersion({ text: '0.23.x', origin: '--chart-version' });
  assert.ok(!('message' in tilde) && tilde.version === 'v0.23.1');
  const old = resolveChartVersion({ text: '0.9.2', origin: '--chart-version' });
  assert.ok('message' in old && /older than v0\.10\.0/.test(old.message) && /--chart-version/.test(old.hint ?? ''));
  const newer = resolveChartVersion({ text: '0.31.0', origin: '--chart-version' });
  assert.ok(!('message' in newer) && /newer than v0\.28\.0/.test(newer.note?.message ?? ''));
});
