/**
 * clusterctl's local filesystem repository (cmd/clusterctl/client/repository/repository_local.go):
 * `[file://]{basepath}/{provider-label}/{version}/{components-file}`, where `{version}` is a
 * semantic version or `latest` and sibling directories of `{version}` are the other releases.
 * Unlike clusterctl, a path without `file://` may be relative: it resolves against the directory
 * of the manifest file that declared it.
 */
import { constants } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CapiGitopsError, compareStrings, type Diagnostic } from '../../core/diagnostics.js';
import { artifactFromBytes } from '../base/artifact.js';
import { messagePrefix, type DiagnosticOrigin, type UrlRequest } from '../request.js';
import { compareSemantic, parseSemantic } from '../../core/versions.js';
import { ArtifactNotFoundError, LATEST, type Artifact, type ProviderRepository } from '../source.js';
import { errorCode } from '../../core/error-code.js';
import { specialFileKind } from '../../manifest/files.js';

const LAYOUT = '{basepath}/{provider-label}/{version}/{components-file}';

/** A URL scheme as RFC 3986 spells it (`file:`, `https:`); plain paths have none. */
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;

/** True for the URLs this module serves: `file://…` and plain filesystem paths. */
export function isLocalRepositoryUrl(url: string): boolean {
  const scheme = SCHEME.exec(url)?.[1];
  return scheme === undefined || scheme.toLowerCase() === 'file';
}

/** The parts of a local repository URL. */
interface LocalRepositoryLayout {
  /** Absolute directory holding `{provider-label}/`. */
  basePath: string;
  label: string;
  /** The URL's version directory: a tag or `latest`. */
  defaultVersion: string;
  componentsFile: string;
}

/**
 * The absolute filesystem path a local URL names. `file://` URLs must be absolute (clusterctl);
 * plain paths may be relative to `baseDir`.
 */
export function localUrlToPath(url: string, baseDir: string, origin: DiagnosticOrigin): string {
  // a shell expands ~; a path in a manifest is read in CI too, where home is another directory
  if (url === '~' || url.startsWith('~/')) {
    throw new CapiGitopsError({
      ...origin,
      message: `path "${url}" starts with "~", which is not expanded: it would name a directory "~" beside the manifest`,
      expected: 'a path relative to the manifest file, or an absolute one',
      hint: 'write the path relative to the manifest file (e.g. ../repository/…), so every machine that renders reads the same files',
    });
  }
  if (!SCHEME.test(url)) return path.resolve(baseDir, url);
  if (!/^file:\/\//i.test(url)) {
    throw new CapiGitopsError({
      ...origin,
      message: `file URL "${url}" has no "//" after "file:"`,
      expected: 'file:///absolute/path/… or a path without a scheme (relative paths resolve against the manifest file)',
      hint: 'drop the "file:" prefix to use a relative path',
    });
  }
  try {
    return fileURLToPath(new URL(url));
  } catch (error) {
    throw new CapiGitopsError({
      ...origin,
      message: `file URL "${url}" does not name a local path: ${(error as Error).message}`,
      expected: 'file:///absolute/path/… (three slashes: the host part must be empty or "localhost")',
      hint: 'for a relative path, write it without "file://"',
    });
  }
}

/** Splits and validates the layout as clusterctl's newLocalRepository does, with clear messages. */
export function parseLocalRepositoryUrl(
  url: string,
  label: string,
  baseDir: string,
  origin: DiagnosticOrigin,
  name?: string,
): LocalRepositoryLayout {
  const fail = (message: string, hint: string): never => {
    throw new CapiGitopsError({ ...origin, message, expected: `a path shaped ${LAYOUT}, e.g. …/${label}/v1.2.3/<components-file>`, hint });
  };
  if (/[\\/]$/.test(url)) fail(`local repository URL "${url}" ends with a directory`, 'name the components file at the end of the path');

  const absolute = localUrlToPath(url, baseDir, origin);
  const segments = absolute.split(path.sep);
  if (segments.length < 4)
    fail(
      `local repository path "${absolute}" is too short for the local repository layout`,
      'put the components file in a {provider-label}/{version}/ directory',
    );

  const componentsFile = segments[segments.length - 1];
  const defaultVersion = segments[segments.length - 2];
  const foundLabel = segments[segments.length - 3];
  if (defaultVersion !== LATEST && parseSemantic(defaultVersion) === null) {
    fail(
      `the directory above the components file must be a version, found "${defaultVersion}" in "${absolute}"`,
      'name the directory after a release (a semantic version such as v1.12.0) or "latest" for the newest release',
    );
  }
  if (foundLabel !== label) {
    fail(
      `local repository path "${absolute}" must have the provider label "${label}" as the directory above the version, found "${foundLabel}"`,
      nameForLabel(foundLabel, label, name) ??
        `clusterctl finds a provider's releases under a directory named after its manifest label: …/${label}/<version>/${componentsFile}`,
    );
  }
  const basePath = segments.slice(0, -3).join(path.sep) || path.sep;
  return { basePath, label, defaultVersion, componentsFile };
}

/**
 * The directory is the label of this kind of provider under another name (a BootstrapProvider
 * named `bootstrap-rke2` reads `bootstrap-rke2/`, whose label is that of the name `rke2`): the
 * name is what to change, not the repository.
 */
function nameForLabel(foundLabel: string, label: string, name: string | undefined): string | undefined {
  if (name === undefined || !label.endsWith(name) || label === name) return undefined;
  const prefix = label.slice(0, label.length - name.length);
  if (!foundLabel.startsWith(prefix) || foundLabel.length === prefix.length) return undefined;
  const suggested = foundLabel.slice(prefix.length);
  return (
    `"${foundLabel}" is the label of the provider named "${suggested}" (a provider's label is ${prefix}<metadata.name>): ` +
    `set metadata.name: ${suggested}`
  );
}

/** One path segment only: versions and file names must not walk out of the repository. */
function isSingleSegment(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\\') && !name.includes('\0');
}

class LocalRepository implements ProviderRepository {
  readonly readsInPlace = true;
  readonly sourceType = 'local';
  readonly location: string;
  readonly defaultVersion: string;
  readonly componentsFile: string;
  /** `{basepath}/{provider-label}`: one directory per release. */
  readonly releasesDir: string;
  private readonly prefix: string;
  private readonly origin: DiagnosticOrigin;

  constructor(layout: LocalRepositoryLayout, origin: DiagnosticOrigin) {
    this.releasesDir = path.join(layout.basePath, layout.label);
    this.defaultVersion = layout.defaultVersion;
    this.componentsFile = layout.componentsFile;
    this.location = path.join(this.releasesDir, '{version}', layout.componentsFile);
    this.prefix = messagePrefix({ origin, label: layout.label });
    this.origin = origin;
  }

  private problem(message: string, extra: Partial<Diagnostic> = {}): Diagnostic {
    return { ...this.origin, message: this.prefix + message, ...extra };
  }

  /** Release directories whose names are semantic versions (clusterctl GetVersions), sorted. */
  async listVersions(): Promise<string[]> {
    let entries;
    try {
      entries = await readdir(this.releasesDir, { withFileTypes: true });
    } catch (error) {
      throw new CapiGitopsError(
        this.problem(
          `cannot list the releases of local repository "${this.releasesDir}": ${errorCode(error) === 'ENOENT' ? 'the directory does not exist' : (error as Error).message}`,
          {
            hint: `create ${this.releasesDir}/<version>/ directories, or fix the URL's base path`,
          },
        ),
      );
    }
    const versions: string[] = [];
    for (const entry of entries) {
      if (parseSemantic(entry.name) === null) continue;
      if (entry.isDirectory() || (entry.isSymbolicLink() && (await isDirectory(path.join(this.releasesDir, entry.name))))) {
        versions.push(entry.name);
      }
    }
    return versions.sort((a, b) => compareSemantic(parseSemantic(a)!, parseSemantic(b)!) || compareStrings(a, b));
  }

  async getFile(version: string, fileName: string): Promise<Artifact> {
    if (!isSingleSegment(version) || !isSingleSegment(fileName)) {
      throw new CapiGitopsError(
        this.problem(`invalid version "${version}" or file name "${fileName}": each must be a single path segment`),
      );
    }
    const versionDir = path.join(this.releasesDir, version);
    if (!(await isDirectory(versionDir))) {
      throw new ArtifactNotFoundError(
        this.problem(`version ${version} not found: "${versionDir}" is not a directory`, {
          hint: await this.availableVersionsHint(),
        }),
      );
    }
    const filePath = path.join(versionDir, fileName);
    return readLocalArtifact(
      filePath,
      this.origin,
      this.prefix,
      `file ${fileName} of version ${version}`,
      `a local release directory holds the components file and metadata.yaml, e.g. ${path.join(versionDir, this.componentsFile)}`,
    );
  }

  private async availableVersionsHint(): Promise<string> {
    const versions = await this.listVersions().catch(() => []);
    return versions.length > 0
      ? `versions available in ${this.releasesDir}: ${versions.join(', ')}`
      : `${this.releasesDir} has no release directories named after semantic versions`;
  }
}

/**
 * Reads one file as an Artifact named after its base name. A missing file is an
 * ArtifactNotFoundError; `what` and `hint` make the message specific to the caller.
 */
export async function readLocalArtifact(
  filePath: string,
  origin: DiagnosticOrigin,
  prefix: string,
  what: string,
  hint?: string,
): Promise<Artifact> {
  let bytes: Buffer;
  try {
    // a device or a FIFO (certManager.url: /dev/zero) never ends: refused before it is read, from
    // the handle it is read by (opening a FIFO does not wait for a writer)
    const handle = await open(filePath, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const info = await handle.stat();
      if (!info.isFile())
        throw new CapiGitopsError({
          ...origin,
          message: `${prefix}cannot read ${what} from "${filePath}": it is ${specialFileKind(info)}, not a file`,
        });
      bytes = await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof CapiGitopsError) throw error;
    const code = errorCode(error);
    if (code === 'ENOENT') {
      throw new ArtifactNotFoundError({ ...origin, message: `${prefix}${what} not found: "${filePath}" does not exist`, hint });
    }
    const reason = code === 'EISDIR' ? 'it is a directory, not a file' : (error as Error).message;
    throw new CapiGitopsError({ ...origin, message: `${prefix}cannot read ${what} from "${filePath}": ${reason}` });
  }
  // named by its path, not its file:// URL: the encoding hint's iconv runs on it as printed
  return artifactFromBytes(path.basename(filePath), bytes, pathToFileURL(filePath).href, filePath, true);
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Opens a local repository, checking the layout and that `{basepath}/{provider-label}` exists
 * so a wrong base path is reported before any version lookup.
 */
export async function openLocalRepository(request: Omit<UrlRequest, 'from'>): Promise<LocalRepository> {
  const layout = parseLocalRepositoryUrl(request.url, request.label, request.baseDir, request.origin, request.name);
  const repository = new LocalRepository(layout, request.origin);
  if (!(await isDirectory(repository.releasesDir))) {
    throw new CapiGitopsError({
      ...request.origin,
      message: `${messagePrefix(request)}local repository directory "${repository.releasesDir}" does not exist`,
      expected: `a directory laid out as ${LAYOUT}`,
      hint: request.url.startsWith('file:') ? 'check the path in the URL' : `relative paths resolve against ${request.baseDir}`,
    });
  }
  return repository;
}
