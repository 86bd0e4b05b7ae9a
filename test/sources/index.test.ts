import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { SOURCE_MODULES, openRepository, type SourceModule } from '../../src/sources/index.js';
import type { UrlRequest } from '../../src/sources/request.js';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';
import { MemoryRepository, corpusConfigMap } from '../fixtures/resolve/builders.js';

const origin = { file: '/m/p.yaml', line: 2, column: 1, object: 'InfrastructureProvider/capa-system/aws' };
const context = { configMaps: [], options: {} };

function request(fields: Partial<UrlRequest>): UrlRequest {
  return {
    from: 'url',
    url: '',
    kind: 'InfrastructureProvider',
    name: 'aws',
    label: 'infrastructure-aws',
    namespace: 'capa-system',
    baseDir: '/m',
    origin,
    ...fields,
  };
}

test('the registered modules, in the order they are asked; https last because it claims every http(s) URL', () => {
  assert.deepEqual(
    SOURCE_MODULES.map((m) => m.id),
    ['configmap', 'local', 'github', 'gitlab', 'oci', 'https'],
  );
});

test('a file URL opens the local module and a selector the configmap module', async () => {
  const local = await openRepository(
    {
      ...request({}),
      kind: 'CoreProvider',
      name: 'cluster-api',
      label: 'cluster-api',
      url: `file://${CORPUS_REPOSITORY}/cluster-api/latest/core-components.yaml`,
    },
    context,
  );
  assert.equal(local.sourceType, 'local');
  const cms = await openRepository(
    {
      from: 'selector',
      kind: 'CoreProvider',
      name: 'cluster-api',
      label: 'cluster-api',
      namespace: 'capi-system',
      baseDir: '/m',
      origin,
      selector: { matchLabels: { 'provider.cluster.x-k8s.io/type': 'core' } },
    },
    { configMaps: [corpusConfigMap('core-cluster-api-v1.12.0.yaml')], options: {} },
  );
  assert.equal(cms.sourceType, 'configmap');
});

test('a URL no module handles is a clear error naming the provider, the URL and a hint', async () => {
  const url = 'ftp://artifacts.example/capa/latest/infrastructure-components.yaml';
  await assert.rejects(openRepository(request({ url }), context), (error: unknown) => {
    assert.ok(error instanceof CapiGitopsError);
    const [d] = error.diagnostics;
    assert.equal(d.object, 'InfrastructureProvider/capa-system/aws');
    assert.equal(d.line, 2);
    assert.match(
      d.message,
      /no source can fetch infrastructure-aws from URL "ftp:\/\/artifacts\.example\/capa\/latest\/infrastructure-components\.yaml"/,
    );
    assert.match(d.expected!, /file:\/\/ URLs/);
    assert.match(d.expected!, /GitHub release URLs/);
    assert.match(d.hint!, /local repository/);
    return true;
  });
});

test('adding a source is one more module: the first module that answers serves the request', async () => {
  const memory = new MemoryRepository({ 'v1.0.0': { 'metadata.yaml': 'x' } });
  const memoryModule: SourceModule = {
    id: 'memory',
    serves: 'memory: URLs',
    open: (r) => (r.from === 'url' && r.url.startsWith('memory:') ? memory : null),
  };
  const repo = await openRepository(request({ url: 'memory:o/r/latest/infrastructure-components.yaml' }), context, [
    memoryModule,
    ...SOURCE_MODULES,
  ]);
  assert.equal(repo.sourceType, 'memory');
  assert.deepEqual(await repo.listVersions(), ['v1.0.0']);
});
