import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CapiGitopsError } from '../core/diagnostics.js';
import { scanTree } from '../output/tree.js';
import { isHidden } from './check.js';

/**
 * The visible files of an output directory (relative path → text), as a review side. Hidden
 * entries (the ownership index, `.git`, `.gitattributes`) are not objects and are left out.
 */
export async function readOutputTree(dir: string): Promise<Map<string, string>> {
  const root = path.resolve(dir);
  const entries = await scanTree(root).catch((err: NodeJS.ErrnoException) => {
    throw new CapiGitopsError({
      file: dir,
      message: `cannot read the directory: ${err.code ?? err.message}`,
      expected: 'a directory capi-gitops rendered',
      hint: 'check the path, or render into it first with capi-gitops render',
    });
  });
  const files = [...entries]
    .filter(([p, e]) => e.type === 'file' && !isHidden(p))
    .map(([p]) => p)
    .sort();
  const texts = await Promise.all(files.map((p) => readFile(path.join(root, p), 'utf8')));
  return new Map(files.map((p, i) => [p, texts[i]!]));
}
