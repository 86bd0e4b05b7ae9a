/**
 * What the commands run on a manifest: render it, lock it, or refuse a fleet. A single cluster
 * and a fleet go through the same run context; a fleet loops over its clusters (app/fleet.ts).
 */
import { CapiGitopsError, compareStrings } from '../core/diagnostics.js';
import { loadManifest } from '../manifest/load.js';
import type { Manifest } from '../manifest/types.js';
import { isFleet } from '../manifest/fleet-expand.js';
import type { LockOutcome } from '../resolve/lock/session.js';
import { RunContext } from './context.js';
import { resolveCluster } from './resolve.js';
import { renderCluster } from './cluster.js';
import { renderFleet, resolveFleet, throwResolutionProblems, throwSharedProblems, type OutputResult } from './fleet.js';
import type { RenderOptions, Resolution } from './types.js';
import type { FleetFiles } from '../layout/fleet.js';

export type { OutputResult, RenderOptions };

/**
 * Loads the manifest and renders it: a fleet when it declares clusters, else one cluster. A
 * fleet's files go to `fleetFiles` as each cluster is laid out, when given (its result's `files`
 * is then empty).
 */
export async function renderOutput(options: RenderOptions, fleetFiles?: FleetFiles): Promise<OutputResult> {
  // every problem in one run: an object with a problem is left out, and its problems reported with the others
  const manifest = await loadManifest(options.manifestPaths, { ...options, collectAll: true });
  // a Secret's values in a file Git tracks (or would pick up) are on their way into its history;
  // told after the render, so after the masks of every secret value, whether it succeeds or not
  const secretFiles = options.secretFiles ?? [];
  const inGit =
    manifest.secrets.length === 0 && secretFiles.length === 0
      ? []
      : import('../secrets/git-tracked.js').then(async (m) => [
          ...(await m.gitTrackedSecretWarnings(
            manifest.secrets,
            manifest.config.secrets?.public ?? [],
            configSecretNames(manifest),
            filesOfOtherObjects(manifest),
          )),
          ...(await m.gitTrackedSecretFileWarnings(secretFiles)),
        ]);
  try {
    return await renderLoaded(manifest, options, fleetFiles);
  } finally {
    for (const w of await inGit) options.onWarning?.(w);
  }
}

/** The Secrets (namespace/name) the manifest's providers read as spec.configSecret. */
function configSecretNames(manifest: Manifest): Set<string> {
  return new Set(
    manifest.providers.flatMap((p) =>
      p.spec.configSecret ? [`${p.spec.configSecret.namespace || p.namespace}/${p.spec.configSecret.name}`] : [],
    ),
  );
}

/** The files that hold objects other than Secrets, each with what it holds ("the provider objects and the Config"). */
function filesOfOtherObjects(manifest: Manifest): Map<string, string> {
  const held = new Map<string, Set<string>>();
  const add = (what: string, positions: readonly { position?: { file: string } }[]) => {
    for (const { position } of positions) if (position) held.set(position.file, (held.get(position.file) ?? new Set()).add(what));
  };
  add('the provider objects', manifest.providers);
  add('the Config', [manifest.config]);
  add('ConfigMaps', manifest.configMaps);
  add('Namespaces', manifest.namespaces ?? []);
  add('Releases', manifest.releases ?? []);
  return new Map([...held].map(([file, what]) => [file, [...what].join(' and ').replace(/ and (?=.* and )/g, ', ')]));
}

async function renderLoaded(manifest: Manifest, options: RenderOptions, fleetFiles?: FleetFiles): Promise<OutputResult> {
  if (isFleet(manifest)) {
    throwSharedProblems(manifest);
    return { fleet: true, ...(await renderFleet(manifest, options, fleetFiles)) };
  }
  // fleet flags on one cluster would be silently ignored (and --fleet-layout kept in the README's command)
  const fleetFlag = (options.clusters?.length ?? 0) > 0 ? '--cluster' : options.fleetLayout !== undefined ? '--fleet-layout' : undefined;
  if (fleetFlag) {
    throw new CapiGitopsError({
      file: manifest.config.position?.file,
      message: `${fleetFlag} was given, but the manifest declares no clusters`,
      expected: 'Config clusters: [{name: …}, …] to render a fleet',
      hint: `drop ${fleetFlag}, or declare the clusters under clusters: in the Config document`,
    });
  }
  const context = new RunContext(options.sources?.cache, { oneCluster: true });
  const resolution = await resolveCluster(context, manifest, { ...options, collectAll: true });
  return { fleet: false, ...(await renderCluster(context, resolution, options)) };
}

/**
 * `capi-gitops lock`: the fleet's lock when the manifest declares clusters, else the single
 * cluster's. Every problem in one run, as render tells them: what has a problem of its own is left
 * out, the rest resolved, then all are told together.
 */
export async function lockOutput(
  options: RenderOptions,
): Promise<({ fleet: false } & Resolution) | { fleet: true; resolutions: Map<string, Resolution>; lockFile: string; lock: LockOutcome }> {
  const manifest = await loadManifest(options.manifestPaths, { ...options, collectAll: true });
  const context = new RunContext(options.sources?.cache);
  if (!isFleet(manifest)) {
    const resolution = await resolveCluster(context, manifest, { ...options, collectAll: true });
    if (resolution.problems?.length) throw new CapiGitopsError(resolution.problems);
    return { fleet: false, ...resolution };
  }
  throwSharedProblems(manifest);
  const resolved = await resolveFleet(manifest, { ...options, collectAll: true }, context);
  throwResolutionProblems(resolved);
  const { resolutions, lockFile, lock } = resolved;
  return { fleet: true, resolutions: new Map([...resolutions].sort(([a], [b]) => compareStrings(a, b))), lockFile, lock };
}

/**
 * Commands that read one cluster's manifest and lock (`plan` without --release, `update`,
 * `render --list-variables`) refuse a fleet rather than act on its shared part alone: `update`
 * would rewrite the fleet's lock as one cluster's.
 */
export async function refuseFleet(options: RenderOptions, what: string, hint: string | ((fleet: Manifest) => string)): Promise<void> {
  const manifest = await loadManifest(options.manifestPaths, options);
  if (!isFleet(manifest)) return;
  const at = manifest.config.locate?.(['clusters']) ?? manifest.config.position;
  throw new CapiGitopsError({
    ...(at ? { file: at.file, line: at.line, column: at.column } : {}),
    object: 'Config',
    path: 'clusters',
    message: `${what} works on a single cluster, and this manifest declares a fleet`,
    expected: 'a manifest without clusters',
    hint: typeof hint === 'string' ? hint : hint(manifest),
  });
}
