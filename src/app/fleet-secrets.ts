/**
 * Each cluster's own secret values (its providers' configSecrets), known before any cluster
 * renders, so every cluster's files are searched for the others' (secrets/gate.ts FleetSecrets).
 */
import type { Manifest } from '../manifest/types.js';
import { findConfigSecret } from '../manifest/references.js';
import { FleetSecrets, secretNeedles, secretValues, type SecretNeedles } from '../secrets/index.js';
import type { FleetCluster } from '../manifest/fleet-expand.js';
import type { Resolution } from './types.js';

export function fleetSecrets(
  manifest: Manifest,
  clusters: readonly FleetCluster[],
  resolutions: ReadonlyMap<string, Resolution>,
): FleetSecrets {
  const byCluster = new Map<string, SecretNeedles>();
  for (const cluster of clusters) {
    const resolution = resolutions.get(cluster.name);
    if (!resolution) continue;
    // every cluster reads the shared input's Secrets
    const secrets = resolution.providers.flatMap(({ provider }) => findConfigSecret(provider, manifest.secrets) ?? []);
    // the run's own values (--secret-file, --env-secret) are every cluster's: each gate has them
    byCluster.set(cluster.name, secretNeedles(secretValues(cluster.manifest, secrets, { values: new Map(), manifests: [] })));
  }
  return new FleetSecrets(byCluster);
}
