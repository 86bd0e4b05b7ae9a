/**
 * Bounded time and memory on hostile input (issue 27, class 6), counted rather than timed: an OCI
 * index fanning out to hundreds of manifests (served from the cache, where no network deadline
 * applies), 100,000 one-line documents in a manifest or an artifact, a chart whose partials double
 * their text or whose loops nest, a partial that includes itself, and a --values file nested
 * 100,000 deep. Each must end with an error that names the bound and where it was met, or finish
 * in work proportional to the input.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ArtifactCache } from '../../src/sources/cache.js';
import { NetworkDeadline } from '../../src/sources/base/deadline.js';
import { MAX_ARTIFACT_MANIFESTS, openOciRepository } from '../../src/sources/oci/repository.js';
import type { OciOptions } from '../../src/sources/oci/repository.js';
import { parseManifestFile } from '../../src/manifest/yaml-source.js';
import { loadManifest } from '../../src/manifest/load.js';
import { parseArtifacts } from '../../src/yaml/parse.js';
import { searchedCharacters } from '../../src/yaml/fast-parse.js';
import { prepareChart, readValuesFile } from '../../src/layout/chart/index.js';
import { renderChart } from '../../src/layout/chart/render.js';
import type { ChartContext } from '../../src/layout/chart/types.js';
import { CapiGitopsError, MAX_REPORTED_PROBLEMS } from '../../src/core/diagnostics.js';
import { parseLockfile } from '../../src/resolve/lock/lockfile.js';
import { diff } from '../../src/app/diff.js';
import { objectChanges } from '../../src/review/object-changes.js';
import { EchoServer } from '../helpers/echo-server.js';
import { tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';
import { rejection } from '../helpers/assertions.js';
import { assertNoStackTrace, CLI, exampleCopy, runCli } from '../helpers/cli.js';

// ---- an OCI index that fans out -----------------------------------------------------------------

const INDEX = 'application/vnd.oci.image.index.v1+json';
const MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
const METADATA = Buffer.from(
  'apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nreleaseSeries:\n- {major: 1, minor: 12, contract: v1beta2}\n',
);
const digestOf = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** A registry on 127.0.0.1 serving the documents it is given (by digest, and the top one by tag). */
class FanOutRegistry {
  private readonly byDigest = new Map<string, { body: Buffer; type: string }>();
  private top: { body: Buffer; type: string } | undefined;
  server!: EchoServer;

  add(document: unknown, type: string): string {
    const body = Buffer.from(JSON.stringify(document));
    const digest = digestOf(body);
    this.byDigest.set(digest, { body, type });
    return digest;
  }

  tag(document: unknown, type: string): void {
    this.add(document, type);
    this.top = { body: Buffer.from(JSON.stringify(document)), type };
  }

  async start(): Promise<this> {
    this.byDigest.set(digestOf(METADATA), { body: METADATA, type: 'application/octet-stream' });
    this.server = await EchoServer.start((request) => {
      const match = /^\/v2\/capi\/core\/(manifests|blobs)\/(.+)$/.exec(request.url);
      const found = match?.[2] === 'v1.12.0' ? this.top : this.byDigest.get(match?.[2] ?? '');
      return found
        ? { status: 200, body: found.body, headers: { 'content-type': found.type, 'docker-content-digest': digestOf(found.body) } }
        : undefined;
    });
    return this;
  }

  get reference(): string {
    return `http://${new URL(this.server.origin).host}/capi/core`;
  }
}

const entry = (digest: string, mediaType: string) => ({ mediaType, digest, size: 1 });
const image = (extra: Record<string, string> = {}) => ({
  schemaVersion: 2,
  mediaType: MANIFEST,
  config: { mediaType: 'application/vnd.oci.empty.v1+json', digest: digestOf(Buffer.from('{}')), size: 2 },
  layers: [
    {
      ...entry(digestOf(METADATA), 'application/yaml'),
      size: METADATA.length,
      annotations: { 'org.opencontainers.image.title': 'metadata.yaml' },
    },
  ],
  annotations: extra,
});
const index = (children: string[], mediaType: string) => ({
  schemaVersion: 2,
  mediaType: INDEX,
  manifests: children.map((d) => entry(d, mediaType)),
});

/** Counts the cache reads a walk makes: every manifest of an index it reaches is one. */
class CountingCache extends ArtifactCache {
  reads = 0;
  override async getBlob(sha256: string): Promise<Buffer | undefined> {
    this.reads++;
    return super.getBlob(sha256);
  }
}

function openCore(reference: string, options: Partial<OciOptions>) {
  return openOciRepository(reference, {
    providerType: 'CoreProvider',
    providerName: 'cluster-api',
    env: {},
    ...options,
    http: { retries: 0, timeoutMs: 10_000, sleep: async () => undefined, ...options.http },
  });
}

// three levels of 200 entries, each level listing one index 200 times: 8,000,000 paths to 4 manifests
const repeated = new FanOutRegistry();
{
  let child = repeated.add(image(), MANIFEST);
  for (let level = 0; level < 2; level++) child = repeated.add(index(Array(200).fill(child), level === 0 ? MANIFEST : INDEX), INDEX);
  repeated.tag(index(Array(200).fill(child), INDEX), INDEX);
}
await repeated.start();
// one index of 200 different manifests
const wide = new FanOutRegistry();
wide.tag(
  index(
    Array.from({ length: 200 }, (_, i) => wide.add(image({ n: String(i) }), MANIFEST)),
    MANIFEST,
  ),
  INDEX,
);
await wide.start();
after(() => Promise.all([repeated.server.close(), wide.server.close()]));

test('an OCI index of three levels of 200 entries naming the same manifests is walked once per manifest: 4 requests, a handful of cache reads, not 8 million', async () => {
  const cache = new CountingCache(tempDir('capi-gitops-fanout-'));
  const artifact = await openCore(repeated.reference, { cache }).getFile('v1.12.0', 'metadata.yaml');
  assert.equal(artifact.text, METADATA.toString('utf8'));
  assert.equal(repeated.server.requests.filter((r) => r.url.includes('/manifests/')).length, 4);
  assert.ok(cache.reads <= 8, `${cache.reads} cache reads`);

  // again, from the cache alone (offline): the same handful of reads
  const again = new CountingCache(cache.dir);
  await openCore(repeated.reference, { cache: again, offline: true }).getFile('v1.12.0', 'metadata.yaml');
  assert.ok(again.reads <= 8, `${again.reads} cache reads`);
});

test("a walk served from the cache stops at the run's network deadline too", async () => {
  const cache = new ArtifactCache(tempDir('capi-gitops-fanout-deadline-'));
  await openCore(repeated.reference, { cache }).getFile('v1.12.0', 'metadata.yaml');
  const spent = new NetworkDeadline(1_000);
  spent.end(Date.now() - 60_000); // the run's clock started a minute ago
  const error = await rejection(
    openCore(repeated.reference, { cache, offline: true, http: { runDeadline: spent } }).getFile('v1.12.0', 'metadata.yaml'),
  );
  assert.match(
    error.message,
    /the network deadline of this run \(1 s, --network-deadline\) was reached while reading the indexes of 127\.0\.0\.1:\d+\/capi\/core:v1\.12\.0/,
  );
});

test(`an OCI index reaching more than ${MAX_ARTIFACT_MANIFESTS} different manifests is refused after reading that many, naming the bound`, async () => {
  const error = await rejection(
    openCore(wide.reference, { cache: new ArtifactCache(tempDir('capi-gitops-wide-')) }).getFile('v1.12.0', 'metadata.yaml'),
  );
  assert.match(
    error.message,
    new RegExp(`capi/core:v1\\.12\\.0 reaches more than ${MAX_ARTIFACT_MANIFESTS} manifests through its indexes`),
  );
  assert.ok(wide.server.requests.length <= MAX_ARTIFACT_MANIFESTS + 1, `${wide.server.requests.length} requests`);
});

// ---- 100,000 documents ----------------------------------------------------------------------------

// 20,000 documents: a search per document to the end of the file would be 5,000 times the bound
// below, and a step of recursion per document would overflow the stack
test('20,000 one-line documents in a manifest and in an artifact are read in work proportional to the text (each character searched a bounded number of times)', () => {
  let manifest = '';
  for (let i = 0; i < 20_000; i++) manifest += `---\nkind: ConfigMap\nmetadata: {name: c${i}}\n`;
  let before = searchedCharacters();
  assert.equal(parseManifestFile('many.yaml', manifest).documents.length, 20_000);
  // before, every document searched on to the end of the file for a '#': N²/2 characters
  assert.ok(searchedCharacters() - before <= 2 * manifest.length, `${searchedCharacters() - before} characters searched`);

  const artifact = manifest.replaceAll('kind: ConfigMap', 'apiVersion: v1\nkind: ConfigMap');
  before = searchedCharacters();
  assert.equal(parseArtifacts([{ text: artifact, source: 'many-components.yaml' }])[0]!.length, 20_000);
  assert.ok(searchedCharacters() - before <= 2 * artifact.length, `${searchedCharacters() - before} characters searched`);
});

// Before, each key was compared with every earlier one (the yaml package's uniqueKeys): 100,000 keys
// took 77 s and 300,000, inside the node bound, hours deaf to SIGTERM. The timeout only stops a hang.
test(
  'a mapping of 200,000 keys in a manifest or a lockfile is read in one pass; a repeated last key is still an error at its line and column',
  { timeout: 120_000 },
  () => {
    let keys = '';
    for (let i = 0; i < 200_000; i++) keys += `  k${i}: v\n`;
    const manifest = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n${keys}  k7: again\n`;
    const [problem, ...others] = parseManifestFile('big.yaml', manifest).syntaxErrors;
    assert.deepEqual(others, []);
    assert.match(problem!.hint ?? '', /^keep one of the two: keys of one mapping must differ/);
    assert.equal(
      `${problem!.file}:${problem!.line}:${problem!.column} ${problem!.message}`,
      'big.yaml:200005:3 invalid YAML: map keys must be unique (the first is at line 12)',
    );

    const lockfile = `apiVersion: capi-gitops.dev/v1alpha1\nkind: Lock\nentries: []\nextra:\n${keys}  k7: again\n`;
    const error = (() => {
      try {
        parseLockfile(lockfile, 'capi-gitops.lock.yaml');
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    assert.ok(error instanceof CapiGitopsError);
    assert.deepEqual(
      error.diagnostics.map((d) => `${d.line}:${d.column} ${d.message}`),
      ['200005:3 invalid YAML: map keys must be unique (the first is at line 12)'],
    );
  },
);

test("a manifest of 1,000 documents, each with a problem: every problem at its own document's line (the positions come from one index, not a search per document)", async () => {
  let text = '';
  for (let i = 0; i < 1_000; i++)
    text += `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c${i}\n  namespace: capi-system\ndata:\n  port: ${i}\n`;
  const dir = writeTempManifest({ 'configmaps.yaml': text });
  const error = await rejection(loadManifest([dir]));
  assert.ok(error instanceof CapiGitopsError);
  const lines = error.diagnostics.filter((d) => d.path === 'data.port').map((d) => d.line);
  assert.equal(lines.length, 1_000);
  assert.deepEqual(
    lines,
    Array.from({ length: 1_000 }, (_, i) => 8 * i + 8),
  );
});

// ---- exploding charts and deep values -------------------------------------------------------------

function writeChart(files: Record<string, string>): string {
  const dir = tempDir('capi-gitops-hostile-chart-');
  for (const [name, text] of Object.entries({ 'Chart.yaml': 'apiVersion: v2\nname: team-wiring\nversion: 0.1.0\n', ...files })) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const CONTEXT: Omit<ChartContext, 'Values' | 'Chart'> = {
  Release: { name: 'capi', namespace: 'argocd' },
  Components: [],
  ClusterResources: [],
  Namespaces: [],
  Wiring: { directory: 'argocd', path: 'argocd' },
  CaInjected: [],
  Unmanaged: [],
};

async function renderFails(files: Record<string, string>, valuesFiles: string[] = []): Promise<CapiGitopsError> {
  const dir = writeChart(files);
  const error = await (async () => {
    const { chart, values } = await prepareChart({ builtIn: 'argocd', userChart: dir, path: 'p', valuesFiles });
    renderChart(chart, { ...CONTEXT, Values: values, Chart: chart.metadata });
  })().then(
    () => assert.fail('the chart rendered'),
    (err: unknown) => err,
  );
  assert.ok(error instanceof CapiGitopsError, String(error));
  assert.doesNotMatch(error.message, /Maximum call stack|out of memory/i);
  return error;
}

const CONFIGMAP = (data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: wiring\ndata:\n  text: "${data}"\n`;

test("a chart's rendered text past the YAML node bound is refused at its template before it is parsed (16 MiB of flow list, within the output bound, ran a 1 GB heap out)", async () => {
  const saved = process.env.CAPI_GITOPS_YAML_MAX_NODES;
  process.env.CAPI_GITOPS_YAML_MAX_NODES = '1000';
  try {
    const error = await renderFails({
      'values.yaml': `l: [${Array.from({ length: 50 }, (_, i) => i).join(', ')}]\n`,
      'templates/wiring.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: wiring\ndata:\n  text: [{{#each Values.l}}{{#each @root.Values.l}}1,{{/each}}{{/each}}1]\n',
    });
    assert.match(
      error.message,
      /templates\/wiring\.yaml:6:\d+: error: renders YAML past a bound: a YAML document here holds more than 1000 nodes/,
    );
    // the rendered line, 5 KB here, is quoted up to a screen line
    assert.ok(error.message.length < 1000, error.message);
  } finally {
    if (saved === undefined) delete process.env.CAPI_GITOPS_YAML_MAX_NODES;
    else process.env.CAPI_GITOPS_YAML_MAX_NODES = saved;
  }
});

test('a partial doubled 21 times stops at the chart output bound (16 MiB), at the include of the partial, naming it and the bound', async () => {
  const partials: Record<string, string> = { 'templates/_level20.hbs': 'abcdefghijklmnopqrstuvwxyz0123456789' };
  for (let i = 0; i < 20; i++) partials[`templates/_level${i}.hbs`] = `{{> level${i + 1}}}{{> level${i + 1}}}`;
  const error = await renderFails({ ...partials, 'templates/wiring.yaml': CONFIGMAP('{{> level0}}') });
  assert.match(
    error.message,
    /templates\/_level(\d+)\.hbs:1:1: error: partial "level\d+" produced more text than a chart may \(16 MiB of output, 64 MiB through partials and loops\)/,
  );
  assert.match(error.message, /hint: include the partial once where it is included twice, or loop over fewer values/);
  assert.match(
    error.message,
    /expected: a chart render of at most 16 MiB, 1,000,000 loop iterations and partial calls, partials nested at most 64 deep/,
  );
});

test('six nested {{#each}} loops over 20 values (64 million iterations) stop at the output bound or at 1,000,000 iterations, whether they write text or not', async () => {
  const loops = (body: string) => '{{#each Values.l}}' + '{{#each @root.Values.l}}'.repeat(5) + body + '{{/each}}'.repeat(6);
  const values = `l: [${Array.from({ length: 20 }, (_, i) => i).join(', ')}]\n`;
  // with text the output bound may stop them first; without, only the count of iterations can
  for (const body of ['x'.repeat(64), '']) {
    const error = await renderFails({ 'values.yaml': values, 'templates/wiring.yaml': CONFIGMAP(loops(body)) });
    assert.match(
      error.message,
      /templates\/wiring\.yaml:6:\d+: error: (the chart ran more than 1,000,000 \{\{#each\}\} iterations and partial calls|an \{\{#each\}\} loop produced more text than a chart may \(16 MiB)/,
    );
    assert.match(error.message, /hint: (nest fewer loops|include the partial once where it is included twice, or loop over fewer values)/);
  }
});

test('a partial that includes itself, directly or through another, is an error at the include, naming the loop (not "Maximum call stack size exceeded")', async () => {
  const direct = await renderFails({
    'templates/_labels.hbs': 'team: platform\n{{> labels}}',
    'templates/wiring.yaml': CONFIGMAP('{{> labels}}'),
  });
  assert.match(
    direct.message,
    /templates\/_labels\.hbs:2:1: error: partial "labels" includes itself \(labels → labels\), so it would never end/,
  );
  assert.match(
    direct.message,
    /hint: remove this include, or put it inside an \{\{#if\}\} or \{\{#each\}\} of a value that runs out \(a nested map\), so the recursion ends/,
  );
  const through = await renderFails({
    'templates/_a.hbs': 'x{{include "b" this}}',
    'templates/_b.hbs': 'y\n\n{{> a}}',
    'templates/wiring.yaml': CONFIGMAP('{{> a}}'),
  });
  assert.match(through.message, /templates\/_b\.hbs:3:1: error: partial "a" includes itself \(a → b → a\)/);
  // the include is where it is in its line
  const inLine = await renderFails({ 'templates/_c.hbs': 'z: {{include "c" this}}', 'templates/wiring.yaml': CONFIGMAP('{{> c}}') });
  assert.match(inLine.message, /templates\/_c\.hbs:1:4: error: partial "c" includes itself/);
});

test('a --values file (chart or import helm-values) or a chart values.yaml nested 100,000 deep is refused at its file and line by the YAML depth bound', async () => {
  const dir = tempDir('capi-gitops-deep-values-');
  const flow = path.join(dir, 'flow.yaml');
  writeFileSync(flow, `repoURL: https://git.example.com/mgmt.git\nx: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`);
  const block = path.join(dir, 'block.yaml');
  writeFileSync(block, Array.from({ length: 1_000 }, (_, i) => `${' '.repeat(i)}k:`).join('\n') + ' 1\n');
  for (const [file, line] of [
    [flow, 2],
    [block, 513],
  ] as const) {
    const error = await rejection(readValuesFile(file));
    assert.match(
      error.message,
      new RegExp(`${file.replaceAll('.', '\\.')}:${line}:\\d+: error: YAML nesting here is deeper than 512 levels`),
    );
    assert.doesNotMatch(error.message, /Maximum call stack/);
    const viaChart = await renderFails({ 'templates/wiring.yaml': CONFIGMAP('x') }, [file]);
    assert.match(viaChart.message, /YAML nesting here is deeper than 512 levels/);
  }
  const ownValues = await renderFails({
    'values.yaml': `x: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`,
    'templates/wiring.yaml': CONFIGMAP('x'),
  });
  assert.match(ownValues.message, /values\.yaml:1:\d+: error: YAML nesting here is deeper than 512 levels/);
});

test('a lockfile holding a flow list of 1.5 million nodes is refused by the YAML node bound before the parser runs (12 MB of it ran Node out of memory)', () => {
  const text = `apiVersion: capi-gitops.dev/v1alpha1\nkind: Lock\nentries: [${'1,'.repeat(1_500_000)}1]\n`;
  assert.throws(
    () => parseLockfile(text, 'capi-gitops.lock.yaml'),
    (error: unknown) =>
      error instanceof CapiGitopsError &&
      /^capi-gitops\.lock\.yaml:3:1: error: a YAML document here holds more than 1000000 nodes/.test(error.message),
  );
});

// ---- committed output read by diff ----------------------------------------------------------------

/** A ConfigMap whose data is a flow list of 6 million nodes: 12 MB that cost a diff 2 s and 300 MB. */
const HOSTILE_OUTPUT_FILE = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {l: [${'1,'.repeat(6_000_000)}1]}\n`;

test('diff --from/--to refuses an output file of a 6-million-node flow list (12 MB) by the YAML node bound, at its file and line, before the review parses it', async () => {
  const from = path.join(tempDir('capi-gitops-hostile-from-'), 'out');
  assert.equal((await runCli(['render', '-f', path.join(exampleCopy(), 'management-cluster'), '-o', from])).code, 0);
  const to = path.join(tempDir('capi-gitops-hostile-to-'), 'out');
  cpSync(from, to, { recursive: true });
  writeFileSync(path.join(to, '01-cluster-api', 'hostile.yaml'), HOSTILE_OUTPUT_FILE);
  const before = searchedCharacters();
  const error = await rejection(diff({ from, to }));
  assert.ok(error instanceof CapiGitopsError);
  assert.equal(error.diagnostics.length, 1);
  assert.match(
    error.message,
    new RegExp(`^${path.join(to, '01-cluster-api', 'hostile.yaml')}:4:1: error: a YAML document here holds more than 1000000 nodes`),
  );
  assert.equal(error.diagnostics[0]!.expected, 'an output file as capi-gitops render writes it: at most 1000000 nodes per document');
  // the review read neither side: the bound is checked as the tree is read
  assert.equal(searchedCharacters(), before);
});

test("diff -f -o refuses a committed output file rewritten into 12 MB of flow list at its file and line; its hint's git checkout, run as printed, makes the diff pass", async () => {
  const repo = exampleCopy();
  const git = (...args: string[]) =>
    assert.equal(spawnSync('git', args, { cwd: repo, encoding: 'utf8' }).status, 0, `git ${args.join(' ')}`);
  git('init', '-q');
  const source = ['-f', 'management-cluster', '-o', 'out'];
  assert.equal((await runCli(['render', ...source], { cwd: repo })).code, 0);
  git('add', '.');
  git('-c', 'user.email=r@example.com', '-c', 'user.name=R', 'commit', '-q', '-m', 'render');
  const file = 'out/01-cluster-api/deployment-capi-controller-manager.yaml';
  writeFileSync(path.join(repo, file), HOSTILE_OUTPUT_FILE);
  const refused = await runCli(['diff', ...source], { cwd: repo });
  assertNoStackTrace(refused);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, new RegExp(`^${file}:4:1: error: a YAML document here holds more than 1000000 nodes\n`));
  const hint = /hint: render writes this file: render again to rewrite it, or restore the committed one \((git checkout -- \S+)\)\n/.exec(
    refused.stderr,
  )?.[1];
  assert.equal(hint, `git checkout -- ${file}`);
  git(...hint!.split(' ').slice(1));
  const again = await runCli(['diff', ...source], { cwd: repo });
  assert.equal(again.code, 0, again.stderr);
});

test("render's report reads the previous text of a file it rewrote no further than the YAML node bound: 12 MB of flow list there is named as the reason its objects are not listed", () => {
  const file = '01-cluster-api/configmap-x.yaml';
  const reasons: string[] = [];
  const changes = objectChanges(
    { written: [file], previous: new Map([[file, Buffer.from(HOSTILE_OUTPUT_FILE)]]) },
    new Map([[file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n']]),
    (unread, reason) => reasons.push(`${unread}: ${reason}`),
  );
  assert.deepEqual(reasons, [
    `${file}: its previous text is over a YAML bound (line 4: a YAML document here holds more than 1000000 nodes)`,
  ]);
  // nothing of the previous text was read: the ConfigMap is new to the report, not changed
  assert.deepEqual(
    changes.map((c) => [c.change, c.kind, c.name]),
    [['added', 'ConfigMap', 'x']],
  );
});

// ---- problems ------------------------------------------------------------------------------------

test(`a lockfile with 20,000 bad entries (the CLI twice; the 200,000-problem error below): the first ${MAX_REPORTED_PROBLEMS} problems in sorted order, one line counting the rest exactly, exit 1; --json the same`, async () => {
  const manifest = path.join(exampleCopy(), 'management-cluster');
  // 20,000 entries that are not mappings, and a wrong kind: 20,001 problems
  writeFileSync(
    path.join(manifest, 'capi-gitops.lock.yaml'),
    `apiVersion: capi-gitops.dev/v1alpha1\nkind: Lokc\nentries:\n${'  - 1\n'.repeat(20_000)}`,
  );
  const out = path.join(tempDir(), 'out');
  const result = await runCli(['render', '-f', manifest, '-o', out]);
  assertNoStackTrace(result);
  assert.equal(result.code, 1);
  const errors = result.stderr.split('\n').filter((l) => l.includes(': error: '));
  assert.equal(errors.length, MAX_REPORTED_PROBLEMS);
  assert.match(errors[0]!, /capi-gitops\.lock\.yaml:2:7: error: kind: kind is "Lokc"/);
  assert.match(errors[1]!, /capi-gitops\.lock\.yaml:4:5: error: entries\[0\]: expected a mapping/);
  assert.match(
    errors.at(-1)!,
    new RegExp(`capi-gitops\\.lock\\.yaml:${MAX_REPORTED_PROBLEMS + 2}:5: error: entries\\[${MAX_REPORTED_PROBLEMS - 2}\\]`),
  );
  const rest = 20_001 - MAX_REPORTED_PROBLEMS;
  assert.match(
    result.stderr,
    new RegExp(`\\n${rest} more problems not shown \\(the first ${MAX_REPORTED_PROBLEMS} are, in file and line order\\)\\n`),
  );
  assert.match(result.stderr, /\n20001 problems; nothing was written\n$/);
  assert.ok(result.stderr.length < 500 * MAX_REPORTED_PROBLEMS, `${result.stderr.length} characters on stderr`);

  const json = await runCli(['render', '-f', manifest, '-o', out, '--json']);
  assert.equal(json.code, 1);
  const document = JSON.parse(json.stdout) as { ok: boolean; problems: unknown[]; problemsNotShown: number };
  assert.equal(document.ok, false);
  assert.equal(document.problems.length, MAX_REPORTED_PROBLEMS);
  assert.equal(document.problemsNotShown, rest);
});

test('a CapiGitopsError of 200,000 problems keeps them all but its message holds only the first ones (no 200,000-line string)', () => {
  const problems = Array.from({ length: 200_000 }, (_, i) => ({ file: 'f.yaml', line: i + 1, message: 'bad' }));
  const error = new CapiGitopsError(problems);
  assert.equal(error.diagnostics.length, 200_000);
  const lines = error.message.split('\n');
  assert.equal(lines.length, MAX_REPORTED_PROBLEMS + 1);
  assert.equal(lines.at(-1), `${200_000 - MAX_REPORTED_PROBLEMS} more problems not shown`);
});

test("render --cluster refuses a kept cluster's kustomization over the YAML node bound at its file and line, before parsing it; the hint's render, run as printed, rewrites it", async () => {
  const manifest = path.join(exampleCopy(), 'management-cluster');
  writeFileSync(
    path.join(manifest, 'fleet.yaml'),
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\nclusters:\n- name: eu-1\n- name: us-1\n',
  );
  const out = path.join(tempDir(), 'out');
  assert.equal((await runCli(['render', '-f', manifest, '-o', out])).code, 0);
  const kept = path.join(out, 'clusters', 'us-1', 'kustomization.yaml');
  writeFileSync(kept, `resources: [${'x,'.repeat(1_500_000)}x]\n`);
  const refused = await runCli(['render', '-f', manifest, '-o', out, '--cluster', 'eu-1']);
  assertNoStackTrace(refused);
  assert.equal(refused.code, 1, refused.stderr);
  assert.ok(refused.stderr.includes(`${kept}:1:1: error: a YAML document here holds more than 1000000 nodes`), refused.stderr);
  assert.match(refused.stderr, /hint: render writes this file: render every cluster again \(without --cluster\) to rewrite it/);
  const again = await runCli(['render', '-f', manifest, '-o', out]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(readFileSync(kept, 'utf8'), /resources:\n- /);
});

test('a manifest of Secrets alone holding a 3-million-node flow list or a 40 MiB double-quoted value is an error at its line and column, in a 512 MB heap: the bounds hold before the check for a Secret-only file (the README command) parses it, not an out-of-memory crash', () => {
  const head = 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: capi-system\nstringData:\n';
  for (const [value, problem] of [
    [`[${'1,'.repeat(3_000_000)}1]`, /providers\.yaml:7:3: error: a YAML document here holds more than 1000000 nodes/],
    [`"${'a'.repeat(40 * 1024 * 1024)}"`, /providers\.yaml:7:8: error: a double-quoted scalar here is longer than 8 MiB/],
  ] as const) {
    const dir = tempDir();
    const manifest = path.join(dir, 'providers.yaml');
    writeFileSync(manifest, `${head}  key: ${value}\n`);
    const result = spawnSync(process.execPath, ['--max-old-space-size=512', CLI, 'render', '-f', manifest, '-o', path.join(dir, 'out')], {
      encoding: 'utf8',
    });
    assert.equal(result.status, 1, result.stderr.slice(0, 2000));
    assert.match(result.stderr, problem);
  }
});
