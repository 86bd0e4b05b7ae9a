/** `capi-gitops update`: move pinned provider versions in the manifest, then write the lockfile if it changed. */
import { refuseFleet, type RenderOptions } from './run.js';
import { updateManagementCluster, type UpdateResult } from './upgrade.js';
import type { UpdateSelection } from '../resolve/upgrade-plan.js';
import { writeLockfile } from '../resolve/lock/lockfile.js';

export interface UpdateOutcome extends UpdateResult {
  /** Whether the lockfile was written (it changed). */
  lockWritten: boolean;
}

export async function update(options: RenderOptions, selection: UpdateSelection): Promise<UpdateOutcome> {
  await refuseFleet(
    options,
    'update',
    "in a fleet, versions move through kind: Release documents or the clusters' overlays; see `capi-gitops plan --release`",
  );
  const result = await updateManagementCluster(options, selection);
  const lockWritten = await writeLockfile(result.resolution.lockFile, result.resolution.lock.lock);
  return { ...result, lockWritten };
}
