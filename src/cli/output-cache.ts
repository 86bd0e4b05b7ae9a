/**
 * The output cache: a whole `render`'s result, looked up before any command module loads, so an
 * unchanged render costs reading one entry and writing (usually: comparing) the output.
 *
 * Key: sha256 over this build's id, the Node version, the working directory, every argument,
 * the environment variables that shape a render (credentials by presence only), the bytes of
 * every manifest file the -f paths name, of the lockfile and of each --values file, and where
 * the output directory's Git repository starts (the argocd and flux layouts derive a path from
 * it). On a hit, the local artifacts the lockfile lists are hashed again and must still match.
 *
 * Stored only when nothing could make the same key render differently or leak a secret:
 * - the lockfile did not change (every component was pinned, with digests, by the lock the key
 *   covers; a run that resolves `latest` from the network is never stored);
 * - no secret value took part: no --secrets/--secret-file/--env-secret/--allow-secret-values,
 *   and the render found no value from a Secret; such runs are rendered every time;
 * - no --cluster (a fleet keeps the other clusters' files from the output directory), no
 *   user chart (Config gitops.chart, a directory the key does not cover).
 *
 * An entry is two records signed by the artifact cache's key (`ArtifactCache.putSignedBytes`),
 * so a tampered or foreign one is a miss: a header (JSON: each output file's path, size, sha256
 * and objects, so the report needs no parser; the lines the render printed before writing,
 * already redacted; the --json fields) and a body (the files' bytes). A hit whose output
 * directory still holds those files, proven by lstat against the digests recorded by the last
 * hit (kernel/file-digests.ts), reads neither the body nor the output files. The lines printed
 * after the write are computed again on every run, from what the write found.
 *
 * CAPI_GITOPS_OUTPUT_CACHE=off turns it off.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OutputResult } from '../app/run.js';
import type { ObjectIdentity } from '../review/object-diff.js';
import type { EncodedOutput } from '../output/encoded-output.js';
import type { ProgressReporter } from './progress.js';
import type { SecretNeedles } from '../secrets/gate.js';
import type { ToolConfig } from '../manifest/types.js';
import { listManifestFiles, LOCKFILE_NAME } from '../manifest/files.js';
import { CREDENTIAL_ENV_VARIABLES, safeText } from '../core/redact.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { ArtifactCache, defaultCacheDir, sha256Hex } from '../sources/cache.js';
import { FileDigests, fileState, type RecordedDigest } from '../output/file-digests.js';

/**
 * A bundle's build id, set by scripts/build-bundle.mjs (esbuild `define`): `bin-` and the sha256
 * of the bin's own files, or `bundle-` and the sha256 of the single-file bundle itself.
 */
declare const CAPI_GITOPS_BUILD_ID: string | undefined;

const FORMAT = 'capi-gitops output cache v3';

/** Flags that take a value and that the cache handles. */
const VALUE_FLAGS = new Set([
  '-f',
  '--file',
  '-o',
  '--output',
  '--cache-dir',
  '--github-api-url',
  '--http-timeout',
  '--layout',
  '--values',
  '--set',
  '--set-string',
]);
/**
 * Switches the cache handles. Any other argument (the secret flags, --cluster, --check, --help,
 * `--flag=value`, …) renders without the cache.
 */
const SWITCHES = new Set(['--offline', '--quiet', '--verbose', '--frozen', '--json']);

/** Environment that shapes a render besides the arguments: its values are in the key. */
const RENDER_ENVIRONMENT = [
  'CAPI_GITOPS_YAML_MAX_NODES',
  'CAPI_GITOPS_YAML_MAX_DEPTH',
  'CAPI_GITOPS_YAML_MAX_NODES_PER_RUN',
  'CAPI_GITOPS_NETWORK',
  'CAPI_GITOPS_HTTPS_AUTHORIZATION_HOST',
  'GITHUB_API_URL',
  'GITHUB_ACTIONS',
  'OCI_USERNAME',
  'XDG_CACHE_HOME',
  'XDG_STATE_HOME',
  'SOPS_AGE_KEY_FILE',
  'CI',
  'NO_COLOR',
];
/** Credentials: whether each is set is in the key (a token can refuse a run), never its value. */
const CREDENTIALS = [...CREDENTIAL_ENV_VARIABLES, 'CAPI_GITOPS_HTTPS_AUTHORIZATION', 'SOPS_AGE_KEY'];

interface RenderArguments {
  files: string[];
  output: string;
  cacheDir?: string;
  values: string[];
  verbose: boolean;
  quiet: boolean;
  json: boolean;
}

/** The render arguments when every one of them is one the cache handles; else undefined. */
export function cacheableRender(argv: readonly string[]): RenderArguments | undefined {
  if (argv[0] !== 'render') return undefined;
  const found: RenderArguments = { files: [], output: '', values: [], verbose: false, quiet: false, json: false };
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (SWITCHES.has(arg)) {
      if (arg === '--verbose') found.verbose = true;
      if (arg === '--quiet') found.quiet = true;
      if (arg === '--json') found.json = true;
      continue;
    }
    if (!VALUE_FLAGS.has(arg) || i + 1 >= argv.length) return undefined;
    const value = argv[++i]!;
    if (arg === '-f' || arg === '--file') found.files.push(value);
    else if (arg === '-o' || arg === '--output') found.output = value;
    else if (arg === '--cache-dir') found.cacheDir = value;
    else if (arg === '--values') found.values.push(value);
  }
  return found.files.length > 0 && found.output ? found : undefined;
}

/** This build's id: a bundle's own, else dist/src/build-id.txt (written by the build scripts). */
async function buildId(): Promise<string | undefined> {
  if (typeof CAPI_GITOPS_BUILD_ID === 'string') return CAPI_GITOPS_BUILD_ID;
  const text = await readFile(new URL('../build-id.txt', import.meta.url), 'utf8').catch(() => undefined);
  return text?.trim() || undefined;
}

/** The directory holding `.git` above the output directory, as the argocd and flux layouts look for it. */
function repositoryRoot(outputDir: string): string {
  for (let dir = path.resolve(outputDir); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, '.git'))) return dir;
    if (path.dirname(dir) === dir) return '';
  }
}

/** Builds the key from labelled parts; each is length-prefixed, so no two inputs run together. */
class KeyHash {
  private readonly hash = createHash('sha256');
  add(label: string, value: string | Uint8Array): void {
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
    this.hash.update(`${label}\0${bytes.length}\0`).update(bytes);
  }
  digest(): string {
    return this.hash.digest('hex');
  }
}

export interface KeyInputs {
  argv: readonly string[];
  args: RenderArguments;
  buildId: string;
  cwd: string;
  env: Record<string, string | undefined>;
}

/** The key of a render, or undefined when an input cannot be read as a plain file (a pipe, a missing path): such runs are not cached. */
export async function outputCacheKey(inputs: KeyInputs): Promise<{ key: string; lockFile: string } | undefined> {
  const { args, env } = inputs;
  const key = new KeyHash();
  key.add('format', FORMAT);
  key.add('build', inputs.buildId);
  key.add('node', process.version);
  key.add('cwd', inputs.cwd);
  key.add('argv', JSON.stringify(inputs.argv));
  for (const name of RENDER_ENVIRONMENT) key.add(`env ${name}`, env[name] === undefined ? '\0unset' : env[name]!);
  for (const name of CREDENTIALS) key.add(`credential ${name}`, env[name] ? 'set' : 'unset');
  const problems: Diagnostic[] = [];
  const manifests = await listManifestFiles(
    args.files.map((f) => path.resolve(inputs.cwd, f)),
    problems,
  ).catch(() => undefined);
  if (!manifests || problems.length > 0) return undefined;
  const readPlain = async (file: string): Promise<Buffer | undefined> =>
    (await stat(file).catch(() => undefined))?.isFile() ? readFile(file).catch(() => undefined) : undefined;
  for (const file of manifests) {
    const bytes = await readPlain(file);
    if (!bytes) return undefined;
    key.add('manifest', file);
    key.add('manifest bytes', bytes);
  }
  const first = path.resolve(inputs.cwd, args.files[0]!);
  const lockDir = (await stat(first)).isDirectory() ? first : path.dirname(first);
  const lockFile = path.join(lockDir, LOCKFILE_NAME);
  key.add('lockfile', (await readFile(lockFile).catch(() => undefined)) ?? '\0absent');
  for (const file of args.values) {
    const bytes = await readPlain(path.resolve(inputs.cwd, file));
    if (!bytes) return undefined;
    key.add('values bytes', bytes);
  }
  key.add('repository', repositoryRoot(path.resolve(inputs.cwd, args.output)));
  return { key: key.digest(), lockFile };
}

/** What an entry holds besides the files' bytes. */
interface EntryHeader {
  lockFile: string;
  /** Local artifacts the lock lists: absolute path and sha256, hashed again on every hit. */
  localFiles: [string, string][];
  /** What the render printed before the write, in order: 1 stdout, 2 stderr. */
  printed: [1 | 2, string][];
  document: Record<string, unknown>;
  warnings: string[];
  /**
   * Each output file: path, byte length, sha256, who its objects are. Not their digests: a
   * replay into an empty directory needs none, and one over changed files parses those files.
   */
  files: [string, number, string, ObjectIdentity[]][];
}

/** The body (every file's bytes, in the header's order) lives in its own record: a hit whose output is unchanged never reads it. */
const bodyKey = (key: string) => `${key}\0bytes`;

interface DecodedEntry {
  header: EntryHeader;
  sizes: Map<string, number>;
  digests: Map<string, string>;
  objects: Map<string, ObjectIdentity[]>;
}

function decodeHeader(bytes: Buffer): DecodedEntry | undefined {
  try {
    const header = JSON.parse(bytes.toString('utf8')) as EntryHeader;
    const sizes = new Map<string, number>();
    const digests = new Map<string, string>();
    const objects = new Map<string, ObjectIdentity[]>();
    for (const [file, size, sha256, refs] of header.files) {
      if (typeof file !== 'string' || !Number.isSafeInteger(size) || size < 0 || typeof sha256 !== 'string') return undefined;
      sizes.set(file, size);
      digests.set(file, sha256);
      objects.set(file, refs);
    }
    return { header, sizes, digests, objects };
  } catch {
    return undefined;
  }
}

/** The files' bytes, cut from the body by the header's sizes; undefined when they do not add up. */
function decodeBody(entry: DecodedEntry, bytes: Buffer): Map<string, Buffer> | undefined {
  const files = new Map<string, Buffer>();
  let at = 0;
  for (const [file, size] of entry.sizes) {
    files.set(file, bytes.subarray(at, at + size));
    at += size;
  }
  return at === bytes.length ? files : undefined;
}

/** Local artifacts of the lock, as absolute paths with their pinned sha256. */
function localArtifacts(result: OutputResult, lockDir: string): [string, string][] {
  const local: [string, string][] = [];
  for (const entry of result.lock.lock.entries) {
    for (const file of entry.files) {
      if (/^file:/i.test(file.url)) local.push([fileURLToPath(file.url), file.sha256]);
      else if (!/^[a-z][a-z0-9+.-]*:/i.test(file.url)) local.push([path.resolve(lockDir, file.url), file.sha256]);
    }
  }
  return local;
}

function configsOf(result: OutputResult): ToolConfig[] {
  return result.fleet ? result.clusters.map((c) => c.resolution.manifest.config) : [result.manifest.config];
}

/** Records what a render prints before its write, and stores the entry when the run may be. */
export class OutputRecorder {
  private readonly printed: [1 | 2, string][] = [];
  private recording = true;
  private secretCalls = 0;
  private secretValues = false;

  constructor(
    private readonly cache: ArtifactCache,
    private readonly key: string,
    private readonly lockFile: string,
  ) {}

  private tee(fd: 1 | 2, stream: NodeJS.WriteStream): NodeJS.WritableStream {
    return {
      write: (chunk: string | Uint8Array) => {
        if (this.recording) this.printed.push([fd, String(chunk)]);
        return stream.write(chunk);
      },
    } as NodeJS.WritableStream;
  }

  readonly stdout = this.tee(1, process.stdout);
  readonly stderr = this.tee(2, process.stderr);

  /** The progress reporter, with its log lines (warnings, --verbose sources) recorded. */
  progress(inner: ProgressReporter): ProgressReporter {
    return {
      onProgress: (event) => inner.onProgress(event),
      log: (line) => {
        // As progress.log prints it; a live bar on a terminal only redraws around it.
        if (this.recording) this.printed.push([2, `${safeText(line)}\n`]);
        inner.log(line);
      },
      stop: () => inner.stop(),
    };
  }

  /** Wraps the render's onSecretValues: a run with any secret value is not stored. */
  watchSecrets(inner: ((needles: SecretNeedles) => void) | undefined): (needles: SecretNeedles) => void {
    return (needles) => {
      this.secretCalls++;
      if (needles.needles.length > 0) this.secretValues = true;
      inner?.(needles);
    };
  }

  /** The render's own lines are done; what follows is computed again on every run. */
  stop(): void {
    this.recording = false;
  }

  /** `encoded`: the files' bytes and digests as the render wrote them. */
  async store(
    result: OutputResult,
    outcome: { lockChanged: boolean; document: Record<string, unknown> },
    encoded: EncodedOutput,
  ): Promise<void> {
    if (outcome.lockChanged || this.secretCalls === 0 || this.secretValues || result.lockFile !== this.lockFile) return;
    if (configsOf(result).some((config) => config.gitops?.chart !== undefined || config.secrets?.strategy === 'sops')) return;
    const { objectRefs } = await import('../review/object-changes.js');
    const names = [...result.files.keys()];
    const contents = names.map((name) => encoded.bytes.get(name)!);
    const header: EntryHeader = {
      lockFile: this.lockFile,
      localFiles: localArtifacts(result, path.dirname(this.lockFile)),
      printed: this.printed,
      document: outcome.document,
      warnings: result.warnings,
      files: names.map((name, i) => [
        name,
        contents[i]!.length,
        encoded.digests.get(name)!,
        identities(objectRefs(name, result.files.get(name)!)),
      ]),
    };
    // The body first: a header is never found without its body.
    await this.cache.putSignedBytes('output', bodyKey(this.key), contents);
    await this.cache.putSignedBytes('output', this.key, Buffer.from(JSON.stringify(header), 'utf8'));
  }
}

/** Identity fields only, whatever else a ref carries. */
function identities(refs: readonly ObjectIdentity[]): ObjectIdentity[] {
  return refs.map(({ apiVersion, kind, namespace, name }) => ({ apiVersion, kind, namespace, name }));
}

export interface OutputCacheLookup {
  /** Writes the stored output and prints what the render printed; false when the entry cannot serve (nothing was written then). */
  replay?: () => Promise<boolean>;
  /** Where to store this render's output when it may be stored. */
  recorder: () => OutputRecorder;
}

/** The cache's answer for these arguments, or undefined when the run is not cacheable. */
export async function lookupOutputCache(
  argv: readonly string[],
  env: Record<string, string | undefined> = process.env,
): Promise<OutputCacheLookup | undefined> {
  if (env.CAPI_GITOPS_OUTPUT_CACHE === 'off') return undefined;
  const args = cacheableRender(argv);
  if (!args) return undefined;
  const id = await buildId();
  if (!id) return undefined;
  const cwd = process.cwd();
  const keyed = await outputCacheKey({ argv, args, buildId: id, cwd, env }).catch(() => undefined);
  if (!keyed) return undefined;
  // Warnings about the cache itself (a bad entry, an unwritable directory) only with --verbose: the render is right either way.
  const cache = new ArtifactCache(args.cacheDir !== undefined ? path.resolve(cwd, args.cacheDir) : defaultCacheDir(env), {
    log: (line) => args.verbose && !args.quiet && process.stderr.write(`${line}\n`),
  });
  const recorder = () => new OutputRecorder(cache, keyed.key, keyed.lockFile);
  const [bytes, recorded] = await Promise.all([cache.getSignedBytes('output', keyed.key), readFileDigests(cache, keyed.key)]);
  const entry = bytes && decodeHeader(bytes);
  if (!entry || entry.header.lockFile !== keyed.lockFile) return { recorder };
  return { recorder, replay: () => replay(args, entry, cache, keyed.key, new FileDigests(recorded)) };
}

/**
 * The digests of the files the last hit read (local artifacts, output files) with their lstat,
 * so the next hit reads only what changed (kernel/file-digests.ts). A signed record beside the
 * entry: one that is missing, foreign or malformed means reading every file.
 */
const digestsKey = (key: string) => `${key}\0file digests`;

async function readFileDigests(cache: ArtifactCache, key: string): Promise<RecordedDigest[]> {
  const bytes = await cache.getSignedBytes('output', digestsKey(key));
  try {
    const value: unknown = bytes && JSON.parse(bytes.toString('utf8'));
    const valid = (e: unknown) =>
      Array.isArray(e) &&
      typeof e[0] === 'string' &&
      Array.isArray(e[1]) &&
      e[1].length === 5 &&
      e[1].every((n: unknown) => typeof n === 'number') &&
      typeof e[2] === 'string';
    return Array.isArray(value) && value.every(valid) ? (value as RecordedDigest[]) : [];
  } catch {
    return [];
  }
}

/** The lock's local artifacts still hold the pinned bytes: by their recorded digest while their stat is unchanged, else read and hashed. */
async function localArtifactsUnchanged(localFiles: [string, string][], onDisk: FileDigests): Promise<boolean> {
  const observedAt = Date.now();
  for (const [file, sha256] of localFiles) {
    // stat, not lstat: the artifact is read through a symlink as readFile would.
    const st = await stat(file).catch(() => undefined);
    if (st?.isFile() && onDisk.digestOf(file, fileState(st)) === sha256) continue;
    const bytes = await readFile(file).catch(() => undefined);
    if (!bytes || sha256Hex(bytes) !== sha256) return false;
    if (st?.isFile()) onDisk.confirm(file, fileState(st), sha256, observedAt);
  }
  return true;
}

async function replay(
  args: RenderArguments,
  entry: DecodedEntry,
  cache: ArtifactCache,
  key: string,
  onDisk: FileDigests,
): Promise<boolean> {
  if (!(await localArtifactsUnchanged(entry.header.localFiles, onDisk))) return false;
  const [{ confirmUnchanged, writeOutput }, { Output }, { reportWrite, displayPath }] = await Promise.all([
    import('../output/write.js'),
    import('./output.js'),
    import('./render-report.js'),
  ]);
  const known = { digests: entry.digests, onDisk };
  let summary;
  let files: ReadonlyMap<string, Uint8Array> = new Map();
  try {
    // Usually the output is as the last run left it, proven by lstat and the recorded digests
    // without the bytes; otherwise the body is read and written like a render's output.
    summary = await confirmUnchanged(path.resolve(args.output), entry.sizes, known);
    if (!summary) {
      const body = await cache.getSignedBytes('output', bodyKey(key));
      const decoded = body && decodeBody(entry, body);
      if (!decoded) return false;
      files = decoded;
      summary = await writeOutput(path.resolve(args.output), files, { known });
    }
  } catch {
    // Nothing was written: the render runs and reports the problem in its own terms.
    return false;
  }
  for (const [fd, text] of entry.header.printed) (fd === 1 ? process.stdout : process.stderr).write(text);
  const out = new Output(args);
  out.detail('output cache: the output of an identical earlier render was used');
  await reportWrite(out, {
    output: args.output,
    files,
    summary,
    document: entry.header.document,
    warnings: entry.header.warnings,
    knownObjects: entry.objects,
    lockReport: () => ({ path: displayPath(entry.header.lockFile), updated: false, changes: [] }),
  });
  if (onDisk.changed()) await cache.putSignedBytes('output', digestsKey(key), Buffer.from(JSON.stringify(onDisk.recorded()), 'utf8'));
  return true;
}
