/**
 * A Secret's values in a `-f` file that Git tracks, or would pick up (inside a work tree and not
 * ignored, so `git add -A` commits it), are on their way into the repository's history: a
 * warning names the file and how to keep it out. Git itself answers (`git ls-files
 * --error-unmatch`, `git check-ignore`), so every ignore rule (nested .gitignore files,
 * .git/info/exclude, core.excludesFile) counts. Loaded only for a manifest with such a Secret.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { compareStrings, type Diagnostic } from '../core/diagnostics.js';
import type { SecretObject } from '../manifest/types.js';

type GitState = 'tracked' | 'not ignored' | 'ignored' | 'outside';

/** git's exit status in `cwd`; undefined when git cannot run. */
function gitStatus(cwd: string, args: string[]): Promise<number | undefined> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd }, (err) => {
      if (!err) return resolve(0);
      const code = (err as NodeJS.ErrnoException & { code?: unknown }).code;
      resolve(typeof code === 'number' ? code : undefined);
    });
  });
}

async function gitState(file: string): Promise<GitState> {
  const [cwd, name] = [path.dirname(path.resolve(file)), path.basename(file)];
  // 0: tracked; 1: in a work tree, not tracked; anything else: no work tree (or no git)
  const listed = await gitStatus(cwd, ['ls-files', '--error-unmatch', '--', name]);
  if (listed === 0) return 'tracked';
  if (listed !== 1) return 'outside';
  return (await gitStatus(cwd, ['check-ignore', '-q', '--', name])) === 0 ? 'ignored' : 'not ignored';
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
  const states = await Promise.all(files.map(gitState));
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
  const states = await Promise.all(unique.map(gitState));
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
