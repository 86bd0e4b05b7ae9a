/**
 * `capi-gitops diff`: the objects that change between two sides, each an output directory or a
 * render in memory (the manifest now, or at a git revision). Writes nothing.
 */
import path from 'node:path';
import { renderOutput, type OutputResult, type RenderOptions } from './run.js';
import type { SecretNotGiven } from './types.js';
import { toldOnce } from './told-once.js';
import { committedSecretSources } from './check.js';
import type { SopsEncryptions } from '../secrets/index.js';
import { redactStrings } from '../core/redact.js';
import { CapiGitopsError } from '../core/diagnostics.js';
import { parseArtifact } from '../yaml/parse.js';
import { ScratchTree } from '../output/scratch-tree.js';
import { refuseUnownedOutput } from '../output/tree.js';
import { README_FILE } from '../layout/index.js';
import {
  afterRender,
  checkRendered,
  manifestAtRevision,
  openOutputTree,
  renderedDigests,
  reviewTrees,
  contractSeries,
  groupedTree,
  treeInMemory,
  type ContractSeries,
  type ReviewReport,
  type ReviewTree,
  type ReviewTreeSide,
} from '../review/index.js';
import type { RenderedDigests } from '../review/check.js';

export type DiffRequest =
  /** Two output directories. */
  | { from: string; to: string }
  /** The manifest's render against the committed `output`, or against its render at git revision `base`. */
  | {
      output: string;
      current: RenderOptions;
      base?: { revision: string; manifestPaths: string[]; options: (manifestPaths: string[]) => RenderOptions };
    };

interface DiffSides {
  before: ReviewTreeSide;
  after: ReviewTreeSide;
  leftInPlace?: string[];
  /** The render of the manifest as it is now: its warnings (a review should hear them as a render does). */
  warnings?: string[];
  /** The configSecrets that render went without (their public keys took defaults). */
  secretsNotGiven?: SecretNotGiven[];
}

/** The contracts of the providers a render resolved, every release series of their metadata.yaml (a fleet's clusters too). */
function contractsOf(result: Awaited<ReturnType<typeof renderOutput>>): ContractSeries[] {
  const resolutions = result.fleet ? result.clusters.map((c) => c.resolution) : [result];
  // a fleet's clusters share a few releases: each release's metadata.yaml is read once
  const releases = new Map(resolutions.flatMap((r) => r.providers.map((p) => [`${p.label}\0${p.version}`, p] as const)));
  return [...releases.values()].flatMap((p) => contractSeries(p.label, p.version, p.metadata.text));
}

/** What the render of the manifest as it is now says beside its files. */
function currentNotes(current: Awaited<ReturnType<typeof renderOutput>>): Pick<DiffSides, 'warnings' | 'secretsNotGiven'> {
  return { warnings: current.warnings, secretsNotGiven: current.secretsNotGiven };
}

/**
 * A render as a review side. A fleet's files go to a scratch tree on disk as each cluster is laid
 * out and are read back a cluster at a time, so diff holds neither side's texts whole; a single
 * cluster's stay in memory. `scratches`: the trees to dispose of once the review is done.
 */
async function renderTree(
  options: RenderOptions,
  scratches: ScratchTree[],
): Promise<{ result: OutputResult; tree: ReviewTree; digests: RenderedDigests }> {
  const scratch = new ScratchTree();
  scratches.push(scratch);
  const result = await renderOutput(options, scratch);
  if (!result.fleet) return { result, tree: await treeInMemory(result.files), digests: renderedDigests(result.files) };
  const files = scratch.files();
  const tree = await groupedTree([...files.keys()], (paths) => scratch.read(paths));
  return { result, tree, digests: { digests: files, readme: tree.rest.get(README_FILE) } };
}

/** `tree` and, after each group's own files, the files `kept` of `other`. */
function withKept(tree: ReviewTree, other: ReviewTree, kept: readonly string[]): Promise<ReviewTree> {
  const fromOther = new Set(kept);
  return groupedTree([...tree.paths, ...kept], async (paths) => {
    const own = await tree.read(paths.filter((p) => !fromOther.has(p)));
    return new Map([...own, ...(await other.read(paths.filter((p) => fromOther.has(p))))]);
  });
}

/** The committed output `output` against the manifest's render, as the render would leave the directory. */
async function againstOutput(output: string, current: Awaited<ReturnType<typeof renderTree>>): Promise<DiffSides> {
  await refuseUnownedOutput(output);
  const committed = await openOutputTree(output);
  // a committed file out of bounds is told with any problem found after the directory is read
  const withBoundsProblems = async (err: unknown) => {
    await committed.checkBounds(err);
    throw err;
  };
  const report = await checkRendered(output, current.digests).catch(withBoundsProblems);
  const inPlace = afterRender(committed.paths, current.digests.digests, report);
  // the same on both sides, and not render's: one that holds no objects (a string, not YAML) is read on neither
  const inPlaceTexts = await committed.read(inPlace.leftInPlace);
  if (committed.boundsProblems().length > 0) await committed.checkBounds();
  const dropped = new Set(inPlace.leftInPlace.filter((f) => !holdsObjects(f, inPlaceTexts.get(f)!)));
  const before = {
    ...(await groupedTree(
      committed.paths.filter((p) => !dropped.has(p)),
      (paths) => committed.read(paths),
    )),
    boundsProblems: committed.boundsProblems,
  };
  return {
    // read from disk, committed or not: the label must not claim Git
    before: { label: `the output directory ${output}`, tree: before, directory: output },
    after: {
      label: 'the manifest as it is now',
      // render leaves a file it cannot prove its own: its objects stay, neither removed nor changed
      tree: await withKept(
        current.tree,
        committed,
        inPlace.kept.filter((p) => !dropped.has(p)),
      ),
      contracts: contractsOf(current.result),
    },
    leftInPlace: inPlace.leftInPlace,
    ...currentNotes(current.result),
  };
}

async function diffSides(request: DiffRequest, scratches: ScratchTree[]): Promise<DiffSides> {
  if ('from' in request) {
    const from = await openOutputTree(request.from);
    // the old directory's files out of bounds are told with the new one's problems
    const to = await openOutputTree(request.to).catch(async (err: unknown) => {
      await from.checkBounds(err);
      throw err;
    });
    return {
      before: { label: request.from, tree: from, directory: request.from },
      after: { label: request.to, tree: to, directory: request.to },
    };
  }
  // a warning both renders give (at a file both sides read as it is now, a --secret-file) is told once
  const once = toldOnce();
  // the old side takes the sops files the new side encrypted, as a render takes those written before: an unchanged Secret is equal
  const sopsEncryptions: SopsEncryptions = new Map();
  // secret values are not needed where the strategy keeps them out of the output; the secret
  // sources the committed output records stand for secrets not at hand, on both sides (as check)
  const recorded = await committedSecretSources(request.output, request.current);
  const rendered = await renderTree(
    {
      ...request.current,
      ...recorded,
      secretValuesOptional: true,
      // only the old side reads them: without --base there is none
      ...(request.base ? { sopsEncryptions } : {}),
      ...once(request.current.onWarning),
    },
    scratches,
  );
  const base = request.base;
  if (!base) return againstOutput(request.output, rendered);
  const current = rendered.result;
  const after: ReviewTreeSide = { label: 'the manifest as it is now', tree: rendered.tree, contracts: contractsOf(current) };
  const revision = await manifestAtRevision(base.revision, base.manifestPaths);
  const at = `${base.revision} (${revision.commit.slice(0, 12)})`;
  // the change that introduces the manifest: nothing before it, every object added
  if (revision.manifestPaths.length === 0) {
    await revision.dispose();
    const absent = `${revision.absentPaths.join(', ')} ${revision.absentPaths.length === 1 ? 'is' : 'are'} not there`;
    return { before: { label: `nothing at ${at}: ${absent}`, tree: await treeInMemory(new Map()) }, after, ...currentNotes(current) };
  }
  try {
    const options = base.options(revision.manifestPaths);
    const onWarning = options.onWarning;
    // problems of the base name its files as `<ref>:<path>`, not the temporary tree they were read from
    const baseRender = await renderTree(
      { ...options, ...recorded, secretValuesOptional: true, sopsEncryptions, ...once(onWarning, revision.located) },
      scratches,
    ).catch((err: unknown) => {
      throw err instanceof CapiGitopsError ? new CapiGitopsError(err.diagnostics.map(revision.located)) : err;
    });
    // both sides read these as they are now: say so, or a rotated value (or a public key changed there) silently shows no change
    const shared = revision.sharedSecretFiles.map((f) => path.relative(process.cwd(), f).split(path.sep).join('/'));
    const note =
      shared.length === 0
        ? ''
        : `, with ${shared.join(', ')} as ${shared.length === 1 ? 'it is' : 'they are'} now (${shared.length === 1 ? 'its' : 'their'} changes do not show)`;
    const added = revision.absentPaths.length > 0 ? `, without ${revision.absentPaths.join(', ')} (not there yet)` : '';
    return {
      before: { label: `the manifest at ${at}${added}${note}`, tree: baseRender.tree, contracts: contractsOf(baseRender.result) },
      after,
      ...currentNotes(current),
    };
  } finally {
    await revision.dispose();
  }
}

/**
 * The sides' differences; values in files that hold secrets are hidden, and any value the renders
 * knew is redacted. `warnings`: those of the render of the manifest as it is now.
 */
export async function diff(request: DiffRequest): Promise<{ report: ReviewReport; warnings: string[]; secretsNotGiven: SecretNotGiven[] }> {
  const scratches: ScratchTree[] = [];
  try {
    const { before, after, leftInPlace, warnings = [], secretsNotGiven = [] } = await diffSides(request, scratches);
    const report = await reviewTrees(before, after);
    return { report: redactStrings(leftInPlace?.length ? { ...report, leftInPlace } : report), warnings, secretsNotGiven };
  } finally {
    for (const scratch of scratches) await scratch.dispose();
  }
}

/** Whether a file of the output reads as Kubernetes objects, as the review reads them. */
function holdsObjects(file: string, text: string): boolean {
  if (!/\.ya?ml$/.test(file)) return true;
  try {
    parseArtifact(text, { source: file });
    return true;
  } catch (err) {
    if (err instanceof CapiGitopsError) return false;
    throw err;
  }
}
