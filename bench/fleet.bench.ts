/**
 * `npm run bench` (second part): a 100-cluster fleet over the corpus (the same four components;
 * overlays that differ in variables, namespaces and, for one cluster in ten, versions through a
 * release) against a one-cluster fleet, each a whole CLI process with an empty cache, measured in
 * the same run. Prints both times, the ratio (goal: at most 5×) and each process's peak RSS
 * (goal: under 1 GiB). Nothing here asserts on time.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CORPUS = path.resolve(ROOT, '..', 'shared', 'corpus', 'repository');
const PROGRAM = pathToFileURL(path.join(ROOT, 'dist', 'src', 'cli', 'program.js')).href;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const FLEET_SIZE = Number(process.env.BENCH_FLEET ?? 100);

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
    `apiVersion: capi-gitops.dev/v1alpha1\nkind: Release\nmetadata: {name: "2025.05.0"}\nproviders:\n  CoreProvider/cluster-api: v1.10.4\n  BootstrapProvider/kubeadm: v1.10.4\n  ControlPlaneProvider/kubeadm: v1.10.4\n`,
  ].join('---\n');
}

/**
 * Cluster i: CLUSTER_TOPOLOGY on or off, a region variable of its own (read by no artifact), the
 * bootstrap provider in one of four namespaces, and every tenth cluster on the v1.10.4 release.
 */
function fleetConfig(size: number): string {
  const lines = [
    'apiVersion: capi-gitops.dev/v1alpha1',
    'kind: Config',
    'certManager:',
    '  version: v1.13.0',
    `  url: "${pathToFileURL(path.join(CORPUS, 'cert-manager', 'v1.13.0', 'cert-manager.yaml')).href}"`,
    'images: {all: {repository: mirror.example.internal/capi}}',
    'clusters:',
  ];
  for (let i = 0; i < size; i++) {
    const ns = `cabpk-${i % 4}`;
    lines.push(`- name: c${String(i).padStart(3, '0')}`);
    if (i % 10 === 9) lines.push('  release: "2025.05.0"');
    lines.push(`  variables: {CLUSTER_TOPOLOGY: "${i % 2 === 0}", REGION: region-${i}}`);
    lines.push('  providers:');
    lines.push('    BootstrapProvider/kubeadm: null');
    // on the release, the release pins the moved provider's version too
    const version = i % 10 === 9 ? '' : 'version: v1.12.0, ';
    lines.push(
      `    BootstrapProvider/${ns}/kubeadm: {metadata: {namespace: ${ns}}, spec: {${version}fetchConfig: {url: "${url('bootstrap-kubeadm', 'bootstrap-components.yaml')}"}}}`,
    );
  }
  return lines.join('\n') + '\n';
}

/** One CLI render in a fresh process; its wall time and its peak resident set. */
function renderProcess(manifestDir: string, out: string, cacheDir: string): { ms: number; maxRssMiB: number } {
  const script = `const { main } = await import(${JSON.stringify(PROGRAM)}); const code = await main(process.argv.slice(1)); process.stderr.write('maxrss ' + process.resourceUsage().maxRSS + '\\n'); process.exitCode = code;`;
  const start = performance.now();
  const r = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', script, 'render', '-f', manifestDir, '-o', out, '--quiet', '--cache-dir', cacheDir],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const ms = performance.now() - start;
  if (r.status !== 0) throw new Error(`render failed:\n${r.stderr}`);
  const rss = /maxrss (\d+)/.exec(r.stderr);
  return { ms, maxRssMiB: rss ? Number(rss[1]) / 1024 : NaN };
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
    const one = fleetDir(parent, 1);
    const many = fleetDir(parent, FLEET_SIZE);
    const results: Record<'one' | 'many', { ms: number; maxRssMiB: number }[]> = { one: [], many: [] };
    for (let i = 0; i < RUNS; i++) {
      results.one.push(renderProcess(one, path.join(parent, `out-1-${i}`), path.join(parent, `cache-1-${i}`)));
      results.many.push(renderProcess(many, path.join(parent, `out-n-${i}`), path.join(parent, `cache-n-${i}`)));
    }
    const oneMs = median(results.one.map((r) => r.ms));
    const manyMs = median(results.many.map((r) => r.ms));
    const rss = (rs: { maxRssMiB: number }[]) => Math.max(...rs.map((r) => r.maxRssMiB));
    console.log(
      `fleet: the corpus's four components; overlays differ in variables, namespaces and (1 in 10) versions; CLI process, empty cache, median of ${RUNS} runs`,
    );
    console.log(`${'1-cluster fleet'.padEnd(44)} ${oneMs.toFixed(0).padStart(6)} ms   peak RSS ${rss(results.one).toFixed(0)} MiB`);
    console.log(
      `${`${FLEET_SIZE}-cluster fleet`.padEnd(44)} ${manyMs.toFixed(0).padStart(6)} ms   peak RSS ${rss(results.many).toFixed(0)} MiB`,
    );
    const ratio = manyMs / oneMs;
    const peak = rss(results.many);
    console.log(`${'ratio'.padEnd(44)} ${ratio.toFixed(2)}×   (goal: at most 5×: ${ratio <= 5 ? 'met' : 'missed'})`);
    console.log(
      `${`${FLEET_SIZE}-cluster fleet peak RSS`.padEnd(44)} ${peak.toFixed(0)} MiB   (goal: under 1024 MiB: ${peak < 1024 ? 'met' : 'missed'})`,
    );
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}

await main();
