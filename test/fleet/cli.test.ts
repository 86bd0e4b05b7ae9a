/**
 * Commands that act on one cluster refuse a fleet instead of acting on its shared part: `update`
 * would otherwise rewrite the fleet's lock as one cluster's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { writeTempManifest } from '../helpers/corpus-manifest.js';
import { PROJECT_ROOT } from '../helpers/paths.js';

const CLI = path.join(PROJECT_ROOT, 'dist', 'src', 'cli', 'main.js');
const FLEET = `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec: {version: v1.12.0}
---
apiVersion: capi-gitops.dev/v1alpha1
kind: Config
clusters:
- name: eu-1
`;

for (const [args, what] of [
  [['update'], 'update works on a single cluster'],
  [['plan'], 'plan without --release works on a single cluster'],
  [['render', '--list-variables'], 'render --list-variables works on a single cluster'],
] as const) {
  test(`${args.join(' ')} refuses a fleet, naming the clusters field, and writes nothing`, () => {
    const dir = writeTempManifest({ 'fleet.yaml': FLEET });
    const r = spawnSync(process.execPath, [CLI, ...args, '-f', dir, '--offline', '--cache-dir', path.join(dir, 'cache')], { encoding: 'utf8' });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`fleet\\.yaml:\\d+:\\d+: error: Config: clusters: ${what}, and this manifest declares a fleet`));
    assert.match(r.stderr, /hint: /);
    assert.equal(existsSync(path.join(dir, 'capi-gitops.lock.yaml')), false);
  });
}
