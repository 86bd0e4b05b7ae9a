/** What changed between two locks, for printing and for `--frozen`. */
import { CapiGitopsError, type Diagnostic } from '../../core/diagnostics.js';
import { sourceKey } from './request.js';
import {
  compareLockEntries,
  lockEntryLabel,
  normalizeLockfile,
  sameIdentity,
  type LockEntry,
  type Lockfile,
  type LockIdentity,
} from './types.js';

export interface LockChange {
  type: 'added' | 'removed' | 'changed';
  kind: LockEntry['kind'];
  name: string;
  namespace: string;
  /** The old version; absent when added. */
  fromVersion?: string;
  /** The new version; absent when removed. */
  toVersion?: string;
  /** Changes besides the version, e.g. `contract v1beta1 → v1beta2`, `metadata.yaml sha256 0a1b… → 9f8e…`. */
  details: string[];
  /** In a fleet, the cluster whose pins changed: its clusters may change alike. */
  cluster?: string;
  /** One line to print: `+ cluster-api v1.12.0`, `- …`, `~ cluster-api v1.10.4 → v1.12.0`. */
  line: string;
}

const SHORT_DIGEST = 12;

function short(sha256: string): string {
  return `${sha256.slice(0, SHORT_DIGEST)}…`;
}

/** Where the old lock records a change: a contract that differs (edited by hand), a pinned image that moved, else the entry. */
interface LockAt {
  field?: 'contract';
  image?: string;
}

/** Everything that differs between two entries of one component, except the version, and where the old lock records it. */
function entryDetails(before: LockEntry, after: LockEntry): { details: string[]; at: LockAt } {
  const details: string[] = [];
  const at: LockAt = {};
  if (before.requestedVersion !== after.requestedVersion)
    details.push(`requested version ${JSON.stringify(before.requestedVersion)} → ${JSON.stringify(after.requestedVersion)}`);
  if (before.contract !== after.contract) {
    details.push(`contract ${before.contract ?? '(none)'} → ${after.contract ?? '(none)'}`);
    at.field = 'contract';
  }
  const sourceBefore = sourceKey(before.source);
  const sourceAfter = sourceKey(after.source);
  if (sourceBefore !== sourceAfter) details.push(`source ${sourceBefore} → ${sourceAfter}`);
  // A new version has new files by definition; their digests are noise then.
  if (before.version === after.version) {
    const images = imageDetails(before, after);
    details.push(...fileDetails(before, after), ...images.map(({ detail }) => detail));
    if (images.length > 0) at.image = images[0]!.image;
  }
  return { details, at };
}

/** Pinned images added, removed or moved (same reference, another digest: the tag was pushed again). */
function imageDetails(before: LockEntry, after: LockEntry): { image: string; detail: string }[] {
  const old = new Map((before.images ?? []).map((image) => [image.image, image.digest]));
  const now = new Map((after.images ?? []).map((image) => [image.image, image.digest]));
  const details: { image: string; detail: string }[] = [];
  for (const image of [...new Set([...old.keys(), ...now.keys()])].sort()) {
    const [from, to] = [old.get(image), now.get(image)];
    if (from === undefined) details.push({ image, detail: `image ${image} pinned to ${shortDigest(to!)}` });
    else if (to === undefined) details.push({ image, detail: `image ${image} removed` });
    else if (from !== to)
      details.push({ image, detail: `image ${image}: same tag, new content ${shortDigest(from)} → ${shortDigest(to)}` });
  }
  return details;
}

function shortDigest(digest: string): string {
  return `sha256:${short(digest.replace(/^sha256:/, ''))}`;
}

function fileDetails(before: LockEntry, after: LockEntry): string[] {
  const details: string[] = [];
  const names = [...new Set([...before.files, ...after.files].map((file) => file.name))].sort();
  for (const name of names) {
    const old = before.files.find((file) => file.name === name);
    const now = after.files.find((file) => file.name === name);
    if (old === undefined) details.push(`file ${name} added`);
    else if (now === undefined) details.push(`file ${name} removed`);
    else {
      if (old.sha256 !== now.sha256) details.push(`${name} sha256 ${short(old.sha256)} → ${short(now.sha256)}`);
      if (old.url !== now.url) details.push(`${name} url ${old.url} → ${now.url}`);
    }
  }
  return details;
}

/** Labels that occur in more than one namespace get the namespace in messages. */
function labeller(entries: readonly LockEntry[]): (entry: LockIdentity) => string {
  const namespaces = new Map<string, Set<string>>();
  for (const entry of entries) {
    const key = `${entry.kind}/${entry.name}`;
    namespaces.set(key, (namespaces.get(key) ?? new Set()).add(entry.namespace));
  }
  return (entry) => lockEntryLabel(entry) + ((namespaces.get(`${entry.kind}/${entry.name}`)?.size ?? 0) > 1 ? ` (${entry.namespace})` : '');
}

function changeLine(change: Omit<LockChange, 'line'>, label: string): string {
  const tail = change.details.length > 0 ? `: ${change.details.join('; ')}` : '';
  switch (change.type) {
    case 'added':
      return `+ ${label} ${change.toVersion}`;
    case 'removed':
      return `- ${label} ${change.fromVersion}`;
    case 'changed':
      return change.fromVersion === change.toVersion
        ? `~ ${label} ${change.toVersion}${tail}`
        : `~ ${label} ${change.fromVersion} → ${change.toVersion}${tail}`;
  }
}

/**
 * The changes from `before` (undefined: no lock yet) to `after`, one per component that was
 * added, removed or changed in any field, in lock order.
 */
export function diffLockfiles(before: Pick<Lockfile, 'entries'> | undefined, after: Pick<Lockfile, 'entries'>): LockChange[] {
  return lockChanges(before, after).map(({ change }) => change);
}

/** The changes, each with where the old lock records it. */
function lockChanges(
  before: Pick<Lockfile, 'entries'> | undefined,
  after: Pick<Lockfile, 'entries'>,
): { change: LockChange; at?: LockAt }[] {
  const old = normalizeLockfile(before ?? { entries: [] }).entries;
  const now = normalizeLockfile(after).entries;
  const label = labeller([...old, ...now]);
  const changes: (Omit<LockChange, 'line'> & { at?: LockAt })[] = [];
  const identity = (entry: LockEntry) => ({ kind: entry.kind, name: entry.name, namespace: entry.namespace });
  for (const entry of old) {
    const next = now.find((other) => sameIdentity(other, entry));
    if (next === undefined) {
      changes.push({ type: 'removed', ...identity(entry), fromVersion: entry.version, details: [] });
      continue;
    }
    const { details, at } = entryDetails(entry, next);
    if (entry.version !== next.version || details.length > 0) {
      changes.push({ type: 'changed', ...identity(entry), fromVersion: entry.version, toVersion: next.version, details, at });
    }
  }
  for (const entry of now) {
    if (!old.some((other) => sameIdentity(other, entry)))
      changes.push({ type: 'added', ...identity(entry), toVersion: entry.version, details: [] });
  }
  return changes
    .sort(compareLockEntries)
    .map(({ at, ...change }) => ({ change: { ...change, line: changeLine(change, label(change)) }, at }));
}

export const FROZEN_HINT = 'run `capi-gitops lock` (or render without --frozen), review the change and commit the lockfile';
/** How a refusal names the rule: `check` implies --frozen, so its user may never have typed the flag. */
export const FROZEN = '--frozen (or check, which implies it)';

/** --frozen without a lockfile. */
export function noLockfileProblem(file?: string): Diagnostic {
  return {
    file,
    message: `there is no lockfile, and ${FROZEN} needs one`,
    expected: 'capi-gitops.lock.yaml beside the first manifest file',
    hint: FROZEN_HINT,
  };
}

/**
 * `--frozen`: the lock must already say exactly what this run resolved. Throws naming every
 * change otherwise, or the missing lockfile.
 */
export function assertFrozen(
  before: Pick<Lockfile, 'entries' | 'locate'> | undefined,
  after: Pick<Lockfile, 'entries'>,
  file?: string,
): void {
  if (before === undefined) throw new CapiGitopsError(noLockfileProblem(file));
  const changes = lockChanges(before, after);
  if (changes.length === 0) return;
  const problems: Diagnostic[] = changes.map(({ change, at }) => ({
    file,
    ...(change.type === 'added' ? {} : before.locate?.({ ...change, field: at?.field, image: at?.image })),
    message: `${FROZEN}: the lockfile would change: ${change.line}`,
    hint: FROZEN_HINT,
  }));
  throw new CapiGitopsError(problems);
}
