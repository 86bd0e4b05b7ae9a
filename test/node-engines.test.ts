/**
 * The README promises Node.js 20.19 or later, 22 and 24 (age-encryption's @noble packages need
 * 20.19). `npm ci` warns EBADENGINE when an installed
 * package's `engines.node` refuses the running Node (issue #10: content-type 3, under octokit,
 * wants Node 22). Every package in the lockfile must accept every Node major the README names.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { PROJECT_ROOT } from './helpers/paths.js';

interface LockPackage {
  version?: string;
  engines?: { node?: string } | string[];
}

test('every locked package accepts each Node.js version the README names (no EBADENGINE on npm ci)', () => {
  const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
  // "Node.js 20.19 or later, 22.12 or later, or 24": the oldest release of each line the README names.
  const promise = /With Node\.js (\d+(?:\.\d+)?)(?: or later)?, (\d+(?:\.\d+)?)(?: or later)?,? or (\d+)/.exec(readme);
  assert.ok(promise, 'the README names the supported Node.js versions');
  const oldestOfEach = promise.slice(1).map((v) => semver.coerce(v)!.version);
  const lock = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockPackage> };
  const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
  const refusals: string[] = [];
  for (const oldest of oldestOfEach) {
    // npm compares the running version, and users run any release from the oldest named on.
    if (!semver.satisfies(oldest, pkg.engines.node)) refusals.push(`package.json engines ${pkg.engines.node} refuses ${oldest}`);
    for (const [where, locked] of Object.entries(lock.packages)) {
      const range = Array.isArray(locked.engines) ? undefined : locked.engines?.node;
      if (where && range && !semver.satisfies(oldest, range))
        refusals.push(`${where}@${locked.version} wants node ${range}, refusing ${oldest}`);
    }
  }
  assert.deepEqual(refusals, []);
});
