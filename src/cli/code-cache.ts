/**
 * The package's bin runs its command code (entry.ts and everything under it, one CommonJS file the
 * build writes) through V8's code cache: the bytecode of every function a run compiled, kept per
 * user and reused by the next run of the same command, as Node's own compile cache and Python's
 * .pyc files do. V8 compiles a cold render's functions as it meets them; read back, the cache
 * takes that work away (measured in `npm run bench`: the row "CLI, cold cache, no code cache"
 * against "CLI, cold cache"). Node 20 offers no such cache for ES modules (22's
 * `module.enableCompileCache` keeps only what compiles before a module runs), hence the
 * CommonJS file and `vm.Script`.
 *
 * Where: CAPI_GITOPS_CODE_CACHE names a directory, or `off`; else `<default cache dir>/code`
 * (~/.cache/capi-gitops/code). The artifact cache's --cache-dir does not move it: it is the tool's
 * compiled code, not data. Bytecode runs with the user's credentials, so an entry is used only
 * when its directory and file belong to the user and nobody else can write them, and when it is
 * signed by the artifact cache's key (sources/cache.ts `cacheKey`: a file outside the cache, or
 * CAPI_GITOPS_CACHE_KEY); V8 itself refuses an entry of another V8 version or other flags. Its
 * name holds the build id, so a rebuilt bundle never reads an old entry.
 *
 * It is an accelerator: any problem means compiling as without it, silently.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { cacheKey, defaultCacheDir } from '../sources/cache.js';
import { replaceFileUnflushedSync, TEMPORARY_SUFFIX } from '../core/replace-file.js';

/** What the bundle exports (entry.ts). */
export interface CliModule {
  runCli(argv: string[]): Promise<number>;
}

/** Entries kept in the directory: older ones (other builds, Node versions, commands) are removed when one is written. */
const KEPT_ENTRIES = 8;
const MAC_BYTES = 32;
const ENTRY_EXTENSION = '.v8code';
/** A temporary file older than this is a killed run's, not a write under way. */
const LEFTOVER_MS = 60 * 60 * 1000;

/**
 * The bundle's parameters: CommonJS's, and import.meta.url (the build turns the modules'
 * `import.meta.url` into this name, so their paths resolve from the bundle's place as from a chunk's).
 */
const WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname, __capiGitopsImportMetaUrl) {';
const WRAPPER_TAIL = '\n})';

/** The code cache's directory, or undefined when turned off. */
export function codeCacheDir(env: Record<string, string | undefined> = process.env): string | undefined {
  const setting = env.CAPI_GITOPS_CODE_CACHE;
  if (setting === 'off') return undefined;
  if (setting) return path.resolve(setting);
  return path.join(defaultCacheDir(env), 'code');
}

/** The command an entry is for: each command compiles its own functions. */
function commandOf(argv: readonly string[]): string {
  const word = argv.find((arg) => !arg.startsWith('-'));
  return word && /^[a-z][a-z-]{0,30}$/.test(word) ? word : 'other';
}

/** Only the user's own, not writable by group or others (a symlink is never followed). */
function isPrivate(file: string, type: 'file' | 'dir'): boolean {
  const st = lstatSync(file, { throwIfNoEntry: false });
  if (!st || (type === 'file' ? !st.isFile() : !st.isDirectory())) return false;
  const uid = process.getuid?.();
  return (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0;
}

function mac(key: Buffer, name: string, payload: Uint8Array): Buffer {
  return createHmac('sha256', key).update(`capi-gitops code cache\0${name}\0`).update(payload).digest();
}

/** The entry's bytecode when it is the user's own and signed by the key; else undefined. */
function readEntry(dir: string, name: string, key: Buffer): Buffer | undefined {
  const file = path.join(dir, name);
  if (!isPrivate(dir, 'dir') || !isPrivate(file, 'file')) return undefined;
  const bytes = readFileSync(file);
  if (bytes.length <= MAC_BYTES) return undefined;
  const payload = bytes.subarray(MAC_BYTES);
  return timingSafeEqual(bytes.subarray(0, MAC_BYTES), mac(key, name, payload)) ? payload : undefined;
}

/** Writes the entry (private, renamed into place whole), then removes all but the newest entries. */
function writeEntry(dir: string, name: string, key: Buffer, payload: Uint8Array): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!isPrivate(dir, 'dir')) return;
  replaceFileUnflushedSync(path.join(dir, name), Buffer.concat([mac(key, name, payload), payload]), 0o600);
  const entries = readdirSync(dir)
    .filter((n) => n.endsWith(ENTRY_EXTENSION))
    .map((n) => ({ n, mtime: statSync(path.join(dir, n), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => b.mtime - a.mtime || (a.n < b.n ? -1 : 1));
  for (const { n } of entries.slice(KEPT_ENTRIES)) unlinkSync(path.join(dir, n));
  // and what a run killed while writing left behind
  for (const n of readdirSync(dir).filter((n) => n.endsWith(TEMPORARY_SUFFIX))) {
    const file = path.join(dir, n);
    if (Date.now() - (statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > LEFTOVER_MS) rmSync(file, { force: true });
  }
}

/**
 * Compiles and runs the bundle at `bundlePath` with the entry of this build, V8 and command when
 * there is a valid one; after a successful run that compiled without one, writes it.
 */
export async function runCompiledCli(bundlePath: string, buildId: string, argv: string[]): Promise<number> {
  // The build writes the bundle in ASCII (charset: 'ascii'): read as latin1, it is copied, not decoded.
  const source = WRAPPER_HEAD + readFileSync(bundlePath, 'latin1') + WRAPPER_TAIL;
  const dir = codeCacheDir();
  const name = `${buildId}-${process.versions.v8}-${process.arch}-${commandOf(argv)}${ENTRY_EXTENSION}`.replace(/[^\w.-]/g, '_');
  // A key that cannot be kept between runs (no key file) would make every entry a miss: no cache then.
  let keptKey = true;
  const key = dir ? await cacheKey({ log: () => (keptKey = false) }).catch(() => undefined) : undefined;
  let cachedData: Buffer | undefined;
  try {
    if (dir && key && keptKey) cachedData = readEntry(dir, name, key);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(source, {
    filename: bundlePath,
    cachedData,
    importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const module = { exports: {} as CliModule };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run(module.exports, createRequire(bundlePath), module, bundlePath, path.dirname(bundlePath), pathToFileURL(bundlePath).href);
  const code = await module.exports.runCli(argv);
  if (code === 0 && dir && key && keptKey && (cachedData === undefined || script.cachedDataRejected)) {
    try {
      writeEntry(dir, name, key, script.createCachedData());
    } catch {
      // read-only or full: the next run compiles again
    }
  }
  return code;
}
