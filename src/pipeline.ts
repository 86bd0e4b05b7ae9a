/**
 * The whole offline render: manifest → resolve → variables → parse → transforms → layout.
 * Nothing here writes to the output directory; the caller writes `files` only after success.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Artifact } from './sources/source.js';
import { CapiGitopsError, DiagnosticBag, compareStrings, type Diagnostic } from './model/diagnostics.js';
import type { KObject } from './model/kobject.js';
import type { ImageMeta, Manifest, ProviderObject, SecretObject } from './manifest/types.js';
import { loadManifest } from './manifest/load.js';
import { findConfigSecret } from './manifest/references.js';
import { atProviderField } from './manifest/field-locator.js';
import { settleAll } from './resolve/settle.js';
import { providerNameWarnings } from './resolve/name-advice.js';
import { preflightManagementCluster, resolveCertManager, resolveProviders, type ResolvedCertManager, type ResolvedProvider, type ResolveOptions } from './resolve/resolve.js';
import { buildProviderRegistry } from './resolve/registry.js';
import type { SourceOptions } from './sources/request.js';
import { lockfilePath, readLockfile } from './lock/lockfile.js';
import { LockSession, type LockOutcome } from './lock/session.js';
import { inspectVariables, substituteVariables, missingVariablesError, type VariableReference } from './render/variables.js';
import type { RenderedComponent, VariableLookup, VariableValue } from './render/types.js';
import { closeGivenNames, unusedVariableWarnings, type GivenVariables } from './render/variable-advice.js';
import { breakingVariables } from './render/variable-breakage.js';
import { appendAdditionalManifests, resolveAdditionalManifests } from './render/additional-manifests.js';
import { inspectImages, mergeImageOverrides, parseImagesValue, applyImageOverrides } from './render/images.js';
import { renderCertManagerObjects, renderProviderObjects } from './render/pipeline.js';
import { parseArtifactsParallel, type ParseInput } from './yaml/parse-pool.js';
import { PARSER_VERSION } from './yaml/parse.js';
import { sha256Hex, type ArtifactCache } from './sources/cache.js';
import { layoutChart, layoutOutput, unmanagedObjects, type LayoutName } from './emit/layout.js';
import type { ObjectSelector } from './emit/apply-safety.js';
import { prepareChart, type SetExpression } from './chart/index.js';

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
  /** Told each likely mistake in valid input (manifest and variables) as soon as it is found. */
  onWarning?: (warning: Diagnostic) => void;
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

/** Key in a configSecret that holds clusterctl's images map rather than a variable. */
const IMAGES_KEY = 'images';

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

/** Variables: the configSecret wins over Config.variables (the operator sets Secret data last). */
function variableLookup(manifest: Manifest, secret: SecretObject | undefined): VariableLookup {
  const fromConfig = manifest.config.variables ?? {};
  return (name) => {
    if (secret && Object.hasOwn(secret.data, name)) {
      return { value: secret.data[name]!, origin: `Secret ${secret.namespace}/${secret.name}`, fromSecret: true };
    }
    if (Object.hasOwn(fromConfig, name)) return { value: fromConfig[name]!, origin: 'Config.variables', fromSecret: false };
    return undefined;
  };
}

interface PreparedProvider {
  resolved: ResolvedProvider;
  secret: SecretObject | undefined;
  text: string;
  references: VariableReference[];
  lookup: VariableLookup;
}

function prepareProviders(manifest: Manifest, providers: ResolvedProvider[]): PreparedProvider[] {
  const bag = new DiagnosticBag();
  const prepared: PreparedProvider[] = [];
  for (const resolved of providers) {
    try {
      const secret = configSecretOf(resolved.provider, manifest.secrets);
      const additional = resolveAdditionalManifests(resolved.provider, manifest.configMaps);
      const text = appendAdditionalManifests(resolved.components.text, additional);
      const references = inspectVariables(text, artifactDisplayName(resolved.components));
      prepared.push({ resolved, secret, text, references, lookup: variableLookup(manifest, secret) });
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

/**
 * Loads the manifest and resolves every component, pinned by the lockfile where it still answers
 * the manifest; locked files come from the cache and are checked against their digests.
 */
export async function resolveManagementCluster(options: RenderOptions): Promise<Resolution> {
  const manifest = await loadManifest(options.manifestPaths);
  for (const warning of manifest.warnings ?? []) options.onWarning?.(warning);
  const lockFile = lockfilePath(manifest.baseDir);
  const { registry } = buildProviderRegistry(manifest.config.repositories ?? [], manifest.config.position);
  const configured = options.sources ?? {};
  // --github-api-url wins over Config.github.apiUrl
  const apiUrl = configured.github?.apiUrl ?? manifest.config.github?.apiUrl;
  const sources: SourceOptions = apiUrl === undefined ? configured : { ...configured, github: { ...configured.github, apiUrl } };
  const session = new LockSession(manifest, {
    previous: await readLockfile(lockFile),
    file: lockFile,
    registry,
    cache: sources.cache,
    offline: sources.offline,
    overrides: options.versionOverrides,
  });
  const resolveOptions: ResolveOptions = { sources, pinnedVersion: session.pinnedVersion, decorate: session.decorate };
  // Invalid input fails here, before any request; then every fetch problem is reported together.
  const early = preflightManagementCluster(manifest);
  if (early.length > 0) throw new CapiGitopsError(early);
  for (const warning of providerNameWarnings(manifest.providers, registry)) options.onWarning?.(warning);
  const [providers, certManager] = await settleAll(resolveProviders(manifest, resolveOptions), resolveCertManager(manifest.config, manifest.baseDir, resolveOptions));
  return { manifest, providers, certManager, lockFile, lock: session.conclude(providers, certManager, options.frozen ?? false), sources };
}

/** Each provider's variables, their defaults and where each value comes from. */
export async function listVariables(options: RenderOptions): Promise<ProviderVariables[]> {
  const { manifest, providers } = await resolveManagementCluster(options);
  return prepareProviders(manifest, providers).map((p) => ({
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
    hint: 'move non-secret values to `variables:` in the Config document, or pass --allow-secret-values to accept them in the output',
  };
}

function imageOverridesFor(manifest: Manifest, secret: SecretObject | undefined): { merged: Record<string, ImageMeta>; fromSecret: Record<string, ImageMeta> } {
  const fromConfig = manifest.config.images ?? {};
  if (!secret || !Object.hasOwn(secret.data, IMAGES_KEY)) return { merged: fromConfig, fromSecret: {} };
  const fromSecret = parseImagesValue(secret.data[IMAGES_KEY]!, `Secret ${secret.namespace}/${secret.name} key "${IMAGES_KEY}"`, secret.position);
  return { merged: mergeImageOverrides(fromConfig, fromSecret), fromSecret };
}

export async function renderManagementCluster(options: RenderOptions): Promise<RenderResult> {
  const resolution = await resolveManagementCluster(options);
  const { manifest, providers, certManager } = resolution;
  const prepared = prepareProviders(manifest, providers);

  // 1. Variables, on the raw text: every missing variable of every provider in one error.
  const bag = new DiagnosticBag();
  const substituted = prepared.map((p) => {
    const file = artifactDisplayName(p.resolved.components);
    const result = substituteVariables(p.text, p.lookup, file);
    if (result.missing.length > 0) {
      const given = [...Object.keys(manifest.config.variables ?? {}), ...Object.keys(p.secret?.data ?? {})];
      const at = { ...originOf(p.resolved.provider), provider: providerName(p.resolved.provider), artifact: file, suggestions: closeGivenNames(result.missing, given) };
      missingVariablesError(result.missing, at).diagnostics.forEach((d) => bag.add(d));
    }
    const fromSecret = [...result.used].filter(([, v]) => v.fromSecret).map(([name]) => name).sort(compareStrings);
    if (fromSecret.length > 0 && !options.allowSecretValues) bag.add(secretValuesError(p.resolved.provider, fromSecret, 'variable values'));
    return result;
  });
  unusedVariableWarnings(givenVariables(manifest, prepared)).forEach((w) => options.onWarning?.(w));
  bag.throwIfAny();

  // 2. Parse every artifact (YAML 1.1, aliases refused), in parallel.
  const sources = prepared.map((p, i) => ({ text: substituted[i]!.text, source: `${p.resolved.label} ${p.resolved.version} ${p.resolved.components.name}` }));
  if (certManager) sources.push({ text: certManager.components.text, source: `cert-manager ${certManager.version} ${certManager.components.name}` });
  const parsed = await parseWithCache(sources, options.sources?.cache).catch((error: unknown) => {
    // A parse error caused by a variable's value is reported as that variable.
    const culprits = prepared.flatMap((p, i) =>
      breakingVariables({ raw: p.text, text: sources[i]!.text, lookup: p.lookup, used: substituted[i]!.used, source: sources[i]!.source, artifact: artifactDisplayName(p.resolved.components), origin: originOf(p.resolved.provider) }),
    );
    throw culprits.length > 0 ? new CapiGitopsError(culprits) : error;
  });

  // 3. Transforms, per component.
  const components: RenderedComponent[] = [];
  prepared.forEach((p, i) => {
    try {
      components.push(renderProvider(manifest, p, parsed[i]!, options, bag));
    } catch (err) {
      collect(bag, err);
    }
  });
  bag.items.forEach((d, i) => (bag.items[i] = atProviderField(d, manifest.providers, providerName)));
  if (certManager) {
    const objects = renderCertManagerObjects(parsed[prepared.length]!, certManager.version, manifest.config.images ?? {});
    components.push({
      label: certManager.label,
      type: 'CertManager',
      name: 'cert-manager',
      version: certManager.version,
      namespace: namespaceOf(objects) ?? 'cert-manager',
      artifactSha256: certManager.components.sha256,
      objects,
    });
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
  const gitops = manifest.config.gitops ?? {};
  const wiring = builtIn
    ? await prepareChart({
        builtIn,
        userChart: gitops.chart ? path.resolve(manifest.baseDir, gitops.chart) : undefined,
        path: gitops.path,
        configValues: gitops.values,
        valuesFiles: options.valuesFiles,
        set: options.set,
        outputDir: options.outputDir,
      })
    : undefined;
  const files = layoutOutput({ layout, components, unmanaged, wiring, command: options.command ?? 'capi-gitops render' });
  const overridden = unmanagedObjects(components, unmanaged);
  const warnings = overridden.length > 0 ? [`Config.overrides: ${overridden.length} object(s) rendered but not enforced by the GitOps tool: ${overridden.join(', ')}`] : [];
  return { ...resolution, components, files, layout, warnings };
}

/** Config.variables reach every provider; a configSecret's keys only the providers that name it. */
function givenVariables(manifest: Manifest, prepared: PreparedProvider[]): GivenVariables[] {
  const usedBy = (list: PreparedProvider[]) => new Set(list.flatMap((p) => p.references.map((r) => r.name)));
  const given: GivenVariables[] = [];
  const config = manifest.config;
  if (config.variables) given.push({ origin: 'Config', path: 'variables', position: config.position, names: Object.keys(config.variables), used: usedBy(prepared) });
  for (const secret of new Set(prepared.map((p) => p.secret).filter((s) => s !== undefined))) {
    given.push({ origin: `Secret/${secret.namespace}/${secret.name}`, position: secret.position, names: Object.keys(secret.data), used: usedBy(prepared.filter((p) => p.secret === secret)) });
  }
  return given;
}

/**
 * Parsed forms are cached by the sha256 of the text that was parsed (the artifact after variable
 * substitution) and the parser's version, so a warm render skips YAML parsing altogether.
 */
async function parseWithCache(sources: ParseInput[], cache: ArtifactCache | undefined): Promise<KObject[][]> {
  if (!cache) return parseArtifactsParallel(sources);
  const keys = sources.map((s) => `${PARSER_VERSION}:${sha256Hex(s.text)}`);
  const cached = await Promise.all(keys.map((key) => cache.getParsed<KObject[]>(key)));
  const missing = sources.map((_, i) => i).filter((i) => cached[i] === undefined);
  const parsed = await parseArtifactsParallel(missing.map((i) => sources[i]!));
  await Promise.all(missing.map((i, j) => cache.putParsed(keys[i]!, parsed[j])));
  await cache.trimParsed();
  missing.forEach((i, j) => (cached[i] = parsed[j]));
  return cached as KObject[][];
}

function renderProvider(manifest: Manifest, p: PreparedProvider, objects: KObject[], options: RenderOptions, bag: DiagnosticBag): RenderedComponent {
  const r = p.resolved;
  const images = imageOverridesFor(manifest, p.secret);
  if (Object.keys(images.fromSecret).length > 0 && !options.allowSecretValues) {
    const withoutSecret = inspectImages(applyImageOverrides(objects, r.label, manifest.config.images ?? {}));
    const withSecret = inspectImages(applyImageOverrides(objects, r.label, images.merged));
    if (withoutSecret.join('\n') !== withSecret.join('\n')) bag.add(secretValuesError(r.provider, [IMAGES_KEY], 'image overrides'));
  }
  const rendered = renderProviderObjects({
    kind: r.kind,
    name: r.name,
    label: r.label,
    version: r.version,
    namespace: r.namespace,
    spec: r.provider.spec,
    objects,
    imageOverrides: images.merged,
    origin: originOf(r.provider),
  });
  return { label: r.label, type: r.kind, name: r.name, version: r.version, namespace: r.namespace, artifactSha256: r.components.sha256, objects: rendered };
}

function namespaceOf(objects: KObject[]): string | undefined {
  return objects.find((o) => o.kind === 'Namespace')?.metadata.name;
}
