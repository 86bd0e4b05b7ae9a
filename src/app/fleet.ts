/**
 * Render and lock for a fleet (Config.clusters): the manifest stage expands the manifest into one
 * manifest per cluster, and each is resolved and rendered as a single cluster is, through one run
 * context (app/context.ts): each artifact is fetched once, each distinct text parsed once.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CapiGitopsError, compareStrings, displayPath, sortDiagnostics, type Diagnostic } from '../core/diagnostics.js';
import { mergeUserValues } from '../core/values.js';
import { clusterRanges, DiagnosticsByCluster } from '../core/cluster-ranges.js';
import { loadManifest } from '../manifest/load.js';
import type { Manifest, ReleaseObject } from '../manifest/types.js';
import type { FieldPath } from '../manifest/yaml-source.js';
import { closestName, editDistance, formatPosition } from '../manifest/fields.js';
import { expandFleet, isFleet, type ExpandOptions, type FleetCluster } from '../manifest/fleet-expand.js';
import { lockfilePath, readLockfile } from '../resolve/lock/lockfile.js';
import { buildLockfile } from '../resolve/lock/build.js';
import {
  assertFleetFrozen,
  clusterLockView,
  concludeFleetLock,
  fleetLockChanges,
  mergeClusterLocks,
  releaseLockView,
} from '../resolve/lock/fleet.js';
import { buildProviderRegistry } from '../resolve/registry.js';
import { CHANGE_CORE_VERSION } from '../resolve/metadata.js';
import { compareSemantic, parseSemantic } from '../core/versions.js';
import type { SemVer } from 'semver';
import { acceptedOnce, fleetAcceptNameProblems } from '../resolve/lock/accept-digests.js';
import type { LockOutcome } from '../resolve/lock/session.js';
import type { Lockfile } from '../resolve/lock/types.js';
import {
  clusterDirectory,
  CLUSTERS_DIRECTORY,
  FleetFilesInMemory,
  FleetTree,
  type FleetClusterTree,
  type FleetFiles,
  type FleetLayoutName,
} from '../layout/fleet.js';
import { KeptClusters } from '../output/cluster-files.js';
import { layoutChart, type LayoutName } from '../layout/index.js';
import { componentDirectory } from '../layout/kustomize.js';
import type { Values } from '../core/values.js';
import {
  clusterApplicationSets,
  fleetApplicationSet,
  FLEET_APPLICATIONSET_NAME,
  FLEET_WIRING_DIRECTORY,
  clusterLookups,
  ignoreDifferencesOf,
  withoutClusterApplicationSet,
  wiringIdentities,
} from '../layout/fleet-applicationset.js';
import { toldOnce } from './told-once.js';
import { destinationOf, sharedDestinationWarnings, type FleetDestinationCluster } from '../layout/fleet-destinations.js';
import { parseArtifact } from '../yaml/parse.js';
import { fleetVariableWarnings, type ClusterVariables, type GivenVariables } from '../render/variable-advice.js';
import type { RenderedComponent } from '../render/types.js';
import { RunContext } from './context.js';
import { resolveCluster } from './resolve.js';
import { readmeCommandFor, renderCluster } from './cluster.js';
import { mergeSecretsNotGiven } from './providers.js';
import { fleetSecrets } from './fleet-secrets.js';
import type { FleetSecrets } from '../secrets/index.js';
import { prepareWiring, userChartPath } from './wiring.js';
import type { RenderOptions, RenderResult, Resolution, SecretNotGiven } from './types.js';
import { agreedImageDigests } from './image-pins.js';

export interface ClusterOutcome {
  name: string;
  release?: string;
  resolution: Resolution;
  /** Whether this run rendered it (`--cluster` renders some). */
  rendered: boolean;
}

/** What a fleet run produced: the output tree, the fleet's lock, and how much was shared (the run's stats). */
export interface FleetResult extends Readonly<RunContext['stats']> {
  clusters: ClusterOutcome[];
  /** The output tree; empty when renderFleet wrote it to the `out` it was given. */
  files: Map<string, string>;
  layout: LayoutName;
  lockFile: string;
  lock: LockOutcome;
  warnings: string[];
  /** check and diff: the configSecrets any cluster rendered without. */
  secretsNotGiven?: SecretNotGiven[];
}

export type OutputResult = ({ fleet: false } & RenderResult) | ({ fleet: true } & FleetResult);

/** Every cluster's resolution and the fleet's one lock. */
export interface FleetResolution {
  /** The clusters run: the fleet's, but those left out for a problem of their own entry. */
  clusters: FleetCluster[];
  /** The clusters left out for a problem of their own entry (in `problems`), by name. */
  leftOut: string[];
  resolutions: Map<string, Resolution>;
  lockFile: string;
  lock: LockOutcome;
  /** The fleet's lockfile as read. */
  previous?: Lockfile;
  /**
   * With `collectAll`, the problems of clusters (and releases) that could not be resolved at all;
   * a resolution's own `problems` say what else did not resolve. The lock is then not to be written.
   */
  problems?: ClusterDiagnostics;
}

/** A release is checked as a whole, whether a cluster runs it or not: versions resolvable, contracts compatible. */
async function checkReleases(
  fleet: ReturnType<typeof expandFleet>,
  previous: Lockfile | undefined,
  options: RenderOptions,
  context: RunContext,
  problems: ClusterDiagnostics,
): Promise<void> {
  await Promise.all(
    [...fleet.releases.values()].map(async ({ release, manifest: onRelease }) => {
      const { registry } = buildProviderRegistry(onRelease.config.repositories ?? [], onRelease.config.position, onRelease.config.locate);
      const view = releaseLockView(previous, onRelease, registry);
      // --frozen makes no request: a release the lock does not answer (no cluster runs it) is checked by runs without it
      if (options.frozen && !view.complete) return;
      try {
        // every problem of the release is thrown together
        // its warnings are the release's, and a fleet's versions move in its releases, never with update
        const onWarning = options.onWarning && ((w: Diagnostic) => options.onWarning!(releaseDiagnostic(release, w)));
        const versionRelease = (provider: string) => (releaseKey(release, provider) ? release.name : undefined);
        const releaseOptions = { ...options, frozen: false, collectAll: false, onWarning, versionRelease };
        await resolveCluster(context, onRelease, releaseOptions, { lock: view.lock });
      } catch (err) {
        if (!(err instanceof CapiGitopsError)) throw err;
        for (const d of err.diagnostics) problems.add(releaseDiagnostic(release, d));
      }
    }),
  );
}

/** The versions the fleet's lock pins a cluster's providers at, keyed `<Kind>/<namespace>/<name>`. */
function lockedVersions(lock: Lockfile | undefined, cluster: string): Map<string, string> | undefined {
  const view = clusterLockView(lock, cluster);
  return view && new Map(view.entries.map((e) => [`${e.kind}/${e.namespace}/${e.name}`, e.version]));
}

/** Resolves every cluster of a fleet, each from its part of the fleet's lock; one lock for all. */
export async function resolveFleet(
  manifest: Manifest,
  options: RenderOptions,
  context: RunContext,
  expand: ExpandOptions = {},
): Promise<FleetResolution> {
  const lockFile = lockfilePath(manifest.baseDir);
  // the lock keeps a missing release's hint from suggesting a downgrade; one that does not read
  // is told after the fleet's own problems, as before
  const read = await readLockfile(lockFile).then(
    (lock) => ({ lock }),
    (error: unknown) => ({ error }),
  );
  const lockedBy = 'lock' in read ? { lockedVersions: (c: string) => lockedVersions(read.lock, c) } : {};
  // collectAll: a cluster whose own entry has a problem is left out, its problems told with the run's
  const fleet = expandFleet(manifest, { ...expand, collectAll: options.collectAll, ...lockedBy });
  // the manifest's own warnings (a v1alpha1 object), told once as a single cluster's run tells them
  for (const warning of [...(manifest.warnings ?? []), ...fleet.warnings]) options.onWarning?.(warning);
  // each cluster's unsupportedOverrides and deprecated release, at the line that asks for them
  for (const warning of fleet.clusters.flatMap((c) => c.warnings)) options.onWarning?.(warning);
  if ('error' in read) throw read.error;
  const previous = read.lock;
  const problems = new ClusterDiagnostics();
  // a cluster left out for its own entry fails the run as one that does not resolve does, with the others' problems
  for (const d of fleet.problems) problems.add(d);
  const resolutions = new Map<string, Resolution>();
  const told = new ClusterDiagnostics();
  await Promise.all(
    fleet.clusters.map(async (cluster) => {
      try {
        // --frozen: what the lock does not answer is told before any request
        const view = clusterLockView(previous, cluster.name);
        const locked = {
          lock: view,
          frozen: options.frozen,
          ...(view !== undefined && view.entries.length === 0 ? { unlistedCluster: cluster.name } : {}),
        };
        const clusterOptions = {
          ...options,
          frozen: false,
          onWarning: told.from(cluster.name),
          versionRelease: versionRelease(cluster),
          versionLayer: versionLayer(cluster),
          stepRelease: stepRelease(fleet.releases),
        };
        // collectAll: what did not resolve travels with the resolution, named after its cluster and layer when reported
        resolutions.set(cluster.name, await resolveCluster(context, cluster.manifest, clusterOptions, locked));
      } catch (err) {
        problems.addError(err, cluster.name, cluster);
      }
    }),
  );
  await checkReleases(fleet, previous, options, context, problems);
  for (const warning of told.take()) options.onWarning?.(warning);
  const unresolved = [...resolutions.values()].some((r) => r.problems?.length);
  // --accept-digest names a component of any cluster (an overlay's provider), judged once for the fleet
  const clusterLocks = [...resolutions.values()].map((r) => r.lock.lock);
  if (options.acceptDigests?.length && problems.size === 0 && !unresolved)
    fleetAcceptNameProblems(options.acceptDigests, clusterLocks).forEach((d) => problems.add(d));
  if (options.collectAll && (problems.size > 0 || unresolved)) {
    // render what resolved, then report everything together (renderFleet)
    return {
      clusters: fleet.clusters,
      leftOut: fleet.leftOut,
      resolutions,
      lockFile,
      lock: { lock: previous ?? buildLockfile([]), changes: [] },
      problems,
    };
  }
  problems.throwIfAny();
  const locks = new Map<string, Lockfile>([...resolutions].map(([name, r]) => [name, r.lock.lock]));
  const lock = mergeClusterLocks(locks);
  const changes = fleetLockChanges(previous, locks);
  if (options.frozen) assertFleetFrozen(previous, lock, changes, lockFile);
  const accepted = acceptedOnce([...resolutions.values()].flatMap((r) => r.lock.accepted ?? []));
  const outcome = { lock, changes, ...(options.acceptDigests?.length ? { accepted } : {}) };
  return { clusters: fleet.clusters, leftOut: fleet.leftOut, resolutions, lockFile, lock: outcome, previous };
}

/**
 * Problems and warnings of a fleet's clusters, each reported once, naming every cluster it
 * reaches (`clusters c000–c099`, with ranges where the names allow): clusters that share an
 * artifact share its problems, a fleet of 100 clusters on one provider name tells its advice
 * once, not 100 times, and a release's problem, found both by the release's own check and in
 * each cluster on it, is reported once.
 */
class ClusterDiagnostics {
  private readonly grouped = new DiagnosticsByCluster();

  get size(): number {
    return this.grouped.size;
  }

  /** A diagnostic of one cluster (named after it, and after the layer that chose a version it is about), or of the fleet. */
  add(d: Diagnostic, cluster?: string, layers?: FleetCluster): void {
    // a version problem points at the layer that chose the version; a Config field's, at the layer that set it
    const origin =
      d.path === 'spec.version' && d.object
        ? layers?.origin(d.object, ['spec', 'version'])
        : d.object === 'Config' && d.path
          ? layers?.configOrigin(d.path.split('.'))
          : undefined;
    if (origin?.position) d = { ...d, file: origin.position.file, line: origin.position.line, column: origin.position.column };
    if (layers && origin) d = withCoreOrigin(d, layers, origin.layer);
    // a version the cluster's release leaves to the layers below it is the release's (its check reads the
    // shared manifest on it): `cluster lab-1, release R: X` is then the release check's `release R: X`, found in lab-1
    const belowRelease = layers?.release && (origin?.layer === 'shared manifest' || origin?.layer === 'tool defaults');
    const layer = belowRelease ? `release ${layers.release!.name}` : origin?.layer;
    this.grouped.add(origin ? { ...d, object: `${layer}: ${d.object}` } : d, cluster, origin ? ', ' : ': ');
  }

  /** A cluster's problems; anything else thrown is thrown on. */
  addError(err: unknown, cluster: string, layers?: FleetCluster): void {
    if (!(err instanceof CapiGitopsError)) throw err;
    for (const d of err.diagnostics) this.add(d, cluster, layers);
  }

  /** A cluster's warnings, told once every cluster has run. */
  from(cluster: string): (warning: Diagnostic) => void {
    return (warning) => this.add(warning, cluster);
  }

  /** Each once, in a stable order (clusters run concurrently), and forgets them. */
  take(): Diagnostic[] {
    return this.grouped.take();
  }

  throwIfAny(): void {
    if (this.size > 0) throw new CapiGitopsError(sortDiagnostics(this.take()));
  }
}

/**
 * A contract the core provider refuses is told where the refused version was chosen (a release
 * other clusters may share); when the cluster's own overlay chose the core's version, the hint
 * says where, so the core is changed for this cluster alone.
 */
function withCoreOrigin(d: Diagnostic, cluster: FleetCluster, layer: string): Diagnostic {
  if (!d.hint?.includes(CHANGE_CORE_VERSION)) return d;
  const core = cluster.manifest.providers.find((p) => p.kind === 'CoreProvider');
  const origin = core && cluster.origin(`${core.kind}/${core.namespace}/${core.name}`, ['spec', 'version']);
  // the layers every cluster on a release shares are the release check's: told there alike, once
  const own = origin?.layer === 'overlay' || origin?.layer === 'unsupportedOverrides';
  if (!own || !origin.position || origin.layer === layer) return d;
  const where = `cluster ${cluster.name}'s ${origin.layer} sets it at ${formatPosition(origin.position)}`;
  return { ...d, hint: d.hint.replace(CHANGE_CORE_VERSION, `${CHANGE_CORE_VERSION} (${where})`) };
}

/**
 * The Release on the way from `from` for a provider: the newest that pins it above `from` and at
 * most 3 minors above it (Cluster API supports at most 3 per upgrade), if the fleet has one.
 */
function stepRelease(
  releases: ReturnType<typeof expandFleet>['releases'],
): (provider: string, from: string) => { name: string; version: string } | undefined {
  return (provider, from) => {
    const start = parseSemantic(from);
    let best: { name: string; version: string; semantic: SemVer } | undefined;
    for (const { release } of releases.values()) {
      const key = releaseKey(release, provider);
      const semantic = key === undefined ? null : parseSemantic(release.providers[key]!);
      if (!start || !semantic || semantic.major !== start.major || compareSemantic(semantic, start) <= 0) continue;
      if (semantic.minor - start.minor > 3 || (best && compareSemantic(semantic, best.semantic) <= 0)) continue;
      best = { name: release.name, version: release.providers[key!]!, semantic };
    }
    return best && { name: best.name, version: best.version };
  };
}

/** The layer that set a provider's spec.version (`Kind/namespace/name`), or certManager.version (`certManager`), in this cluster. */
function versionLayer(cluster: FleetCluster): (provider: string) => string | undefined {
  return (provider) =>
    (provider === 'certManager' ? cluster.configOrigin(['certManager', 'version']) : cluster.origin(provider, ['spec', 'version']))?.layer;
}

/** The Release whose entry set a provider's spec.version in this cluster (its name), if one did. */
function versionRelease(cluster: FleetCluster): (provider: string) => string | undefined {
  return (provider) => {
    const layer = cluster.origin(provider, ['spec', 'version'])?.layer;
    return layer?.startsWith('release ') ? layer.slice('release '.length) : undefined;
  };
}

/** A problem or warning of a release's check, named after the release, at its line. */
function releaseDiagnostic(release: ReleaseObject, d: Diagnostic): Diagnostic {
  if (d.object?.startsWith('release ')) return d;
  return { ...d, ...releasePosition(release, d), object: `release ${release.name}${d.object ? `: ${d.object}` : ''}` };
}

/** The release's key for a provider (`<Kind>/<namespace>/<name>`), as the release wrote it, if it pins one. */
function releaseKey(release: ReleaseObject, provider: string): string | undefined {
  const [kind, namespace, name] = provider.split('/');
  return [`${kind}/${name}`, `${kind}/${namespace}/${name}`].find((k) => Object.hasOwn(release.providers, k));
}

/**
 * A version problem points at the Release's line for that provider, or for cert-manager (a
 * failure another release met first, read from the run's memo, carries that release's line);
 * one without a place, at the Release.
 */
function releasePosition(release: ReleaseObject, d: Diagnostic): Partial<Diagnostic> {
  const key = d.path === 'spec.version' ? releaseKey(release, d.object ?? '') : undefined;
  const certManager = d.object === 'Config' && d.path === 'certManager.version' && release.certManager?.version !== undefined;
  const where = key
    ? release.locate(['providers', key])
    : certManager
      ? release.locate(['certManager', 'version'])
      : d.file === undefined
        ? release.position
        : undefined;
  return where ? { file: where.file, line: where.line, column: where.column } : {};
}

/**
 * The clusters a mistyped `--cluster` may mean. Numbered clusters (c01, c09b) are as near each
 * other by edits as to a typo, so of several as near, the one that extends or shortens the name
 * (a renamed c09 → c09b) is the guess; else all of them, not one at random.
 */
function clusterGuesses(name: string, names: readonly string[]): string[] {
  const guess = closestName(name, names);
  if (guess === undefined) return [];
  const distance = (n: string) => editDistance(name.toLowerCase(), n.toLowerCase());
  const tied = [...names].sort(compareStrings).filter((n) => distance(n) === distance(guess));
  if (tied.length === 1) return tied;
  const extended = tied.filter((n) => n.startsWith(name) || name.startsWith(n));
  return extended.length === 1 ? extended : tied;
}

/**
 * The clusters a `--cluster` run keeps as the last run wrote them (none when it renders them all,
 * or writes no directory); kept in another layout than this run's, a problem of the run.
 */
async function keptClusters(
  clusters: readonly FleetCluster[],
  selected: ReadonlySet<string>,
  all: number,
  layout: LayoutName,
  options: RenderOptions,
  problems: ClusterDiagnostics,
): Promise<KeptClusters | undefined> {
  if (!options.outputDir || selected.size >= all) return undefined;
  const kept = await KeptClusters.read(options.outputDir);
  const otherLayout = otherLayoutProblem(kept, layout, clusters, selected, options);
  if (otherLayout) problems.add(otherLayout);
  return kept;
}

/**
 * `--cluster` in another layout than the one the output's other clusters are in: the clusters it
 * renders would leave the fleet's wiring (an Argo CD or Flux layout's) or join wiring the others
 * lack, and the README would call the whole fleet by the new layout. A problem of the run, so
 * nothing is written: one layout is changed for the whole fleet, by a run without --cluster.
 */
function otherLayoutProblem(
  kept: KeptClusters,
  layout: LayoutName,
  clusters: readonly FleetCluster[],
  selected: ReadonlySet<string>,
  options: RenderOptions,
): Diagnostic | undefined {
  const others = clusters.filter((c) => !selected.has(c.name));
  const written = [...new Set(others.map((c) => kept.layoutOf(c.name)).filter((l) => l !== undefined))];
  if (written.length !== 1 || written[0] === layout) return undefined;
  const [was] = written;
  const keptNames = others.filter((c) => kept.layoutOf(c.name) === was).map((c) => c.name);
  const out = displayPath(options.outputDir!);
  return {
    file: path.join(options.outputDir!, clusterDirectory(keptNames[0]!)),
    message:
      `--cluster ${[...selected].join(', ')} would be written in the ${layout} layout, but the output's other clusters ` +
      `(${clusterRanges(keptNames)}) are in the ${was} layout, which this run keeps: the fleet would be wired two ways`,
    expected: `--layout ${was}, the layout of the fleet in ${out}`,
    hint:
      `add --layout ${was}${options.layout === undefined ? ` (or set output: {layout: ${was}} in the Config document)` : ''}; ` +
      `to move the whole fleet to ${layout}, render without --cluster`,
  };
}

/** The clusters `--cluster` names (all without it), of the fleet's clusters: those left out too, which fail the run. */
function selectedClusters(resolved: FleetResolution, wanted: readonly string[] | undefined): Set<string> {
  const names = [...resolved.clusters.map((c) => c.name), ...resolved.leftOut];
  if (!wanted || wanted.length === 0) return new Set(names);
  const unknown = wanted.filter((w) => !names.includes(w));
  if (unknown.length > 0) {
    throw new CapiGitopsError(
      unknown.map((name) => {
        const guesses = clusterGuesses(name, names).map((g) => `--cluster ${g}`);
        const last = guesses.pop();
        return {
          message: `--cluster ${name}: no such cluster`,
          expected: `one of ${names.join(', ')}`,
          hint: last
            ? `did you mean ${guesses.length > 0 ? `${guesses.join(', ')} or ` : ''}${last}?`
            : 'name a cluster of Config clusters',
        };
      }),
    );
  }
  return new Set(wanted);
}

/** A cluster's chart values: its wiring's objects are named after it, so clusters never collide in one Argo CD or Flux. */
function clusterManifest(cluster: FleetCluster, layout: LayoutName): Manifest {
  const config = cluster.manifest.config;
  const gitops = config.gitops ?? {};
  const defaults = gitops.chart
    ? {}
    : { releaseName: `capi-gitops-${cluster.name}`, ...(layout === 'argocd' ? { project: `capi-gitops-${cluster.name}` } : {}) };
  return {
    ...cluster.manifest,
    config: {
      ...config,
      gitops: {
        ...gitops,
        values: mergeUserValues(defaults, gitops.values ?? {}),
      },
    },
  };
}

/** The Argo CD wiring of a fleet whose clusters ask for one ApplicationSet (`applicationSet: true`). */
interface ArgoFleet {
  clusters: { name: string; values: Values }[];
  /** ignoreDifferences of each rendered cluster's own ApplicationSet, which the fleet's replaces. */
  ignoreDifferences: Map<string, unknown[]>;
  /** Each object of the rendered clusters' own argocd/ and the clusters that write it: they share one Argo CD. */
  objects: Map<string, string[]>;
  /** Config `clusters`, where a problem of the clusters' wiring together is told. */
  at?: Pick<Diagnostic, 'file' | 'line' | 'column'>;
}

/**
 * With `applicationSet: true`, one ApplicationSet for the fleet replaces the one each cluster's
 * chart draws (their ignoreDifferences are kept in it). Every cluster's values are read before
 * any cluster renders, rendered in this run or not, so the lookups cover the whole fleet and
 * each cluster's own ApplicationSet is left out as the cluster comes. A cluster whose values do
 * not read reports that when it renders.
 */
async function argoFleet(
  fleet: readonly FleetCluster[],
  options: RenderOptions,
  problems: ClusterDiagnostics,
  /** Where the fleet's Config was written: its clusters' entries. */
  locate: Manifest['config']['locate'],
): Promise<ArgoFleet | undefined> {
  const builtIn = layoutChart('argocd')!;
  const clusters = await Promise.all(
    fleet.map(async (cluster) => {
      const values = await prepareWiring(builtIn, clusterManifest(cluster, 'argocd'), {
        ...options,
        outputSubdirectory: clusterDirectory(cluster.name),
        // the values' warnings are told by each cluster's render, once for the fleet
        onWarning: undefined,
      }).then(
        (wiring) => wiring.values,
        (err: unknown) => (err instanceof CapiGitopsError ? undefined : Promise.reject(err)),
      );
      return { name: cluster.name, values };
    }),
  );
  const read = clusters.filter((c): c is { name: string; values: Values } => c.values !== undefined);
  const on = read.filter((c) => c.values.applicationSet === true).map((c) => c.name);
  const byName = new Map(fleet.map((c) => [c.name, c]));
  const destinations = read.map((c) => destinationCluster(byName.get(c.name)!, c.values, locate));
  for (const d of sharedDestinationWarnings(destinations, on.length > 0 && on.length === read.length)) options.onWarning?.(d);
  if (on.length === 0) return undefined;
  if (on.length < read.length) {
    problems.add({
      object: 'Config clusters[].gitops',
      path: 'applicationSet',
      message: `applicationSet is true for ${on.join(', ')} and not for ${read
        .filter((c) => !on.includes(c.name))
        .map((c) => c.name)
        .join(', ')}`,
      expected: 'one ApplicationSet for the whole fleet, or Applications for every cluster',
      hint: "set applicationSet in the shared Config gitops.values, not in the clusters' overlays",
    });
    return undefined;
  }
  const own = await ownApplicationSetTemplate(fleet[0]?.manifest);
  if (own) options.onWarning?.(own);
  return { clusters: read, ignoreDifferences: new Map(), objects: new Map() };
}

/** A cluster's Argo CD destination and where it was written: the cluster's argocd values win over its gitops values. */
function destinationCluster(cluster: FleetCluster, values: Values, locate: Manifest['config']['locate']): FleetDestinationCluster {
  const { field } = destinationOf(values);
  const config = cluster.manifest.config;
  const entry = locate?.(['clusters', cluster.index, 'name']);
  for (const base of [
    ['gitops', 'argocd', 'values'],
    ['gitops', 'values'],
  ]) {
    const path = [...base, 'destination', field];
    const origin = cluster.configOrigin(path);
    if (!origin) continue;
    const at = config.locate?.(path) ?? origin.position ?? {};
    return {
      name: cluster.name,
      values,
      entry,
      written: { at, byCluster: origin.layer === 'overlay' || origin.layer === 'unsupportedOverrides' },
    };
  }
  return { name: cluster.name, values, entry };
}

/**
 * A chart of one's own whose templates/applicationset.yaml is not the built-in one: the fleet's
 * ApplicationSet is drawn from the clusters' values, not by it, so what it changed is not in the output.
 */
async function ownApplicationSetTemplate(manifest: Manifest | undefined): Promise<Diagnostic | undefined> {
  const chart = manifest && userChartPath(manifest);
  if (!chart) return undefined;
  const file = path.join(chart, 'templates', 'applicationset.yaml');
  const own = await readFile(file, 'utf8').catch(() => undefined);
  // loaded here, not at start-up (fast-glob)
  const { builtInChartFiles } = await import('../layout/chart/load.js');
  if (own === undefined || own === new Map(await builtInChartFiles('argocd')).get('templates/applicationset.yaml')) return undefined;
  return {
    file,
    message:
      `with applicationSet: true, the fleet's one ApplicationSet (${FLEET_WIRING_DIRECTORY}/applicationset-${FLEET_APPLICATIONSET_NAME}.yaml) ` +
      "is drawn from each cluster's chart values, not by this template: of what it draws only ignoreDifferences are kept",
    hint: 'set applicationSet: false for one Application per component drawn by your chart, or leave this template as chart show wrote it',
  };
}

/** A rendered cluster's tree without its own ApplicationSet, whose ignoreDifferences go to the fleet's. */
function withoutOwnApplicationSet(argo: ArgoFleet, cluster: string, tree: Map<string, string>): Map<string, string> {
  const sets = clusterApplicationSets(tree);
  argo.ignoreDifferences.set(
    cluster,
    sets.flatMap((s) => ignoreDifferencesOf(s.object)),
  );
  const files = withoutClusterApplicationSet(tree, sets);
  for (const identity of wiringIdentities(files)) argo.objects.set(identity, [...(argo.objects.get(identity) ?? []), cluster]);
  return files;
}

/** The fleet's ApplicationSet; a cluster `--cluster` leaves out keeps the ignoreDifferences the last run wrote. */
async function fleetArgoWiring(argo: ArgoFleet, options: RenderOptions): Promise<Map<string, string>> {
  const previousFile = options.outputDir
    ? path.join(options.outputDir, FLEET_WIRING_DIRECTORY, `applicationset-${FLEET_APPLICATIONSET_NAME}.yaml`)
    : undefined;
  const previousText =
    previousFile && argo.ignoreDifferences.size < argo.clusters.length
      ? await readFile(previousFile, 'utf8').catch(() => undefined)
      : undefined;
  const previousObjects = previousText ? parseArtifact(previousText, { source: previousFile! }) : undefined;
  const previous = previousObjects?.flatMap(ignoreDifferencesOf);
  const previousLookups = previousObjects?.[0] ? clusterLookups(previousObjects[0]) : undefined;
  const clusters = argo.clusters.map((c) =>
    argo.ignoreDifferences.has(c.name) ? { ...c, ignoreDifferences: argo.ignoreDifferences.get(c.name) } : c,
  );
  return fleetApplicationSet({
    clustersDirectory: CLUSTERS_DIRECTORY,
    clusters,
    previousIgnoreDifferences: previous,
    previousLookups,
    wiringObjects: argo.objects,
    at: argo.at,
  });
}

/** A cluster's README rows and component directories. */
function clusterTree(cluster: FleetCluster, { certManager, providers }: Resolution): FleetClusterTree {
  const row = ({ label, version }: { label: string; version: string }, type: RenderedComponent['type'], namespace: string) => ({
    label,
    version,
    namespace,
    directory: componentDirectory({ type, label }),
  });
  const components = providers.map((p) => row(p, p.kind, p.namespace));
  if (certManager) components.unshift(row(certManager, 'CertManager', 'cert-manager'));
  return { name: cluster.name, release: cluster.release?.name, components };
}

/** A cluster's files are written while the next cluster renders: one cluster's write at most is pending. */
function oneWriteAtATime(): { write: (next: Promise<void>) => Promise<void>; settle: () => Promise<void> } {
  let writing: Promise<void> | undefined;
  return {
    write: async (next) => {
      // its failure is thrown where it is awaited (for the cluster after, or by settle)
      next.catch(() => undefined);
      await writing;
      writing = next;
    },
    settle: async () => await writing,
  };
}

/**
 * A fleet is a loop: every cluster resolved (one lock for all), then each cluster rendered in
 * turn through the one run context, so what clusters share is fetched, parsed and rendered once.
 * Each cluster's files go to `out` before the next cluster renders (the output's stage when
 * rendering to a directory; in memory, returned as `files`, otherwise), so memory holds one
 * cluster's tree at a time. Every problem of every cluster is reported together.
 */
export async function renderFleet(manifest: Manifest, options: RenderOptions, out?: FleetFiles): Promise<FleetResult> {
  const context = new RunContext(options.sources?.cache);
  const layout: LayoutName = options.layout ?? manifest.config.output?.layout ?? 'kustomize';
  const fleetLayout: FleetLayoutName = options.fleetLayout ?? manifest.config.output?.fleetLayout ?? 'shared';
  const resolved = await resolveFleet(manifest, { ...options, collectAll: true }, context);
  const selected = selectedClusters(resolved, options.clusters);
  const problems = resolutionProblems(resolved, selected);
  const argo = layout === 'argocd' ? await argoFleet(resolved.clusters, options, problems, manifest.config.locate) : undefined;
  if (argo) argo.at = manifest.config.locate?.(['clusters'], 'key');
  const memory = out ? undefined : new FleetFilesInMemory();
  const secrets = await fleetSecrets(manifest, resolved.clusters, resolved.resolutions, options);
  const tree = new FleetTree(fleetLayout, out ?? memory!, (files) => secrets.refuseFleetLeaks(files));
  const all = resolved.clusters.length + resolved.leftOut.length;
  const kept = await keptClusters(resolved.clusters, selected, all, layout, options, problems);
  const warnings: [cluster: string, warning: string][] = [];
  const notGiven: SecretNotGiven[] = [];
  const told = new ClusterDiagnostics();
  const variables: ClusterVariables[] = [];
  const trees: FleetClusterTree[] = [];
  // each cluster's lock as its render left it (pinned images)
  const renderedLocks = new Map<string, Lockfile>();
  const { write, settle } = oneWriteAtATime();
  const fleetImageDigests = agreedImageDigests(resolved.previous);
  for (const cluster of resolved.clusters) {
    const resolution = resolved.resolutions.get(cluster.name);
    // a cluster that could not be resolved at all has its problems collected already
    if (!resolution) continue;
    trees.push(clusterTree(cluster, resolution));
    if (!selected.has(cluster.name)) {
      // kept as the last run wrote it; in the shared layout, its objects count for the bases
      if (problems.size === 0 && kept)
        await write(tree.addCluster(trees.at(-1)!, await kept.cluster(cluster.name), await kept.secretFiles(cluster.name)));
      continue;
    }
    try {
      const result = await renderCluster(
        context,
        { ...resolution, manifest: clusterManifest(cluster, layout) },
        { ...clusterOptions(options, layout, cluster, variables, told, secrets), fleetImageDigests },
      );
      warnings.push(...result.warnings.map((w): [string, string] => [cluster.name, w]));
      notGiven.push(...(result.secretsNotGiven ?? []));
      renderedLocks.set(cluster.name, result.lock.lock);
      // after a problem the run fails: what is left is rendered for its problems, not written
      if (problems.size > 0) continue;
      const files = argo ? withoutOwnApplicationSet(argo, cluster.name, result.files) : result.files;
      await write(tree.addCluster(trees.at(-1)!, files, new Set(result.secretFiles)));
    } catch (err) {
      problems.addError(err, cluster.name, cluster);
    }
  }
  await settle();
  for (const warning of told.take()) options.onWarning?.(warning);
  warnUnusedVariables(manifest, variables, all, options);
  problems.throwIfAny();
  await tree.finish({
    layout,
    clusters: trees,
    fleetWiring: argo ? await fleetArgoWiring(argo, options) : undefined,
    command: readmeCommandFor(options),
  });
  return {
    clusters: clusterOutcomes(resolved, selected),
    files: memory?.tree() ?? new Map(),
    layout,
    lockFile: resolved.lockFile,
    lock: concludeFleetLock(
      resolved.previous,
      new Map([...resolved.resolutions].map(([name, r]) => [name, renderedLocks.get(name) ?? r.lock.lock])),
      options.frozen ?? false,
      resolved.lockFile,
    ),
    warnings: oncePerWarning(warnings),
    ...(notGiven.length > 0 ? { secretsNotGiven: mergeSecretsNotGiven(notGiven) } : {}),
    ...context.stats,
  };
}

/**
 * The clusters' warnings, each told once: those that differ only by the cluster's name (a path in
 * its directory, its wiring's names) are one warning naming the clusters, `<cluster>` in place of
 * the name, so that each cluster's own text is the warning with its name put back.
 */
function oncePerWarning(warnings: readonly [cluster: string, warning: string][]): string[] {
  const PLACE = '<cluster>';
  // the name where no letter or digit touches it (`e` is not the e of "Secret"; it is in capi-gitops-e-04-…)
  const asWord = (cluster: string) => new RegExp(`(?<![A-Za-z0-9])${cluster.replace(/[.]/g, '\\.')}(?![A-Za-z0-9])`, 'g');
  const groups = new Map<string, string[]>();
  for (const [cluster, warning] of warnings) {
    const key = warning.includes(PLACE) ? `${cluster}\0${warning}` : warning.replace(asWord(cluster), PLACE);
    groups.set(key, [...(groups.get(key) ?? []), cluster]);
  }
  return [...groups]
    .map(([key, clusters]) =>
      clusters.length === 1
        ? `cluster ${clusters[0]}: ${key.startsWith(`${clusters[0]}\0`) ? key.slice(clusters[0]!.length + 1) : key.split(PLACE).join(clusters[0]!)}`
        : `clusters ${clusterRanges(clusters)}: ${key}`,
    )
    .sort(compareStrings);
}

/**
 * Where the cluster's own entry set a Config gitops path (`clusters[0]`, or
 * `clusters[0].unsupportedOverrides`); undefined when the shared Config set it.
 */
function clusterGitopsEntry(cluster: FleetCluster): (configPath: readonly string[]) => string | undefined {
  return (configPath) => {
    const layer = cluster.configOrigin(configPath)?.layer;
    if (layer === 'overlay') return `clusters[${cluster.index}]`;
    return layer === 'unsupportedOverrides' ? `clusters[${cluster.index}].unsupportedOverrides` : undefined;
  };
}

/** A cluster's render: into its directory, its variables and warnings told with the fleet's. */
function clusterOptions(
  options: RenderOptions,
  layout: LayoutName,
  cluster: FleetCluster,
  variables: ClusterVariables[],
  told: ClusterDiagnostics,
  secrets: FleetSecrets,
): RenderOptions {
  return {
    ...options,
    layout,
    outputSubdirectory: clusterDirectory(cluster.name),
    // told with the cluster's own gate's problems, which a refused file name would otherwise stop first
    otherClustersLeaks: (files) => secrets.clusterLeaks(cluster.name, clusterDirectory(cluster.name), files),
    fleetCluster: cluster.name,
    clusterGitopsEntry: clusterGitopsEntry(cluster),
    onGivenVariables: collectVariables(cluster, variables),
    onWarning: told.from(cluster.name),
  };
}

/** A cluster's given variables, for the fleet to judge once every cluster has rendered. */
function collectVariables(cluster: FleetCluster, into: ClusterVariables[]): (given: GivenVariables[]) => void {
  return (given) => into.push({ cluster: cluster.name, given, origin: (name) => cluster.configOrigin(['variables', name]) });
}

/** Variables no cluster uses, each once: the shared Config's only when every cluster rendered (`--cluster` renders some). */
function warnUnusedVariables(manifest: Manifest, variables: ClusterVariables[], clusters: number, options: RenderOptions): void {
  const config = manifest.config;
  const shared = config.variables && {
    origin: 'Config',
    position: config.position,
    locate: (name: string) => config.locate?.(['variables', name]),
    names: Object.keys(config.variables),
  };
  for (const w of fleetVariableWarnings(shared, variables, variables.length === clusters)) options.onWarning?.(w);
}

/** What did not resolve: every problem of the fleet; a cluster not rendered this run still fails it (the lock covers it). */
function resolutionProblems(resolved: FleetResolution, selected: ReadonlySet<string>): ClusterDiagnostics {
  const problems = resolved.problems ?? new ClusterDiagnostics();
  for (const cluster of resolved.clusters.filter((c) => !selected.has(c.name)))
    for (const d of resolved.resolutions.get(cluster.name)?.problems ?? []) problems.add(d, cluster.name, cluster);
  return problems;
}

/** A fleet loaded with collectAll: a shared object's problem reaches every cluster; told with the clusters' own entries' problems. */
export function throwSharedProblems(manifest: Manifest): void {
  if (manifest.problems)
    throw new CapiGitopsError(sortDiagnostics([...manifest.problems, ...[...(manifest.clusterProblems?.values() ?? [])].flat()]));
}

/** Every problem a fleet's resolution with collectAll gathered: the clusters left out, and what did not resolve in each. */
export function throwResolutionProblems(resolved: FleetResolution): void {
  resolutionProblems(resolved, new Set()).throwIfAny();
}

function clusterOutcomes(resolved: FleetResolution, selected: ReadonlySet<string>): ClusterOutcome[] {
  return resolved.clusters.map((c) => ({
    name: c.name,
    ...(c.release ? { release: c.release.name } : {}),
    resolution: resolved.resolutions.get(c.name)!,
    rendered: selected.has(c.name),
  }));
}

/** One component's move in `plan --release`. */
export interface ReleaseMove {
  cluster: string;
  component: string;
  from?: string;
  to?: string;
  /** When the move changes the provider's contract (v1beta1 → v1beta2): what the plan's reviewer must know first. */
  fromContract?: string;
  toContract?: string;
}

/** The versions of a resolution, by component label (and namespace when not the default one), with each provider's contract. */
function versionsOf(resolution: Resolution): Map<string, { version: string; contract?: string }> {
  const versions = new Map<string, { version: string; contract?: string }>();
  if (resolution.certManager) versions.set(resolution.certManager.label, { version: resolution.certManager.version });
  for (const p of resolution.providers) versions.set(`${p.label} (${p.namespace})`, { version: p.version, contract: p.contract });
  return versions;
}

/** Each component whose version the move changes; its contract when that changes too. */
function releaseMoves(cluster: string, before: ReturnType<typeof versionsOf>, after: ReturnType<typeof versionsOf>): ReleaseMove[] {
  const moves: ReleaseMove[] = [];
  for (const component of [...new Set([...before.keys(), ...after.keys()])]) {
    const [from, to] = [before.get(component), after.get(component)];
    if (from?.version === to?.version) continue;
    const contracts =
      from?.contract && to?.contract && from.contract !== to.contract ? { fromContract: from.contract, toContract: to.contract } : {};
    moves.push({ cluster, component, from: from?.version, to: to?.version, ...contracts });
  }
  return moves;
}

/**
 * The Config with the `selected` clusters only, each still told at its own line: the positions
 * (not enumerable, so not spread) map a selected cluster's index to its index in the file.
 */
function selectedConfig(config: Manifest['config'], selected: ReadonlySet<string>): Manifest['config'] {
  const kept = (config.clusters ?? []).flatMap((c, i) => (selected.has(c.name) ? [i] : []));
  const narrowed = { ...config, clusters: config.clusters?.filter((c) => selected.has(c.name)) };
  const { locate } = config;
  if (locate) {
    const inFile = (p: FieldPath): FieldPath =>
      p[0] === 'clusters' && typeof p[1] === 'number' ? ['clusters', kept[p[1]] ?? p[1], ...p.slice(2)] : p;
    Object.defineProperty(narrowed, 'locate', { value: (p: FieldPath, at?: 'key' | 'value') => locate(inFile(p), at), enumerable: false });
  }
  return narrowed;
}

/**
 * `plan --release <name>`: what moving clusters (all, or the `--cluster` ones) to a release
 * changes, component by component. Writes nothing.
 */
export async function planRelease(
  options: RenderOptions,
  release: string,
): Promise<{ clusters: { name: string; from?: string; moves: ReleaseMove[] }[] }> {
  // every problem of the current fleet in one run, as render tells them
  const manifest = await loadManifest(options.manifestPaths, { ...options, collectAll: true });
  if (!isFleet(manifest)) {
    throw new CapiGitopsError({
      file: manifest.config.position?.file,
      message: '--release plans a fleet, and the manifest declares no clusters',
      expected: 'Config clusters: [{name: …, release: …}, …] and kind: Release documents',
      hint: 'drop --release to plan provider upgrades',
    });
  }
  const context = new RunContext(options.sources?.cache);
  throwSharedProblems(manifest);
  const once = toldOnce();
  const current = await resolveFleet(manifest, { ...options, frozen: false, collectAll: true, ...once(options.onWarning) }, context);
  throwResolutionProblems(current);
  const selected = selectedClusters(current, options.clusters);
  // only the selected clusters move: the others' warnings are not the move's
  const moving = { ...manifest, config: selectedConfig(manifest.config, selected) };
  // the target's warnings the current resolution did not give are the move's: minors skipped, a downgrade
  const target = await resolveFleet(moving, { ...options, frozen: false, ...once(options.onWarning) }, context, { release });
  return {
    clusters: current.clusters
      .filter((c) => selected.has(c.name))
      .map((c) => {
        const moves = releaseMoves(c.name, versionsOf(current.resolutions.get(c.name)!), versionsOf(target.resolutions.get(c.name)!));
        return { name: c.name, ...(c.release ? { from: c.release.name } : {}), moves };
      }),
  };
}
