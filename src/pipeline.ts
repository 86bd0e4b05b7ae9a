/**
 * The whole offline render: manifest → resolve → variables → parse → transforms → layout.
 * Nothing here writes to the output directory; the caller writes `files` only after success.
 */
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import type { ProviderRepository } from './model/repository.js';
import { CapiGitopsError, DiagnosticBag, type Diagnostic } from './model/diagnostics.js';
import type { KObject } from './model/kobject.js';
import type { ImageMeta, Manifest, ProviderObject, SecretObject, SecretStrategy, SourcePosition } from './manifest/types.js';
import { githubTokenFromEnv, githubTokenHostProblem } from './sources/credentials.js';
import { loadManifest } from './manifest/load.js';
import { findConfigSecret } from './manifest/references.js';
import { atProviderField } from './manifest/field-locator.js';
import { settleEach } from './resolve/settle.js';
import { OPERATOR_LABEL, OPERATOR_NAMESPACE, operatorSettingsProblems, type ResolvedOperatorRelease } from './resolve/operator-release.js';
import { providerNameWarnings } from './resolve/name-advice.js';
import { preflightManagementCluster, type ResolvedCertManager, type ResolvedProvider } from './resolve/resolve.js';
import { resolveCertManager, resolveEachProvider, resolveOperatorRelease, type ResolveOptions } from './fetch-releases.js';
import { buildProviderRegistry } from './resolve/registry.js';
import type { SourceOptions } from './sources/request.js';
import { buildLockfile, lockfilePath, readLockfile, serializeLockfile } from './lock/lockfile.js';
import type { Lockfile } from './lock/types.js';
import { LockSession, type LockOutcome, type SharedBlobs } from './lock/session.js';
import { pinImages } from './lock/image-pins.js';
import { inspectVariables, substituteVariables, type SubstitutionResult, type VariableReference } from './render/variables.js';
import type { RenderedComponent, VariableLookup, VariableValue } from './render/types.js';
import { unusedVariableWarnings, type GivenVariables } from './render/variable-advice.js';
import { mergeImageOverrides, parseImagesValue } from './render/images.js';
import {
  artifactDisplayName,
  BatchParseError,
  providerRawYaml,
  renderCertManagerComponent,
  renderProviderComponent,
  type CacheableParseInput,
  type ProviderRender,
  type RenderRun,
  type TextParser,
} from './render/component.js';
import { parseArtifacts, PARSER_VERSION } from './yaml/parse.js';
import { YamlBudget } from './yaml/bounds.js';
import { sha256Hex, type ArtifactCache } from './sources/cache.js';
import { layoutChart, layoutOutput, unmanagedObjects, type LayoutName } from './emit/layout.js';
import type { ObjectSelector } from './emit/apply-safety.js';
import { prepareChart, type SetExpression } from './chart/index.js';
import {
  containsSecret,
  finalGate,
  IMAGES_KEY,
  protectSecrets,
  readRunSecrets,
  redactDiagnostic,
  secretAwareLookup,
  secretNeedles,
  secretValues,
  taintMarker,
  type MarkedText,
  type RunSecrets,
  type SecretNeedles,
} from './secrets/index.js';
import { renderOperatorLayout } from './operator-pipeline.js';

export interface RenderOptions {
  /** `-f` values: files or directories. */
  manifestPaths: string[];
  /** Opt in to writing values that came from Secrets into the output. */
  allowSecretValues?: boolean;
  /** Network, cache and offline settings for the source modules. */
  sources?: SourceOptions;
  /** Fail instead of changing the lockfile (CI). */
  frozen?: boolean;
  /** `--pin-images`: pin every image by digest (Config pinImages otherwise). */
  pinImages?: boolean;
  /** Versions to move to, by componentKey (`capi-gitops update`). */
  versionOverrides?: ReadonlyMap<string, string>;
  /** `--layout`; default Config.output.layout, else kustomize. */
  layout?: LayoutName;
  /** `--values` files, in order. */
  valuesFiles?: string[];
  /** `--set` and `--set-string`, in command-line order. */
  set?: SetExpression[];
  /** The output directory (its place in its Git repository is the wiring's default path). */
  outputDir?: string;
  /** The command that regenerates the output, for its README (no absolute paths). */
  command?: string;
  /** Where this render's tree sits below outputDir (a fleet cluster's `clusters/<name>`). */
  outputSubdirectory?: string;
  /** `--secrets`; default Config.secrets.strategy, else refuse (inline with --allow-secret-values alone). */
  secretsStrategy?: SecretStrategy;
  /** `--secret-file` and `--env-secret`: secret values kept out of Git. */
  secretFiles?: string[];
  envSecrets?: string[];
  /** Called with every form of every secret value as soon as they are known (GitHub Actions masks). */
  onSecretValues?: (needles: SecretNeedles) => void;
  /** Told each likely mistake in valid input (manifest and variables) as soon as it is found. */
  onWarning?: (warning: Diagnostic) => void;
  /**
   * Resolve what can be resolved and hand the problems on (Resolution.problems) instead of
   * throwing them, so the render reports them with its own: every problem in one run.
   */
  collectAll?: boolean;
}

/** What resolution found, and the lock that records it. */
export interface Resolution {
  manifest: Manifest;
  providers: ResolvedProvider[];
  certManager: ResolvedCertManager | null;
  /** The lockfile's path (beside the first manifest), the lock to write and what changed. */
  lockFile: string;
  lock: LockOutcome;
  /** The source options in effect (Config.github merged in). */
  sources: SourceOptions;
  /** The cluster-api-operator release, when the run draws the operator layout. */
  operator?: ResolvedOperatorRelease;
  /** With collectAll: what did not resolve (the lock above is then not to be written). */
  problems?: Diagnostic[];
}

/** One provider's variables for `render --list-variables`. */
export interface ProviderVariables {
  label: string;
  namespace: string;
  version: string;
  variables: { name: string; default?: string; value?: VariableValue }[];
}

export interface RenderResult extends Resolution {
  components: RenderedComponent[];
  /** Relative path → file content, ready for writeOutput. */
  files: Map<string, string>;
  layout: LayoutName;
  /** Things the user must hear on every run (unmanaged objects). */
  warnings: string[];
}

function providerName(p: Pick<ProviderObject, 'kind' | 'namespace' | 'name'>): string {
  return `${p.kind}/${p.namespace}/${p.name}`;
}

function originOf(p: ProviderObject): Pick<Diagnostic, 'object' | 'file' | 'line' | 'column'> {
  return { object: providerName(p), file: p.position.file, line: p.position.line, column: p.position.column };
}

/** The Secret a provider's spec.configSecret names (namespace defaulted by the manifest stage). */
function configSecretOf(provider: ProviderObject, secrets: readonly SecretObject[]): SecretObject | undefined {
  const ref = provider.spec.configSecret;
  if (!ref) return undefined;
  const namespace = ref.namespace || provider.namespace;
  const secret = findConfigSecret(provider, secrets);
  if (!secret) {
    throw new CapiGitopsError({
      ...originOf(provider),
      path: 'spec.configSecret',
      message: `Secret ${namespace}/${ref.name} is not in the input`,
      expected: `a v1 Secret ${namespace}/${ref.name} whose data keys are the provider's variables`,
      hint: 'add the Secret to one of the -f files, or remove spec.configSecret',
    });
  }
  return secret;
}

/** A provider with its configSecret and the values its variables take. */
interface PreparedProvider {
  resolved: ResolvedProvider;
  secret: SecretObject | undefined;
  lookup: VariableLookup;
}

function prepareProvider(manifest: Manifest, resolved: ResolvedProvider, run: RunSecrets): PreparedProvider {
  const secret = configSecretOf(resolved.provider, manifest.secrets);
  return { resolved, secret, lookup: secretAwareLookup(manifest, secret, run) };
}

/** A provider ready to render: with its image overrides (Config.images, and the configSecret's `images`). */
type RenderableProvider = PreparedProvider & { images: ReturnType<typeof imageOverridesFor> };

function collect(bag: DiagnosticBag, err: unknown): void {
  if (err instanceof CapiGitopsError) err.diagnostics.forEach((d) => bag.add(d));
  else throw err;
}

/** A manifest-chosen GitHub API host gets the token only when the person running the tool named it too. */
function guardGitHubToken(apiUrl: string | undefined, configured: SourceOptions, position: SourcePosition | undefined): void {
  const env = configured.env ?? process.env;
  const token = configured.github?.token ?? githubTokenFromEnv(env);
  const problem = token ? githubTokenHostProblem(apiUrl, [configured.github?.apiUrl, env.GITHUB_API_URL]) : undefined;
  if (problem)
    throw new CapiGitopsError({
      ...position,
      path: 'github.apiUrl',
      message: problem,
      expected: 'https://api.github.com, or a host also given on the command line',
      hint: `run with --github-api-url ${apiUrl} if you trust that host, or unset GITHUB_TOKEN for this run`,
    });
}

/**
 * Loads the manifest and resolves every component, pinned by the lockfile where it still answers
 * the manifest; locked files come from the cache and are checked against their digests.
 */
export async function resolveManagementCluster(options: RenderOptions): Promise<Resolution> {
  return resolveManifest(await loadManifest(options.manifestPaths), options);
}

/** What a fleet shares between its clusters' runs (src/fleet-render.ts). */
export interface SharedRun {
  /** The lock this cluster's pins come from, instead of the lockfile on disk. */
  previous?: Lockfile;
  /** Wraps each repository before the lock session does (one fetch per artifact per run). */
  decorate?: NonNullable<ResolveOptions['decorate']>;
  /** Parses artifacts (one parse per distinct text per run). */
  parse?: TextParser;
  /** Renders a component once per run for each distinct input (`key` names every input). */
  component?: (key: string, objects: KObject[], render: () => RenderedComponent) => RenderedComponent;
  /** The files of components already laid out in this run. */
  componentFiles?: WeakMap<RenderedComponent, Map<string, string>>;
  /** Cached files read, and downloads stored, once per run (src/lock/session.ts). */
  blobs?: SharedBlobs;
  /** Substitutes variables (once per distinct text and values per run). */
  substitute?: (text: string, lookup: VariableLookup, file: string) => SubstitutionResult;
}

/** resolveManagementCluster for a manifest already loaded (one cluster of a fleet). */
export async function resolveManifest(manifest: Manifest, options: RenderOptions, shared?: SharedRun): Promise<Resolution> {
  for (const warning of manifest.warnings ?? []) options.onWarning?.(warning);
  const lockFile = lockfilePath(manifest.baseDir);
  const { registry } = buildProviderRegistry(manifest.config.repositories ?? [], manifest.config.position);
  const configured = options.sources ?? {};
  // --github-api-url wins over Config.github.apiUrl
  const apiUrl = configured.github?.apiUrl ?? manifest.config.github?.apiUrl;
  guardGitHubToken(apiUrl, configured, manifest.config.position);
  const withApi: SourceOptions = apiUrl === undefined ? configured : { ...configured, github: { ...configured.github, apiUrl } };
  // --http-timeout wins over Config.network
  const network = manifest.config.network;
  const sources: SourceOptions =
    network === undefined
      ? withApi
      : {
          ...withApi,
          http: {
            timeoutMs: network.timeoutSeconds === undefined ? undefined : network.timeoutSeconds * 1000,
            retries: network.retries,
            ...withApi.http,
          },
        };
  // The operator layout pins the operator's release; lock and plan know it from the Config.
  const operatorLayout = (options.layout ?? manifest.config.output?.layout) === 'operator' || manifest.config.operator !== undefined;
  const previous = shared ? shared.previous : await readLockfile(lockFile);
  const session = new LockSession(manifest, {
    previous,
    operator: operatorLayout,
    file: lockFile,
    registry,
    cache: sources.cache,
    offline: sources.offline,
    overrides: options.versionOverrides,
    shared: shared?.blobs,
  });
  const outer = shared?.decorate;
  const decorate = outer
    ? (repository: ProviderRepository, component: Parameters<typeof outer>[1]) => session.decorate(outer(repository, component), component)
    : session.decorate;
  const resolveOptions: ResolveOptions = { sources, pinnedVersion: session.pinnedVersion, decorate };
  // Invalid input fails here, before any request; then every fetch problem is reported together.
  const early = [...preflightManagementCluster(manifest), ...(operatorLayout ? operatorSettingsProblems(manifest.config) : [])];
  if (early.length > 0) throw new CapiGitopsError(early);
  for (const warning of providerNameWarnings(manifest.providers, registry)) options.onWarning?.(warning);
  const operatorRelease = operatorLayout
    ? resolveOperatorRelease(manifest.config, manifest.baseDir, {
        sources,
        pinnedVersion: session.operatorVersion,
        decorate: (r) =>
          session.decorate(outer ? outer(r, { name: OPERATOR_LABEL, namespace: OPERATOR_NAMESPACE }) : r, {
            kind: 'Operator',
            name: OPERATOR_LABEL,
          }),
      })
    : Promise.resolve(undefined);
  const settled = await settleEach([
    resolveEachProvider(manifest, resolveOptions),
    resolveCertManager(manifest.config, manifest.baseDir, resolveOptions),
    operatorRelease,
  ] as const);
  const [each, resolvedCertManager, operator] = settled.values;
  const providers = each?.providers ?? [];
  const certManager = resolvedCertManager ?? null;
  const problems = [...settled.problems, ...(each?.problems ?? [])];
  const resolution = { manifest, providers, certManager, lockFile, sources, ...(operator ? { operator } : {}) };
  if (problems.length === 0) return { ...resolution, lock: session.conclude(providers, certManager, options.frozen ?? false, operator) };
  if (!options.collectAll) throw new CapiGitopsError(problems);
  // What did resolve is still checked against the lock; no lock is written on a failed run.
  let lock: LockOutcome = { lock: previous ?? buildLockfile([]), changes: [] };
  try {
    lock = session.conclude(providers, certManager, false, operator);
  } catch (err) {
    if (!(err instanceof CapiGitopsError)) throw err;
    problems.push(...err.diagnostics);
  }
  return { ...resolution, lock, problems };
}

/** Each provider's variables, their defaults and where each value comes from. */
export async function listVariables(options: RenderOptions): Promise<ProviderVariables[]> {
  const { manifest, providers } = await resolveManagementCluster(options);
  const run = await readRunSecrets({ secretFiles: options.secretFiles, envSecrets: options.envSecrets });
  const bag = new DiagnosticBag();
  const listed: (PreparedProvider & { variables: VariableReference[] })[] = [];
  for (const resolved of providers) {
    try {
      const prepared = prepareProvider(manifest, resolved, run);
      const variables = inspectVariables(providerRawYaml(resolved, manifest.configMaps), artifactDisplayName(resolved.components));
      listed.push({ ...prepared, variables });
    } catch (err) {
      collect(bag, err);
    }
  }
  bag.throwIfAny();
  options.onSecretValues?.(
    secretNeedles(
      secretValues(
        manifest,
        listed.map((p) => p.secret),
        run,
      ),
    ),
  );
  return listed.map((p) => ({
    label: p.resolved.label,
    namespace: p.resolved.namespace,
    version: p.resolved.version,
    variables: p.variables.map((ref) => ({ ...ref, value: p.lookup(ref.name) })),
  }));
}

function secretValuesError(provider: ProviderObject, names: string[], what: string): Diagnostic {
  return {
    ...originOf(provider),
    path: 'spec.configSecret',
    message: `${what} from Secret ${provider.spec.configSecret?.namespace || provider.namespace}/${provider.spec.configSecret?.name} would be written to the output: ${names.join(', ')}`,
    expected: 'no value that comes from a Secret in files committed to Git',
    hint: 'declare `images` in Config.secrets.public, move the overrides to `images:` in the Config document, or pass --secrets inline --allow-secret-values to accept them in the output',
  };
}

function imageOverridesFor(
  manifest: Manifest,
  secret: SecretObject | undefined,
): { merged: Record<string, ImageMeta>; fromSecret: Record<string, ImageMeta> } {
  const fromConfig = manifest.config.images ?? {};
  if (!secret || !Object.hasOwn(secret.data, IMAGES_KEY)) return { merged: fromConfig, fromSecret: {} };
  const fromSecret = parseImagesValue(
    secret.data[IMAGES_KEY]!,
    `Secret ${secret.namespace}/${secret.name} key "${IMAGES_KEY}"`,
    secret.position,
  );
  return { merged: mergeImageOverrides(fromConfig, fromSecret), fromSecret };
}

export async function renderManagementCluster(options: RenderOptions): Promise<RenderResult> {
  return renderResolution(await resolveManagementCluster({ ...options, collectAll: true }), options);
}

/** Renders what resolution found; a fleet shares the parsing between its clusters. */
export async function renderResolution(resolution: Resolution, options: RenderOptions, shared?: SharedRun): Promise<RenderResult> {
  const operatorLayout = (options.layout ?? resolution.manifest.config.output?.layout) === 'operator';
  if (resolution.problems?.length) {
    if (operatorLayout && !resolution.operator) throw new CapiGitopsError(resolution.problems);
    // Render what resolved, then report its problems with those of resolution. No warnings from
    // this partial render: a variable only an unresolved provider uses would be called unused.
    const later = await renderResolution({ ...resolution, problems: undefined }, { ...options, onWarning: undefined }, shared).then(
      () => [],
      (err: unknown) => (err instanceof CapiGitopsError ? err.diagnostics : Promise.reject(err)),
    );
    throw new CapiGitopsError([...resolution.problems, ...later]);
  }
  const { manifest, providers } = resolution;
  if (operatorLayout) {
    const tool = manifest.config.operator?.wiring;
    if (!tool && ((options.set?.length ?? 0) > 0 || (options.valuesFiles?.length ?? 0) > 0)) {
      throw new CapiGitopsError({
        message:
          '--set, --set-string and --values are chart values, and the operator layout draws no chart unless Config operator.wiring names one',
        expected: 'operator.wiring: argocd or flux in the Config document',
        hint: 'add wiring: argocd (or flux) under operator: in the Config document, or drop the chart values',
      });
    }
    const wiring = tool ? { tool, ...(await prepareWiring(tool, manifest, options)) } : undefined;
    let lock = resolution.lock;
    const pin = async (components: RenderedComponent[]) => {
      const pinned = await pinImages({
        flag: options.pinImages,
        frozen: options.frozen,
        onWarning: options.onWarning,
        resolution,
        components,
      });
      lock = pinned.lock;
      return pinned.components;
    };
    const rendered = await renderOperatorLayout(resolution, { command: options.command, wiring, pinImages: pin });
    // nothing is substituted here, but a patch or an additionalManifests ConfigMap may carry a secret
    const run = await readRunSecrets({ secretFiles: options.secretFiles, envSecrets: options.envSecrets });
    const needles = secretNeedles(
      secretValues(
        manifest,
        providers.map((p) => (p.provider.spec.configSecret ? findConfigSecret(p.provider, manifest.secrets) : undefined)),
        run,
      ),
    );
    options.onSecretValues?.(needles);
    finalGate(rendered.files, { path: path.basename(resolution.lockFile), text: serializeLockfile(lock.lock) }, needles);
    return { ...resolution, ...rendered, lock, layout: 'operator', warnings: [] };
  }
  const run = await readRunSecrets({ secretFiles: options.secretFiles, envSecrets: options.envSecrets });
  const bag = new DiagnosticBag();
  const prepared: PreparedProvider[] = [];
  for (const resolved of providers) {
    try {
      prepared.push(prepareProvider(manifest, resolved, run));
    } catch (err) {
      collect(bag, err);
    }
  }
  // every Secret a provider names is known to the gate, whether the provider renders or not
  const needles = secretNeedles(
    secretValues(
      manifest,
      prepared.map((p) => p.secret),
      run,
    ),
  );
  const renderable: RenderableProvider[] = [];
  for (const provider of prepared) {
    try {
      renderable.push({ ...provider, images: imageOverridesFor(manifest, provider.secret) });
    } catch (err) {
      collect(bag, err);
    }
  }
  options.onSecretValues?.(needles);
  try {
    return await renderPrepared(options, resolution, renderable, bag, needles, shared);
  } catch (err) {
    // a message may quote substituted text (a YAML error, a patch target): never a secret value
    if (err instanceof CapiGitopsError) throw new CapiGitopsError(err.diagnostics.map((d) => redactDiagnostic(d, needles)));
    throw err;
  }
}

/** Every component rendered (src/render/component.ts), sharing the run's parser; then the layout and the secrets stage. */
async function renderPrepared(
  options: RenderOptions,
  resolution: Resolution,
  prepared: RenderableProvider[],
  bag: DiagnosticBag,
  needles: SecretNeedles,
  shared?: SharedRun,
): Promise<RenderResult> {
  const { manifest, certManager } = resolution;
  const secrets = manifest.config.secrets ?? {};
  const strategy = options.secretsStrategy ?? secrets.strategy ?? (options.allowSecretValues ? 'inline' : 'refuse');
  const imagesWritable = (strategy === 'inline' && options.allowSecretValues) || (secrets.public ?? []).includes(IMAGES_KEY);
  const unmanagedKey = JSON.stringify(manifest.config.overrides ?? []);
  const run: RenderRun<MarkedText> = {
    substitute: shared?.substitute ?? substituteVariables,
    parse: shared?.parse ?? new ParseBatch(options.sources?.cache).parse,
    secrets: { holdsSecret: (text) => containsSecret(text, needles), marks: taintMarker },
    share: shared?.component,
  };

  // Every component's sequence starts in this turn, so their texts are parsed as one batch.
  const providerRenders = prepared.map((p) =>
    renderProviderComponent(
      {
        resolved: p.resolved,
        configMaps: manifest.configMaps,
        lookup: p.lookup,
        givenVariables: [...Object.keys(manifest.config.variables ?? {}), ...Object.keys(p.secret?.data ?? {})],
        imageOverrides: p.images.merged,
        imageOverridesWithoutSecrets:
          Object.keys(p.images.fromSecret).length > 0 && !imagesWritable ? (manifest.config.images ?? {}) : undefined,
        // a provider that reads a Secret is rendered on its own, never shared between clusters
        shareKey: p.secret ? undefined : componentKey(p.resolved, manifest.config.images, unmanagedKey),
      },
      run,
    ),
  );
  const certManagerRender =
    certManager &&
    renderCertManagerComponent(
      {
        resolved: certManager,
        imageOverrides: manifest.config.images ?? {},
        shareKey: JSON.stringify([
          'cert-manager',
          certManager.version,
          certManager.components.sha256,
          manifest.config.images ?? {},
          unmanagedKey,
        ]),
      },
      run,
    );
  const rendered = await Promise.all(providerRenders);
  const certManagerRendered = await certManagerRender;

  // Every problem once: a problem of a whole parse batch reaches every component of it.
  const reported = new Set<Diagnostic>();
  const report = (d: Diagnostic) => {
    if (!reported.has(d)) bag.add(d);
    reported.add(d);
  };
  const components: RenderedComponent[] = [];
  const markedRenders = new Map<string, { objects: KObject[]; marks: MarkedText }>();
  rendered.forEach((outcome, i) => {
    outcome.problems.forEach(report);
    const provider = prepared[i]!.resolved.provider;
    if (outcome.secretFields.length > 0)
      report(atProviderField(secretValuesError(provider, [IMAGES_KEY], 'image overrides'), manifest.providers, providerName));
    if (outcome.component) components.push(outcome.component);
    if (outcome.component && outcome.marked) markedRenders.set(outcome.component.label, outcome.marked);
  });
  if (certManagerRendered) {
    certManagerRendered.problems.forEach(report);
    if (certManagerRendered.component) components.push(certManagerRendered.component);
  }
  // Names given that no component uses, once every provider's variables are known.
  if (prepared.length === resolution.providers.length && rendered.every((r) => r.variables))
    unusedVariableWarnings(givenVariables(manifest, prepared, rendered)).forEach((w) => options.onWarning?.(w));
  bag.throwIfAny();
  // Images pinned by digest (Config pinImages, --pin-images): from the lock, else asked of their registries.
  const { pinImages: flag, frozen, onWarning } = options;
  const pinned = await pinImages({ flag, frozen, onWarning, resolution, components, marked: markedRenders });

  const layout = options.layout ?? manifest.config.output?.layout ?? 'kustomize';
  const unmanaged: ObjectSelector[] = (manifest.config.overrides ?? [])
    .filter((o) => o.unmanaged)
    .map((o) => ({ group: o.group ?? '', kind: o.kind, name: o.name, ...(o.namespace ? { namespace: o.namespace } : {}) }));
  const builtIn = layoutChart(layout);
  if (!builtIn && ((options.set?.length ?? 0) > 0 || (options.valuesFiles?.length ?? 0) > 0)) {
    throw new CapiGitopsError({
      message: `--set, --set-string and --values are chart values, and the ${layout} layout draws no chart`,
      expected: 'chart values only with --layout argocd or --layout flux (or Config output.layout)',
      hint: 'add --layout argocd or --layout flux, or drop the chart values',
    });
  }
  const wiring = builtIn ? await prepareWiring(builtIn, manifest, options) : undefined;
  // 4. Secrets: the strategy, the layout, and the final scan of every output byte.
  const secured = await protectSecrets({
    strategy,
    allowSecretValues: options.allowSecretValues ?? false,
    config: secrets,
    layout,
    components: pinned.components,
    marked: pinned.marked,
    needles,
    lockfile: { path: path.basename(resolution.lockFile), text: serializeLockfile(pinned.lock.lock) },
    previousOutput: async (file) =>
      options.outputDir
        ? readFile(path.join(options.outputDir, options.outputSubdirectory ?? '', file), 'utf8').catch(() => undefined)
        : undefined,
    layoutFiles: (secured, extras) =>
      layoutOutput({
        layout,
        components: secured,
        unmanaged,
        wiring,
        command: options.command ?? 'capi-gitops render',
        componentFiles: shared?.componentFiles,
        ...extras,
      }),
  });
  const overridden = unmanagedObjects(secured.components, unmanaged);
  const warnings =
    overridden.length > 0
      ? [`Config.overrides: ${overridden.length} object(s) rendered but not enforced by the GitOps tool: ${overridden.join(', ')}`]
      : [];
  return {
    ...resolution,
    lock: pinned.lock,
    components: secured.components,
    files: secured.files,
    layout,
    warnings: [...warnings, ...secured.warnings],
  };
}

/** The chart that draws a layout's wiring (Config.gitops.chart or the built-in one), with every values layer. */
function prepareWiring(builtIn: string, manifest: Manifest, options: RenderOptions): ReturnType<typeof prepareChart> {
  const gitops = manifest.config.gitops ?? {};
  return prepareChart({
    builtIn,
    userChart: gitops.chart ? path.resolve(manifest.baseDir, gitops.chart) : undefined,
    path: gitops.path,
    configValues: gitops.values,
    valuesFiles: options.valuesFiles,
    set: options.set,
    outputDir: options.outputDir,
    subdirectory: options.outputSubdirectory,
  });
}

/** Config.variables reach every provider; a configSecret's keys only the providers that name it. */
function givenVariables(manifest: Manifest, prepared: PreparedProvider[], rendered: ProviderRender<MarkedText>[]): GivenVariables[] {
  const usedBy = (secret?: SecretObject) =>
    new Set(prepared.flatMap((p, i) => (secret && p.secret !== secret ? [] : (rendered[i]!.variables ?? []).map((r) => r.name))));
  const given: GivenVariables[] = [];
  const config = manifest.config;
  if (config.variables)
    given.push({
      origin: 'Config',
      path: 'variables',
      position: config.position,
      names: Object.keys(config.variables),
      used: usedBy(),
    });
  for (const secret of new Set(prepared.map((p) => p.secret).filter((s) => s !== undefined))) {
    given.push({
      origin: `Secret/${secret.namespace}/${secret.name}`,
      position: secret.position,
      names: Object.keys(secret.data),
      used: usedBy(secret),
    });
  }
  return given;
}

/**
 * The run's parser: the texts asked for in one turn of the event loop (every component of a run,
 * and of each cluster of a fleet, reaches its parse step in one turn) are parsed as one batch,
 * with one YAML node budget, one pass over the parse cache and one trim. With `shareTexts` (a
 * fleet), each distinct text is parsed once per run and its objects are shared.
 */
export class ParseBatch {
  /** Texts asked for, and texts parsed or read from the cache. */
  requested = 0;
  parsed = 0;
  private readonly memo = new Map<string, Promise<KObject[]>>();
  private pending: { input: CacheableParseInput; resolve: (objects: KObject[]) => void; reject: (err: unknown) => void }[] = [];

  constructor(
    private readonly cache: ArtifactCache | undefined,
    private readonly shareTexts = false,
  ) {}

  parse: TextParser = (input) => {
    this.requested++;
    if (!this.shareTexts) return this.enqueue(input);
    let promise = this.memo.get(input.text);
    if (!promise) {
      promise = this.enqueue(input);
      this.memo.set(input.text, promise);
    }
    return promise;
  };

  private enqueue(input: CacheableParseInput): Promise<KObject[]> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => this.flush());
      this.pending.push({ input, resolve, reject });
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    this.parsed += batch.length;
    parseWithCache(
      batch.map((b) => b.input),
      this.cache,
    ).then(
      (results) => batch.forEach((b, i) => (Array.isArray(results[i]) ? b.resolve(results[i]) : b.reject(results[i]))),
      (err: unknown) => batch.forEach((b) => b.reject(err)),
    );
  }
}

/**
 * Parsed forms are cached by the sha256 of the text that was parsed (the artifact after variable
 * substitution) and the parser's version, so a warm render skips YAML parsing altogether. Each
 * text gets its objects or its own problems; a bound of the whole batch, a BatchParseError.
 */
export async function parseWithCache(
  sources: CacheableParseInput[],
  cache: ArtifactCache | undefined,
): Promise<(KObject[] | CapiGitopsError | BatchParseError)[]> {
  // Nodes and depth are bounded before any parser (or the cache) sees the text: one budget per run.
  const budget = new YamlBudget();
  try {
    for (const s of sources) budget.check(s.text, s.source);
  } catch (err) {
    if (!(err instanceof CapiGitopsError)) throw err;
    const failure = new BatchParseError(err);
    return sources.map(() => failure);
  }
  const parseOne = (s: CacheableParseInput): KObject[] | CapiGitopsError => {
    try {
      return parseArtifacts([s])[0]!;
    } catch (err) {
      if (err instanceof CapiGitopsError) return err;
      throw err;
    }
  };
  if (!cache) return sources.map(parseOne);
  // a secret-bearing text is neither looked up (its digest would let a guess be checked) nor stored
  const keys = sources.map((s) => (s.keepOutOfCache ? undefined : `${PARSER_VERSION}:${sha256Hex(s.text)}`));
  const results: (KObject[] | CapiGitopsError | undefined)[] = await Promise.all(
    keys.map((key) => (key === undefined ? undefined : cache.getParsed<KObject[]>(key))),
  );
  const missing = sources.map((_, i) => i).filter((i) => results[i] === undefined);
  for (const i of missing) results[i] = parseOne(sources[i]!);
  await Promise.all(
    missing.map((i) => {
      const parsed = results[i];
      return keys[i] === undefined || !Array.isArray(parsed) ? undefined : cache.putParsed(keys[i], parsed);
    }),
  );
  await cache.trimParsed();
  return results as (KObject[] | CapiGitopsError)[];
}

/** Every input of a provider's render except its parsed objects (which the caller keys by identity). */
function componentKey(r: ResolvedProvider, images: ToolConfigImages, unmanaged: string): string {
  return JSON.stringify([r.kind, r.name, r.label, r.version, r.namespace, r.components.sha256, r.provider.spec, images ?? {}, unmanaged]);
}
type ToolConfigImages = Manifest['config']['images'];
