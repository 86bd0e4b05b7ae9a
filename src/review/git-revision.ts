/**
 * The manifest and lockfile as they were at a Git revision, for `diff --base <ref>`: read with
 * `git show <commit>:<path>` into a temporary directory that mirrors the repository's layout,
 * so neither the checkout nor the index is touched. Everything else the manifest refers to by
 * a relative path (local repositories, charts, values files) is linked to the working tree, and
 * artifacts come from that commit's lockfile and the cache. Files that hold only Secrets and that
 * the commit does not have (outside the repository, ignored, new) are read from the working tree:
 * secret values are kept out of Git, so both sides take them from the same place.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { onInterrupt, throwIfInterrupted } from '../core/interrupt.js';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CapiGitopsError, compareStrings } from '../core/diagnostics.js';
import { isManifestName, LOCKFILE_NAME } from '../manifest/files.js';
import { fileHoldsOnlySecrets, holdsOnlySecrets } from './secret-only-files.js';
import { escapeRegExp } from '../core/regexp.js';

const run = promisify(execFile);
const MAX_OUTPUT = 256 * 1024 * 1024;

interface RevisionManifest {
  /** The commit the ref named. */
  commit: string;
  /**
   * The `-f` paths inside the temporary tree, in the order given; then the paths that hold only
   * Secrets and are not in the commit (outside the repository, ignored, new), from the working tree.
   */
  manifestPaths: string[];
  /**
   * The `-f` paths, as given, that the commit does not have: the change adds them (the pull request
   * that introduces the manifest adds them all, and `manifestPaths` is then empty).
   */
  absentPaths: string[];
  /** The files of Secrets read from the working tree for both sides (absolute): a change of their values does not show. */
  sharedSecretFiles: string[];
  /**
   * A problem with its file as the user can open it: a file of the commit as `<ref>:<path>` (what
   * `git show` takes), a file linked from the working tree as that file; the temporary tree is gone
   * when the problem is printed.
   */
  located<T extends { file?: string }>(problem: T): T;
  /** Deletes the temporary tree. */
  dispose(): Promise<void>;
}

async function git(cwd: string, args: string[]): Promise<Buffer> {
  const { stdout } = await run('git', args, { cwd, encoding: 'buffer', maxBuffer: MAX_OUTPUT });
  return stdout;
}

function gitFailure(err: unknown): string {
  const e = err as { code?: string; stderr?: Buffer | string };
  if (e.code === 'ENOENT') return 'git is not installed (or not on PATH)';
  return (
    String(e.stderr ?? (err as Error).message)
      .trim()
      .split('\n')[0] ?? 'git failed'
  );
}

/** Whether the repository at `top` is a shallow clone (git rev-parse --is-shallow-repository). */
async function isShallow(top: string): Promise<boolean> {
  try {
    return (await git(top, ['rev-parse', '--is-shallow-repository'])).toString('utf8').trim() === 'true';
  } catch {
    return false;
  }
}

async function existingDirectory(p: string): Promise<string> {
  let dir = path.resolve(p);
  while (
    !(await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  )
    dir = path.dirname(dir);
  return dir;
}

/** Links every working-tree entry beside the materialized paths, so relative references resolve. */
async function linkWorkingTree(top: string, root: string, materialized: Set<string>, owned: Set<string>): Promise<void> {
  const onPath = new Set<string>(['']);
  for (const p of materialized) for (let d = path.posix.dirname(p); d !== '.'; d = path.posix.dirname(d)) onPath.add(d);
  for (const dir of onPath) {
    if ([...owned].some((o) => dir === o || dir.startsWith(o + '/'))) continue;
    const names = await readdir(path.join(top, dir)).catch(() => [] as string[]);
    for (const name of names) {
      const rel = dir ? `${dir}/${name}` : name;
      if (name === '.git' || onPath.has(rel) || materialized.has(rel) || owned.has(rel)) continue;
      await mkdir(path.join(root, dir), { recursive: true });
      await symlink(path.join(top, rel), path.join(root, rel));
    }
  }
}

/** The manifest files in a `-f` directory that the commit does not have and that hold only Secrets (repository paths). */
async function untrackedSecretFiles(directory: string, rel: string, inCommit: ReadonlySet<string>): Promise<string[]> {
  const names = (await readdir(directory).catch(() => [] as string[])).filter(isManifestName).sort(compareStrings);
  const out: string[] = [];
  for (const name of names) {
    const f = rel ? `${rel}/${name}` : name;
    if (!inCommit.has(f) && fileHoldsOnlySecrets(path.join(directory, name))) out.push(f);
  }
  return out;
}

interface Tree {
  root: string;
  top: string;
  ref: string;
  materialized: ReadonlySet<string>;
}

/**
 * A problem's message, expected and hint without a path in the temporary tree, which is gone when
 * they are printed: a file of the commit is `<ref>:<path>`, a file linked from the working tree is
 * that file. A hint naming a file of the commit (an `iconv` or `rm` of it) cannot be followed
 * there: it says where that file is, and what to do instead.
 */
function outOfTree(problem: object, tree: Tree): { message?: string; expected?: string; hint?: string } {
  const { root, top, ref, materialized } = tree;
  // the root, and what follows it up to a space or a quote
  const treePath = new RegExp(escapeRegExp(root) + '(?:' + escapeRegExp(path.sep) + '[^\\s\'"`]*)?', 'g');
  const ofCommit = (rel: string) => [...materialized].find((f) => rel === f || rel.startsWith(f));
  const fields = problem as { message?: unknown; expected?: unknown; hint?: unknown };
  const named: string[] = [];
  const mapped = (text: unknown) =>
    typeof text !== 'string'
      ? undefined
      : text.replace(treePath, (match) => {
          const rel = match
            .slice(root.length + 1)
            .split(path.sep)
            .join('/');
          const file = ofCommit(rel);
          if (file !== undefined) named.push(file);
          return file !== undefined ? `${ref}:${rel}` : path.join(top, match.slice(root.length));
        });
  const out: { message?: string; expected?: string; hint?: string } = {};
  for (const key of ['message', 'expected'] as const) if (typeof fields[key] === 'string') out[key] = mapped(fields[key]);
  const before = named.length;
  const hint = mapped(fields.hint);
  if (hint !== undefined)
    out.hint =
      named.length > before
        ? `${ref}:${named.at(-1)} is the file as it was at ${ref}, which diff reads for the old side: fix it in a commit there, or diff against another --base`
        : hint;
  return out;
}

/**
 * Writes the `-f` paths (files or directories, as given on the command line) and the lockfile
 * beside the first as they were at `ref`. A path missing at that commit is one the change adds.
 */
export async function manifestAtRevision(ref: string, manifestPaths: readonly string[]): Promise<RevisionManifest> {
  const cwd = await existingDirectory(manifestPaths[0] ?? '.');
  let top: string;
  let commit: string;
  try {
    top = (await git(cwd, ['rev-parse', '--show-toplevel'])).toString('utf8').trim();
  } catch (err) {
    throw new CapiGitopsError({
      file: manifestPaths[0],
      message: `--base needs the manifest in a Git repository: ${gitFailure(err)}`,
      hint: 'run capi-gitops diff from inside the repository, or compare two directories with --from <dir> --to <dir>',
    });
  }
  try {
    commit = (await git(top, ['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`])).toString('utf8').trim();
  } catch (err) {
    // actions/checkout fetches one commit unless told fetch-depth: 0: the base is then not there
    if (await isShallow(top)) {
      throw new CapiGitopsError({
        message: `--base ${ref} is not in this clone: it is shallow (${top} holds only the latest commits, not the history --base needs)`,
        hint: 'check out the whole history (actions/checkout with fetch-depth: 0), or fetch it here with git fetch --unshallow, then run the command again',
      });
    }
    throw new CapiGitopsError({
      message: `--base ${ref} is not a commit in ${top}: ${gitFailure(err)}`,
      expected: 'a branch, tag or commit (e.g. HEAD, origin/main)',
      hint: 'git fetch the base branch first (actions/checkout with fetch-depth: 0), then run the command again',
    });
  }
  // the revision's manifest (its Secrets too) does not outlive a Ctrl-C: the removal waits for the
  // file being made (the directory itself first), and the next one stops the run, so nothing is
  // made in the tree after rm
  const created = mkdtemp(path.join(os.tmpdir(), 'capi-gitops-base-'));
  let making: Promise<unknown> = created.catch(() => undefined);
  const make = <T>(work: () => Promise<T>): Promise<T> => {
    throwIfInterrupted();
    const made = work();
    making = made.catch(() => undefined);
    return made;
  };
  const remove = () =>
    making.then(() =>
      created.then(
        (made) => rm(made, { recursive: true, force: true }),
        () => undefined,
      ),
    );
  const withdraw = onInterrupt(remove);
  let root = '';
  try {
    root = await created;
    const materialized = new Set<string>();
    const owned = new Set<string>();
    const secretFiles: string[] = [];
    const inRevision: string[] = [];
    const fromWorkingTree: string[] = [];
    const absentPaths: string[] = [];
    for (const given of manifestPaths) {
      // through links, as the working tree reads it: Git names the real path (a committed link to
      // the manifest directory is a blob holding its target; a repository reached through a linked
      // directory, macOS' /var, is outside the top Git names)
      const real = await realpath(path.resolve(given)).catch(() => path.resolve(given));
      const rel = path.relative(top, real).split(path.sep).join('/');
      if (rel.startsWith('..') || path.isAbsolute(rel)) {
        if (holdsOnlySecrets(given)) {
          fromWorkingTree.push(path.resolve(given));
          continue;
        }
        throw new CapiGitopsError({
          file: given,
          message: `-f ${given} is outside the Git repository ${top}, and holds more than Secrets`,
          expected: 'manifests in the repository; outside it, only files of Secrets (read from the working tree for both sides)',
          hint: 'move the other documents into the repository, and keep only the Secrets outside it',
        });
      }
      const files = (await git(top, ['ls-tree', '-r', '-z', '--name-only', commit, '--', rel || '.']))
        .toString('utf8')
        .split('\0')
        .filter(Boolean);
      // a file of Secrets Git does not have (ignored, or new) is read from the working tree
      if (files.length === 0 && holdsOnlySecrets(given)) {
        fromWorkingTree.push(path.resolve(given));
        continue;
      }
      // not in the commit: the change adds it (its objects show as added); one that is nowhere fails the render of now
      if (files.length === 0) {
        absentPaths.push(given);
        continue;
      }
      const isDirectory = !(files.length === 1 && files[0] === rel);
      owned.add(rel);
      for (const f of files) materialized.add(f);
      if (isDirectory) secretFiles.push(...(await untrackedSecretFiles(path.resolve(given), rel, new Set(files))));
      inRevision.push(path.join(root, rel));
      if (inRevision.length === 1) {
        const lock = path.posix.join(isDirectory ? rel : path.posix.dirname(rel), LOCKFILE_NAME);
        owned.add(lock);
        const listed = (await git(top, ['ls-tree', '-z', '--name-only', commit, '--', lock])).toString('utf8').split('\0').filter(Boolean);
        if (listed.length > 0) materialized.add(lock);
      }
    }
    for (const f of materialized) {
      const text = await git(top, ['show', `${commit}:${f}`]);
      await make(async () => {
        await mkdir(path.dirname(path.join(root, f)), { recursive: true });
        await writeFile(path.join(root, f), text);
      });
    }
    await make(() => linkWorkingTree(top, root, materialized, owned));
    for (const f of secretFiles) await make(() => symlink(path.join(top, f), path.join(root, f)));
    const located = <T extends { file?: string }>(problem: T): T => {
      const texts = outOfTree(problem, { root, top, ref, materialized });
      const rel = problem.file === undefined ? '..' : path.relative(root, problem.file);
      if (rel.startsWith('..') || path.isAbsolute(rel)) return { ...problem, ...texts };
      const repositoryPath = rel.split(path.sep).join('/');
      return { ...problem, ...texts, file: materialized.has(repositoryPath) ? `${ref}:${repositoryPath}` : path.join(top, rel) };
    };
    return {
      commit,
      manifestPaths: inRevision.length > 0 ? [...inRevision, ...fromWorkingTree] : [],
      absentPaths,
      sharedSecretFiles: [...secretFiles.map((f) => path.join(top, f)), ...fromWorkingTree],
      located,
      dispose: () => {
        withdraw();
        return remove();
      },
    };
  } catch (err) {
    withdraw();
    await remove();
    throw err;
  }
}
