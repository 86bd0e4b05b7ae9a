import path from 'node:path';
import { listVariables, renderManagementCluster, resolveManagementCluster, type RenderOptions, type Resolution } from '../pipeline.js';
import { planManagementCluster, updateManagementCluster } from '../upgrade.js';
import { renderUpgradePlanText } from '../resolve/upgrade-plan.js';
import { writeOutput } from '../emit/write.js';
import { writeLockfile } from '../lock/lockfile.js';
import { ArtifactCache, defaultCacheDir } from '../sources/cache.js';
import { UsageError } from './errors.js';
import { Output, type OutputFlags } from './output.js';
import { completeSuggestions } from './hints.js';
import { shellWord } from './shell.js';
import { versionInfo } from './version.js';
import { completionScript, type Shell } from './completion.js';
import { objectChanges, type ObjectChange } from '../emit/object-changes.js';
import type { Command } from 'commander';
import { progressReporter, type ProgressReporter } from './progress.js';
import type { LayoutName } from '../emit/layout.js';
import { builtInChartFiles, type BUILT_IN_CHARTS } from '../chart/load.js';
import { mkdir, writeFile } from 'node:fs/promises';

export interface SourceFlags extends OutputFlags {
  file?: string[];
  cacheDir?: string;
  offline?: boolean;
  githubApiUrl?: string;
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

function printResolution(resolution: Resolution, out: Output): void {
  for (const p of resolution.providers) {
    const requested = p.requestedVersion && p.requestedVersion !== p.version ? ` (requested ${p.requestedVersion})` : '';
    out.line(`resolved ${p.label} ${p.version}${requested}, contract ${p.contract}, from ${p.repository.sourceType}`);
    out.detail(`  ${p.label}: ${p.repository.location}`);
  }
  if (resolution.certManager) {
    out.line(`resolved cert-manager ${resolution.certManager.version}`);
    out.detail(`  cert-manager: ${resolution.certManager.repository.location}`);
  }
}

/** The resolution as the --json documents of render, lock and update report it. */
function resolutionJson(resolution: Resolution): Record<string, unknown> {
  return {
    providers: resolution.providers.map((p) => ({ kind: p.kind, namespace: p.namespace, name: p.name, label: p.label, requestedVersion: p.requestedVersion, version: p.version, contract: p.contract, source: p.repository.sourceType })),
    certManager: resolution.certManager ? { version: resolution.certManager.version, source: resolution.certManager.repository.sourceType } : null,
  };
}

/** Writes the lockfile if it changed; what changed, for the report. */
async function saveLock(resolution: Resolution, out: Output): Promise<Record<string, unknown>> {
  const written = await writeLockfile(resolution.lockFile, resolution.lock.lock);
  const where = displayPath(resolution.lockFile);
  const changes = written ? resolution.lock.changes : [];
  if (written) {
    out.line(`updated ${where}:`);
    for (const change of changes) out.line(`  ${change.line}`);
  }
  return { path: where, updated: written, changes: changes.map(({ line: _line, ...change }) => change) };
}

const CHANGE_MARK: Record<ObjectChange['change'], string> = { added: '+', changed: '~', removed: '-' };

export async function renderCommand(flags: RenderFlags): Promise<void> {
  const out = new Output(flags);
  if (flags.listVariables) {
    const providers = await withProgress(flags, (progress) => listVariables(renderOptions(flags, progress)));
    if (out.json) {
      const variable = ({ name, default: fallback, value }: (typeof providers)[number]['variables'][number]) => ({
        name,
        ...(fallback !== undefined ? { default: fallback } : {}),
        ...(value ? { value: value.fromSecret ? MASK : value.value, origin: value.origin, fromSecret: value.fromSecret } : { missing: fallback === undefined }),
      });
      out.document('render', { variables: providers.map((p) => ({ label: p.label, version: p.version, namespace: p.namespace, variables: p.variables.map(variable) })) });
      return;
    }
    for (const provider of providers) {
      process.stdout.write(`${provider.label} ${provider.version} (namespace ${provider.namespace})\n`);
      if (provider.variables.length === 0) process.stdout.write('  (no variables)\n');
      for (const v of provider.variables) {
        const value = v.value ? `${v.value.fromSecret ? MASK : JSON.stringify(v.value.value)} from ${v.value.origin}` : v.default !== undefined ? `default ${JSON.stringify(v.default)}` : 'MISSING';
        process.stdout.write(`  ${v.name} = ${value}${v.value && v.default !== undefined ? ` (default ${JSON.stringify(v.default)})` : ''}\n`);
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
  for (const w of result.warnings) out.warn(w);
  const summary = await writeOutput(path.resolve(output), result.files);
  for (const w of summary.warnings) out.warn(w);
  const changed = summary.written.filter((file) => summary.previous.has(file));
  const objects = objectChanges(summary, result.files);
  out.line(`wrote ${output}: ${summary.written.length} written, ${summary.unchanged.length} unchanged, ${summary.removed.length} removed`);
  for (const file of summary.written) out.detail(`  ${summary.previous.has(file) ? 'changed' : 'created'} ${file}`);
  for (const file of summary.removed) out.detail(`  removed ${file}`);
  if (objects.length > 0) {
    const counts = (['added', 'changed', 'removed'] as const).map((change) => `${objects.filter((o) => o.change === change).length} ${change}`);
    out.line(`objects: ${counts.join(', ')}`);
    for (const o of objects) out.line(`  ${[CHANGE_MARK[o.change], o.kind, [o.namespace, o.name].filter(Boolean).join('/')].filter(Boolean).join(' ')} (${o.file})`);
  }
  const lockfile = await saveLock(result, out);
  if (out.json) {
    out.document('render', {
      output: displayPath(path.resolve(output)),
      layout: result.layout,
      ...resolutionJson(result),
      files: { written: summary.written, changed, removed: summary.removed, unchanged: summary.unchanged.length },
      objects,
      lockfile,
      warnings: [...result.warnings, ...summary.warnings],
    });
  }
}

/** A path as the README shows it: relative to the working directory, never absolute. */
function relativePath(file: string): string {
  return path.relative(process.cwd(), path.resolve(file)).split(path.sep).join('/') || '.';
}

/** The command that regenerates the output, for its README: relative paths only. */
function regenerateCommand(flags: RenderFlags): string {
  const words = ['capi-gitops', 'render'];
  for (const f of flags.file ?? []) words.push('-f', relativePath(f));
  words.push('-o', relativePath(flags.output!));
  if (flags.layout) words.push('--layout', flags.layout);
  for (const v of flags.values ?? []) words.push('--values', relativePath(v));
  for (const v of flags.set ?? []) words.push('--set', v);
  for (const v of flags.setString ?? []) words.push('--set-string', v);
  return words.map(shellWord).join(' ');
}

/** `chart show <name>`: a built-in chart's files, printed or copied to start a chart of one's own. */
export async function chartShowCommand(name: (typeof BUILT_IN_CHARTS)[number], flags: { outputDir?: string }): Promise<void> {
  const files = await builtInChartFiles(name);
  if (flags.outputDir) {
    const target = path.resolve(flags.outputDir);
    try {
      await mkdir(target, { recursive: false });
    } catch (err) {
      throw new UsageError(`cannot create ${flags.outputDir}: ${(err as NodeJS.ErrnoException).code === 'EEXIST' ? 'it exists' : (err as NodeJS.ErrnoException).code}; name a new directory`);
    }
    for (const [file, text] of files) {
      await mkdir(path.dirname(path.join(target, file)), { recursive: true });
      await writeFile(path.join(target, file), text);
    }
    process.stdout.write(`wrote ${files.length} files of the built-in chart ${name} to ${flags.outputDir}; use it with gitops.chart: ${flags.outputDir} in the Config document\n`);
    return;
  }
  for (const [file, text] of files) process.stdout.write(`# Source: ${name}/${file}\n${text}${text.endsWith('\n') ? '' : '\n'}`);
}

export async function lockCommand(flags: SourceFlags): Promise<void> {
  const out = new Output(flags);
  const resolution = await withProgress(flags, (progress) => resolveManagementCluster(renderOptions(flags, progress)));
  printResolution(resolution, out);
  const lockfile = await saveLock(resolution, out);
  if (resolution.lock.changes.length === 0) out.line('the lockfile is up to date');
  if (out.json) out.document('lock', { ...resolutionJson(resolution), lockfile });
}

export async function planCommand(flags: SourceFlags): Promise<void> {
  const out = new Output(flags);
  const { plan } = await withProgress(flags, (progress) => planManagementCluster(renderOptions(flags, progress)));
  if (out.json) out.document('plan', { ...plan });
  // The plan suggests `capi-gitops update …`: complete it so it runs as printed.
  else if (!flags.quiet) process.stdout.write(completeSuggestions(renderUpgradePlanText(plan), flags));
}

export async function updateCommand(providers: string[], flags: SourceFlags & { contract?: string }): Promise<void> {
  const out = new Output(flags);
  const result = await withProgress(flags, (progress) => updateManagementCluster(renderOptions(flags, progress), { contract: flags.contract, providers }));
  for (const edit of result.edits) {
    const where = `${displayPath(edit.file)}:${edit.line}`;
    const what = `${edit.kind}/${edit.namespace}/${edit.name}`;
    if (edit.status === 'updated') out.line(`${where}: ${what} spec.version ${edit.oldVersion} → ${edit.newVersion}`);
    else if (edit.status === 'not-pinned') out.line(`${where}: ${what} has no exact spec.version; the lockfile moves to ${edit.newVersion}`);
    else if (edit.status === 'skipped') out.line(`${where}: ${what} not updated: ${edit.reason ?? 'edit it by hand'}`);
  }
  const lockfile = await saveLock(result.resolution, out);
  if (result.resolution.lock.changes.length === 0 && result.files.length === 0) out.line('everything is up to date');
  if (out.json) {
    const edits = result.edits.map((edit) => ({ ...edit, file: displayPath(edit.file) }));
    out.document('update', { ...resolutionJson(result.resolution), edits, manifestFiles: result.files.map(displayPath), lockfile });
  }
}

export function versionCommand(flags: OutputFlags): void {
  const info = versionInfo();
  if (flags.json) new Output(flags).document('version', info);
  else process.stdout.write(`capi-gitops ${info.version}\nnode ${info.node}\nplatform ${info.platform}\n`);
}

export function completionCommand(program: Command, shell: Shell): void {
  process.stdout.write(completionScript(program, shell));
}
