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

/**
 * `::warning` for each risky finding, pointing at the object's file in `outputDir`. In a fleet it
 * names the clusters, as the call-outs do: a base's file says nothing of who gets the change.
 * Beyond what GitHub shows, the most telling come first and the last says how many more there are.
 */
export function reviewAnnotations(report: ReviewReport, outputDir: string | undefined): string[] {
  const warnings = report.findings.filter((f) => f.risk === 'warning');
  const ordered = warnings.length > WARNINGS_PER_STEP ? [...warnings].sort((a, b) => annotationRank(a) - annotationRank(b)) : warnings;
  const shown = ordered.length > WARNINGS_PER_STEP ? ordered.slice(0, WARNINGS_PER_STEP - 1) : ordered;
  const lines = shown.map((f) => {
    const clusters = findingClusters(report, f);
    return command(
      'warning',
      { file: f.file && outputDir ? workspacePath(path.join(outputDir, f.file)) : undefined, title: `capi-gitops: ${f.type}` },
      clusters ? `${clusters}: ${f.message}` : f.message,
    );
  });
  const rest = ordered.slice(shown.length);
  if (rest.length > 0) {
    const types = new Map<string, number>();
    for (const f of rest) types.set(f.type, (types.get(f.type) ?? 0) + 1);
    const counts = [...types].map(([type, n]) => `${n} ${type}`).join(', ');
    lines.push(
      command(
        'warning',
        { title: `capi-gitops: ${rest.length} more` },
        `${rest.length} more risky changes not annotated (GitHub shows ${WARNINGS_PER_STEP} warning annotations a step): ${counts}; ` +
          "the step summary and the diff's output list every one",
      ),
    );
  }
  return lines;
}

/** What render cannot fix alone (a hand edit, a file to remove by hand) is annotated first. */
function checkRank(p: CheckReport['problems'][number]): number {
  return p.removeByHand || p.status === 'edited' ? 0 : 1;
}

/** `::error` for each file `check` found out of date; beyond what GitHub shows, the last says how many more. */
export function checkAnnotations(report: CheckReport): string[] {
  const problems =
    report.problems.length > WARNINGS_PER_STEP ? [...report.problems].sort((a, b) => checkRank(a) - checkRank(b)) : report.problems;
  const shown = problems.length > WARNINGS_PER_STEP ? problems.slice(0, WARNINGS_PER_STEP - 1) : problems;
  const lines = shown.map((p) =>
    command(
      'error',
      { file: workspacePath(path.join(report.directory, p.path)), title: `capi-gitops check: ${p.status}` },
      `${p.path}: ${p.reason}`,
    ),
  );
  const rest = problems.slice(shown.length);
  if (rest.length > 0) {
    const statuses = new Map<string, number>();
    for (const p of rest) statuses.set(p.status, (statuses.get(p.status) ?? 0) + 1);
    const counts = [...statuses].map(([status, n]) => `${n} ${status}`).join(', ');
    lines.push(
      command(
        'error',
        { title: `capi-gitops check: ${rest.length} more` },
        `${rest.length} more files out of date not annotated (GitHub shows ${WARNINGS_PER_STEP} error annotations a step): ${counts}; the log above lists every one`,
      ),
    );
  }
  return lines;
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
