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
 * The parsed store is JSON. v8.serialize was measured on the corpus (core-components v1.12.0,
 * 0.9 MB as JSON): deserialising was no faster than JSON.parse (4.4 ms both), the file was 1.8×
 * larger, and its format is tied to the V8 version, so JSON it is.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Metadata kept per URL for conditional requests (If-None-Match) and offline use. */
export interface HttpRecord {
  url: string;
  /** The response's ETag, sent back as If-None-Match; absent when the server gave none. */
  etag?: string;
  /** sha256 of the body, stored as a blob. */
  sha256: string;
  /** Response headers a 304 does not repeat but the caller needs, e.g. `link` for pagination. */
  headers?: Record<string, string>;
}

export interface ArtifactCacheOptions {
  /** Receives one line per notable event (a corrupt entry removed). */
  log?: (line: string) => void;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
export const PARSED_RETENTION_DAYS = 14;
/** Marks the last trim of the parsed store; not a `.json`, so never taken for an entry. */
const TRIM_MARKER = 'last-trim';

export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

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
  return (error as NodeJS.ErrnoException)?.code === 'ENOENT';
}

/** Content-addressed artifact store plus HTTP metadata and parsed-form records. */
export class ArtifactCache {
  readonly dir: string;
  private readonly log: (line: string) => void;

  /** `dir` is created on first write. Use `defaultCacheDir()` for the usual location. */
  constructor(dir: string = defaultCacheDir(), options: ArtifactCacheOptions = {}) {
    this.dir = path.resolve(dir);
    this.log = options.log ?? (() => undefined);
  }

  /** Where a blob lives; throws on anything but a lower-case sha256 hex string. */
  blobPath(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) throw new Error(`not a sha256 hex digest: ${JSON.stringify(sha256)}`);
    return path.join(this.dir, 'blobs', 'sha256', sha256);
  }

  /** Stores bytes and returns their sha256. Rewrites an existing entry, which also heals a corrupt one. */
  async putBlob(bytes: Uint8Array): Promise<string> {
    const sha256 = sha256Hex(bytes);
    await this.writeAtomic(this.blobPath(sha256), bytes);
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
    const record = await this.readJson(file);
    if (record === undefined) return undefined;
    if (!isHttpRecord(record)) {
      await this.discard(file, `HTTP record for ${url} is malformed`);
      return undefined;
    }
    // A different URL here would be a sha256 collision: not ours.
    return record.url === url ? record : undefined;
  }

  async putHttpRecord(record: HttpRecord): Promise<void> {
    if (!SHA256_HEX.test(record.sha256)) throw new Error(`HTTP record for ${record.url}: not a sha256 hex digest`);
    await this.writeAtomic(this.recordPath('http', record.url), JSON.stringify(record));
  }

  /**
   * A value stored by `putParsed` under the same key, or undefined. The key is built by the
   * caller so that it changes whenever the value would, e.g. `yaml-v1:<artifact sha256>`.
   */
  async getParsed<T>(key: string): Promise<T | undefined> {
    const file = this.recordPath('parsed', key);
    const entry = await this.readJson(file);
    if (entry === undefined) return undefined;
    if (typeof entry !== 'object' || entry === null || !('key' in entry) || !('value' in entry)) {
      await this.discard(file, `parsed entry ${key} is malformed`);
      return undefined;
    }
    if (entry.key !== key) return undefined;
    await this.markUsed(file);
    return entry.value as T;
  }

  /**
   * Deletes parsed entries unused for PARSED_RETENTION_DAYS, at most once a day (the first
   * caller after that writes the marker; concurrent trims only race on unlinks, which is safe).
   * Returns how many entries were removed.
   */
  async trimParsed(now: number = Date.now()): Promise<number> {
    const dir = path.join(this.dir, 'parsed');
    const marker = path.join(dir, TRIM_MARKER);
    const last = await stat(marker).then((st) => st.mtimeMs, () => undefined);
    if (last !== undefined && now - last < DAY_MS) return 0;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (error) {
      if (isMissing(error)) return 0;
      throw error;
    }
    try {
      await writeFile(marker, '');
      await utimes(marker, now / 1000, now / 1000);
    } catch {
      return 0; // A read-only cache is served, not maintained.
    }
    let removed = 0;
    for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
      const file = path.join(dir, name);
      const mtime = await stat(file).then((st) => st.mtimeMs, () => undefined);
      if (mtime === undefined || now - mtime < PARSED_RETENTION_DAYS * DAY_MS) continue;
      await rm(file, { force: true });
      removed++;
    }
    if (removed > 0) this.log(`cache: removed ${removed} parsed ${removed === 1 ? 'entry' : 'entries'} unused for ${PARSED_RETENTION_DAYS} days from ${dir}`);
    return removed;
  }

  /** Refreshes an entry's mtime, at most hourly, so trimming sees it as used. */
  private async markUsed(file: string, now: number = Date.now()): Promise<void> {
    try {
      const st = await stat(file);
      if (now - st.mtimeMs > HOUR_MS) await utimes(file, st.atime, now / 1000);
    } catch {
      // Removed or read-only meanwhile: the entry was still served; trimming may drop it.
    }
  }

  /** Stores a JSON-representable value; undefined fields are dropped as JSON drops them. */
  async putParsed(key: string, value: unknown): Promise<void> {
    await this.writeAtomic(this.recordPath('parsed', key), JSON.stringify({ key, value }));
  }

  private recordPath(kind: 'http' | 'parsed', key: string): string {
    return path.join(this.dir, kind, `${sha256Hex(key)}.json`);
  }

  /** Temp file in the target's own directory (rename is only atomic within one file system), then rename. */
  private async writeAtomic(file: string, data: Uint8Array | string): Promise<void> {
    const dir = path.dirname(file);
    await mkdir(dir, { recursive: true });
    const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      await writeFile(temp, data, { flag: 'wx' });
      await rename(temp, file);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  private async readIfPresent(file: string): Promise<Buffer | undefined> {
    try {
      return await readFile(file);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  private async readJson(file: string): Promise<unknown> {
    const bytes = await this.readIfPresent(file);
    if (bytes === undefined) return undefined;
    try {
      return JSON.parse(bytes.toString('utf8')) as unknown;
    } catch {
      await this.discard(file, `${path.relative(this.dir, file)} is not valid JSON`);
      return undefined;
    }
  }

  private async discard(file: string, why: string): Promise<void> {
    this.log(`cache: ${why}; removed ${file}`);
    try {
      await unlink(file);
    } catch (error) {
      // Another run may have removed or replaced it already.
      if (!isMissing(error)) throw error;
    }
  }
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
