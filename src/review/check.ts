/**
 * Drift check: a fresh render (relative path → text, never written) against the output directory
 * on disk. The ownership index says which files the last render wrote and their digests, so a
 * file that differs can be told apart: edited by hand since that render, or out of date.
 */
import { lstat, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { INDEX_FILE } from '../layout/output-paths.js';
import { README_FILE } from '../layout/index.js';
import { formatIndexOfDigests, parseIndexEntries, parseKeptDirectories, provenOwned } from '../output/ownership-index.js';
import { sha256Hex } from '../core/digest.js';
import { mapLimited, OPEN_FILES } from '../core/map-limited.js';
import { exists, refuseNonDirectory, refuseUnownedOutput, scanTree, type TreeEntry } from '../output/tree.js';
import { unwrittenFiles } from '../output/unwritten-files.js';
import { CapiGitopsError, compareStrings } from '../core/diagnostics.js';
import { outputLockPath } from '../output/write-guard.js';
import type { FleetFiles } from '../layout/fleet.js';

type CheckStatus = 'changed' | 'edited' | 'missing' | 'extra';

export interface CheckedFile {
  /** Relative to the output directory, `/`-separated. */
  path: string;
  status: CheckStatus;
  /** One line for people: what is wrong and what a render would do. */
  reason: string;
  /** An extra file no render wrote: render leaves it, so only removing it fixes the check. */
  removeByHand?: true;
}

export interface CheckReport {
  /** The output directory, absolute. */
  directory: string;
  /** Files the render produces that match byte for byte. */
  unchanged: number;
  /** Every file that is not as the render would write it, sorted by path. */
  problems: CheckedFile[];
  /**
   * The render command the output's README.md records, when its flags are not this render's
   * (`--layout argocd` rendered, checked without it): regenerating with this check's flags
   * would rewrite the output as another layout.
   */
  renderedWith?: string;
  /**
   * The secret sources the README's command records (--secret-file paths as it writes them, from
   * its base directory; --env-secret names): a check runs without them, and render needs them.
   */
  recordedSecretSources?: { secretFile: string[]; envSecret: string[] };
}

const REASONS: Record<CheckStatus, string> = {
  changed: 'differs from what the manifest renders; render would rewrite it',
  edited: 'edited by hand since the last render (its digest is not the one in the ownership index); render would overwrite it',
  missing: 'missing; render would write it',
  extra: 'written by the last render and not by this one; render would remove it',
};
const IN_THE_WAY = (type: string) =>
  `missing: ${type === 'dir' ? 'a directory' : type === 'symlink' ? 'a symbolic link' : 'a special file'} capi-gitops did not write is in its place, which render does not replace, so remove it`;
const NOT_OURS = 'not written by capi-gitops (it is not in the ownership index); render leaves it, so remove it';
const NO_LONGER_OURS =
  'written by an earlier render and not by this one, but changed since (its sha256 is not the one the ownership index recorded, ' +
  'or the index records none); render keeps it and stops managing it, so remove it';

async function outputEntries(directory: string): Promise<Map<string, TreeEntry>> {
  const st = await lstat(directory).catch(() => undefined);
  if (!st) return new Map();
  const real = st.isSymbolicLink() ? await realpath(directory) : directory;
  return (await lstat(real)).isDirectory() ? scanTree(real) : new Map();
}

/** Test seam: runs once the directory is scanned, before its index and files are read. */
interface CheckHooks {
  afterScan?: () => Promise<void>;
}

interface TreeRead {
  entries: Map<string, TreeEntry>;
  indexText: string | undefined;
  /** The index's paths, each with the digest recorded (none in a v1 index). */
  written: Map<string, string | undefined>;
  /** The sha256 of each rendered path that is a file on disk: only equality is asked, so no file's bytes are kept. */
  onDisk: (string | undefined)[];
  /** The committed README's text, when the render writes one and the directory holds it. */
  readme: string | undefined;
  /** The bytes of each file the index lists and the render does not write: render removes it only when proven its own. */
  stale: Map<string, Buffer>;
}

async function readTree(directory: string, rendered: readonly string[], hooks: CheckHooks): Promise<TreeRead> {
  const entries = await outputEntries(directory);
  await hooks.afterScan?.();
  const isFile = (p: string) => entries.get(p)?.type === 'file';
  const indexText = isFile(INDEX_FILE) ? await readFile(path.join(directory, INDEX_FILE), 'utf8') : undefined;
  const onDisk = await mapLimited(rendered, OPEN_FILES, (p) =>
    isFile(p) ? readFile(path.join(directory, p)).then(sha256Hex) : Promise.resolve(undefined),
  );
  const renderedSet = new Set(rendered);
  const readme =
    renderedSet.has(README_FILE) && isFile(README_FILE) ? await readFile(path.join(directory, README_FILE), 'utf8') : undefined;
  const written =
    indexText === undefined ? new Map<string, string | undefined>() : parseIndexEntries(indexText, path.join(directory, INDEX_FILE));
  const stalePaths = [...written.keys()].filter((p) => !renderedSet.has(p) && isFile(p));
  const staleBytes = await mapLimited(stalePaths, OPEN_FILES, (p) => readFile(path.join(directory, p)));
  return { entries, indexText, written, onDisk, readme, stale: new Map(stalePaths.map((p, i) => [p, staleBytes[i]!])) };
}

/** The directory `directory` names now (dev and inode, through a symlink), undefined when there is none. */
async function treeIdentity(directory: string): Promise<string | undefined> {
  return stat(directory).then(
    (st) => `${st.dev}:${st.ino}`,
    () => undefined,
  );
}

/** A render swaps the output directory with two renames: a reader can land between them, or see a tree change under it. */
const VANISHED = new Set(['ENOENT', 'ENOTDIR']);
const MAX_ATTEMPTS = 50;

/**
 * The scan, the index and the files, all from one tree: the old one or the new one when a render
 * swaps the directory meanwhile. The directory's identity is compared before and after each read
 * (a swap always brings a new directory); a read that saw a swap, or a path vanish, is done again.
 * Between a swap's two renames the directory does not exist while its writer holds the lock:
 * that is waited out.
 */
async function readOneTree(directory: string, rendered: readonly string[], hooks: CheckHooks): Promise<TreeRead> {
  for (let attempt = 1; ; attempt++) {
    const before = await treeIdentity(directory);
    let read: TreeRead | undefined;
    try {
      read = await readTree(directory, rendered, hooks);
    } catch (err) {
      if (!VANISHED.has((err as NodeJS.ErrnoException).code ?? '') || attempt >= MAX_ATTEMPTS) throw err;
    }
    const after = await treeIdentity(directory);
    const last = attempt >= MAX_ATTEMPTS;
    if (read && before === after) {
      if (before !== undefined || last || !(await exists(outputLockPath(directory)))) return read;
      await new Promise((resolve) => setTimeout(resolve, 10));
    } else if (last) {
      throw new CapiGitopsError({
        file: directory,
        message: 'the output directory kept changing while it was read',
        hint: 'run check again once no render is writing it',
      });
    }
  }
}

/**
 * A render as check compares it: each file's sha256 by path, and the README's text (its recorded
 * command is read). A fleet's files are hashed as each cluster is laid out and then dropped, so
 * check holds no tree of texts (a 200-cluster fleet in the full layout is 700 MB of them).
 */
export interface RenderedDigests {
  digests: Map<string, string>;
  readme: string | undefined;
}

/** The digests of a render held in memory (one cluster's tree). */
export function renderedDigests(files: ReadonlyMap<string, string>): RenderedDigests {
  return { digests: new Map([...files].map(([p, text]) => [p, sha256Hex(text)])), readme: files.get(README_FILE) };
}

/** A fleet's files as check needs them (FleetFiles): each hashed as it comes, its text not kept. */
export class FleetFileDigests implements FleetFiles {
  private readonly digests = new Map<string, string>();
  private readonly held = new Map<string, string>();
  private readme: string | undefined;

  async writeAll(files: Iterable<[string, string]>): Promise<void> {
    for (const [file, text] of files) {
      this.digests.set(file, sha256Hex(text));
      if (file === README_FILE) this.readme = text;
    }
  }

  async hold(key: string, text: string): Promise<void> {
    this.held.set(key, sha256Hex(text));
  }

  async placeAll(placements: Iterable<[string, string]>): Promise<void> {
    for (const [key, file] of placements) {
      this.digests.set(file, this.held.get(key)!);
      this.held.delete(key);
    }
  }

  /** The tree's digests, sorted by path (as FleetFilesInMemory's tree). */
  rendered(): RenderedDigests {
    return { digests: new Map([...this.digests].sort(([a], [b]) => compareStrings(a, b))), readme: this.readme };
  }
}

/** Compares `files` with `outDir`; reads only, writes nothing. */
export async function checkOutput(outDir: string, files: ReadonlyMap<string, string>, hooks: CheckHooks = {}): Promise<CheckReport> {
  return checkRendered(outDir, renderedDigests(files), hooks);
}

/** Compares a render, by its files' digests, with `outDir`; reads only, writes nothing. */
export async function checkRendered(outDir: string, render: RenderedDigests, hooks: CheckHooks = {}): Promise<CheckReport> {
  const directory = path.resolve(outDir);
  await refuseNonDirectory(outDir);
  await refuseUnownedOutput(outDir);
  let { digests, readme } = render;
  const rendered = [...digests.keys()];
  const { entries, indexText, written, onDisk, readme: committedReadme, stale } = await readOneTree(directory, rendered, hooks);
  if (committedReadme !== undefined && onlySecretSourcesDiffer(committedReadme, readme!)) {
    readme = committedReadme;
    digests = new Map(digests).set(README_FILE, sha256Hex(committedReadme));
  }

  const problems: CheckedFile[] = [];
  const add = (p: string, status: CheckStatus) => problems.push({ path: p, status, reason: REASONS[status] });
  let unchanged = 0;
  rendered.forEach((p, i) => {
    const digest = onDisk[i];
    const inTheWay = entries.get(p);
    // a directory (or a link render did not write) where the file goes: render refuses to replace it
    if (digest === undefined && inTheWay && (inTheWay.type === 'dir' || !written.has(p)))
      return problems.push({ path: p, status: 'missing', reason: IN_THE_WAY(inTheWay.type), removeByHand: true });
    if (digest === undefined) return add(p, 'missing');
    if (digest === digests.get(p)) return unchanged++;
    const recorded = written.get(p);
    add(p, recorded !== undefined && recorded !== digest ? 'edited' : 'changed');
  });

  // Extra: what the last render wrote and this one does not, and any visible file in a
  // directory this render writes into or an earlier one wrote into (a removed cluster's):
  // kustomize, Argo CD and Flux read those directories.
  const notDirectories = [...entries].filter(([p, entry]) => entry.type !== 'dir' && p !== INDEX_FILE && !digests.has(p)).map(([p]) => p);
  for (const p of notDirectories) {
    if (!written.has(p)) continue;
    const bytes = stale.get(p);
    // render removes only what it proves its own (output/write.ts), as this says
    if (bytes && provenOwned(bytes, written.get(p))) add(p, 'extra');
    else problems.push({ path: p, status: 'extra', reason: NO_LONGER_OURS, removeByHand: true });
  }
  const keptDirectories = indexText === undefined ? [] : parseKeptDirectories(indexText);
  for (const p of unwrittenFiles(notDirectories, rendered, written.keys(), keptDirectories))
    problems.push({ path: p, status: 'extra', reason: NOT_OURS, removeByHand: true });
  if (problems.length === 0 && indexText !== formatIndexOfDigests(digests)) {
    problems.push({
      path: INDEX_FILE,
      status: indexText === undefined ? 'missing' : 'changed',
      reason:
        indexText === undefined
          ? 'the ownership index is missing; render would write it'
          : 'the ownership index is not the one this render writes; render would rewrite it',
    });
  }
  problems.sort((a, b) => compareStrings(a.path, b.path));
  const renderedWith = committedReadme !== undefined ? otherFlags(committedReadme, readme!) : undefined;
  const recorded = committedReadme !== undefined ? recordedSecretSources(committedReadme) : undefined;
  return {
    directory,
    unchanged,
    problems,
    ...(renderedWith ? { renderedWith } : {}),
    ...(recorded ? { recordedSecretSources: recorded } : {}),
  };
}

/**
 * The output directory as a render of `rendered` would leave it (visible files): the rendered
 * files, and every committed file render does not remove (check's `extra` without
 * `removeByHand`), which are `kept`, in the order of `committed`. `leftInPlace`: the kept files
 * `check` names, to remove by hand.
 */
export function afterRender(
  committed: readonly string[],
  rendered: { has(file: string): boolean },
  report: CheckReport,
): { kept: string[]; leftInPlace: string[] } {
  const extra = new Map(report.problems.filter((p) => p.status === 'extra').map((p) => [p.path, p.removeByHand === true]));
  const kept = committed.filter((p) => !rendered.has(p) && extra.get(p) !== false);
  return { kept, leftInPlace: kept.filter((p) => extra.get(p)).sort(compareStrings) };
}

// The command a generated README records: the first line of its first sh block (templates/output/).
const RECORDED_COMMAND = /^```sh\n(?:#[^\n]*\n)*(capi-gitops render [^\n]*)\n/m;
// -f and -o name paths relative to where each command ran: not a flag that changes the output.
// A word as core/shell.ts shellWord writes it: bare, or single-quoted with each ' as '\''.
const WORD = String.raw`(?:'[^']*'(?:\\''[^']*')*|\S+)`;
const PATH_FLAGS = new RegExp(` -[fo] ${WORD}`, 'g');

/** A command's -f and -o words, each with its leading space (`[' -f .', ' -o ../out']`). */
export function pathFlags(command: string): string[] {
  return command.match(PATH_FLAGS) ?? [];
}

/** A command without its -f and -o words. */
export function withoutPathFlags(command: string): string {
  return command.replace(PATH_FLAGS, '');
}

// What render records so that its README's command reproduces the output, and a check in CI has
// none of: --secret-file, --env-secret, and a -f of Secrets.
const SECRET_SOURCE_FLAGS = new RegExp(` --(?:secret-file|env-secret) ${WORD}`, 'g');

/** A word as the shell reads it back. */
function unquoted(word: string): string {
  return word.startsWith("'") ? word.slice(1, -1).replace(/'\\''/g, "'") : word;
}

/** The --secret-file and --env-secret words of a README's command, read back as the shell would. */
function recordedSecretSources(readme: string): CheckReport['recordedSecretSources'] {
  const command = RECORDED_COMMAND.exec(readme)?.[1];
  const sources = { secretFile: [] as string[], envSecret: [] as string[] };
  for (const word of command?.match(SECRET_SOURCE_FLAGS) ?? []) {
    const [, flag, value] = / --(secret-file|env-secret) (.*)/.exec(word)!;
    (flag === 'secret-file' ? sources.secretFile : sources.envSecret).push(unquoted(value!));
  }
  return sources.secretFile.length + sources.envSecret.length > 0 ? sources : undefined;
}

/**
 * The secret sources a README's command records, and its -f paths (some may hold only Secrets),
 * read back as the shell would: what a later render of some of the fleet's clusters (`--cluster`)
 * keeps in the README's command for the others. Paths are as recorded (from the README's base).
 */
export function recordedSourceWords(readme: string): { file: string[]; secretFile: string[]; envSecret: string[] } {
  const command = RECORDED_COMMAND.exec(readme)?.[1] ?? '';
  const file = (command.match(new RegExp(` -f ${WORD}`, 'g')) ?? []).map((w) => unquoted(w.slice(' -f '.length)));
  return { file, ...(recordedSecretSources(readme) ?? { secretFile: [], envSecret: [] }) };
}

/** The --secret-file and --env-secret words the README of the output directory `outDir` records (none without a README). */
export async function recordedSecretSourcesOf(outDir: string): Promise<{ secretFile: string[]; envSecret: string[] }> {
  const readme = await readFile(path.join(outDir, README_FILE), 'utf8').catch(() => undefined);
  return (readme !== undefined && recordedSecretSources(readme)) || { secretFile: [], envSecret: [] };
}

/**
 * The variables the committed output `outDir` leaves for a strategy to fill: `{{ .NAME }}` in an
 * ExternalSecret's template, `${NAME` (not Flux's escaped `$${`) in an object Flux substitutes.
 * Render wrote them for values from secret sources; a check without those sources takes them as
 * secrets not at hand, not as their defaults (docs/secrets.md).
 */
export async function recordedSecretVariables(outDir: string): Promise<string[]> {
  const root = path.resolve(outDir);
  const entries = await scanTree(root).catch(() => new Map<string, TreeEntry>());
  const files = [...entries].filter(([p, e]) => e.type === 'file' && p.endsWith('.yaml')).map(([p]) => p);
  // only the text is searched (no parse): check reads and bounds the tree itself, after the render
  const texts = await mapLimited(files, OPEN_FILES, (p) => readFile(path.join(root, p), 'utf8').catch(() => ''));
  const names = new Set<string>();
  for (const text of texts) {
    if (/^kind: ExternalSecret$/m.test(text)) for (const m of text.matchAll(/\{\{ \.([A-Za-z_]\w*)\b/g)) names.add(m[1]!);
    if (text.includes('kustomize.toolkit.fluxcd.io/substitute: enabled'))
      for (const m of text.matchAll(/(?<!\$)\$\{([A-Za-z_]\w*)/g)) names.add(m[1]!);
  }
  return [...names].sort(compareStrings);
}

/** Whether two READMEs differ only in their commands' secret sources: -f files the check was not given, --secret-file, --env-secret. */
function onlySecretSourcesDiffer(committed: string, rendered: string): boolean {
  const before = RECORDED_COMMAND.exec(committed)?.[1];
  const now = RECORDED_COMMAND.exec(rendered)?.[1];
  if (before === undefined || now === undefined || before === now || rendered.replace(now, () => before) !== committed) return false;
  const given = pathFlags(now);
  const withoutSources = (command: string) =>
    command.replace(SECRET_SOURCE_FLAGS, '').replace(PATH_FLAGS, (word) => (word.startsWith(' -f') && !given.includes(word) ? '' : word));
  return withoutSources(before) === withoutSources(now);
}

/** The committed README's command when its flags differ from those of the render checked against it. */
function otherFlags(committed: string, rendered: string): string | undefined {
  const before = RECORDED_COMMAND.exec(committed)?.[1];
  const now = RECORDED_COMMAND.exec(rendered)?.[1];
  if (before === undefined || now === undefined) return undefined;
  return withoutPathFlags(before) === withoutPathFlags(now) ? undefined : before;
}
