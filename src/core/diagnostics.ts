/**
 * Every user-facing problem is a Diagnostic: where (file, line, column, field path), what went
 * wrong, what was expected and how to fix it. Problems are collected, not thrown one by one,
 * so a user sees all of them at once.
 */
import path from 'node:path';
import { safeText } from './redact.js';

export interface Diagnostic {
  message: string;
  file?: string;
  line?: number;
  column?: number;
  /** Field path inside the object, e.g. `spec.manager.maxConcurrentReconciles`. */
  path?: string;
  /** The object the problem is in, e.g. `CoreProvider/capi-system/cluster-api`. */
  object?: string;
  expected?: string;
  hint?: string;
  /** Fixed text to copy (a YAML block), printed under the hint line for line; never input. */
  example?: string;
}

/** The part of a Diagnostic that says where a request came from; copied into errors about it. */
export type DiagnosticOrigin = Pick<Diagnostic, 'file' | 'line' | 'column' | 'object' | 'path'>;

/**
 * The problems a run shows. All are collected and counted, but hostile input (a lockfile of
 * 200,000 bad entries) must not print or hold in one string 200,000 of them. 1,000 is far above
 * what real input gives (a broken file gives tens), so a real run still shows every problem, and
 * bounds the report to some 300 KB; go/scanner's ErrorList and the Go compiler stop at 10, too
 * few for "every problem in one run"; kubectl and kustomize print all.
 */
export const MAX_REPORTED_PROBLEMS = 1000;

/** Thrown when input is invalid or a render fails. Exit code 1. */
export class CapiGitopsError extends Error {
  readonly diagnostics: Diagnostic[];
  constructor(diagnostics: Diagnostic[] | Diagnostic | string) {
    const list = typeof diagnostics === 'string' ? [{ message: diagnostics }] : Array.isArray(diagnostics) ? diagnostics : [diagnostics];
    const more = list.length - MAX_REPORTED_PROBLEMS;
    super(list.slice(0, MAX_REPORTED_PROBLEMS).map(formatDiagnostic).join('\n') + (more > 0 ? `\n${more} more problems not shown` : ''));
    this.name = 'CapiGitopsError';
    this.diagnostics = list;
  }
}

/** Collects diagnostics and throws them together. */
export class DiagnosticBag {
  readonly items: Diagnostic[] = [];
  add(d: Diagnostic): void {
    this.items.push(d);
  }
  /** Adds the problems of a CapiGitopsError; anything else thrown is thrown on. */
  addError(err: unknown): void {
    if (!(err instanceof CapiGitopsError)) throw err;
    for (const d of err.diagnostics) this.add(d);
  }
  get size(): number {
    return this.items.length;
  }
  throwIfAny(): void {
    if (this.items.length > 0) throw new CapiGitopsError(sortDiagnostics(this.items));
  }
}

/**
 * The problems to show: all within the bound, else the first MAX_REPORTED_PROBLEMS in
 * sortDiagnostics order (the same whichever check ended first); and how many are left out.
 */
export function reportedProblems(list: readonly Diagnostic[]): { shown: Diagnostic[]; notShown: number } {
  if (list.length <= MAX_REPORTED_PROBLEMS) return { shown: [...list], notShown: 0 };
  return { shown: sortDiagnostics(list).slice(0, MAX_REPORTED_PROBLEMS), notShown: list.length - MAX_REPORTED_PROBLEMS };
}

/** The same problem at the same place. */
const samePlace = (d: Diagnostic) => [d.file, d.line, d.column, d.path, d.message, d.expected, d.hint];

/** Problems grouped by what `alike` says of each, groups and their members in the order met. */
export function groupAlike(list: readonly Diagnostic[], alike: (d: Diagnostic) => unknown[]): Diagnostic[][] {
  const groups = new Map<string, Diagnostic[]>();
  for (const d of list) {
    const key = JSON.stringify(alike(d));
    groups.set(key, [...(groups.get(key) ?? []), d]);
  }
  return [...groups.values()];
}

/**
 * Problems alike but for their object (one value that breaks every provider it reaches) told
 * once: at the first position, naming each object. `alike` may leave the position out where the
 * problem is not the field's (one Secret missing for every provider that names it).
 */
export function tellOnce(list: readonly Diagnostic[], alike: (d: Diagnostic) => unknown[] = samePlace): Diagnostic[] {
  return groupAlike(list, alike).map((group) => {
    if (group.length === 1) return group[0]!;
    const sorted = [...group].sort(comparePositions);
    return { ...sorted[0]!, object: [...new Set(sorted.map((d) => d.object))].join(', ') };
  });
}

/** File, then line, then column: the order problems are read in. */
export function comparePositions(a: Pick<Diagnostic, 'file' | 'line' | 'column'>, b: Pick<Diagnostic, 'file' | 'line' | 'column'>): number {
  return compareStrings(a.file ?? '', b.file ?? '') || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0);
}

export function sortDiagnostics(list: readonly Diagnostic[]): Diagnostic[] {
  return [...list].sort(
    (a, b) =>
      comparePositions(a, b) ||
      compareStrings(a.message, b.message) ||
      // ties broken on every printed field, so the order never depends on which check finished first
      compareStrings(a.object ?? '', b.object ?? '') ||
      compareStrings(a.path ?? '', b.path ?? '') ||
      compareStrings(a.expected ?? '', b.expected ?? '') ||
      compareStrings(a.hint ?? '', b.hint ?? ''),
  );
}

/** `a kubeadm`, `an infrastructure-example`: the article by the word's first letter (messages name providers and kinds). */
export function withArticle(word: string): string {
  return `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
}

/** Code-unit order: the same on every machine and locale. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * `file:line:col: error: object: path: message` then indented `expected:` and `hint:` lines,
 * the shape compilers and linters use so editors can jump to the spot.
 */
export function formatDiagnostic(d: Diagnostic): string {
  return formatAs(d, 'error');
}

/** A likely mistake in valid input, in the same shape as an error. */
export function formatWarning(d: Diagnostic): string {
  return formatAs(d, 'warning');
}

/** A path below the working directory as a relative path, as users type them; any other absolute. */
export function displayPath(file: string): string {
  const absolute = path.resolve(file);
  const relative = path.relative(process.cwd(), absolute);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : absolute;
}

/** A field past this many characters is cut to its start and end: a value pasted by mistake (a 1.1 MB kind) is not a line of megabytes. */
const SHOWN_FIELD_CHARACTERS = 2000;

function shortened(text: string | undefined): string | undefined {
  if (text === undefined || text.length <= SHOWN_FIELD_CHARACTERS) return text;
  // never half a surrogate pair at a cut
  const head = text.slice(0, SHOWN_FIELD_CHARACTERS - 500).replace(/[\uD800-\uDBFF]$/, '');
  const tail = text.slice(-400).replace(/^[\uDC00-\uDFFF]/, '');
  return `${head} … (${text.length - head.length - tail.length} characters left out) … ${tail}`;
}

function formatAs(d: Diagnostic, severity: 'error' | 'warning'): string {
  // Every field can carry input or a server's words: redacted and escaped, one line each. A hint
  // and its example are never cut: they are followed literally.
  const safe = (text: string | undefined) => (text === undefined ? undefined : safeText(text, { keepNewlines: false }));
  d = {
    ...d,
    message: shortened(safe(d.message))!,
    file: shortened(safe(d.file)),
    path: shortened(safe(d.path)),
    object: shortened(safe(d.object)),
    expected: shortened(safe(d.expected)),
    hint: safe(d.hint),
  };
  let where = '';
  if (d.file) {
    // a relative file is shown as written
    where = path.isAbsolute(d.file) ? displayPath(d.file) : d.file;
    if (d.line !== undefined) where += `:${d.line}`;
    if (d.line !== undefined && d.column !== undefined) where += `:${d.column}`;
    where += ': ';
  }
  const subject = [d.object, d.path].filter(Boolean).join(': ');
  let text = `${where}${severity}: ${subject ? subject + ': ' : ''}${d.message}`;
  if (d.expected) text += `\n  expected: ${d.expected}`;
  if (d.hint) text += `\n  hint: ${d.hint}`;
  // each line escaped on its own, so only the example's own line breaks are kept
  if (d.example) for (const line of d.example.split('\n')) text += `\n    ${safe(line)}`;
  return text;
}
