/**
 * What `npm ci` installs (issue #10: the quick start's time is mostly npm ci). octokit 5's plugins
 * ask for three majors of the types-only `@octokit/types`, each with its own 5.6 MB
 * `@octokit/openapi-types`; package.json overrides them to one (DEVELOPERS.md, Dependencies).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './helpers/paths.js';

test('the lockfile installs each of the types-only @octokit packages once', () => {
  const lock = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
  for (const name of ['@octokit/types', '@octokit/openapi-types']) {
    const copies = Object.keys(lock.packages).filter((p) => p === `node_modules/${name}` || p.endsWith(`/node_modules/${name}`));
    assert.deepEqual(copies, [`node_modules/${name}`], `${name} is installed ${copies.length} times`);
  }
});

test('@octokit/types has no runtime code, so overriding its version changes no behaviour', () => {
  const manifest = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'node_modules', '@octokit', 'types', 'package.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  assert.equal(manifest.main, undefined);
  assert.equal(manifest.exports, undefined);
  assert.match(String(manifest.types), /\.d\.ts$/);
});
