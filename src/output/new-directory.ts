/**
 * Files into a new, empty directory, whole or not at all: written in the scratch directory beside
 * it (ignored by Git) and renamed over it, so an interrupted or failed copy leaves no half tree.
 */
import { mkdir, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { onInterrupt, throwIfInterrupted } from '../core/interrupt.js';
import { inScratchDirectory, removeScratchDirectoryIfEmpty, scratchName } from '../core/scratch-directory.js';
import { createDirectories } from '../core/create-directories.js';

/** Makes `target` (its parents too) and fills it with `files`; refused if `target` exists. */
export async function writeNewDirectory(target: string, files: readonly [string, string][]): Promise<void> {
  const parent = path.dirname(target);
  await createDirectories(parent);
  // made empty first, so a directory that appears meanwhile is not replaced
  await mkdir(target);
  let staging: string | undefined;
  const undo = async () => {
    if (staging !== undefined) await rm(staging, { recursive: true, force: true });
    await rmdir(target).catch(() => undefined);
    await removeScratchDirectoryIfEmpty(parent);
  };
  const withdraw = onInterrupt(undo);
  try {
    await inScratchDirectory(parent, async (scratch) => {
      staging = path.join(scratch, scratchName(path.basename(target), 'staging'));
      await mkdir(staging);
    });
    for (const [file, text] of files) {
      await mkdir(path.dirname(path.join(staging!, file)), { recursive: true });
      await writeFile(path.join(staging!, file), text);
    }
    throwIfInterrupted();
    await rename(staging!, target);
    staging = undefined;
    await removeScratchDirectoryIfEmpty(parent);
  } catch (err) {
    await undo();
    throw err;
  } finally {
    withdraw();
  }
}
