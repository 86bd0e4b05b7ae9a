/**
 * `capi-gitops update`: move pinned provider versions in the manifest and write the lockfile if it
 * changed, as one transaction (core/prepared-file.ts).
 */
import { refuseFleet, type RenderOptions } from './run.js';
import { newestRelease } from './plan.js';
import { updateManagementCluster, type UpdateResult } from './upgrade.js';
import type { UpdateSelection } from '../resolve/upgrade-plan.js';
import { prepareLockfile } from '../resolve/lock/lockfile.js';
import { abortAll, commitTogether, prepareFile, type PreparedFile } from '../core/prepared-file.js';
import { holdingLockfile } from '../output/write-guard.js';

export interface UpdateOutcome extends UpdateResult {
  /** Whether the lockfile was written (it changed). */
  lockWritten: boolean;
}

export async function update(options: RenderOptions, selection: UpdateSelection): Promise<UpdateOutcome> {
  await refuseFleet(options, 'update', (fleet) => {
    // no `capi-gitops render` suggested: it would need the -o that update has not got
    if (selection.images)
      return (
        "in a fleet, a moved tag's new digest is taken by a render: delete the two lines of each moved image (its `- image:` and " +
        '`digest:`) from every lockfile entry that lists it, then render the fleet, which asks the registry for an image the lock lacks'
      );
    const moves = "in a fleet, versions move through kind: Release documents or the clusters' overlays";
    // the CLI adds the run's own -f flags to a suggested command (cli/hints.ts)
    const newest = newestRelease(fleet);
    return newest
      ? `${moves}; see what moving to a release changes with \`capi-gitops plan --release ${newest}\``
      : `${moves}; write a kind: Release with the versions to move to and plan the fleet's move to it with --release`;
  });
  const result = await updateManagementCluster(options, selection);
  // One transaction under the lockfile's lock (as render decides it): every file prepared first,
  // then all renamed, so pins and lock move together.
  return holdingLockfile(result.resolution.lockFile, async () => {
    const lock = await prepareLockfile(result.resolution.lockFile, result.resolution.lock.lock);
    const prepared: PreparedFile[] = lock ? [lock] : [];
    try {
      for (const file of result.texts) prepared.unshift(await prepareFile(file.path, file.text));
    } catch (err) {
      await abortAll(prepared);
      throw err;
    }
    await commitTogether(prepared);
    return { ...result, lockWritten: lock !== undefined };
  });
}
