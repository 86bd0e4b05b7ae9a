import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import {
  compatibleContracts,
  contractForVersion,
  contractMismatch,
  parseMetadata,
  releaseSeriesForContract,
  releaseSeriesForVersion,
  unsupportedContract,
} from '../../src/resolve/metadata.js';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';
import { FIXTURE_REPOSITORY, metadataYaml } from '../fixtures/resolve/builders.js';

const corpusMetadata = (label: string, version: string): string =>
  readFileSync(path.join(CORPUS_REPOSITORY, label, version, 'metadata.yaml'), 'utf8');
const subject = (version: string) => ({ label: 'cluster-api', version });

function invalid(text: string, pattern: RegExp): void {
  assert.throws(
    () => parseMetadata(text, subject('v1.0.0')),
    (error: unknown) => error instanceof CapiGitopsError && pattern.test(error.message),
  );
}

test('corpus metadata: v1.10.4 implements v1beta1 and v1.12.0 v1beta2 (clusterctl GetReleaseSeriesForVersion)', () => {
  const old = parseMetadata(corpusMetadata('cluster-api', 'v1.10.4'), subject('v1.10.4'));
  const current = parseMetadata(corpusMetadata('cluster-api', 'v1.12.0'), subject('v1.12.0'));
  assert.equal(contractForVersion(old, subject('v1.10.4')), 'v1beta1');
  assert.equal(contractForVersion(current, subject('v1.12.0')), 'v1beta2');
  assert.equal(contractForVersion(current, subject('v1.10.4')), 'v1beta1');
  assert.equal(current.releaseSeries.length, 13);
  assert.deepEqual(releaseSeriesForVersion(current, semver.parse('v1.11.3')!), { major: 1, minor: 11, contract: 'v1beta2' });
  const rke2 = parseMetadata(corpusMetadata('bootstrap-rke2', 'v0.11.0'), { label: 'bootstrap-rke2', version: 'v0.11.0' });
  assert.equal(contractForVersion(rke2, { label: 'bootstrap-rke2', version: 'v0.11.0' }), 'v1beta1');
});

test('the newest series of a contract wins, in any listing order (metadata_type.go GetReleaseSeriesForContract)', () => {
  const meta = parseMetadata(corpusMetadata('cluster-api', 'v1.12.0'), subject('v1.12.0'));
  assert.deepEqual(releaseSeriesForContract(meta, 'v1beta1'), { major: 1, minor: 10, contract: 'v1beta1' });
  assert.deepEqual(releaseSeriesForContract(meta, 'v1beta2'), { major: 1, minor: 12, contract: 'v1beta2' });
  assert.equal(releaseSeriesForContract(meta, 'v1alpha4'), undefined);
  // bootstrap-rke2 lists its series oldest first
  const rke2 = parseMetadata(corpusMetadata('bootstrap-rke2', 'v0.11.0'), subject('v0.11.0'));
  assert.deepEqual(releaseSeriesForContract(rke2, 'v1beta1'), { major: 0, minor: 11, contract: 'v1beta1' });
});

test('metadata.yaml is validated like clusterctl metadata_client.go validateMetadata', () => {
  invalid(
    'apiVersion: clusterctl.cluster.x-k8s.io/v1alpha4\nkind: Metadata\nreleaseSeries: [{major: 1, minor: 0, contract: v1beta1}]\n',
    /apiVersion is "clusterctl\.cluster\.x-k8s\.io\/v1alpha4"/,
  );
  invalid('kind: Metadata\nreleaseSeries: [{major: 1, minor: 0, contract: v1beta1}]\n', /apiVersion is null/);
  invalid(
    'apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Provider\nreleaseSeries: [{major: 1, minor: 0, contract: v1beta1}]\n',
    /kind is "Provider"/,
  );
  invalid('apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries: []\n', /releaseSeries is empty/);
  invalid('apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\n', /releaseSeries is empty/);
  invalid(
    'apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nreleaseSeries: [{major: one, minor: 0, contract: v1beta1}]\n',
    /releaseSeries\[0\]\.major must be a non-negative integer, found "one"/,
  );
  invalid('- not a mapping\n', /not a mapping/);
  invalid('apiVersion: [unclosed\n', /Flow sequence in block collection .* \(line 2, column 1\)/);
  // kind may be absent: clusterctl ratchets it because several providers omit it
  const noKind = parseMetadata(
    'apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nreleaseSeries:\n  - {major: 1, minor: 2, contract: v1beta1}\n',
    subject('v1.2.0'),
  );
  assert.equal(noKind.releaseSeries[0].contract, 'v1beta1');
});

test('a version with no release series is an error listing the series the file has (clusterctl installer.go getProviderContract)', () => {
  const meta = parseMetadata(
    metadataYaml([
      [1, 3, 'v1beta1'],
      [1, 2, 'v1beta1'],
    ]),
    subject('v1.4.0'),
  );
  assert.throws(
    () => contractForVersion(meta, subject('v1.4.0')),
    (error: unknown) =>
      error instanceof CapiGitopsError &&
      /has no release series 1\.4/.test(error.message) &&
      /the file lists 1\.3, 1\.2/.test(error.message),
  );
});

test('v1beta2 serves v1beta1 providers; v1beta1 only itself (internal/contract/version.go GetCompatibleVersions)', () => {
  assert.deepEqual(compatibleContracts('v1beta2'), ['v1beta2', 'v1beta1']);
  assert.deepEqual(compatibleContracts('v1beta1'), ['v1beta1']);
  const core = (version: string, contract: string) => ({
    object: 'CoreProvider/capi-system/cluster-api',
    label: 'cluster-api',
    version,
    contract,
  });
  const provider = (contract: string) => ({
    object: 'BootstrapProvider/b/kubeadm',
    label: 'bootstrap-kubeadm',
    version: 'v1.12.0',
    contract,
  });
  assert.equal(contractMismatch(core('v1.12.0', 'v1beta2'), provider('v1beta1')), undefined);
  assert.equal(contractMismatch(core('v1.12.0', 'v1beta2'), provider('v1beta2')), undefined);
  assert.equal(contractMismatch(core('v1.10.4', 'v1beta1'), provider('v1beta1')), undefined);
  const mismatch = contractMismatch(
    core('v1.10.4', 'v1beta1'),
    provider('v1beta2'),
    parseMetadata(corpusMetadata('bootstrap-kubeadm', 'v1.12.0'), subject('v1.12.0')),
  );
  assert.equal(
    mismatch?.message,
    'bootstrap-kubeadm v1.12.0 implements contract v1beta2, but the core provider cluster-api v1.10.4 (contract v1beta1) works only with v1beta1 providers',
  );
  assert.match(mismatch!.hint!, /v1\.10\.x release of bootstrap-kubeadm/);
});

test('a v1alpha4 release is refused: clusterctl v1.12.0 and the operator install only v1beta1 and v1beta2 (operator phase_load.go validateRepoCAPIVersion)', () => {
  const text = readFileSync(path.join(FIXTURE_REPOSITORY, 'infrastructure-old', 'v0.4.0', 'metadata.yaml'), 'utf8');
  const contract = contractForVersion(parseMetadata(text, { label: 'infrastructure-old', version: 'v0.4.0' }), {
    label: 'infrastructure-old',
    version: 'v0.4.0',
  });
  assert.equal(contract, 'v1alpha4');
  const problem = unsupportedContract({
    object: 'InfrastructureProvider/old-system/old',
    label: 'infrastructure-old',
    version: 'v0.4.0',
    contract,
  });
  assert.match(problem!.message, /infrastructure-old v0\.4\.0 implements Cluster API contract "v1alpha4"/);
  assert.equal(unsupportedContract({ object: 'x', label: 'x', version: 'v1.0.0', contract: 'v1beta1' }), undefined);
});
