/**
 * A Secret's values in a `-f` file that Git tracks, or would pick up (inside a work tree and not
 * ignored, so `git add -A` commits it), are on their way into the repository's history: a
 * warning names the file and how to keep it out. Git itself answers (`git ls-files`, `git
 * check-ignore`, once a directory), so every ignore rule (nested .gitignore files,
 * .git/info/exclude, core.excludesFile) counts. Loaded only for a manifest with such a Secret.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { compareStrings, type Diagnostic } from '../core/diagnostics.js';
import type { SecretObject } from '../manifest/types.js';

type GitState = 'tracked' | 'not ignored' | 'ignored' | 'outside';

/** git's exit status in `cwd` and what it printed; status undefined when git cannot run. */
function gitRun(cwd: string, args: string[], input = ''): Promise<{ status: number | undefined; stdout: string }> {
  return new Promise((resolve) => {
    const child = execFile('git', args, { cwd, maxBuffer: 64 * 1024 * 1024 }, (err, stdout) => {
      if (!err) return resolve({ status: 0, stdout });
      const code = (err as NodeJS.ErrnoException & { code?: unknown }).code;
      resolve({ status: typeof code === 'number' ? code : undefined, stdout: String(stdout ?? '') });
    });
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
  });
}

/** Names a git command line takes at once (far below any system's argument limit). */
const NAMES_A_CALL = 500;

/** The state of the files `names` in the directory `cwd`: two git runs, not two a file. */
async function statesInDirectory(cwd: string, names: readonly string[]): Promise<Map<string, GitState>> {
  const states = new Map<string, GitState>();
  const tracked = new Set<string>();
  for (let i = 0; i < names.length; i += NAMES_A_CALL) {
    // 0: in a work tree, the tracked ones printed; anything else: no work tree (or no git)
    const listed = await gitRun(cwd, ['--literal-pathspecs', 'ls-files', '-z', '--', ...names.slice(i, i + NAMES_A_CALL)]);
    if (listed.status !== 0) return new Map(names.map((name) => [name, 'outside']));
    for (const name of listed.stdout.split('\0')) if (name) tracked.add(name);
  }
  const untracked = names.filter((name) => !tracked.has(name));
  // 0: some are ignored, printed; 1: none is
  const ignored = untracked.length === 0 ? undefined : await gitRun(cwd, ['check-ignore', '-z', '--stdin'], untracked.join('\0') + '\0');
  const ignoredNames = new Set(ignored?.status === 0 ? ignored.stdout.split('\0') : []);
  for (const name of names) states.set(name, tracked.has(name) ? 'tracked' : ignoredNames.has(name) ? 'ignored' : 'not ignored');
  return states;
}

/** Each file's state, asked a directory at a time (a fleet's -f directory holds a Secret file a cluster). */
async function gitStates(files: readonly string[]): Promise<GitState[]> {
  const byDirectory = new Map<string, string[]>();
  for (const file of files) {
    const cwd = path.dirname(path.resolve(file));
    byDirectory.set(cwd, [...(byDirectory.get(cwd) ?? []), path.basename(file)]);
  }
  const states = new Map<string, GitState>();
  for (const [cwd, names] of byDirectory)
    for (const [name, state] of await statesInDirectory(cwd, [...new Set(names)])) states.set(path.join(cwd, name), state);
  return files.map((file) => states.get(path.resolve(file))!);
}

/**
 * The Secrets that hold a value not declared public (those are meant for Git), nor written in
 * plain text in the input (a Turtles CAPIProvider's variables, the Secret made from them).
 */
function secretsWithValues(secrets: readonly SecretObject[], publicNames: readonly string[]): SecretObject[] {
  return secrets.filter((s) => Object.keys(s.data).some((key) => !publicNames.includes(key) && !s.publicKeys?.includes(key)));
}

/**
 * One warning per `-f` file that holds Secret values and that Git tracks or would pick up.
 * `configSecrets` (namespace/name) are read only from `-f` files: for those, the hint offers no
 * --secret-file, whose keys are variables of every provider and never a configSecret.
 * `sharedFiles`: files that hold other objects too, with what they hold ("the provider objects"):
 * ignoring such a file would take the manifest out of Git with it, so the hint moves the Secret out.
 */
export async function gitTrackedSecretWarnings(
  secrets: readonly SecretObject[],
  publicNames: readonly string[],
  configSecrets: ReadonlySet<string> = new Set(),
  sharedFiles: ReadonlyMap<string, string> = new Map(),
): Promise<Diagnostic[]> {
  const byFile = new Map<string, SecretObject[]>();
  for (const secret of secretsWithValues(secrets, publicNames))
    byFile.set(secret.position.file, [...(byFile.get(secret.position.file) ?? []), secret]);
  const files = [...byFile.keys()].sort(compareStrings);
  const states = await gitStates(files);
  return files.flatMap((file, i): Diagnostic[] => {
    const state = states[i]!;
    if (state === 'ignored' || state === 'outside') return [];
    const first = byFile.get(file)![0]!;
    const held = byFile.get(file)!.map((s) => `${s.namespace}/${s.name}`);
    const names = held.join(', ');
    const elsewhere = held.some((name) => configSecrets.has(name))
      ? `a provider's configSecret is read from its -f file, so keep that file outside Git`
      : undefined;
    return [
      {
        ...first.position,
        object: `Secret/${first.namespace}/${first.name}`,
        message:
          state === 'tracked'
            ? `${file} holds the values of Secret ${names} and is tracked by Git (git ls-files --error-unmatch ${file})`
            : `${file} holds the values of Secret ${names} and is not ignored by Git: git add -A would commit it (git check-ignore ${file} finds no rule)`,
        hint: sharedFiles.has(file)
          ? movedOut(file, held, state, sharedFiles.get(file)!, elsewhere !== undefined)
          : state === 'tracked'
            ? `keep it out of the repository: git rm --cached ${file}, add it to .gitignore, and rotate the values (they are in the history); ` +
              (elsewhere ?? 'or move the values to a --secret-file kept outside Git, or --env-secret')
            : `add ${file} to .gitignore (or move it outside the repository)${elsewhere ? `: ${elsewhere}` : ', or pass the values with --secret-file or --env-secret'}`,
      },
    ];
  });
}

/**
 * The way out for a file that also holds what belongs in Git (the provider objects, the Config):
 * the Secret moves to a file of its own, kept outside Git and given with -f, as a configSecret is
 * read; ignoring or untracking the file would take the manifest out of the repository with it.
 */
function movedOut(file: string, held: readonly string[], state: GitState, holds: string, configSecret: boolean): string {
  const secrets = held.length === 1 ? `Secret ${held[0]}` : `Secrets ${held.join(', ')}`;
  const own = 'into a file of its own kept outside Git (outside the repository, or listed in .gitignore)';
  const move =
    state === 'tracked'
      ? `move ${secrets} out of ${file} ${own}, give that file with -f, and rotate the values (they are in the history)`
      : `move ${secrets} out of ${file} ${own}, and give that file with -f`;
  const other = configSecret ? '' : '; or pass the values with --secret-file or --env-secret';
  return `${move}${other}; keep ${file} itself in Git: it also holds ${holds}`;
}

/**
 * One warning per `--secret-file` that Git tracks or would pick up: its values are secret (kept
 * out of Git, docs/secrets.md), and the hints that offer --secret-file mean one outside Git.
 */
export async function gitTrackedSecretFileWarnings(files: readonly string[]): Promise<Diagnostic[]> {
  const unique = [...new Set(files)].sort(compareStrings);
  const states = await gitStates(unique);
  return unique.flatMap((file, i): Diagnostic[] => {
    const state = states[i]!;
    if (state === 'ignored' || state === 'outside') return [];
    return [
      {
        file,
        message:
          state === 'tracked'
            ? `--secret-file ${file} is tracked by Git (git ls-files --error-unmatch ${file})`
            : `--secret-file ${file} is not ignored by Git: git add -A would commit it (git check-ignore ${file} finds no rule)`,
        hint:
          state === 'tracked'
            ? `keep it out of the repository: git rm --cached ${file}, add it to .gitignore, and rotate the values (they are in the history)`
            : `add ${file} to .gitignore, or move it outside the repository`,
      },
    ];
  });
}
