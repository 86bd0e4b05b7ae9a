/**
 * One cluster's resolution: the manifest's releases found, fetched through the run's repositories
 * and pinned by the lock where it still answers the manifest. Locked files come from the cache
 * and are checked against their digests.
 */
import { CapiGitopsError, type Diagnostic } from '../core/diagnostics.js';
import type { ProviderRepository } from '../core/repository.js';
import type { Manifest } from '../manifest/types.js';
import { matchesSelector } from '../core/label-selector.js';
import { githubTokenFromEnv, githubTokenGuard } from '../sources/credentials.js';
import type { SourceOptions } from '../sources/request.js';
import { settleEach } from '../resolve/settle.js';
import { OPERATOR_LABEL, OPERATOR_NAMESPACE, operatorSettingsProblems, pinsOperatorRelease } from '../resolve/operator-release.js';
import { providerNameWarnings } from '../resolve/name-advice.js';
import { preflightManagementCluster, type ResolvedProvider } from '../resolve/resolve.js';
import { imageTagWarnings, installedDowngradeWarnings, problemObjectName, providerObjectName } from '../resolve/preflight.js';
import { resolveCertManager, resolveEachProvider, resolveOperatorRelease, type ResolveOptions } from '../resolve/fetch-releases.js';
import { buildProviderRegistry } from '../resolve/registry.js';
import { certManagerDowngradeWarnings, downgradeWarnings, kubeadmSplitWarnings, minorSkipWarnings } from '../resolve/upgrade-plan.js';
import { lockfilePath, readLockfile } from '../resolve/lock/lockfile.js';
import { buildLockfile } from '../resolve/lock/build.js';
import type { Lockfile } from '../resolve/lock/types.js';
import { lockSourceForProvider } from '../resolve/lock/request.js';
import type { ProviderRegistry } from '../resolve/registry.js';
import { isLocalRepositoryUrl } from '../sources/local/repository.js';
import { LockSession, type LockOutcome } from '../resolve/lock/session.js';
import type { RunContext } from './context.js';
import type { RenderOptions, Resolution } from './types.js';

/**
 * A manifest-chosen GitHub API host gets a token (GITHUB_TOKEN, a configSecret's github-token)
 * only when the person running the tool named it too.
 */
function guardGitHubToken(apiUrl: string | undefined, configured: SourceOptions, manifest: Manifest): void {
  const env = configured.env ?? process.env;
  const token = configured.github?.token ?? githubTokenFromEnv(env);
  const problem = githubTokenGuard(apiUrl, [configured.github?.apiUrl, env.GITHUB_API_URL], token, manifest.secrets);
  if (problem)
    throw new CapiGitopsError({
      ...manifest.config.position,
      path: 'github.apiUrl',
      message: problem.message,
      expected: 'https://api.github.com, or a host also given on the command line',
      hint: problem.hint,
    });
}

/** The source options in effect: the command line's, with Config.github and Config.network under them. */
function sourceOptions(manifest: Manifest, configured: SourceOptions): SourceOptions {
  // --github-api-url wins over Config.github.apiUrl
  const apiUrl = configured.github?.apiUrl ?? manifest.config.github?.apiUrl;
  guardGitHubToken(apiUrl, configured, manifest);
  const withApi: SourceOptions = apiUrl === undefined ? configured : { ...configured, github: { ...configured.github, apiUrl } };
  // --http-timeout wins over Config.network
  const network = manifest.config.network;
  if (network === undefined) return withApi;
  const timeoutMs = network.timeoutSeconds === undefined ? undefined : network.timeoutSeconds * 1000;
  return { ...withApi, http: { timeoutMs, retries: network.retries, ...withApi.http } };
}

/**
 * The preflight's problems but those at a field the manifest's own checks already told (url and
 * selector together is the CRD's CEL rule and the preflight's; a number for spec.version is not a
 * string and not a version): one problem per field, with the hint that fixes it.
 */
function notToldAgain(preflight: readonly Diagnostic[], told: readonly Diagnostic[] = []): Diagnostic[] {
  const at = new Set(told.filter((d) => d.path !== undefined).map((d) => `${d.object} ${d.path}`));
  return preflight.filter((d) => d.path === undefined || !at.has(`${d.object} ${d.path}`));
}
/**
 * Resolves one cluster. `locked` is the lock its pins come from (a fleet cluster's part of the
 * fleet's lock); without it, the lockfile beside the manifest. `locked.frozen`: what that lock
 * does not answer is a problem before any request, and the fleet judges the lock as a whole.
 */
export async function resolveCluster(
  context: RunContext,
  manifest: Manifest,
  options: RenderOptions,
  locked?: { lock: Lockfile | undefined; frozen?: boolean; unlistedCluster?: string },
): Promise<Resolution> {
  for (const warning of manifest.warnings ?? []) options.onWarning?.(warning);
  manifest = withoutRefusedSources(manifest);
  const lockFile = lockfilePath(manifest.baseDir);
  const { registry } = buildProviderRegistry(manifest.config.repositories ?? [], manifest.config.position, manifest.config.locate);
  const sources = sourceOptions(manifest, { ...options.sources, runMemo: context.runMemo });
  const operatorLayout = pinsOperatorRelease(manifest.config, options.layout);
  const previous = locked ? locked.lock : await readLockfile(lockFile);
  const session = new LockSession(manifest, {
    previous,
    operator: operatorLayout,
    file: lockFile,
    registry,
    cache: sources.cache,
    offline: sources.offline,
    overrides: options.versionOverrides,
    acceptDigests: options.acceptDigests,
    // a fleet's cluster or release (locked given): the fleet judges the names over all clusters
    acceptNamesJudgedByFleet: locked !== undefined,
    unlistedCluster: locked?.unlistedCluster,
    shared: context.blobs,
  });
  const decorate = (repository: ProviderRepository, component: Parameters<LockSession['decorate']>[1]) =>
    session.decorate(context.repository(repository), component);
  // Invalid input is found here, before any request. With collectAll, a provider with a problem of
  // its own is left out and the others resolve, so the run reports every problem together.
  const preflight = preflightManagementCluster(manifest);
  const frozen = options.frozen || locked?.frozen ? session.frozenProblems() : [];
  const readLocally = locallyRead(frozen, manifest, registry);
  const early = [
    ...(manifest.problems ?? []),
    ...notToldAgain(preflight, manifest.problems),
    ...(operatorLayout ? operatorSettingsProblems(manifest.config) : []),
    ...frozen.filter((d) => !readLocally.has(d.object)),
    ...(operatorLayout || manifest.providers.length > 0 || (manifest.problems?.length ?? 0) > 0 ? [] : [noProviders(options)]),
  ];
  const unresolvable = leftOut(early, preflight, manifest, options.collectAll);
  if (unresolvable === undefined) throw new CapiGitopsError(early);
  if (unresolvable.size > 0)
    manifest = { ...manifest, providers: manifest.providers.filter((p) => !unresolvable.has(providerObjectName(p))) };
  for (const warning of providerNameWarnings(manifest.providers, registry)) options.onWarning?.(warning);
  const operatorRelease = operatorLayout
    ? resolveOperatorRelease(manifest.config, manifest.baseDir, {
        sources,
        pinnedVersion: session.operatorVersion,
        decorate: (r) => decorate(r, { kind: 'Operator', name: OPERATOR_LABEL, namespace: OPERATOR_NAMESPACE }),
      })
    : Promise.resolve(undefined);
  const resolveOptions: ResolveOptions = { sources, pinnedVersion: session.pinnedVersion, decorate, readLocal: context.readLocal };
  const settled = await settleEach([
    resolveEachProvider(manifest, resolveOptions),
    resolveCertManager(manifest.config, manifest.baseDir, resolveOptions),
    operatorRelease,
  ] as const);
  const [each, resolvedCertManager, operator] = settled.values;
  const resolving = [...settled.problems, ...(each?.problems ?? [])];
  const { lockChanges, providers } = lockChangesRead(frozen, readLocally, resolving, each?.providers ?? [], early);
  const problems = [...early, ...lockChanges, ...resolving];
  const certManager = resolvedCertManager ?? null;
  const resolution = { manifest, providers, certManager, lockFile, sources, ...(operator ? { operator } : {}) };
  for (const warning of moveWarnings(previous, resolution, options)) options.onWarning?.(warning);
  for (const warning of providerWarnings(providers, manifest.problems)) options.onWarning?.(warning);
  if (problems.length === 0) return { ...resolution, lock: session.conclude(providers, certManager, options.frozen ?? false, operator) };
  if (!options.collectAll) throw new CapiGitopsError(problems);
  // What did resolve is still checked against the lock; no lock is written on a failed run.
  let lock: LockOutcome = { lock: previous ?? buildLockfile([]), changes: [] };
  try {
    lock = session.conclude(providers, certManager, false, operator);
  } catch (err) {
    if (!(err instanceof CapiGitopsError)) throw err;
    problems.push(...(err.diagnostics as Diagnostic[]));
  }
  return { ...resolution, lock, problems };
}

/**
 * Under --frozen, the providers the lock does not answer whose source is a local repository or
 * the input's artifact ConfigMaps (fetchConfig.selector): reading one makes no request, so each
 * still resolves and a version it does not hold is told at its field in this run (the render the
 * lock change suggests would fail on it).
 */
function locallyRead(frozen: readonly Diagnostic[], manifest: Manifest, registry: ProviderRegistry): Set<string | undefined> {
  const local = manifest.providers.filter((p) => {
    const source = lockSourceForProvider(p, registry);
    return source?.type === 'selector' || ((source?.type === 'url' || source?.type === 'registry') && isLocalRepositoryUrl(source.url));
  });
  const names = new Set(local.map(providerObjectName));
  return new Set(frozen.filter((d) => names.has(d.object ?? '')).map((d) => d.object));
}

/**
 * The lock changes of the providers read locally that resolved (one that did not is told by its
 * own problem), and the providers without them: such a provider is left out as a lock change
 * leaves it out, the core provider with the whole run.
 */
function lockChangesRead(
  frozen: readonly Diagnostic[],
  readLocally: Set<string | undefined>,
  resolving: readonly Diagnostic[],
  resolved: ResolvedProvider[],
  early: readonly Diagnostic[],
): { lockChanges: Diagnostic[]; providers: ResolvedProvider[] } {
  const failed = new Set(resolving.map((d) => d.object));
  const lockChanges = frozen.filter((d) => readLocally.has(d.object) && !failed.has(d.object));
  const changed = new Set(lockChanges.map((d) => d.object));
  if (resolved.some((p) => p.kind === 'CoreProvider' && changed.has(providerObjectName(p.provider))))
    throw new CapiGitopsError([...early, ...lockChanges, ...resolving]);
  return { lockChanges, providers: resolved.filter((p) => !changed.has(providerObjectName(p.provider))) };
}

/** What moving from the lock to the manifest warns of: a downgrade, minors skipped, core and kubeadm split. */
function moveWarnings(
  previous: Lockfile | undefined,
  { providers, certManager, manifest }: Pick<Resolution, 'providers' | 'certManager' | 'manifest'>,
  options: Pick<RenderOptions, 'versionRelease' | 'stepRelease' | 'versionLayer'>,
): Diagnostic[] {
  return [
    ...downgradeWarnings(previous, providers, options.versionLayer),
    ...minorSkipWarnings(previous, providers, options.versionRelease, options.stepRelease),
    ...kubeadmSplitWarnings(previous, providers, options.versionRelease),
    ...certManagerDowngradeWarnings(previous, certManager, manifest.config, options.versionLayer?.('certManager')),
  ];
}

/**
 * With collectAll, the providers a problem of their own leaves out of the resolution; undefined
 * when the run stops before any request: without collectAll, on a problem of no provider, or of the
 * CoreProvider, whose contract every other provider is checked against.
 */
function leftOut(
  early: readonly Diagnostic[],
  preflight: readonly Diagnostic[],
  manifest: Manifest,
  collectAll: boolean | undefined,
): Set<string | undefined> | undefined {
  if (early.length === 0) return new Set();
  const named = new Set(manifest.providers.map(providerObjectName));
  const own = (d: Diagnostic) => manifest.problems?.includes(d) ?? false;
  if (!collectAll || early.some((d) => !d.object || (!named.has(d.object) && !own(d)))) return undefined;
  // a provider whose only problems are the manifest's own still resolves (the others' contracts need it); it is not rendered
  // (a preflight problem the manifest's checks told already still leaves its provider out)
  const unresolvable = new Set([...early.filter((d) => !own(d)), ...preflight].map((d) => d.object));
  for (const provider of selectingLeftOutConfigMaps(manifest)) unresolvable.add(providerObjectName(provider));
  // a name that is no string (told by the schema) names no repository: "no repository is known for control-plane-2147483648"
  for (const provider of manifest.providers)
    if (typeof (provider.name as unknown) !== 'string') unresolvable.add(providerObjectName(provider));
  return manifest.providers.some((p) => p.kind === 'CoreProvider' && unresolvable.has(providerObjectName(p))) ? undefined : unresolvable;
}

/**
 * A provider whose spec.fetchConfig the manifest refused has no source to resolve from, and that
 * fetchConfig may hold anything (a map for a url): it is left out before a source or a lock entry
 * is made of it (either threw). Without its core provider nothing resolves: the problems are thrown.
 */
function withoutRefusedSources(manifest: Manifest): Manifest {
  const refused = new Set(manifest.problems?.filter((d) => /^spec\.fetchConfig\b/.test(d.path ?? '')).map((d) => d.object));
  if (refused.size === 0) return manifest;
  const isRefused = (p: Manifest['providers'][number]) => refused.has(problemObjectName(p));
  if (manifest.providers.some((p) => p.kind === 'CoreProvider' && isRefused(p))) throw new CapiGitopsError(manifest.problems!);
  return { ...manifest, providers: manifest.providers.filter((p) => !isRefused(p)) };
}

/**
 * What the resolved providers' own fields warn of, for those without a problem in the manifest:
 * such a provider still resolves, but its fields may be anything (`containers: {}`).
 */
function providerWarnings(providers: readonly ResolvedProvider[], problems: readonly Diagnostic[] = []): Diagnostic[] {
  const faulty = new Set(problems.map((d) => d.object));
  const sound = providers.filter((p) => !faulty.has(problemObjectName(p.provider)));
  return [...installedDowngradeWarnings(sound), ...imageTagWarnings(sound)];
}

/**
 * Providers whose fetchConfig.selector matches a ConfigMap left out for its own problem: that
 * problem is told, not again "no ConfigMap matches" with a hint towards another ConfigMap (the
 * operator fails on any selected ConfigMap it cannot read, phase_load.go configmapRepository).
 */
function selectingLeftOutConfigMaps(manifest: Manifest): Manifest['providers'] {
  const leftOut = manifest.leftOutConfigMaps ?? [];
  return manifest.providers.filter((provider) => {
    const selector = provider.spec.fetchConfig?.selector;
    return selector && leftOut.some((cm) => cm.namespace === provider.namespace && matchesSelector(cm.labels, selector));
  });
}

/** Nothing to render: an empty file or a Config alone is a wrong path, not a request for cert-manager by itself. */
function noProviders(options: RenderOptions): Diagnostic {
  return {
    file: options.manifestPaths.join(', '),
    message: 'the input has no provider objects (CoreProvider, BootstrapProvider, ControlPlaneProvider, InfrastructureProvider, …)',
    expected: 'at least the CoreProvider cluster-api, as clusterctl init and the operator require',
    hint: "check the -f paths (a directory is read for its *.yaml and *.yml files); `capi-gitops import helm-values` writes provider objects from the operator chart's values",
  };
}
