/**
 * The whole offline render: manifest → resolve → variables → parse → transforms → layout.
 * Nothing here writes to the output directory; the caller writes `files` only after success.
 */
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Artifact, ProviderRepository } from './model/repository.js';
import { CapiGitopsError, DiagnosticBag, compareStrings, type Diagnostic } from './model/diagnostics.js';
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
import {
  inspectVariables,
  substituteVariables,
  missingVariablesError,
  type SubstitutionResult,
  type VariableReference,
} from './render/variables.js';
import type { RenderedComponent, VariableLookup, VariableValue } from './render/types.js';
import { closeGivenNames, unusedVariableWarnings, type GivenVariables } from './render/variable-advice.js';
import { breakingVariables } from './render/variable-breakage.js';
import { appendAdditionalManifests, resolveAdditionalManifests } from './render/additional-manifests.js';
import { mergeImageOverrides, parseImagesValue } from './render/images.js';
import { renderCertManagerObjects, renderComponent, type RenderContext } from './render/pipeline.js';
import { parseArtifacts, PARSER_VERSION, type ParseInput } from './yaml/parse.js';
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

interface PreparedProvider {
  resolved: ResolvedProvider;
  secret: SecretObject | undefined;
  text: string;
  references: VariableReference[];
  lookup: VariableLookup;
}

function prepareProviders(manifest: Manifest, providers: ResolvedProvider[], run: RunSecrets): PreparedProvider[] {
  const bag = new DiagnosticBag();
  const prepared: PreparedProvider[] = [];
  for (const resolved of providers) {
    try {
      const secret = configSecretOf(resolved.provider, manifest.secrets);
      const additional = resolveAdditionalManifests(resolved.provider, manifest.configMaps);
      const text = appendAdditionalManifests(resolved.components.text, additional);
      const references = inspectVariables(text, artifactDisplayName(resolved.components));
      prepared.push({ resolved, secret, text, references, lookup: secretAwareLookup(manifest, secret, run) });
    } catch (err) {
      collect(bag, err);
    }
  }
  bag.throwIfAny();
  return prepared;
}

/** Where an artifact came from, for messages: a path relative to the working directory, or the URL. */
export function artifactDisplayName(artifact: Pick<Artifact, 'url' | 'name'>): string {
  if (artifact.url.startsWith('file://')) {
    const relative = path.relative(process.cwd(), fileURLToPath(artifact.url));
    return relative.startsWith('..') ? fileURLToPath(artifact.url) : relative;
  }
  return artifact.url || artifact.name;
}

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
  parse?: (sources: ParseInput[]) => Promise<KObject[][]>;
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
  const prepared = prepareProviders(manifest, providers, run);
  options.onSecretValues?.(
    secretNeedles(
      secretValues(
        manifest,
        prepared.map((p) => p.secret),
        run,
      ),
    ),
  );
  return prepared.map((p) => ({
    label: p.resolved.label,
    namespace: p.resolved.namespace,
    version: p.resolved.version,
    variables: p.references.map((ref) => ({ ...ref, value: p.lookup(ref.name) })),
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
    const rendered = await renderOperatorLayout(resolution, { command: options.command, wiring });
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
    finalGate(rendered.files, { path: path.basename(resolution.lockFile), text: serializeLockfile(resolution.lock.lock) }, needles);
    return { ...resolution, ...rendered, layout: 'operator', warnings: [] };
  }
  const run = await readRunSecrets({ secretFiles: options.secretFiles, envSecrets: options.envSecrets });
  const prepared = prepareProviders(manifest, providers, run);
  const needles = secretNeedles(
    secretValues(
      manifest,
      prepared.map((p) => p.secret),
      run,
    ),
  );
  options.onSecretValues?.(needles);
  try {
    return await renderPrepared(options, resolution, prepared, needles, shared);
  } catch (err) {
    // a message may quote substituted text (a YAML error, a patch target): never a secret value
    if (err instanceof CapiGitopsError) throw new CapiGitopsError(err.diagnostics.map((d) => redactDiagnostic(d, needles)));
    throw err;
  }
}

async function renderPrepared(
  options: RenderOptions,
  resolution: Resolution,
  prepared: PreparedProvider[],
  needles: SecretNeedles,
  shared?: SharedRun,
): Promise<RenderResult> {
  const { manifest, certManager } = resolution;
  const secrets = manifest.config.secrets ?? {};
  const strategy = options.secretsStrategy ?? secrets.strategy ?? (options.allowSecretValues ? 'inline' : 'refuse');

  // 1. Variables, on the raw text: every missing variable of every provider in one error. A
  // provider that uses a secret is substituted a second time with marks, for taint tracking.
  const bag = new DiagnosticBag();
  const marked: (MarkedText & { text: string })[] = [];
  const markedOf = new Map<number, number>();
  const secretUse = new Map<number, SecretUse>();
  const substituted = prepared.map((p, i) => {
    const file = artifactDisplayName(p.resolved.components);
    const result = (shared?.substitute ?? substituteVariables)(p.text, p.lookup, file);
    if (result.missing.length > 0) {
      const given = [...Object.keys(manifest.config.variables ?? {}), ...Object.keys(p.secret?.data ?? {})];
      const at = {
        ...originOf(p.resolved.provider),
        provider: providerName(p.resolved.provider),
        artifact: file,
        suggestions: closeGivenNames(result.missing, given),
      };
      missingVariablesError(result.missing, at).diagnostics.forEach((d) => bag.add(d));
    }
    const secretNames = [...result.used].filter(([, v]) => v.fromSecret);
    if (secretNames.length > 0) {
      secretUse.set(i, {
        names: secretNames.map(([name]) => name),
        origins: [...new Set(secretNames.map(([, v]) => v.origin))].sort(compareStrings),
      });
      const marker = taintMarker(p.text);
      markedOf.set(i, marked.length);
      marked.push({ ...marker, text: substituteVariables(p.text, p.lookup, file, marker.marker).text });
    }
    return result;
  });
  unusedVariableWarnings(givenVariables(manifest, prepared)).forEach((w) => options.onWarning?.(w));
  bag.throwIfAny();

  // 2. Parse every artifact (YAML 1.1, aliases refused), on this thread: a worker pool measured slower.
  const sources: CacheableParseInput[] = prepared.map((p, i) => ({
    text: substituted[i]!.text,
    source: `${p.resolved.label} ${p.resolved.version} ${p.resolved.components.name}`,
  }));
  if (certManager)
    sources.push({ text: certManager.components.text, source: `cert-manager ${certManager.version} ${certManager.components.name}` });
  for (const [i, m] of markedOf)
    sources.push({
      text: marked[m]!.text,
      source: `${prepared[i]!.resolved.label} ${prepared[i]!.resolved.version} ${prepared[i]!.resolved.components.name}`,
    });
  // the parsed cache is a directory on disk: a text that holds a secret value is never put there
  sources.forEach((s, i) => {
    if ((i < prepared.length && secretUse.has(i)) || containsSecret(s.text, needles)) s.keepOutOfCache = true;
  });
  const parsed = await (shared?.parse ? shared.parse(sources) : parseWithCache(sources, options.sources?.cache)).catch((err: unknown) => {
    // A parse error caused by a variable's value is reported as that variable (never a secret value).
    const culprits = prepared.flatMap((p, i) =>
      breakingVariables({
        raw: p.text,
        text: sources[i]!.text,
        lookup: p.lookup,
        used: substituted[i]!.used,
        source: sources[i]!.source,
        artifact: artifactDisplayName(p.resolved.components),
        origin: originOf(p.resolved.provider),
      }),
    );
    if (culprits.length > 0) throw new CapiGitopsError(culprits);
    throw err instanceof CapiGitopsError ? withoutSubstitutedText(err, sources, secretUse) : err;
  });
  const markedStart = prepared.length + (certManager ? 1 : 0);
  // apimachinery refuses an object without apiVersion or kind ("Object 'Kind' is missing"); later stages read both.
  parsed.forEach((objects, i) =>
    objects.forEach((o, index) => {
      if (typeof o.apiVersion !== 'string' || !o.apiVersion || typeof o.kind !== 'string' || !o.kind) {
        bag.add({
          file: sources[i]!.source,
          message: `object ${index + 1} has no ${typeof o.kind !== 'string' || !o.kind ? 'kind' : 'apiVersion'}`,
          expected: 'Kubernetes objects, each with apiVersion, kind and metadata',
          hint: 'check that the artifact is a provider components file',
        });
      }
    }),
  );
  bag.throwIfAny();

  // 3. Transforms, per component (and per marked render).
  const components: RenderedComponent[] = [];
  const unmanagedKey = JSON.stringify(manifest.config.overrides ?? []);
  const markedRenders = new Map<string, { objects: KObject[]; marks: MarkedText }>();
  prepared.forEach((p, i) => {
    try {
      const m = markedOf.get(i);
      // a provider that reads secret values is rendered on its own, never shared between clusters
      const render = () => renderProvider(manifest, p, parsed[i]!, options, bag, strategy);
      const component =
        shared?.component && !p.secret && m === undefined
          ? shared.component(componentKey(p.resolved, manifest.config.images, unmanagedKey), parsed[i]!, render)
          : render();
      components.push(component);
      if (m !== undefined)
        markedRenders.set(component.label, {
          objects: renderMarked(
            () => renderProvider(manifest, p, parsed[markedStart + m]!, options, new DiagnosticBag(), strategy).objects,
            marked[m]!,
          ),
          marks: marked[m]!,
        });
    } catch (err) {
      collect(bag, err);
    }
  });
  bag.items.forEach((d, i) => (bag.items[i] = atProviderField(d, manifest.providers, providerName)));
  if (certManager) {
    const render = (): RenderedComponent => {
      const objects = renderCertManagerObjects(parsed[prepared.length]!, certManager.version, manifest.config.images ?? {});
      return {
        label: certManager.label,
        type: 'CertManager',
        name: 'cert-manager',
        version: certManager.version,
        namespace: namespaceOf(objects) ?? 'cert-manager',
        artifactSha256: certManager.components.sha256,
        objects,
      };
    };
    const key = JSON.stringify([
      'cert-manager',
      certManager.version,
      certManager.components.sha256,
      manifest.config.images ?? {},
      unmanagedKey,
    ]);
    components.push(shared?.component ? shared.component(key, parsed[prepared.length]!, render) : render());
  }
  bag.throwIfAny();

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
    components,
    marked: markedRenders,
    needles,
    lockfile: { path: path.basename(resolution.lockFile), text: serializeLockfile(resolution.lock.lock) },
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
  return { ...resolution, components: secured.components, files: secured.files, layout, warnings: [...warnings, ...secured.warnings] };
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

/**
 * A YAML error in an artifact that received secret values may quote them: it names the
 * variables and their Secrets instead, keeping line and column.
 */
/** The marked render fails only where a transform reads a secret: say which reference. */
function renderMarked(render: () => KObject[], marked: MarkedText): KObject[] {
  try {
    return render();
  } catch (err) {
    if (!(err instanceof CapiGitopsError)) throw err;
    const unmark = (text: string | undefined) => text?.replace(marked.pattern, (_, i: string) => marked.marks[Number(i)]!.reference);
    throw new CapiGitopsError(
      err.diagnostics.map((d) => ({
        ...d,
        message: `with secret values tracked: ${unmark(d.message)}`,
        path: unmark(d.path),
        object: unmark(d.object),
        hint: 'a transform (patch target, image, name) reads a secret value; keep secrets to values the transforms do not interpret',
      })),
    );
  }
}

/** The secret variables a provider's substitution used, and where their values came from. */
interface SecretUse {
  names: string[];
  origins: string[];
}

function withoutSubstitutedText(err: CapiGitopsError, sources: ParseInput[], secretUse: Map<number, SecretUse>): CapiGitopsError {
  return new CapiGitopsError(
    err.diagnostics.map((d) => {
      const index = sources.findIndex((s) => s.source === d.file);
      const used = secretUse.get(index);
      if (!used) return d;
      return {
        file: d.file,
        line: d.line,
        column: d.column,
        message: `the artifact is not valid YAML after the secret values of ${used.names.join(', ')} were substituted; the parser's message is not shown, as it may quote them`,
        expected: 'values that keep the YAML valid (a value with line breaks or YAML syntax needs a quoted reference)',
        hint: `check the values of ${used.names.join(', ')} in ${used.origins.join(', ')}`,
      };
    }),
  );
}

/** Config.variables reach every provider; a configSecret's keys only the providers that name it. */
function givenVariables(manifest: Manifest, prepared: PreparedProvider[]): GivenVariables[] {
  const usedBy = (list: PreparedProvider[]) => new Set(list.flatMap((p) => p.references.map((r) => r.name)));
  const given: GivenVariables[] = [];
  const config = manifest.config;
  if (config.variables)
    given.push({
      origin: 'Config',
      path: 'variables',
      position: config.position,
      names: Object.keys(config.variables),
      used: usedBy(prepared),
    });
  for (const secret of new Set(prepared.map((p) => p.secret).filter((s) => s !== undefined))) {
    given.push({
      origin: `Secret/${secret.namespace}/${secret.name}`,
      position: secret.position,
      names: Object.keys(secret.data),
      used: usedBy(prepared.filter((p) => p.secret === secret)),
    });
  }
  return given;
}

/** A text to parse; `keepOutOfCache` when it holds a secret value. */
export type CacheableParseInput = ParseInput & { keepOutOfCache?: boolean };

/**
 * Parsed forms are cached by the sha256 of the text that was parsed (the artifact after variable
 * substitution) and the parser's version, so a warm render skips YAML parsing altogether.
 */
export async function parseWithCache(sources: CacheableParseInput[], cache: ArtifactCache | undefined): Promise<KObject[][]> {
  // Nodes and depth are bounded before any parser (or the cache) sees the text: one budget per run.
  const budget = new YamlBudget();
  for (const s of sources) budget.check(s.text, s.source);
  if (!cache) return parseArtifacts(sources);
  // a secret-bearing text is neither looked up (its digest would let a guess be checked) nor stored
  const keys = sources.map((s) => (s.keepOutOfCache ? undefined : `${PARSER_VERSION}:${sha256Hex(s.text)}`));
  const cached = await Promise.all(keys.map((key) => (key === undefined ? undefined : cache.getParsed<KObject[]>(key))));
  const missing = sources.map((_, i) => i).filter((i) => cached[i] === undefined);
  const parsed = parseArtifacts(missing.map((i) => sources[i]!));
  await Promise.all(missing.map((i, j) => (keys[i] === undefined ? undefined : cache.putParsed(keys[i]!, parsed[j]))));
  await cache.trimParsed();
  missing.forEach((i, j) => (cached[i] = parsed[j]));
  return cached as KObject[][];
}

function renderProvider(
  manifest: Manifest,
  p: PreparedProvider,
  objects: KObject[],
  options: RenderOptions,
  bag: DiagnosticBag,
  strategy: SecretStrategy,
): RenderedComponent {
  const r = p.resolved;
  const images = imageOverridesFor(manifest, p.secret);
  const imagesWritable =
    (strategy === 'inline' && options.allowSecretValues) || (manifest.config.secrets?.public ?? []).includes(IMAGES_KEY);
  const context: RenderContext = {
    kind: r.kind,
    name: r.name,
    label: r.label,
    version: r.version,
    namespace: r.namespace,
    spec: r.provider.spec,
    imageOverrides: images.merged,
    imageOverridesWithoutSecrets: Object.keys(images.fromSecret).length > 0 && !imagesWritable ? (manifest.config.images ?? {}) : undefined,
    origin: originOf(r.provider),
    secretFields: [],
  };
  let rendered: KObject[];
  try {
    rendered = renderComponent(objects, context);
  } finally {
    if (context.secretFields.length > 0) bag.add(secretValuesError(r.provider, [IMAGES_KEY], 'image overrides'));
  }
  return {
    label: r.label,
    type: r.kind,
    name: r.name,
    version: r.version,
    namespace: r.namespace,
    artifactSha256: r.components.sha256,
    objects: rendered,
  };
}

/** Every input of a provider's render except its parsed objects (which the caller keys by identity). */
function componentKey(r: ResolvedProvider, images: ToolConfigImages, unmanaged: string): string {
  return JSON.stringify([r.kind, r.name, r.label, r.version, r.namespace, r.components.sha256, r.provider.spec, images ?? {}, unmanaged]);
}
type ToolConfigImages = Manifest['config']['images'];

function namespaceOf(objects: KObject[]): string | undefined {
  return objects.find((o) => o.kind === 'Namespace')?.metadata.name;
}
