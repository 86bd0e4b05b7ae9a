/**
 * `check` (also `render --check`) and `diff`: the pull-request workflow. Both render in memory
 * and never write the output directory or the lockfile.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  appendStepSummary,
  checkAnnotations,
  formatMarkdown,
  formatText,
  inGitHubActions,
  pathFlags,
  reviewAnnotations,
  withoutPathFlags,
  type CheckReport,
} from '../review/index.js';
import { check } from '../app/check.js';
import { diff, type DiffRequest } from '../app/diff.js';
import type { SecretNotGiven } from '../app/types.js';
import type { ProgressReporter } from './progress.js';
import {
  readmeCommand,
  renderFlagsOptions,
  runSourceWords,
  suggestedRenderCommand,
  withProgress,
  workTreeRoot,
  type RenderFlags,
} from './commands.js';
import { ExitStatus, UsageError } from './errors.js';
import { shellWord } from '../core/shell.js';
import { redactStrings, safeText } from '../core/redact.js';
import { CapiGitopsError } from '../core/diagnostics.js';
import { FROZEN_HINT } from '../resolve/lock/diff.js';

import type { DiffFormat } from '../review/types.js';
import { streams } from './output.js';

interface CheckFlags extends RenderFlags {
  json?: boolean;
}

interface DiffFlags extends RenderFlags {
  base?: string;
  from?: string;
  to?: string;
  format?: DiffFormat;
  /** helm-diff's `--detailed-exitcode`: exit 2 when an object changed. */
  detailedExitcode?: boolean;
}

function checkJson(report: CheckReport, output: string, secretsNotGiven: readonly SecretNotGiven[]): string {
  return (
    JSON.stringify(
      {
        schemaVersion: 1,
        directory: output,
        upToDate: report.problems.length === 0,
        unchanged: report.unchanged,
        problems: report.problems,
        ...(report.renderedWith ? { renderedWith: report.renderedWith } : {}),
        ...(secretsNotGiven.length > 0 ? { secretsNotGiven } : {}),
      },
      null,
      2,
    ) + '\n'
  );
}

/**
 * check implies --frozen: a lockfile that no longer answers the manifest is brought up to date
 * with the output by one render; `lock`, which the hint names elsewhere, would leave the output stale.
 * A fleet's lockfile is every cluster's: a render of the clusters this check chose (`--cluster`)
 * would move it for all and rewrite theirs alone, leaving the others stale; so the whole fleet's.
 */
function renderForStaleLock(err: unknown, flags: CheckFlags): unknown {
  if (!(err instanceof CapiGitopsError) || !err.diagnostics.some((d) => d.hint === FROZEN_HINT)) return err;
  const whole = flags.cluster?.length ? " (the whole fleet: its lockfile is every cluster's)" : '';
  const render = suggestedRenderCommand({ ...flags, cluster: undefined });
  const hint = `run \`${render}\`, which updates the lockfile and the output together${whole}, review the change and commit both`;
  return new CapiGitopsError(err.diagnostics.map((d) => (d.hint === FROZEN_HINT ? { ...d, hint } : d)));
}

export async function checkCommand(flags: CheckFlags): Promise<void> {
  // as every printed line is (cli/output.ts): a --set URL's credentials, accepted into Git, stay out of the log
  const printed = (text: string) => streams.stdout.write(safeText(text));
  if (!flags.output) throw new UsageError('check needs -o/--output <dir>: the committed output directory to compare with');
  const output = flags.output;
  const { warnings, report, secretsNotGiven } = await withProgress(flags, (progress) =>
    check(renderFlagsOptions(flags, progress), output),
  ).catch((err: unknown) => {
    throw renderForStaleLock(err, flags);
  });
  for (const w of warnings) streams.stderr.write(safeText(`warning: ${w}`) + '\n');
  // render needs every configSecret this check went without: the command names each one's file
  const secretFiles = secretsNotGiven.map((s) => secretFilePlaceholder(s.secret));
  const fix = suggestedRenderCommand(withRecordedSecretSources(flags, report.recordedSecretSources), secretFiles);
  if (flags.json) streams.stdout.write(checkJson(redactStrings(report), output, secretsNotGiven));
  else if (report.problems.length === 0) {
    if (!flags.quiet) printed(`${output} is up to date: ${report.unchanged} files match what the manifest renders\n`);
  } else if (!existsSync(report.directory)) {
    // a new output, or a mistyped -o: one line, not every file the render would write
    printed(`${output} does not exist (render writes ${report.problems.length} files there); check the -o path, or run: ${fix}\n`);
  } else {
    const width = Math.max(...report.problems.map((p) => p.status.length));
    // paths relative to the output directory, as in --json and diff: one rule
    printed(`${output} is not what the manifest renders (paths below it):\n`);
    for (const p of report.problems) printed(`  ${p.status.padEnd(width)}  ${p.path}: ${p.reason}\n`);
    const byHand = report.problems.filter((p) => p.removeByHand).map((p) => p.path);
    const count = `${report.problems.length} file${report.problems.length === 1 ? '' : 's'} out of date`;
    // render never removes a file it did not write: the command alone would not fix those
    const first = byHand.length > 0 ? `remove ${byHand.map((p) => shellWord(path.join(output, p))).join(' ')}, then ` : '';
    if (report.renderedWith === undefined) printed(`${count}; to regenerate, ${first}run: ${fix}\n`);
    else {
      // the output is another render's (another layout, other values): the fix above would replace it
      printed(
        `${count}; the output's README.md records that it was written by: ${report.renderedWith}\n` +
          `  to check it against that render, run: ${[checkWithFlagsOf(report.renderedWith, fix), ...runSourceWords(flags)].join(' ')}\n` +
          `  to regenerate it with this check's flags instead, ${first}run: ${fix}\n`,
      );
    }
  }
  if (report.problems.length > 0 && !flags.json) for (const line of notGivenLines(flags, secretsNotGiven)) printed(line);
  if (report.problems.length > 0) {
    if (inGitHubActions()) for (const line of checkAnnotations(report)) streams.stderr.write(line + '\n');
    throw new ExitStatus(1);
  }
}

/**
 * A check in CI has no secret sources; the render it prints takes those the README records
 * (render needs them), with their paths from the README's base (the Git work tree's root).
 */
function withRecordedSecretSources(flags: CheckFlags, recorded: CheckReport['recordedSecretSources']): CheckFlags {
  if (!recorded || (flags.secretFile?.length ?? 0) + (flags.envSecret?.length ?? 0) > 0) return flags;
  const base = workTreeRoot(path.resolve(flags.output!)) ?? process.cwd();
  return { ...flags, secretFile: recorded.secretFile.map((f) => path.resolve(base, f)), envSecret: recorded.envSecret };
}

/** Where a command needs the file of a Secret this run was not given (only the user knows its path). */
function secretFilePlaceholder(secret: string): string {
  return `<file-holding-Secret-${secret}>`;
}

/**
 * What check says of each configSecret it rendered without: which Secret, where the manifest names
 * it, what to put in place of its placeholder, and (a public key it may hold took its default here)
 * the check to run with it.
 */
function notGivenLines(flags: CheckFlags, secretsNotGiven: readonly SecretNotGiven[]): string[] {
  return secretsNotGiven.map((s) => {
    const at = s.file === undefined ? '' : `${s.file}${s.line === undefined ? '' : `:${s.line}:${s.column ?? 1}`}, `;
    const placeholder = secretFilePlaceholder(s.secret);
    const needed =
      `  this check was not given Secret ${s.secret} (${at}spec.configSecret of ${s.objects.join(', ')}), which render needs: ` +
      `in place of ${placeholder}, put the path of the file that holds it (kept out of Git)\n`;
    if (s.publicKeys.length === 0) return needed;
    const check = suggestedRenderCommand(flags, [placeholder]).replace(/^capi-gitops render /, 'capi-gitops check ');
    return (
      needed +
      `  it may hold ${s.publicKeys.join(', ')}, declared public (Config.secrets.public) and given by no other input: ` +
      'this check took their defaults (a placeholder for one without), so the files above may differ by that alone; ' +
      `to compare with the Secret, run: ${check}; or move such keys from the Secret to Config.variables\n`
    );
  });
}

/**
 * A Secret diff rendered without whose public keys took their defaults: the changes shown may be
 * that alone (as check tells), with the diff to run with the Secret's file.
 */
function defaultedPublicKeys(flags: DiffFlags, secretsNotGiven: readonly SecretNotGiven[]): string[] {
  return secretsNotGiven
    .filter((s) => s.publicKeys.length > 0)
    .map((s) => {
      const placeholder = secretFilePlaceholder(s.secret);
      const rerun = fullDiffCommand(flags, [placeholder]).replace(/ --format text$/, '');
      return (
        `warning: this diff was not given Secret ${s.secret} (spec.configSecret of ${s.objects.join(', ')}), which may hold ` +
        `${s.publicKeys.join(', ')}, declared public: the render took their defaults (a placeholder for one without), so the changes shown may be that alone\n` +
        `  hint: run ${rerun}, with the path of the file that holds the Secret in place of ${placeholder}\n`
      );
    });
}

/** `check` with this run's -f and -o (paths from here) and the other flags of the recorded render. */
function checkWithFlagsOf(recorded: string, fix: string): string {
  return `capi-gitops check${pathFlags(fix).join('')}${withoutPathFlags(recorded.replace(/^capi-gitops render/, ''))}`;
}

/** The command that prints the whole diff, for the note when markdown is cut. */
export function fullDiffCommand(flags: DiffFlags, placeholders: string[] = []): string {
  // each word as the shell reads it back: the render's words are quoted already
  const words = ['capi-gitops', 'diff'];
  if (flags.from !== undefined) words.push('--from', shellWord(flags.from), '--to', shellWord(flags.to ?? ''));
  else {
    words.push(suggestedRenderCommand(flags, placeholders).replace(/^capi-gitops render /, ''));
    if (flags.base) words.push('--base', shellWord(flags.base));
  }
  return [...words, '--format', 'text'].join(' ');
}

/** The sides to compare, from the flags; a render's options come with the progress display. */
function diffRequest(flags: DiffFlags): DiffRequest | ((progress: ProgressReporter) => DiffRequest) {
  // an empty variable (`--base "$BASE"`) would otherwise diff against no base, which reads like a clean diff
  if (flags.base !== undefined && flags.base.trim() === '')
    throw new UsageError(`--base ${JSON.stringify(flags.base)}: expected a branch, tag or commit, e.g. --base origin/main`);
  if (flags.from !== undefined || flags.to !== undefined) {
    if (flags.from === undefined || flags.to === undefined)
      throw new UsageError('--from and --to go together: diff --from <dir> --to <dir>');
    if (flags.base)
      throw new UsageError('--base compares renders of a manifest; --from/--to compare two directories: use one or the other');
    const ignored = flags.file !== undefined ? '-f' : flags.output !== undefined ? '-o' : undefined;
    if (ignored)
      throw new UsageError(
        `--from/--to compare two directories and render nothing: drop ${ignored}, or drop --from/--to to compare a render of -f with -o`,
      );
    return { from: flags.from, to: flags.to };
  }
  if (!flags.output) throw new UsageError('diff needs -o/--output <dir> (the committed output directory), or --from <dir> --to <dir>');
  const output = flags.output;
  return (progress) => ({
    output,
    current: renderFlagsOptions(flags, progress, { frozen: flags.frozen }),
    ...(flags.base
      ? {
          base: {
            revision: flags.base,
            manifestPaths: flags.file ?? [],
            options: (file: string[]) => renderFlagsOptions({ ...flags, file }, progress, { frozen: false, command: readmeCommand(flags) }),
          },
        }
      : {}),
  });
}

export async function diffCommand(flags: DiffFlags): Promise<void> {
  const format = flags.format ?? 'text';
  const request = diffRequest(flags);
  const { report, warnings, secretsNotGiven } = await (typeof request === 'function'
    ? withProgress(flags, (progress) => diff(request(progress)))
    : diff(request));
  for (const w of warnings) streams.stderr.write(safeText(`warning: ${w}`) + '\n');
  for (const line of defaultedPublicKeys(flags, secretsNotGiven)) streams.stderr.write(safeText(line));
  // the report is redacted (app/diff.ts); the command in the note is this run's, --set values included
  const markdown = () => safeText(formatMarkdown(report, { fullCommand: fullDiffCommand(flags) }));
  if (format === 'json') streams.stdout.write(JSON.stringify(report, null, 2) + '\n');
  else if (format === 'markdown') streams.stdout.write(markdown());
  else streams.stdout.write(formatText(report, { colour: streams.stdout.isTTY === true && !process.env.NO_COLOR }));
  if (inGitHubActions()) for (const line of reviewAnnotations(report, flags.output ?? flags.to)) streams.stderr.write(line + '\n');
  await appendStepSummary(markdown());
  if (flags.detailedExitcode && report.components.length > 0) throw new ExitStatus(2);
}
