/**
 * A kustomize render loads only what it uses: the age library (sops), the chart loader
 * (fast-glob) and semver's index cost a cold render about a fifth of its CPU time (issue 13).
 * The package's entry point is run with a resolve hook that records every module resolved.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLI_ENTRY_POINTS } from '../helpers/cli.js';
import { corpusManifest, tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';

test('a kustomize render of the corpus resolves no module of age-encryption, fast-glob, the chart loader or semver’s index', () => {
  const dir = tempDir('capi-gitops-lazy-');
  const log = path.join(dir, 'resolved.txt');
  const hooks = path.join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, resolved.url + '\\n');
  return resolved;
}
`,
  );
  const register = path.join(dir, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  const manifest = writeTempManifest({ 'providers.yaml': corpusManifest('v1.12.0', 'repository') });
  const result = spawnSync(
    process.execPath,
    [
      '--import',
      pathToFileURL(register).href,
      CLI_ENTRY_POINTS.package,
      'render',
      '-f',
      manifest,
      '-o',
      path.join(dir, 'out'),
      '--quiet',
      '--cache-dir',
      path.join(dir, 'cache'),
    ],
    { encoding: 'utf8', env: { ...process.env, CAPI_GITOPS_OUTPUT_CACHE: 'off' } },
  );
  assert.equal(result.status, 0, result.stderr);
  const resolved = readFileSync(log, 'utf8').split('\n');
  assert.ok(
    resolved.some((url) => url.endsWith('/dist/src/emit/layout-kustomize.js')),
    'the hook saw the render',
  );
  for (const unwanted of [
    '/node_modules/age-encryption/',
    '/node_modules/fast-glob/',
    '/dist/src/chart/load.js',
    '/node_modules/semver/index.js',
  ]) {
    assert.deepEqual(
      resolved.filter((url) => url.includes(unwanted)),
      [],
      unwanted,
    );
  }
});
