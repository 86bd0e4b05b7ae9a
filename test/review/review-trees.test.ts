/**
 * `diff` reviews a fleet a cluster at a time: each side's files are read when their cluster is
 * reviewed (the next cluster's while this one is), never the whole tree at once, and a fleet's
 * render waits on disk, not in memory (output/scratch-tree.ts). Structure, not memory or time,
 * is asserted: an injected reader counts the clusters whose texts are read and not yet reviewed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { cpSync, writeFileSync } from 'node:fs';
import { render } from '../../src/app/render.js';
import { diff } from '../../src/app/diff.js';
import { groupedTree, reviewChanges, reviewTrees, type ReviewTree } from '../../src/review/index.js';
import { ScratchTree } from '../../src/output/scratch-tree.js';
import { tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { coreManifest, localCoreRelease } from '../helpers/local-release.js';
import { readTree } from '../helpers/tree.js';
import { rejection } from '../helpers/assertions.js';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { searchedCharacters } from '../../src/yaml/fast-parse.js';

const CLUSTERS = ['a', 'b', 'c', 'd', 'e'];
const PADDING = 'x'.repeat(200);

function fleet(url: string, region: (name: string) => string): string {
  const clusters = CLUSTERS.map((name) => `- name: ${name}\n  variables: {REGION: ${region(name)}}`).join('\n');
  return coreManifest(url, `clusters:\n${clusters}\n`);
}

/** Two renders of a five-cluster fleet in the full layout, every cluster's region changed between them. */
async function twoRenders(): Promise<{ dir: string; before: string; after: string }> {
  const url = localCoreRelease(
    `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: capi-system}\ndata: {region: "\${REGION}", padding: ${PADDING}}\n`,
  );
  const dir = writeTempManifest({ 'fleet.yaml': fleet(url, (name) => `${name}-1`) });
  const [before, after] = [path.join(tempDir(), 'before'), path.join(tempDir(), 'after')];
  await render({ manifestPaths: [dir], fleetLayout: 'full' }, before);
  writeFileSync(
    path.join(dir, 'fleet.yaml'),
    fleet(url, (name) => `${name}-2`),
  );
  await render({ manifestPaths: [dir], fleetLayout: 'full' }, after);
  return { dir, before, after };
}

/** A cluster's files read, not yet gone through (the review iterates a group's files when it reads its objects). */
class CountedFiles extends Map<string, string> {
  constructor(
    entries: [string, string][],
    private readonly reviewed: () => void,
  ) {
    super(entries);
  }
  private counted = false;
  override entries(): MapIterator<[string, string]> {
    if (!this.counted) this.reviewed();
    this.counted = true;
    return super.entries();
  }
  override [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries();
  }
}

/** `files` as a review tree whose reader counts the clusters read and not yet reviewed. */
async function countingTree(files: ReadonlyMap<string, string>, count: { alive: number; most: number; reads: string[] }) {
  const tree: ReviewTree = await groupedTree([...files.keys()], async (paths) => {
    const cluster = /^clusters\/([^/]+)\//.exec(paths[0] ?? '')?.[1];
    if (cluster === undefined) return new Map(paths.map((p) => [p, files.get(p)!]));
    count.reads.push(cluster);
    count.alive++;
    count.most = Math.max(count.most, count.alive);
    return new CountedFiles(
      paths.map((p) => [p, files.get(p)!]),
      () => count.alive--,
    );
  });
  return tree;
}

test('a review of two fleet trees reads each cluster once, when it is reviewed (the cluster under review and the next, on each side), and says what reviewChanges says of the whole trees', async () => {
  const { before, after } = await twoRenders();
  const [oldFiles, newFiles] = [readTree(before), readTree(after)];
  const count = { alive: 0, most: 0, reads: [] as string[] };
  const report = await reviewTrees(
    { label: 'before', tree: await countingTree(oldFiles, count) },
    { label: 'after', tree: await countingTree(newFiles, count) },
  );
  assert.deepEqual(report, reviewChanges({ label: 'before', files: oldFiles }, { label: 'after', files: newFiles }));
  assert.equal(report.summary.changed, CLUSTERS.length);
  // each side's cluster read once, in the clusters' order
  assert.deepEqual(
    count.reads.filter((_, i) => i % 2 === 0),
    CLUSTERS,
  );
  assert.deepEqual(
    count.reads.filter((_, i) => i % 2 === 1),
    CLUSTERS,
  );
  // the cluster under review and the next, on each side: never the whole fleet
  assert.ok(count.most <= 4, `${count.most} clusters' files read and not yet reviewed`);
  assert.equal(count.alive, 0);
});

test("a fleet's render waits for its review on disk: the scratch tree keeps where each text is and its digest, not the text", async () => {
  const { after } = await twoRenders();
  const files = readTree(after);
  const scratch = new ScratchTree();
  try {
    const clusterFiles = (name: string) => [...files].filter(([p]) => p.startsWith(`clusters/${name}/`));
    for (const name of CLUSTERS) await scratch.writeAll(clusterFiles(name));
    // the shared layout holds a text under a key, then places it
    await scratch.hold('held-0', `${PADDING}-held`);
    await scratch.placeAll([['held-0', 'bases/x/held.yaml']]);
    const kept = JSON.stringify([...Object.values(scratch)].map((v) => (v instanceof Map ? [...v] : v)));
    assert.ok(!kept.includes(PADDING), 'a text is kept in memory');
    const paths = [...scratch.files().keys()];
    const back = await scratch.read(paths);
    assert.deepEqual(back, new Map([...paths].map((p) => [p, p === 'bases/x/held.yaml' ? `${PADDING}-held` : files.get(p)!])));
  } finally {
    await scratch.dispose();
  }
});

test('diff of a fleet against its committed output reads the same as the review of the whole trees', async () => {
  const { dir, before, after } = await twoRenders();
  const { report } = await diff({ output: before, current: { manifestPaths: [dir], fleetLayout: 'full' } });
  const whole = reviewChanges({ label: 'x', files: readTree(before) }, { label: 'y', files: readTree(after) });
  assert.deepEqual(report.components, whole.components);
  assert.deepEqual(report.findings, whole.findings);
});

test("diff --from/--to of fleets: a cluster's file out of the YAML node bound is never parsed, and its problem is told before any other, both directories' in one run", async () => {
  const { before, after } = await twoRenders();
  // more nodes than the default bound of 1,000,000 in one document
  const hostile = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {l: [${'1,'.repeat(1_100_000)}1]}\n`;
  const [from, to] = [path.join(tempDir(), 'from'), path.join(tempDir(), 'to')];
  cpSync(before, from, { recursive: true });
  cpSync(after, to, { recursive: true });
  writeFileSync(path.join(to, 'clusters', 'c', 'hostile.yaml'), hostile);
  const searched = searchedCharacters();
  const error = await rejection(diff({ from, to }));
  assert.ok(error instanceof CapiGitopsError);
  assert.deepEqual(
    error.diagnostics.map((d) => d.file),
    [path.join(to, 'clusters', 'c', 'hostile.yaml')],
  );
  assert.ok(searchedCharacters() - searched < hostile.length, 'the file out of bounds was parsed');
  // one in the old directory too: both are told
  writeFileSync(path.join(from, 'clusters', 'd', 'hostile.yaml'), hostile);
  const both = await rejection(diff({ from, to }));
  assert.ok(both instanceof CapiGitopsError);
  assert.deepEqual(
    both.diagnostics.map((d) => d.file).sort(),
    [path.join(from, 'clusters', 'd', 'hostile.yaml'), path.join(to, 'clusters', 'c', 'hostile.yaml')].sort(),
  );
  // and with the new directory's own problem: it is missing
  const none = path.join(tempDir(), 'none');
  const missing = await rejection(diff({ from, to: none }));
  assert.ok(missing instanceof CapiGitopsError);
  assert.deepEqual(missing.diagnostics.map((d) => d.file).sort(), [path.join(from, 'clusters', 'd', 'hostile.yaml'), none].sort());
});
