import { CapiGitopsError, type Diagnostic } from '../model/diagnostics.js';
import { compareCodeUnits, filePathProblems, outputPathProblem } from './output-paths.js';

/**
 * The ownership index: plain text, a fixed header then one path per line, sorted by code unit.
 * It is a hidden file without a manifest extension, so neither kustomize (which reads only what
 * a kustomization lists), Argo CD directory sources (*.yaml, *.yml, *.json, *.jsonnet) nor Flux
 * (which builds from kustomization.yaml, or *.yaml/*.yml/*.json when there is none) reads it.
 */
export const INDEX_HEADER = '# capi-gitops ownership index v1';
const INDEX_PREAMBLE = [
  INDEX_HEADER,
  '# capi-gitops wrote the files listed below; its next run replaces or removes them.',
  '# Files not listed here are never touched. Do not edit.',
];

export function formatIndex(paths: Iterable<string>): string {
  const sorted = [...new Set(paths)].sort(compareCodeUnits);
  return [...INDEX_PREAMBLE, ...sorted].join('\n') + '\n';
}

/**
 * Paths listed in an index. A damaged index is an error, never skipped: its paths decide what
 * gets deleted, so a line like `../x` must stop the run rather than be guessed at.
 */
export function parseIndex(text: string, file: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const hint = `restore ${file} from Git, or delete it and the files capi-gitops wrote, then run again`;
  if (lines[0] !== INDEX_HEADER) {
    throw new CapiGitopsError({ file, line: 1, column: 1, message: 'not a capi-gitops ownership index', expected: INDEX_HEADER, hint });
  }
  const problems: Diagnostic[] = [];
  const paths: string[] = [];
  lines.forEach((line, i) => {
    if (line === '' || line.startsWith('#')) return;
    const problem = outputPathProblem(line);
    if (problem) problems.push({ file, line: i + 1, column: 1, message: `listed path ${JSON.stringify(line)} ${problem}`, expected: 'a relative path inside the output directory', hint });
    else paths.push(line);
  });
  problems.push(...filePathProblems(paths, file).map((d) => ({ ...d, hint })));
  if (problems.length > 0) throw new CapiGitopsError(problems);
  return [...new Set(paths)].sort(compareCodeUnits);
}
