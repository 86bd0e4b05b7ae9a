/**
 * `capi-gitops plan` and `update`: clusterctl upgrade plan's view of the locked providers, and
 * moving them forward in the lock (and in the manifest where it pins an exact version).
 */
import { METADATA_FILE } from '../core/repository.js';
import { parseMetadata } from '../resolve/metadata.js';
import { CERT_MANAGER_DEFAULT_VERSION, configSecretData } from '../resolve/resolve.js';
import { repositoryRequestFor } from '../resolve/fetch-releases.js';
import { buildProviderRegistry } from '../resolve/registry.js';
import path from 'node:path';
import {
  heldBackDiagnostics,
  loweredPinProblems,
  newestAvailable,
  planUpgrades,
  selectUpdates,
  type ProviderUpgradeInput,
  type UpdateSelection,
  type UpgradePlan,
  type UpgradePlanInput,
  updateDowngradeProblems,
} from '../resolve/upgrade-plan.js';
import type { VersionBump } from '../manifest/update-versions.js';
import { openRepository } from '../sources/index.js';
import { listManifestFiles, refuseLinkedManifestFiles } from '../manifest/files.js';
import { CapiGitopsError, compareStrings, sortDiagnostics, type Diagnostic } from '../core/diagnostics.js';
import { componentKey, OPERATOR_OVERRIDE_KEY } from '../resolve/lock/session.js';
import { resolveOperatorRelease } from '../resolve/fetch-releases.js';
import { readLockfile } from '../resolve/lock/lockfile.js';
import type { Lockfile } from '../resolve/lock/types.js';
import { resolveManagementCluster, type RenderOptions, type Resolution } from './cluster.js';
import { updateVersionsInFiles, type ManifestText, type VersionEdit } from '../manifest/update-versions.js';
import { parseVersionRequest } from '../core/versions.js';
import type { Manifest, ProviderObject } from '../manifest/types.js';
import type { RepositoryRequest } from '../sources/request.js';
import type { VersionRange } from '../resolve/upgrade-holds.js';
import { recheckLockedImages, refreshLockedImages, registryDigests } from './image-pins.js';
import { originOf, providerObjectName } from '../resolve/preflight.js';
import { toldOnce } from './told-once.js';

/**
 * For each provider: the locked release (what the output holds, as clusterctl plans from what the
 * cluster runs; the manifest's version when the lock has none yet), every published version and
 * the newest release's series.
 */
async function upgradeInputs(
  resolution: Resolution,
  lock: Lockfile | undefined,
  /** Offline, the labels of the providers whose release list the cache answered (an earlier online run's). */
  listedFromCache: Set<string>,
): Promise<ProviderUpgradeInput[]> {
  const { manifest, sources } = resolution;
  const { registry } = buildProviderRegistry(manifest.config.repositories ?? [], manifest.config.position, manifest.config.locate);
  const unlisted: Diagnostic[] = [];
  const settled = await Promise.allSettled(
    resolution.providers.map(async (resolved): Promise<ProviderUpgradeInput | undefined> => {
      const request = repositoryRequestFor(resolved.provider, registry, manifest.baseDir, configSecretData(resolved.provider, manifest));
      // a network source lists its releases (`resolve`); offline, only from the cache
      const onProgress: typeof sources.onProgress = (event) => {
        if (sources.offline && event.type === 'resolve') listedFromCache.add(resolved.label);
        sources.onProgress?.(event);
      };
      const repository = await openRepository(request, { configMaps: manifest.configMaps, options: { ...sources, onProgress } });
      const problem = unlistedReleases(request, repository.sourceType, resolved.version, manifest);
      if (problem) return void unlisted.push(problem);
      const available = await repository.listVersions();
      const newest = newestAvailable(available) ?? resolved.version;
      const metadata = newest === resolved.version ? resolved.metadata : await repository.getFile(newest, METADATA_FILE);
      const { releaseSeries } = parseMetadata(metadata.text, { label: resolved.label, version: newest, url: metadata.url });
      return {
        kind: resolved.kind,
        name: resolved.name,
        namespace: resolved.namespace,
        installed:
          lock?.entries.find((e) => e.kind === resolved.kind && e.name === resolved.name && e.namespace === resolved.namespace)?.version ??
          resolved.version,
        available,
        releaseSeries,
        ...versionRange(resolved.provider),
      };
    }),
  );
  // every provider whose releases cannot be listed, told at once (one error shared by providers, once)
  const failed = new Set(settled.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : [])));
  for (const reason of failed) {
    if (!(reason instanceof CapiGitopsError)) throw reason;
    unlisted.push(...reason.diagnostics);
  }
  const unique = [...new Map(unlisted.map((d) => [JSON.stringify(d), d])).values()];
  if (unique.length > 0) throw new CapiGitopsError(sortDiagnostics(unique));
  return settled.flatMap((result) => (result.status === 'fulfilled' && result.value ? [result.value] : []));
}

/**
 * A plain HTTPS template without `versions` or `versionsUrl` lists no releases, so plan cannot
 * tell whether a newer one exists. The source's own hint (set spec.version to a tag) is for a
 * render; a planned provider has its version already: the list belongs to a Config repositories
 * entry, which a fetchConfig.url template takes its releases from too.
 */
function unlistedReleases(request: RepositoryRequest, sourceType: string, version: string, manifest: Manifest): Diagnostic | undefined {
  if (sourceType !== 'https' || request.from !== 'url' || request.versions !== undefined || request.versionsUrl !== undefined) return;
  const { kind, name, label } = request;
  const index = (manifest.config.repositories ?? []).findIndex((entry) => entry.type === kind && entry.name === name);
  const at = index >= 0 ? manifest.config.locate?.(['repositories', index]) : undefined;
  const listing = `versions: [${version}] (every published tag) or versionsUrl (a file of one tag per line)`;
  return {
    ...request.origin,
    ...(at ? { file: at.file, line: at.line, column: at.column, object: 'Config', path: `repositories[${index}]` } : {}),
    message:
      `plan cannot tell whether ${label} has a release newer than ${version}: ` +
      `${request.url} is a plain HTTPS template, which lists no releases`,
    expected: `versions or versionsUrl on the Config repositories entry of ${kind} ${name}`,
    hint: at
      ? `add ${listing} to this repositories entry`
      : `add a Config repositories entry {name: ${name}, type: ${kind}, url: ${request.url}} with ${listing}; ` +
        'spec.fetchConfig.url takes its releases from it',
  };
}

/** spec.version when it is a range, where it is written: the plan holds the provider within it. */
function versionRange(provider: ProviderObject): { range?: VersionRange } {
  const request = parseVersionRequest(provider.spec.version);
  if (request?.form !== 'range') return {};
  const { file, line, column } = provider.fieldPosition?.(['spec', 'version']) ?? provider.position;
  return { range: { range: request.range, file, line, column } };
}

export async function planManagementCluster(
  options: RenderOptions,
  recheckImages = true,
): Promise<{ resolution: Resolution; plan: UpgradePlan; lock: Lockfile | undefined }> {
  const resolution = await resolveManagementCluster(options);
  // The lockfile on disk is still the previous one: plan writes nothing.
  const lock = await readLockfile(resolution.lockFile);
  const locked = (kind: string) => lock?.entries.find((entry) => entry.kind === kind)?.version;
  const settings = resolution.manifest.config.certManager ?? {};
  const pinnedBy = (['version', 'url'] as const).filter((field) => settings[field] !== undefined).map((field) => `certManager.${field}`);
  const certManager = resolution.certManager
    ? { installed: locked('CertManager'), target: resolution.certManager.version, pinnedBy, newest: CERT_MANAGER_DEFAULT_VERSION }
    : undefined;
  const listedFromCache = new Set<string>();
  const providers = await upgradeInputs(resolution, lock, listedFromCache);
  const planned = planUpgrades({ providers, certManager, operator: await operatorUpgrade(resolution, locked('Operator')) });
  const versionsFromCache = [...listedFromCache].sort(compareStrings);
  const plan = versionsFromCache.length > 0 ? { ...planned, versionsFromCache } : planned;
  if (versionsFromCache.length > 0) {
    options.onWarning?.({
      message: `--offline: the releases of ${versionsFromCache.join(', ')} are the cache's copy of an earlier online listing, so a newer release is not listed`,
      hint: 'run without --offline to list the current releases',
    });
  }
  // Images pinned in the lockfile are asked of their registries again: which tags moved.
  if (!recheckImages || !lock?.entries.some((e) => e.images)) return { resolution, plan, lock };
  // --offline asks no registry (docs/images.md): the providers are still planned
  if (resolution.sources.offline) {
    options.onWarning?.({
      message: '--offline: the locked images were not asked of their registries, so a tag that moved is not listed',
      hint: 'run plan without --offline to list them',
    });
    return { resolution, plan, lock };
  }
  // a registry down leaves the providers' plan standing: its images are listed as unchecked, with a warning
  const { moved, unchecked, problems } = await recheckLockedImages(
    lock,
    registryDigests(resolution.sources, options.onWarning, 'check'),
    [],
    {
      file: resolution.lockFile,
      locate: lock.locate,
    },
  );
  for (const problem of problems) options.onWarning?.(problem.diagnostic);
  return { resolution, plan: { ...plan, images: moved, ...(unchecked.length > 0 ? { imagesUnchecked: unchecked } : {}) }, lock };
}

/**
 * The operator layout's cluster-api-operator: the locked release, and the release Config.operator
 * asks for now, resolved without the lock (so `latest` finds a newer release).
 */
async function operatorUpgrade(resolution: Resolution, installed?: string): Promise<UpgradePlanInput['operator']> {
  if (!resolution.operator) return undefined;
  const now = await resolveOperatorRelease(resolution.manifest.config, resolution.manifest.baseDir, { sources: resolution.sources });
  return { installed, target: now.version };
}

export interface UpdateResult {
  /** Absent for `update --images`, which moves no version. */
  plan?: UpgradePlan;
  /** What happened to each provider's spec.version in the manifest files. */
  edits: VersionEdit[];
  /** Manifest files to rewrite. */
  files: string[];
  /** Their new texts: not written yet (app/update.ts commits them with the lockfile). */
  texts: ManifestText[];
  /** The resolution after the update: the lock to write and its changes. */
  resolution: Resolution;
}

/**
 * Chooses the plan's targets, edits exact pins in the manifest (comments and formatting kept),
 * and re-resolves with the new versions so the lock records them. Writes nothing: the caller
 * commits the edited texts and the lock together.
 */
export async function updateManagementCluster(options: RenderOptions, selection: UpdateSelection): Promise<UpdateResult> {
  if (selection.images) {
    if (options.sources?.offline)
      throw new CapiGitopsError({
        message: '--images asks each registry which digest its tags serve now, and --offline asks no registry',
        hint: 'run update --images without --offline',
      });
    const resolution = await resolveManagementCluster({ ...options, frozen: false });
    const ask = registryDigests(resolution.sources, options.onWarning);
    const lock = await refreshLockedImages(resolution.lock, ask, selection.providers ?? [], resolution.lockFile);
    return { edits: [], files: [], texts: [], resolution: { ...resolution, lock } };
  }
  // the plan's resolution and the update's meet the same warnings: each is told once
  const once = toldOnce();
  const tell = once(options.onWarning).onWarning ?? (() => {});
  // held until the plan is judged: a warning at a field an error names would say the problem twice
  const held: Diagnostic[] = [];
  let planned: Resolution;
  let plan: UpgradePlan;
  let bumps: VersionBump[];
  try {
    const planning = await planManagementCluster({ ...options, frozen: false, onWarning: (w) => held.push(w) }, false);
    ({ plan, resolution: planned } = planning);
    const backwards = updateDowngradeProblems(planning.lock, planned.providers);
    bumps = selectUpdatesAtVersions(plan, selection, planned.manifest.providers, backwards);
    const lowered = loweredPinProblems(planning.lock, planned.providers, bumps, selection.contract ?? plan.currentContract);
    if (lowered.length > 0) throw new CapiGitopsError(lowered);
  } catch (err) {
    const refused = new Set(err instanceof CapiGitopsError ? err.diagnostics.map(fieldOf) : []);
    // nor a hint to run the update just refused
    held.filter((w) => (fieldOf(w) === undefined || !refused.has(fieldOf(w))) && !SUGGESTS_UPDATE.test(w.hint ?? '')).forEach(tell);
    throw err;
  }
  held.forEach(tell);
  // a range that splits the providers was refused above; one that does not may stay behind, said aloud
  for (const warning of heldBackDiagnostics(plan, selection).warnings) tell(warning);
  const problems: Diagnostic[] = [];
  const manifestFiles = await listManifestFiles(options.manifestPaths, problems);
  if (problems.length > 0) throw new CapiGitopsError(problems);
  const { files, edits } = await updateVersionsInFiles(manifestFiles, bumps, options.namespace ?? planned.manifest.config.namespace);
  const changed = files.filter((f) => f.changed);
  // before the edits are resolved, so a refused file costs no fetch (the caller writes them)
  await refuseLinkedManifestFiles(
    changed.map((f) => f.path),
    'update',
  );
  // Written by the caller together with the lockfile; resolved from memory until then.
  const manifestTexts = new Map(changed.map((f) => [path.resolve(f.path), f.text]));
  // Exact pins now name the new versions; empty versions and ranges move in the lock only.
  const lockOnly = new Set(edits.filter((e) => e.status === 'not-pinned').map((e) => componentKey(e)));
  const overrides = new Map(bumps.filter((b) => lockOnly.has(componentKey(b))).map((b) => [componentKey(b), b.newVersion]));
  // The operator's release moves with a whole update, in the lock (Config.operator names no exact version then).
  if (plan.operator?.shouldUpgrade && (selection.providers ?? []).length === 0) overrides.set(OPERATOR_OVERRIDE_KEY, plan.operator.target);
  const resolution = await resolveManagementCluster({
    ...options,
    frozen: false,
    versionOverrides: overrides,
    manifestTexts,
    onWarning: tell,
  }).catch((err: unknown) => {
    throw withSkippedEdits(err, edits);
  });
  return { plan, edits, files: changed.map((f) => f.path), texts: changed, resolution };
}

/** A hint that suggests `capi-gitops update`. */
const SUGGESTS_UPDATE = /`capi-gitops update\b/;

/** A manifest field a problem is told at: object and path, as the manifest's own checks key them. */
function fieldOf(d: Diagnostic): string | undefined {
  return d.path === undefined ? undefined : `${d.object}\0${d.path}`;
}

/**
 * selectUpdates names each provider it refuses to move or to leave behind (a contract the core
 * provider would not accept); the manifest's spec.version is where that is changed, so the
 * problem is told there. Problems about the command line (an unknown provider) stay as they are.
 * `backwards`: the providers the manifest moves below their lock, refused at their spec.version,
 * where no other problem is told again.
 */
function selectUpdatesAtVersions(
  plan: UpgradePlan,
  selection: UpdateSelection,
  providers: readonly ProviderObject[],
  backwards: readonly Diagnostic[],
): VersionBump[] {
  let bumps: VersionBump[] = [];
  let placed: Diagnostic[] = [];
  try {
    bumps = selectUpdates(plan, selection);
  } catch (err) {
    if (!(err instanceof CapiGitopsError)) throw err;
    const byObject = new Map(providers.map((p) => [providerObjectName(p), p]));
    placed = err.diagnostics.map((d) => {
      const provider = d.file === undefined && d.object !== undefined ? byObject.get(d.object) : undefined;
      return provider ? { ...d, ...originOf(provider, 'spec.version') } : d;
    });
  }
  const refused = new Set(backwards.map(fieldOf));
  const problems = [...backwards, ...placed.filter((d) => fieldOf(d) === undefined || !refused.has(fieldOf(d)))];
  if (problems.length > 0) throw new CapiGitopsError(sortDiagnostics(problems));
  return bumps;
}

/**
 * A resolution that fails after some versions moved (a spec.version update could not edit, an
 * alias say, left on the old contract; a range that splits them is refused by the plan before)
 * fails because of the versions that could not move: those are reported first, with what to do.
 */
function withSkippedEdits(err: unknown, edits: readonly VersionEdit[]): unknown {
  const skipped = edits.filter((edit) => edit.status === 'skipped');
  if (!(err instanceof CapiGitopsError) || skipped.length === 0) return err;
  const notMoved: Diagnostic[] = skipped.map((edit) => ({
    file: edit.file,
    line: edit.line,
    column: edit.column,
    object: `${edit.kind}/${edit.namespace}/${edit.name}`,
    path: 'spec.version',
    message: `not updated to ${edit.newVersion}; the problems after this one may follow from it`,
    hint: edit.reason,
  }));
  return new CapiGitopsError([...notMoved, ...err.diagnostics]);
}
