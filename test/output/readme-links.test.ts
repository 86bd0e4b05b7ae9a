/**
 * The README every render writes into the output directory points nowhere the package is not:
 * capi-gitops is not on the npm registry (README.md, "Installing"), so a link to its npm page
 * sent a reviewer to a missing page, or to whoever publishes that name.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { renderManagementCluster } from '../../src/app/cluster.js';
import { PROJECT_ROOT } from '../helpers/paths.js';

test('the output README of the example links to no npm package page', async () => {
  const { files } = await renderManagementCluster({ manifestPaths: [path.join(PROJECT_ROOT, 'examples', 'management-cluster')] });
  const readme = files.get('README.md')!;
  assert.match(readme, /^Every file below this directory is written by capi-gitops$/m);
  assert.doesNotMatch(readme, /npmjs\.com/);
});

test('no output README template (one cluster, fleet, operator layout) links to an npm package page', () => {
  const dir = path.join(PROJECT_ROOT, 'templates', 'output');
  const templates = readdirSync(dir).filter((name) => name.endsWith('.md.hbs'));
  assert.ok(templates.length >= 3, templates.join(', '));
  for (const name of templates) assert.doesNotMatch(readFileSync(path.join(dir, name), 'utf8'), /npmjs\.com/, name);
});
