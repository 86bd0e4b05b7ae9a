/**
 * One cluster, from what resolution found to its file tree: prepare the providers (secrets,
 * variables, images) → render every component → place the secrets → lay out → encrypt → the
 * final gate over every byte. Nothing here writes; app/render.ts writes only after success.
 */
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { CapiGitopsError, compareStrings, DiagnosticBag, sortDiagnostics, tellOnce, type Diagnostic } from '../core/diagnostics.js';
import { describeObject } from '../core/kobject.js';
import { artifactDisplayName } from '../core/repository.js';
import type { Manifest, SecretObject, SourcePosition } from '../manifest/types.js';
import { loadManifest } from '../manifest/load.js';
import { closestName } from '../manifest/fields.js';
import { atProviderField } from '../manifest/field-locator.js';
import type { ResolvedProvider } from '../resolve/resolve.js';
import { problemObjectName, providerObjectName } from '../resolve/preflight.js';
import { unneededCertManagerWarnings, wranglerWarnings } from './turtles.js';
import { serializeLockfile } from '../resolve/lock/lockfile.js';
import type { RenderedComponent, VariableLookup } from '../render/types.js';
import { unusedVariableWarnings } from '../render/variable-advice.js';
import { tagOverridesOnDigests, unreadImageKeys } from '../render/images.js';
import { isProviderManagerDeploymentName } from '../render/deployment.js';
import { namespacePatchFields } from '../render/patches.js';
import { inspectVariables } from '../render/variables.js';
import { landedSecrets, lookupWithLanding, secretsNotAtHand } from '../render/secret-landing.js';
import { providerRawYaml, renderCertManagerComponent, renderProviderComponent, type ProviderRender } from '../render/component.js';
import {
  addSecretValues,
  chartDrawnSecrets,
  chartSecretLeaks,
  chartSecretProblem,
  drawnSecretNeedles,
  type DrawnSecret,
  urlCredentials,
  urlCredentialProblem,
  containsSecret,
  encryptFiles,
  finalGate,
  IMAGES_KEY,
  inlineFilesWarning,
  placeSecrets,
  redactDiagnostic,
  rendersWithoutValues,
  secretStrategy,
  sopsKeySecretWarnings,
  substituteSecretWarnings,
  taintMarker,
  type MarkedComponent,
  type MarkedText,
  type SecretNeedles,
} from '../secrets/index.js';
import { layoutChart, layoutOutput, objectFile, unmanagedObjects, type LayoutName } from '../layout/index.js';
import { componentDirectory } from '../layout/kustomize.js';
import { secretDataLine } from '../layout/chart/render.js';
import type { PreparedChart } from '../layout/chart/index.js';
import type { ObjectSelector } from '../layout/apply-safety.js';
import { prepareWiring } from './wiring.js';
import { RunContext } from './context.js';
import {
  environmentVariableWarnings,
  givenVariables,
  prepareProviders,
  providersToCheckReferences,
  literalSecretsError,
  patchedSecretsError,
  secretImagesError,
  secretsNotGiven,
  type PreparedProvider,
} from './providers.js';
import { resolveCluster } from './resolve.js';
import { renderOperatorCluster } from './operator.js';
import { pinImages, registryDigests, type DigestAsker } from './image-pins.js';
import { gateWithOtherClusters } from './fleet-secrets.js';
import type { ProviderVariables, RenderOptions, RenderResult, Resolution, SecretNotGiven } from './types.js';
import { escapeRegExp } from '../core/regexp.js';

export type { ProviderVariables, RenderOptions, Resolution };

/** Loads, resolves and renders a single-cluster manifest in a run of its own. */
export async function renderManagementCluster(options: RenderOptions): Promise<RenderResult> {
  const context = new RunContext(options.sources?.cache, { oneCluster: true });
  const manifest = await loadManifest(options.manifestPaths, options);
  return renderCluster(context, await resolveCluster(context, manifest, { ...options, collectAll: true }), options);
}

/** Loads and resolves a single-cluster manifest in a run of its own. */
export async function resolveManagementCluster(options: RenderOptions): Promise<Resolution> {
  const context = new RunContext(options.sources?.cache);
  return resolveCluster(context, await loadManifest(options.manifestPaths, { ...options, texts: options.manifestTexts }), options);
}

/** Renders what resolution found; what did not resolve is reported with the render's own problems. */
export async function renderCluster(context: RunContext, resolution: Resolution, options: RenderOptions): Promise<RenderResult> {
  const layout: LayoutName = options.layout ?? resolution.manifest.config.output?.layout ?? 'kustomize';
  if (resolution.problems?.length) {
    if (layout === 'operator' && !resolution.operator) throw new CapiGitopsError(resolution.problems);
    // No warnings from this partial render: a variable only an unresolved provider uses would be called unused.
    const later = await renderCluster(
      context,
      { ...resolution, problems: undefined },
      { ...options, onWarning: undefined, onGivenVariables: undefined },
    ).then(
      () => [],
      (err: unknown) => (err instanceof CapiGitopsError ? err.diagnostics : Promise.reject(err)),
    );
    // in file, line and column order, as every command reports (not what did not resolve first)
    throw new CapiGitopsError(sortDiagnostics([...resolution.problems, ...later]));
  }
  // a provider with problems in the manifest is reported with them, not rendered (nor laid out by the operator layout)
  const faulty = new Set(resolution.manifest.problems?.map((d) => d.object));
  const renderable = resolution.providers.filter((p) => !faulty.has(problemObjectName(p.provider)));
  if (layout === 'operator') return renderOperatorCluster({ ...resolution, providers: renderable }, options);
  const others = providersToCheckReferences(resolution.manifest, renderable);
  const { prepared, needles, problems } = await prepareProviders(resolution.manifest, renderable, options, others);
  imageKeyWarnings(resolution, prepared).forEach((w) => options.onWarning?.(w));
  try {
    const rendered = await renderComponents(context, resolution, prepared, needles, options, problems);
    if (rendered.secretProblems.length > 0)
      throw secretProblemsError(rendered, () => placeComponents(resolution, rendered, options, layout));
    [
      ...digestTagWarnings(resolution, prepared, rendered.components),
      ...unappliedCustomizationWarnings(prepared, rendered.components),
      ...namespacePatchWarnings(prepared),
      ...unreadAdditionalDeploymentWarnings(prepared, rendered.components),
      ...wranglerWarnings(prepared, rendered.components, resolution.manifest.config.turtles?.noCertManager),
      ...unneededCertManagerWarnings(resolution),
    ].forEach((w) => options.onWarning?.(w));
    // images pinned by digest (Config pinImages, --pin-images): from the lock, else asked of their registries
    const { pinImages: flag, frozen, onWarning, fleetCluster, fleetImageDigests } = options;
    const ask: DigestAsker = (requests) =>
      context.askRegistriesOnce(requests, (warn) => registryDigests(resolution.sources, warn)(requests), onWarning);
    const pinned = await pinImages({
      flag,
      frozen,
      onWarning,
      ask,
      fleetCluster,
      fleetImageDigests,
      resolution,
      components: rendered.components,
      marked: rendered.marked,
      secretImages: secretImagesByLabel(prepared),
    });
    const pinnedResolution = { ...resolution, lock: pinned.lock };
    const laidOut = await layOut(
      context,
      pinnedResolution,
      { ...rendered, components: pinned.components, marked: pinned.marked },
      needles,
      options,
      layout,
    );
    const notGiven = rendered.secretsNotGiven.length > 0 ? { secretsNotGiven: rendered.secretsNotGiven } : {};
    return { ...pinnedResolution, ...laidOut, layout, ...notGiven };
  } catch (err) {
    // a message may quote substituted text (a YAML error, a patch target): never a secret value
    if (err instanceof CapiGitopsError) throw new CapiGitopsError(err.diagnostics.map((d) => redactDiagnostic(d, needles)));
    throw err;
  }
}

/** Where a configSecret's images key is (the Secret, when its position is not known). */
function imagesKeyAt(secret: SecretObject): SourcePosition {
  return secret.keyPosition?.(IMAGES_KEY) ?? secret.position;
}

/** Each provider's configSecret images overrides, and where its images key is: where pinning tells an image they chose. */
function secretImagesByLabel(prepared: readonly PreparedProvider[]) {
  return new Map(
    prepared.filter((p) => p.secret).map((p) => [p.resolved.label, { overrides: p.images.fromSecret, at: imagesKeyAt(p.secret!) }]),
  );
}

/**
 * A tag override on an image the components pin by digest changes nothing a runtime pulls (the
 * reference keeps the digest, as clusterctl writes it): told at the key that set the tag.
 */
function digestTagWarnings(
  { manifest }: Resolution,
  prepared: readonly PreparedProvider[],
  components: readonly RenderedComponent[],
): Diagnostic[] {
  const config = manifest.config;
  return components.flatMap((component) => {
    const p = prepared.find((x) => x.resolved.label === component.label);
    // the Config's tags land over a configSecret's (the operator's second pass), so the Config's are told first
    const fromConfig = tagOverridesOnDigests(component.objects, component.label, config.images ?? {});
    const told = new Set(fromConfig.map((f) => `${f.object}\0${f.image}`));
    const fromSecret = p?.secret
      ? tagOverridesOnDigests(component.objects, component.label, p.images.fromSecret).filter((f) => !told.has(`${f.object}\0${f.image}`))
      : [];
    // an image a configSecret's override helped make is not quoted: that Secret's values stay out of logs
    const quoted = Object.keys(p?.images.fromSecret ?? {}).length === 0;
    const found = [...fromConfig.map((f) => ({ ...f, secret: undefined })), ...fromSecret.map((f) => ({ ...f, secret: p!.secret }))];
    return found.map(({ object, image, key, secret }) => {
      const at = secret ? imagesKeyAt(secret) : (config.locate?.(['images', key, 'tag']) ?? config.position);
      return {
        ...at,
        object: secret ? `Secret/${secret.namespace}/${secret.name}` : 'Config',
        path: `images.${key}.tag`,
        message: `the tag override changes nothing for ${object}: its image${quoted ? ` ${image}` : ''} is pinned by digest in the components, and a container runtime pulls the digest`,
        hint: 'remove the tag override (the digest decides what runs); to run another build, set the container image with the digest of that build in spec.patches',
      };
    });
  });
}

/**
 * spec.deployment and spec.manager that no Deployment takes: of several Deployments, the operator
 * customizes only those named `ca*-controller-manager` (render/deployment.ts), and says nothing
 * when none is; the others take spec.additionalDeployments.<name>.
 */
function unappliedCustomizationWarnings(prepared: readonly PreparedProvider[], components: readonly RenderedComponent[]): Diagnostic[] {
  return prepared.flatMap(({ resolved }) => {
    const { provider, label } = resolved;
    const fields = (['deployment', 'manager'] as const).filter((f) => provider.spec[f] !== undefined && provider.spec[f] !== null);
    const deployments = (components.find((c) => c.label === label)?.objects ?? []).filter((o) => o.kind === 'Deployment');
    const names = deployments.map((d) => String(d.metadata.name)).sort(compareStrings);
    if (fields.length === 0 || names.length < 2 || names.some(isProviderManagerDeploymentName)) return [];
    return fields.map((field) => ({
      ...(provider.fieldPosition?.(['spec', field]) ?? provider.position),
      object: providerObjectName(provider),
      path: `spec.${field}`,
      message: `applies to no Deployment of ${label}: of several Deployments, the operator customizes only those named ca*-controller-manager, and none of ${names.join(', ')} is`,
      hint: `move it under spec.additionalDeployments.<name>, for the Deployment it is meant for (e.g. spec.additionalDeployments.${names[0]}.${field})`,
    }));
  });
}

/**
 * spec.additionalDeployments entries the operator reads for no Deployment: it reads an entry only
 * among several Deployments, for one of that name not named ca*-controller-manager
 * (render/deployment.ts), and says nothing of the others.
 */
function unreadAdditionalDeploymentWarnings(prepared: readonly PreparedProvider[], components: readonly RenderedComponent[]): Diagnostic[] {
  return prepared.flatMap(({ resolved: { provider, label } }) => {
    const names = (components.find((c) => c.label === label)?.objects ?? [])
      .filter((o) => o.kind === 'Deployment')
      .map((d) => String(d.metadata.name))
      .sort(compareStrings);
    return Object.keys(provider.spec.additionalDeployments ?? {}).flatMap((key) => {
      const read = names.length > 1 && names.includes(key) && !isProviderManagerDeploymentName(key);
      if (read) return [];
      const others = names.filter((n) => n.length > 0 && !isProviderManagerDeploymentName(n));
      const [message, hint] =
        names.length === 1 && names[0] === key
          ? [
              `is read for no Deployment: with one Deployment (${key}), the operator customizes it from spec.deployment and spec.manager`,
              `move its deployment and manager to spec.deployment and spec.manager`,
            ]
          : names.includes(key)
            ? [
                `is read for no Deployment: ${key} is named ca*-controller-manager, which the operator customizes from spec.deployment and spec.manager`,
                `move its deployment and manager to spec.deployment and spec.manager`,
              ]
            : [
                `names no Deployment of ${label} (${names.join(', ') || 'none'}), so it changes nothing`,
                names.length > 1 && others.length > 0
                  ? `name one of: ${others.join(', ')}${closestName(key, others) ? ` (did you mean ${closestName(key, others)}?)` : ''}`
                  : 'remove it: the operator reads additionalDeployments only among several Deployments',
              ];
      return [
        {
          ...(provider.fieldPosition?.(['spec', 'additionalDeployments', key]) ?? provider.position),
          object: providerObjectName(provider),
          path: `spec.additionalDeployments.${key}`,
          message,
          hint,
        },
      ];
    });
  });
}

/** Patches aimed at the Namespace, which the operator drops before patching: they change nothing. */
function namespacePatchWarnings(prepared: readonly PreparedProvider[]): Diagnostic[] {
  return prepared.flatMap(({ resolved: { provider } }) =>
    namespacePatchFields(provider.spec).map((field) => ({
      ...(provider.fieldPosition?.(field) ?? provider.position),
      object: providerObjectName(provider),
      path: field.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join(''),
      message: 'reaches no object: the operator drops the Namespace from the components before it applies patches',
      hint: `set the Namespace's labels and annotations in a v1 Namespace document named ${provider.namespace} in the manifest, which capi-gitops merges into the Namespace it writes`,
    })),
  );
}

/** Config.images and configSecret images keys that change no image (a provider's name, not its label), each at its key. */
function imageKeyWarnings({ manifest, providers }: Resolution, prepared: readonly PreparedProvider[]): Diagnostic[] {
  const labels = providers.map((p) => p.label);
  return [...configImageKeyWarnings(manifest, labels), ...secretImageKeyWarnings(prepared)];
}

/**
 * A configSecret's images keys that none of its providers reads: the operator reads a provider's
 * configSecret for that provider alone, where clusterctl.yaml's images apply to every component.
 */
function secretImageKeyWarnings(prepared: readonly PreparedProvider[]): Diagnostic[] {
  const readers = new Map<SecretObject, string[]>();
  for (const p of prepared) if (p.secret) readers.set(p.secret, [...(readers.get(p.secret) ?? []), p.resolved.label]);
  return [...readers].flatMap(([secret, own]) => {
    const keys = Object.keys(prepared.find((p) => p.secret === secret)!.images.fromSecret);
    return unreadImageKeys(keys, own, false).map(({ key, meant }) => ({
      ...imagesKeyAt(secret),
      object: `Secret/${secret.namespace}/${secret.name}`,
      path: `${IMAGES_KEY}.${key}`,
      message: `"${key}" changes no image: a configSecret's image overrides are read for its own providers only (${own.join(', ')})`,
      hint:
        meant.length > 0
          ? `rename it to ${meant.join(' or ')}`
          : "move it to images: in the Config document, which every component reads (as clusterctl.yaml's images:)",
    }));
  });
}

function configImageKeyWarnings(manifest: Manifest, labels: readonly string[]): Diagnostic[] {
  const config = manifest.config;
  return unreadImageKeys(Object.keys(config.images ?? {}), labels).map(({ key, meant }) => ({
    ...(config.locate?.(['images', key], 'key') ?? config.position),
    object: 'Config',
    path: `images.${key}`,
    message: `"${key}" names no component of this render, so this override changes no image`,
    expected: `all, cert-manager or a manifest label (${[...labels].sort(compareStrings).join(', ')}), optionally with /<image name>`,
    hint:
      meant.length > 0
        ? `clusterctl keys image overrides by the provider's manifest label: rename it to ${meant.join(' or ')}`
        : "clusterctl keys image overrides by the provider's manifest label (<type>-<name>, cluster-api for the core): rename or remove it",
  }));
}

interface RenderedComponents {
  components: RenderedComponent[];
  /** Marked renders, by component label, of the components whose substitution used a secret. */
  marked: Map<string, MarkedComponent>;
  /** Variables given as not secret that land in a Secret's data, with where they were given. */
  landed: Map<string, string>;
  /** Each provider component's variables, by label: where a secret value was given. */
  lookups: Map<string, VariableLookup>;
  /**
   * Objects (describeObject) written with values accepted by --secrets inline, by component label:
   * an image a configSecret's override set, a Secret's value written in spec.additionalManifests.
   */
  inlineObjects: Map<string, Set<string>>;
  /** Values the render would write as they are (configSecret images, additionalManifests, patches), told with the secrets stage's. */
  secretProblems: Diagnostic[];
}

/** What every component's render shares: the run's memos, and the secrets stage's search and marks. */
function renderRun(context: RunContext, needles: SecretNeedles) {
  return {
    substitute: context.substitute,
    parse: context.parse,
    secrets: { holdsSecret: (text: string) => containsSecret(text, needles), marks: taintMarker },
    share: context.component,
  };
}

/**
 * Every component's sequence (render/component.ts), started in one turn so that their texts are
 * parsed as one batch; every problem once, with those found before.
 */
async function renderComponents(
  context: RunContext,
  resolution: Resolution,
  prepared: PreparedProvider[],
  needles: SecretNeedles,
  options: RenderOptions,
  earlier: Diagnostic[],
): Promise<RenderedComponents & { secretsNotGiven: SecretNotGiven[] }> {
  const { manifest, certManager } = resolution;
  const secrets = manifest.config.secrets ?? {};
  // a configSecret's image overrides: public ones written as they are, inline ones too with their files listed as secret
  const imagesPublic = (secrets.public ?? []).includes(IMAGES_KEY);
  const imagesInline = secretStrategy(options, secrets) === 'inline' && options.allowSecretValues === true;
  const images = manifest.config.images ?? {};
  const unmanagedKey = JSON.stringify(manifest.config.overrides ?? []);
  const valuesOptional = rendersWithoutValues(options, secrets);
  const publicVariables = new Set(secrets.public ?? []);
  const run = renderRun(context, needles);
  // a secret source of render's is absent: its configSecret, or --secret-file files render had
  const configSecretNotGiven = (p: (typeof prepared)[number]) =>
    (p.resolved.provider.spec.configSecret !== undefined && p.secret === undefined) ||
    (valuesOptional && options.secretFilesNotGiven === true);
  const absent = valuesOptional && prepared.some(configSecretNotGiven);
  const recorded = new Set(absent ? ((await options.recordedSecretVariables?.()) ?? []) : []);
  const providerRenders = prepared.map((p) => {
    const notGiven = configSecretNotGiven(p);
    return renderProviderComponent(
      {
        resolved: p.resolved,
        configMaps: manifest.configMaps,
        lookup: notGiven ? secretsNotAtHand(p.lookup, recorded) : p.lookup,
        givenVariables: [...Object.keys(manifest.config.variables ?? {}), ...Object.keys(p.secret?.data ?? {})],
        // the configSecret's first, then Config.images over every image (the operator's two passes)
        imageOverrides: images,
        ...(Object.keys(p.images.fromSecret).length > 0 ? { secretImageOverrides: p.images.fromSecret } : {}),
        imageOverridesWithoutSecrets: Object.keys(p.images.fromSecret).length > 0 && !imagesPublic ? images : undefined,
        configImageOverrides: images,
        valuesOptional,
        configSecretNotGiven: notGiven,
        publicVariables,
        fleetCluster: options.fleetCluster !== undefined,
        turtlesNoCertManager: manifest.config.turtles?.noCertManager,
        // a provider that reads a Secret (or stands for an absent one) is rendered on its own, never shared between clusters
        shareKey: p.secret || notGiven ? undefined : componentKey(p.resolved, images, unmanagedKey, manifest.config.turtles),
      },
      run,
    );
  });
  const certManagerRender =
    certManager &&
    renderCertManagerComponent(
      {
        resolved: certManager,
        imageOverrides: images,
        shareKey: JSON.stringify(['cert-manager', certManager.version, certManager.components.sha256, images, unmanagedKey]),
      },
      run,
    );
  const rendered = await Promise.all(providerRenders);
  const certManagerRendered = await certManagerRender;
  // a value given as not secret that landed in a Secret's data is secret from here on
  const landed = landedSecrets(rendered);
  const addedNeedles = addSecretValues(needles, landed.values);
  if (addedNeedles.needles.length > 0) options.onSecretValues?.(addedNeedles);
  // Names given that no component uses, once every provider's variables are known.
  if (prepared.length === resolution.providers.length && !manifest.problems && rendered.every((r) => r.variables)) {
    const variablesRead = rendered.map((r) => r.variables);
    const used = variablesRead.map((variables) => (variables ?? []).map((v) => v.name));
    const given = givenVariables(manifest, prepared, used, options.envSecrets);
    if (options.onGivenVariables) options.onGivenVariables(given);
    else unusedVariableWarnings(given).forEach((w) => options.onWarning?.(w));
    const env = options.sources?.env ?? process.env;
    const inSecretData = rendered.map((r) => r.inSecretData);
    environmentVariableWarnings(prepared, variablesRead, env, inSecretData).forEach((w) => options.onWarning?.(w));
  }
  const all = [...rendered, ...(certManagerRendered ? [certManagerRendered] : [])];
  const gathered = gatherRendered(manifest, prepared, all, landed.origins, imagesInline, earlier);
  const variables = rendered.map((r) => r.variables);
  return { ...gathered, secretsNotGiven: secretsNotGiven(manifest, prepared, variables) };
}

/** The components rendered, and every problem once (a problem of a whole parse batch reaches every component of it). */
function gatherRendered(
  manifest: Manifest,
  prepared: readonly PreparedProvider[],
  rendered: readonly (Pick<ProviderRender<MarkedText>, 'component' | 'problems'> & Partial<ProviderRender<MarkedText>>)[],
  landed: Map<string, string>,
  imagesInline: boolean,
  earlier: readonly Diagnostic[],
): RenderedComponents {
  const bag = new DiagnosticBag();
  earlier.forEach((d) => bag.add(d));
  const reported = new Set<Diagnostic>();
  const report = (d: Diagnostic) => {
    if (!reported.has(d)) bag.add(d);
    reported.add(d);
  };
  const secretProblems: Diagnostic[] = [];
  const out: RenderedComponents = {
    components: [],
    marked: new Map(),
    landed,
    lookups: new Map(),
    inlineObjects: new Map(),
    secretProblems,
  };
  const atProvider = (d: Diagnostic) => secretProblems.push(atProviderField(d, manifest.providers, providerObjectName));
  rendered.forEach((outcome, i) => {
    outcome.problems.forEach(report);
    // the cert-manager render comes last and has no provider
    const provider = prepared[i]?.resolved.provider;
    if (outcome.secretFields?.length && provider && !imagesInline) atProvider(secretImagesError(provider));
    if (outcome.literalSecrets && provider && !imagesInline) atProvider(literalSecretsError(provider, outcome.literalSecrets));
    if (outcome.patchedSecrets && provider && !imagesInline) atProvider(patchedSecretsError(provider, outcome.patchedSecrets));
    const inline = [...(outcome.secretFields ?? []), ...(outcome.literalSecrets ?? []), ...(outcome.patchedSecrets ?? [])].map(
      (f) => f.object,
    );
    if (inline.length > 0 && outcome.component) out.inlineObjects.set(outcome.component.label, new Set(inline));
    if (outcome.component) out.components.push(outcome.component);
    if (outcome.component && outcome.marked) out.marked.set(outcome.component.label, outcome.marked);
    if (outcome.component && prepared[i]) out.lookups.set(outcome.component.label, prepared[i].lookup);
  });
  // a value that breaks every component it reaches is one problem
  if (bag.size > 0) throw new CapiGitopsError(sortDiagnostics(tellOnce([...bag.items, ...secretProblems])));
  return out;
}

/**
 * What no strategy but inline places, found in the laid-out files: a Secret the wiring chart fills
 * from chart values, a URL with a password in it. Refused, or (inline with --allow-secret-values)
 * the files that hold them, declared inline.
 */
function valuesOnlyInlineTakes(
  files: ReadonlyMap<string, string>,
  components: readonly RenderedComponent[],
  inline: boolean,
  inTree: (check: () => void) => void,
  wiring?: Pick<PreparedChart, 'chart' | 'valueGiving'>,
): { files: string[]; drawn: DrawnSecret[] } {
  const drawn = chartDrawnSecrets(files, new Set(components.map(componentDirectory)));
  const urls = urlCredentials(files);
  // told where the chart writes the Secret and where the values give the URL: nothing is written
  const secretAt = (d: DrawnSecret) => (wiring ? secretDataLine(wiring.chart, d.object.split('/').pop()!, d.sections) : undefined);
  if (!inline && drawn.length + urls.length > 0)
    inTree(() =>
      throwProblems([
        ...drawn.map((d) => chartSecretProblem(d, secretAt(d), chartSecretLeaks(files, [d], new Set([d.file])).length > 0)),
        ...urls.map((u) => urlCredentialProblem(u, true, wiring?.valueGiving?.(u.url))),
      ]),
    );
  return { files: [...drawn.map((d) => d.file), ...urls.flatMap((u) => u.files)], drawn };
}

/** Config.overrides that stop enforcement, and where each was written (one naming no rendered object is told there). */
function unmanagedOverrides(config: Manifest['config']): {
  unmanaged: ObjectSelector[];
  locateOverride?: (selector: ObjectSelector) => SourcePosition | undefined;
} {
  const entries = (config.overrides ?? []).map((o, index) => ({ o, index })).filter(({ o }) => o.unmanaged);
  const unmanaged = entries.map(({ o }) => ({
    group: o.group ?? '',
    kind: o.kind,
    name: o.name,
    ...(o.namespace ? { namespace: o.namespace } : {}),
  }));
  const locate = config.locate;
  if (!locate) return { unmanaged };
  const locateOverride = (selector: ObjectSelector) => {
    const at = unmanaged.indexOf(selector);
    return at < 0 ? undefined : locate(['overrides', entries[at]!.index]);
  };
  return { unmanaged, locateOverride };
}

/** The secrets stage over the rendered components (secrets/index.ts). */
function placeComponents(
  { manifest }: Resolution,
  rendered: RenderedComponents,
  options: RenderOptions,
  layout: LayoutName,
): ReturnType<typeof placeSecrets> {
  const config = manifest.config.secrets ?? {};
  return placeSecrets({
    strategy: secretStrategy(options, config),
    allowSecretValues: options.allowSecretValues ?? false,
    config,
    layout,
    components: rendered.components,
    marked: rendered.marked,
    landed: rendered.landed,
    lookups: rendered.lookups,
    locateConfig: manifest.config.locate,
  });
}

/** Secrets the render would write as they are, with what the secrets stage refuses too: every problem in one run. */
function secretProblemsError(rendered: RenderedComponents, place: () => unknown): CapiGitopsError {
  try {
    place();
  } catch (err) {
    if (!(err instanceof CapiGitopsError)) throw err;
    return new CapiGitopsError(sortDiagnostics(tellOnce([...rendered.secretProblems, ...err.diagnostics])));
  }
  return new CapiGitopsError(sortDiagnostics(rendered.secretProblems));
}

/** The secrets placed by the strategy, the layout drawn, sops files encrypted, and every byte gated. */
async function layOut(
  context: RunContext,
  resolution: Resolution,
  rendered: RenderedComponents,
  needles: SecretNeedles,
  options: RenderOptions,
  layout: LayoutName,
): Promise<Pick<RenderResult, 'components' | 'files' | 'warnings' | 'secretFiles'>> {
  const { manifest } = resolution;
  const config = manifest.config.secrets ?? {};
  const { unmanaged, locateOverride } = unmanagedOverrides(manifest.config);
  const wiring = await wiringFor(layout, manifest, options);
  const strategy = secretStrategy(options, config);
  const placed = placeComponents(resolution, rendered, options, layout);
  const acceptedInline = placed.components.flatMap((c) =>
    c.objects.filter((o) => rendered.inlineObjects.get(c.label)?.has(describeObject(o))).map((o) => objectFile(c, o)),
  );
  let inline = [...new Set([...placed.inline.map((r) => objectFile(r.component, r.object)), ...acceptedInline])].sort(compareStrings);
  const layOutFiles = () =>
    layoutOutput({
      layout,
      components: placed.components,
      unmanaged,
      locateOverride,
      wiring,
      exists: (directory) =>
        options.outputDir !== undefined && existsSync(path.join(options.outputDir, options.outputSubdirectory ?? '', directory)),
      command: readmeCommandFor(options),
      componentFiles: context.componentFiles,
      emitted: context.emitted,
      substituteFrom: placed.substituteFrom,
      decrypt: new Set(placed.encrypt.map((r) => r.component.label)),
      secretFiles: inline,
      namespaces: manifest.namespaces,
    });
  let files = layOutFiles();
  const inTree = (check: () => void) => checkFiles(files, options.outputSubdirectory, check);
  const inlineTakes = strategy === 'inline' && options.allowSecretValues === true;
  const accepted = valuesOnlyInlineTakes(files, placed.components, inlineTakes, inTree, wiring);
  if (accepted.files.length > 0) {
    inline = [...new Set([...inline, ...accepted.files])].sort(compareStrings);
    files = layOutFiles();
    // a chart value drawn into a Secret is secret: masked and redacted from here on, and in no other file (the README's command)
    if (accepted.drawn.length > 0) options.onSecretValues?.(drawnSecretNeedles(accepted.drawn));
    const leaks = chartSecretLeaks(files, accepted.drawn, new Set(inline));
    if (leaks.length > 0) inTree(() => throwProblems(leaks));
  }
  const previous = (file: string) =>
    options.outputDir
      ? readFile(path.join(options.outputDir, options.outputSubdirectory ?? '', file), 'utf8').catch(() => undefined)
      : Promise.resolve(undefined);
  const encrypted = placed.encrypt.map((r) => objectFile(r.component, r.object));
  const sopsWarnings = await encryptFiles(files, encrypted, config, previous, options.sopsEncryptions, options.outputSubdirectory);
  if (layout === 'argocd' && encrypted.length > 0) sopsWarnings.push(argocdSopsWarning(encrypted));
  if (layout === 'kustomize' && encrypted.length > 0) sopsWarnings.push(kustomizeSopsWarning(encrypted));
  if (layout === 'flux' && encrypted.length > 0) sopsWarnings.push(...sopsKeySecretWarnings(files, encrypted));
  gateWithOtherClusters(files, options, () =>
    inTree(() =>
      finalGate(
        files,
        { path: path.basename(resolution.lockFile), text: serializeLockfile(resolution.lock.lock) },
        needles,
        new Set(inline),
      ),
    ),
  );
  const overridden = unmanagedObjects(placed.components, unmanaged);
  const warnings = [
    ...(overridden.length > 0
      ? [`Config.overrides: ${overridden.length} object(s) rendered but not enforced by the GitOps tool: ${overridden.join(', ')}`]
      : []),
    ...placed.warnings,
    ...substituteSecretWarnings(files, [...new Set(placed.substituteFrom.values())].sort(compareStrings), placed.substituteVariables),
    ...inlineFilesWarning(inline),
    ...sopsWarnings,
  ];
  return { components: placed.components, files, warnings, secretFiles: inline };
}

/** Flux decrypts (spec.decryption); Argo CD applies ENC[…] as it is unless a plugin decrypts. */
function argocdSopsWarning(encrypted: readonly string[]): string {
  return (
    `--secrets sops: Argo CD applies files as they are, and does not decrypt ${[...new Set(encrypted)].sort(compareStrings).join(', ')}: ` +
    'their Applications need a config management plugin that runs sops --decrypt with the age key, through a chart of your own ' +
    '(capi-gitops chart show argocd), or choose --secrets external-secrets'
  );
}

/** The kustomize layout has no applier of its own: kubectl apply -k would send the ENC[…] values and the sops map as they are. */
function kustomizeSopsWarning(encrypted: readonly string[]): string {
  return (
    `--secrets sops: the kustomize layout is applied as it is (kubectl apply -k), and nothing in it decrypts ` +
    `${[...new Set(encrypted)].sort(compareStrings).join(', ')}: apply the tree with a decrypting applier, ` +
    'a Flux Kustomization of your own with spec.decryption (provider: sops) or --layout flux, which writes it; ' +
    'for kubectl, decrypt each file first with sops --decrypt --in-place in a copy that is never committed'
  );
}

function throwProblems(problems: Diagnostic[]): never {
  throw new CapiGitopsError(problems);
}

/**
 * Runs a check over the laid-out files; a problem it finds in one of them is told at that file's
 * place in the output, where a fleet cluster's tree is below `clusters/<name>`.
 */
function checkFiles(files: ReadonlyMap<string, string>, subdirectory: string | undefined, check: () => void): void {
  try {
    check();
  } catch (err) {
    if (!(err instanceof CapiGitopsError) || !subdirectory) throw err;
    const output = (file: string) => files.has(file) || redactedOutput(file, files);
    throw new CapiGitopsError(
      err.diagnostics.map((d) => (d.file !== undefined && output(d.file) ? { ...d, file: `${subdirectory}/${d.file}` } : d)),
    );
  }
}

/** A file the gate named with a secret value hidden (`configmap-[secret TOKEN].yaml`): one of `files`. */
function redactedOutput(file: string, files: ReadonlyMap<string, string>): boolean {
  if (!file.includes('[secret ')) return false;
  const pattern = new RegExp(
    `^${file
      .split(/\[secret [^\]]+\]/)
      .map(escapeRegExp)
      .join('.+')}$`,
  );
  return [...files.keys()].some((name) => pattern.test(name));
}

/** The chart that draws a layout's wiring (Config.gitops.chart or the built-in one), with every values layer. */
async function wiringFor(layout: LayoutName, manifest: Manifest, options: RenderOptions) {
  const builtIn = layoutChart(layout);
  if (!builtIn && ((options.set?.length ?? 0) > 0 || (options.valuesFiles?.length ?? 0) > 0)) {
    throw new CapiGitopsError({
      message: `--set, --set-string and --values are chart values, and the ${layout} layout draws no chart`,
      expected: 'chart values only with --layout argocd or --layout flux (or Config output.layout)',
      hint: 'add --layout argocd or --layout flux, or drop the chart values',
    });
  }
  return builtIn ? prepareWiring(builtIn, manifest, options) : undefined;
}

/**
 * The command the output's README records, with the secret sources: without them it would fail
 * (a configSecret not in the input) or render another output (a public key the Secret holds).
 * A check without them keeps the recorded command (check.ts).
 */
export function readmeCommandFor(options: RenderOptions): string {
  return options.commandWithSecrets ?? options.command ?? 'capi-gitops render';
}

/** Every input of a provider's render except its parsed objects (which the run keys by identity). */
function componentKey(
  r: ResolvedProvider,
  images: Manifest['config']['images'],
  unmanaged: string,
  settings: Manifest['config']['turtles'],
): string {
  // a CAPIProvider's render differs with Turtles' no-cert-manager; an operator object's does not
  const turtles = r.provider.turtles === undefined ? false : settings?.noCertManager === true ? 'no-cert-manager' : true;
  return JSON.stringify([
    r.kind,
    r.name,
    r.label,
    r.version,
    r.namespace,
    r.components.sha256,
    r.provider.spec,
    turtles,
    images ?? {},
    unmanaged,
  ]);
}

/** Each provider's variables, their defaults and where each value comes from (`render --list-variables`). */
export async function listVariables(options: RenderOptions): Promise<ProviderVariables[]> {
  const { manifest, providers } = await resolveManagementCluster(options);
  const { prepared, problems } = await prepareProviders(manifest, providers, options);
  if (problems.length > 0) throw new CapiGitopsError(problems);
  const context = new RunContext(undefined);
  return Promise.all(
    prepared.map(async (p) => {
      const [raw, artifact] = [providerRawYaml(p.resolved, manifest.configMaps), artifactDisplayName(p.resolved.components)];
      // a value that lands in a Secret's data is secret, so masked, whatever gave it
      const lookup = await lookupWithLanding(raw, artifact, p.lookup, taintMarker(raw), context.parse);
      const variables = inspectVariables(raw, artifact).map((ref) => ({ ...ref, value: lookup(ref.name) }));
      return { label: p.resolved.label, namespace: p.resolved.namespace, version: p.resolved.version, variables };
    }),
  );
}
