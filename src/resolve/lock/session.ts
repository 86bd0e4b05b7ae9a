/**
 * One render's use of the lockfile: which components it pins, serving pinned files from the
 * content-addressed cache (so a locked render touches no network), checking every fetched file
 * against its recorded digest, and the lock the render leaves behind.
 */
import { decodeUtf8 } from '../../core/utf8.js';
import path from 'node:path';
import { CapiGitopsError, DiagnosticBag, type Diagnostic } from '../../core/diagnostics.js';
import type { ProviderKind } from '../../core/provider.js';
import type { Manifest, ProviderObject } from '../../manifest/types.js';
import type { ProviderRegistry } from '../registry.js';
import type { ResolvedCertManager, ResolvedProvider } from '../resolve.js';
import { pinsOperatorRelease, type ResolvedOperatorRelease } from '../operator-release.js';
import type { ArtifactCache } from '../../sources/cache.js';
import type { Artifact, ProviderRepository } from '../../sources/source.js';
import { buildLockfile, lockEntryForCertManager, lockEntryForOperator, lockEntryForProvider } from './build.js';
import { assertFrozen, diffLockfiles, FROZEN, FROZEN_HINT, noLockfileProblem, type LockChange } from './diff.js';
import { originOf } from '../preflight.js';
import { isLocalRepositoryUrl } from '../../sources/local/repository.js';
import { selectedConfigMapVersions } from '../../sources/configmap/repository.js';
import {
  lockedVersionAnswers,
  lockRequestForCertManager,
  lockRequestForOperator,
  lockRequestForProvider,
  lockSatisfies,
  sourceKey,
} from './request.js';
import { findLockEntry, lockEntryLabel, type LockEntry, type Lockfile, type LockRequest } from './types.js';
import { digestMismatch, verifyLockedArtifacts, type LockedDigestPosition, type SourceChange } from './verify.js';
import { readFileSync } from 'node:fs';
import { lineColumnAt } from '../../yaml/split.js';
import { acceptDigests, acceptedDigest, acceptNameProblems, namesComponent, type AcceptedDigest } from './accept-digests.js';

export interface LockSessionOptions {
  /** The lock read from disk, if any. */
  previous: Lockfile | undefined;
  /** Where the lock lives; relative file URLs in it are relative to its directory. */
  file: string;
  registry: ProviderRegistry;
  cache?: ArtifactCache;
  offline?: boolean;
  /** New versions `capi-gitops update` chose, by component (see componentKey); they replace the lock's pins. */
  overrides?: ReadonlyMap<string, string>;
  /** The run draws the operator layout: the operator's release is locked too. */
  operator?: boolean;
  /** Shared by the sessions of a fleet's clusters: each cached file read, checked and decoded once, each download stored once. */
  shared?: SharedBlobs;
  /** `lock --accept-digest`: components (label or namespace/label) whose re-tagged files are accepted (accept-digests.ts). */
  acceptDigests?: readonly string[];
  /** A fleet judges the `--accept-digest` names across all its clusters (fleetAcceptNameProblems), not per cluster. */
  acceptNamesJudgedByFleet?: boolean;
  /** A fleet cluster no entry of the fleet's lock lists (added, or renamed): what is new is the cluster, not its components. */
  unlistedCluster?: string;
}

export interface SharedBlobs {
  /** Locked files served from the cache, by digest, URL and name. */
  read: Map<string, Promise<Artifact | undefined>>;
  /** Downloads already put in the cache. */
  stored: WeakSet<Artifact>;
}

export function sharedBlobs(): SharedBlobs {
  return { read: new Map(), stored: new WeakSet() };
}

/** The key of the operator's release in `overrides` (`capi-gitops update`). */
export const OPERATOR_OVERRIDE_KEY = 'Operator';

export interface LockOutcome {
  lock: Lockfile;
  changes: LockChange[];
  /** Files whose new digest `--accept-digest` recorded. */
  accepted?: AcceptedDigest[];
  /** The lock the changes are from (undefined: there was none), for steps that change the lock later (pinned images). */
  previous?: Lockfile;
}

/**
 * A selector's releases are the manifest's own ConfigMaps: a locked version that none of them
 * provides any more (its ConfigMap was dropped from the input) no longer answers the manifest,
 * so the provider resolves again among those given, as the operator's getLatestVersion would
 * (internal/controller/phase_load.go), instead of failing on a release nobody can restore.
 */
function lockedConfigMapGiven(entry: LockEntry, request: LockRequest, manifest: Manifest): boolean {
  if (request.source.type !== 'selector') return true;
  return selectedConfigMapVersions(manifest.configMaps, request.source.selector, request.namespace).includes(entry.version);
}

const OPERATOR_FROZEN_HINT =
  "set output.layout: operator in the Config document, so that `capi-gitops lock` pins the operator's release too (with --layout alone it does not), " +
  'then run it (or render without --frozen), review the change and commit the lockfile';

export class LockSession {
  private readonly pins = new Map<string, LockEntry>();
  private readonly certManagerPin: LockEntry | undefined;
  private readonly operatorPin: LockEntry | undefined;

  constructor(
    private readonly manifest: Manifest,
    private readonly options: LockSessionOptions,
  ) {
    // the lock's entry for a request, while it still answers it
    const pin = (request: LockRequest | undefined): LockEntry | undefined => {
      const entry = request && findLockEntry(options.previous, request);
      return entry && request && lockSatisfies(entry, request) ? entry : undefined;
    };
    for (const provider of manifest.providers) {
      const request = lockRequestForProvider(provider, options.registry);
      const entry = pin(request);
      if (entry && request && !lockedConfigMapGiven(entry, request, manifest)) continue;
      if (entry) this.pins.set(componentKey(provider), entry);
    }
    this.certManagerPin = pin(lockRequestForCertManager(manifest.config));
    this.operatorPin = options.operator ? pin(lockRequestForOperator(manifest.config)) : undefined;
  }

  /** An update's new version, else the locked release of the operator while it still answers Config.operator. */
  get operatorVersion(): string | undefined {
    return this.options.overrides?.get(OPERATOR_OVERRIDE_KEY) ?? this.operatorPin?.version;
  }

  get lockDir(): string {
    return path.dirname(this.options.file);
  }

  /** An update's new version, else the locked version of a provider whose lock entry still answers the manifest. */
  pinnedVersion = (provider: ProviderObject): string | undefined =>
    this.options.overrides?.get(componentKey(provider)) ?? this.pins.get(componentKey(provider))?.version;

  /**
   * Under --frozen, what the lock does not answer, told before any request: resolving a provider
   * added, or whose version or source changed, would reach its source for a lock that must not
   * change. No lockfile at all is one problem.
   */
  frozenProblems(): Diagnostic[] {
    if (this.options.previous === undefined) return [noLockfileProblem(this.options.file)];
    const problem = (at: Omit<Diagnostic, 'message'>, line: string): Diagnostic => ({
      ...at,
      message: `${FROZEN}: the lockfile would change: ${line}`,
      hint: FROZEN_HINT,
    });
    const { config } = this.manifest;
    // cert-manager and the operator's release are fetched as a provider is; a local file is read first, for the version it holds
    const configured = (request: LockRequest | undefined, pin: LockEntry | undefined, name: 'certManager' | 'operator') => {
      if (request === undefined || pin !== undefined || (request.source.type === 'url' && isLocalRepositoryUrl(request.source.url)))
        return [];
      const settings = config[name] ?? {};
      // the field that asks for what changed: its version, else its URL
      const field = settings.version !== undefined ? [name, 'version'] : settings.url !== undefined ? [name, 'url'] : [name];
      // without a Config document (its file emptied), at the lock entry the request no longer answers
      const where = config.position
        ? { ...config.position, ...config.locate?.(field) }
        : { file: this.options.file, ...this.options.previous?.locate?.(request) };
      const told = problem({ ...where, object: 'Config', path: field.join('.') }, this.unanswered(request));
      return [name === 'operator' && !pinsOperatorRelease(config) ? { ...told, hint: OPERATOR_FROZEN_HINT } : told];
    };
    return [
      ...this.manifest.providers
        .filter((p) => this.pinnedVersion(p) === undefined)
        .map((p) =>
          problem(
            originOf(p, p.spec.version === undefined ? undefined : 'spec.version'),
            this.unanswered(lockRequestForProvider(p, this.options.registry), p),
          ),
        ),
      ...configured(lockRequestForCertManager(config), this.certManagerPin, 'certManager'),
      ...(this.options.operator ? configured(lockRequestForOperator(config), this.operatorPin, 'operator') : []),
    ];
  }

  /** What the manifest asks (`request`; for a provider without a source, `provider`) that the lock does not answer, as a change line. */
  private unanswered(request: LockRequest | undefined, provider?: ProviderObject): string {
    const entry = request && findLockEntry(this.options.previous, request);
    const label = lockEntryLabel(request ?? { kind: provider!.kind, name: provider!.name });
    if (request === undefined || entry === undefined) {
      // the problem's object names the cluster: a message without it is one line for all the clusters added
      return this.options.unlistedCluster === undefined
        ? `+ ${label} (not in the lockfile)`
        : `+ ${label} for a cluster the lockfile does not list (added or renamed)`;
    }
    // an exact version asked for is the version the lock would move to
    const exact = /^v\d+\.\d+\.\d+$/.test(request.requestedVersion) ? request.requestedVersion : undefined;
    const changed = [
      ...(entry.requestedVersion !== request.requestedVersion && exact === undefined
        ? [`requested ${JSON.stringify(entry.requestedVersion)} → ${JSON.stringify(request.requestedVersion)}`]
        : []),
      ...(sourceKey(entry.source) !== sourceKey(request.source)
        ? [`source ${sourceKey(entry.source)} → ${sourceKey(request.source)}`]
        : []),
      ...(exact === undefined && !lockedVersionAnswers(entry.version, request.requestedVersion)
        ? [`the locked ${entry.version} is not in ${JSON.stringify(request.requestedVersion)}`]
        : []),
    ];
    const versions = exact !== undefined && exact !== entry.version ? `${entry.version} → ${exact}` : entry.version;
    const tail = changed.length > 0 ? `: ${changed.join('; ')}` : exact === undefined ? ': no longer answers the manifest' : '';
    return `~ ${label} ${versions}${tail}`;
  }

  /** Serves the pinned release's files from the cache by digest; fetches (and caches) otherwise. */
  decorate = (
    repository: ProviderRepository,
    component: { kind?: ProviderKind | 'Operator'; name: string; namespace?: string },
  ): ProviderRepository => {
    const entry =
      component.kind === undefined
        ? this.certManagerPin
        : component.kind === 'Operator'
          ? this.operatorPin
          : this.pins.get(componentKey({ kind: component.kind, name: component.name, namespace: component.namespace ?? '' }));
    const { cache, offline, shared } = this.options;
    // a digest to accept is the release's current one: never the cached bytes of the old
    const accepting = entry !== undefined && namesComponent(this.options.acceptDigests ?? [], entry);
    // Local files and ConfigMaps are read where they are; only network downloads are cached.
    const remote = !repository.readsInPlace;
    return {
      sourceType: repository.sourceType,
      readsInPlace: repository.readsInPlace,
      location: repository.location,
      defaultVersion: repository.defaultVersion,
      componentsFile: repository.componentsFile,
      listVersions: () => repository.listVersions(),
      async getFile(version: string, fileName: string): Promise<Artifact> {
        const locked = entry?.version === version ? entry.files.find((f) => f.name === fileName) : undefined;
        if (locked && cache && !accepting) {
          const read = async (): Promise<Artifact | undefined> => {
            const bytes = await cache.getBlob(locked.sha256);
            return (
              bytes && { name: fileName, text: decodeUtf8(bytes, locked.url, { localFile: false }), sha256: locked.sha256, url: locked.url }
            );
          };
          const key = `${locked.sha256}\0${locked.url}\0${fileName}`;
          if (shared && !shared.read.has(key)) shared.read.set(key, read());
          const artifact = await (shared ? shared.read.get(key)! : read());
          if (artifact) return artifact;
        }
        if (locked && offline && remote) {
          throw new CapiGitopsError({
            // the locked URL, not the provider, names the file: providers are one problem only where they share it
            // (resolve.ts mergeSharedProblems)
            message: `--offline: the locked ${fileName} (${version}, sha256 ${locked.sha256}) from ${locked.url} is not in the cache`,
            expected: 'every locked file in the cache',
            hint: 'run once without --offline (or `capi-gitops lock`) on a machine with network access to fill the cache, then retry',
          });
        }
        const artifact = await repository.getFile(version, fileName);
        if (cache && remote && !shared?.stored.has(artifact)) {
          shared?.stored.add(artifact);
          await cache.putBlob(Buffer.from(artifact.text, 'utf8'));
        }
        return artifact;
      },
    };
  };

  /**
   * Checks every pinned component's files against the lock, then builds the new lock: pinned
   * entries kept as they were, the rest recorded from this resolution.
   */
  conclude(
    providers: readonly ResolvedProvider[],
    certManager: ResolvedCertManager | null,
    frozen: boolean,
    operator?: ResolvedOperatorRelease,
  ): LockOutcome {
    const bag = new DiagnosticBag();
    const entries: LockEntry[] = [];
    const accepted: AcceptedDigest[] = [];
    const names = this.options.acceptDigests ?? [];
    // the pin, with the digests --accept-digest takes from the files fetched; without one, the new entry
    const add = (pin: LockEntry | undefined, artifacts: Pick<Artifact, 'name' | 'sha256' | 'url'>[], unpinned: () => LockEntry) => {
      if (!pin) {
        const entry = unpinned();
        const before = findLockEntry(this.options.previous, entry);
        // resolved anew (its source or requested version changed) to the version the lock holds: the same release, the same bytes
        if (before?.version === entry.version) {
          const moved =
            sourceKey(before.source) === sourceKey(entry.source)
              ? undefined
              : { from: sourceKey(before.source), to: sourceKey(entry.source) };
          const result = sameReleaseDigests(before, entry, artifacts, moved, namesComponent(names, entry), (sha256) =>
            positionInFile(this.options.file, sha256),
          );
          accepted.push(...result.accepted);
          result.problems.forEach((problem) => bag.add(problem));
        }
        entries.push(entry);
        return;
      }
      const result = namesComponent(names, pin) ? acceptDigests(pin, artifacts, this.lockDir) : { entry: pin, accepted: [] };
      accepted.push(...result.accepted);
      try {
        verifyLockedArtifacts(
          result.entry,
          artifacts,
          (sha256) => positionInFile(this.options.file, sha256),
          () => {
            const at = this.options.previous?.locate?.(result.entry);
            return at && { file: this.options.file, ...at };
          },
        );
      } catch (err) {
        bag.addError(err);
      }
      entries.push(result.entry);
    };
    const { config } = this.manifest;
    for (const resolved of providers) {
      const locked = this.options.overrides?.has(componentKey(resolved)) ? undefined : this.pins.get(componentKey(resolved));
      // the contract comes from metadata.yaml, whose digest the lock checks: one the lock names otherwise was edited by hand
      const pin =
        locked?.contract !== undefined && locked.contract !== resolved.contract ? { ...locked, contract: resolved.contract } : locked;
      add(pin, [resolved.metadata, resolved.components], () => lockEntryForProvider(resolved, this.options.registry, this.lockDir));
    }
    if (certManager) {
      const pin = this.certManagerPin?.version === certManager.version ? this.certManagerPin : undefined;
      add(pin, [certManager.components], () => lockEntryForCertManager(certManager, config, this.lockDir));
    }
    if (operator) {
      const pin = this.operatorPin?.version === operator.version ? this.operatorPin : undefined;
      add(pin, [operator.components], () => lockEntryForOperator(operator, config, this.lockDir));
    }
    if (!this.options.acceptNamesJudgedByFleet) acceptNameProblems(names, entries).forEach((d) => bag.add(d));
    bag.throwIfAny();
    const lock = buildLockfile(entries);
    if (frozen) assertFrozen(this.options.previous, lock, this.options.file);
    return {
      lock,
      changes: diffLockfiles(this.options.previous, lock),
      previous: this.options.previous,
      ...(names.length > 0 ? { accepted } : {}),
    };
  }
}

/**
 * A component resolved anew to the version its old lock entry holds, against that entry: a file of
 * the same name with another sha256 is refused as a re-tag is, unless `accepting`
 * (`--accept-digest`); the same bytes (a mirror move) pass.
 */
function sameReleaseDigests(
  before: LockEntry,
  entry: LockEntry,
  artifacts: readonly Pick<Artifact, 'name' | 'sha256' | 'url'>[],
  moved: SourceChange | undefined,
  accepting: boolean,
  where: LockedDigestPosition,
): { problems: Diagnostic[]; accepted: AcceptedDigest[] } {
  const problems: Diagnostic[] = [];
  const accepted: AcceptedDigest[] = [];
  for (const artifact of artifacts) {
    const locked = before.files.find((file) => file.name === artifact.name);
    const problem = locked && digestMismatch(locked, artifact, entry, moved);
    if (!locked || !problem) continue;
    if (!accepting) problems.push({ ...where(locked.sha256), ...problem });
    else {
      const url = entry.files.find((file) => file.name === artifact.name)?.url ?? artifact.url;
      accepted.push(acceptedDigest(entry, locked, { sha256: artifact.sha256, url }));
    }
  }
  return { problems, accepted };
}

/** Identifies a provider across manifest, lock and plan. */
export function componentKey(c: { kind: string; name: string; namespace: string }): string {
  return `${c.kind}\0${c.namespace}\0${c.name}`;
}

/** Where `text` (a digest) first appears in `file`, read again only for the problem's position. */
function positionInFile(file: string, text: string): { file: string; line: number; column: number } | undefined {
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const at = content.indexOf(text);
  return at < 0 ? undefined : { file, ...lineColumnAt(content, at) };
}
