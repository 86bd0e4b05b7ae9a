import path from 'node:path';
import { listVariables, renderManagementCluster, resolveManagementCluster, type RenderOptions, type Resolution } from '../pipeline.js';
import { planManagementCluster, updateManagementCluster } from '../upgrade.js';
import { renderUpgradePlanJson, renderUpgradePlanText } from '../resolve/upgrade-plan.js';
import { writeOutput } from '../emit/write.js';
import { writeLockfile } from '../lock/lockfile.js';
import { ArtifactCache, defaultCacheDir } from '../sources/cache.js';
import { UsageError } from './errors.js';
import { formatWarning } from '../model/diagnostics.js';
import { progressReporter, type ProgressReporter } from './progress.js';
import type { LayoutName } from '../emit/layout.js';
import { BUILT_IN_CHARTS_DIR } from '../chart/load.js';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import fg from 'fast-glob';

export interface SourceFlags {
  file?: string[];
  cacheDir?: string;
  offline?: boolean;
  githubApiUrl?: string;
  quiet?: boolean;
}

export interface RenderFlags extends SourceFlags {
  output?: string;
  frozen?: boolean;
  listVariables?: boolean;
  allowSecretValues?: boolean;
  layout?: LayoutName;
  values?: string[];
  set?: string[];
  setString?: string[];
}

const MASK = '********';

/** A path relative to the working directory when it lies below it, else absolute. */
function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : path.resolve(file);
}

function printer(flags: SourceFlags): (line: string) => void {
  return (line) => {
    if (!flags.quiet) process.stdout.write(line + '\n');
  };
}

/** Options for the pipeline from the shared flags, with a progress display on stderr. */
function renderOptions(flags: SourceFlags, progress: ProgressReporter, extra: Partial<RenderOptions> = {}): RenderOptions {
  if (!flags.file?.length) throw new UsageError('at least one -f/--file <file or directory> is needed');
  return {
    manifestPaths: flags.file,
    sources: {
      offline: flags.offline,
      cache: new ArtifactCache(flags.cacheDir ?? defaultCacheDir()),
      github: { apiUrl: flags.githubApiUrl },
      onProgress: (event) => progress.onProgress(event),
      log: (line) => progress.log(line),
    },
    // Printed as soon as found, so they are seen even when the run then fails.
    onWarning: (warning) => progress.log(formatWarning(warning)),
    ...extra,
  };
}

/** Runs `work` with a progress display that is cleared before anything else is printed. */
async function withProgress<T>(flags: SourceFlags, work: (progress: ProgressReporter) => Promise<T>): Promise<T> {
  const progress = await progressReporter({ quiet: flags.quiet });
  try {
    return await work(progress);
  } finally {
    progress.stop();
  }
}

function printResolution(resolution: Resolution, out: (line: string) => void): void {
  for (const p of resolution.providers) {
    const requested = p.requestedVersion && p.requestedVersion !== p.version ? ` (requested ${p.requestedVersion})` : '';
    out(`resolved ${p.label} ${p.version}${requested}, contract ${p.contract}, from ${p.repository.sourceType}`);
  }
  if (resolution.certManager) out(`resolved cert-manager ${resolution.certManager.version}`);
}

async function saveLock(resolution: Resolution, out: (line: string) => void): Promise<void> {
  const written = await writeLockfile(resolution.lockFile, resolution.lock.lock);
  const where = displayPath(resolution.lockFile);
  if (!written) return;
  out(`updated ${where}:`);
  for (const change of resolution.lock.changes) out(`  ${change.line}`);
}

/** A default as written in the artifact: `${V:=""}` shows `""`, not the JSON of its two quotes. */
function shownDefault(text: string): string {
  return /^(["'])[^"'\\]*\1$/.test(text) ? text : JSON.stringify(text);
}

export async function renderCommand(flags: RenderFlags): Promise<void> {
  const out = printer(flags);
  if (flags.listVariables) {
    const providers = await withProgress(flags, (progress) => listVariables(renderOptions(flags, progress)));
    for (const provider of providers) {
      process.stdout.write(`${provider.label} ${provider.version} (namespace ${provider.namespace})\n`);
      if (provider.variables.length === 0) process.stdout.write('  (no variables)\n');
      for (const v of provider.variables) {
        const value = v.value ? `${v.value.fromSecret ? MASK : JSON.stringify(v.value.value)} from ${v.value.origin}` : v.default !== undefined ? `default ${shownDefault(v.default)}` : 'MISSING';
        process.stdout.write(`  ${v.name} = ${value}${v.value && v.default !== undefined ? ` (default ${shownDefault(v.default)})` : ''}\n`);
      }
    }
    return;
  }
  const output = flags.output;
  if (!output) throw new UsageError('render needs -o/--output <dir> (or --list-variables)');
  const result = await withProgress(flags, (progress) =>
    renderManagementCluster(
      renderOptions(flags, progress, {
        allowSecretValues: flags.allowSecretValues,
        frozen: flags.frozen,
        layout: flags.layout,
        valuesFiles: flags.values,
        set: [...(flags.set ?? []).map((expression) => ({ expression, forceString: false })), ...(flags.setString ?? []).map((expression) => ({ expression, forceString: true }))],
        outputDir: path.resolve(output),
        command: regenerateCommand(flags),
      }),
    ),
  );
  printResolution(result, out);
  for (const w of result.warnings) process.stderr.write(`warning: ${w}\n`);
  const summary = await writeOutput(path.resolve(output), result.files);
  for (const w of summary.warnings) process.stderr.write(`warning: ${w}\n`);
  out(`wrote ${flags.output}: ${summary.written.length} written, ${summary.unchanged.length} unchanged, ${summary.removed.length} removed`);
  await saveLock(result, out);
}

/** A path as the README shows it: relative to the working directory, never absolute. */
function relativePath(file: string): string {
  return path.relative(process.cwd(), path.resolve(file)).split(path.sep).join('/') || '.';
}

/** The command that regenerates the output, for its README: relative paths only. */
function regenerateCommand(flags: RenderFlags): string {
  const quote = (word: string) => (/^[A-Za-z0-9_./:=@,+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
  const words = ['capi-gitops', 'render'];
  for (const f of flags.file ?? []) words.push('-f', relativePath(f));
  words.push('-o', relativePath(flags.output!));
  if (flags.layout) words.push('--layout', flags.layout);
  for (const v of flags.values ?? []) words.push('--values', relativePath(v));
  for (const v of flags.set ?? []) words.push('--set', v);
  for (const v of flags.setString ?? []) words.push('--set-string', v);
  return words.map(quote).join(' ');
}

/** `chart show <name>`: a built-in chart's files, printed or copied to start a chart of one's own. */
export async function chartShowCommand(name: string, flags: { outputDir?: string }): Promise<void> {
  const dir = path.join(BUILT_IN_CHARTS_DIR, name);
  const files = (await fg('**/*', { cwd: dir, onlyFiles: true, dot: false })).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (flags.outputDir) {
    const target = path.resolve(flags.outputDir);
    try {
      await mkdir(target, { recursive: false });
    } catch (err) {
      throw new UsageError(`cannot create ${flags.outputDir}: ${(err as NodeJS.ErrnoException).code === 'EEXIST' ? 'it exists' : (err as NodeJS.ErrnoException).code}; name a new directory`);
    }
    for (const file of files) {
      await mkdir(path.dirname(path.join(target, file)), { recursive: true });
      await copyFile(path.join(dir, file), path.join(target, file));
    }
    process.stdout.write(`wrote ${files.length} files of the built-in chart ${name} to ${flags.outputDir}; use it with gitops.chart: ${flags.outputDir} in the Config document\n`);
    return;
  }
  for (const file of files) {
    const text = await readFile(path.join(dir, file), 'utf8');
    process.stdout.write(`# Source: ${name}/${file}\n${text}${text.endsWith('\n') ? '' : '\n'}`);
  }
}

export async function lockCommand(flags: SourceFlags): Promise<void> {
  const out = printer(flags);
  const resolution = await withProgress(flags, (progress) => resolveManagementCluster(renderOptions(flags, progress)));
  printResolution(resolution, out);
  await saveLock(resolution, out);
  if (resolution.lock.changes.length === 0) out('the lockfile is up to date');
}

export async function planCommand(flags: SourceFlags & { json?: boolean }): Promise<void> {
  const { plan } = await withProgress(flags, (progress) => planManagementCluster(renderOptions(flags, progress)));
  process.stdout.write(flags.json ? renderUpgradePlanJson(plan) : renderUpgradePlanText(plan));
}

export async function updateCommand(providers: string[], flags: SourceFlags & { contract?: string }): Promise<void> {
  const out = printer(flags);
  const result = await withProgress(flags, (progress) => updateManagementCluster(renderOptions(flags, progress), { contract: flags.contract, providers }));
  for (const edit of result.edits) {
    const where = `${displayPath(edit.file)}:${edit.line}`;
    const what = `${edit.kind}/${edit.namespace}/${edit.name}`;
    if (edit.status === 'updated') out(`${where}: ${what} spec.version ${edit.oldVersion} → ${edit.newVersion}`);
    else if (edit.status === 'not-pinned') out(`${where}: ${what} has no exact spec.version; the lockfile moves to ${edit.newVersion}`);
    else if (edit.status === 'skipped') out(`${where}: ${what} not updated: ${edit.reason ?? 'edit it by hand'}`);
  }
  await saveLock(result.resolution, out);
  if (result.resolution.lock.changes.length === 0 && result.files.length === 0) out('everything is up to date');
}
