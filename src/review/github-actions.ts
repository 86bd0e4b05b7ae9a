/**
 * GitHub Actions integration: workflow-command annotations (`::warning file=…::`,
 * `::error file=…,line=…::`) and the job summary (`$GITHUB_STEP_SUMMARY`). Escaping follows
 * actions/toolkit packages/core/src/command.ts (escapeData, escapeProperty).
 */
import { statSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { displayPath, type Diagnostic } from '../core/diagnostics.js';
import type { CheckReport } from './check.js';
import { findingClusters } from './format-markdown.js';
import type { Finding, ReviewReport } from './types.js';
import { escapeData } from '../core/workflow-commands.js';

export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function command(name: 'warning' | 'error', properties: Record<string, string | number | undefined>, message: string): string {
  const props = Object.entries(properties)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}=${escapeProperty(String(v))}`)
    .join(',');
  return `::${name}${props ? ' ' + props : ''}::${escapeData(message)}`;
}

/** A path as annotations need it: relative to the workspace (the working directory). */
function workspacePath(file: string): string {
  return path.relative(process.cwd(), path.resolve(file)).split(path.sep).join('/');
}

/** GitHub shows 10 warning (and 10 error) annotations a step and drops the rest silently (actions/toolkit docs/problem-matchers.md). */
export const WARNINGS_PER_STEP = 10;

/** What a reviewer must not miss first: a version or contract move, a lost guard, another cluster, then the rest. */
const ANNOTATION_ORDER: readonly Finding['type'][] = [
  'version',
  'contract',
  'deletion',
  'destination',
  'cluster-leaves',
  'image-content',
  'crd',
  'rbac',
];

function annotationRank(f: Finding): number {
  const i = ANNOTATION_ORDER.indexOf(f.type);
  return i < 0 ? ANNOTATION_ORDER.length : i;
}

/** Annotations of a list, titled `title: kind`; beyond what GitHub shows, the lowest rank first. */
interface Annotating<T> {
  level: 'warning' | 'error';
  title: string;
  rank(item: T): number;
  /** An item's kind: in its title, and what the rest are counted by. */
  kind(item: T): string;
  annotation(item: T): { file?: string; message: string };
  /** What the rest are, and where every one is listed. */
  rest: [what: string, listed: string];
}

/** One annotation an item, as many as GitHub shows: beyond that, the last says how many more there are. */
function annotations<T>(items: readonly T[], a: Annotating<T>): string[] {
  const ordered = items.length > WARNINGS_PER_STEP ? [...items].sort((x, y) => a.rank(x) - a.rank(y)) : items;
  const shown = ordered.length > WARNINGS_PER_STEP ? ordered.slice(0, WARNINGS_PER_STEP - 1) : ordered;
  const lines = shown.map((item) => {
    const { file, message } = a.annotation(item);
    return command(a.level, { file, title: `${a.title}: ${a.kind(item)}` }, message);
  });
  const rest = ordered.slice(shown.length);
  if (rest.length > 0) {
    const kinds = new Map<string, number>();
    for (const kind of rest.map(a.kind)) kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    const counts = [...kinds].map(([kind, n]) => `${n} ${kind}`).join(', ');
    const [what, listed] = a.rest;
    const shows = `GitHub shows ${WARNINGS_PER_STEP} ${a.level} annotations a step`;
    lines.push(
      command(
        a.level,
        { title: `${a.title}: ${rest.length} more` },
        `${rest.length} more ${what} not annotated (${shows}): ${counts}; ${listed}`,
      ),
    );
  }
  return lines;
}

/**
 * `::warning` for each risky finding, pointing at the object's file in `outputDir`. In a fleet it
 * names the clusters, as the call-outs do: a base's file says nothing of who gets the change.
 * Beyond what GitHub shows, the most telling come first and the last says how many more there are.
 */
export function reviewAnnotations(report: ReviewReport, outputDir: string | undefined): string[] {
  return annotations(
    report.findings.filter((f) => f.risk === 'warning'),
    {
      level: 'warning',
      title: 'capi-gitops',
      rank: annotationRank,
      kind: (f) => f.type,
      annotation: (f) => {
        const clusters = findingClusters(report, f);
        return {
          file: f.file && outputDir ? workspacePath(path.join(outputDir, f.file)) : undefined,
          message: clusters ? `${clusters}: ${f.message}` : f.message,
        };
      },
      rest: ['risky changes', "the step summary and the diff's output list every one"],
    },
  );
}

/** What render cannot fix alone (a hand edit, a file to remove by hand) is annotated first. */
function checkRank(p: CheckReport['problems'][number]): number {
  return p.removeByHand || p.status === 'edited' ? 0 : 1;
}

/** `::error` for each file `check` found out of date; beyond what GitHub shows, the last says how many more. */
export function checkAnnotations(report: CheckReport): string[] {
  return annotations(report.problems, {
    level: 'error',
    title: 'capi-gitops check',
    rank: checkRank,
    kind: (p) => p.status,
    annotation: (p) => ({ file: workspacePath(path.join(report.directory, p.path)), message: `${p.path}: ${p.reason}` }),
    rest: ['files out of date', 'the log above lists every one'],
  });
}

/** `::error file=…,line=…,col=…::` for each validation problem. */
export function diagnosticAnnotations(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((d) => {
    const text = [d.object, d.path, d.message].filter(Boolean).join(': ') + (d.hint ? ` (hint: ${d.hint})` : '');
    if (d.file && isFile(d.file))
      return command('error', { file: workspacePath(d.file), line: d.line, col: d.column, title: 'capi-gitops' }, text);
    // a file of the --base commit (`<ref>:<path>`) or a directory is no file GitHub can show: named in the message
    const where = d.file
      ? [displayPath(d.file), d.line, d.line === undefined ? undefined : d.column].filter((part) => part !== undefined).join(':')
      : '';
    return command('error', { title: 'capi-gitops' }, where ? `${where}: ${text}` : text);
  });
}

/** Whether a path is a file of the work tree (an annotation's file= must be one). */
function isFile(file: string): boolean {
  return statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
}

export function inGitHubActions(): boolean {
  return process.env.GITHUB_ACTIONS === 'true';
}

/** Appends `markdown` to the job summary when GITHUB_STEP_SUMMARY names a file. */
export async function appendStepSummary(markdown: string): Promise<boolean> {
  const file = process.env.GITHUB_STEP_SUMMARY;
  if (!file) return false;
  await appendFile(file, markdown.endsWith('\n') ? markdown : markdown + '\n');
  return true;
}
