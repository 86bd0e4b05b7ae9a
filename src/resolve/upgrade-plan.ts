/**
 * `capi-gitops plan`: what each provider could move to, as `clusterctl upgrade plan` reports it
 * (cmd/clusterctl/client/cluster/upgrader.go Plan, upgrader_info.go), with the refusals
 * clusterctl and the operator apply at upgrade time:
 * - skipping more than 3 minor versions of core and kubeadm from v1.10 on (upgrader.go doUpgrade);
 * - major or minor downgrades (cluster-api-operator internal/controller/preflight_checks.go
 *   checkProviderVersion);
 * - a spec.version range that holds a provider back so that the providers no longer fit
 *   together (upgrade-holds.ts).
 * Pure: the caller lists versions and reads metadata.yaml.
 */
import type { SemVer } from 'semver';
import type { VersionBump } from '../manifest/update-versions.js';
import { CapiGitopsError, compareStrings, displayPath, type Diagnostic } from '../core/diagnostics.js';
import { manifestLabel, type ProviderKind } from '../core/provider.js';
import { compareSemantic, isMinorDowngrade, parseSemantic, parseVersionRequest, satisfiesRange } from '../core/versions.js';
import { SUPPORTED_CONTRACTS, compatibleContracts, type ReleaseSeries } from './metadata.js';
import { closestName } from '../manifest/fields.js';
import { providerObjectName } from './preflight.js';
import { findLockEntry, type Lockfile } from './lock/types.js';
import { certManagerOrigin, type ResolvedCertManager, type ResolvedProvider } from './resolve.js';
import type { ToolConfig } from '../manifest/types.js';
import { findConflicts, heldMoveHint, heldText, type Conflict, type HeldBack, type Outcome, type VersionRange } from './upgrade-holds.js';

export interface ProviderUpgradeInput {
  kind: ProviderKind;
  name: string;
  namespace: string;
  /** The installed version: the lock's. */
  installed: string;
  /** Every tag the repository publishes; tags that are not semantic versions are ignored. */
  available: readonly string[];
  /**
   * releaseSeries of the metadata.yaml of the newest available version (see newestAvailable):
   * clusterctl takes every contract from that one file, which knows the newest series.
   */
  releaseSeries: readonly ReleaseSeries[];
  /** spec.version when the manifest writes a range: update moves the provider only within it (upgrade-holds.ts). */
  range?: VersionRange;
}

export interface UpgradePlanInput {
  providers: readonly ProviderUpgradeInput[];
  /** Contracts capi-gitops can install; SUPPORTED_CONTRACTS by default. */
  installableContracts?: readonly string[];
  /**
   * cert-manager as locked and as the manifest now asks for it; absent when certManager.enabled is
   * false. `pinnedBy`: the Config fields that choose the release (none: the default); `newest`: the
   * release the default would install.
   */
  certManager?: { installed?: string; target: string; pinnedBy?: readonly string[]; newest?: string };
  /** The cluster-api-operator's release as locked and as the Config now asks for it (operator layout). */
  operator?: { installed?: string; target: string };
}

/** clusterctl's CertManagerUpgradePlan (cmd/clusterctl/client/cluster/cert_manager.go): From, To, ShouldUpgrade. */
interface CertManagerPlan {
  /** The locked version; undefined before the first lock. */
  installed?: string;
  target: string;
  shouldUpgrade: boolean;
  /** The Config fields that pin the target, when they do. */
  pinnedBy?: string[];
  /** A newer release the default offers, when a pin holds cert-manager below it: the plan is not "up to date". */
  available?: string;
}

/** `held`: its spec.version range allows no release of the plan's contract above the installed one. */
type TargetStatus = 'upgrade' | 'up-to-date' | 'refused' | 'held';

interface PlanTarget {
  /** The contract the plan targets; providers may implement any contract compatible with it. */
  contract: string;
  /** The newest stable release above the installed one under that contract, or "" if none. */
  version: string;
  /** The contract the target release implements ("" when there is no target). */
  releaseContract: string;
  status: TargetStatus;
  /** True when the upgrade may be applied (status `upgrade`). */
  allowed: boolean;
  /** Why not, when refused. */
  reasons: string[];
  /** Allowed, but outside the documented support policy. */
  warnings: string[];
  /** Set when the provider's spec.version range excludes the plan's release: `version` is what the range allows. */
  heldBack?: HeldBack;
}

interface ProviderPlan {
  kind: ProviderKind;
  name: string;
  namespace: string;
  /** clusterctl manifest label, e.g. `bootstrap-kubeadm`. */
  label: string;
  installed: string;
  installedContract: string;
  /** Newest release under the core provider's current contract. */
  sameContract: PlanTarget;
  /** Newest release under the newest contract the core provider's releases implement. */
  newestContract: PlanTarget;
}

export interface UpgradePlan {
  /** The contract of the installed core provider. */
  currentContract: string;
  /** The newest contract a core provider release above the installed one implements (or the current). */
  newestContract: string;
  /** Sorted as clusterctl prints them: type, name, namespace (cmd/clusterctl/cmd/upgrade.go sortUpgradeItems). */
  providers: ProviderPlan[];
  certManager?: CertManagerPlan;
  /** The operator layout's cluster-api-operator, planned like cert-manager. */
  operator?: CertManagerPlan;
  /** With images pinned in the lockfile: those whose tag now serves another digest (app/image-pins.ts). */
  images?: MovedImage[];
  /** Locked images no registry answered for (down, refused): whether their tags moved is not known, so `images` is partial. */
  imagesUnchecked?: UncheckedImage[];
  /** --offline: the providers (labels) whose releases came from the cache's copy of an earlier listing, of any age. */
  versionsFromCache?: string[];
  /** Exact pins above a plan's release and not locked yet: that plan's update would lower them, so it refuses. */
  loweredPins?: LoweredPin[];
}

/** A pin a plan's update would lower (loweredPinProblems), told at its spec.version. */
type LoweredPin = Diagnostic & { contract: string };

/** A locked image whose registry did not answer. */
export interface UncheckedImage {
  /** The lock entry's label. */
  component: string;
  image: string;
  /** Why, as the registry's problem says it. */
  problem: string;
}

/** A locked image whose tag the registry now answers with another digest. */
export interface MovedImage {
  /** The lock entry's label, e.g. `cluster-api` or `cert-manager`. */
  component: string;
  image: string;
  locked: string;
  current: string;
}

/** The moved images, for the plan's text. */
function movedImagesText(images: readonly MovedImage[] | undefined): string {
  if (!images?.length) return '';
  const short = (digest: string) => `${digest.slice(0, 'sha256:'.length + 12)}…`;
  const rows = [['COMPONENT', 'IMAGE', 'LOCKED', 'NOW'], ...images.map((i) => [i.component, i.image, short(i.locked), short(i.current)])];
  return `\nImages whose tag moved (same tag, new content):\n${formatTable(rows)}To take the new digests: capi-gitops update --images\n`;
}

/**
 * The images no registry gave a digest for (one down, refusing credentials, a tag deleted): without
 * them, the moved list would read as complete. Each one's warning says why and what to do.
 */
function uncheckedImagesText(images: readonly UncheckedImage[] | undefined): string {
  if (!images?.length) return '';
  const rows = [['COMPONENT', 'IMAGE'], ...images.map((i) => [i.component, i.image])];
  return (
    `\nImages not checked (no digest from their registry, each warning says why; whether their tags moved is not known):\n` +
    `${formatTable(rows)}Do what each warning's hint says, then run plan again.\n`
  );
}

/** The release whose metadata.yaml the plan needs: the highest semantic tag, pre-releases included (upgrader_info.go). */
export function newestAvailable(available: readonly string[]): string | undefined {
  let newest: { tag: string; version: SemVer } | undefined;
  for (const tag of available) {
    const version = parseSemantic(tag);
    if (version !== null && (newest === undefined || compareSemantic(newest.version, version) < 0)) newest = { tag, version };
  }
  return newest?.tag;
}

// ---- upgrade rules ----------------------------------------------------------------------------

/**
 * clusterctl enforces the skip rule for these only (upgrader.go doUpgrade), by the labels the lock
 * and a render's component directories use.
 */
const SKIP_RULE_LABELS = new Set(['cluster-api', 'bootstrap-kubeadm', 'control-plane-kubeadm']);

function hasSkipRule(kind: ProviderKind, name: string): boolean {
  return SKIP_RULE_LABELS.has(manifestLabel(kind, name));
}

/** clusterctl checks skips only from this version on (`minVersionSkew`). */
const SKIP_RULE_FROM = parseSemantic('v1.10.0')!;
const MAX_MINOR_SKIP = 3;

function parseOrThrow(version: string, what: string): SemVer {
  const parsed = parseSemantic(version);
  if (parsed === null)
    throw new CapiGitopsError({ message: `${what} "${version}" is not a semantic version`, expected: 'a release tag such as v1.12.0' });
  return parsed;
}

/**
 * Why moving `provider` from `from` to `to` is refused ([] when it is not):
 * - a major or minor downgrade (the operator's preflight refuses it; patch downgrades pass);
 * - for core and kubeadm installed at v1.10.0 or later, a target minor more than 3 above the
 *   installed minor. Like clusterctl, only minors are compared (the major is not).
 */
export function upgradeRefusals(provider: { kind: ProviderKind; name: string }, from: string, to: string): string[] {
  const installed = parseOrThrow(from, 'installed version');
  const target = parseOrThrow(to, 'target version');
  const label = manifestLabel(provider.kind, provider.name);
  const reasons: string[] = [];
  if (target.major < installed.major || (target.major === installed.major && target.minor < installed.minor)) {
    reasons.push(
      `${label}: downgrading from ${from} to ${to} is not supported (Cluster API does not support downgrades; the operator refuses them)`,
    );
  }
  const step = `${installed.major}.${installed.minor + MAX_MINOR_SKIP}`;
  if (
    hasSkipRule(provider.kind, provider.name) &&
    compareSemantic(installed, SKIP_RULE_FROM) >= 0 &&
    target.minor > installed.minor + MAX_MINOR_SKIP
  ) {
    reasons.push(
      `${label}: ${from} → ${to} skips more than ${MAX_MINOR_SKIP} minor versions, which clusterctl refuses; upgrade to v${step}.x first: ` +
        `set spec.version to a v${step} release, render and roll it out, then update`,
    );
  }
  return reasons;
}

/** Where a provider's spec.version is written; the provider's own position when it names none. */
function versionPosition(provider: ResolvedProvider['provider']): Pick<Diagnostic, 'file' | 'line' | 'column'> {
  return provider.spec.version ? (provider.fieldPosition?.(['spec', 'version']) ?? provider.position) : provider.position;
}

/**
 * A provider the manifest now asks for at a lower major or minor version than the lock holds: the
 * operator's preflight refuses such a downgrade (internal/controller/preflight_checks.go
 * checkProviderVersion) and Cluster API does not support one, yet the output would carry it. One
 * warning per provider, at its spec.version; patch downgrades pass, as in the operator. In a
 * fleet, the line may be one other clusters read too (the shared manifest's, a release's): the
 * hint says where to keep the locked version for the clusters it moves down alone.
 */
export function downgradeWarnings(
  previous: Lockfile | undefined,
  providers: readonly ResolvedProvider[],
  /** In a fleet, the layer that set a provider's spec.version (`shared manifest`, `release <name>`, `overlay`). */
  versionLayer?: (provider: string) => string | undefined,
): Diagnostic[] {
  const warnings: Diagnostic[] = [];
  for (const resolved of providers) {
    const { provider } = resolved;
    const entry = findLockEntry(previous, resolved);
    const [from, to] = [parseSemantic(entry?.version ?? ''), parseSemantic(resolved.version)];
    if (!entry || !from || !to || !isMinorDowngrade(from, to)) continue;
    const position = versionPosition(provider);
    warnings.push({
      ...position,
      object: providerObjectName(provider),
      path: 'spec.version',
      message: `${resolved.version} is below the locked ${entry.version}: a downgrade, which Cluster API does not support and the operator refuses (preflight_checks.go checkProviderVersion)`,
      hint: downgradeHint(
        {
          entry: `providers: {${provider.kind}/${provider.name}: {spec: {version: ${entry.version}}}}`,
          release: `${provider.kind}/${provider.name}: ${entry.version}`,
          onPurpose: 'make sure no object was stored at a newer API version first',
        },
        entry.version,
        versionLayer?.(providerObjectName(provider)),
      ),
    });
  }
  return warnings;
}

/**
 * Where to keep a provider at its locked version: its spec.version, in one cluster; in a fleet,
 * the line the version came from serves alone only when it is the clusters' own (their overlay).
 * The shared manifest's and a release's lines are read by other clusters too, which a change there
 * would move: the clusters named keep it in their own entries of `clusters:`, or on a release.
 */
function downgradeHint(
  /** What keeps it in a cluster's entry of `clusters:` and in a Release; what to make sure of before rolling back. */
  keep: { entry: string; release: string; onPurpose: string },
  locked: string,
  layer: string | undefined,
): string {
  const onPurpose = `roll back on purpose, ${keep.onPurpose}`;
  const own = `in each one's entry of clusters: (${keep.entry})`;
  if (layer === 'shared manifest')
    return (
      `keep ${locked} for the clusters named: here if every cluster that reads this line should run it, else ${own} ` +
      `or on a release with it (release:); or move forward. To ${onPurpose}`
    );
  if (layer?.startsWith('release '))
    return (
      `keep ${locked} for the clusters named: in ${layer} (${keep.release}) if every cluster on it should run it, ` +
      `else on another release with it (release:) or ${own}; or move forward. To ${onPurpose}`
    );
  return `keep ${locked} or move forward; to ${onPurpose}`;
}

/**
 * cert-manager asked below the locked release: clusterctl leaves a newer cert-manager in place
 * (cert_manager.go shouldUpgrade), a render writes the older one. One warning, at the field
 * that chooses the release; patch releases back pass, as for providers. In a fleet, the hint says
 * where the clusters named keep the locked release, as for providers (downgradeHint).
 */
export function certManagerDowngradeWarnings(
  previous: Lockfile | undefined,
  certManager: ResolvedCertManager | null,
  config: ToolConfig,
  /** In a fleet, the layer that set certManager.version (`shared manifest`, `release <name>`, `overlay`). */
  versionLayer?: string,
): Diagnostic[] {
  const entry = previous?.entries.find((e) => e.kind === 'CertManager');
  const [from, to] = [parseSemantic(entry?.version ?? ''), parseSemantic(certManager?.version ?? '')];
  if (!entry || !certManager || !from || !to || !isMinorDowngrade(from, to)) return [];
  return [
    {
      ...certManagerOrigin(config, config.certManager?.version !== undefined ? 'version' : 'url'),
      message:
        `${certManager.version} is below the locked ${entry.version}: a downgrade, which clusterctl never makes ` +
        '(it leaves a newer cert-manager in place, cert_manager.go shouldUpgrade)',
      hint: downgradeHint(
        {
          entry: `certManager: {version: ${entry.version}}`,
          release: `certManager: {version: ${entry.version}}`,
          onPurpose: 'make sure no cert-manager object was stored at a newer API version first',
        },
        entry.version,
        versionLayer,
      ),
    },
  ];
}

/**
 * What `update` refuses to lock: a provider the manifest now resolves below its locked release (a
 * range that excludes it, a pin edited back). update only moves forward, as clusterctl's plans
 * offer newer releases only (upgrader_info.go getUpgradeInfo) and the operator refuses downgrades
 * (preflight_checks.go checkProviderVersion). One error per provider, at its spec.version; it says
 * what the render's warnings at that field say (downgradeWarnings, kubeadmSplitWarnings).
 */
export function updateDowngradeProblems(previous: Lockfile | undefined, providers: readonly ResolvedProvider[]): Diagnostic[] {
  const core = providers.find((r) => r.kind === 'CoreProvider');
  const problems: Diagnostic[] = [];
  for (const resolved of providers) {
    const { provider, version } = resolved;
    const entry = findLockEntry(previous, resolved);
    const [from, to] = [parseSemantic(entry?.version ?? ''), parseSemantic(version)];
    if (!entry || !from || !to || compareSemantic(to, from) >= 0) continue;
    const request = parseVersionRequest(provider.spec.version);
    const label = manifestLabel(resolved.kind, resolved.name);
    const moved =
      request?.form === 'range'
        ? `the range ${JSON.stringify(request.range)} excludes the locked ${entry.version} and resolves to ${version}`
        : `${version} is below the locked ${entry.version}`;
    const coreMinor = core && core !== resolved ? parseSemantic(core.version)?.minor : undefined;
    const split =
      hasSkipRule(resolved.kind, resolved.name) && coreMinor !== undefined && coreMinor !== to.minor
        ? `, and it would leave ${label} on another minor version than cluster-api ${core!.version}, which it is released with`
        : '';
    const position = versionPosition(provider);
    problems.push({
      ...position,
      object: providerObjectName(provider),
      path: 'spec.version',
      message: `${moved}: update never moves a provider back (${
        to.major < from.major || (to.major === from.major && to.minor < from.minor)
          ? 'Cluster API does not support downgrades; the operator refuses them'
          : 'a patch release back is a rollback, which render makes when the manifest asks for it'
      })${split}`,
      expected: `${entry.version} or a later release`,
      hint:
        `set spec.version to ${entry.version}, the locked release` +
        (request?.form === 'range' && from.prerelease.length === 0
          ? `, or to a range that allows it, e.g. "~${from.major}.${from.minor}"`
          : ''),
    });
  }
  return problems;
}

/**
 * The exact pins `update` would lower: a spec.version raised by hand above the plan's release and
 * not locked yet. update plans from the lock, as clusterctl plans from the installed version
 * (upgrader_info.go getUpgradeInfo), so its bump would undo the edit. One error per provider, at
 * its spec.version.
 */
export function loweredPinProblems(
  previous: Lockfile | undefined,
  providers: readonly ResolvedProvider[],
  bumps: readonly VersionBump[],
  contract: string,
): Diagnostic[] {
  const problems: Diagnostic[] = [];
  for (const bump of bumps) {
    const resolved = providers.find((r) => r.kind === bump.kind && r.name === bump.name && r.namespace === bump.namespace);
    const entry = resolved && findLockEntry(previous, resolved);
    if (!resolved || !entry || parseVersionRequest(resolved.provider.spec.version)?.form !== 'exact') continue;
    const [asked, target] = [parseSemantic(resolved.version), parseSemantic(bump.newVersion)];
    if (!asked || !target || compareSemantic(asked, target) <= 0) continue;
    problems.push({
      ...versionPosition(resolved.provider),
      object: providerObjectName(resolved.provider),
      path: 'spec.version',
      message:
        `${resolved.version} is not locked yet (the lock holds ${entry.version}), and update plans from the lock: ` +
        `the ${contract} plan would lower this pin to ${bump.newVersion}`,
      hint: `lock the manifest as it asks first (\`capi-gitops lock\`), then update; or set spec.version to ${entry.version}, the locked release`,
    });
  }
  return problems;
}

/**
 * Whether moving the provider of `label` from `from` to `to` skips more than 3 minors: `refused`
 * by clusterctl for core and kubeadm installed at v1.10 or later (upgrader.go doUpgrade),
 * `unsupported` before (docs/book/src/reference/versions.md "Skip upgrades"); undefined otherwise.
 */
export function minorSkip(label: string, from: string, to: string): 'refused' | 'unsupported' | undefined {
  const [installed, target] = [parseSemantic(from), parseSemantic(to)];
  if (!installed || !target || !SKIP_RULE_LABELS.has(label)) return undefined;
  if (target.major !== installed.major || target.minor <= installed.minor + MAX_MINOR_SKIP) return undefined;
  return compareSemantic(installed, SKIP_RULE_FROM) >= 0 ? 'refused' : 'unsupported';
}

/** What minorSkip means, after "v1.7.7 → v1.12.0 skips more than 3 minor versions: ". */
export const MINOR_SKIP_MEANS = {
  refused: 'clusterctl refuses such an upgrade (upgrader.go doUpgrade)',
  unsupported: `Cluster API supports at most ${MAX_MINOR_SKIP} per upgrade`,
} as const;

/**
 * A provider the manifest moves more than 3 minors above the lock in one render (a spec.version
 * edited by hand, or `update` from an old release). The plan says so; a render must too, as it
 * writes the jump. One warning per provider, at its spec.version.
 */
export function minorSkipWarnings(
  previous: Lockfile | undefined,
  providers: readonly ResolvedProvider[],
  /** In a fleet, the Release whose entry set the provider's version: a Release has no spec.version to lower. */
  versionRelease?: (provider: string) => string | undefined,
  /** In a fleet, a Release on the way from the locked version (at most 3 minors above it), if one is. */
  stepRelease?: (provider: string, from: string) => { name: string; version: string } | undefined,
): Diagnostic[] {
  const warnings: Diagnostic[] = [];
  for (const resolved of providers) {
    const { provider } = resolved;
    const entry = findLockEntry(previous, resolved);
    const skip = entry ? minorSkip(manifestLabel(resolved.kind, resolved.name), entry.version, resolved.version) : undefined;
    if (!entry || !skip) continue;
    const from = parseSemantic(entry.version)!;
    const step = `v${from.major}.${from.minor + MAX_MINOR_SKIP}`;
    const position = versionPosition(provider);
    const release = versionRelease?.(providerObjectName(provider));
    const on = release ? stepRelease?.(providerObjectName(provider), entry.version) : undefined;
    warnings.push({
      ...position,
      object: providerObjectName(provider),
      path: 'spec.version',
      message: `${entry.version} → ${resolved.version} skips more than ${MAX_MINOR_SKIP} minor versions: ${MINOR_SKIP_MEANS[skip]}`,
      hint: on
        ? `move to release ${on.name} first (${provider.kind}/${provider.name}: ${on.version}), named in each cluster's release:, ` +
          `render and roll it out, then move on to ${release}`
        : release
          ? // told once for every cluster it concerns: one or several
            `move to a release with ${provider.kind}/${provider.name}: ${step}.x (or lower) first (a Release of its own, ` +
            `or an older one, named in each cluster's release:), render and roll it out, then move on to ${release}`
          : `set spec.version to a ${step} release (or lower) first, render and roll it out, then move on`,
    });
  }
  return warnings;
}

/**
 * The core and kubeadm providers a render leaves on different minor versions after moving one of
 * them (`update cluster-api` alone, a spec.version edited by hand): they are released together,
 * and the kubeadm control plane requires the kubeadm bootstrap provider of the same version
 * (docs/book/src/reference/versions.md). `update` refuses a range that splits them
 * (upgrade-holds.ts); any other split is a warning at each kubeadm provider apart from the core.
 */
export function kubeadmSplitWarnings(
  previous: Lockfile | undefined,
  providers: readonly ResolvedProvider[],
  /** In a fleet, the Release whose entry set a provider's version: a fleet has no `update`. */
  versionRelease?: (provider: string) => string | undefined,
): Diagnostic[] {
  const group = providers.filter((r) => hasSkipRule(r.kind, r.name));
  const core = group.find((r) => r.kind === 'CoreProvider');
  const minor = (version: string) => parseSemantic(version)?.minor;
  const locked = (r: ResolvedProvider) => findLockEntry(previous, r)?.version;
  if (core === undefined || group.every((r) => locked(r) === r.version)) return [];
  const coreMinor = parseSemantic(core.version);
  return group
    .filter((r) => r !== core && coreMinor !== null && minor(r.version) !== undefined && minor(r.version) !== coreMinor.minor)
    .map((r) => ({
      ...versionPosition(r.provider),
      object: providerObjectName(r.provider),
      path: 'spec.version',
      message:
        `${manifestLabel(r.kind, r.name)} ${r.version} while cluster-api is at ${core.version}: the core and kubeadm providers are ` +
        'released together, and the kubeadm control plane requires the kubeadm bootstrap provider of the same version',
      hint: versionRelease ? fleetSplitHint(r, core, versionRelease) : splitHint(previous, r, core),
    }));
}

/**
 * In a fleet: where the cluster's core version is set, the layer to set the kubeadm providers' in;
 * a kubeadm provider ahead of the core is joined by the core (moving it back would be a downgrade).
 */
function fleetSplitHint(
  resolved: ResolvedProvider,
  core: ResolvedProvider,
  versionRelease: (provider: string) => string | undefined,
): string {
  const { file, line, column } = versionPosition(core.provider);
  const release = versionRelease(providerObjectName(core.provider));
  const at = file === undefined ? '' : ` (${displayPath(file)}:${line}:${column}${release ? `, release ${release}` : ''})`;
  const [version, target] = [parseSemantic(resolved.version), parseSemantic(core.version)];
  const ahead = version !== null && target !== null && compareSemantic(version, target) > 0;
  const set = ahead ? `set cluster-api's version to ${resolved.version} as well` : `set it to ${core.version}`;
  return `${set} where cluster-api's version is set${at}: a fleet's versions move in its releases and overlays, not with update`;
}

/**
 * How to bring a kubeadm provider and the core to one version. `update` moves it only from where
 * it is locked, forward, and within its range: offered when that reaches the core's version; else
 * the spec.version to write. A kubeadm provider ahead of the core is joined by the core.
 */
function splitHint(previous: Lockfile | undefined, resolved: ResolvedProvider, core: ResolvedProvider): string {
  const request = parseVersionRequest(resolved.provider.spec.version);
  const [version, target] = [parseSemantic(resolved.version), parseSemantic(core.version)];
  const locked = parseSemantic(findLockEntry(previous, resolved)?.version ?? '');
  const within = request?.form !== 'range' || satisfiesRange(core.version, request.range);
  const forward =
    version !== null &&
    target !== null &&
    compareSemantic(version, target) < 0 &&
    (locked === null || compareSemantic(version, locked) >= 0);
  // ahead of the core: moving it back would be a downgrade; the core moves up to it instead
  if (version !== null && target !== null && compareSemantic(version, target) > 0)
    return `set cluster-api's spec.version to ${resolved.version} as well, so the core moves with it`;
  const set = `set spec.version to ${core.version}, as cluster-api's`;
  if (within && forward) return `${set}; \`capi-gitops update\` naming no provider moves them together`;
  const range =
    request?.form === 'range' && target !== null && target.prerelease.length === 0
      ? `, or a range that allows it, e.g. "~${target.major}.${target.minor}"`
      : '';
  return set + range;
}

/**
 * Allowed but unsupported: the Cluster API version policy supports at most 3 minor versions per
 * upgrade for core and kubeadm (docs/book/src/reference/versions.md "Skip upgrades"), while
 * clusterctl enforces it only from v1.10.
 */
export function upgradeWarnings(provider: { kind: ProviderKind; name: string }, from: string, to: string): string[] {
  const installed = parseOrThrow(from, 'installed version');
  const target = parseOrThrow(to, 'target version');
  if (!hasSkipRule(provider.kind, provider.name) || compareSemantic(installed, SKIP_RULE_FROM) >= 0) return [];
  if (target.major !== installed.major || target.minor <= installed.minor + MAX_MINOR_SKIP) return [];
  const label = manifestLabel(provider.kind, provider.name);
  return [
    `${label}: ${from} → ${to} skips more than ${MAX_MINOR_SKIP} minor versions; Cluster API supports at most ${MAX_MINOR_SKIP} per upgrade (clusterctl enforces it only from v1.10)`,
  ];
}

// ---- the plan ---------------------------------------------------------------------------------

interface NextRelease {
  tag: string;
  version: SemVer;
  contract: string;
}

interface ProviderInfo {
  input: ProviderUpgradeInput;
  label: string;
  installed: SemVer;
  installedContract: string;
  /** Stable and pre-release versions above the installed one, with their contract. */
  next: NextRelease[];
}

function seriesOf(series: readonly ReleaseSeries[], version: SemVer): ReleaseSeries | undefined {
  return series.find((s) => s.major === version.major && s.minor === version.minor);
}

/** upgrader_info.go getUpgradeInfo: the installed version and every newer one must be in a release series. */
function providerInfo(input: ProviderUpgradeInput, problems: Diagnostic[]): ProviderInfo | undefined {
  const label = manifestLabel(input.kind, input.name);
  const object = `${input.kind}/${input.namespace}/${input.name}`;
  const installed = parseSemantic(input.installed);
  if (installed === null) {
    problems.push({
      object,
      message: `installed version "${input.installed}" of ${label} is not a semantic version`,
      hint: 'run `capi-gitops lock` to record a resolved release',
    });
    return undefined;
  }
  const installedSeries = seriesOf(input.releaseSeries, installed);
  if (installedSeries === undefined) {
    problems.push({
      object,
      message: `${label} ${input.installed} (installed) matches no release series of the provider's newest metadata.yaml`,
      hint: 'the repository may belong to another project, or its newest release lacks an updated metadata.yaml',
    });
    return undefined;
  }
  const next: NextRelease[] = [];
  const unmatched: string[] = [];
  for (const tag of input.available) {
    const version = parseSemantic(tag);
    if (version === null || compareSemantic(version, installed) <= 0) continue;
    const series = seriesOf(input.releaseSeries, version);
    if (series === undefined) unmatched.push(tag);
    else next.push({ tag, version, contract: series.contract });
  }
  if (unmatched.length > 0) {
    problems.push({
      object,
      message: `${label} versions ${unmatched.join(', ')} match no release series of the provider's newest metadata.yaml`,
      hint: 'clusterctl refuses to plan with such metadata; the provider must list every release series',
    });
    return undefined;
  }
  return { input, label, installed, installedContract: installedSeries.contract, next };
}

/** upgrader_info.go getLatestNextVersion: the newest stable newer release implementing one of `contracts` (and in `range`). */
function latestNext(info: ProviderInfo, contracts: readonly string[], range?: string): NextRelease | undefined {
  let latest: NextRelease | undefined;
  for (const candidate of info.next) {
    if (candidate.version.prerelease.length > 0 || !contracts.includes(candidate.contract)) continue;
    if (range !== undefined && !satisfiesRange(candidate.tag, range)) continue;
    if (latest === undefined || compareSemantic(latest.version, candidate.version) < 0) latest = candidate;
  }
  return latest;
}

/**
 * The newest contract the core provider can move to: that of the highest release series at or
 * above the installed one that has a stable release newer than the installed version. clusterctl
 * (upgrader_info.go getContractsForUpgrade) offers every such series' contract, released or not;
 * one without a release only gives a plan clusterctl then drops as partial.
 */
function newestCoreContract(core: ProviderInfo): string {
  let newest = core.installedContract;
  let newestSeries: ReleaseSeries | undefined;
  for (const series of core.input.releaseSeries) {
    const atOrAbove =
      series.major > core.installed.major || (series.major === core.installed.major && series.minor >= core.installed.minor);
    if (!atOrAbove || series.contract === core.installedContract) continue;
    const released = core.next.some((n) => n.version.prerelease.length === 0 && n.contract === series.contract);
    if (!released) continue;
    if (
      newestSeries === undefined ||
      series.major > newestSeries.major ||
      (series.major === newestSeries.major && series.minor > newestSeries.minor)
    ) {
      newestSeries = series;
      newest = series.contract;
    }
  }
  return newest;
}

/**
 * Where a range that excludes the plan's release `wouldGet` leaves the provider: the newest newer
 * release it allows under the contract; else the installed one while it allows that, else its
 * newest release (what resolving the range gives, resolve/versions.ts highestInRange).
 */
function heldBack(info: ProviderInfo, range: VersionRange, wouldGet: string, compatible: readonly string[]): HeldBack {
  const within = latestNext(info, compatible, range.range);
  const { installed } = info.input;
  if (within !== undefined) return { ...range, wouldGet, installed, heldAt: within.tag, heldContract: within.contract };
  let heldAt = installed;
  if (!satisfiesRange(heldAt, range.range)) {
    const stable = info.input.available.filter((tag) => parseSemantic(tag)?.prerelease.length === 0 && satisfiesRange(tag, range.range));
    heldAt = newestAvailable(stable) ?? heldAt;
  }
  const version = parseSemantic(heldAt);
  const series = version === null ? undefined : seriesOf(info.input.releaseSeries, version);
  return { ...range, wouldGet, installed, heldAt, heldContract: series?.contract ?? info.installedContract };
}

function target(info: ProviderInfo, contract: string, installable: readonly string[]): PlanTarget {
  const compatible = compatibleContracts(contract);
  let next = latestNext(info, compatible);
  const range = info.input.range;
  const held = next && range && !satisfiesRange(next.tag, range.range) ? heldBack(info, range, next.tag, compatible) : undefined;
  if (held) {
    next = latestNext(info, compatible, range!.range);
    if (next === undefined)
      return { contract, version: '', releaseContract: '', status: 'held', allowed: false, reasons: [], warnings: [], heldBack: held };
  }
  const base = { contract, version: next?.tag ?? '', releaseContract: next?.contract ?? '', ...(held ? { heldBack: held } : {}) };
  if (next === undefined) {
    if (compatible.includes(info.installedContract)) return { ...base, status: 'up-to-date', allowed: false, reasons: [], warnings: [] };
    const reason = `${info.label}: no release above ${info.input.installed} implements ${compatible.join(' or ')}`;
    return { ...base, status: 'refused', allowed: false, reasons: [reason], warnings: [] };
  }
  const reasons = upgradeRefusals(info.input, info.input.installed, next.tag);
  if (!installable.includes(next.contract)) {
    reasons.push(
      `${info.label}: ${next.tag} implements contract ${next.contract}; capi-gitops installs only ${installable.join(' or ')} providers`,
    );
  }
  const warnings = upgradeWarnings(info.input, info.input.installed, next.tag);
  return { ...base, status: reasons.length > 0 ? 'refused' : 'upgrade', allowed: reasons.length === 0, reasons, warnings };
}

/**
 * clusterctl drops a plan that changes the contract while a provider has no release for it: all
 * providers of a management cluster change contract together. Here the plan stays, refused for
 * every provider, naming those that hold it back. Unlike clusterctl, a provider whose installed
 * release already implements a compatible contract does not hold it back.
 */
function refuseIncompletePlan(targets: PlanTarget[], infos: ProviderInfo[], contract: string): void {
  const missing = targets
    .map((t, i) => (t.status === 'refused' && t.version === '' ? infos[i].label : undefined))
    .filter((label): label is string => label !== undefined);
  if (missing.length === 0) return;
  const reason = `the ${contract} plan is incomplete: ${missing.join(', ')} ${missing.length === 1 ? 'has' : 'have'} no release for it, and all providers change contract together`;
  for (const t of targets) {
    if (t.status === 'refused' && t.version === '') continue;
    t.status = 'refused';
    t.allowed = false;
    t.reasons.push(reason);
  }
}

/** Where applying `t` leaves a provider; `moves` is false for one an update leaves out. */
function outcome(
  p: Pick<ProviderPlan, 'kind' | 'name' | 'label' | 'installed' | 'installedContract'>,
  t: PlanTarget,
  moves = true,
): Outcome {
  const { kind, name, label } = p;
  if (moves && t.heldBack) return { kind, name, label, version: t.heldBack.heldAt, contract: t.heldBack.heldContract, held: t.heldBack };
  if (moves && t.status === 'upgrade') return { kind, name, label, version: t.version, contract: t.releaseContract };
  return { kind, name, label, version: p.installed, contract: p.installedContract };
}

function compareProviderPlans(a: ProviderPlan, b: ProviderPlan): number {
  return compareStrings(a.kind, b.kind) || compareStrings(a.name, b.name) || compareStrings(a.namespace, b.namespace);
}

/**
 * The plan: for every provider, the newest release under the core provider's current contract
 * and under the newest contract its releases offer. Throws when there is not exactly one core
 * provider, or metadata does not cover the versions (as clusterctl does).
 */
export function planUpgrades(input: UpgradePlanInput): UpgradePlan {
  const installable = input.installableContracts ?? SUPPORTED_CONTRACTS;
  const cores = input.providers.filter((p) => p.kind === 'CoreProvider');
  if (cores.length !== 1) {
    throw new CapiGitopsError({
      message: `there must be one core provider to plan upgrades, found ${cores.length}`,
      hint: 'the core provider (CoreProvider cluster-api) decides the contract every other provider follows',
    });
  }
  const problems: Diagnostic[] = [];
  const infos = input.providers.map((p) => providerInfo(p, problems));
  if (problems.length > 0) throw new CapiGitopsError(problems);
  const known = infos as ProviderInfo[];
  const core = known.find((info) => info.input.kind === 'CoreProvider')!;
  const currentContract = core.installedContract;
  const newestContract = newestCoreContract(core);

  const same = known.map((info) => target(info, currentContract, installable));
  const newest = known.map((info) => target(info, newestContract, installable));
  if (newestContract !== currentContract) refuseIncompletePlan(newest, known, newestContract);
  for (const [contract, targets] of [
    [currentContract, same],
    [newestContract, newest],
  ] as const) {
    const each = known.map((info, i) =>
      outcome({ ...info.input, label: info.label, installedContract: info.installedContract }, targets[i]),
    );
    for (const [o, conflict] of findConflicts(each, contract, currentContract)) o.held!.conflict = conflict;
  }

  const providers = known.map((info, i): ProviderPlan => ({
    kind: info.input.kind,
    name: info.input.name,
    namespace: info.input.namespace,
    label: info.label,
    installed: info.input.installed,
    installedContract: info.installedContract,
    sameContract: same[i],
    newestContract: newest[i],
  }));
  const plan: UpgradePlan = { currentContract, newestContract, providers: providers.sort(compareProviderPlans) };
  if (input.certManager) plan.certManager = pinnedCertManagerPlan(input.certManager);
  if (input.operator) plan.operator = certManagerPlan(input.operator.installed, input.operator.target);
  return plan;
}

/** Upgrade when the target is newer than the installed version, as clusterctl's shouldUpgrade. */
function certManagerPlan(installed: string | undefined, target: string): CertManagerPlan {
  const from = installed === undefined ? null : parseSemantic(installed);
  const to = parseSemantic(target);
  const shouldUpgrade = installed === undefined || (from !== null && to !== null ? compareSemantic(from, to) < 0 : installed !== target);
  return { ...(installed === undefined ? {} : { installed }), target, shouldUpgrade };
}

/**
 * clusterctl's plan compares with the version it is configured with (cert_manager.go PlanUpgrade),
 * so a pinned old release reads "up to date"; the plan says which fields pin it and what is on offer.
 */
function pinnedCertManagerPlan(input: NonNullable<UpgradePlanInput['certManager']>): CertManagerPlan {
  const plan = certManagerPlan(input.installed, input.target);
  if (!input.pinnedBy?.length) return plan;
  const [target, newest] = [parseSemantic(input.target), input.newest === undefined ? null : parseSemantic(input.newest)];
  const below = target !== null && newest !== null && compareSemantic(target, newest) < 0;
  return { ...plan, pinnedBy: [...input.pinnedBy], ...(below ? { available: input.newest } : {}) };
}

/** How to move a pin to `available`: a URL names a release too. */
function moveHint(pinnedBy: readonly string[]): string {
  const version = pinnedBy.includes('certManager.version');
  if (!pinnedBy.includes('certManager.url')) return 'set certManager.version to it, or remove it';
  return `${version ? 'set certManager.version to it and ' : ''}point certManager.url at that release`;
}

/** clusterctl upgrade plan's first lines (cmd/clusterctl/cmd/upgrade_plan.go runUpgradePlan). */
function certManagerText(plan: CertManagerPlan | undefined, name = 'Cert-Manager'): string {
  if (!plan) return '';
  const [installed, target] = [JSON.stringify(plan.installed), JSON.stringify(plan.target)];
  if (plan.installed === undefined) return `${name} is not in the lockfile yet; it will be installed at ${target}\n\n`;
  if (plan.shouldUpgrade) return `${name} will be upgraded from ${installed} to ${target}\n\n`;
  // clusterctl leaves a newer cert-manager alone; a render writes the release the Config asks for
  const [from, to] = [parseSemantic(plan.installed), parseSemantic(plan.target)];
  if (from !== null && to !== null && compareSemantic(from, to) > 0) {
    const pin = plan.pinnedBy?.length ? `, as ${plan.pinnedBy.join(' and ')} ${plan.pinnedBy.length > 1 ? 'pin' : 'pins'} it` : '';
    return `${name} will be downgraded from ${installed} to ${target}${pin}\n\n`;
  }
  return `${pinnedBelowText(plan, name) ?? `${name} is already up to date`}\n\n`;
}

/** The line for cert-manager held by a pin below the release the default offers; undefined when it is not. */
export function pinnedBelowText(plan: CertManagerPlan, name = 'Cert-Manager'): string | undefined {
  if (plan.available === undefined || !plan.pinnedBy?.length) return undefined;
  return (
    `${name} is at ${JSON.stringify(plan.target)}, pinned by ${plan.pinnedBy.join(' and ')}; ${JSON.stringify(plan.available)} is available ` +
    `(the default, as in clusterctl): to move, ${moveHint(plan.pinnedBy)}`
  );
}

/**
 * The plan with the exact pins each contract's update would lower (loweredPinProblems): a plan
 * whose update refuses is not offered. A plan that refuses for another reason offers no update.
 */
export function withLoweredPins(plan: UpgradePlan, previous: Lockfile | undefined, providers: readonly ResolvedProvider[]): UpgradePlan {
  const lowered = [...new Set([plan.currentContract, plan.newestContract])].flatMap((contract): LoweredPin[] => {
    let bumps: VersionBump[];
    try {
      bumps = selectUpdates(plan, { contract });
    } catch (err) {
      if (err instanceof CapiGitopsError) return [];
      throw err;
    }
    return loweredPinProblems(previous, providers, bumps, contract).map((d) => ({ ...d, contract }));
  });
  return lowered.length > 0 ? { ...plan, loweredPins: lowered } : plan;
}

/** Each pin a plan would lower, at its spec.version, and why that plan's update refuses. */
function loweredPinsText(plan: UpgradePlan): string {
  if (!plan.loweredPins?.length) return '';
  const lines = plan.loweredPins.map((l) => {
    const update = `update${l.contract === plan.currentContract ? '' : ` --contract ${l.contract}`}`;
    const at = l.file === undefined ? '' : `${displayPath(l.file)}:${l.line}:${l.column}: `;
    return `  ${l.contract}: ${at}${l.message}\n    ${update} refuses this plan; hint: ${l.hint}\n`;
  });
  return `\nPinned above the plan, not locked yet:\n${lines.join('')}`;
}

// ---- output -----------------------------------------------------------------------------------

function cell(t: PlanTarget): string {
  if (t.status === 'held') return 'held back';
  if (t.heldBack && t.version !== '') return `${t.version} (held back)`;
  if (t.status === 'up-to-date') return 'up to date';
  if (t.version === '') return '-';
  return t.status === 'refused' ? `${t.version} (refused)` : t.version;
}

/** Columns padded to their widest cell plus 3 spaces, no trailing spaces (clusterctl's tabwriter layout). */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows
    .map((row) => row.map((text, column) => (column === row.length - 1 ? text : text.padEnd(widths[column] + 3))).join('') + '\n')
    .join('');
}

/** A column of the plan's table: a contract's plan, and each provider's target in it. */
interface PlanColumn {
  contract: string;
  pick: (p: ProviderPlan) => PlanTarget;
}

/** The plan as a table, then refusals, warnings and the command to apply each contract's plan. */
export function renderUpgradePlanText(plan: UpgradePlan): string {
  const columns: PlanColumn[] = [{ contract: plan.currentContract, pick: (p: ProviderPlan) => p.sameContract }];
  if (plan.newestContract !== plan.currentContract)
    columns.push({ contract: plan.newestContract, pick: (p: ProviderPlan) => p.newestContract });
  const rows = [
    ['NAME', 'NAMESPACE', 'TYPE', 'INSTALLED', 'CONTRACT', ...columns.map((c) => `NEXT (${c.contract})`)],
    ...plan.providers.map((p) => [p.label, p.namespace, p.kind, p.installed, p.installedContract, ...columns.map((c) => cell(c.pick(p)))]),
  ];
  let text = `${certManagerText(plan.certManager)}${certManagerText(plan.operator, 'The cluster-api-operator')}Core provider contract: ${plan.currentContract}; newest available: ${plan.newestContract}\n\n${formatTable(rows)}`;
  // Sets: a reason shared by every provider of a plan is printed once.
  const refused = new Set<string>();
  const warnings = new Set<string>();
  for (const column of columns) {
    for (const p of plan.providers) {
      column.pick(p).reasons.forEach((reason) => refused.add(`${column.contract}: ${reason}`));
      column.pick(p).warnings.forEach((warning) => warnings.add(warning));
    }
  }
  const list = (title: string, lines: Set<string>) =>
    lines.size > 0 ? `\n${title}:\n${[...lines].map((line) => `  ${line}\n`).join('')}` : '';
  text += list('Refused', refused) + list('Warnings', warnings) + heldBackText(plan, columns) + loweredPinsText(plan) + '\n';
  // a plan a range splits, or whose update would lower a pin, is not offered: update refuses it
  const lowers = (contract: string) => plan.loweredPins?.some((l) => l.contract === contract) ?? false;
  const applicable = columns.filter(
    (c) =>
      plan.providers.some((p) => c.pick(p).status === 'upgrade') &&
      !plan.providers.some((p) => c.pick(p).heldBack?.conflict) &&
      !lowers(c.contract),
  );
  const images = movedImagesText(plan.images) + uncheckedImagesText(plan.imagesUnchecked);
  if (applicable.length === 0) return `${text}${noPlanLine(plan, columns, lowers, images !== '')}\n${images}`;
  // a plan from cached listings is applied from them too: online, update would list releases the plan did not show
  const offline = plan.versionsFromCache?.length ? ' --offline' : '';
  return text + applicable.map((c) => `To update: capi-gitops update --contract ${c.contract}${offline}\n`).join('') + images;
}

/** The last line when no plan is offered: what holds each plan back, else how up to date the providers are. */
function noPlanLine(
  plan: UpgradePlan,
  columns: readonly PlanColumn[],
  lowers: (contract: string) => boolean,
  imagesListed: boolean,
): string {
  const blocked = columns.filter((c) => plan.providers.some((p) => c.pick(p).heldBack?.conflict)).map((c) => c.contract);
  if (blocked.length > 0) return `No plan to apply: a version range holds back the ${blocked.join(' and ')} plan (see above).`;
  const lowering = columns.filter((c) => lowers(c.contract)).map((c) => c.contract);
  if (lowering.length > 0) return `No plan to apply: the ${lowering.join(' and ')} plan would lower a pin not locked yet (see above).`;
  // a newer release the plan refuses (minors skipped, a contract capi-gitops cannot install) is not "up to date"
  const refused = columns.filter((c) => plan.providers.some((p) => c.pick(p).status === 'refused' && c.pick(p).version !== ''));
  if (refused.length > 0) return `No plan to apply: the ${refused.map((c) => c.contract).join(' and ')} plan is refused (see above).`;
  // a range that holds a provider back leaves it "up to date" only as far as the range goes
  const ranges = heldBackByRange(plan) ? ', as far as their version ranges allow (see above)' : '';
  // clusterctl's last line speaks of the providers only: not "you" when cert-manager or the operator moves or could
  const settled = [plan.certManager, plan.operator].every((p) => !p || (p.installed === p.target && p.available === undefined));
  if (settled && imagesListed) return `The versions are up to date${ranges}.`;
  return settled && !ranges ? 'You are already up to date.' : `The providers are up to date${ranges}.`;
}

/** Whether a provider's version range keeps it below a release some plan would move it to. */
export function heldBackByRange(plan: UpgradePlan): boolean {
  return plan.providers.some((p) => p.sameContract.heldBack !== undefined || p.newestContract.heldBack !== undefined);
}

/** Each provider a range holds below a plan, at its spec.version; for one that splits the providers, why update refuses and what to do. */
function heldBackText(plan: UpgradePlan, columns: readonly PlanColumn[]): string {
  const lines: string[] = [];
  for (const { contract, pick } of columns) {
    for (const p of plan.providers) {
      const held = pick(p).heldBack;
      if (!held) continue;
      const at = `${displayPath(held.file)}:${held.line}:${held.column}`;
      if (!held.conflict) lines.push(`  ${contract}: ${at}: ${heldText(p.label, held, contract)}\n`);
      else {
        const update = `update${contract === plan.currentContract ? '' : ` --contract ${contract}`}`;
        lines.push(`  ${contract}: ${at}: ${held.conflict.message}\n    ${update} refuses this plan; hint: ${held.conflict.hint}\n`);
      }
    }
  }
  return lines.length > 0 ? `\nHeld back by a version range:\n${lines.join('')}` : '';
}

// ---- choosing what `update` bumps ---------------------------------------------------------------

export interface UpdateSelection {
  /** The plan's contract to follow; the core provider's current contract by default. */
  contract?: string;
  /** Providers by label (`bootstrap-kubeadm`) or namespace/label; all when empty. */
  providers?: readonly string[];
  /** `update --images`: only the locked images take the digests their tags serve now; no version moves. */
  images?: boolean;
}

/**
 * The bumps `capi-gitops update` applies: the chosen plan's target for each selected provider
 * that has one. Refused targets, unknown names, and a core contract that providers left out of
 * the update cannot follow (clusterctl upgrader.go createCustomPlan) are errors.
 */
export function selectUpdates(plan: UpgradePlan, selection: UpdateSelection = {}): VersionBump[] {
  const contract = selection.contract ?? plan.currentContract;
  if (contract !== plan.currentContract && contract !== plan.newestContract) {
    throw new CapiGitopsError({
      message: `no upgrade plan for contract ${contract}`,
      expected: [...new Set([plan.currentContract, plan.newestContract])].join(' or '),
      hint: 'run `capi-gitops plan` to see the contracts on offer',
    });
  }
  const pick = (p: ProviderPlan) => (contract === plan.currentContract ? p.sameContract : p.newestContract);
  const problems: Diagnostic[] = [];
  const selected = selectedProviders(plan, selection.providers ?? [], problems);
  const bumps: VersionBump[] = [];
  const moved = new Map<ProviderPlan, string>();
  for (const p of selected) {
    const t = pick(p);
    if (t.status === 'refused')
      t.reasons.forEach((reason) => problems.push({ object: `${p.kind}/${p.namespace}/${p.name}`, message: reason }));
    else if (t.status === 'upgrade') {
      bumps.push({ kind: p.kind, name: p.name, namespace: p.namespace, newVersion: t.version });
      moved.set(p, t.releaseContract);
    }
  }
  const held = heldBackDiagnostics(plan, selection).errors;
  // a range that splits the contracts is the cause: the mismatches it makes are not told again
  problems.push(...held, ...(held.length > 0 ? [] : contractProblems(plan, moved)));
  if (problems.length > 0) throw new CapiGitopsError(problems);
  return bumps;
}

/**
 * The selected providers a range holds below the chosen plan, at their spec.version: errors for
 * those that would split the providers (upgrade-holds.ts), warnings for the others. A provider left
 * out of the update stays where it is.
 */
export function heldBackDiagnostics(plan: UpgradePlan, selection: UpdateSelection = {}): { errors: Diagnostic[]; warnings: Diagnostic[] } {
  const contract = selection.contract ?? plan.currentContract;
  const pick = (p: ProviderPlan) => (contract === plan.currentContract ? p.sameContract : p.newestContract);
  const selected = new Set(selectedProviders(plan, selection.providers ?? [], []));
  const each = plan.providers.map((p) => ({ p, o: outcome(p, pick(p), selected.has(p)) }));
  const outcomes = each.map((e) => e.o);
  const conflicts = findConflicts(outcomes, contract, plan.currentContract);
  const result = { errors: [] as Diagnostic[], warnings: [] as Diagnostic[] };
  for (const { p, o } of each) {
    if (o.held === undefined) continue;
    const at = {
      file: o.held.file,
      line: o.held.line,
      column: o.held.column,
      object: `${p.kind}/${p.namespace}/${p.name}`,
      path: 'spec.version',
    };
    const conflict: Conflict | undefined = conflicts.get(o);
    if (conflict) result.errors.push({ ...at, ...conflict });
    else result.warnings.push({ ...at, message: heldText(p.label, o.held, contract), hint: heldMoveHint(o, outcomes) });
  }
  return result;
}

/**
 * The hint for a provider `update` does not know: a metadata.name (kubeadm) is not its label
 * (bootstrap-kubeadm), so the labels it meant; else the closest label.
 */
export function unknownLabelHint(name: string, components: readonly { name: string; label: string }[]): string {
  const byName = components.filter((c) => c.name === name).map((c) => c.label);
  if (byName.length > 0) return `providers are named by their label, as plan lists them: ${byName.join(' or ')}`;
  const guess = closestName(
    name,
    components.map((c) => c.label),
  );
  return guess ? `did you mean "${guess}"?` : 'name providers by their label, as plan lists them';
}

function selectedProviders(plan: UpgradePlan, names: readonly string[], problems: Diagnostic[]): ProviderPlan[] {
  if (names.length === 0) return plan.providers;
  const selected = new Set<ProviderPlan>();
  for (const name of names) {
    const found = plan.providers.filter((p) => p.label === name || `${p.namespace}/${p.label}` === name);
    const versioned = found.length === 0 ? namedVersionProblem(plan, name) : undefined;
    if (versioned) problems.push(versioned);
    else if (found.length === 0) {
      problems.push({
        message: `no provider "${name}" in the manifest`,
        expected: `one of ${plan.providers.map((p) => p.label).join(', ')}`,
        hint: unknownLabelHint(name, plan.providers),
      });
    } else if (found.length > 1) {
      problems.push({
        message: `"${name}" names ${found.length} providers`,
        hint: `use namespace/label: ${found.map((p) => `${p.namespace}/${p.label}`).join(', ')}`,
      });
    } else selected.add(found[0]);
  }
  return plan.providers.filter((p) => selected.has(p));
}

/**
 * clusterctl's `upgrade apply --core capi-system/cluster-api:v1.8.0` form: update has no version to
 * take, the manifest's spec.version is where one is chosen. Undefined when `name` is not that form.
 */
function namedVersionProblem(plan: UpgradePlan, name: string): Diagnostic | undefined {
  const colon = name.lastIndexOf(':');
  const [provider, version] = [name.slice(0, colon), name.slice(colon + 1)];
  if (colon < 0 || parseSemantic(version) === null) return undefined;
  const found = plan.providers.find((p) => p.label === provider || `${p.namespace}/${p.label}` === provider);
  if (!found) return undefined;
  // the plan knows no position: the provider object is named, and the hint its spec.version
  return {
    object: `${found.kind}/${found.namespace}/${found.name}`,
    message: `"${name}" names a version, as clusterctl upgrade apply does; update moves each provider to the release its plan offers`,
    expected: `a provider label, as plan lists them: ${found.label}`,
    hint: `to move ${found.label} to ${version}, set its spec.version to ${version} and render`,
  };
}

/** Every provider's contract after the update must be one the core provider's contract then accepts. */
function contractProblems(plan: UpgradePlan, moved: Map<ProviderPlan, string>): Diagnostic[] {
  const core = plan.providers.find((p) => p.kind === 'CoreProvider')!;
  const coreContract = moved.get(core) ?? core.installedContract;
  const accepted = compatibleContracts(coreContract);
  const problems: Diagnostic[] = [];
  // the core and kubeadm providers are released together: moving the core alone would leave kubeadm behind
  const together = plan.providers
    .filter((q) => !moved.has(q) && hasSkipRule(q.kind, q.name))
    .map((q) => q.label)
    .sort((a, b) => (a === core.label ? -1 : b === core.label ? 1 : compareStrings(a, b)));
  for (const p of plan.providers) {
    const contract = moved.get(p) ?? p.installedContract;
    if (accepted.includes(contract)) continue;
    problems.push({
      object: `${p.kind}/${p.namespace}/${p.name}`,
      message: `${p.label} would implement contract ${contract} while the core provider implements ${coreContract}, which accepts ${accepted.join(' or ')}`,
      hint: moved.has(p)
        ? `include ${together.join(' and ')} in the update${together.length > 1 ? ' (the core and kubeadm providers are released together)' : ''}`
        : `include ${p.label} in the update`,
    });
  }
  return problems;
}
