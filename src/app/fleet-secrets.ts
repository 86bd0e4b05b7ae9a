/**
 * Each cluster's own secret values (its providers' configSecrets), known before any cluster
 * renders, so every cluster's files are searched for the others' (secrets/gate.ts FleetSecrets),
 * and the files the fleet writes itself for every cluster's and the run's.
 */
import type { Manifest } from '../manifest/types.js';
import { findConfigSecret } from '../manifest/references.js';
import { CapiGitopsError, type Diagnostic } from '../core/diagnostics.js';
import { FleetSecrets, secretNeedles, secretValues, type RunSecrets, type SecretNeedles } from '../secrets/index.js';
import type { FleetCluster } from '../manifest/fleet-expand.js';
import { runSecrets } from './providers.js';
import type { RenderOptions, Resolution } from './types.js';

export async function fleetSecrets(
  manifest: Manifest,
  clusters: readonly FleetCluster[],
  resolutions: ReadonlyMap<string, Resolution>,
  options: RenderOptions,
): Promise<FleetSecrets> {
  const byCluster = new Map<string, SecretNeedles>();
  for (const cluster of clusters) {
    const resolution = resolutions.get(cluster.name);
    if (!resolution) continue;
    // every cluster reads the shared input's Secrets
    const secrets = resolution.providers.flatMap(({ provider }) => findConfigSecret(provider, manifest.secrets) ?? []);
    // the run's own values (--secret-file, --env-secret) are every cluster's: each gate has them
    byCluster.set(cluster.name, secretNeedles(secretValues(cluster.manifest, secrets, { values: new Map(), manifests: [] })));
  }
  return new FleetSecrets(byCluster, secretNeedles(secretValues(manifest, [], await fleetRunSecrets(manifest, options))));
}

/** The run's own values, for the fleet's files; none when they cannot be read, as every cluster's render then fails, telling why. */
async function fleetRunSecrets(manifest: Manifest, options: RenderOptions): Promise<RunSecrets> {
  try {
    return await runSecrets(manifest, options);
  } catch (err) {
    if (err instanceof CapiGitopsError) return { values: new Map(), manifests: [] };
    throw err;
  }
}

/**
 * The cluster's own gate (`gate`) and, in a fleet, the search for the other clusters' values
 * (otherClustersLeaks): the problems of both thrown together, each once.
 */
export function gateWithOtherClusters(files: ReadonlyMap<string, string>, options: RenderOptions, gate: () => void): void {
  const others = options.otherClustersLeaks?.(files) ?? [];
  const problems: Diagnostic[] = [];
  try {
    gate();
  } catch (err) {
    if (!(err instanceof CapiGitopsError)) throw err;
    problems.push(...err.diagnostics);
  }
  const told = new Set(problems.map((d) => JSON.stringify(d)));
  problems.push(...others.filter((d) => !told.has(JSON.stringify(d))));
  if (problems.length > 0) throw new CapiGitopsError(problems);
}
