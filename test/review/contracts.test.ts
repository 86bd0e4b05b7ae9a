/**
 * The contract call-out: a provider's release moving to another Cluster API contract, read from
 * metadata.yaml's releaseSeries (as the lockfile records it; clusterctl's upgrade plan is organised
 * around it), with the providers the core's move leaves on the old contract
 * (cluster-api cmd/clusterctl/internal/contract GetCompatibleVersions: v1beta2 still accepts v1beta1).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { provenanceComment } from '../../src/layout/provenance.js';
import { contractSeries } from '../../src/review/contracts.js';
import { reviewChanges } from '../../src/review/review.js';
import type { ContractFinding, ContractSeries, ReviewReport } from '../../src/review/types.js';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';

const SHA = 'a'.repeat(64);

/** An output tree of component kustomizations only: `[directory, label, version]`. */
function tree(components: [string, string, string][]): Map<string, string> {
  return new Map(
    components.map(([directory, label, version]) => [
      `${directory}/kustomization.yaml`,
      `${provenanceComment({ label, version, artifactSha256: SHA })}apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n`,
    ]),
  );
}

function corpusSeries(label: string, version: string): ContractSeries[] {
  return contractSeries(label, version, readFileSync(path.join(CORPUS_REPOSITORY, label, version, 'metadata.yaml'), 'utf8'));
}

function contracts(report: ReviewReport): ContractFinding[] {
  return report.findings.filter((f): f is ContractFinding => f.type === 'contract');
}

const RKE2 = [
  ['02-bootstrap-rke2', 'bootstrap-rke2', 'v0.11.0'],
  ['03-control-plane-rke2', 'control-plane-rke2', 'v0.11.0'],
] as [string, string, string][];

test('core v1.10.4 → v1.12.0 moves from contract v1beta1 to v1beta2, an info call-out naming the RKE2 providers left on v1beta1, which v1beta2 still accepts', () => {
  const report = reviewChanges(
    {
      label: 'before',
      files: tree([['01-cluster-api', 'cluster-api', 'v1.10.4'], ...RKE2]),
      contracts: corpusSeries('cluster-api', 'v1.10.4'),
    },
    {
      label: 'after',
      files: tree([['01-cluster-api', 'cluster-api', 'v1.12.0'], ...RKE2]),
      contracts: [
        ...corpusSeries('cluster-api', 'v1.12.0'),
        ...corpusSeries('bootstrap-rke2', 'v0.11.0'),
        ...corpusSeries('control-plane-rke2', 'v0.11.0'),
      ],
    },
  );
  assert.deepEqual(contracts(report), [
    {
      type: 'contract',
      risk: 'info',
      component: '01-cluster-api',
      file: '01-cluster-api/kustomization.yaml',
      from: 'v1beta1',
      to: 'v1beta2',
      staying: ['bootstrap-rke2 v0.11.0', 'control-plane-rke2 v0.11.0'],
      message:
        'cluster-api v1.10.4 → v1.12.0 moves from contract v1beta1 to v1beta2; bootstrap-rke2 v0.11.0, control-plane-rke2 v0.11.0 stay on v1beta1, which cluster-api v1.12.0 still accepts',
    },
  ]);
  assert.equal(report.summary.risk, 'info');
});

test('a provider left on a contract the new core no longer accepts is a warning; a release in the same contract, or one whose contract is unknown, is no call-out', () => {
  // a core of your own whose v2 series implements a contract that accepts no other
  const metadata = `apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
kind: Metadata
releaseSeries:
  - {major: 1, minor: 12, contract: v1beta2}
  - {major: 2, minor: 0, contract: v1beta3}
`;
  const before = tree([['01-cluster-api', 'cluster-api', 'v1.12.0'], ...RKE2]);
  const after = tree([['01-cluster-api', 'cluster-api', 'v2.0.0'], ...RKE2]);
  const series = [...contractSeries('cluster-api', 'v2.0.0', metadata), ...corpusSeries('bootstrap-rke2', 'v0.11.0')];
  const [found] = contracts(reviewChanges({ label: 'before', files: before }, { label: 'after', files: after, contracts: series }));
  assert.equal(found?.risk, 'warning');
  assert.deepEqual(found?.staying, ['bootstrap-rke2 v0.11.0']);
  assert.match(
    found!.message,
    /moves from contract v1beta2 to v1beta3; bootstrap-rke2 v0\.11\.0 stays on v1beta1, which cluster-api v2\.0\.0 no longer accepts$/,
  );

  const patch = reviewChanges(
    { label: 'before', files: tree([['01-cluster-api', 'cluster-api', 'v1.12.0']]) },
    { label: 'after', files: tree([['01-cluster-api', 'cluster-api', 'v1.12.1']]), contracts: corpusSeries('cluster-api', 'v1.12.0') },
  );
  assert.deepEqual(contracts(patch), []);
  const unknown = reviewChanges({ label: 'before', files: before }, { label: 'after', files: after });
  assert.deepEqual(contracts(unknown), []);
});
