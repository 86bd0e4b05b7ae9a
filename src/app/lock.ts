/** `capi-gitops lock`: resolve the manifest (a fleet's clusters, or the one cluster) and write the lockfile if it changed. */
import { lockOutput, type RenderOptions } from './run.js';
import { writeLockfile } from '../resolve/lock/lockfile.js';

export type LockResult = Awaited<ReturnType<typeof lockOutput>> & {
  /** Whether the lockfile was written (it changed). */
  lockWritten: boolean;
};

export async function lock(options: RenderOptions): Promise<LockResult> {
  const resolution = await lockOutput(options);
  const lockWritten = await writeLockfile(resolution.lockFile, resolution.lock.lock);
  return { ...resolution, lockWritten };
}
