/** `capi-gitops lock`: resolve the manifest (a fleet's clusters, or the one cluster) and write the lockfile if it changed. */
import { lockOutput, type RenderOptions } from './run.js';
import { writeLockfile } from '../resolve/lock/lockfile.js';
import { holdingLockfile } from '../output/write-guard.js';

export type LockResult = Awaited<ReturnType<typeof lockOutput>> & {
  /** Whether the lockfile was written (it changed). */
  lockWritten: boolean;
};

export async function lock(options: RenderOptions): Promise<LockResult> {
  const resolution = await lockOutput(options);
  // read, compared and written under the lockfile's lock: another run writing it meanwhile is named, not undone
  const lockWritten = await holdingLockfile(resolution.lockFile, () => writeLockfile(resolution.lockFile, resolution.lock.lock));
  return { ...resolution, lockWritten };
}
