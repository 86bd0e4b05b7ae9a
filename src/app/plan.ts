/**
 * `capi-gitops plan`: with a release, what moving a fleet's clusters to it changes; without, the
 * provider upgrades a single-cluster manifest can take. Writes nothing.
 */
import { planRelease } from './fleet.js';
import { refuseFleet, type RenderOptions } from './run.js';
import { planManagementCluster } from './upgrade.js';
import { withLoweredPins, type UpgradePlan } from '../resolve/upgrade-plan.js';
import type { Manifest } from '../manifest/types.js';
import { compareSemantic, parseSemantic } from '../core/versions.js';

export type PlanResult = ({ release: string } & Awaited<ReturnType<typeof planRelease>>) | { release?: undefined; plan: UpgradePlan };

/** `release`: plan a fleet's move to it (`plan --release`); without it the manifest must be a single cluster. */
export async function plan(options: RenderOptions, release?: string): Promise<PlanResult> {
  if (release !== undefined) return { release, ...(await planRelease(options, release)) };
  await refuseFleet(options, 'plan without --release', (fleet) => {
    const newest = newestRelease(fleet);
    // the CLI adds the run's own -f flags to a suggested command (cli/hints.ts)
    return newest
      ? `plan the fleet's move to a release with \`capi-gitops plan --release ${newest}\`, or move a cluster by pinning versions in its overlay`
      : "write a kind: Release with the versions to move to and plan the fleet's move to it with --release, or pin versions in a cluster's overlay";
  });
  const { plan, lock, resolution } = await planManagementCluster(options);
  return { plan: withLoweredPins(plan, lock, resolution.providers) };
}

/** The release a suggestion names: the newest when the names are versions (2026.11.0), else the last written. */
export function newestRelease(fleet: Manifest): string | undefined {
  const names = (fleet.releases ?? []).map((r) => r.name).filter((name) => /^[A-Za-z0-9._-]+$/.test(name));
  const versions = names.flatMap((name) => parseSemantic(name) ?? []);
  if (versions.length > 0) return versions.sort(compareSemantic).at(-1)!.raw;
  return names.at(-1);
}
