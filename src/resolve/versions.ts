/**
 * Which release a provider gets. Forms of spec.version:
 * - an exact tag (`v1.12.0`): used as written;
 * - empty: the repository URL's own version, and for `latest` clusterctl's contract-aware
 *   latest (cmd/clusterctl/client/repository/repository_versions.go latestContractRelease);
 * - a semver range (`~1.12`, `>=1.10 <1.13`; a capi-gitops extension): the highest stable tag
 *   satisfying it.
 * Tags that are not semantic versions are ignored, as clusterctl ignores them.
 */
import type { SemVer } from 'semver';
import semverSatisfies from 'semver/functions/satisfies.js';
import { CapiGitopsError } from '../core/diagnostics.js';
import { compareSemantic, parseSemantic, parseVersionRequest } from '../core/versions.js';
import { ArtifactNotFoundError, LATEST, METADATA_FILE, type ProviderRepository } from '../core/repository.js';
import { CURRENT_CONTRACT, parseMetadata, releaseSeriesForContract } from './metadata.js';

/** clusterctl probes at most this many newest tags for a metadata.yaml. */
const LATEST_SEARCH_WIDTH = 5;

interface Tag {
  tag: string;
  version: SemVer;
}

function semanticTags(tags: readonly string[]): Tag[] {
  const parsed: Tag[] = [];
  for (const tag of tags) {
    const version = parseSemantic(tag);
    if (version !== null) parsed.push({ tag, version });
  }
  return parsed;
}

/** clusterctl's latest order: stable releases before pre-releases, each newest first. */
export function sortForLatest(tags: readonly string[]): string[] {
  return semanticTags(tags)
    .sort((a, b) => {
      const aStable = a.version.prerelease.length === 0;
      const bStable = b.version.prerelease.length === 0;
      if (aStable !== bStable) return aStable ? -1 : 1;
      return compareSemantic(b.version, a.version);
    })
    .map((t) => t.tag);
}

interface Series {
  major: number;
  minor: number;
}

function noRelease(repository: ProviderRepository, series: Series | undefined, detail: string): CapiGitopsError {
  const within = series ? ` in series ${series.major}.${series.minor}` : '';
  return new CapiGitopsError({
    message: `no release${within} found in ${repository.location}: ${detail}`,
    expected: 'a release tagged with a semantic version (e.g. v1.2.3) that publishes metadata.yaml',
    hint: 'set spec.version to a release that exists, or check the repository URL',
  });
}

/**
 * clusterctl latestPatchRelease: of the tags (in one major.minor series if given), stable
 * before pre-release, newest first, the first of the top five that has a metadata.yaml. A
 * missing file skips the tag; any other failure stops the search.
 */
export async function latestPatchRelease(repository: ProviderRepository, series?: Series, skipped: string[] = []): Promise<string> {
  const tags = (await repository.listVersions()).filter((tag) => {
    const version = parseSemantic(tag);
    return version !== null && (series === undefined || (version.major === series.major && version.minor === series.minor));
  });
  const candidates = sortForLatest(tags).slice(0, LATEST_SEARCH_WIDTH);
  if (candidates.length === 0) throw noRelease(repository, series, 'no tag is a semantic version');
  const found = await firstPublished(repository, candidates, skipped);
  if (found !== undefined) return found;
  throw noRelease(repository, series, `none of the newest ${candidates.length} (${candidates.join(', ')}) has a metadata.yaml`);
}

/**
 * The first of `candidates` that has a metadata.yaml; the others before it into `skipped`. A
 * missing file skips the tag; any other failure stops the search, so a transient error never
 * silently selects an older release.
 */
async function firstPublished(
  repository: ProviderRepository,
  candidates: readonly string[],
  skipped: string[],
): Promise<string | undefined> {
  for (const tag of candidates) {
    try {
      await repository.getFile(tag, METADATA_FILE);
      return tag;
    } catch (error) {
      if (!(error instanceof ArtifactNotFoundError)) throw error;
      skipped.push(tag);
    }
  }
  return undefined;
}

/**
 * clusterctl latestContractRelease: the latest release, unless its metadata.yaml says a newer
 * or older series implements `contract`, then the latest patch of that series. A metadata.yaml
 * that cannot be read or parsed leaves the latest release (clusterctl's best effort); reading
 * it properly later reports the problem.
 */
export async function latestContractRelease(
  repository: ProviderRepository,
  contract: string = CURRENT_CONTRACT,
  skipped: string[] = [],
): Promise<string> {
  const latest = await latestPatchRelease(repository, undefined, skipped);
  let metadataText: string;
  try {
    metadataText = (await repository.getFile(latest, METADATA_FILE)).text;
  } catch (error) {
    if (error instanceof ArtifactNotFoundError) throw error;
    return latest;
  }
  let series;
  try {
    series = releaseSeriesForContract(parseMetadata(metadataText, { label: repository.location, version: latest }), contract);
  } catch {
    return latest;
  }
  const version = parseSemantic(latest)!;
  if (series === undefined || (series.major === version.major && series.minor === version.minor)) return latest;
  return latestPatchRelease(repository, series, skipped);
}

/** How many releases an error names, newest first; a listing of thousands is counted. */
const NAMED_RELEASES = 20;

function newestNamed(sorted: string[]): string {
  if (sorted.length <= NAMED_RELEASES) return sorted.join(', ');
  return `${sorted.slice(0, NAMED_RELEASES).join(', ')} and ${sorted.length - NAMED_RELEASES} older releases`;
}

/**
 * Our range extension: the highest stable tag satisfying the range that publishes a metadata.yaml,
 * of the five highest, as latest searches (a tag a versions list names but never published is
 * passed over, into `skipped`).
 */
export async function highestInRange(repository: ProviderRepository, range: string, skipped: string[] = []): Promise<string> {
  const tags = semanticTags(await repository.listVersions());
  const satisfying = tags.filter((t) => t.version.prerelease.length === 0 && semverSatisfies(t.version, range));
  if (satisfying.length === 0) {
    const stable = sortForLatest(tags.filter((t) => t.version.prerelease.length === 0).map((t) => t.tag));
    // not found, as an exact tag that does not exist: a problem of the spec.version that names it (resolve.ts atVersionField)
    throw new ArtifactNotFoundError({
      message: `no release in ${repository.location} satisfies version range "${range}"`,
      expected: `one of ${stable.length > 0 ? newestNamed(stable) : '(no stable releases)'}`,
      hint: 'widen the range or pin an exact version',
    });
  }
  satisfying.sort((a, b) => compareSemantic(b.version, a.version));
  const candidates = satisfying.slice(0, LATEST_SEARCH_WIDTH).map((t) => t.tag);
  const found = await firstPublished(repository, candidates, skipped);
  if (found !== undefined) return found;
  throw new ArtifactNotFoundError({
    message: `no release in ${repository.location} satisfying version range "${range}" publishes a metadata.yaml: ${candidates.join(', ')} ${candidates.length === 1 ? 'has' : 'have'} none`,
    expected: 'a published release: its components file and metadata.yaml',
    hint: 'check that the repository lists only published releases, or pin an exact version',
  });
}

interface ResolvedVersion {
  /** What was asked: spec.version, or the repository URL's version when it was empty. */
  requested: string;
  version: string;
  /** Newer releases `latest` or a range passed over: they publish no metadata.yaml (clusterctl skips them too). */
  skipped?: string[];
}

/**
 * The release for a spec.version. Empty takes the repository's default version (the URL's tag,
 * or `latest` → latestContractRelease for `contract`). Exact versions are not looked up here;
 * fetching their files reports a missing release.
 */
export async function resolveVersion(
  repository: ProviderRepository,
  specVersion: string | undefined,
  contract: string = CURRENT_CONTRACT,
): Promise<ResolvedVersion> {
  const request = parseVersionRequest(specVersion);
  if (request === null) {
    throw new CapiGitopsError({
      path: 'spec.version',
      message: `version "${specVersion}" is neither a semantic version nor a version range`,
      expected: 'an exact release such as v1.12.0, a range such as ~1.12, or empty for the latest release',
    });
  }
  switch (request.form) {
    case 'exact':
      return { requested: request.version, version: request.version };
    case 'range': {
      const skipped: string[] = [];
      const version = await highestInRange(repository, request.range, skipped);
      return { requested: request.range, version, ...(skipped.length > 0 && { skipped }) };
    }
    case 'latest': {
      const requested = repository.defaultVersion;
      if (requested === LATEST) {
        const skipped: string[] = [];
        const version = await latestContractRelease(repository, contract, skipped);
        return { requested, version, ...(skipped.length > 0 && { skipped }) };
      }
      return { requested, version: requested };
    }
  }
}
