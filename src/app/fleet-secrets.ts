/**
 * Each cluster's own secret values (its providers' configSecrets), known before any cluster
 * renders, so every cluster's files are searched for the others' (secrets/gate.ts FleetSecrets).
 */
import type { Manifest, SecretObject } from '../manifest/types.js';
import { FleetSecrets, secretNeedles, secretValues, type SecretNeedles } from '../secrets/index.js';
import type { FleetCluster } from '../manifest/fleet-expand.js';
import type { Resolution } from './types.js';

export function fleetSecrets(
  manifest: Manifest,
  clusters: readonly FleetCluster[],
  resolutions: ReadonlyMap<string, Resolution>,
): FleetSecrets {
  // one lookup for the fleet: every cluster reads the shared input's Secrets
  const byName = new Map(manifest.secrets.map((s) => [`${s.namespace}/${s.name}`, s]));
  const byCluster = new Map<string, SecretNeedles>();
  for (const cluster of clusters) {
    const resolution = resolutions.get(cluster.name);
    if (!resolution) continue;
    const secrets: SecretObject[] = [];
    for (const { provider } of resolution.providers) {
      const ref = provider.spec.configSecret;
      const secret = ref && byName.get(`${ref.namespace ?? provider.namespace}/${ref.name}`);
      if (secret) secrets.push(secret);
    }
    // the run's own values (--secret-file, --env-secret) are every cluster's: each gate has them
    byCluster.set(cluster.name, secretNeedles(secretValues(cluster.manifest, secrets, { values: new Map(), manifests: [] })));
  }
  return new FleetSecrets(byCluster);
}
