/**
 * `npm run bench`: renders the real corpus (CAPI core, kubeadm bootstrap and control plane
 * v1.12.0, cert-manager v1.13.0) and, in the same run, times `kubectl kustomize` applying the
 * same namespace, labels and images transformers to the same raw files. Prints times and ratios.
 * Numbers are medians of several runs; nothing here asserts on time.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { renderManagementCluster } from '../src/app/cluster.js';
import { writeOutput } from '../src/output/write.js';
import { ArtifactCache } from '../src/sources/cache.js';
import { checkOutput } from '../src/review/check.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CORPUS = path.resolve(ROOT, '..', 'shared', 'corpus', 'repository');
/** The package's bin (package.json), the bundle split at the commands: the rows named "bin". */
const BIN = path.join(ROOT, 'dist', 'bin', 'capi-gitops.mjs');
/** The single-file bundle: the rows named "bundle". */
const BUNDLE = path.join(ROOT, 'dist', 'capi-gitops.mjs');
/** The compiled modules' entry, loaded module by module: the rows named "dist/src entry", for comparison. */
const MODULES = path.join(ROOT, 'dist', 'src', 'cli', 'main.js');
const ENTRIES = { bin: BIN, bundle: BUNDLE, modules: MODULES } as const;
type Entry = keyof typeof ENTRIES;
const ENTRY_NAMES = Object.keys(ENTRIES) as Entry[];
const ENTRY_LABELS: Record<Entry, string> = { bin: 'bin', bundle: 'single-file bundle', modules: 'dist/src entry' };
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
/**
 * Other Node binaries to run the bin's CI render and local re-render with, in the same rounds
 * (BENCH_NODES, paths separated by ':'): users run every supported major, and Node's own start-up
 * differs between them (docs/performance.md tells how to fetch one from the npm registry).
 */
const OTHER_NODES = (process.env.BENCH_NODES ?? '').split(path.delimiter).filter(Boolean);
/** The width of a row's name. */
const PAD = 54;
/** Loaded before the CLI to report its peak RSS and CPU time on exit (stderr), without touching its code. */
const REPORT_RSS = `data:text/javascript,process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('maxrss '+u.maxRSS+' cpu '+(u.userCPUTime+u.systemCPUTime)+'\\n')})`;
/** GNU time, for kubectl's CPU time: on a shared machine CPU time is steadier than wall time. */
const GNU_TIME = '/usr/bin/time';

interface Component {
  kind: string;
  name: string;
  namespace: string;
  label: string;
  file: string;
  image: string;
}

const COMPONENTS: Component[] = [
  {
    kind: 'CoreProvider',
    name: 'cluster-api',
    namespace: 'capi-system',
    label: 'cluster-api',
    file: 'core-components.yaml',
    image: 'registry.k8s.io/cluster-api/cluster-api-controller',
  },
  {
    kind: 'BootstrapProvider',
    name: 'kubeadm',
    namespace: 'capi-kubeadm-bootstrap-system',
    label: 'bootstrap-kubeadm',
    file: 'bootstrap-components.yaml',
    image: 'registry.k8s.io/cluster-api/kubeadm-bootstrap-controller',
  },
  {
    kind: 'ControlPlaneProvider',
    name: 'kubeadm',
    namespace: 'capi-kubeadm-control-plane-system',
    label: 'control-plane-kubeadm',
    file: 'control-plane-components.yaml',
    image: 'registry.k8s.io/cluster-api/kubeadm-control-plane-controller',
  },
];
const MIRROR = 'mirror.example.internal/capi';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function timeMs(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

async function timeMsAsync(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

function writeManifest(dir: string): string {
  const docs = COMPONENTS.map(
    (c) => `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: ${c.kind}
metadata:
  name: ${c.name}
  namespace: ${c.namespace}
spec:
  version: v1.12.0
  fetchConfig:
    url: ${pathToFileURL(path.join(CORPUS, c.label, 'latest', c.file)).href}
`,
  );
  docs.push(`apiVersion: capi-gitops.dev/v1alpha1
kind: Config
certManager:
  version: v1.13.0
  url: ${pathToFileURL(path.join(CORPUS, 'cert-manager', 'v1.13.0', 'cert-manager.yaml')).href}
images:
  all:
    repository: ${MIRROR}
`);
  const file = path.join(dir, 'providers.yaml');
  writeFileSync(file, docs.join('---\n'));
  return file;
}

/** The same work for kustomize: namespace, labels and images transformers over the raw files. */
function writeKustomizeReference(dir: string): string {
  const root = path.join(dir, 'kustomize');
  const entries = [
    ...COMPONENTS,
    {
      label: 'cert-manager',
      namespace: 'cert-manager',
      file: 'cert-manager.yaml',
      image: 'quay.io/jetstack/cert-manager-controller',
    } as Component,
  ];
  for (const c of entries) {
    const sub = path.join(root, c.label);
    mkdirSync(sub, { recursive: true });
    const version = c.label === 'cert-manager' ? 'v1.13.0' : 'v1.12.0';
    writeFileSync(
      path.join(sub, 'kustomization.yaml'),
      `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: ${c.namespace}
resources:
- ${path.join(CORPUS, c.label, version, c.file)}
labels:
- pairs:
    cluster.x-k8s.io/provider: ${c.label}
    clusterctl.cluster.x-k8s.io: ""
images:
- name: ${c.image}
  newName: ${MIRROR}/${c.image.slice(c.image.lastIndexOf('/') + 1)}
`,
    );
  }
  writeFileSync(path.join(root, 'kustomization.yaml'), `resources:\n${entries.map((c) => `- ${c.label}`).join('\n')}\n`);
  return root;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): string {
  const result = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024, env });
  if (result.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${result.stderr}`);
  return result.stderr;
}

/** A whole CLI process: wall time, peak RSS (MiB) and CPU time (ms, user + system). */
function cliRun(
  entry: string,
  args: string[],
  env?: NodeJS.ProcessEnv,
  node = process.execPath,
): { ms: number; rssMiB: number; cpuMs: number } {
  let stderr = '';
  const ms = timeMs(() => {
    stderr = run(node, ['--import', REPORT_RSS, entry, ...args], env);
  });
  const rss = /maxrss (\d+) cpu (\d+)/.exec(stderr);
  return { ms, rssMiB: rss ? Number(rss[1]) / 1024 : NaN, cpuMs: rss ? Number(rss[2]) / 1000 : NaN };
}

type CliRun = ReturnType<typeof cliRun>;

/** The bin's CI render and local re-render with each of OTHER_NODES, timed in the same rounds as the rest. */
function otherNodes(dir: string, manifest: string, warmCache: string) {
  const nodes = OTHER_NODES.map((node, k) => ({
    node,
    version: spawnSync(node, ['-p', 'process.version'], { encoding: 'utf8' }).stdout?.trim() || node,
    localOut: path.join(dir, `local-out-node-${k}`),
    ci: [] as CliRun[],
    local: [] as CliRun[],
  }));
  const localArgs = (out: string) => ['render', '-f', manifest, '-o', out, '--quiet', '--cache-dir', warmCache];
  // each Node keeps its own parsed forms in the cache (keyed by V8's version): warmed as the rest are
  for (const n of nodes) for (let i = 0; i < 2; i++) run(n.node, [BIN, ...localArgs(n.localOut)]);
  return {
    round(i: number): void {
      nodes.forEach((n, k) => {
        const fresh = path.join(dir, `ci-node-${k}-${i}`);
        const env = { ...process.env, XDG_CACHE_HOME: path.join(fresh, 'cache-home'), XDG_STATE_HOME: path.join(fresh, 'state-home') };
        const args = ['render', '-f', manifest, '-o', path.join(fresh, 'out'), '--quiet', '--cache-dir', path.join(fresh, 'cache')];
        n.ci.push(cliRun(BIN, args, env, n.node));
        n.local.push(cliRun(BIN, localArgs(n.localOut), undefined, n.node));
      });
    },
    /** Rows for each Node: wall time (ratio by `line`), and CPU against kubectl's (`kubectlCpu`, NaN without GNU time). */
    print(line: (name: string, ms: number) => void, kubectlCpu: number): void {
      for (const n of nodes) {
        for (const [what, runs] of [
          ['CI', n.ci],
          ['local re-render', n.local],
        ] as const) {
          line(`capi-gitops render, bin, ${what}, node ${n.version}`, median(runs.map((r) => r.ms)));
          const cpu = median(runs.map((r) => r.cpuMs));
          const ratio = Number.isNaN(kubectlCpu) ? '' : `, ${(cpu / kubectlCpu).toFixed(2)}× kubectl's`;
          console.log(`${''.padEnd(PAD)} CPU ${cpu.toFixed(0)} ms${ratio}`);
        }
      }
    },
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'capi-gitops-bench-'));
  try {
    const manifest = writeManifest(dir);
    const kustomizeRoot = writeKustomizeReference(dir);
    const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;

    // A whole CLI process per run, as users meet it. CI: a runner starts with empty caches
    // (XDG_CACHE_HOME, XDG_STATE_HOME and the cache directory new every run) and a new output
    // directory. Local: the artifact cache of earlier runs, re-rendering into the same directory.
    const perEntry = () => ({ bin: [], bundle: [], modules: [] }) as Record<Entry, CliRun[]>;
    const ci = perEntry();
    const local = perEntry();
    const help = perEntry();
    const nodeStart: CliRun[] = [];
    // Node 20 builds its whole root certificate store at start-up when NODE_EXTRA_CA_CERTS is set
    // (Node 22 when TLS first needs it), a cost kubectl does not pay and a stock CI runner does not
    // have: where it is set, the CI render and node -e 0 run again without it, to show that cost.
    const extraCaCerts = Boolean(process.env.NODE_EXTRA_CA_CERTS);
    const withoutExtraCa = { env: { ...process.env, NODE_EXTRA_CA_CERTS: undefined }, ci: [] as CliRun[] };
    const nodeStartWithoutExtraCa: CliRun[] = [];
    const warmCache = path.join(dir, 'warm-cache');
    const localOutOf = (entry: Entry) => path.join(dir, `local-out-${entry}`);
    for (const entry of ENTRY_NAMES) {
      for (let i = 0; i < 2; i++) {
        run(process.execPath, [ENTRIES[entry], 'render', '-f', manifest, '-o', localOutOf(entry), '--quiet', '--cache-dir', warmCache]);
      }
    }
    const withOtherNodes = otherNodes(dir, manifest, warmCache);
    // Interleaved, run by run, so a change in the machine's load falls on every entry and on
    // kubectl alike.
    const kustomize: number[] = [];
    const kustomizeCpu: number[] = [];
    const kustomizeRun = () => {
      const args = ['kustomize', '--load-restrictor', 'LoadRestrictionsNone', kustomizeRoot];
      if (!existsSync(GNU_TIME)) kustomize.push(timeMs(() => run('kubectl', args)));
      else {
        let stderr = '';
        kustomize.push(timeMs(() => (stderr = run(GNU_TIME, ['-f', 'cpu %U %S', 'kubectl', ...args]))));
        const cpu = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(stderr);
        if (cpu) kustomizeCpu.push((Number(cpu[1]) + Number(cpu[2])) * 1000);
      }
    };
    for (let i = 0; i < RUNS; i++) {
      if (kubectl) kustomizeRun();
      for (const entry of ENTRY_NAMES) {
        const fresh = path.join(dir, `ci-${entry}-${i}`);
        const env = { ...process.env, XDG_CACHE_HOME: path.join(fresh, 'cache-home'), XDG_STATE_HOME: path.join(fresh, 'state-home') };
        const args = ['render', '-f', manifest, '-o', path.join(fresh, 'out'), '--quiet', '--cache-dir', path.join(fresh, 'cache')];
        ci[entry].push(cliRun(ENTRIES[entry], args, env));
        local[entry].push(cliRun(ENTRIES[entry], ['render', '-f', manifest, '-o', localOutOf(entry), '--quiet', '--cache-dir', warmCache]));
        help[entry].push(cliRun(ENTRIES[entry], ['--help']));
        if (entry === 'bin') nodeStart.push(cliRun('-e', ['0']));
        if (entry === 'bin' && extraCaCerts) {
          const plain = path.join(dir, `ci-no-ca-${i}`);
          const noCaArgs = ['render', '-f', manifest, '-o', path.join(plain, 'out'), '--quiet', '--cache-dir', path.join(plain, 'cache')];
          const noCaEnv = {
            ...withoutExtraCa.env,
            XDG_CACHE_HOME: path.join(plain, 'cache-home'),
            XDG_STATE_HOME: path.join(plain, 'state-home'),
          };
          withoutExtraCa.ci.push(cliRun(ENTRIES.bin, noCaArgs, noCaEnv));
          nodeStartWithoutExtraCa.push(cliRun('-e', ['0'], withoutExtraCa.env));
        }
      }
      withOtherNodes.round(i);
    }
    const warm = local.bin.map((r) => r.ms);
    // In this process, after the first run has warmed the JIT: without a cache (parsing every
    // time), and with the warm cache (parsed forms reused).
    const inProcess: number[] = [];
    const inProcessWarm: number[] = [];
    const cache = new ArtifactCache(warmCache);
    for (let i = 0; i < RUNS; i++) {
      inProcess.push(
        await timeMsAsync(async () =>
          writeOutput(path.join(dir, `jit-out-${i}`), (await renderManagementCluster({ manifestPaths: [manifest] })).files),
        ),
      );
      inProcessWarm.push(
        await timeMsAsync(async () =>
          writeOutput(
            path.join(dir, `jit-warm-out-${i}`),
            (await renderManagementCluster({ manifestPaths: [manifest], sources: { cache } })).files,
          ),
        ),
      );
    }
    // check: the same warm render held in memory and compared with a rendered directory
    // (issue: at most the time of a warm render). run() throws if check finds a difference.
    const checkCli: number[] = [];
    const checkInProcess: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      checkCli.push(
        timeMs(() => run(process.execPath, [BIN, 'check', '-f', manifest, '-o', localOutOf('bin'), '--quiet', '--cache-dir', warmCache])),
      );
      checkInProcess.push(
        await timeMsAsync(async () => {
          const report = await checkOutput(
            path.join(dir, 'jit-warm-out-0'),
            (await renderManagementCluster({ manifestPaths: [manifest], sources: { cache }, frozen: true })).files,
          );
          if (report.problems.length > 0) throw new Error(`check found differences: ${report.problems.map((p) => p.path).join(', ')}`);
        }),
      );
    }
    // The GitOps layouts: the same render plus the chart-drawn wiring (issue: at most 5% more).
    // The wiring's share is timed without the disk and in the same rounds as the kustomize layout
    // (3×RUNS rounds): written into new directories, one run each, the figure moved between -16%
    // and +35% from run to run with the disk and the garbage collector.
    const wiredSet = (layout: 'argocd' | 'flux') => [
      ...(layout === 'argocd' ? [{ expression: 'repoURL=https://git.example.com/platform/management.git', forceString: false }] : []),
      { expression: 'path=clusters/mgmt', forceString: false },
    ];
    const layoutWarm: Record<'kustomize' | 'argocd' | 'flux', number[]> = { kustomize: [], argocd: [], flux: [] };
    const layoutCli: Record<'argocd' | 'flux', number[]> = { argocd: [], flux: [] };
    const renderLayout = (layout: 'kustomize' | 'argocd' | 'flux') =>
      renderManagementCluster({
        manifestPaths: [manifest],
        sources: { cache },
        layout,
        set: layout === 'kustomize' ? [] : wiredSet(layout),
      });
    // one untimed run first, as the render itself was warmed above: the chart's first compile and JIT are not the wiring's cost
    for (const layout of ['argocd', 'flux'] as const) await renderLayout(layout);
    for (let i = 0; i < 3 * RUNS; i++) {
      for (const layout of ['kustomize', 'argocd', 'flux'] as const) layoutWarm[layout].push(await timeMsAsync(() => renderLayout(layout)));
    }
    for (const layout of ['argocd', 'flux'] as const) {
      const setArgs = wiredSet(layout).flatMap((s) => ['--set', s.expression]);
      for (let i = 0; i < RUNS; i++) {
        layoutCli[layout].push(
          timeMs(() =>
            run(process.execPath, [
              BIN,
              'render',
              '-f',
              manifest,
              '-o',
              path.join(dir, `cli-${layout}-${i}`),
              '--quiet',
              '--cache-dir',
              warmCache,
              '--layout',
              layout,
              ...setArgs,
            ]),
          ),
        );
      }
    }
    const k = kustomize.length ? median(kustomize) : NaN;
    const line = (name: string, ms: number) =>
      console.log(`${name.padEnd(PAD)} ${ms.toFixed(0).padStart(6)} ms${kubectl ? `   ${(ms / k).toFixed(2)}× kubectl kustomize` : ''}`);
    console.log(`corpus: CAPI core + kubeadm bootstrap + kubeadm control plane v1.12.0, cert-manager v1.13.0; median of ${RUNS} runs`);
    if (kubectl) console.log(`${'kubectl kustomize (namespace, labels, images)'.padEnd(PAD)} ${k.toFixed(0).padStart(6)} ms   1.00×`);
    else console.log('kubectl not found: no reference timing');
    console.log(`node ${process.version}, ${os.availableParallelism()} cores`);
    const peak = (runs: { rssMiB: number }[]) => `peak RSS ${Math.max(...runs.map((r) => r.rssMiB)).toFixed(0)} MiB`;
    for (const entry of ENTRY_NAMES) {
      const name = ENTRY_LABELS[entry];
      line(`capi-gitops render, ${name}, CI (empty caches)`, median(ci[entry].map((r) => r.ms)));
      console.log(`${''.padEnd(PAD)} ${peak(ci[entry])}`);
      line(`capi-gitops render, ${name}, local re-render (warm artifacts)`, median(local[entry].map((r) => r.ms)));
      console.log(`${''.padEnd(PAD)} ${peak(local[entry])}`);
      if (entry === 'bin' && extraCaCerts) {
        line(`capi-gitops render, ${name}, CI, without NODE_EXTRA_CA_CERTS`, median(withoutExtraCa.ci.map((r) => r.ms)));
        const plainStart = median(nodeStartWithoutExtraCa.map((r) => r.ms));
        console.log(`${''.padEnd(PAD)} NODE_EXTRA_CA_CERTS is set here; node -e 0 takes ${plainStart.toFixed(0)} ms without it`);
      }
    }
    withOtherNodes.print(line, kustomizeCpu.length > 0 ? median(kustomizeCpu) : NaN);
    if (kustomizeCpu.length > 0) {
      const kc = median(kustomizeCpu);
      console.log(`CPU time (user + system), steadier than wall time on a shared machine: kubectl kustomize ${kc.toFixed(0)} ms`);
      for (const entry of ENTRY_NAMES) {
        for (const [what, runs] of [
          ['CI', ci[entry]],
          ['local re-render', local[entry]],
        ] as const) {
          const ms = median(runs.map((r) => r.cpuMs));
          console.log(`  ${`${ENTRY_LABELS[entry]}, ${what}`.padEnd(PAD - 2)} ${ms.toFixed(0).padStart(6)} ms   ${(ms / kc).toFixed(2)}×`);
        }
      }
    }
    // Both with the same --import (CPU time): its cost is in both, so the difference is the CLI's.
    const start = median(nodeStart.map((r) => r.ms));
    const startCpu = median(nodeStart.map((r) => r.cpuMs));
    console.log(`${'node -e 0'.padEnd(PAD)} ${start.toFixed(0).padStart(6)} ms   CPU ${startCpu.toFixed(0)} ms`);
    for (const entry of ENTRY_NAMES) {
      const ms = median(help[entry].map((r) => r.ms));
      const cpu = median(help[entry].map((r) => r.cpuMs));
      console.log(
        `${`capi-gitops --help, ${ENTRY_LABELS[entry]}`.padEnd(PAD)} ${ms.toFixed(0).padStart(6)} ms   ${(ms - start).toFixed(0)} ms over node -e 0 (goal at most 30 ms); CPU ${cpu.toFixed(0)} ms, ${(cpu - startCpu).toFixed(0)} ms over`,
      );
    }
    line('capi-gitops render, in process, no cache', median(inProcess));
    line('capi-gitops render, in process, warm cache', median(inProcessWarm));
    line('capi-gitops check, CLI process, warm cache', median(checkCli));
    line('capi-gitops check, in process, warm cache', median(checkInProcess));
    console.log(
      `check vs render (warm, CLI): ${(median(checkCli) / median(warm)).toFixed(2)}×; in process: ${(median(checkInProcess) / median(inProcessWarm)).toFixed(2)}× (goal at most 1.00×)`,
    );
    const base = median(layoutWarm.kustomize);
    console.log(`${'capi-gitops render, in process, warm, not written'.padEnd(PAD)} ${base.toFixed(0).padStart(6)} ms`);
    for (const layout of ['argocd', 'flux'] as const) {
      line(`capi-gitops render --layout ${layout}, CLI, warm`, median(layoutCli[layout]));
      const ms = median(layoutWarm[layout]);
      console.log(
        `${`capi-gitops render --layout ${layout}, in process, warm, not written`.padEnd(PAD)} ${ms.toFixed(0).padStart(6)} ms   wiring adds ${(((ms - base) / base) * 100).toFixed(1)}% (goal at most 5%)`,
      );
    }
    console.log('goals: CI render at most 0.35×, local re-render at most 0.3× kubectl kustomize; --help within 30 ms of node -e 0');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
