import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ProviderKind } from '../../src/core/provider.js';
import { parseMetadata, type ReleaseSeries } from '../../src/resolve/metadata.js';
import {
  formatTable,
  heldBackByRange,
  heldBackDiagnostics,
  newestAvailable,
  planUpgrades,
  renderUpgradePlanText,
  selectUpdates,
  upgradeRefusals,
  upgradeWarnings,
  type ProviderUpgradeInput,
} from '../../src/resolve/upgrade-plan.js';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';
import { failsWith } from '../helpers/assertions.js';

const NAMESPACES: Record<string, string> = {
  'cluster-api': 'capi-system',
  'bootstrap-kubeadm': 'capi-kubeadm-bootstrap-system',
  'control-plane-kubeadm': 'capi-kubeadm-control-plane-system',
};

/** A provider of the corpus as the CLI would hand it over: its release directories and the newest release's metadata. */
function corpusProvider(kind: ProviderKind, name: string, label: string, installed: string): ProviderUpgradeInput {
  const available = readdirSync(path.join(CORPUS_REPOSITORY, label));
  const newest = newestAvailable(available)!;
  const metadata = parseMetadata(readFileSync(path.join(CORPUS_REPOSITORY, label, newest, 'metadata.yaml'), 'utf8'), {
    label,
    version: newest,
  });
  return { kind, name, namespace: NAMESPACES[label], installed, available, releaseSeries: metadata.releaseSeries };
}

function corpusManagementCluster(installed: string): ProviderUpgradeInput[] {
  return [
    corpusProvider('CoreProvider', 'cluster-api', 'cluster-api', installed),
    corpusProvider('BootstrapProvider', 'kubeadm', 'bootstrap-kubeadm', installed),
    corpusProvider('ControlPlaneProvider', 'kubeadm', 'control-plane-kubeadm', installed),
  ];
}

const series = (...entries: [number, number, string][]): ReleaseSeries[] =>
  entries.map(([major, minor, contract]) => ({ major, minor, contract }));

function synthetic(
  kind: ProviderKind,
  name: string,
  installed: string,
  available: string[],
  releaseSeries: ReleaseSeries[],
): ProviderUpgradeInput {
  return { kind, name, namespace: `${name}-system`, installed, available, releaseSeries };
}

test('the metadata to read is the newest tag, pre-releases included, other tags ignored (clusterctl upgrader_info.go getUpgradeInfo)', () => {
  assert.equal(newestAvailable(['v1.8.0', 'v1.12.0', 'v1.10.4', 'v1.7.7']), 'v1.12.0');
  assert.equal(newestAvailable(['v1.12.0', 'v1.13.0-rc.0', 'latest', 'nightly']), 'v1.13.0-rc.0');
  assert.equal(newestAvailable(['latest']), undefined);
});

test('corpus, core and kubeadm at v1.8.0: v1.10.4 under v1beta1, v1.12.0 under v1beta2 (clusterctl upgrader.go Plan, getLatestNextVersion)', () => {
  const plan = planUpgrades({ providers: corpusManagementCluster('v1.8.0') });
  assert.equal(plan.currentContract, 'v1beta1');
  assert.equal(plan.newestContract, 'v1beta2');
  assert.deepEqual(
    plan.providers.map((p) => [
      p.label,
      p.installed,
      p.installedContract,
      p.sameContract.version,
      p.sameContract.status,
      p.newestContract.version,
      p.newestContract.releaseContract,
      p.newestContract.status,
    ]),
    [
      ['bootstrap-kubeadm', 'v1.8.0', 'v1beta1', 'v1.10.4', 'upgrade', 'v1.12.0', 'v1beta2', 'upgrade'],
      ['control-plane-kubeadm', 'v1.8.0', 'v1beta1', 'v1.10.4', 'upgrade', 'v1.12.0', 'v1beta2', 'upgrade'],
      ['cluster-api', 'v1.8.0', 'v1beta1', 'v1.10.4', 'upgrade', 'v1.12.0', 'v1beta2', 'upgrade'],
    ],
  );
  const core = plan.providers[2];
  assert.equal(core.sameContract.allowed, true);
  assert.equal(core.sameContract.contract, 'v1beta1');
  assert.equal(core.newestContract.contract, 'v1beta2');
  // clusterctl enforces the 3-minor rule only from v1.10 (upgrader.go doUpgrade minVersionSkew); the policy is still named.
  assert.deepEqual(core.newestContract.reasons, []);
  assert.match(
    core.newestContract.warnings[0],
    /cluster-api: v1\.8\.0 → v1\.12\.0 skips more than 3 minor versions; Cluster API supports at most 3/,
  );
  assert.deepEqual(core.sameContract.warnings, []);
});

test('corpus at v1.10.4: up to date under v1beta1, v1.12.0 under v1beta2', () => {
  const plan = planUpgrades({ providers: corpusManagementCluster('v1.10.4') });
  for (const p of plan.providers) {
    assert.equal(p.sameContract.status, 'up-to-date');
    assert.equal(p.sameContract.version, '');
    assert.equal(p.newestContract.version, 'v1.12.0');
    assert.equal(p.newestContract.allowed, true);
    assert.deepEqual(p.newestContract.warnings, []);
  }
});

test('corpus at v1.12.0: one contract, nothing to do', () => {
  const plan = planUpgrades({ providers: corpusManagementCluster('v1.12.0') });
  assert.equal(plan.currentContract, 'v1beta2');
  assert.equal(plan.newestContract, 'v1beta2');
  assert.ok(plan.providers.every((p) => p.sameContract.status === 'up-to-date' && p.newestContract.status === 'up-to-date'));
  assert.match(renderUpgradePlanText(plan), /\nYou are already up to date\.\n$/);
  assert.deepEqual(selectUpdates(plan), []);
});

test('the plan as text: aligned columns, clusterctl row order (cmd/clusterctl/cmd/upgrade.go sortUpgradeItems), warnings and the update command', () => {
  const text = renderUpgradePlanText(planUpgrades({ providers: corpusManagementCluster('v1.8.0') }));
  assert.equal(
    text,
    [
      'Core provider contract: v1beta1; newest available: v1beta2',
      '',
      'NAME                    NAMESPACE                           TYPE                   INSTALLED   CONTRACT   NEXT (v1beta1)   NEXT (v1beta2)',
      'bootstrap-kubeadm       capi-kubeadm-bootstrap-system       BootstrapProvider      v1.8.0      v1beta1    v1.10.4          v1.12.0',
      'control-plane-kubeadm   capi-kubeadm-control-plane-system   ControlPlaneProvider   v1.8.0      v1beta1    v1.10.4          v1.12.0',
      'cluster-api             capi-system                         CoreProvider           v1.8.0      v1beta1    v1.10.4          v1.12.0',
      '',
      'Warnings:',
      '  bootstrap-kubeadm: v1.8.0 → v1.12.0 skips more than 3 minor versions; Cluster API supports at most 3 per upgrade (clusterctl enforces it only from v1.10)',
      '  control-plane-kubeadm: v1.8.0 → v1.12.0 skips more than 3 minor versions; Cluster API supports at most 3 per upgrade (clusterctl enforces it only from v1.10)',
      '  cluster-api: v1.8.0 → v1.12.0 skips more than 3 minor versions; Cluster API supports at most 3 per upgrade (clusterctl enforces it only from v1.10)',
      '',
      'To update: capi-gitops update --contract v1beta1',
      'To update: capi-gitops update --contract v1beta2',
      '',
    ].join('\n'),
  );
});

test('the plan does not depend on the order providers or tags are given in; its JSON is the same', () => {
  const forward = planUpgrades({ providers: corpusManagementCluster('v1.8.0') });
  const shuffled = planUpgrades({
    providers: corpusManagementCluster('v1.8.0')
      .reverse()
      .map((p) => ({ ...p, available: [...p.available].reverse() })),
  });
  assert.equal(JSON.stringify(forward), JSON.stringify(shuffled));
  const json = JSON.stringify(forward);
  assert.deepEqual(JSON.parse(json), forward);
  assert.deepEqual(Object.keys(JSON.parse(json).providers[0]), [
    'kind',
    'name',
    'namespace',
    'label',
    'installed',
    'installedContract',
    'sameContract',
    'newestContract',
  ]);
});

const CAPI_SERIES = series([1, 10, 'v1beta1'], [1, 11, 'v1beta2'], [1, 12, 'v1beta2'], [1, 13, 'v1beta2'], [1, 14, 'v1beta2']);
const CAPI_TAGS = ['v1.10.0', 'v1.11.0', 'v1.12.0', 'v1.13.0', 'v1.14.0'];

test('core and kubeadm from v1.10 on cannot skip more than 3 minors; other providers can (clusterctl upgrader.go doUpgrade)', () => {
  const plan = planUpgrades({
    providers: [
      synthetic('CoreProvider', 'cluster-api', 'v1.10.0', CAPI_TAGS, CAPI_SERIES),
      synthetic('BootstrapProvider', 'kubeadm', 'v1.10.0', CAPI_TAGS, CAPI_SERIES),
      synthetic('ControlPlaneProvider', 'kubeadm', 'v1.10.0', CAPI_TAGS, CAPI_SERIES),
      synthetic('BootstrapProvider', 'talos', 'v1.10.0', CAPI_TAGS, CAPI_SERIES),
      synthetic('InfrastructureProvider', 'docker', 'v1.10.0', CAPI_TAGS, CAPI_SERIES),
    ],
  });
  const byLabel = Object.fromEntries(plan.providers.map((p) => [p.label, p.newestContract]));
  for (const label of ['cluster-api', 'bootstrap-kubeadm', 'control-plane-kubeadm']) {
    assert.equal(byLabel[label].version, 'v1.14.0');
    assert.equal(byLabel[label].status, 'refused');
    assert.equal(byLabel[label].allowed, false);
    assert.deepEqual(byLabel[label].reasons, [
      `${label}: v1.10.0 → v1.14.0 skips more than 3 minor versions, which clusterctl refuses; upgrade to v1.13.x first: set spec.version to a v1.13 release, render and roll it out, then update`,
    ]);
  }
  assert.equal(byLabel['bootstrap-talos'].status, 'upgrade');
  assert.equal(byLabel['infrastructure-docker'].status, 'upgrade');
  assert.match(
    renderUpgradePlanText(plan),
    /\ncluster-api +cluster-api-system +CoreProvider +v1\.10\.0 +v1beta1 +up to date +v1\.14\.0 \(refused\)\n/,
  );
  assert.match(
    renderUpgradePlanText(plan),
    /\nRefused:\n {2}v1beta2: bootstrap-kubeadm: v1\.10\.0 → v1\.14\.0 skips more than 3 minor versions/,
  );
});

test('upgrade rules: 3 minors is fine, 4 is refused from v1.10.0 (not from a v1.10 pre-release), only minors are compared (upgrader.go doUpgrade)', () => {
  const core = { kind: 'CoreProvider' as const, name: 'cluster-api' };
  assert.deepEqual(upgradeRefusals(core, 'v1.10.0', 'v1.13.5'), []);
  assert.equal(upgradeRefusals(core, 'v1.10.3', 'v1.14.0').length, 1);
  assert.deepEqual(upgradeRefusals(core, 'v1.10.0-rc.1', 'v1.14.0'), [], 'a pre-release of v1.10.0 is below v1.10.0');
  assert.deepEqual(upgradeRefusals(core, 'v1.13.0', 'v2.0.0'), [], 'v1.13 → v2.0: minor 0 is not more than 13 + 3');
  assert.deepEqual(upgradeWarnings(core, 'v1.7.7', 'v1.10.4'), []);
  assert.equal(upgradeWarnings(core, 'v1.6.0', 'v1.10.4').length, 1);
  assert.deepEqual(upgradeWarnings(core, 'v1.10.0', 'v1.14.0'), [], 'refused, not warned, from v1.10');
});

test('major and minor downgrades are refused, patch downgrades are not (cluster-api-operator preflight_checks.go checkProviderVersion)', () => {
  const aws = { kind: 'InfrastructureProvider' as const, name: 'aws' };
  assert.deepEqual(upgradeRefusals(aws, 'v2.5.0', 'v1.9.0'), [
    'infrastructure-aws: downgrading from v2.5.0 to v1.9.0 is not supported (Cluster API does not support downgrades; the operator refuses them)',
  ]);
  assert.equal(upgradeRefusals(aws, 'v2.5.0', 'v2.4.9').length, 1);
  assert.deepEqual(upgradeRefusals(aws, 'v2.5.3', 'v2.5.1'), []);
  assert.throws(() => upgradeRefusals(aws, 'latest', 'v2.5.1'), failsWith(/installed version "latest" is not a semantic version/));
});

test('pre-releases and non-semantic tags are never targets (upgrader_info.go getLatestNextVersion)', () => {
  const plan = planUpgrades({
    providers: [
      synthetic(
        'CoreProvider',
        'cluster-api',
        'v1.12.0',
        ['v1.12.0', 'v1.12.1-rc.0', 'v1.13.0-beta.1', 'main', 'v1.12.1'],
        series([1, 12, 'v1beta2'], [1, 13, 'v1beta2']),
      ),
    ],
  });
  assert.equal(plan.providers[0].sameContract.version, 'v1.12.1');
});

test('metadata that does not cover the installed or a newer version is an error (upgrader_info.go getUpgradeInfo)', () => {
  assert.throws(
    () =>
      planUpgrades({
        providers: [
          synthetic('CoreProvider', 'cluster-api', 'v1.12.0', ['v1.12.0', 'v1.13.0', 'v1.14.0-rc.0'], series([1, 12, 'v1beta2'])),
          synthetic('InfrastructureProvider', 'aws', 'v2.0.0', ['v2.0.0'], series([1, 0, 'v1beta1'])),
        ],
      }),
    failsWith(/cluster-api versions v1\.13\.0, v1\.14\.0-rc\.0 match no release series/, (error) => {
      assert.equal(error.diagnostics.length, 2);
      assert.match(error.diagnostics[1].message, /infrastructure-aws v2\.0\.0 \(installed\) matches no release series/);
    }),
  );
});

test('there must be exactly one core provider (upgrader.go Plan)', () => {
  assert.throws(
    () => planUpgrades({ providers: [synthetic('InfrastructureProvider', 'aws', 'v2.0.0', ['v2.0.0'], series([2, 0, 'v1beta1']))] }),
    failsWith(/one core provider to plan upgrades, found 0/),
  );
});

test('a contract change no provider release can follow refuses the whole plan, naming the provider (upgrader.go Plan isPartialUpgrade)', () => {
  const plan = planUpgrades({
    installableContracts: ['v1beta1', 'v1alpha4'],
    providers: [
      synthetic('CoreProvider', 'cluster-api', 'v0.4.0', ['v0.4.0', 'v0.4.5', 'v1.0.0'], series([0, 4, 'v1alpha4'], [1, 0, 'v1beta1'])),
      synthetic('InfrastructureProvider', 'legacy', 'v0.5.0', ['v0.5.0', 'v0.5.2'], series([0, 5, 'v1alpha4'])),
    ],
  });
  assert.equal(plan.currentContract, 'v1alpha4');
  assert.equal(plan.newestContract, 'v1beta1');
  const [core, legacy] = [
    plan.providers.find((p) => p.kind === 'CoreProvider')!,
    plan.providers.find((p) => p.label === 'infrastructure-legacy')!,
  ];
  assert.equal(core.sameContract.version, 'v0.4.5');
  assert.equal(legacy.sameContract.version, 'v0.5.2');
  assert.equal(legacy.newestContract.status, 'refused');
  assert.deepEqual(legacy.newestContract.reasons, ['infrastructure-legacy: no release above v0.5.0 implements v1beta1']);
  assert.equal(core.newestContract.version, 'v1.0.0');
  assert.equal(core.newestContract.status, 'refused');
  assert.deepEqual(core.newestContract.reasons, [
    'the v1beta1 plan is incomplete: infrastructure-legacy has no release for it, and all providers change contract together',
  ]);
});

test('a provider already on a release of a compatible contract does not hold the new contract back', () => {
  const plan = planUpgrades({
    providers: [
      synthetic('CoreProvider', 'cluster-api', 'v1.10.0', ['v1.10.0', 'v1.12.0'], series([1, 10, 'v1beta1'], [1, 12, 'v1beta2'])),
      synthetic('InfrastructureProvider', 'aws', 'v2.8.0', ['v2.8.0'], series([2, 8, 'v1beta1'])),
    ],
  });
  const aws = plan.providers.find((p) => p.label === 'infrastructure-aws')!;
  assert.equal(aws.newestContract.status, 'up-to-date', 'v1beta2 accepts v1beta1 providers (contract.GetCompatibleVersions)');
  assert.equal(plan.providers.find((p) => p.kind === 'CoreProvider')!.newestContract.status, 'upgrade');
});

test('a contract capi-gitops cannot install is listed but refused', () => {
  const plan = planUpgrades({
    providers: [synthetic('CoreProvider', 'cluster-api', 'v1.12.0', ['v1.12.0', 'v2.0.0'], series([1, 12, 'v1beta2'], [2, 0, 'v1beta3']))],
  });
  assert.equal(plan.newestContract, 'v1beta3');
  assert.equal(plan.providers[0].newestContract.version, 'v2.0.0');
  assert.deepEqual(plan.providers[0].newestContract.reasons, [
    'cluster-api: v2.0.0 implements contract v1beta3; capi-gitops installs only v1beta2 or v1beta1 providers',
  ]);
});

test('a contract named only by metadata, with no release yet, is not offered', () => {
  const plan = planUpgrades({
    providers: [synthetic('CoreProvider', 'cluster-api', 'v1.12.0', ['v1.12.0'], series([1, 12, 'v1beta2'], [1, 13, 'v1beta3']))],
  });
  assert.equal(plan.newestContract, 'v1beta2');
});

test('update: the current contract by default, another on request, selected providers only', () => {
  const plan = planUpgrades({ providers: corpusManagementCluster('v1.8.0') });
  assert.deepEqual(selectUpdates(plan), [
    { kind: 'BootstrapProvider', name: 'kubeadm', namespace: 'capi-kubeadm-bootstrap-system', newVersion: 'v1.10.4' },
    { kind: 'ControlPlaneProvider', name: 'kubeadm', namespace: 'capi-kubeadm-control-plane-system', newVersion: 'v1.10.4' },
    { kind: 'CoreProvider', name: 'cluster-api', namespace: 'capi-system', newVersion: 'v1.10.4' },
  ]);
  assert.deepEqual(selectUpdates(plan, { contract: 'v1beta2', providers: ['capi-system/cluster-api'] }), [
    { kind: 'CoreProvider', name: 'cluster-api', namespace: 'capi-system', newVersion: 'v1.12.0' },
  ]);
});

test("update: a provider left behind must accept the core provider's contract (upgrader.go createCustomPlan); the hint names the kubeadm provider released with the core too, and followed, the update passes", () => {
  const plan = planUpgrades({ providers: corpusManagementCluster('v1.8.0') });
  assert.throws(
    () => selectUpdates(plan, { contract: 'v1beta2', providers: ['bootstrap-kubeadm'] }),
    failsWith(
      /bootstrap-kubeadm would implement contract v1beta2 while the core provider implements v1beta1, which accepts v1beta1/,
      (error) => {
        assert.equal(
          error.diagnostics[0].hint,
          'include cluster-api and control-plane-kubeadm in the update (the core and kubeadm providers are released together)',
        );
      },
    ),
  );
  const followed = selectUpdates(plan, { contract: 'v1beta2', providers: ['bootstrap-kubeadm', 'cluster-api', 'control-plane-kubeadm'] });
  assert.deepEqual(
    followed.map((b) => b.newVersion),
    ['v1.12.0', 'v1.12.0', 'v1.12.0'],
  );
});

test('update: refused targets, unknown providers and unknown contracts are errors', () => {
  const refused = planUpgrades({ providers: [synthetic('CoreProvider', 'cluster-api', 'v1.10.0', CAPI_TAGS, CAPI_SERIES)] });
  assert.throws(() => selectUpdates(refused, { contract: 'v1beta2' }), failsWith(/skips more than 3 minor versions/));
  const plan = planUpgrades({ providers: corpusManagementCluster('v1.8.0') });
  assert.throws(
    () => selectUpdates(plan, { providers: ['kubeadm'] }),
    failsWith(/no provider "kubeadm" in the manifest/, (error) => {
      assert.match(error.diagnostics[0].expected ?? '', /bootstrap-kubeadm, control-plane-kubeadm, cluster-api/);
      // a metadata.name is not a label: the hint names the labels it meant
      assert.equal(
        error.diagnostics[0].hint,
        'providers are named by their label, as plan lists them: bootstrap-kubeadm or control-plane-kubeadm',
      );
    }),
  );
  assert.throws(
    () => selectUpdates(plan, { providers: ['cluster-apii'] }),
    failsWith(/no provider "cluster-apii"/, (error) => assert.equal(error.diagnostics[0].hint, 'did you mean "cluster-api"?')),
  );
  assert.throws(() => selectUpdates(plan, { contract: 'v1alpha4' }), failsWith(/no upgrade plan for contract v1alpha4/));
});

test('table layout: each column as wide as its widest cell plus 3 spaces, no trailing spaces', () => {
  assert.equal(
    formatTable([
      ['A', 'BB', 'C'],
      ['long', 'x', 'yyy'],
    ]),
    'A      BB   C\nlong   x    yyy\n',
  );
});

test('cert-manager pinned below the default is not "already up to date": the plan names the pin and the release on offer; a pin below the lock is a downgrade (clusterctl cert_manager.go PlanUpgrade compares with its configured version only)', () => {
  const core = corpusProvider('CoreProvider', 'cluster-api', 'cluster-api', 'v1.12.0');
  const pinned = planUpgrades({
    providers: [core],
    certManager: { installed: 'v1.13.0', target: 'v1.13.0', pinnedBy: ['certManager.version'], newest: 'v1.19.1' },
  });
  assert.deepEqual(pinned.certManager, {
    installed: 'v1.13.0',
    target: 'v1.13.0',
    shouldUpgrade: false,
    pinnedBy: ['certManager.version'],
    available: 'v1.19.1',
  });
  const text = renderUpgradePlanText(pinned);
  assert.doesNotMatch(text, /already up to date/);
  assert.match(text, /\nThe providers are up to date\.\n$/);
  assert.match(
    text,
    /^Cert-Manager is at "v1\.13\.0", pinned by certManager\.version; "v1\.19\.1" is available \(the default, as in clusterctl\): to move, set certManager\.version to it, or remove it\n\n/,
  );
  // at or above the default, and with nothing pinned, clusterctl's words hold
  for (const certManager of [
    { installed: 'v1.19.1', target: 'v1.19.1', pinnedBy: ['certManager.version'], newest: 'v1.19.1' },
    { installed: 'v1.20.0', target: 'v1.20.0', pinnedBy: ['certManager.version'], newest: 'v1.19.1' },
    { installed: 'v1.19.1', target: 'v1.19.1' },
  ]) {
    const plan = planUpgrades({ providers: [core], certManager });
    assert.equal(plan.certManager!.available, undefined);
    assert.match(renderUpgradePlanText(plan), /^Cert-Manager is already up to date\n\n/);
  }
  // the render writes what the Config asks for, so a pin below the lock moves cert-manager down
  const down = planUpgrades({
    providers: [core],
    certManager: { installed: 'v1.19.1', target: 'v1.13.0', pinnedBy: ['certManager.version'], newest: 'v1.19.1' },
  });
  assert.equal(down.certManager!.shouldUpgrade, false);
  assert.match(
    renderUpgradePlanText(down),
    /^Cert-Manager will be downgraded from "v1\.19\.1" to "v1\.13\.0", as certManager\.version pins it\n\n/,
  );
  // two fields pin it: the verb agrees
  const downByBoth = planUpgrades({
    providers: [core],
    certManager: { installed: 'v1.19.1', target: 'v1.13.0', pinnedBy: ['certManager.version', 'certManager.url'], newest: 'v1.19.1' },
  });
  assert.match(renderUpgradePlanText(downByBoth), /, as certManager\.version and certManager\.url pin it\n\n/);
  // a URL names the release too: moving means pointing it at another
  const byUrl = planUpgrades({
    providers: [core],
    certManager: { installed: 'v1.13.0', target: 'v1.13.0', pinnedBy: ['certManager.version', 'certManager.url'], newest: 'v1.19.1' },
  });
  assert.match(
    renderUpgradePlanText(byUrl),
    /^Cert-Manager is at "v1\.13\.0", pinned by certManager\.version and certManager\.url; "v1\.19\.1" is available \(the default, as in clusterctl\): to move, set certManager\.version to it and point certManager\.url at that release\n\n/,
  );
});

/** `input` with its spec.version written as `range` at providers.yaml:`line`:12. */
function ranged(input: ProviderUpgradeInput, range: string, line: number): ProviderUpgradeInput {
  return { ...input, range: { range, file: 'providers.yaml', line, column: 12 } };
}

test('a range that keeps kubeadm bootstrap on v1.10 while core and the kubeadm control plane move to v1.12 is held back, and update refuses it at the range (clusterctl cmd/clusterctl/client/cluster/upgrader.go getUpgradePlan moves them together)', () => {
  const [core, bootstrap, controlPlane] = corpusManagementCluster('v1.10.4');
  const plan = planUpgrades({ providers: [core, ranged(bootstrap, '~1.10', 17), controlPlane] });
  const held = plan.providers.find((p) => p.label === 'bootstrap-kubeadm')!.newestContract;
  assert.equal(held.status, 'held');
  assert.equal(held.heldBack?.wouldGet, 'v1.12.0');
  assert.equal(held.heldBack?.heldAt, 'v1.10.4');
  assert.match(
    held.heldBack?.conflict?.message ?? '',
    /the range "~1\.10" keeps bootstrap-kubeadm at v1\.10\.4 while cluster-api v1\.12\.0 and control-plane-kubeadm v1\.12\.0/,
  );
  const text = renderUpgradePlanText(plan);
  assert.match(text, /\nbootstrap-kubeadm +capi-kubeadm-bootstrap-system +BootstrapProvider +v1\.10\.4 +v1beta1 +up to date +held back\n/);
  assert.match(
    text,
    /\nHeld back by a version range:\n {2}v1beta2: providers\.yaml:17:12: the range "~1\.10" keeps bootstrap-kubeadm at v1\.10\.4 .*the v1beta2 plan would move bootstrap-kubeadm to v1\.12\.0\n {4}update --contract v1beta2 refuses this plan; hint: /,
  );
  // the plan a range splits is not offered
  assert.doesNotMatch(text, /To update/);
  assert.match(text, /No plan to apply: a version range holds back the v1beta2 plan/);
  assert.throws(
    () => selectUpdates(plan, { contract: 'v1beta2' }),
    failsWith(/keeps bootstrap-kubeadm at v1\.10\.4/, (error) => {
      assert.equal(error.diagnostics.length, 1, 'one error per range');
      const [d] = error.diagnostics;
      assert.deepEqual([d.file, d.line, d.column, d.path], ['providers.yaml', 17, 12, 'spec.version']);
      assert.equal(
        d.hint,
        'set spec.version to v1.10.4, the locked release (update moves an exact pin with the others); or set spec.version of cluster-api and control-plane-kubeadm to "~1.10" as well',
      );
    }),
  );
  // the current contract's plan moves nothing, so nothing splits
  assert.deepEqual(selectUpdates(plan), []);
});

test('a range that keeps core on contract v1beta1 while the others move to v1beta2 is one error at the core range, not one per provider it refuses (clusterctl cmd/clusterctl/client/cluster/upgrader.go createCustomPlan)', () => {
  const [core, bootstrap, controlPlane] = corpusManagementCluster('v1.10.4');
  const plan = planUpgrades({ providers: [ranged(core, '~1.10', 7), bootstrap, controlPlane] });
  assert.throws(
    () => selectUpdates(plan, { contract: 'v1beta2' }),
    failsWith(
      /keeps cluster-api at v1\.10\.4 \(contract v1beta1\), which accepts only v1beta1 providers, not bootstrap-kubeadm v1\.12\.0 \(contract v1beta2\)/,
      (error) => {
        assert.equal(error.diagnostics.length, 1);
        assert.deepEqual([error.diagnostics[0].line, error.diagnostics[0].object], [7, 'CoreProvider/capi-system/cluster-api']);
      },
    ),
  );
});

test('a range that keeps kubeadm bootstrap on v1.8 while the current contract moves core and control plane to v1.10 is refused too (docs/book/src/reference/versions.md: the kubeadm control plane requires the kubeadm bootstrap provider of the same version)', () => {
  const [core, bootstrap, controlPlane] = corpusManagementCluster('v1.8.0');
  const plan = planUpgrades({ providers: [core, ranged(bootstrap, '~1.8', 17), controlPlane] });
  assert.equal(plan.providers.find((p) => p.label === 'bootstrap-kubeadm')!.sameContract.status, 'held');
  assert.throws(
    () => selectUpdates(plan),
    failsWith(/keeps bootstrap-kubeadm at v1\.8\.0 while cluster-api v1\.10\.4 and control-plane-kubeadm v1\.10\.4/),
  );
  // the same range on all three holds them on one release: allowed, with a warning for each
  const together = planUpgrades({ providers: [ranged(core, '~1.8', 7), ranged(bootstrap, '~1.8', 17), ranged(controlPlane, '~1.8', 27)] });
  assert.deepEqual(selectUpdates(together), []);
  const { errors, warnings } = heldBackDiagnostics(together);
  assert.deepEqual(errors, []);
  assert.deepEqual(
    warnings.map((w) => [w.line, w.message]),
    [
      [17, 'the range "~1.8" keeps bootstrap-kubeadm at v1.8.0; the v1beta1 plan would move it to v1.10.4'],
      [27, 'the range "~1.8" keeps control-plane-kubeadm at v1.8.0; the v1beta1 plan would move it to v1.10.4'],
      [7, 'the range "~1.8" keeps cluster-api at v1.8.0; the v1beta1 plan would move it to v1.10.4'],
    ],
  );
  assert.equal(
    warnings[0].hint,
    'to move it, set spec.version to v1.8.0, the release this update locks (a later update moves an exact pin with the plan); likewise cluster-api and control-plane-kubeadm, released with it',
  );
});

test('an infrastructure provider a range holds on a contract the core provider still accepts moves as far as its range allows, with a warning (clusterctl cmd/clusterctl/client/cluster/upgrader.go createCustomPlan: compatible contracts)', () => {
  const plan = planUpgrades({
    providers: [
      synthetic('CoreProvider', 'cluster-api', 'v1.10.0', ['v1.10.0', 'v1.12.0'], series([1, 10, 'v1beta1'], [1, 12, 'v1beta2'])),
      ranged(
        synthetic(
          'InfrastructureProvider',
          'aws',
          'v2.8.0',
          ['v2.8.0', 'v2.8.3', 'v2.9.0', 'v3.0.0'],
          series([2, 8, 'v1beta1'], [2, 9, 'v1beta1'], [3, 0, 'v1beta2']),
        ),
        '~2.8',
        40,
      ),
    ],
  });
  const aws = plan.providers.find((p) => p.label === 'infrastructure-aws')!.newestContract;
  assert.deepEqual([aws.status, aws.version, aws.heldBack?.wouldGet, aws.heldBack?.conflict], ['upgrade', 'v2.8.3', 'v3.0.0', undefined]);
  assert.match(renderUpgradePlanText(plan), / v2\.8\.3 \(held back\)\n/);
  assert.match(renderUpgradePlanText(plan), /To update: capi-gitops update --contract v1beta2\n/);
  assert.deepEqual(selectUpdates(plan, { contract: 'v1beta2' }), [
    { kind: 'CoreProvider', name: 'cluster-api', namespace: 'cluster-api-system', newVersion: 'v1.12.0' },
    { kind: 'InfrastructureProvider', name: 'aws', namespace: 'aws-system', newVersion: 'v2.8.3' },
  ]);
  const { errors, warnings } = heldBackDiagnostics(plan, { contract: 'v1beta2' });
  assert.deepEqual(errors, []);
  assert.deepEqual(
    warnings.map((w) => [w.file, w.line, w.column, w.message, w.hint]),
    [
      [
        'providers.yaml',
        40,
        12,
        'the range "~2.8" keeps infrastructure-aws at v2.8.3; the v1beta2 plan would move it to v3.0.0',
        'to move it, set spec.version to v2.8.3, the release this update locks (a later update moves an exact pin with the plan)',
      ],
    ],
  );
});

test('a plan that a range holds back is not "already up to date": up to date as far as the ranges allow, as update says too (clusterctl upgrade.go prints "You are already up to date!" only when no plan moves anything)', () => {
  const [core, bootstrap, controlPlane] = corpusManagementCluster('v1.10.4');
  const held = planUpgrades({ providers: [ranged(core, '~1.10', 7), ranged(bootstrap, '~1.10', 17), ranged(controlPlane, '~1.10', 27)] });
  assert.equal(heldBackByRange(held), true);
  const text = renderUpgradePlanText(held);
  assert.doesNotMatch(text, /already up to date/);
  assert.match(text, /\nThe providers are up to date, as far as their version ranges allow \(see above\)\.\n$/);
  // without ranges, the same installed release has a plan, and nothing is held
  assert.equal(heldBackByRange(planUpgrades({ providers: [core, bootstrap, controlPlane] })), false);
});

test('update naming a provider with a version, as clusterctl upgrade apply --core capi-system/cluster-api:v1.8.0 does, says update takes no version and where one is set (cluster-api cmd/clusterctl/client/cluster/upgrader.go ApplyCustomPlan)', () => {
  const plan = planUpgrades({ providers: corpusManagementCluster('v1.7.7') });
  for (const name of ['cluster-api:v1.8.0', 'capi-system/cluster-api:v1.8.0']) {
    assert.throws(
      () => selectUpdates(plan, { providers: [name] }),
      failsWith(new RegExp(`"${name}" names a version`), (error) => {
        assert.equal(error.diagnostics.length, 1);
        assert.match(error.diagnostics[0].message, /update moves each provider to the release its plan offers/);
        assert.equal(error.diagnostics[0].expected, 'a provider label, as plan lists them: cluster-api');
        assert.equal(error.diagnostics[0].hint, 'to move cluster-api to v1.8.0, set its spec.version to v1.8.0 and render');
      }),
    );
  }
});

test('a plan refused for skipping more than 3 minors is not "already up to date": no plan to apply, and the refusal says how to step (cluster-api cmd/clusterctl/client/cluster/upgrader.go doUpgrade; cmd/clusterctl/cmd/upgrade_plan.go prints "You are already up to date!" only when no plan has a next version)', () => {
  const kubeadm = ['CoreProvider/cluster-api', 'BootstrapProvider/kubeadm', 'ControlPlaneProvider/kubeadm'].map((p) => {
    const [kind, name] = p.split('/') as [ProviderKind, string];
    return synthetic(kind, name, 'v1.10.0', CAPI_TAGS, CAPI_SERIES);
  });
  const text = renderUpgradePlanText(planUpgrades({ providers: kubeadm }));
  assert.doesNotMatch(text, /up to date\.\n/);
  assert.match(text, /\nNo plan to apply: the v1beta2 plan is refused \(see above\)\.\n$/);
  assert.match(text, /upgrade to v1\.13\.x first: set spec\.version to a v1\.13 release, render and roll it out, then update\n/);
});
