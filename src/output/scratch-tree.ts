/**
 * A fleet's render kept on disk for a review (`diff`), not in memory: each cluster's files are
 * appended to a file of the cluster's in a private temporary directory as the cluster is laid
 * out, and read back a cluster at a time. A 200-cluster fleet in the full layout is 700 MB of
 * text, which diff held for each side it rendered. One file a cluster, not one a rendered file:
 * creating and removing 24,000 small files cost this machine's file system seconds of system
 * time. The directory is removed by `dispose`, or by a signal.
 */
import { appendFile, mkdtemp, open, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CapiGitopsError, compareStrings } from '../core/diagnostics.js';
import { errorCode } from '../core/error-code.js';
import { sha256Hex } from '../core/digest.js';
import { onInterrupt, throwIfInterrupted } from '../core/interrupt.js';
import { mapLimited, OPEN_FILES } from '../core/map-limited.js';
import { clusterOf, type FleetFiles } from '../layout/fleet.js';

/** Where a text is: its segment (a file of the scratch directory), the byte it starts at and its length. */
interface Stored {
  segment: string;
  start: number;
  length: number;
  digest: string;
}

export class ScratchTree implements FleetFiles {
  private readonly stored = new Map<string, Stored>();
  private readonly held = new Map<string, Stored>();
  /** Each segment's size once the appends queued so far are done. */
  private readonly sizes = new Map<string, number>();
  /** Segments by the cluster whose files they hold ('' for the files outside every cluster's directory). */
  private readonly segments = new Map<string, string>();
  /** The appends, one after another, so each lands at the offset reserved for it. */
  private appending: Promise<void> = Promise.resolve();
  private readonly withdraw: () => void;
  /** The directory, made by the first append: a render that is not a fleet's writes nothing. */
  private root: string | undefined;
  /** Set by a removal: an append queued after it (a signal before the first) makes no directory that nothing would remove. */
  private removed = false;

  constructor() {
    // the render (a Secret's value inline, when allowed) does not outlive a Ctrl-C
    this.withdraw = onInterrupt(() => this.remove());
  }

  /** The directory, made in the system's temporary directory (mode 0700, as mkdtemp makes it) when first asked for. */
  private async directory(): Promise<string> {
    if (this.removed) {
      throwIfInterrupted();
      throw new Error('the scratch tree is used after its removal');
    }
    this.root ??= await mkdtemp(path.join(os.tmpdir(), 'capi-gitops-render-')).catch((err: unknown) => {
      throw scratchProblem(err, os.tmpdir());
    });
    return this.root;
  }

  private segmentOf(file: string): string {
    const cluster = clusterOf(file);
    let segment = this.segments.get(cluster);
    if (segment === undefined) this.segments.set(cluster, (segment = `segment-${this.segments.size}`));
    return segment;
  }

  /** Appends texts to `segment`; where each landed, in their order. */
  private append(segment: string, texts: readonly string[]): Promise<Stored[]> {
    const bytes = texts.map((text) => Buffer.from(text, 'utf8'));
    let start = this.sizes.get(segment) ?? 0;
    const stored = bytes.map((b) => {
      const at = { segment, start, length: b.length, digest: sha256Hex(b) };
      start += b.length;
      return at;
    });
    this.sizes.set(segment, start);
    // in the queue, so that one append makes the directory
    const appended = this.appending.then(async () => {
      const file = path.join(await this.directory(), segment);
      await appendFile(file, Buffer.concat(bytes)).catch((err: unknown) => {
        throw scratchProblem(err, file);
      });
    });
    this.appending = appended.catch(() => undefined);
    return appended.then(() => stored);
  }

  async writeAll(files: Iterable<[string, string]>): Promise<void> {
    const bySegment = new Map<string, [string, string][]>();
    for (const entry of files) {
      const segment = this.segmentOf(entry[0]);
      const list = bySegment.get(segment);
      if (list) list.push(entry);
      else bySegment.set(segment, [entry]);
    }
    await Promise.all(
      [...bySegment].map(async ([segment, entries]) => {
        const stored = await this.append(
          segment,
          entries.map(([, text]) => text),
        );
        entries.forEach(([file], i) => this.stored.set(file, stored[i]!));
      }),
    );
  }

  async hold(key: string, text: string): Promise<void> {
    this.held.set(key, (await this.append('held', [text]))[0]!);
  }

  async placeAll(placements: Iterable<[string, string]>): Promise<void> {
    // a placed text stays where it was held: only where to find it changes
    for (const [key, file] of placements) {
      this.stored.set(file, this.held.get(key)!);
      this.held.delete(key);
    }
  }

  /** The tree's files and their sha256, sorted by path. */
  files(): Map<string, string> {
    return new Map([...this.stored].sort(([a], [b]) => compareStrings(a, b)).map(([file, at]) => [file, at.digest]));
  }

  /** The texts of `files` (paths the tree holds), in their order. */
  async read(files: readonly string[]): Promise<Map<string, string>> {
    const bySegment = new Map<string, number[]>();
    files.forEach((file, i) => {
      const { segment } = this.stored.get(file)!;
      const list = bySegment.get(segment);
      if (list) list.push(i);
      else bySegment.set(segment, [i]);
    });
    const texts = new Array<string>(files.length);
    await mapLimited([...bySegment], OPEN_FILES, async ([segment, indexes]) => {
      const handle = await open(path.join(this.root!, segment), 'r');
      try {
        for (const i of indexes) {
          const { start, length } = this.stored.get(files[i]!)!;
          const bytes = Buffer.alloc(length);
          for (let done = 0; done < length;) {
            const { bytesRead } = await handle.read(bytes, done, length - done, start + done);
            if (bytesRead === 0) throw new Error(`${segment} ends before ${files[i]}`);
            done += bytesRead;
          }
          texts[i] = bytes.toString('utf8');
        }
      } finally {
        await handle.close();
      }
    });
    return new Map(files.map((file, i) => [file, texts[i]!]));
  }

  private remove(): Promise<void> {
    // after the appends under way (one would make a file in the directory rm is emptying) and
    // before those queued later, which then find no directory
    const removed = this.appending.then(() => {
      this.removed = true;
      return this.root === undefined ? undefined : rm(this.root, { recursive: true, force: true });
    });
    this.appending = removed.catch(() => undefined);
    return removed;
  }

  async dispose(): Promise<void> {
    this.withdraw();
    await this.remove();
  }
}

/**
 * A file-system error of the scratch tree at `file` (a failed write names no path), with a hint
 * about TMPDIR, where it is: -o and --cache-dir, which the generic hint names, do not move it.
 */
function scratchProblem(err: unknown, file: string): unknown {
  const code = errorCode(err);
  if (code === undefined) return err;
  const full = code === 'ENOSPC' || code === 'EDQUOT';
  return new CapiGitopsError({
    file,
    message: `cannot keep the render for the review in the temporary directory: ${code}`,
    hint: full
      ? 'free some space there, or set TMPDIR to a file system with room (a fleet takes about the size of its output)'
      : 'set TMPDIR to a directory this user can write',
  });
}
