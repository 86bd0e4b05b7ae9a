/**
 * `check` on a fleet holds no tree of texts: each cluster's files are hashed as the cluster is
 * laid out and then dropped (a 200-cluster fleet in the full layout is 700 MB of text, which
 * check held twice, rendered and read back). Structure, not time or memory, is asserted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { check } from '../../src/app/check.js';
import { render } from '../../src/app/render.js';
import { FleetFileDigests } from '../../src/review/check.js';
import { tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { coreManifest, localCoreRelease } from '../helpers/local-release.js';

/** Every string a value holds, through its objects, arrays and maps. */
function stringsIn(value: unknown, seen = new Set<unknown>()): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object' || seen.has(value)) return [];
  seen.add(value);
  const parts = value instanceof Map ? [...value.entries()] : Object.values(value);
  return parts.flatMap((part) => stringsIn(part, seen));
}

/** The batches of files a fleet's render hands over, by the clusters their paths are in. */
class CountingDigests extends FleetFileDigests {
  readonly batches: string[][] = [];
  override async writeAll(files: Iterable<[string, string]>): Promise<void> {
    const list = [...files];
    this.batches.push([...new Set(list.map(([file]) => /^clusters\/([^/]+)\//.exec(file)?.[1] ?? ''))]);
    await super.writeAll(list);
  }
}

for (const fleetLayout of ['full', 'shared'] as const)
  test(`check of a fleet (${fleetLayout} layout) takes its files a cluster at a time and keeps their digests, not their texts`, async () => {
    // a text longer than a digest in every object file: one kept would show
    const padding = 'x'.repeat(200);
    const url = localCoreRelease(
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: capi-system}\ndata: {region: "\${REGION}", padding: ${padding}}\n`,
    );
    const clusters = ['a', 'b', 'c'].map((name) => `- name: ${name}\n  variables: {REGION: ${name}-1}`).join('\n');
    const dir = writeTempManifest({ 'fleet.yaml': coreManifest(url, `clusters:\n${clusters}\n`) });
    const out = path.join(tempDir(), 'out');
    await render({ manifestPaths: [dir], fleetLayout }, out);

    const digests = new CountingDigests();
    const result = await check({ manifestPaths: [dir], fleetLayout }, out, digests);
    assert.deepEqual(result.report.problems, []);
    assert.ok(result.report.unchanged > 3, `${result.report.unchanged} files compared`);
    // each batch is one cluster's (or the fleet's own files, outside any cluster's directory); the
    // shared layout writes its component kustomizations with the fleet's README, in one batch at the end
    const perCluster = fleetLayout === 'full' ? digests.batches : digests.batches.slice(0, -1);
    for (const batch of perCluster) assert.ok(batch.length === 1, batch.join(', '));
    assert.deepEqual([...new Set(perCluster.flat())].filter(Boolean).sort(), ['a', 'b', 'c']);
    // what it keeps: 64-character digests, paths, and the README (its recorded command is read)
    const readme = digests.rendered().readme;
    assert.ok(readme);
    for (const text of stringsIn(digests)) assert.ok(text === readme || !text.includes(padding), `kept: ${text.slice(0, 80)}`);
  });
