/**
 * The cache keeps each artifact's parsed form, its documents' objects, keyed by a digest of the
 * text parsed and the parser's version: a warm render reads it instead of parsing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { appendFileSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { renderManagementCluster } from '../src/app/cluster.js';
import { ArtifactCache } from '../src/sources/cache.js';
import { parsedCacheKey } from '../src/app/context.js';
import { tempDir } from './helpers/corpus-manifest.js';
import { PROJECT_ROOT } from './helpers/paths.js';
import { exampleCopy, runCli } from './helpers/cli.js';

const EXAMPLE = path.join(PROJECT_ROOT, 'examples', 'management-cluster');

test('a warm render takes parsed forms from the cache instead of parsing, and renders the same bytes', async () => {
  const cacheDir = tempDir('capi-gitops-parsed-');
  const cache = new ArtifactCache(cacheDir);
  const cold = await renderManagementCluster({ manifestPaths: [EXAMPLE], sources: { cache } });
  assert.equal(
    readdirSync(path.join(cacheDir, 'parsed')).filter((f) => f.endsWith('.v8')).length,
    5,
    'one parsed form per component (4 providers + cert-manager)',
  );
  assert.ok(readdirSync(path.join(cacheDir, 'parsed')).includes('last-trim'), 'a render trims the parsed store (at most daily)');
  const warm = await renderManagementCluster({ manifestPaths: [EXAMPLE], sources: { cache } });
  assert.deepEqual(warm.files, cold.files);

  // Prove the parser is skipped: plant a different parsed form under cert-manager's key.
  const certManagerText = cold.certManager!.components.text;
  const { key, documents } = parsedCacheKey(certManagerText, `cert-manager ${cold.certManager!.version} cert-manager.yaml`)!;
  const planted = [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'planted-by-the-test' } }];
  await cache.putParsed(key, [planted, ...Array.from({ length: documents - 1 }, () => [])]);
  const warmPlanted = await renderManagementCluster({ manifestPaths: [EXAMPLE], sources: { cache } });
  assert.ok(
    [...warmPlanted.files.keys()].some((f) => f.startsWith('00-cert-manager/namespace-planted-by-the-test')),
    'the cached parsed form was not used',
  );
});

test('a run that makes its cache key stores no parsed forms (a CI runner, new state every run); the next run with that state does, and CAPI_GITOPS_CACHE_KEY stores from the first run', async () => {
  const manifest = path.join(exampleCopy(), 'management-cluster');
  const parsedForms = (cache: string) => {
    const dir = path.join(cache, 'parsed');
    return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.v8')).length : 0;
  };
  const render = async (cache: string, env: NodeJS.ProcessEnv) => {
    const run = await runCli(['render', '-f', manifest, '-o', path.join(tempDir(), 'out'), '--cache-dir', cache], { env });
    assert.equal(run.code, 0, run.stderr);
  };
  const freshState = { ...process.env, XDG_STATE_HOME: tempDir(), CAPI_GITOPS_CACHE_KEY: undefined };
  const cache = path.join(tempDir(), 'cache');
  await render(cache, freshState);
  assert.equal(parsedForms(cache), 0, 'the run that made the key stored parsed forms no later runner could read');
  await render(cache, freshState);
  assert.equal(parsedForms(cache), 5, 'the second run with the same state stores one parsed form per component');

  const shared = path.join(tempDir(), 'cache');
  await render(shared, { ...freshState, XDG_STATE_HOME: tempDir(), CAPI_GITOPS_CACHE_KEY: 'a-ci-secret-of-16-characters-or-more' });
  assert.equal(parsedForms(shared), 5, 'a key from CAPI_GITOPS_CACHE_KEY outlives the run');
});

test('without a cache every render parses (no parsed forms are kept)', async () => {
  const a = await renderManagementCluster({ manifestPaths: [EXAMPLE] });
  const b = await renderManagementCluster({ manifestPaths: [EXAMPLE] });
  assert.deepEqual(a.files, b.files);
});

test('a value a JSON round trip would change (-0.0) renders the same bytes from the cache as parsed, as clusterctl writes it (-0)', async () => {
  const example = exampleCopy();
  const components = path.join(example, 'repository', 'infrastructure-example', 'v0.2.0', 'infrastructure-components.yaml');
  appendFileSync(components, '---\napiVersion: example.dev/v1\nkind: ExampleSetting\nmetadata:\n  name: zero\nspec:\n  offset: -0.0\n');
  rmSync(path.join(example, 'management-cluster', 'capi-gitops.lock.yaml'));
  const cache = new ArtifactCache(tempDir('capi-gitops-parsed-'));
  const render = () => renderManagementCluster({ manifestPaths: [path.join(example, 'management-cluster')], sources: { cache } });
  const cold = await render();
  const warm = await render();
  assert.deepEqual(warm.files, cold.files);
  const setting = [...cold.files].find(([file]) => file.includes('examplesetting-zero'));
  // go-yaml reads -0.0 as the float -0, and encoding/json writes it as -0
  assert.match(String(setting?.[1]), /\n {2}offset: -0\n/);
});
