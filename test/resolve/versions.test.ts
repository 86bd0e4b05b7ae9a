import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { openLocalRepository } from '../../src/sources/local/repository.js';
import { highestInRange, latestContractRelease, latestPatchRelease, resolveVersion, sortForLatest } from '../../src/resolve/versions.js';
import { parseVersionRequest } from '../../src/core/versions.js';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';
import { MemoryRepository, metadataYaml } from '../fixtures/resolve/builders.js';

const origin = { object: 'CoreProvider/capi-system/cluster-api' };

function corpus(label: string, file: string, version = 'latest') {
  return openLocalRepository({ name: label, label, url: `${CORPUS_REPOSITORY}/${label}/${version}/${file}`, baseDir: '/', origin });
}

test('spec.version forms: exact, range, empty; anything else is invalid', () => {
  assert.deepEqual(parseVersionRequest('v1.12.0'), { form: 'exact', version: 'v1.12.0' });
  assert.deepEqual(parseVersionRequest('1.12.0'), { form: 'exact', version: '1.12.0' });
  assert.deepEqual(parseVersionRequest('v1.12.0-rc.1'), { form: 'exact', version: 'v1.12.0-rc.1' });
  assert.deepEqual(parseVersionRequest(undefined), { form: 'latest' });
  assert.deepEqual(parseVersionRequest(''), { form: 'latest' });
  assert.deepEqual(parseVersionRequest('~1.12'), { form: 'range', range: '~1.12' });
  assert.deepEqual(parseVersionRequest('>=1.10 <1.13'), { form: 'range', range: '>=1.10 <1.13' });
  assert.equal(parseVersionRequest('latest'), null);
  assert.equal(parseVersionRequest('release-1.12'), null);
});

test('latest order puts stable releases before pre-releases and drops non-semver tags (clusterctl repository_versions.go latestPatchRelease)', () => {
  assert.deepEqual(sortForLatest(['v1.0.0', 'v2.0.0-alpha.1', 'nightly', 'v1.10.0', 'v1.2.0', 'v2.0.0-beta.0', 'latest']), [
    'v1.10.0',
    'v1.2.0',
    'v1.0.0',
    'v2.0.0-beta.0',
    'v2.0.0-alpha.1',
  ]);
});

test('latest resolves to v1.12.0 in the corpus (clusterctl latestContractRelease, contract v1beta2)', async () => {
  const repo = await corpus('cluster-api', 'core-components.yaml');
  assert.equal(await latestContractRelease(repo), 'v1.12.0');
  assert.deepEqual(await resolveVersion(repo, undefined), { requested: 'latest', version: 'v1.12.0' });
});

test('latest for an older contract is the newest patch of the newest series implementing it (clusterctl latestContractRelease)', async () => {
  const repo = await corpus('bootstrap-kubeadm', 'bootstrap-components.yaml');
  assert.equal(await latestContractRelease(repo, 'v1beta1'), 'v1.10.4');
});

test('a range picks the highest stable version satisfying it; an exact version is used as written', async () => {
  const repo = await corpus('cluster-api', 'core-components.yaml');
  assert.deepEqual(await resolveVersion(repo, '~1.10'), { requested: '~1.10', version: 'v1.10.4' });
  assert.equal(await highestInRange(repo, '>=1.7 <1.10'), 'v1.8.0');
  assert.deepEqual(await resolveVersion(repo, 'v1.8.0'), { requested: 'v1.8.0', version: 'v1.8.0' });
  await assert.rejects(
    highestInRange(repo, '~2.0'),
    (error: unknown) =>
      error instanceof CapiGitopsError &&
      /no release .* satisfies version range "~2\.0"/.test(error.message) &&
      /v1\.12\.0, v1\.10\.4, v1\.8\.0, v1\.7\.7/.test(error.message),
  );
  const withPre = new MemoryRepository({ 'v1.1.0': { 'metadata.yaml': 'x' }, 'v1.2.0-rc.0': { 'metadata.yaml': 'x' } });
  assert.equal(await highestInRange(withPre, '>=1.0.0-0'), 'v1.1.0', 'pre-releases are not picked by ranges');
});

test('a range no release satisfies names the newest releases and counts the rest, however long the list (200,000 releases)', async () => {
  const releases: Record<string, Record<string, string>> = {};
  for (let i = 0; i < 200_000; i++) releases[`v0.0.${i}`] = {};
  let message = '';
  try {
    await highestInRange(new MemoryRepository(releases), '>=1.0.0');
  } catch (error) {
    message = (error as Error).message;
  }
  assert.match(message, /satisfies version range ">=1\.0\.0"/);
  assert.match(message, /one of v0\.0\.199999, v0\.0\.199998, .*, v0\.0\.199980 and 199980 older releases/);
  assert.ok(message.length < 2000, `message of ${message.length} characters`);
});

test('a range passes over a version a versions list names but that publishes no metadata.yaml, as latest does, and says so', async () => {
  const listed = new MemoryRepository({ 'v1.10.4': { 'metadata.yaml': 'x' }, 'v1.13.0': {} });
  assert.deepEqual(await resolveVersion(listed, '>=v1.10.0'), { requested: '>=v1.10.0', version: 'v1.10.4', skipped: ['v1.13.0'] });
  const none = new MemoryRepository({ 'v1.13.0': {} });
  await assert.rejects(
    resolveVersion(none, '>=v1.10.0'),
    /satisfying version range ">=v1\.10\.0" publishes a metadata\.yaml: v1\.13\.0 has none/,
  );
});

test('an empty spec.version takes the URL version when it is a tag', async () => {
  const repo = await corpus('cluster-api', 'core-components.yaml', 'v1.8.0');
  assert.deepEqual(await resolveVersion(repo, ''), { requested: 'v1.8.0', version: 'v1.8.0' });
});

test('a stable release wins over a newer pre-release (clusterctl latestPatchRelease)', async () => {
  const repo = new MemoryRepository({
    'v1.5.0': { 'metadata.yaml': metadataYaml([[1, 5, 'v1beta2']]) },
    'v2.0.0-alpha.1': { 'metadata.yaml': metadataYaml([[2, 0, 'v1beta2']]) },
  });
  assert.equal(await latestPatchRelease(repo), 'v1.5.0');
  const onlyPre = new MemoryRepository({ 'v2.0.0-alpha.1': { 'metadata.yaml': 'x' }, 'v2.0.0-alpha.2': { 'metadata.yaml': 'x' } });
  assert.equal(await latestPatchRelease(onlyPre), 'v2.0.0-alpha.2');
});

test('of the five newest tags, the first with a metadata.yaml wins; the sixth is never probed (clusterctl latestPatchRelease)', async () => {
  const releases: Record<string, Record<string, string>> = {};
  for (const minor of [1, 2, 3, 4, 5, 6]) releases[`v1.${minor}.0`] = {};
  releases['v1.1.0'] = { 'metadata.yaml': 'x' };
  releases['v1.3.0'] = { 'metadata.yaml': 'x' };
  const repo = new MemoryRepository(releases);
  assert.equal(await latestPatchRelease(repo), 'v1.3.0');
  assert.deepEqual(repo.calls, ['v1.6.0/metadata.yaml', 'v1.5.0/metadata.yaml', 'v1.4.0/metadata.yaml', 'v1.3.0/metadata.yaml']);

  delete releases['v1.3.0']['metadata.yaml'];
  const none = new MemoryRepository(releases);
  await assert.rejects(
    latestPatchRelease(none),
    /none of the newest 5 \(v1\.6\.0, v1\.5\.0, v1\.4\.0, v1\.3\.0, v1\.2\.0\) has a metadata\.yaml/,
  );
  assert.equal(none.calls.includes('v1.1.0/metadata.yaml'), false);
});

test('latest that passes over newer releases without a metadata.yaml says which, for the resolution to tell (clusterctl skips them silently, repository_versions.go)', async () => {
  const releases: Record<string, Record<string, string>> = {
    'v1.10.4': { 'metadata.yaml': metadataYaml([[1, 10, 'v1beta1']]) },
    'v1.11.0': {},
    'v1.12.0': {},
  };
  assert.deepEqual(await resolveVersion(new MemoryRepository(releases), ''), {
    requested: 'latest',
    version: 'v1.10.4',
    skipped: ['v1.12.0', 'v1.11.0'],
  });
  releases['v1.12.0'] = { 'metadata.yaml': metadataYaml([[1, 12, 'v1beta2']]) };
  assert.deepEqual(await resolveVersion(new MemoryRepository(releases), ''), { requested: 'latest', version: 'v1.12.0' });
});

test('a failure other than not-found stops the latest search instead of picking an older release', async () => {
  const repo = new MemoryRepository({ 'v1.1.0': { 'metadata.yaml': 'x' }, 'v1.2.0': { 'metadata.yaml': 'x' } }, 'latest', {
    'v1.2.0/metadata.yaml': new CapiGitopsError('connection reset'),
  });
  await assert.rejects(latestPatchRelease(repo), /connection reset/);
});

test('no semantic-version tag at all is a clear error', async () => {
  await assert.rejects(
    latestPatchRelease(new MemoryRepository({ main: {}, nightly: {} })),
    /no release found in memory:\/\/test: no tag is a semantic version/,
  );
});

test('contract-aware latest moves to another series only when the latest metadata says so', async () => {
  const metadata = metadataYaml([
    [2, 0, 'v1beta2'],
    [1, 9, 'v1beta1'],
    [1, 8, 'v1beta1'],
  ]);
  const repo = new MemoryRepository({
    'v2.0.0': { 'metadata.yaml': metadata },
    'v1.9.3': { 'metadata.yaml': metadata },
    'v1.9.4': { 'metadata.yaml': metadata },
    'v1.8.9': { 'metadata.yaml': metadata },
  });
  assert.equal(await latestContractRelease(repo, 'v1beta2'), 'v2.0.0');
  assert.equal(await latestContractRelease(repo, 'v1beta1'), 'v1.9.4');
  assert.equal(await latestContractRelease(repo, 'v1alpha4'), 'v2.0.0', 'no series for the contract: the latest release');
  const unreadable = new MemoryRepository({ 'v2.0.0': { 'metadata.yaml': ': not yaml: [' }, 'v1.9.0': { 'metadata.yaml': metadata } });
  assert.equal(
    await latestContractRelease(unreadable, 'v1beta1'),
    'v2.0.0',
    'unparseable metadata: the latest release (clusterctl best effort)',
  );
});
