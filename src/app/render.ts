/**
 * `capi-gitops render`: render the manifest and write the output directory and the lockfile as
 * one transaction; or, for `--list-variables`, the variables each provider reads.
 */
import path from 'node:path';
import { listVariables, type ProviderVariables } from './cluster.js';
import { renderOutput, refuseFleet, type RenderOptions, type OutputResult } from './run.js';
import { prepareLockfile } from '../resolve/lock/lockfile.js';
import { writeOutput, type WriteSummary } from '../output/write.js';
import { encodeOutput, type EncodedOutput } from '../output/encoded-output.js';

export type RenderResult = OutputResult & {
  /** What the write did in the output directory. */
  summary: WriteSummary;
  /** Whether the lockfile was written (it changed). */
  lockWritten: boolean;
  /** The files' bytes and digests, as written (for the output cache). */
  encoded: EncodedOutput;
};

/** `output`: the output directory; nothing is written unless the whole render succeeded. */
export async function render(options: RenderOptions, output: string): Promise<RenderResult> {
  const result = await renderOutput(options);
  // One transaction: the lockfile is prepared first and renamed right after the output's swap.
  const lock = await prepareLockfile(result.lockFile, result.lock.lock);
  const encoded = encodeOutput(result.files);
  const summary = await writeOutput(path.resolve(output), encoded.bytes, {
    alongside: lock ? [lock] : [],
    known: { digests: encoded.digests },
  });
  return { ...result, summary, lockWritten: lock !== undefined, encoded };
}

/** `render --list-variables`: a single-cluster manifest's providers and the variables they read. */
export async function renderVariables(options: RenderOptions): Promise<ProviderVariables[]> {
  await refuseFleet(
    options,
    'render --list-variables',
    'list the variables of a single-cluster manifest (the shared documents without clusters:)',
  );
  return listVariables(options);
}
