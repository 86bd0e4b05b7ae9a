import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CapiGitopsError, DiagnosticBag } from '../core/diagnostics.js';
import { mapLimited, OPEN_FILES } from '../core/map-limited.js';
import { scanTree } from '../output/tree.js';
import { YamlBudget } from '../yaml/bounds.js';
import { isHidden } from '../output/unwritten-files.js';

/**
 * The visible files of an output directory (relative path → text), as a review side. Hidden
 * entries (the ownership index, `.git`, `.gitattributes`) are not objects and are left out.
 * Each file is held to the YAML node and depth bounds before any parser sees it, as manifests
 * and the lockfile are: a committed file is input like them (12 MB of flow list cost a diff 2 s
 * and 300 MB).
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
  const texts = await mapLimited(files, OPEN_FILES, (p) => readFile(path.join(root, p), 'utf8'));
  const bag = new DiagnosticBag();
  // every file, not only *.yaml: a base's kustomization may list a resource of any name, and review parses it
  files.forEach((p, i) => checkOutputFile(texts[i]!, path.join(dir, p), bag));
  bag.throwIfAny();
  return new Map(files.map((p, i) => [p, texts[i]!]));
}

/** One file's bounds (a budget of its own, as the lockfile has); a problem names the file as the user finds it. */
function checkOutputFile(text: string, shown: string, bag: DiagnosticBag): void {
  try {
    new YamlBudget().check(text, shown);
  } catch (err) {
    if (!(err instanceof CapiGitopsError)) throw err;
    for (const d of err.diagnostics)
      bag.add({
        ...d,
        expected: `an output file as capi-gitops render writes it: ${d.expected ?? 'YAML within the bounds'}`,
        // the file is render's to write: rewriting or restoring it is the fix, not a higher bound
        hint: `render writes this file: render again to rewrite it, or restore the committed one (git checkout -- ${shown})`,
      });
  }
}
