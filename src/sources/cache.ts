/**
 * The on-disk cache network sources share, safe for concurrent runs.
 *
 * Layout under the cache directory:
 *   blobs/sha256/<hex>        artifact bytes, named by their sha256 (content-addressed)
 *   http/<sha256(url)>.json   HTTP metadata: URL → { etag, sha256 of the body, replayed headers }
 *   parsed/<sha256(key)>.json a parsed form of an artifact, under a caller-built key
 *
 * Every write goes to a temporary file in the target's own directory and is renamed into place,
 * so a reader sees the old file, the new file or none — never half of one — and concurrent
 * writers of the same entry both succeed. Blobs are verified on every read: a corrupt one is
 * deleted and reported as a miss, so the caller simply downloads it again.
 *
 * Parsed forms are derived data, and a new key appears whenever variables or the parser change,
 * so they are trimmed as Go trims its build cache: a hit refreshes the entry's mtime (at most
 * hourly), and once a day entries unused for PARSED_RETENTION_DAYS are deleted. Blobs and HTTP
 * records are never trimmed: an offline render from the lockfile may need them at any age.
 *
 * Trust: blobs are checked against their name. Records (HTTP and parsed) are derived data a
 * reader cannot check against anything, so each is written as `<hmac>\n<json>`, the HMAC-SHA256
 * of the JSON under a key kept outside the cache (`cacheKey`); a record whose HMAC does not
 * match is discarded as a miss and rebuilt from verified bytes. Someone who can write the cache
 * but not the key file (a pull-request job sharing a CI cache) can delete or corrupt entries,
 * costing a download or a parse, but cannot make a run use content other than what the origin
 * served or the lockfile pins.
 *
 * Links and other accounts: no operation follows a symbolic link below the cache directory.
 * Every directory from the cache directory down to an entry must be a real directory (lstat),
 * entries are opened with O_NOFOLLOW and must be regular files, and a trim deletes regular files
 * only; a store that is a link is neither read, written nor trimmed. A cache directory owned by
 * another account, or writable by other accounts (by everyone, or by a group other than the
 * user's own), is used read-only with a warning: whoever can write it could plant such links, or
 * swap a checked directory for one between the check and the use.
 *
 * Failure: the cache is an accelerator. An entry that cannot be read or written (no HOME, a
 * read-only directory, `--cache-dir` naming a file, ENOSPC) is a warning, logged once per kind,
 * and the run goes on from memory.
 *
 * Parsed forms are stored only under a key an earlier run made (or CAPI_GITOPS_CACHE_KEY): a run
 * that had to make its key starts from a new state directory, as a CI runner does every run, and
 * the entries it signed could not be read by a runner whose next key is new again. Serialising,
 * signing and writing them took 12–20 ms of such a render; a machine that keeps its state stores
 * them from its second run on.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256Hex } from '../core/digest.js';
import { constants, type Stats } from 'node:fs';
import { lstat, lutimes, mkdir, open, readdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { redactUrlCredentials } from '../core/redact.js';
import { replaceFileUnflushed, TEMPORARY_SUFFIX } from './replace-file.js';
import { errorCode } from '../core/error-code.js';
import { createDirectories } from '../core/create-directories.js';

/** Metadata kept per URL for conditional requests (If-None-Match) and offline use. */
interface HttpRecord {
  url: string;
  /** The response's ETag, sent back as If-None-Match; absent when the server gave none. */
  etag?: string;
  /** sha256 of the body, stored as a blob. */
  sha256: string;
  /** Response headers a 304 does not repeat but the caller needs, e.g. `link` for pagination. */
  headers?: Record<string, string>;
}

interface ArtifactCacheOptions {
  /** Receives one line per notable event (a corrupt entry removed, a cache that cannot be written). */
  log?: (line: string) => void;
  /** The HMAC key for records; by default `cacheKey()`. */
  key?: Buffer | Promise<Buffer>;
}

/** The key that signs records, and whether this run made it (a new key file, or one for this run only). */
interface CacheKey {
  bytes: Buffer;
  madeByThisRun: boolean;
}

const KEY_BYTES = 32;

/** `$XDG_STATE_HOME/capi-gitops/cache-key`, else `~/.local/state/capi-gitops/cache-key`: outside the cache, so not shared with it. */
export function defaultCacheKeyFile(): string {
  const xdg = process.env.XDG_STATE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.local', 'state');
  return path.join(base, 'capi-gitops', 'cache-key');
}

/**
 * The key that signs cache records: CAPI_GITOPS_CACHE_KEY when set (a CI secret, so that trusted
 * jobs on different runners share parsed forms while jobs without the secret cannot forge them),
 * else a random key in `defaultCacheKeyFile()`, created on first use with mode 0600. When neither can be had,
 * a key for this run only: records are still written and checked, just not reused by later runs.
 */
async function cacheKey(log?: (line: string) => void): Promise<CacheKey> {
  const secret = process.env.CAPI_GITOPS_CACHE_KEY;
  if (secret && secret.length >= 16) return { bytes: createHash('sha256').update(secret).digest(), madeByThisRun: false };
  const file = defaultCacheKeyFile();
  // Ignored without a word, a short key looks set and a new runner still reads no record.
  if (secret)
    log?.(
      `cache: CAPI_GITOPS_CACHE_KEY is shorter than 16 characters, so it is not used (records are signed with the key in ${file}); set one of 16 characters or more`,
    );
  const read = async () => {
    const bytes = await readFile(file);
    if (bytes.length < KEY_BYTES) throw new Error(`${file} holds fewer than ${KEY_BYTES} bytes`);
    return bytes;
  };
  try {
    return { bytes: await read(), madeByThisRun: false };
  } catch (error) {
    try {
      if (!isMissing(error)) throw error;
      await createDirectories(path.dirname(file), 0o700);
      await writeFile(file, randomBytes(KEY_BYTES), { flag: 'wx', mode: 0o600 }).catch(async (failed: NodeJS.ErrnoException) => {
        // Created but not filled (ENOSPC): a short key file would disable the cache for good.
        if (failed.code !== 'EEXIST') await rm(file, { force: true }).catch(() => undefined);
        throw failed;
      });
      return { bytes: await read(), madeByThisRun: true };
    } catch (again) {
      // another run made the file between our read and our write
      if (errorCode(again) === 'EEXIST') {
        return read().then(
          (bytes) => ({ bytes, madeByThisRun: true }),
          () => ({ bytes: randomBytes(KEY_BYTES), madeByThisRun: true }),
        );
      }
      log?.(
        `cache: no key file at ${file} (${errorCode(again) ?? (again as Error).message}); cache records are used within this run only (set CAPI_GITOPS_CACHE_KEY or XDG_STATE_HOME)`,
      );
      return { bytes: randomBytes(KEY_BYTES), madeByThisRun: true };
    }
  }
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
export const PARSED_RETENTION_DAYS = 14;
/** A parsed entry's file name ends so; `.json` entries (earlier versions, never read now) are trimmed as they age. */
const PARSED_EXTENSIONS = ['.v8', '.json'] as const;
/** Marks the last trim of the parsed store; not a `.json`, so never taken for an entry. */
const TRIM_MARKER = 'last-trim';

/**
 * `$XDG_CACHE_HOME/capi-gitops`, else `~/.cache/capi-gitops`. A relative XDG_CACHE_HOME is
 * ignored, as the XDG Base Directory specification requires.
 */
export function defaultCacheDir(env: Record<string, string | undefined> = process.env, home: string = os.homedir()): string {
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.cache');
  return path.join(base, 'capi-gitops');
}

function isMissing(error: unknown): boolean {
  return errorCode(error) === 'ENOENT';
}

/** Content-addressed artifact store plus HTTP metadata and parsed-form records. */
export class ArtifactCache {
  readonly dir: string;
  private readonly log: (line: string) => void;
  private readonly keySource: Buffer | Promise<Buffer> | undefined;
  private key: Promise<CacheKey> | undefined;
  private readonly warned = new Set<string>();
  private writable: Promise<boolean> | undefined;
  private ignoreWritten = false;

  /** `dir` is created on first write. Use `defaultCacheDir()` for the usual location. */
  constructor(dir: string = defaultCacheDir(), options: ArtifactCacheOptions = {}) {
    this.dir = path.resolve(dir);
    this.log = options.log ?? (() => undefined);
    this.keySource = options.key;
  }

  private signingKey(): Promise<CacheKey> {
    const given = this.keySource;
    this.key ??= given ? Promise.resolve(given).then((bytes) => ({ bytes, madeByThisRun: false })) : cacheKey(this.log);
    return this.key;
  }

  /** The HMAC of the parts, in order (as of their concatenation). */
  private async mac(kind: string, binding: string, ...parts: (string | Uint8Array)[]): Promise<string> {
    const hmac = createHmac('sha256', (await this.signingKey()).bytes).update(`${kind}\0${binding}\0`);
    for (const part of parts) hmac.update(part);
    return hmac.digest('hex');
  }

  /** The body of a signed record (`<hmac>\n<body>`), or undefined (and the file discarded) when its HMAC does not match. */
  private async signedBody(file: string, kind: string, binding: string): Promise<Buffer | undefined> {
    const bytes = await this.readIfPresent(file);
    if (bytes === undefined) return undefined;
    const body = bytes.subarray(65);
    const expected = Buffer.from(await this.mac(kind, binding, body), 'hex');
    const given = Buffer.from(bytes[64] === 0x0a ? bytes.toString('latin1', 0, 64) : '', 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      await this.discard(
        file,
        `${kind} record ${path.basename(file)} is not signed by this cache's key (written by another key, or tampered with)`,
      );
      return undefined;
    }
    return body;
  }

  /** A cache that cannot be written is a warning, once per kind of entry; the run goes on from memory. */
  private async tryWrite(kind: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      const code = errorCode(error);
      this.warnOnce(
        kind,
        `cache: cannot write ${kind} entries under ${this.dir} (${code ?? (error as Error).message}); continuing without caching them`,
      );
    }
  }

  private warnOnce(kind: string, line: string): void {
    if (this.warned.has(kind)) return;
    this.warned.add(kind);
    this.log(line);
  }

  /**
   * Whether this run may write, refresh and delete entries: the cache directory is missing (it
   * is created, not writable by others) or is the user's own and writable by no other account.
   * Decided once per run; otherwise the cache is read, and the run says why once.
   */
  private mayWrite(): Promise<boolean> {
    this.writable ??= stat(this.dir).then(
      (st) => {
        const why = foreignDirectory(st);
        if (why === undefined) return true;
        this.warnOnce(
          'foreign',
          `cache: ${this.dir} ${why}, so it is used read-only (nothing is written, refreshed or removed): an account that can write it could plant links that lead a cache operation into your files; give the run a cache directory of its own (--cache-dir), or remove the others' write access (chmod go-w)`,
        );
        return false;
      },
      () => true, // missing (created on first write), or not a directory (writes fail and say so)
    );
    return this.writable;
  }

  /**
   * Checks every directory from the cache directory down to `file`'s: each must be a real
   * directory (lstat), not a link. With `create`, missing ones are made (not writable by
   * others). False, with a warning once, when one is a link or another kind of file; an error
   * other than a missing directory is thrown (the caller's "cannot read/write").
   */
  private async checkedParent(file: string, create: boolean): Promise<boolean> {
    const relative = path.relative(this.dir, path.dirname(file));
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) throw new Error(`${file} is not inside ${this.dir}`);
    let dir = this.dir;
    if (create) {
      await createDirectories(dir, DIRECTORY_MODE);
      await this.ignoredByGit();
    }
    for (const part of relative.split(path.sep)) {
      dir = path.join(dir, part);
      let st: Stats;
      try {
        st = await lstat(dir);
      } catch (error) {
        if (!isMissing(error) || !create) {
          if (isMissing(error)) return false;
          throw error;
        }
        await mkdir(dir, { mode: DIRECTORY_MODE }).catch((failed: NodeJS.ErrnoException) => {
          if (failed.code !== 'EEXIST') throw failed;
        });
        st = await lstat(dir);
      }
      if (!st.isDirectory()) {
        this.warnOnce(
          `link ${dir}`,
          `cache: ${dir} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}; the cache does not follow it: nothing there is read, written or removed (remove it to cache there again)`,
        );
        return false;
      }
    }
    return true;
  }

  /**
   * A cache directory inside a Git work tree (--cache-dir .cache) is never picked up by `git add`:
   * it ignores itself, as pytest's and ruff's caches do. An existing file is left as it is.
   */
  private async ignoredByGit(): Promise<void> {
    if (this.ignoreWritten) return;
    this.ignoreWritten = true;
    await writeFile(path.join(this.dir, '.gitignore'), '# Written by capi-gitops: the artifact cache is never committed.\n*\n', {
      flag: 'wx',
      mode: 0o600,
    }).catch(() => undefined);
  }

  /** Where a blob lives; throws on anything but a lower-case sha256 hex string. */
  blobPath(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) throw new Error(`not a sha256 hex digest: ${JSON.stringify(sha256)}`);
    return path.join(this.dir, 'blobs', 'sha256', sha256);
  }

  /** Stores bytes and returns their sha256. Rewrites an existing entry, which also heals a corrupt one. */
  async putBlob(bytes: Uint8Array): Promise<string> {
    const sha256 = sha256Hex(bytes);
    await this.tryWrite('artifact', () => this.writeAtomic(this.blobPath(sha256), bytes));
    return sha256;
  }

  /** The bytes whose sha256 is `sha256`, or undefined. A corrupt entry is deleted, logged and reported as a miss. */
  async getBlob(sha256: string): Promise<Buffer | undefined> {
    const file = this.blobPath(sha256);
    const bytes = await this.readIfPresent(file);
    if (bytes === undefined) return undefined;
    if (sha256Hex(bytes) !== sha256) {
      await this.discard(file, `blob sha256:${sha256} does not match its content`);
      return undefined;
    }
    return bytes;
  }

  async getHttpRecord(url: string): Promise<HttpRecord | undefined> {
    const file = this.recordPath('http', url);
    // The HMAC binds the record to the full URL; the file holds it redacted (query values, userinfo).
    const body = await this.signedBody(file, 'http', url);
    if (body === undefined) return undefined;
    let record: unknown;
    try {
      record = JSON.parse(body.toString('utf8'));
    } catch {
      await this.discard(file, `${path.relative(this.dir, file)} is not valid JSON`);
      return undefined;
    }
    if (!isHttpRecord(record)) {
      await this.discard(file, `HTTP record for ${redactUrlCredentials(url)} is malformed`);
      return undefined;
    }
    return { ...record, url };
  }

  async putHttpRecord(record: HttpRecord): Promise<void> {
    if (!SHA256_HEX.test(record.sha256)) throw new Error(`HTTP record for ${redactUrlCredentials(record.url)}: not a sha256 hex digest`);
    const json = JSON.stringify({ ...record, url: redactUrlCredentials(record.url) });
    // `<hmac>\n<json>`
    await this.tryWrite('HTTP record', async () =>
      this.writeAtomic(this.recordPath('http', record.url), `${await this.mac('http', record.url, json)}\n${json}`),
    );
  }

  /**
   * A value stored by `putParsed` under the same key, or undefined. The key is built by the
   * caller so that it changes whenever the value would, e.g. `yaml-v1:<artifact sha256>`.
   */
  async getParsed<T>(key: string): Promise<T | undefined> {
    const body = await this.getSignedBytes('parsed', key);
    if (body === undefined) return undefined;
    let entry: unknown;
    try {
      entry = deserialize(body);
    } catch {
      entry = undefined;
    }
    if (typeof entry !== 'object' || entry === null || !('key' in entry) || !('value' in entry)) {
      await this.discard(this.recordPath('parsed', key), `parsed entry ${key} is malformed`);
      return undefined;
    }
    if (entry.key !== key) return undefined;
    return entry.value as T;
  }

  /**
   * Deletes parsed entries unused for PARSED_RETENTION_DAYS, at most once a day (the first
   * caller after that writes the marker; concurrent trims only race on unlinks, which is safe).
   * Returns how many entries were removed.
   */
  async trimParsed(now: number = Date.now()): Promise<number> {
    // (with the temporary files a killed run left behind)
    const extensions = [...PARSED_EXTENSIONS, TEMPORARY_SUFFIX];
    const dir = path.join(this.dir, 'parsed');
    const marker = path.join(dir, TRIM_MARKER);
    // A read-only cache is served, not maintained; a store that is a link is not followed.
    if (!(await this.mayWrite())) return 0;
    if (!(await this.checkedParent(marker, false).catch(() => false))) return 0;
    const last = await lstat(marker).then(
      (st) => st.mtimeMs,
      () => undefined,
    );
    if (last !== undefined && now - last < DAY_MS) return 0;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return 0; // Missing or unreadable: nothing to trim.
    }
    try {
      // replaced, not written through: a link planted as the marker is not followed
      await replaceFileUnflushed(marker, '');
      await lutimes(marker, now / 1000, now / 1000);
    } catch {
      return 0; // A read-only cache is served, not maintained.
    }
    let removed = 0;
    for (const name of names.filter((n) => extensions.some((extension) => n.endsWith(extension))).sort()) {
      const file = path.join(dir, name);
      // Checked again before each removal, and regular files only: never a link's target.
      if (!(await this.checkedParent(file, false).catch(() => false))) break;
      const st = await lstat(file).catch(() => undefined);
      if (st === undefined || !st.isFile() || now - st.mtimeMs < PARSED_RETENTION_DAYS * DAY_MS) continue;
      if (
        await unlink(file).then(
          () => true,
          () => false,
        )
      )
        removed++;
    }
    if (removed > 0)
      this.log(
        `cache: removed ${removed} parsed ${removed === 1 ? 'entry' : 'entries'} unused for ${PARSED_RETENTION_DAYS} days from ${dir}`,
      );
    return removed;
  }

  /** Refreshes an entry's mtime, at most hourly, so trimming sees it as used. */
  private async markUsed(file: string): Promise<void> {
    const now = Date.now();
    try {
      if (!(await this.mayWrite()) || !(await this.checkedParent(file, false))) return;
      const st = await lstat(file);
      if (st.isFile() && now - st.mtimeMs > HOUR_MS) await lutimes(file, st.atime, now / 1000);
    } catch {
      // Removed or read-only meanwhile: the entry was still served; trimming may drop it.
    }
  }

  /**
   * Bytes stored by `putSignedBytes` under the same kind and key, or undefined. Signed like the
   * other records (`<hmac>\n<bytes>`, the HMAC over kind, key and bytes), so a tampered entry is
   * discarded as a miss; a hit refreshes the entry's mtime for trimming.
   */
  async getSignedBytes(kind: 'parsed', key: string): Promise<Buffer | undefined> {
    const file = this.recordPath(kind, key);
    const body = await this.signedBody(file, kind, key);
    if (body !== undefined) await this.markUsed(file);
    return body;
  }

  async putSignedBytes(kind: 'parsed', key: string, body: Uint8Array): Promise<void> {
    await this.tryWrite(kind, async () =>
      this.writeAtomic(this.recordPath(kind, key), Buffer.concat([Buffer.from(`${await this.mac(kind, key, body)}\n`, 'latin1'), body])),
    );
  }

  /** Whether a parsed entry may be found: none can when this run made the signing key (every older entry fails its HMAC). */
  async mayHoldParsed(): Promise<boolean> {
    return !(await this.keyMadeByThisRun());
  }

  /** Whether this run made the signing key: then no record an earlier run signed can be read. */
  async keyMadeByThisRun(): Promise<boolean> {
    return (await this.signingKey()).madeByThisRun;
  }

  /**
   * Stores a value made of JSON types, in V8's serialisation (node:v8): half the time of JSON
   * both ways for megabytes of objects, and exact (-0 stays -0, as a parse gives it).
   */
  async putParsed(key: string, value: unknown): Promise<void> {
    if ((await this.signingKey()).madeByThisRun) return;
    await this.putSignedBytes('parsed', key, serialize({ key, value }));
  }

  /** Where the parsed entry of `key` lives: named for V8's version too, as another Node may not read its serialisation. */
  parsedEntryPath(key: string): string {
    return path.join(this.dir, 'parsed', `${sha256Hex(`${key}\0v8 ${process.versions.v8}`)}${PARSED_EXTENSIONS[0]}`);
  }

  private recordPath(kind: 'http' | 'parsed', key: string): string {
    if (kind === 'parsed') return this.parsedEntryPath(key);
    return path.join(this.dir, kind, `${sha256Hex(key)}.json`);
  }

  private async writeAtomic(file: string, data: Uint8Array | string): Promise<void> {
    if (!(await this.mayWrite()) || !(await this.checkedParent(file, true))) return;
    // No fsync: every entry is checked when read (blobs against their name, records against their
    // HMAC), so one torn by a crash is a miss; the flush cost a cold render 5-10 ms per entry.
    // The temporary file is created exclusively and renamed over the entry's name, so a link
    // planted as the entry is replaced, never written through.
    await replaceFileUnflushed(file, data);
  }

  private async readIfPresent(file: string): Promise<Buffer | undefined> {
    try {
      if (!(await this.checkedParent(file, false))) return undefined;
      // No link is followed, and only a regular file is read (a FIFO planted as an entry would
      // block the run: O_NONBLOCK opens it at once, and it is then refused).
      const handle = await open(file, constants.O_RDONLY | NO_FOLLOW | NON_BLOCK);
      try {
        if (!(await handle.stat()).isFile()) {
          await this.discard(file, `${path.relative(this.dir, file)} is not a regular file`);
          return undefined;
        }
        return await handle.readFile();
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (isMissing(error)) return undefined;
      if (errorCode(error) === 'ELOOP') {
        await this.discard(file, `${path.relative(this.dir, file)} is a symbolic link`);
        return undefined;
      }
      // Unreadable (EACCES, ENOTDIR when --cache-dir names a file, EISDIR): a miss, said once.
      this.warnOnce('read', `cache: cannot read ${file} (${errorCode(error) ?? (error as Error).message}); treating the cache as empty`);
      return undefined;
    }
  }

  private async discard(file: string, why: string): Promise<void> {
    if (!(await this.mayWrite())) {
      this.log(`cache: ${why}; not used (the cache is read-only, so it stays)`);
      return;
    }
    this.log(`cache: ${why}; removed ${file}`);
    // Another run may have removed or replaced it already, or the cache is read-only: still a miss.
    // unlink removes a link itself, never its target; the directories are checked first.
    if (await this.checkedParent(file, false).catch(() => false)) await unlink(file).catch(() => undefined);
  }
}

/** Directories the cache creates: writable by the user alone (umask may take more away). */
const DIRECTORY_MODE = 0o755;
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const NON_BLOCK = constants.O_NONBLOCK ?? 0;

/**
 * Why a directory is not the user's alone: owned by another account, writable by every account,
 * or writable by a group other than the user's own (per-user groups are the Debian default).
 * Undefined where it is, or where the platform has no owners (Windows).
 */
export function foreignDirectory(st: Pick<Stats, 'uid' | 'gid' | 'mode'>): string | undefined {
  if (typeof process.getuid !== 'function') return undefined;
  if (st.uid !== process.getuid()) return `is owned by another account (uid ${st.uid})`;
  if (st.mode & 0o002) return 'is writable by every account';
  if (st.mode & 0o020 && st.gid !== process.getgid?.()) return `is writable by group ${st.gid}`;
  return undefined;
}

function isHttpRecord(value: unknown): value is HttpRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.url === 'string' &&
    typeof record.sha256 === 'string' &&
    SHA256_HEX.test(record.sha256) &&
    (record.etag === undefined || typeof record.etag === 'string') &&
    (record.headers === undefined || (typeof record.headers === 'object' && record.headers !== null))
  );
}
