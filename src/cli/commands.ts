import path from 'node:path';
import type { RenderOptions, Resolution } from '../app/cluster.js';
import { lock } from '../app/lock.js';
import { render, renderVariables } from '../app/render.js';
import { ArtifactCache, defaultCacheDir } from '../sources/cache.js';
import { UsageError } from './errors.js';
import { clusterRanges } from '../core/cluster-ranges.js';
import type { LockChange } from '../resolve/lock/diff.js';
import { Output, streams, type OutputFlags } from './output.js';
import { CREDENTIAL_ENV_VARIABLES, MASK, registerSecretForms, safeText } from '../core/redact.js';
import { credentialEnvironmentProblems } from '../sources/credentials.js';
import { DEFAULT_NETWORK_DEADLINE_SECONDS, NetworkDeadline } from '../sources/base/deadline.js';
import { refuseYamlLimitVariables } from './yaml-limits.js';
import { shellWord } from '../core/shell.js';
import { isDns1123Label } from '../core/names.js';
import { versionInfo, versionText } from './version.js';
import { completionScript, type Shell } from './completion.js';
import { reportWrite } from './render-report.js';
import { completeSuggestions } from './hints.js';
import type { Command } from 'commander';
import { compareStrings, displayPath, formatWarning } from '../core/diagnostics.js';
import { progressReporter, type ProgressReporter } from './progress.js';
import type { LayoutName } from '../layout/index.js';
import type { FleetLayoutName } from '../manifest/types.js';
import type { SecretStrategy } from '../manifest/types.js';
import { githubMasks, type SecretNeedles } from '../secrets/index.js';
import { chartFiles, configFileFor, copyChart, type BuiltInChart } from '../app/chart.js';
import { existsSync, readFileSync } from 'node:fs';
import { README_FILE } from '../layout/index.js';
import { recordedSourceWords } from '../review/check.js';
import { holdsOnlySecrets } from '../review/secret-only-files.js';
import { setExpressions, setFlagWords, type SetFlags } from './set-flags.js';
import { lockedFilePath } from '../resolve/lock/build.js';

export interface SourceFlags extends OutputFlags {
  file?: string[];
  namespace?: string;
  cacheDir?: string;
  offline?: boolean;
  githubApiUrl?: string;
  httpTimeout?: string;
  networkDeadline?: string;
}

export interface RenderFlags extends SourceFlags, SetFlags {
  output?: string;
  frozen?: boolean;
  listVariables?: boolean;
  allowSecretValues?: boolean;
  secrets?: SecretStrategy;
  secretFile?: string[];
  envSecret?: string[];
  layout?: LayoutName;
  /** `--pin-images` */
  pinImages?: boolean;
  /** `--fleet-layout`. */
  fleetLayout?: FleetLayoutName;
  values?: string[];
  /** `--cluster`: a fleet's clusters to render (all when none). */
  cluster?: string[];
  /** `render --check`: compare instead of writing. */
  check?: boolean;
}

/** A time flag (or environment variable) in ms: a positive number of seconds, at most a day. */
function secondsFlagMs(value: string, flag: string): number {
  const seconds = Number(value);
  // a variable's example is an assignment, so it can be pasted into a shell
  const example = flag.startsWith('--') ? `${flag} 30` : `${flag}=30`;
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(seconds > 0) || seconds > 86_400)
    throw new UsageError(
      `${flag} ${JSON.stringify(value)}: expected a number of seconds greater than 0 and at most 86400, e.g. ${example}`,
    );
  return Math.round(seconds * 1000);
}

/** The run's network budget: `--network-deadline`, else CAPI_GITOPS_NETWORK_DEADLINE, else the default. */
function networkDeadline(flag: string | undefined): NetworkDeadline {
  if (flag !== undefined) return new NetworkDeadline(secondsFlagMs(flag, '--network-deadline'));
  const env = process.env.CAPI_GITOPS_NETWORK_DEADLINE;
  if (env !== undefined && env.trim() !== '')
    return new NetworkDeadline(secondsFlagMs(env, 'CAPI_GITOPS_NETWORK_DEADLINE'), 'CAPI_GITOPS_NETWORK_DEADLINE');
  return new NetworkDeadline(DEFAULT_NETWORK_DEADLINE_SECONDS * 1000);
}

/** Options for the pipeline from the shared flags, with a progress display on stderr. */
export function renderOptions(flags: SourceFlags, progress: ProgressReporter, extra: Partial<RenderOptions> = {}): RenderOptions {
  if (!flags.file?.length) throw new UsageError('at least one -f/--file <file or directory> is needed');
  const credentialProblems = credentialEnvironmentProblems(process.env, CREDENTIAL_ENV_VARIABLES);
  if (credentialProblems.length > 0) throw new UsageError(credentialProblems.join('\n'));
  refuseYamlLimitVariables(process.env);
  // An empty path resolves to the working directory, which would fill it with cache entries.
  if (flags.cacheDir?.trim() === '') throw new UsageError('--cache-dir "": expected a directory, e.g. --cache-dir .cache/capi-gitops');
  if (flags.namespace !== undefined && !isDns1123Label(flags.namespace))
    throw new UsageError(
      `--namespace ${JSON.stringify(flags.namespace)}: expected a namespace name (lowercase letters, digits and "-", at most 63), e.g. --namespace capi-system`,
    );
  const logged = new Set<string>();
  return {
    manifestPaths: flags.file,
    ...(flags.namespace === undefined ? {} : { namespace: flags.namespace }),
    sources: {
      offline: flags.offline,
      cache: new ArtifactCache(flags.cacheDir ?? defaultCacheDir(), { log: (line) => progress.warn(`warning: ${line}`) }),
      github: { apiUrl: flags.githubApiUrl },
      // No `timeoutMs` key without the flag: Config network.timeoutSeconds fills it.
      http: {
        runDeadline: networkDeadline(flags.networkDeadline),
        ...(flags.httpTimeout === undefined ? {} : { timeoutMs: secondsFlagMs(flags.httpTimeout, '--http-timeout') }),
      },
      onProgress: (event) => progress.onProgress(event),
      // Each line says what a host or registry asked for: told once, however many repositories meet it.
      log: (line) => {
        if (logged.has(line)) return;
        logged.add(line);
        progress.log(line);
      },
      warn: (line) => {
        if (logged.has(line)) return;
        logged.add(line);
        progress.warn(`warning: ${line}`);
      },
    },
    // Printed as soon as found, so they are seen even when the run then fails.
    onWarning: (warning) =>
      progress.warn(formatWarning(warning.hint ? { ...warning, hint: completeSuggestions(warning.hint, flags) } : warning)),
    ...extra,
  };
}

/** Runs `work` with a progress display that is cleared before anything else is printed. */
export async function withProgress<T>(flags: SourceFlags, work: (progress: ProgressReporter) => Promise<T>): Promise<T> {
  const progress = await progressReporter({ quiet: flags.quiet, offline: flags.offline });
  try {
    return await work(progress);
  } finally {
    progress.stop();
  }
}

function printResolution(resolution: Resolution, out: Pick<Output, 'line' | 'detail'>, indent = ''): void {
  for (const p of resolution.providers) {
    const requested = p.requestedVersion && p.requestedVersion !== p.version ? ` (requested ${p.requestedVersion})` : '';
    out.line(`${indent}resolved ${p.label} ${p.version}${requested}, contract ${p.contract}, from ${p.repository.sourceType}`);
    // latest passed newer releases over: said, as the lockfile diff alone would not say why
    if (p.skippedReleases)
      out.line(
        `${indent}  ${p.label}: ${p.skippedReleases.join(', ')} skipped: ${p.skippedReleases.length === 1 ? 'it publishes' : 'they publish'} no metadata.yaml (clusterctl skips such releases too)`,
      );
    out.detail(`${indent}  ${p.label}: ${p.repository.location}`);
  }
  for (const c of [resolution.certManager, resolution.operator]) {
    if (!c) continue;
    out.line(`${indent}resolved ${c.label} ${c.version}`);
    out.detail(`${indent}  ${c.label}: ${c.repository.location}`);
  }
}

/**
 * A fleet's clusters and what each resolved, clusters that resolved alike told once
 * (`clusters c000–c099`): a 100-cluster render, or a --cluster render of one, is not 500 lines.
 */
function printClusters(
  clusters: readonly { name: string; release?: string; rendered: boolean; resolution: Resolution }[],
  out: Output,
): void {
  const alike = new Map<string, { names: string[]; release?: string; rendered: boolean; lines: [boolean, string][] }>();
  for (const c of clusters) {
    const lines: [boolean, string][] = [];
    printResolution(c.resolution, { line: (t) => lines.push([false, t]), detail: (t) => lines.push([true, t]) }, '  ');
    const key = JSON.stringify([c.release ?? null, c.rendered, lines]);
    const group = alike.get(key) ?? { names: [], release: c.release, rendered: c.rendered, lines };
    group.names.push(c.name);
    alike.set(key, group);
  }
  for (const { names, release, rendered, lines } of alike.values()) {
    const many = names.length > 1;
    const kept = rendered ? '' : `: not rendered (--cluster), ${many ? 'their' : 'its'} files are kept`;
    out.line(`${many ? 'clusters' : 'cluster'} ${clusterRanges(names)}${release ? ` (release ${release})` : ''}${kept}`);
    for (const [detail, text] of lines) {
      if (detail) out.detail(text);
      else out.line(text);
    }
  }
}

/** The resolution as the --json documents of render, lock and update report it. */
export function resolutionJson(resolution: Resolution): Record<string, unknown> {
  return {
    providers: resolution.providers.map((p) => ({
      kind: p.kind,
      namespace: p.namespace,
      name: p.name,
      label: p.label,
      requestedVersion: p.requestedVersion,
      version: p.version,
      contract: p.contract,
      source: p.repository.sourceType,
      ...(p.skippedReleases && { skippedReleases: p.skippedReleases }),
    })),
    certManager: resolution.certManager
      ? { version: resolution.certManager.version, source: resolution.certManager.repository.sourceType }
      : null,
  };
}

/** A fleet's change several clusters make alike, told once naming them, as their resolutions are. */
function changeLines(changes: readonly LockChange[]): string[] {
  const clustersByText = new Map<string, string[]>();
  for (const { cluster, line } of changes) {
    const text = cluster === undefined ? line : line.slice(cluster.length + ': '.length);
    const clusters = clustersByText.get(text) ?? [];
    if (cluster !== undefined) clusters.push(cluster);
    clustersByText.set(text, clusters);
  }
  return [...clustersByText].map(([text, names]) =>
    names.length === 0 ? text : names.length === 1 ? `cluster ${names[0]}: ${text}` : `clusters ${clusterRanges(names)}: ${text}`,
  );
}

/** What the lockfile change was, for the report; printed when it was written. */
export function lockReport(resolution: Pick<Resolution, 'lockFile' | 'lock'>, written: boolean, out: Output): Record<string, unknown> {
  const where = displayPath(resolution.lockFile);
  const changes = written ? resolution.lock.changes : [];
  if (written) {
    out.line(`updated ${where}:`);
    for (const line of changeLines(changes)) out.line(`  ${line}`);
  }
  return { path: where, updated: written, changes: changes.map(({ line: _line, ...change }) => change) };
}

/** A default as written in the artifact: `${V:=""}` shows `""`, not the JSON of its two quotes. */
function shownDefault(text: string): string {
  return /^(["'])[^"'\\]*\1$/.test(text) ? text : JSON.stringify(text);
}

export async function renderCommand(flags: RenderFlags): Promise<void> {
  const out = new Output(flags);
  if (flags.listVariables) {
    const providers = await withProgress(flags, (progress) => renderVariables(renderOptions(flags, progress, secretOptions(flags))));
    if (out.json) {
      const variable = ({ name, default: fallback, value }: (typeof providers)[number]['variables'][number]) => ({
        name,
        ...(fallback !== undefined ? { default: fallback } : {}),
        ...(value
          ? { value: value.fromSecret ? MASK : value.value, origin: value.origin, fromSecret: value.fromSecret }
          : { missing: fallback === undefined }),
      });
      out.document('render', {
        variables: providers.map((p) => ({
          label: p.label,
          version: p.version,
          namespace: p.namespace,
          variables: p.variables.map(variable),
        })),
      });
      return;
    }
    for (const provider of providers) {
      streams.stdout.write(safeText(`${provider.label} ${provider.version} (namespace ${provider.namespace})`) + '\n');
      if (provider.variables.length === 0) streams.stdout.write('  (no variables)\n');
      for (const v of provider.variables) {
        const value = v.value
          ? `${v.value.fromSecret ? MASK : JSON.stringify(v.value.value)} from ${v.value.origin}`
          : v.default !== undefined
            ? `default ${shownDefault(v.default)}`
            : 'MISSING';
        streams.stdout.write(
          safeText(`  ${v.name} = ${value}${v.value && v.default !== undefined ? ` (default ${shownDefault(v.default)})` : ''}`) + '\n',
        );
      }
    }
    return;
  }
  const output = flags.output;
  if (!output) throw new UsageError('render needs -o/--output <dir> (or --list-variables)');
  const result = await withProgress(flags, (progress) => render(renderFlagsOptions(flags, progress), output));
  if (result.fleet) printClusters(result.clusters, out);
  else printResolution(result, out);
  for (const w of result.warnings) out.warn(w);
  const document = {
    layout: result.layout,
    ...(result.fleet
      ? {
          clusters: result.clusters.map((c) => ({
            name: c.name,
            release: c.release ?? null,
            rendered: c.rendered,
            ...resolutionJson(c.resolution),
          })),
        }
      : resolutionJson(result)),
  };
  await reportWrite(out, {
    output,
    files: result.written,
    summary: result.summary,
    document,
    warnings: result.warnings,
    lockReport: () => lockReport(result, result.lockWritten, out),
    ...(result.fleet && { clusters: result.clusters.map((c) => c.name) }),
  });
}

/** The pipeline's options for the flags render, check and diff share. */
export function renderFlagsOptions(flags: RenderFlags, progress: ProgressReporter, extra: Partial<RenderOptions> = {}): RenderOptions {
  return renderOptions(flags, progress, {
    ...secretOptions(flags),
    clusters: flags.cluster,
    allowSecretValues: flags.allowSecretValues,
    frozen: flags.frozen,
    layout: flags.layout,
    pinImages: flags.pinImages,
    fleetLayout: flags.fleetLayout,
    valuesFiles: flags.values,
    set: setExpressions(flags),
    outputDir: path.resolve(flags.output!),
    command: readmeCommand(flags),
    commandWithSecrets: readmeCommand(flags, true),
    ...extra,
  });
}

/** The secret flags; under GitHub Actions every secret form is masked before anything else is printed. */
function secretOptions(flags: RenderFlags): Partial<RenderOptions> {
  return {
    secretsStrategy: flags.secrets,
    secretFiles: flags.secretFile,
    envSecrets: flags.envSecret,
    onSecretValues: (needles: SecretNeedles) => {
      // every line printed from here on (messages, warnings, reports) is redacted of them
      registerSecretForms(needles.needles.map(([form]) => form));
      // on stderr, which the runner reads for workflow commands too, so stdout stays one --json document
      if (process.env.GITHUB_ACTIONS === 'true') for (const line of githubMasks(needles)) streams.stderr.write(line + '\n');
    },
  };
}

/**
 * The command the output's README records. Its paths are from the root of the Git work tree that
 * holds the output, so the README's bytes do not depend on the directory a run starts in (a render
 * in a subdirectory, checked from the root, would differ); outside Git, from the working
 * directory. `withSecrets` keeps the secret sources (--secret-file, --env-secret, and -f paths that
 * hold only Secrets): the README records that command, which render needs (app/cluster.ts
 * readmeCommandFor), and a check without them keeps the recorded one (review/check.ts).
 */
export function readmeCommand(flags: RenderFlags, withSecrets = false): string {
  const root = workTreeRoot(path.resolve(flags.output!));
  const base = root ?? process.cwd();
  // secret sources outside the work tree become the placeholder first, so a --cluster run's
  // recorded placeholders and this run's meet as one source, in the recorded order
  const sources: RenderFlags = withSecrets
    ? {
        ...flags,
        file: flags.file?.map((f) => (holdsOnlySecrets(f) ? outsideAsPlaceholder(f, root) : f)),
        secretFile: flags.secretFile?.map((f) => outsideAsPlaceholder(f, root)),
      }
    : { ...flags, file: flags.file?.filter((f) => !holdsOnlySecrets(f)) };
  const kept = withSecrets && (flags.cluster?.length ?? 0) > 0 ? keptSecretSources(sources, base) : {};
  const command = regenerateCommand({ ...sources, ...kept }, withSecrets, base);
  return root === undefined ? command : `# from the root of the Git repository\n${command}`;
}

/**
 * A `--cluster` run's README command is the whole fleet's: the secret sources its README recorded
 * for the clusters this run keeps (each one's Secret file with -f, --secret-file, --env-secret)
 * stay in it beside this run's, else the command would fail on theirs. A recorded -f stays only
 * when it holds only Secrets (a manifest path is this run's to give).
 */
function keptSecretSources(flags: RenderFlags, base: string): Pick<RenderFlags, 'file' | 'secretFile' | 'envSecret'> {
  let readme: string;
  try {
    readme = readFileSync(path.join(path.resolve(flags.output!), README_FILE), 'utf8');
  } catch {
    return {};
  }
  const recorded = recordedSourceWords(readme);
  // the recorded order first, so the README of a later run over the whole fleet is the same bytes
  const merged = (given: readonly string[] | undefined, words: readonly string[], paths: boolean, keep = (_: string) => true) => {
    const key = (w: string) => (paths ? path.resolve(w) : w);
    const have = new Set((given ?? []).map(key));
    const first = words.map((w) => (paths ? path.resolve(base, w) : w)).filter((w) => have.has(key(w)) || keep(w));
    const seen = new Set(first.map(key));
    return [...first, ...(given ?? []).filter((g) => !seen.has(key(g)))];
  };
  return {
    file: merged(flags.file, recorded.file, true, (f) => holdsOnlySecrets(f)),
    secretFile: merged(flags.secretFile, recorded.secretFile, true),
    envSecret: merged(flags.envSecret, recorded.envSecret, false),
  };
}

/**
 * A secret source outside the Git work tree (`~/secrets/mgmt.env`, a CI runner's temporary
 * directory) as the placeholder: it is where one machine keeps it, so its path would make the
 * committed README differ with whoever rendered it, and name their home directory.
 */
function outsideAsPlaceholder(file: string, root: string | undefined): string {
  const absolute = path.resolve(file);
  if (root === undefined || PIPE_PATH.test(absolute)) return file;
  const relative = path.relative(root, absolute);
  return relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)
    ? path.join(root, OUTSIDE_PLACEHOLDER)
    : file;
}

/** The nearest directory at or above `dir` that holds `.git` (a directory, or a worktree's file). */
export function workTreeRoot(dir: string): string | undefined {
  for (let at = dir; ; at = path.dirname(at)) {
    if (existsSync(path.join(at, '.git'))) return at;
    if (path.dirname(at) === at) return undefined;
  }
}

/** A path as a command shows it: relative to `base`, never absolute. */
function relativeTo(file: string, base: string): string {
  return path.relative(base, path.resolve(file)).split(path.sep).join('/') || '.';
}

/**
 * A render (check, diff) a hint suggests: the README's command with the GitHub this run asked,
 * offline when this run was, and then reading its cache (another has not got the artifacts); and
 * the clusters of a fleet this run chose (`--cluster`): its secret sources may be theirs alone, so
 * the same render of the whole fleet would fail on another cluster's (the README's command is
 * the whole fleet's, with every one).
 */
export function suggestedRenderCommand(flags: RenderFlags, placeholders: string[] = []): string {
  const clusters = (flags.cluster ?? []).flatMap((name) => ['--cluster', shellWord(name)]);
  return [regenerateCommand(flags, true, process.cwd(), placeholders), ...clusters, ...runSourceWords(flags)].join(' ');
}

/** The flags of this run that a suggested command must repeat to read the same sources the same way. */
export function runSourceWords(flags: SourceFlags): string[] {
  const words: string[] = [];
  if (flags.githubApiUrl) words.push('--github-api-url', shellWord(flags.githubApiUrl));
  if (flags.offline && flags.cacheDir) words.push('--cache-dir', shellWord(flags.cacheDir));
  if (flags.offline) words.push('--offline');
  return words;
}

/**
 * A path the shell names for a pipe (`--secret-file <(vault read …)`, `-f <(kubectl get secret …)`):
 * gone once the command that was run ends, and numbered as the shell pleases. A command to run
 * later names it by a placeholder, the same on every run; read back from a README, it stays one.
 */
const PIPE_PATH = /^\/(?:dev\/stdin|dev\/fd\/\d+|proc\/(?:self|\d+)\/fd\/\d+)$/;
const PIPE_PLACEHOLDER = '<file-given-through-a-pipe>';
/** A secret source outside the Git work tree, in the README's command (readmeCommand). */
const OUTSIDE_PLACEHOLDER = '<file-outside-the-repository>';
const PLACEHOLDERS: ReadonlySet<string> = new Set([PIPE_PLACEHOLDER, OUTSIDE_PLACEHOLDER]);

/**
 * The command that regenerates the output, run from `base` (the working directory): relative paths
 * only. `placeholders`: -f words, written as they are, for files this run was not given.
 */
export function regenerateCommand(flags: RenderFlags, withSecretSources: boolean, base: string, placeholders: string[] = []): string {
  const relativePath = (file: string) =>
    PIPE_PATH.test(path.resolve(file))
      ? PIPE_PLACEHOLDER
      : PLACEHOLDERS.has(path.basename(file))
        ? path.basename(file)
        : relativeTo(file, base);
  const words = ['capi-gitops', 'render'];
  for (const f of flags.file ?? []) words.push('-f', relativePath(f));
  if (flags.namespace) words.push('--namespace', flags.namespace);
  words.push('-o', relativePath(flags.output!));
  if (flags.layout) words.push('--layout', flags.layout);
  if (flags.pinImages) words.push('--pin-images');
  if (flags.fleetLayout) words.push('--fleet-layout', flags.fleetLayout);
  if (flags.secrets) words.push('--secrets', flags.secrets);
  if (flags.allowSecretValues) words.push('--allow-secret-values');
  if (withSecretSources) {
    for (const v of flags.secretFile ?? []) words.push('--secret-file', relativePath(v));
    for (const v of flags.envSecret ?? []) words.push('--env-secret', v);
  }
  for (const v of flags.values ?? []) words.push('--values', relativePath(v));
  words.push(...setFlagWords(flags));
  const command = words.map((word) => (PLACEHOLDERS.has(word) ? word : shellWord(word)));
  // after the -f paths: a placeholder is the user's to fill in, never quoted
  command.splice(2 + 2 * (flags.file?.length ?? 0), 0, ...placeholders.flatMap((p) => ['-f', p]));
  return command.join(' ');
}

/** `chart show <name>`: a built-in chart's files, printed or copied to start a chart of one's own. */
export async function chartShowCommand(name: BuiltInChart, flags: { outputDir?: string }): Promise<void> {
  if (flags.outputDir === undefined) {
    for (const [file, text] of await chartFiles(name))
      streams.stdout.write(`# Source: ${name}/${file}\n${text}${text.endsWith('\n') ? '' : '\n'}`);
    return;
  }
  // the parents are made, as a render's hint names them (gitops.chart: ./charts/wiring); the directory itself must be new
  if (existsSync(flags.outputDir)) throw new UsageError(`cannot create ${flags.outputDir}: it exists; name a new directory`);
  const files = await copyChart(name, flags.outputDir);
  // gitops.chart is read from the directory of the Config file that declares it, which need not be this one
  const absolute = path.resolve(flags.outputDir);
  const config = path.isAbsolute(flags.outputDir) ? undefined : await configFileFor(flags.outputDir);
  const relative = config && path.relative(path.dirname(config), absolute).split(path.sep).join('/');
  const fromConfig = relative?.startsWith('..') ? relative : `./${relative}`;
  streams.stdout.write(
    `wrote ${files.length} files of the built-in chart ${name} to ${flags.outputDir}; use it with gitops.chart: ` +
      (path.isAbsolute(flags.outputDir)
        ? `${flags.outputDir} in the Config document\n`
        : config
          ? `${fromConfig} in ${path.relative(process.cwd(), config)} (a relative gitops.chart is read from the directory of the Config file that declares it; from anywhere: ${absolute})\n`
          : `${flags.outputDir} in a Config file in this directory (a relative gitops.chart is read from the directory of the Config file that declares it; from anywhere: ${absolute})\n`),
  );
}

export async function lockCommand(flags: SourceFlags & { acceptDigest?: string[] }): Promise<void> {
  const out = new Output(flags);
  const acceptDigests = flags.acceptDigest;
  const resolution = await withProgress(flags, (progress) => lock(renderOptions(flags, progress, acceptDigests ? { acceptDigests } : {})));
  if (resolution.fleet)
    printClusters(
      // the clusters resolve concurrently: their names' order, not the map's
      [...resolution.resolutions].sort(([a], [b]) => compareStrings(a, b)).map(([name, r]) => ({ name, rendered: true, resolution: r })),
      out,
    );
  else printResolution(resolution, out);
  // both digests in full: what the reviewer of the lockfile change compares
  const accepted = resolution.lock.accepted ?? [];
  // a local file by its path from here, as the error that asked for --accept-digest names it (the lockfile keeps it relative to itself)
  const shown = (url: string) => {
    const file = lockedFilePath(url, path.dirname(resolution.lockFile));
    return file === undefined ? url : displayPath(file);
  };
  for (const a of accepted) out.line(`accepted ${a.label} ${a.version} ${a.file} from ${shown(a.url)}: sha256 ${a.from} → ${a.to}`);
  if (acceptDigests?.length && accepted.length === 0)
    out.line(`--accept-digest: the files of ${acceptDigests.join(', ')} match the lockfile; nothing to accept`);
  const lockfile = lockReport(resolution, resolution.lockWritten, out);
  // lock renders nothing, so it asks no registry: with pinImages, an image the lock lacks is pinned by the next render
  const pinning = (resolution.fleet ? [...resolution.resolutions.values()] : [resolution]).some((r) => r.manifest.config.pinImages);
  if (resolution.lock.changes.length === 0)
    out.line(
      pinning
        ? 'the lockfile is up to date for versions and artifacts; image digests are asked for by `capi-gitops render` (pinImages), which lock does not run'
        : 'the lockfile is up to date',
    );
  if (out.json) {
    const resolved = resolution.fleet
      ? { clusters: [...resolution.resolutions].map(([name, r]) => ({ name, ...resolutionJson(r) })) }
      : resolutionJson(resolution);
    out.document('lock', { ...resolved, lockfile, ...(acceptDigests ? { acceptedDigests: accepted } : {}) });
  }
}

export function versionCommand(flags: OutputFlags): void {
  const info = versionInfo();
  if (flags.json) new Output(flags).document('version', info);
  else streams.stdout.write(versionText(info));
}

export function completionCommand(program: Command, shell: Shell): void {
  streams.stdout.write(completionScript(program, shell));
}
