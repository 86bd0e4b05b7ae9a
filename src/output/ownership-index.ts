import { sha256Hex } from '../core/digest.js';
import { mergeConflictProblems } from '../core/merge-conflicts.js';
import { shellWord } from '../core/shell.js';
import { CapiGitopsError, type Diagnostic, compareStrings } from '../core/diagnostics.js';
import { filePathProblems, outputPathProblem } from '../layout/output-paths.js';
import { GENERATED_MARK } from '../layout/provenance.js';

/**
 * The ownership index: plain text, a fixed header then one line per file, sorted by path:
 * `<sha256 of the bytes written>  <path>` (sha256sum's form). The digest lets `check` tell a
 * file edited by hand from one a newer render would change. v1 indexes (paths only) are read.
 * It is a hidden file without a manifest extension, so neither kustomize (which reads only what
 * a kustomization lists), Argo CD directory sources (*.yaml, *.yml, *.json, *.jsonnet) nor Flux
 * (which builds from kustomization.yaml, or *.yaml/*.yml/*.json when there is none) reads it.
 */
const INDEX_HEADER = '# capi-gitops ownership index v2';
const INDEX_HEADER_V1 = '# capi-gitops ownership index v1';
const INDEX_PREAMBLE = [
  INDEX_HEADER,
  '# capi-gitops wrote the files listed below; its next run replaces or removes them.',
  '# Files not listed here are never touched. Do not edit.',
];

const ENTRY = /^([0-9a-f]{64}) {2}(.*)$/;

/**
 * A directory an earlier render wrote into, kept because it holds a file capi-gitops did not
 * write (a removed cluster's): recorded so that check and render keep telling that file after the
 * render that stopped writing there (unwritten-files.ts). A comment line, which v2 readers skip.
 */
const KEPT_DIRECTORY = '# written by an earlier render, holds a file capi-gitops did not write: ';

const MARK_BYTES = Buffer.from(GENERATED_MARK, 'utf8');

/**
 * Whether a render may remove a file the index lists and it no longer writes: its bytes still
 * have the digest recorded (a v1 index records none) and begin as every file capi-gitops writes
 * (an index altered to name a hand-written file with its real sha256 does not prove it ours).
 * `check` and `diff` ask the same, so they say what render does.
 */
export function provenOwned(bytes: Uint8Array, digest: string | undefined): boolean {
  return digest !== undefined && sha256Hex(bytes) === digest && beginsAsGenerated(bytes);
}

/** Whether bytes begin as every file capi-gitops writes (a file it wrote, edited since, still does). */
export function beginsAsGenerated(bytes: Uint8Array): boolean {
  return MARK_BYTES.equals(bytes.subarray(0, MARK_BYTES.length));
}

/** The index of `files` (relative path → content written, as text or UTF-8 bytes), and the kept directories of earlier renders. */
export function formatIndex(files: ReadonlyMap<string, string | Uint8Array>, keptDirectories: readonly string[] = []): string {
  // each file hashed (a memo keyed by the text would compare same-length texts in full)
  return formatIndexOfDigests(new Map([...files].map(([p, text]) => [p, sha256Hex(text)])), keptDirectories);
}

/** The index of files whose sha256 is known (relative path → digest); the same text formatIndex writes. */
export function formatIndexOfDigests(digests: ReadonlyMap<string, string>, keptDirectories: readonly string[] = []): string {
  const sorted = [...digests.keys()].sort(compareStrings);
  const kept = [...keptDirectories].sort(compareStrings).map((d) => `${KEPT_DIRECTORY}${d}`);
  return [...INDEX_PREAMBLE, ...kept, ...sorted.map((p) => `${digests.get(p)!}  ${p}`)].join('\n') + '\n';
}

/** The kept directories an index records (KEPT_DIRECTORY); a path that could not be the output's is left out: it names nothing. */
export function parseKeptDirectories(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(KEPT_DIRECTORY))
    .map((line) => line.slice(KEPT_DIRECTORY.length))
    .filter((d) => d !== '' && outputPathProblem(d) === undefined);
}

/**
 * Two renders merged (two pull requests, each with its render): the index is one text Git cannot
 * combine. Both sides' lines are render's, so the way out keeps them all (a path listed twice takes
 * the later digest: a file with the other is kept, never removed), and render rewrites the index.
 */
function refuseMergeConflicts(text: string, file: string): void {
  if (!text.includes('<<<<<<<')) return;
  const keepBoth = `grep -v -E '^(<<<<<<<|=======|>>>>>>>)' ${shellWord(file)} > ${shellWord(`${file}.merged`)} && mv ${shellWord(`${file}.merged`)} ${shellWord(file)}`;
  const conflicts = mergeConflictProblems(
    text,
    file,
    'an ownership index without conflict markers',
    `keep both sides' lines, deleting only the markers: ${keepBoth}, then render again, which rewrites the index`,
  );
  if (conflicts.length > 0) throw new CapiGitopsError(conflicts);
}

/** Paths listed in an index, each with the digest of what was written (absent in a v1 index). */
export function parseIndexEntries(text: string, file: string): Map<string, string | undefined> {
  refuseMergeConflicts(text, file);
  // CRLF: Git's core.autocrlf=true at a checkout before the output's .gitattributes said -text;
  // the index is read, its files found edited, and render writes them byte for byte again
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const hint = `restore ${file} from Git, or delete it and the files capi-gitops wrote, then run again`;
  const v1 = lines[0] === INDEX_HEADER_V1;
  if (lines[0] !== INDEX_HEADER && !v1) {
    throw new CapiGitopsError({ file, line: 1, column: 1, message: 'not a capi-gitops ownership index', expected: INDEX_HEADER, hint });
  }
  const problems: Diagnostic[] = [];
  const entries = new Map<string, string | undefined>();
  lines.forEach((line, i) => {
    if (line === '' || line.startsWith('#')) return;
    const entry = v1 ? undefined : ENTRY.exec(line);
    if (!v1 && !entry) {
      problems.push({
        file,
        line: i + 1,
        column: 1,
        message: `line ${JSON.stringify(line)} is not "<sha256>  <path>"`,
        expected: 'a sha256 in hex, two spaces and a relative path',
        hint,
      });
      return;
    }
    const p = entry ? entry[2]! : line;
    const problem = outputPathProblem(p);
    if (problem)
      problems.push({
        file,
        line: i + 1,
        column: 1,
        message: `listed path ${JSON.stringify(p)} ${problem}`,
        expected: 'a relative path inside the output directory',
        hint,
      });
    else entries.set(p, entry?.[1]);
  });
  problems.push(...filePathProblems(entries.keys(), file).map((d) => ({ ...d, hint })));
  if (problems.length > 0) throw new CapiGitopsError(problems);
  return new Map([...entries].sort(([a], [b]) => compareStrings(a, b)));
}

/**
 * Paths listed in an index. A damaged index is an error, never skipped: its paths decide what
 * gets deleted, so a line like `../x` must stop the run rather than be guessed at.
 */
export function parseIndex(text: string, file: string): string[] {
  return [...parseIndexEntries(text, file).keys()];
}
