/**
 * `capi-gitops render`: render the manifest and write the output directory and the lockfile as
 * one transaction; or, for `--list-variables`, the variables each provider reads.
 */
import path from 'node:path';
import { listVariables, type ProviderVariables } from './cluster.js';
import { renderOutput, refuseFleet, type RenderOptions, type OutputResult } from './run.js';
import { prepareLockfile, readLockfile, serializeLockfile } from '../resolve/lock/lockfile.js';
import { diffLockfiles } from '../resolve/lock/diff.js';
import type { Lockfile } from '../resolve/lock/types.js';
import { CapiGitopsError } from '../core/diagnostics.js';
import { readFileSync } from 'node:fs';
import { lockOutput, OutputStage, type WriteSummary } from '../output/write.js';
import type { PreparedFile } from '../core/prepared-file.js';
import { holdingLockfile } from '../output/write-guard.js';
import { encodeOutput } from '../output/encoded-output.js';
import { onInterrupt } from '../core/interrupt.js';
import { wiringRootNotes } from '../review/index.js';

export type RenderResult = OutputResult & {
  /** What the write did in the output directory. */
  summary: WriteSummary;
  /** The files written, by path (a fleet's are read back from the output when asked for). */
  written: Pick<ReadonlyMap<string, string | Uint8Array>, 'get'>;
  /** Whether the lockfile was written (it changed). */
  lockWritten: boolean;
};

/**
 * `output`: the output directory; nothing is written unless the whole render succeeded. A
 * fleet's clusters are written into the new tree beside it one by one as they render, so its
 * result holds no files (`files` is empty; `written` reads a file back when asked).
 */
export async function render(options: RenderOptions, output: string): Promise<RenderResult> {
  const stage = new OutputStage(path.resolve(output), output);
  // a signal removes what the stage holds, or waits for the write to end
  let writing: Promise<RenderResult> | undefined;
  const withdraw = onInterrupt(() => writing ?? stage.abort());
  try {
    // what the output holds (clusters --cluster keeps, sops files, the wiring's place) is read from it
    const result = await renderOutput({ ...options, outputDir: options.outputDir ?? path.resolve(output) }, stage);
    if (!result.fleet) await stage.abort();
    writing = result.fleet ? commitFleet(stage, result, output, options.frozen) : writeCluster(result, output, options.frozen);
    return await writing;
  } catch (err) {
    await stage.abort();
    throw err;
  } finally {
    withdraw();
  }
}

/**
 * One transaction, one writer: the output directory's lock is taken first, then the lockfile's
 * (renders into other output directories share the lockfile); under both the lockfile is read,
 * compared and prepared, and renamed right after the output's swap. Decided before the locks, a
 * render that found the lockfile holding its lock already left there the one another render wrote
 * meanwhile, beside its own output. A run holding the output's lock is named; the lockfile's, held for
 * one write, is waited for a while (output/write-guard.ts).
 */
async function writeCluster(result: OutputResult, output: string, frozen: boolean | undefined): Promise<RenderResult> {
  const encoded = encodeOutput(result.files);
  const locked = await lockOutput(path.resolve(output));
  const { summary, lockWritten } = await holdingLockfile(result.lockFile, async () => {
    const alongside = await lockfileChange(result, frozen);
    const known = { digests: encoded.digests };
    return { summary: await locked.write(encoded.bytes, { alongside, known, shownAs: output }), lockWritten: alongside.length > 0 };
  }).finally(() => locked.release());
  summary.warnings.push(...rootNotes(summary, result.files, output));
  return { ...result, summary, written: result.files, lockWritten };
}

/** The same for a fleet, whose stage holds the output's lock from its first file on (taken here if it has none). */
async function commitFleet(stage: OutputStage, result: OutputResult, output: string, frozen: boolean | undefined): Promise<RenderResult> {
  await stage.lock();
  const { summary, lockWritten } = await holdingLockfile(result.lockFile, async () => {
    const alongside = await lockfileChange(result, frozen);
    return { summary: await stage.commit(alongside), lockWritten: alongside.length > 0 };
  });
  const written = { get: (file: string) => readFileSync(path.join(summary.directory, file), 'utf8') };
  summary.warnings.push(...rootNotes(summary, written, output));
  return { ...result, summary, written, lockWritten };
}

/**
 * The lockfile to rename with the output, read and compared under the locks: none when it holds
 * this lock already. Under --frozen this lock is the one the render was checked against; a lockfile
 * that no longer holds it was written by another run meanwhile, which a frozen render never replaces.
 */
async function lockfileChange(result: OutputResult, frozen: boolean | undefined): Promise<PreparedFile[]> {
  const now = frozen ? await readLockfile(result.lockFile) : undefined;
  // as --frozen judged the lockfile it read: a fleet's whole, one cluster's by its changes
  const answers = (file: Lockfile) =>
    result.fleet ? serializeLockfile(file) === serializeLockfile(result.lock.lock) : diffLockfiles(file, result.lock.lock).length === 0;
  if (frozen && (now === undefined || !answers(now))) {
    throw new CapiGitopsError({
      file: result.lockFile,
      message: 'the lockfile changed while this render ran (another run wrote it, or an edit), and --frozen does not write it',
      expected: 'the lockfile this render was checked against',
      hint: 'run again, which checks the render against the lockfile as it is now',
    });
  }
  const lock = await prepareLockfile(result.lockFile, result.lock.lock);
  return lock ? [lock] : [];
}

/** What to delete or apply by hand in the management clusters: roots of the wiring the write removed or created. */
function rootNotes(summary: WriteSummary, written: RenderResult['written'], output: string): string[] {
  const text = (content: string | Uint8Array) => (typeof content === 'string' ? content : Buffer.from(content).toString('utf8'));
  const created = summary.written.filter((file) => !summary.previous.has(file));
  const newPaths = new Set([...summary.written, ...summary.unchanged]);
  const createdSet = new Set(created);
  return wiringRootNotes({
    removed: new Map(summary.removed.map((file) => [file, text(summary.previous.get(file)!)])),
    created: { paths: created, read: (file) => text(written.get(file)!) },
    newPaths,
    oldPaths: new Set([...[...newPaths].filter((file) => !createdSet.has(file)), ...summary.removed]),
    shown: (file) => path.join(output, file),
  });
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
