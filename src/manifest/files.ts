import { lstat, open, readdir, readlink, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { decodeUtf8 } from '../core/utf8.js';
import path from 'node:path';
import { CapiGitopsError, compareStrings, type Diagnostic } from '../core/diagnostics.js';
import { shellWord } from '../core/shell.js';
import { errorCode } from '../core/error-code.js';
import { mapLimited, OPEN_FILES } from '../core/map-limited.js';

/** The lockfile's name: it sits beside the manifests (lock/ reads and writes it). */
export const LOCKFILE_NAME = 'capi-gitops.lock.yaml';

const MANIFEST_EXTENSIONS = ['.yaml', '.yml'];
const EXPECTED_PATH = 'a YAML file, or a directory of *.yaml and *.yml files';

export interface ManifestFile {
  /** The path as the user wrote it (joined with the entry name for directories). */
  file: string;
  text: string;
}

/** The names a `-f` directory contributes: *.yaml and *.yml, not the lockfile that sits beside them. */
export function isManifestName(name: string): boolean {
  return name !== LOCKFILE_NAME && MANIFEST_EXTENSIONS.some((extension) => name.endsWith(extension));
}

/**
 * `*.yaml` and `*.yml` files directly in a directory (not below it, not the lockfile), in
 * code-unit order. An entry with a manifest name that is not a readable regular file (a dangling
 * symlink, a symlink loop, a FIFO, a directory) is an error, never skipped: skipping it would
 * silently drop providers, and Argo CD or Flux with pruning would then uninstall them.
 */
async function filesInDirectory(directory: string, problems: Diagnostic[]): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const names = entries
    .filter((entry) => isManifestName(entry.name))
    .map((entry) => entry.name)
    .sort(compareStrings);
  const files: string[] = [];
  for (const name of names) {
    const file = path.join(directory, name);
    // A symbolic link counts when it points at a file.
    const info = await stat(file).catch((error: unknown) => error as NodeJS.ErrnoException);
    if (info instanceof Error) {
      const why =
        info.code === 'ENOENT'
          ? 'a symbolic link to nothing'
          : info.code === 'ELOOP'
            ? 'a symbolic link loop'
            : `unreadable (${info.code ?? info.message})`;
      problems.push({
        file,
        message: `cannot read: ${why}`,
        expected: 'a readable YAML file (every *.yaml and *.yml in a -f directory is read)',
        hint: `fix or remove ${file}, or rename it so that it does not end in .yaml or .yml`,
      });
    } else if (!info.isFile()) {
      const kind = info.isFIFO()
        ? 'a named pipe'
        : info.isDirectory()
          ? 'a directory'
          : info.isSocket()
            ? 'a socket'
            : 'not a regular file';
      problems.push({
        file,
        message: `cannot read: ${kind}`,
        expected: 'a readable YAML file (every *.yaml and *.yml in a -f directory is read)',
        hint: `remove ${file}, or rename it so that it does not end in .yaml or .yml`,
      });
    } else files.push(file);
  }
  return files;
}

/**
 * The files `-f` values name, in order: a file as is, a directory as its manifest files.
 * A file named twice is read once.
 */
export async function listManifestFiles(paths: readonly string[], problems: Diagnostic[]): Promise<string[]> {
  if (paths.length === 0) problems.push({ message: 'no manifest given', expected: EXPECTED_PATH, hint: 'pass -f <file or directory>' });
  const files: string[] = [];
  for (const given of paths) {
    const info = await stat(given).catch((error: unknown) => error);
    if (info instanceof Error) {
      const missing = errorCode(info) === 'ENOENT';
      problems.push({
        file: given,
        message: missing ? 'no such file or directory' : `cannot read: ${errorCode(info) ?? info.message}`,
        expected: EXPECTED_PATH,
        hint: 'check the -f path; relative paths are relative to the current directory',
      });
    } else if ((info as Awaited<ReturnType<typeof stat>>).isDirectory()) {
      const before = problems.length;
      const found = await filesInDirectory(given, problems).catch((error: unknown) => {
        problems.push({
          file: given,
          message: `cannot list the directory: ${errorCode(error) ?? (error as Error).message}`,
          expected: EXPECTED_PATH,
          hint: 'check that the directory is readable',
        });
        return [] as string[];
      });
      if (found.length === 0 && problems.length === before)
        problems.push({
          file: given,
          message: 'directory has no *.yaml or *.yml files',
          expected: EXPECTED_PATH,
          hint: 'manifest files directly in the directory are read; subdirectories are not',
        });
      files.push(...found);
    } else if (path.basename(given) === LOCKFILE_NAME) {
      // read as a manifest it is a document of an unsupported kind, `Lock`, with a hint about GitOps tools
      problems.push({
        file: given,
        message: 'this is the lockfile capi-gitops keeps beside the manifest, not a manifest file',
        expected: EXPECTED_PATH,
        hint: `leave it out of -f: it is read from beside the first -f path (pass the directory, -f ${shellWord(path.dirname(given))}, which reads every manifest file in it but the lockfile)`,
      });
    } else {
      // Named explicitly, a pipe is fine (`-f <(generate)`).
      files.push(given);
    }
  }
  const seen = new Set<string>();
  return files.filter((file) => {
    const absolute = path.resolve(file);
    if (seen.has(absolute)) return false;
    seen.add(absolute);
    return true;
  });
}

/**
 * Refuses manifest files a command (`update`, `convert --in-place`) would rewrite that are
 * symbolic links or not regular files, before anything is written: a pull request can commit a
 * manifest as a link to a file outside the repository (say ~/.ssh/authorized_keys), and the
 * rename that replaces the manifest would replace that file instead. Reading through a link stays
 * allowed: it writes nothing.
 */
export async function refuseLinkedManifestFiles(files: readonly string[], command: 'update' | 'convert --in-place'): Promise<void> {
  const problems: Diagnostic[] = [];
  for (const file of files) {
    const entry = await lstat(file).catch(() => undefined);
    if (entry === undefined || entry.isFile()) continue;
    if (!entry.isSymbolicLink()) {
      problems.push({
        file,
        message: `the manifest file is ${specialFileKind(entry)}, not a regular file; ${command} rewrites it in place`,
        expected: 'a regular file',
        hint: `save the manifest to a regular file and run ${command} with -f on that file`,
      });
      continue;
    }
    const target = path.resolve(path.dirname(file), await readlink(file).catch(() => '(unreadable)'));
    problems.push({
      file,
      message: `the manifest file is a symbolic link to ${target}; ${command} rewrites the manifest file in place and follows no link there`,
      expected: 'a regular file',
      hint: `replace the link with the file itself (rm ${shellWord(file)} && cp ${shellWord(target)} ${shellWord(file)}), then run ${command} again`,
    });
  }
  if (problems.length > 0) throw new CapiGitopsError(problems);
}

/** What a file that is not a regular one is, for messages. */
export function specialFileKind(info: Pick<Stats, 'isDirectory' | 'isFIFO' | 'isSocket'>): string {
  return info.isDirectory()
    ? 'a directory'
    : info.isFIFO()
      ? 'a named pipe'
      : info.isSocket()
        ? 'a socket'
        : 'a device or other special file';
}

/** No manifest is this large; the bound keeps `-f /dev/zero` (or an endless pipe) from filling memory. */
export const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

class TooLarge extends Error {}

/**
 * The file's bytes, read in chunks so that a device or pipe without end stops at the bound. A
 * regular file's chunk is its size and a byte (the read that finds its end): a 1 MiB buffer for
 * each of thousands of small files in a -f directory was gigabytes allocated and collected.
 */
async function readBounded(file: string): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const chunkSize = Math.min(1024 * 1024, size > 0 ? size + 1 : 64 * 1024);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(chunkSize, MAX_MANIFEST_BYTES + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) return Buffer.concat(chunks, total);
      chunks.push(bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > MAX_MANIFEST_BYTES) throw new TooLarge();
    }
  } finally {
    await handle.close();
  }
}

/**
 * A file given beside the manifest (a `--values` or `--secret-file` file, a chart's file) as
 * text, bounded as a manifest file is: a 1 GB file (or /dev/zero) would exhaust the heap.
 */
export async function readBoundedText(file: string): Promise<string> {
  try {
    return (await readBounded(file)).toString('utf8');
  } catch (error) {
    if (!(error instanceof TooLarge)) throw error;
    throw new CapiGitopsError({
      file,
      message: `larger than ${MAX_MANIFEST_BYTES / 1024 / 1024} MiB`,
      expected: 'a file of at most 64 MiB',
      hint: 'check that the path names the file you meant',
    });
  }
}

/**
 * Reads the files OPEN_FILES at a time (a -f directory of more files than the open-file limit
 * failed past it with EMFILE), keeping their order. `texts` (absolute path → text) stands in for
 * files not yet written (`update` resolves its edits before it commits them with the lockfile).
 */
export async function readManifestFiles(
  files: readonly string[],
  problems: Diagnostic[],
  texts?: ReadonlyMap<string, string>,
): Promise<ManifestFile[]> {
  const read = await mapLimited(files, OPEN_FILES, async (file) => {
    const text = texts?.get(path.resolve(file));
    if (text !== undefined) return { file, text };
    try {
      const bytes = await readBounded(file);
      return { file, text: decodeUtf8(bytes, file) };
    } catch (error) {
      if (error instanceof TooLarge) {
        problems.push({
          file,
          message: `larger than ${MAX_MANIFEST_BYTES / 1024 / 1024} MiB`,
          expected: 'a manifest file of at most 64 MiB',
          hint: 'split the manifest into several files, or check that -f names the file you meant',
        });
        return undefined;
      }
      if (error instanceof CapiGitopsError) {
        problems.push(...error.diagnostics);
        return undefined;
      }
      problems.push({
        file,
        message: `cannot read: ${errorCode(error) ?? (error as Error).message}`,
        expected: EXPECTED_PATH,
        hint: 'check that the file is readable',
      });
      return undefined;
    }
  });
  return read.filter((entry): entry is ManifestFile => entry !== undefined);
}
