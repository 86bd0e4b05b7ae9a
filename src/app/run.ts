/**
 * What the commands run on a manifest: render it, lock it, or refuse a fleet. A single cluster
 * and a fleet go through the same run context; a fleet loops over its clusters (app/fleet.ts).
 */
import { CapiGitopsError, compareStrings } from '../core/diagnostics.js';
import { loadManifest } from '../manifest/load.js';
import { isFleet } from '../manifest/fleet-expand.js';
import type { LockOutcome } from '../resolve/lock/session.js';
import { RunContext } from './context.js';
import { resolveCluster } from './resolve.js';
import { renderCluster } from './cluster.js';
import { renderFleet, resolveFleet, type OutputResult } from './fleet.js';
import type { RenderOptions, Resolution } from './types.js';
import type { FleetFiles } from '../layout/fleet.js';

export type { OutputResult, RenderOptions };

/**
 * Loads the manifest and renders it: a fleet when it declares clusters, else one cluster. A
 * fleet's files go to `fleetFiles` as each cluster is laid out, when given (its result's `files`
 * is then empty).
 */
export async function renderOutput(options: RenderOptions, fleetFiles?: FleetFiles): Promise<OutputResult> {
  const manifest = await loadManifest(options.manifestPaths);
  if (isFleet(manifest)) return { fleet: true, ...(await renderFleet(manifest, options, fleetFiles)) };
  if ((options.clusters?.length ?? 0) > 0) {
    throw new CapiGitopsError({
      file: manifest.config.position?.file,
      message: '--cluster was given, but the manifest declares no clusters',
      expected: 'Config clusters: [{name: …}, …] to render a fleet',
      hint: 'drop --cluster, or declare the clusters under clusters: in the Config document',
    });
  }
  const context = new RunContext(options.sources?.cache);
  const resolution = await resolveCluster(context, manifest, { ...options, collectAll: true });
  return { fleet: false, ...(await renderCluster(context, resolution, options)) };
}

/** `capi-gitops lock`: the fleet's lock when the manifest declares clusters, else the single cluster's. */
export async function lockOutput(
  options: RenderOptions,
): Promise<({ fleet: false } & Resolution) | { fleet: true; resolutions: Map<string, Resolution>; lockFile: string; lock: LockOutcome }> {
  const manifest = await loadManifest(options.manifestPaths);
  const context = new RunContext(options.sources?.cache);
  if (!isFleet(manifest)) return { fleet: false, ...(await resolveCluster(context, manifest, options)) };
  const { resolutions, lockFile, lock } = await resolveFleet(manifest, options, context);
  return { fleet: true, resolutions: new Map([...resolutions].sort(([a], [b]) => compareStrings(a, b))), lockFile, lock };
}

/**
 * Commands that read one cluster's manifest and lock (`plan` without --release, `update`,
 * `render --list-variables`) refuse a fleet rather than act on its shared part alone: `update`
 * would rewrite the fleet's lock as one cluster's.
 */
export async function refuseFleet(options: RenderOptions, what: string, hint: string): Promise<void> {
  const manifest = await loadManifest(options.manifestPaths);
  if (!isFleet(manifest)) return;
  throw new CapiGitopsError({
    ...(manifest.config.position
      ? { file: manifest.config.position.file, line: manifest.config.position.line, column: manifest.config.position.column }
      : {}),
    object: 'Config',
    path: 'clusters',
    message: `${what} works on a single cluster, and this manifest declares a fleet`,
    expected: 'a manifest without clusters',
    hint,
  });
}
