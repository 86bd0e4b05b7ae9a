/**
 * `npm run bench` (second part), issue 24: fleets at scale. Every cluster gives the core artifact
 * a value of its own (CAPI_DIAGNOSTICS_ADDRESS, which the kubeadm bootstrap and control-plane
 * artifacts read too), on the corpus's four components, with the default limits. Each render is
 * a whole CLI process with an empty cache, all in the same run:
 *   1, 100, 300 and 1,000 clusters in the shared layout (and 100 in the full layout, for scale);
 *   goals: 100 clusters in at most 5x one cluster; 300 in at most 3.6x the 100-cluster time with
 *   a peak RSS under 1 GiB; 1,000 render; the 100-cluster output at most 2x one cluster's bytes.
 * Prints every figure and ratio; asserts nothing (the machine may be shared: timings are noisy).
 * BENCH_RUNS (default 3) sets the runs of the 1- and 100-cluster fleets (median time, peak RSS);
 * BENCH_FLEET_SIZES (default 1,100,300,1000) the sizes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CORPUS = path.resolve(ROOT, '..', 'shared', 'corpus', 'repository');
const PROGRAM = pathToFileURL(path.join(ROOT, 'dist', 'src', 'cli', 'program.js')).href;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SIZES = (process.env.BENCH_FLEET_SIZES ?? '1,100,300,1000').split(',').map(Number);

const url = (label: string, file: string) => pathToFileURL(path.join(CORPUS, label, 'latest', file)).href;

function sharedManifest(): string {
  const provider = (kind: string, name: string, namespace: string, label: string, file: string) =>
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: ${kind}\nmetadata: {name: ${name}, namespace: ${namespace}}\nspec:\n  version: v1.12.0\n  fetchConfig: {url: "${url(label, file)}"}\n`;
  return [
    provider('CoreProvider', 'cluster-api', 'capi-system', 'cluster-api', 'core-components.yaml'),
    provider('BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system', 'bootstrap-kubeadm', 'bootstrap-components.yaml'),
    provider(
      'ControlPlaneProvider',
      'kubeadm',
      'capi-kubeadm-control-plane-system',
      'control-plane-kubeadm',
      'control-plane-components.yaml',
    ),
  ].join('---\n');
}

/** Cluster i: a diagnostics address of its own. */
function fleetConfig(size: number): string {
  const lines = [
    'apiVersion: capi-gitops.dev/v1alpha1',
    'kind: Config',
    'certManager:',
    '  version: v1.13.0',
    `  url: "${pathToFileURL(path.join(CORPUS, 'cert-manager', 'v1.13.0', 'cert-manager.yaml')).href}"`,
    'clusters:',
  ];
  for (let i = 0; i < size; i++) {
    lines.push(`- name: c${String(i).padStart(3, '0')}`);
    lines.push(`  variables: {CAPI_DIAGNOSTICS_ADDRESS: ":${10000 + i}"}`);
  }
  return lines.join('\n') + '\n';
}

interface Run {
  ms: number;
  maxRssMiB: number;
  bytes: number;
}

/** Bytes of every file under `dir`. */
function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    total += entry.isDirectory() ? treeBytes(p) : statSync(p).size;
  }
  return total;
}

/** One CLI render in a fresh process with an empty cache: its wall time, peak resident set and output bytes. */
function renderProcess(manifestDir: string, out: string, cacheDir: string, extra: string[]): Run {
  const script = `const { main } = await import(${JSON.stringify(PROGRAM)}); const code = await main(process.argv.slice(1)); process.stderr.write('maxrss ' + process.resourceUsage().maxRSS + '\\n'); process.exitCode = code;`;
  const start = performance.now();
  const r = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', script, 'render', '-f', manifestDir, '-o', out, '--quiet', '--cache-dir', cacheDir, ...extra],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const ms = performance.now() - start;
  if (r.status !== 0) throw new Error(`render failed:\n${r.stderr}`);
  const rss = /maxrss (\d+)/.exec(r.stderr);
  const bytes = treeBytes(out);
  rmSync(out, { recursive: true, force: true });
  rmSync(cacheDir, { recursive: true, force: true });
  return { ms, maxRssMiB: rss ? Number(rss[1]) / 1024 : NaN, bytes };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function fleetDir(parent: string, size: number): string {
  const dir = mkdtempSync(path.join(parent, `fleet-${size}-`));
  writeFileSync(path.join(dir, 'shared.yaml'), sharedManifest());
  writeFileSync(path.join(dir, 'config.yaml'), fleetConfig(size));
  return dir;
}

async function main(): Promise<void> {
  const parent = mkdtempSync(path.join(os.tmpdir(), 'capi-gitops-fleet-bench-'));
  try {
    const measured = new Map<string, { ms: number; maxRssMiB: number; bytes: number; runs: number }>();
    const measure = (label: string, size: number, runs: number, extra: string[] = []) => {
      const dir = fleetDir(parent, size);
      const results = Array.from({ length: runs }, (_, i) =>
        renderProcess(dir, path.join(parent, `out-${label}-${i}`), path.join(parent, `cache-${label}-${i}`), extra),
      );
      const row = {
        ms: median(results.map((r) => r.ms)),
        maxRssMiB: Math.max(...results.map((r) => r.maxRssMiB)),
        bytes: results[0]!.bytes,
        runs,
      };
      measured.set(label, row);
      console.log(
        `${label.padEnd(30)} ${row.ms.toFixed(0).padStart(7)} ms   peak RSS ${row.maxRssMiB.toFixed(0).padStart(5)} MiB   output ${(row.bytes / 1e6).toFixed(2).padStart(7)} MB   (${runs === 1 ? '1 run' : `median of ${runs}`})`,
      );
    };
    console.log(
      'fleet: core, kubeadm bootstrap and control plane v1.12.0, cert-manager v1.13.0; each cluster its own CAPI_DIAGNOSTICS_ADDRESS;',
    );
    console.log('a CLI process per render, empty cache, default limits (the machine may be shared: timings are noisy)');
    for (const size of SIZES) measure(`${size} clusters (shared)`, size, size <= 100 ? RUNS : 1);
    if (SIZES.includes(100)) measure('100 clusters (full)', 100, 1, ['--fleet-layout', 'full']);
    const row = (size: number) => measured.get(`${size} clusters (shared)`);
    const goal = (text: string, value: number, limit: number, unit = '×') =>
      console.log(
        `${text.padEnd(52)} ${value.toFixed(2).padStart(7)}${unit}   (goal: at most ${limit}${unit}: ${value <= limit ? 'met' : 'missed'})`,
      );
    const [one, hundred, three, thousand] = [row(1), row(100), row(300), row(1000)];
    if (one && hundred) goal('100 clusters / 1 cluster, time', hundred.ms / one.ms, 5);
    if (hundred && three) goal('300 clusters / 100 clusters, time', three.ms / hundred.ms, 3.6);
    if (three) goal('300 clusters, peak RSS (MiB)', three.maxRssMiB, 1024, ' MiB');
    if (thousand)
      console.log(`${'1,000 clusters'.padEnd(52)} ${(thousand.ms / 1000).toFixed(1)} s, peak RSS ${thousand.maxRssMiB.toFixed(0)} MiB`);
    if (one && hundred) goal('100 clusters / 1 cluster, output bytes', hundred.bytes / one.bytes, 2);
    const full = measured.get('100 clusters (full)');
    if (full && hundred)
      console.log(`${'100 clusters, full / shared output bytes'.padEnd(52)} ${(full.bytes / hundred.bytes).toFixed(2).padStart(7)}×`);
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}

await main();
