import type { Diagnostic } from '../core/diagnostics.js';

/** The ownership index, at the root of the output directory (see ownership-index.ts). */
export const INDEX_FILE = '.capi-gitops-index';

/**
 * Why `p` is not a path the writer may create, or undefined if it is one. Paths are relative,
 * `/`-separated, normalised (no empty, `.` or `..` segments), and never inside a `.git`
 * directory or on the index file, so no input can make the writer leave the output directory
 * or overwrite a repository's metadata.
 */
export function outputPathProblem(p: string): string | undefined {
  if (p === '') return 'is empty';
  if (p.includes('\\') || p.includes('\0')) return 'contains a backslash or NUL';
  if (p.startsWith('/')) return 'is absolute';
  const segments = p.split('/');
  if (segments.some((s) => s === '')) return 'has an empty segment (leading, trailing or doubled "/")';
  if (segments.some((s) => s === '.' || s === '..')) return 'has a "." or ".." segment';
  if (segments.includes('.git')) return 'is inside a .git directory';
  if (p === INDEX_FILE) return `is the ownership index ${INDEX_FILE}`;
  return undefined;
}

/** Ancestor directories of a relative path, nearest last: `a/b/c` → `a`, `a/b`. */
export function ancestors(p: string): string[] {
  const out: string[] = [];
  for (let i = p.indexOf('/'); i >= 0; i = p.indexOf('/', i + 1)) out.push(p.slice(0, i));
  return out;
}

/** Problems with a set of file paths: bad paths, and a path that is also another's directory. */
export function filePathProblems(paths: Iterable<string>, file?: string): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const all = new Set(paths);
  const expected = 'a relative path such as 01-cluster-api/deployment-capi-controller-manager.yaml';
  for (const p of all) {
    const problem = outputPathProblem(p);
    if (problem) problems.push({ file, message: `output path ${JSON.stringify(p)} ${problem}`, expected });
    for (const dir of ancestors(p)) {
      if (all.has(dir))
        problems.push({
          file,
          message: `output path ${JSON.stringify(dir)} is both a file and the directory of ${JSON.stringify(p)}`,
          expected: 'each path either a file or a directory',
        });
    }
  }
  return problems;
}
