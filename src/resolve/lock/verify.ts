/** Checking fetched files against the digests the lock recorded. */
import path from 'node:path';
import { CapiGitopsError, type Diagnostic } from '../../core/diagnostics.js';
import { sha256Hex } from '../../core/digest.js';
import { shellWord } from '../../core/shell.js';
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
  fetched: Pick<Artifact, 'name' | 'sha256' | 'url'> & { text?: string },
  subject: DigestSubject,
  moved?: SourceChange,
): Diagnostic | undefined {
  const actual = fetched.sha256.toLowerCase();
  if (actual === file.sha256.toLowerCase()) return undefined;
  const label = lockEntryLabel(subject);
  if (convertedByGit(file, fetched)) return crlfProblem(file, fetched, label, subject.version);
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

/**
 * A local file whose digest is the locked one once its CRLF line endings are LF: Git converted it
 * at checkout (core.autocrlf=true, Git for Windows' default). Accepting that digest would lock
 * what no other checkout has.
 */
function convertedByGit(file: LockedFile, fetched: { url: string; text?: string }): boolean {
  return (
    fetched.url.startsWith('file://') &&
    fetched.text?.includes('\r\n') === true &&
    sha256Hex(fetched.text.replace(/\r\n/g, '\n')) === file.sha256.toLowerCase()
  );
}

function crlfProblem(file: LockedFile, fetched: Pick<Artifact, 'name' | 'url'>, label: string, version: string): Diagnostic {
  const shown = artifactDisplayName(fetched);
  const attributes = path.join(path.dirname(shown), '.gitattributes');
  return {
    message: `${label} ${version}: ${file.name} from ${shown} has CRLF line endings (Git converts at checkout with core.autocrlf=true), and with LF it has the locked sha256`,
    expected: `sha256 ${file.sha256}`,
    hint:
      `keep the file byte for byte in Git (a .gitattributes line), then check it out again: ` +
      `echo ${shellWord(`${path.basename(shown)} -text`)} >> ${shellWord(attributes)} && rm ${shellWord(shown)} && git checkout -- ${shellWord(shown)}`,
  };
}

/** Where the lockfile records a digest (its file, line and column), when it can tell. */
export type LockedDigestPosition = (sha256: string) => Pick<Diagnostic, 'file' | 'line' | 'column'> | undefined;

/**
 * Every fetched file of a locked component against the lock: all mismatches, and files the
 * lock does not list, reported together; a mismatch at the digest's line in the lockfile, a file
 * not listed at the entry's first listed digest (at the entry, `whereEntry`, when it lists none).
 */
export function verifyLockedArtifacts(
  entry: LockEntry,
  artifacts: readonly (Pick<Artifact, 'name' | 'sha256' | 'url'> & { text?: string })[],
  where: LockedDigestPosition = () => undefined,
  whereEntry: () => Pick<Diagnostic, 'file' | 'line' | 'column'> | undefined = () => undefined,
): void {
  const problems: Diagnostic[] = [];
  for (const artifact of artifacts) {
    const locked = entry.files.find((file) => file.name === artifact.name);
    if (locked === undefined) {
      // told at the entry's files (its first digest): the list the file is missing from
      const listed = entry.files[0];
      problems.push({
        ...(listed ? where(listed.sha256) : whereEntry()),
        message: `${lockEntryLabel(entry)} ${entry.version}: ${artifact.name} was fetched but the lockfile does not list it`,
        expected: `one of ${entry.files.map((file) => file.name).join(', ') || '(no files)'}`,
        // `lock` keeps a locked entry's files: the entry goes, and lock records it anew
        hint: `restore the lockfile from Git, or delete the entry of ${lockEntryLabel(entry)} from it and run \`capi-gitops lock\`, which records it anew with each file's sha256 as it is now`,
      });
      continue;
    }
    const problem = digestMismatch(locked, artifact, entry);
    if (problem) problems.push({ ...where(locked.sha256), ...problem });
  }
  if (problems.length > 0) throw new CapiGitopsError(problems);
}
