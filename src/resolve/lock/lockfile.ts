/**
 * `capi-gitops.lock.yaml`: reading, writing and the text form. The lock sits beside the first
 * manifest file and is committed with it. Its text is a function of its content only: entries
 * and files sorted, keys in a fixed order, no timestamps, a final newline.
 * The `yaml` library reads it (every problem of a malformed lock at its line and column) and
 * writes it.
 */
import { constants } from 'node:fs';
import { lstat, open, readdir, readFile, readlink, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Node as YamlNode, YAMLMap } from 'yaml';
import { CapiGitopsError } from '../../core/diagnostics.js';
import { shellWord } from '../../core/shell.js';
import { LOCKFILE_NAME, specialFileKind } from '../../manifest/files.js';
import YAML from 'yaml';
import { YamlBudget } from '../../yaml/bounds.js';
import { reportDuplicateKeys } from '../../yaml/unique-keys.js';
import { commitTogether, prepareFile, type PreparedFile } from '../../core/prepared-file.js';
import { processIsAlive, removeLeftoverFiles, removeScratchDirectoryIfEmpty } from '../../core/scratch-directory.js';
import { LOCK_API_VERSION, LOCK_KIND, type Lockfile } from './types.js';
import { mergeConflictProblems } from '../../core/merge-conflicts.js';
import { safeYamlMessage } from '../../manifest/yaml-source.js';
import { LockReader, regenerateHint } from './reader.js';
import { HEADER, lockfileData } from './data.js';

// A lock is not changed once built; a render's secrets gate and its write ask for the same text.
const serialized = new WeakMap<Pick<Lockfile, 'entries'>, string>();

/** The lock's file text: the same content always gives the same bytes. */
export function serializeLockfile(lock: Pick<Lockfile, 'entries'>): string {
  let text = serialized.get(lock);
  if (text === undefined) {
    text = HEADER + YAML.stringify(lockfileData(lock), { version: '1.2', lineWidth: 0, indentSeq: true });
    serialized.set(lock, text);
  }
  return text;
}

// ---- reading --------------------------------------------------------------------------------

/** Parses lockfile text; a malformed lock is a CapiGitopsError listing every problem with its line and column. */
export function parseLockfile(text: string, file: string): Lockfile {
  // bounded before the parser runs, as every manifest is: a pull request's 12 MB flow list ran Node out of memory
  new YamlBudget().check(text, file);
  refuseMergeConflicts(text, file);
  const lineCounter = new YAML.LineCounter();
  const doc = YAML.parseDocument(text, { version: '1.2', lineCounter, prettyErrors: false, uniqueKeys: false });
  reportDuplicateKeys(doc, lineCounter);
  if (doc.errors.length > 0) {
    // the first syntax error only, as go-yaml (kubectl's reader) stops there: the lockfile is one
    // document, and the parser's later errors follow from the first (one tab gave 15)
    const error = doc.errors[0]!;
    const { line, col } = lineCounter.linePos(error.pos[0]);
    throw new CapiGitopsError({
      file,
      line,
      column: col,
      message: `invalid YAML: ${safeYamlMessage(error)}`,
      expected: 'a capi-gitops lockfile',
      hint:
        error.code === 'TAB_AS_INDENT'
          ? `replace the tab at the start of line ${line} with spaces: YAML indents with spaces only`
          : regenerateHint(file),
    });
  }
  const reader = new LockReader(file, lineCounter);
  const root = doc.contents as YamlNode | null;
  const lock =
    root === null
      ? reader.problem(null, '', 'the lockfile is empty', `apiVersion: ${LOCK_API_VERSION}, kind: ${LOCK_KIND}, entries: […]`)
      : reader.lock(root);
  if (lock === undefined) throw new CapiGitopsError(reader.problems);
  Object.defineProperty(lock, 'locate', { value: locator(root!, lineCounter), enumerable: false });
  return lock;
}

/** Lockfile['locate'] over the parsed text: the reader has checked its shape already. */
function locator(root: YamlNode, lineCounter: InstanceType<typeof YAML.LineCounter>): NonNullable<Lockfile['locate']> {
  const at = (node: unknown) => {
    if (!YAML.isNode(node) || !node.range) return undefined;
    const { line, col } = lineCounter.linePos(node.range[0]);
    return { line, column: col };
  };
  const list = (node: unknown): unknown[] => (YAML.isSeq(node) ? node.items : []);
  const items = list(YAML.isMap(root) ? root.get('entries', true) : undefined).filter((item): item is YAMLMap => YAML.isMap(item));
  // an entry that lists no clusters pins every cluster of a fleet
  const pins = (item: YAMLMap, cluster: string | undefined) =>
    cluster === undefined ||
    !YAML.isSeq(item.get('clusters', true)) ||
    list(item.get('clusters', true)).some((c) => YAML.isScalar(c) && c.value === cluster);
  return (where) => {
    if (!('kind' in where))
      return at(items.flatMap((item) => list(item.get('clusters', true))).find((c) => YAML.isScalar(c) && c.value === where.cluster));
    const item = items.find(
      (i) =>
        i.get('kind') === where.kind && i.get('name') === where.name && i.get('namespace') === where.namespace && pins(i, where.cluster),
    );
    // the image's `- image:`, the field's value, else the entry's first key
    const image =
      where.image === undefined ? undefined : list(item?.get('images', true)).find((i) => YAML.isMap(i) && i.get('image') === where.image);
    return (
      item &&
      (at(YAML.isMap(image) ? image.items[0]?.key : undefined) ??
        at(where.field ? item.get(where.field, true) : undefined) ??
        at(item.items[0]?.key))
    );
  };
}

/**
 * A lockfile a merge left conflicted: one problem per conflict, with a way out that keeps the
 * digests of one side (`lock` reads that side and moves it to what the resolved manifest asks).
 */
function refuseMergeConflicts(text: string, file: string): void {
  const ours = `\`git checkout --ours -- ${shellWord(file)}\``;
  const conflicts = mergeConflictProblems(
    text,
    file,
    'a capi-gitops lockfile without conflict markers',
    `resolve any conflicts in the manifest first; then keep one side of the lockfile (in a merge: ${ours}, or --theirs) and run \`capi-gitops lock\`, which moves it to what the manifest asks for and checks the digests it keeps`,
  );
  if (conflicts.length > 0) throw new CapiGitopsError(conflicts);
}

function notRegular(file: string, kind: string): CapiGitopsError {
  return new CapiGitopsError({
    file,
    message: `the lockfile is ${kind}, not a regular file`,
    expected: 'a regular file (the lockfile capi-gitops writes), or nothing',
    hint: `remove it (rm -r ${shellWord(file)}) and run \`capi-gitops lock\` to write it from the manifest`,
  });
}

/**
 * The lock at `file`, or undefined when there is none. A link is followed (reading writes
 * nothing, and check and plan may read a lock shared that way); only a regular file is read:
 * opened without blocking and checked on the open file, so a named pipe or a device (a link to
 * /dev/zero) never hangs the run or fills its memory.
 */
export async function readLockfile(file: string): Promise<Lockfile | undefined> {
  let text: string;
  try {
    const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw notRegular(file, specialFileKind(info));
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof CapiGitopsError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CapiGitopsError({ file, message: `cannot read the lockfile: ${(error as Error).message}` });
  }
  return parseLockfile(text, file);
}

/**
 * Refuses a lockfile that is a symbolic link or not a regular file, before anything is written: a
 * pull request can commit the lockfile as a link to a file outside the repository (say
 * ~/.ssh/authorized_keys), and a rename through it would replace that file. Refused whether or
 * not this run changes the lock, so the same checkout always gives the same answer.
 */
async function refuseLinkedLockfile(file: string): Promise<void> {
  const info = await lstat(file).catch(() => undefined);
  if (info === undefined || info.isFile()) return;
  if (!info.isSymbolicLink()) throw notRegular(file, specialFileKind(info));
  const target = path.resolve(path.dirname(file), await readlink(file).catch(() => '(unreadable)'));
  throw new CapiGitopsError({
    file,
    message: `the lockfile is a symbolic link to ${target}; capi-gitops writes the lockfile in place and follows no link there`,
    expected: 'a regular file, or nothing',
    hint: `replace the link with the file itself (rm ${shellWord(file)} && cp ${shellWord(target)} ${shellWord(file)}), or remove the link and run \`capi-gitops lock\``,
  });
}

// ---- writing --------------------------------------------------------------------------------

/** The lockfile's path for a manifest: beside its first file (Manifest.baseDir). */
export function lockfilePath(manifestBaseDir: string): string {
  return path.join(manifestBaseDir, LOCKFILE_NAME);
}

/**
 * Writes the lock atomically: a temporary file in the scratch directory beside it, then one rename, so a
 * reader sees the old lock or the new one, never half of either. An unchanged lock is not
 * rewritten. Returns whether the file was written.
 */
export async function writeLockfile(file: string, lock: Pick<Lockfile, 'entries'>): Promise<boolean> {
  const prepared = await prepareLockfile(file, lock);
  if (!prepared) return false;
  await commitTogether([prepared]);
  return true;
}

/**
 * The first half of `writeLockfile`: the new lock written to a temporary file in the scratch
 * directory beside `file` (core/prepared-file.ts: ignored by Git; proves the directory is
 * writable), to be renamed into place by `commit` — together with the output directory or the
 * manifest's edits — or removed by `abort`. Undefined when the lock is unchanged. Temporary
 * locks that killed runs left (also beside the lock, where earlier versions wrote them) are removed.
 */
export async function prepareLockfile(file: string, lock: Pick<Lockfile, 'entries'>): Promise<PreparedFile | undefined> {
  await refuseLinkedLockfile(file);
  const text = serializeLockfile(lock);
  await removeLegacyTemporaries(file);
  const existing = await readFile(file, 'utf8').catch(() => undefined);
  if (existing === text) {
    await removeLeftoverFiles(path.dirname(file), path.basename(file));
    await removeScratchDirectoryIfEmpty(path.dirname(file));
    return undefined;
  }
  const failed = (error: unknown) =>
    new CapiGitopsError({
      file,
      message: `cannot write the lockfile: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      expected: 'a writable directory beside the manifest',
      hint: 'check that the directory exists and is writable; nothing was changed',
    });
  const dirMode = await stat(path.dirname(file)).then(
    (s) => s.mode,
    () => undefined,
  );
  // Root can write a directory its owner made read-only; the owner's intent is what counts.
  if (dirMode !== undefined && (dirMode & 0o222) === 0) throw failed(new Error('the directory is read-only'));
  const prepared = await prepareFile(file, text).catch((error: unknown) => {
    throw failed(error);
  });
  return {
    file,
    commit: () =>
      prepared.commit().catch((error: unknown) => {
        throw failed(error);
      }),
    abort: () => prepared.abort(),
    restore: () => prepared.restore(),
  };
}

/** `.<lock>.tmp-<pid>-<hex>` beside the lock, which versions before the scratch directory left when killed. */
async function removeLegacyTemporaries(file: string): Promise<void> {
  const dir = path.dirname(file);
  const prefix = `.${path.basename(file)}.tmp-`;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const pid = name.startsWith(prefix) ? /^(\d+)-[0-9a-f]{12}$/.exec(name.slice(prefix.length))?.[1] : undefined;
    if (pid !== undefined && Number(pid) !== process.pid && !processIsAlive(Number(pid)))
      await unlink(path.join(dir, name)).catch(() => undefined);
  }
}
