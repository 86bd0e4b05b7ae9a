/** Checking fetched files against the digests the lock recorded. */
import { CapiGitopsError, type Diagnostic } from '../../core/diagnostics.js';
import { artifactDisplayName, type Artifact } from '../../core/repository.js';
import { lockEntryLabel, type LockedFile, type LockEntry } from './types.js';

/** Names the component a file belongs to in messages. */
export type DigestSubject = Pick<LockEntry, 'kind' | 'name' | 'version'>;

/** A provider resolved anew from another source (`from` → `to`, as sourceKey spells them) to the locked version. */
export interface SourceChange {
  from: string;
  to: string;
}

/**
 * The problem when `actualSha256` is not the digest the lock recorded for the file; the hint names
 * the command that accepts the new file for this component only (lock/accept-digests.ts). With
 * `moved`, the file came from a new source for the version the old one was locked at.
 */
export function digestMismatch(
  file: LockedFile,
  fetched: Pick<Artifact, 'name' | 'sha256' | 'url'>,
  subject: DigestSubject,
  moved?: SourceChange,
): Diagnostic | undefined {
  const actual = fetched.sha256.toLowerCase();
  if (actual === file.sha256.toLowerCase()) return undefined;
  const label = lockEntryLabel(subject);
  const why = moved
    ? `the source changed (${moved.from} → ${moved.to}) but the version did not, and the new source serves other content for ${subject.version}`
    : 'the release was probably re-tagged (its files replaced under the same version) since it was locked';
  return {
    message: `${label} ${subject.version}: ${file.name} from ${artifactDisplayName(fetched)} has sha256 ${actual}, but the lockfile recorded sha256 ${file.sha256}; ${why}`,
    expected: `sha256 ${file.sha256}`,
    hint:
      `compare the file with the release you expect (upstream release notes, a trusted copy); if the new file is right, ` +
      `accept it for this component only with \`capi-gitops lock --accept-digest ${label}\` and commit the lockfile` +
      (moved ? '; otherwise set the source back' : ''),
  };
}

/** Where the lockfile records a digest (its file, line and column), when it can tell. */
export type LockedDigestPosition = (sha256: string) => Pick<Diagnostic, 'file' | 'line' | 'column'> | undefined;

/**
 * Every fetched file of a locked component against the lock: all mismatches, and files the
 * lock does not list, reported together; a mismatch at the digest's line in the lockfile.
 */
export function verifyLockedArtifacts(
  entry: LockEntry,
  artifacts: readonly Pick<Artifact, 'name' | 'sha256' | 'url'>[],
  where: LockedDigestPosition = () => undefined,
): void {
  const problems: Diagnostic[] = [];
  for (const artifact of artifacts) {
    const locked = entry.files.find((file) => file.name === artifact.name);
    if (locked === undefined) {
      problems.push({
        message: `${lockEntryLabel(entry)} ${entry.version}: ${artifact.name} was fetched but the lockfile does not list it`,
        expected: `one of ${entry.files.map((file) => file.name).join(', ') || '(no files)'}`,
        hint: 'run `capi-gitops lock` to record it',
      });
      continue;
    }
    const problem = digestMismatch(locked, artifact, entry);
    if (problem) problems.push({ ...where(locked.sha256), ...problem });
  }
  if (problems.length > 0) throw new CapiGitopsError(problems);
}
