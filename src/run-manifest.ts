/**
 * What the commands run on a manifest: render it, lock it, or refuse a fleet. A single cluster
 * goes through pipeline.ts; a fleet (Config.clusters) through fleet-render.ts, loaded with
 * `import()` only then, so a single cluster's run never parses the fleet's expansion, sharing,
 * lock merging and ApplicationSet.
 */
import { CapiGitopsError, compareStrings } from './model/diagnostics.js';
import { loadManifest } from './manifest/load.js';
import { isFleet } from './fleet/is-fleet.js';
import type { LockOutcome } from './lock/session.js';
import { renderResolution, resolveManifest, type Resolution } from './pipeline.js';
import type { FleetRenderOptions, OutputResult } from './fleet-render.js';

export type { FleetRenderOptions, OutputResult };

const fleetRender = () => import('./fleet-render.js');

/** Loads the manifest and renders it: a fleet when it declares clusters, else one cluster. */
export async function renderOutput(options: FleetRenderOptions): Promise<OutputResult> {
  const manifest = await loadManifest(options.manifestPaths, options);
  if (!isFleet(manifest)) {
    if ((options.clusters?.length ?? 0) > 0) {
      throw new CapiGitopsError({
        file: manifest.config.position?.file,
        message: '--cluster was given, but the manifest declares no clusters',
        expected: 'Config clusters: [{name: …}, …] to render a fleet',
        hint: 'drop --cluster, or declare the clusters under clusters: in the Config document',
      });
    }
    return { fleet: false, ...(await renderResolution(await resolveManifest(manifest, { ...options, collectAll: true }), options)) };
  }
  return { fleet: true, ...(await (await fleetRender()).renderFleet(manifest, options)) };
}

/** `capi-gitops lock`: the fleet's lock when the manifest declares clusters, else the single cluster's. */
export async function lockOutput(
  options: FleetRenderOptions,
): Promise<({ fleet: false } & Resolution) | { fleet: true; resolutions: Map<string, Resolution>; lockFile: string; lock: LockOutcome }> {
  const manifest = await loadManifest(options.manifestPaths, options);
  if (!isFleet(manifest)) return { fleet: false, ...(await resolveManifest(manifest, options)) };
  const { resolutions, lockFile, lock } = await (await fleetRender()).resolveFleet(manifest, options);
  return { fleet: true, resolutions: new Map([...resolutions].sort(([a], [b]) => compareStrings(a, b))), lockFile, lock };
}

/**
 * Commands that read one cluster's manifest and lock (`plan` without --release, `update`,
 * `render --list-variables`) refuse a fleet rather than act on its shared part alone: `update`
 * would rewrite the fleet's lock as one cluster's.
 */
export async function refuseFleet(options: FleetRenderOptions, what: string, hint: string): Promise<void> {
  const manifest = await loadManifest(options.manifestPaths, options);
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
