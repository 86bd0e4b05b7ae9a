/**
 * The composition of a render (src/pipeline.ts): the run's parser batches the texts every
 * component asks for in one turn, and a render reports the problems of every component together.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import { ArtifactCache } from '../../src/sources/cache.js';
import { BatchParseError } from '../../src/render/component.js';
import { renderManagementCluster } from '../../src/app/cluster.js';
import { BoundedMemo, MEMO_LIMITS, RunContext } from '../../src/app/context.js';
import { sha256Hex } from '../../src/core/digest.js';
import { tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { rejection } from '../helpers/assertions.js';
import { localRelease } from '../helpers/local-release.js';
import { MemoryRepository, metadataYaml } from '../fixtures/resolve/builders.js';
import { latestContractRelease } from '../../src/resolve/versions.js';

/** Counts what a parse batch asks of the parse cache. */
class CountingCache extends ArtifactCache {
  gets = 0;
  puts = 0;
  trims = 0;
  override async getParsed<T>(key: string): Promise<T | undefined> {
    this.gets++;
    return super.getParsed<T>(key);
  }
  override async putParsed(key: string, value: unknown): Promise<void> {
    this.puts++;
    return super.putParsed(key, value);
  }
  override async trimParsed(now?: number): Promise<number> {
    this.trims++;
    return super.trimParsed(now);
  }
}

const GOOD = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: good}\n';
const BAD = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [unclosed\n';

test('texts asked for in one turn are one batch: one pass over the parse cache, one trim; each text gets its own objects or its own problems', async () => {
  const cache = new CountingCache(tempDir());
  const batch = new RunContext(cache);
  const good = batch.parse({ text: GOOD, source: 'good.yaml' });
  const bad = batch.parse({ text: BAD, source: 'bad.yaml' });
  const secret = batch.parse({ text: GOOD.replace('good', 'other'), source: 'secret.yaml', keepOutOfCache: true });
  assert.deepEqual(
    (await good).map((o) => o.metadata.name),
    ['good'],
  );
  const error = await bad.then(
    () => assert.fail('the broken text parsed'),
    (err: unknown) => err,
  );
  assert.ok(error instanceof CapiGitopsError);
  assert.deepEqual([...new Set(error.diagnostics.map((d) => d.file))], ['bad.yaml']);
  assert.equal((await secret).length, 1);
  // the text kept out of the cache is neither looked up nor stored; the broken one is not stored
  assert.deepEqual([cache.gets, cache.puts, cache.trims], [2, 1, 1]);
  assert.deepEqual([batch.stats.parsing.requested, batch.stats.parsing.parsed], [3, 3]);
});

test('with shared texts (a fleet) each distinct text is parsed once and its objects shared', async () => {
  const batch = new RunContext(undefined);
  const [a, b] = await Promise.all([batch.parse({ text: GOOD, source: 'a' }), batch.parse({ text: GOOD, source: 'b' })]);
  assert.equal(a, b);
  assert.deepEqual([batch.stats.parsing.requested, batch.stats.parsing.parsed], [2, 1]);
});

test('a bound of the whole batch rejects every text of it with one BatchParseError', async () => {
  const previous = process.env.CAPI_GITOPS_YAML_MAX_NODES_PER_RUN;
  process.env.CAPI_GITOPS_YAML_MAX_NODES_PER_RUN = '12';
  try {
    const batch = new RunContext(undefined);
    const results = await Promise.allSettled([
      batch.parse({ text: GOOD, source: 'one' }),
      batch.parse({ text: GOOD.replace('good', 'two'), source: 'two' }),
    ]);
    const reasons = results.map((r) => (r.status === 'rejected' ? (r.reason as unknown) : undefined));
    assert.ok(reasons[0] instanceof BatchParseError);
    assert.equal(reasons[0], reasons[1]);
    assert.match(reasons[0].error.message, /more than 12 YAML nodes/);
  } finally {
    if (previous === undefined) delete process.env.CAPI_GITOPS_YAML_MAX_NODES_PER_RUN;
    else process.env.CAPI_GITOPS_YAML_MAX_NODES_PER_RUN = previous;
  }
});

const release = localRelease;

test('every problem in one run: a missing variable of one provider, a YAML error of another and a missing additionalManifests ConfigMap of a third, together', async () => {
  const root = tempDir();
  const core = release(root, 'cluster-api', 'core-components.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata: {name: capi-system}\n');
  const bootstrap = release(
    root,
    'bootstrap-example',
    'bootstrap-components.yaml',
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: x}\ndata: {region: "${EXAMPLE_REGION}"}\n',
  );
  const controlPlane = release(root, 'control-plane-example', 'control-plane-components.yaml', BAD);
  const infrastructure = release(root, 'infrastructure-example', 'infrastructure-components.yaml', GOOD);
  const provider = (kind: string, name: string, namespace: string, url: string, extra = '') =>
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: ${kind}
metadata: {name: ${name}, namespace: ${namespace}}
spec:
  version: v0.1.0
  fetchConfig: {url: ${url}}
${extra}`;
  const dir = writeTempManifest({
    'providers.yaml': [
      provider('CoreProvider', 'cluster-api', 'capi-system', core),
      provider('BootstrapProvider', 'example', 'capex-bootstrap-system', bootstrap),
      provider('ControlPlaneProvider', 'example', 'capex-control-plane-system', controlPlane),
      provider('InfrastructureProvider', 'example', 'capex-system', infrastructure, '  additionalManifests: {name: extras}\n'),
      'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\ncertManager: {enabled: false}\n',
    ].join('---\n'),
  });
  const error = await rejection(renderManagementCluster({ manifestPaths: [dir] }));
  assert.ok(error instanceof CapiGitopsError);
  const messages = error.diagnostics.map((d) => d.message);
  assert.ok(
    messages.some((m) => /value for variable \[EXAMPLE_REGION\] is not set/.test(m)),
    messages.join('\n'),
  );
  assert.ok(
    error.diagnostics.some((d) => d.file === 'control-plane-example v0.1.0 control-plane-components.yaml'),
    messages.join('\n'),
  );
  assert.ok(
    messages.some((m) => /ConfigMap capex-system\/extras is not in the input/.test(m)),
    messages.join('\n'),
  );
});

test('a fleet of 200 same-length texts that differ near their end: each lookup hashes its text once, never compares texts (issue 24)', async () => {
  // V8 hashes a string over 16,383 characters by its length, so a Map keyed by these texts would
  // compare up to 200 × 20,000 characters per lookup; the memos key by digest instead
  let digests = 0;
  let hashed = 0;
  const context = new RunContext(undefined, {
    digest: (text) => {
      digests++;
      hashed += text.length;
      return sha256Hex(text);
    },
  });
  const filler = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata:\n  notes: "${'x'.repeat(20_000)}"\n`;
  const texts = Array.from(
    { length: 200 },
    (_, i) => `${filler}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c${String(i).padStart(3, '0')}}\n`,
  );
  assert.equal(new Set(texts.map((t) => t.length)).size, 1);
  assert.ok(texts[0]!.length > 16_383);
  const first = await Promise.all(texts.map((text, i) => context.parse({ text, source: `c${i}` })));
  const again = await Promise.all(texts.map((text, i) => context.parse({ text, source: `c${i}` })));
  // each text's objects, the same objects when the same text comes again, and the large document parsed once for all
  first.forEach((objects, i) =>
    assert.deepEqual(
      objects.map((o) => o.metadata.name),
      ['settings', `c${String(i).padStart(3, '0')}`],
    ),
  );
  // (the memo of whole texts keeps the most recent 64; their documents' objects are kept by the document memo)
  again.forEach((objects, i) => objects.forEach((o, k) => assert.equal(o, first[i]![k])));
  assert.equal(first[0]![0], first[199]![0]);
  assert.deepEqual(context.stats.documents, { requested: 800, parsed: 201 });
  // the work of 400 lookups: the first time, each document and the text's key hashed once; the
  // second, a document equal to the one at its place in the same artifact's last text takes its
  // digest (one comparison), and only the key is hashed
  assert.equal(digests, 200 * 3 + 200);
  const characters = texts.reduce((n, t) => n + t.length, 0);
  assert.ok(hashed < 2 * characters + 400 * 300, `${hashed} characters hashed for ${2 * characters} looked up`);
});

test("one cluster with an empty parse cache (a CI runner) parses each text whole, hashing nothing; a cache that may hold it is looked up by the documents' digests", async () => {
  const counting = () => {
    const count = { digests: 0 };
    return { count, digest: (text: string) => (count.digests++, sha256Hex(text)) };
  };
  const text = `${GOOD}---\n${GOOD.replace('good', 'second')}`;
  // a new cache directory and state home: this run makes the signing key, so no entry can verify
  const empty = counting();
  const state = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = tempDir();
  try {
    const fresh = new CountingCache(tempDir());
    const context = new RunContext(fresh, { oneCluster: true, digest: empty.digest });
    assert.deepEqual(
      (await context.parse({ text, source: 'a.yaml' })).map((o) => o.metadata.name),
      ['good', 'second'],
    );
    assert.deepEqual([empty.count.digests, fresh.gets, fresh.puts], [0, 0, 0]);
  } finally {
    if (state === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = state;
  }
  // a cache with a signing key of an earlier run: split, hashed and looked up as before
  const kept = counting();
  const warm = new CountingCache(tempDir(), { key: Buffer.alloc(32, 7) });
  const context = new RunContext(warm, { oneCluster: true, digest: kept.digest });
  assert.equal((await context.parse({ text, source: 'a.yaml' })).length, 2);
  assert.deepEqual([kept.count.digests, warm.gets, warm.puts], [3, 1, 1]);
});

test('the memos are bounded: a text of one cluster is dropped once a few newer ones came (BoundedMemo, MEMO_LIMITS)', () => {
  const memo = new BoundedMemo<string>(10);
  for (let i = 0; i < 8; i++) memo.set(`k${i}`, `v${i}`, 3);
  assert.equal(memo.size, 3);
  assert.equal(memo.get('k4'), undefined);
  assert.equal(memo.get('k5'), 'v5');
  // used last, kept longest
  memo.set('k8', 'v8', 3);
  assert.equal(memo.get('k5'), 'v5');
  assert.equal(memo.get('k6'), undefined);
  assert.ok(MEMO_LIMITS.documentCharacters <= 16 * 1024 * 1024);
});

test("the run's repositories fetch each file once, whichever cluster asks: the resolver reads metadata.yaml to find the latest release and again for its contract", async () => {
  const memory = new MemoryRepository({ 'v1.12.0': { 'metadata.yaml': metadataYaml([[1, 12, 'v1beta2']]) } });
  const context = new RunContext(undefined);
  const latest = await latestContractRelease(context.repository(memory));
  const [a, b] = await Promise.all([1, 2].map(() => context.repository(memory).getFile(latest, 'metadata.yaml')));
  assert.equal(a, b);
  assert.deepEqual(memory.calls, ['v1.12.0/metadata.yaml']);
});
