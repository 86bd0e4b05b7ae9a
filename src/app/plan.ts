/**
 * `capi-gitops plan`: with a release, what moving a fleet's clusters to it changes; without, the
 * provider upgrades a single-cluster manifest can take. Writes nothing.
 */
import { planRelease } from './fleet.js';
import { refuseFleet, type RenderOptions } from './run.js';
import { planManagementCluster } from './upgrade.js';
import type { UpgradePlan } from '../resolve/upgrade-plan.js';

export type PlanResult = ({ release: string } & Awaited<ReturnType<typeof planRelease>>) | { release?: undefined; plan: UpgradePlan };

/** `release`: plan a fleet's move to it (`plan --release`); without it the manifest must be a single cluster. */
export async function plan(options: RenderOptions, release?: string): Promise<PlanResult> {
  if (release !== undefined) return { release, ...(await planRelease(options, release)) };
  await refuseFleet(
    options,
    'plan without --release',
    'plan a fleet with `capi-gitops plan -f <path> --release <name>`, or move a cluster by pinning versions in its overlay',
  );
  return { plan: (await planManagementCluster(options)).plan };
}
