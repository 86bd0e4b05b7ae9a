/**
 * `render --layout operator`: the providers' artifacts as the operator reads them from ConfigMaps,
 * the operator's own release manifest and cert-manager. Provider components are not rendered
 * here: the operator renders them in the cluster (variables from its configSecret included), so
 * no Secret value is read into the output.
 */
import path from 'node:path';
import { CapiGitopsError, compareStrings, type Diagnostic } from '../core/diagnostics.js';
import { shellWord } from '../core/shell.js';
import { findConfigSecret } from '../manifest/references.js';
import { serializeLockfile } from '../resolve/lock/lockfile.js';
import { finalGate, readRunSecrets, secretNeedles, secretValues, urlCredentialProblem, urlCredentials } from '../secrets/index.js';
import { prepareWiring } from './wiring.js';
import { gateWithOtherClusters } from './fleet-secrets.js';
import { pinImages } from './image-pins.js';
import type { RenderOptions, RenderResult, Resolution } from './types.js';
import type { RenderedComponent } from '../render/types.js';
import { parseArtifact, parseArtifacts } from '../yaml/parse.js';
import { applyImageOverrides } from '../render/images.js';
import { sortObjects } from '../core/order.js';
import { renderCertManagerObjects } from '../render/pipeline.js';
import { appendAdditionalManifests, literalSecrets, resolveAdditionalManifests } from '../render/additional-manifests.js';
import { applyProviderPatches, patchedSecretValues } from '../render/patches.js';
import { mayHoldSecret } from '../render/secret-landing.js';
import { atProviderField } from '../manifest/field-locator.js';
import { providerObjectName } from '../resolve/preflight.js';
import { literalSecretsError, patchedSecretsError } from './providers.js';
import type { KObject } from '../core/kobject.js';
import { layoutOperator, type OperatorLayoutInput } from '../layout/operator.js';
import { GITATTRIBUTES, GITATTRIBUTES_FILE } from '../layout/index.js';

/** The operator's and cert-manager's objects, their images pinned (image-pins.ts) and the lock that records them, and the files. */
async function renderOperatorLayout(
  resolution: Resolution,
  options: RenderOptions,
  wiring: OperatorLayoutInput['wiring'],
): Promise<Pick<RenderResult, 'components' | 'files' | 'lock'>> {
  const { manifest, providers, certManager } = resolution;
  const release = resolution.operator;
  if (!release) throw new Error('the operator layout needs the operator release resolved with the providers');
  const sources = [{ text: release.components.text, source: `${release.label} ${release.version} ${release.components.name}` }];
  if (certManager)
    sources.push({ text: certManager.components.text, source: `cert-manager ${certManager.version} ${certManager.components.name}` });
  const [operatorObjects, certManagerObjects] = parseArtifacts(sources);
  const images = manifest.config.images ?? {};
  const operatorObjectsRendered = sortObjects(applyImageOverrides(operatorObjects!, release.label, images));
  const operator: RenderedComponent = {
    label: release.label,
    type: 'CertManager',
    name: release.label,
    version: release.version,
    namespace: operatorObjectsRendered.find((o) => o.kind === 'Namespace')?.metadata.name ?? 'capi-operator-system',
    artifactSha256: release.components.sha256,
    objects: operatorObjectsRendered,
  };
  const certManagerComponent: RenderedComponent | undefined = certManager
    ? {
        label: certManager.label,
        type: 'CertManager',
        name: 'cert-manager',
        version: certManager.version,
        namespace: 'cert-manager',
        artifactSha256: certManager.components.sha256,
        objects: renderCertManagerObjects(certManagerObjects!, certManager.version, images),
      }
    : undefined;
  const rendered = certManagerComponent ? [certManagerComponent, operator] : [operator];
  const { pinImages: flag, frozen, onWarning, fleetCluster, fleetImageDigests } = options;
  const pinInput = { flag, frozen, onWarning, fleetCluster, fleetImageDigests, resolution, components: rendered };
  const { components, lock } = await pinImages(pinInput);
  const pinned = (label: string) => components.find((c) => c.label === label);
  const layoutProviders = providers.map((p) => ({
    kind: p.kind,
    name: p.name,
    namespace: p.namespace,
    version: p.version,
    spec: p.provider.spec,
    labels: p.provider.labels,
    annotations: p.provider.annotations,
    components: p.components.text,
    metadata: p.metadata.text,
    artifactSha256: p.components.sha256,
  }));
  // The operator reads them in the cluster; checked here as a render would check them.
  // each ConfigMap once, however many providers name it
  const additionalManifests = [
    ...new Set(
      providers.flatMap((p) => {
        const ref = p.provider.spec.additionalManifests;
        if (!ref) return [];
        resolveAdditionalManifests(p.provider, manifest.configMaps);
        return manifest.configMaps.filter((cm) => cm.name === ref.name && cm.namespace === (ref.namespace || p.namespace));
      }),
    ),
  ];
  const files = layoutOperator({
    providers: layoutProviders,
    operator: pinned(release.label)!,
    certManager: certManager ? pinned(certManager.label) : undefined,
    additionalManifests,
    command: options.command ?? 'capi-gitops render --layout operator',
    wiring,
    namespaces: manifest.namespaces,
  });
  files.set(GITATTRIBUTES_FILE, GITATTRIBUTES);
  return { components, files: new Map([...files].sort(([a], [b]) => compareStrings(a, b))), lock };
}

/** `render --layout operator`: the operator's objects and the providers' artifacts, gated like any layout. */
export async function renderOperatorCluster(resolution: Resolution, options: RenderOptions): Promise<RenderResult> {
  const { manifest, providers } = resolution;
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
  const literal = literalSecretProblems(resolution);
  if (literal.length > 0) throw new CapiGitopsError(literal);
  const rendered = await renderOperatorLayout(resolution, options, wiring);
  // the wiring chart's values may hold a Git URL with its credentials; --secrets changes nothing here
  const urls = urlCredentials(rendered.files);
  if (urls.length > 0) throw new CapiGitopsError(urls.map((u) => urlCredentialProblem(u, false, wiring?.valueGiving?.(u.url))));
  // nothing is substituted here, but a patch or an additionalManifests ConfigMap may carry a secret
  const run = await readRunSecrets({ secretFiles: options.secretFiles, envSecrets: options.envSecrets });
  const secrets = providers.map((p) => (p.provider.spec.configSecret ? findConfigSecret(p.provider, manifest.secrets) : undefined));
  const needles = secretNeedles(secretValues(manifest, secrets, run));
  options.onSecretValues?.(needles);
  for (const warning of turtlesSecretWarnings(resolution)) options.onWarning?.(warning);
  for (const warning of configReachingNoProvider(resolution)) options.onWarning?.(warning);
  gateWithOtherClusters(rendered.files, options, () =>
    finalGate(rendered.files, { path: path.basename(resolution.lockFile), text: serializeLockfile(rendered.lock.lock) }, needles),
  );
  return {
    ...resolution,
    ...rendered,
    layout: 'operator',
    warnings: ignoredSecretFlags(options),
  };
}

/**
 * Values written as they are into Secrets, which the operator would apply from the input this
 * layout commits: by an additionalManifests ConfigMap, or by a patch of the provider object.
 * Only text that names a Secret is parsed; text that does not parse is the operator's problem.
 */
function literalSecretProblems({ manifest, providers }: Resolution): Diagnostic[] {
  const parse = (text: string, source: string): KObject[] => {
    try {
      return mayHoldSecret(text) ? parseArtifact(text, { source }) : [];
    } catch {
      return [];
    }
  };
  return providers.flatMap(({ provider, components, label, version }) => {
    const at = (d: Diagnostic) => atProviderField(d, manifest.providers, providerObjectName);
    const additional = resolveAdditionalManifests(provider, manifest.configMaps);
    const written = literalSecrets(parse(additional, `${label} ${version} additionalManifests`)).map((s) => ({
      object: `Secret/${s.namespace ?? provider.namespace}/${s.name}`,
      keys: s.keys,
    }));
    const problems = written.length > 0 ? [at(literalSecretsError(provider, written, true))] : [];
    if (!provider.spec.patches?.length && !provider.spec.manifestPatches?.length) return problems;
    // each variable a word, so that a reference in flow style (`{key: ${NAME}}`) parses as substituted text would
    const raw = appendAdditionalManifests(components.text, additional).replace(/\$\{[^}\n]*\}/g, 'capi-gitops-variable');
    const objects = parse(raw, `${label} ${version} ${components.name}`);
    let patched: KObject[];
    try {
      patched = applyProviderPatches(objects, provider.spec);
    } catch {
      return problems;
    }
    const secrets = patchedSecretValues(objects, patched);
    return secrets.length > 0 ? [...problems, at(patchedSecretsError(provider, secrets, true))] : problems;
  });
}

/** --secrets and --allow-secret-values change nothing here, yet the output README's command would record them. */
function ignoredSecretFlags(options: RenderOptions): string[] {
  const flags = [
    ...(options.secretsStrategy ? [`--secrets ${options.secretsStrategy}`] : []),
    ...(options.allowSecretValues ? ['--allow-secret-values'] : []),
  ];
  if (flags.length === 0) return [];
  return [
    `${flags.join(' and ')} ${flags.length > 1 ? 'have' : 'has'} no effect with --layout operator: the operator substitutes each provider's variables ` +
      'in the cluster, from its configSecret, so no secret value reaches the output; drop ' +
      (flags.length > 1 ? 'them' : 'it') +
      ' from the command',
  ];
}

/**
 * The operator builds each provider's clusterctl configuration from its configSecret alone
 * (internal/controller/phase_initialize.go initReaderVariables): the Config's variables and its
 * image overrides for providers, which the other layouts render in, never reach it. Told at the
 * Config field, so that a migration does not lose them unsaid.
 */
function configReachingNoProvider({ manifest, providers, certManager, operator }: Resolution): Diagnostic[] {
  const config = manifest.config;
  const at = (path: string[]) => config.locate?.(path, 'key') ?? config.position;
  const secrets = [...new Set(providers.flatMap(({ provider }) => configSecretName(provider) ?? []))];
  const where =
    secrets.length > 0
      ? `the configSecret of each provider that reads them (${secrets.join(', ')})`
      : 'a Secret named by the spec.configSecret of each provider that reads them';
  const warnings: Diagnostic[] = [];
  const variables = Object.keys(config.variables ?? {});
  if (variables.length > 0 && providers.length > 0)
    warnings.push({
      ...at(['variables']),
      message: `Config variables reach no provider with --layout operator (${variables.join(', ')}): the operator substitutes a provider's variables from its configSecret only`,
      hint: `give them as keys of ${where}`,
    });
  const own = new Set<string>([operator?.label, certManager?.label].filter((label) => label !== undefined));
  const forProviders = Object.keys(config.images ?? {}).filter((key) => !own.has(key.split('/')[0]!));
  if (forProviders.length > 0 && providers.length > 0)
    warnings.push({
      ...at(['images', forProviders[0]!]),
      message: `Config images reach no provider with --layout operator, only cert-manager and the operator (${forProviders.join(', ')}): the operator reads a provider's image overrides from the images key of its configSecret`,
      hint: `put them, in clusterctl's images YAML, under the images key of ${where}`,
    });
  if (config.turtles?.noCertManager !== undefined)
    warnings.push({
      ...at(['turtles', 'noCertManager']),
      message:
        "turtles.noCertManager changes nothing with --layout operator: this layout writes operator objects, whose components the cluster-api-operator applies in the cluster without Turtles' steps",
      hint: "remove turtles.noCertManager, or render another layout (kustomize, argocd, flux) to have the CAPIProviders' components rendered as Turtles applies them",
    });
  return warnings;
}

function configSecretName(provider: Resolution['providers'][number]['provider']): string | undefined {
  const ref = provider.spec.configSecret;
  return ref ? `Secret/${ref.namespace || provider.namespace}/${ref.name}` : undefined;
}

/**
 * Turtles writes a CAPIProvider's variables and features into its config Secret. This layout
 * writes no Secret, so the operator would install the provider without them, or not at all
 * (no such Secret): say which keys to create, with the command.
 */
function turtlesSecretWarnings({ providers, manifest }: Resolution): Diagnostic[] {
  return providers.flatMap(({ provider }) => {
    const secret = findConfigSecret(provider, manifest.secrets);
    const keys = secret?.publicKeys ?? [];
    if (!secret || keys.length === 0) return [];
    // a variable's value lands in a Secret, so it is secret: the command reads it from the
    // environment; the keys Turtles derives from spec.features are flags, given as they are
    const implicit = new Set(secret.implicitKeys ?? []);
    const variables = keys.filter((key) => !implicit.has(key));
    const literals = keys
      .map((key) => (implicit.has(key) ? shellWord(`--from-literal=${key}=${secret.data[key]}`) : `--from-literal=${key}="$${key}"`))
      .join(' ');
    const others = Object.keys(secret.data).length > keys.length ? ', and the keys of the Secret given in the input' : '';
    const environment =
      variables.length > 0
        ? ` (with ${variables.join(', ')} set in the environment to the values of the CAPIProvider's spec.variables)`
        : '';
    // told at the CAPIProvider, under the operator object's name that the Secret is for
    return [
      {
        ...provider.position,
        object: `${provider.kind}/${provider.namespace}/${provider.name}`,
        message: `the CAPIProvider: Turtles writes ${keys.join(', ')} into its config Secret ${secret.namespace}/${secret.name}, but the operator layout writes no Secret`,
        hint: `create it in the cluster: kubectl -n ${secret.namespace} create secret generic ${secret.name} ${literals}${others}${environment}`,
      },
    ];
  });
}
