/**
 * What a cluster's providers read before they render: each provider's configSecret, the values
 * its variables take, its image overrides, and every secret value of the run (the needles the
 * final gate searches for).
 */
import { CapiGitopsError, comparePositions, compareStrings, DiagnosticBag, tellOnce, type Diagnostic } from '../core/diagnostics.js';
import type { ImageMeta, Manifest, ProviderObject, SecretObject, SecretStrategy } from '../manifest/types.js';
import { findConfigSecret } from '../manifest/references.js';
import type { ResolvedProvider } from '../resolve/resolve.js';
import { providerObjectName } from '../resolve/preflight.js';
import type { VariableLookup } from '../render/types.js';
import { parseImagesValue } from '../render/images.js';
import { resolveAdditionalManifests } from '../render/additional-manifests.js';
import type { GivenVariables } from '../render/variable-advice.js';
import {
  configSecretNeeded,
  IMAGES_KEY,
  missingConfigSecretNote,
  readRunSecrets,
  rendersWithoutValues,
  secretAwareLookup,
  secretNeedles,
  secretStrategy,
  secretValues,
  type RunSecrets,
  type GivenSecret,
  type SecretNeedles,
} from '../secrets/index.js';
import type { VariableReference } from '../render/variables.js';
import type { RenderOptions, SecretNotGiven } from './types.js';

/** A provider with its configSecret, the values its variables take and its image overrides. */
export interface PreparedProvider {
  resolved: ResolvedProvider;
  secret: SecretObject | undefined;
  lookup: VariableLookup;
  /** The configSecret's `images`: the render's first pass, Config.images then over the images it wrote. */
  images: { fromSecret: Record<string, ImageMeta> };
}

function originOf(p: ProviderObject): Pick<Diagnostic, 'object' | 'file' | 'line' | 'column'> {
  return { object: providerObjectName(p), file: p.position.file, line: p.position.line, column: p.position.column };
}

/** A problem with spec.configSecret, at that field where the manifest has its position. */
function atConfigSecret(p: ProviderObject): Pick<Diagnostic, 'object' | 'file' | 'line' | 'column'> {
  return { ...originOf(p), ...p.fieldPosition?.(['spec', 'configSecret']) };
}

/** The Secret a provider's spec.configSecret names (namespace defaulted by the manifest stage). */
function configSecretOf(
  provider: ProviderObject,
  secrets: readonly SecretObject[],
  given: readonly GivenSecret[],
  tolerateMissing?: (warning: Diagnostic) => void,
  neededBy?: SecretStrategy,
): SecretObject | undefined {
  const ref = provider.spec.configSecret;
  if (!ref) return undefined;
  const namespace = ref.namespace || provider.namespace;
  const secret = findConfigSecret(provider, secrets);
  if (!secret && tolerateMissing) {
    tolerateMissing({ ...atConfigSecret(provider), path: 'spec.configSecret', ...missingConfigSecretNote(`${namespace}/${ref.name}`) });
    return undefined;
  }
  if (!secret) {
    // the operator's docs put the Secret in another namespace than the provider: say where it is
    const elsewhere = secrets.filter((s) => s.name === ref.name).map((s) => s.namespace);
    // the Secret exported with kubectl and given with --secret-file: its keys are every provider's
    const asSecretFile = given.find((s) => s.name === ref.name && (s.namespace ?? namespace) === namespace);
    // check or diff (CI) under a strategy that needs the values: leaving the Secret out would render something else
    const needed =
      neededBy && !asSecretFile && elsewhere.length === 0 ? configSecretNeeded(`${namespace}/${ref.name}`, neededBy) : undefined;
    throw new CapiGitopsError({
      ...atConfigSecret(provider),
      path: 'spec.configSecret',
      message:
        needed?.message ??
        `Secret ${namespace}/${ref.name} is not in the input${elsewhere.length > 0 ? `; a Secret ${ref.name} is in namespace ${elsewhere.join(', ')}` : ''}`,
      expected: `a v1 Secret ${namespace}/${ref.name} whose data keys are the provider's variables`,
      hint: needed
        ? needed.hint
        : asSecretFile
          ? `${asSecretFile.file} holds it, given with --secret-file, which makes its keys variables of every provider; ` +
            `to read it as this provider's configSecret, give it with -f ${asSecretFile.file} instead (keep that file outside Git)`
          : elsewhere.length > 0
            ? `set spec.configSecret.namespace: ${elsewhere[0]} (the operator defaults it to the provider's namespace), or move the Secret to ${namespace}`
            : 'put the Secret in its own -f file kept outside Git (outside the repository, or listed in .gitignore), ' +
              'or remove spec.configSecret and give the values with --secret-file or --env-secret',
    });
  }
  return secret;
}

function imageOverridesFor(secret: SecretObject | undefined, onWarning: (warning: Diagnostic) => void): PreparedProvider['images'] {
  if (!secret || !Object.hasOwn(secret.data, IMAGES_KEY)) return { fromSecret: {} };
  const fromSecret = parseImagesValue(
    secret.data[IMAGES_KEY]!,
    `Secret ${secret.namespace}/${secret.name} key "${IMAGES_KEY}"`,
    secret.position,
    onWarning,
  );
  return { fromSecret };
}

/** Image overrides from a Secret that would be written to the output. */
export function secretImagesError(provider: ProviderObject): Diagnostic {
  const ref = provider.spec.configSecret;
  return {
    ...originOf(provider),
    path: 'spec.configSecret',
    message: `image overrides from Secret ${ref?.namespace || provider.namespace}/${ref?.name} would be written to the output: ${IMAGES_KEY}`,
    expected: 'no value that comes from a Secret in files committed to Git',
    hint: 'declare `images` in Config.secrets.public, move the overrides to `images:` in the Config document, or pass --secrets inline --allow-secret-values to accept them in the output',
  };
}

/** Values written as they are into Secrets of spec.additionalManifests, which would be committed. */
export function literalSecretsError(
  provider: ProviderObject,
  secrets: readonly { object: string; keys: string[] }[],
  operatorLayout = false,
): Diagnostic {
  const ref = provider.spec.additionalManifests;
  const configMap = `ConfigMap ${ref?.namespace || provider.namespace}/${ref?.name}`;
  return {
    ...originOf(provider),
    path: 'spec.additionalManifests',
    message:
      `the manifests of ${configMap} write values into ${secrets.map((s) => `${s.object} (${s.keys.join(', ')})`).join(', ')} as they are: ` +
      "a value in a Secret's data is secret wherever it is given, and would be committed",
    expected: "no Secret value written in the input's text",
    hint: operatorLayout
      ? `write each value as \${NAME} in the ConfigMap and add NAME to ${operatorSecretFor(provider)}: the operator substitutes it in the cluster`
      : 'write each value as ${NAME} in the ConfigMap and give NAME with --secret-file or --env-secret, so Config.secrets.strategy places it ' +
        '(external-secrets, sops, flux-substitute); or pass --secrets inline --allow-secret-values to accept the values in Git',
  };
}

/** Values that spec.patches or spec.manifestPatches write into Secrets as they are, which would be committed. */
export function patchedSecretsError(
  provider: ProviderObject,
  secrets: readonly { object: string; keys: string[] }[],
  operatorLayout = false,
): Diagnostic {
  const field = provider.spec.patches?.length ? 'spec.patches' : 'spec.manifestPatches';
  return {
    ...originOf(provider),
    path: field,
    message:
      `${field} write values into ${secrets.map((s) => `${s.object} (${s.keys.join(', ')})`).join(', ')} as they are: ` +
      "a value in a Secret's data is secret wherever it is given, and would be committed",
    expected: 'no Secret value written in a patch (patches are applied after substitution, so ${NAME} stays as it is)',
    hint: operatorLayout
      ? `remove the Secret's values from ${field}; where the release writes the key from a variable, add that variable to ${operatorSecretFor(provider)}: ` +
        'the operator substitutes it in the cluster'
      : `remove the Secret's values from ${field}; where the release writes the key from a variable, give that variable with --secret-file ` +
        'or --env-secret, so Config.secrets.strategy places it (external-secrets, sops, flux-substitute); ' +
        'or pass --secrets inline --allow-secret-values to accept the values in Git',
  };
}

/** The Secret the operator reads a provider's variables from, which is created in the cluster, never in Git. */
function operatorSecretFor(provider: ProviderObject): string {
  const ref = provider.spec.configSecret;
  return ref
    ? `the provider's configSecret ${ref.namespace || provider.namespace}/${ref.name} (kept out of Git)`
    : "a Secret created in the cluster, outside Git, and named in the provider's spec.configSecret";
}

/**
 * Whether the provider names a Secret or ConfigMap that the input holds but the manifest stage
 * left out for its own problems (data that is not base64, …): the provider cannot render, and
 * that object is no more "not in the input" than it is valid.
 */
function readsLeftOutObject(provider: ProviderObject, leftOut: ReadonlySet<string | undefined>): boolean {
  const { configSecret, additionalManifests } = provider.spec;
  return (
    (configSecret !== undefined && leftOut.has(`Secret/${configSecret.namespace || provider.namespace}/${configSecret.name}`)) ||
    (additionalManifests != null &&
      leftOut.has(`ConfigMap/${additionalManifests.namespace || provider.namespace}/${additionalManifests.name}`))
  );
}

/**
 * The providers that do not render (a problem of their own in the manifest, or no release found)
 * whose configSecret and additionalManifests references can still be checked: those whose own
 * problems leave both fields alone. Their missing Secret is then told in the same run.
 */
export function providersToCheckReferences(manifest: Manifest, rendering: readonly ResolvedProvider[]): ProviderObject[] {
  const rendered = new Set(rendering.map((r) => providerObjectName(r.provider)));
  const reference = /^spec\.(configSecret|additionalManifests)(\.|\[|$)/;
  return manifest.providers.filter((provider) => {
    const name = providerObjectName(provider);
    if (rendered.has(name)) return false;
    const own = (manifest.problems ?? []).filter((d) => d.object === name);
    return !own.some((d) => d.path === undefined || reference.test(d.path)) && !readsUnknownNamespace(provider);
  });
}

/**
 * A reference without a namespace of its own is in the provider's (the operator's defaulting
 * webhook): without metadata.namespace, told at the provider, it names no Secret or ConfigMap.
 */
function readsUnknownNamespace(provider: ProviderObject): boolean {
  if (provider.namespace !== '') return false;
  const { configSecret, additionalManifests } = provider.spec;
  return [configSecret, additionalManifests].some((reference) => reference != null && !reference.namespace);
}

/** The run's own secret values (`--secret-file`, `--env-secret`), every provider's. */
export async function runSecrets(manifest: Manifest, options: RenderOptions): Promise<RunSecrets> {
  const valuesOptional = rendersWithoutValues(options, manifest.config.secrets);
  return readRunSecrets({
    secretFiles: options.secretFiles,
    // render took these from the environment: a check in CI reads them as render did, or has them as not given
    envSecrets: valuesOptional ? [...new Set([...(options.envSecrets ?? []), ...(options.recordedEnvSecrets ?? [])])] : options.envSecrets,
    valuesOptional,
  });
}

/**
 * Every provider prepared (each problem collected, none thrown), and the needles: every Secret a
 * provider names is known to the gate, whether the provider renders or not. `others`: providers
 * that do not render, whose references are checked all the same (providersToCheckReferences).
 */
export async function prepareProviders(
  manifest: Manifest,
  providers: readonly ResolvedProvider[],
  options: RenderOptions,
  others: readonly ProviderObject[] = [],
): Promise<{ prepared: PreparedProvider[]; needles: SecretNeedles; problems: Diagnostic[] }> {
  const run = await runSecrets(manifest, options);
  const bag = new DiagnosticBag();
  // check and diff under a strategy that keeps values out: a missing configSecret is a warning
  // (a Secret several providers name is told once, after the loop)
  const missing: Diagnostic[] = [];
  const tolerateMissing = rendersWithoutValues(options, manifest.config.secrets) ? (w: Diagnostic) => missing.push(w) : undefined;
  // check and diff under sops or inline, whose output holds (or encrypts) the values: a missing configSecret says what CI must give
  const neededBy = options.secretValuesOptional && !tolerateMissing ? secretStrategy(options, manifest.config.secrets) : undefined;
  const withSecrets: { resolved: ResolvedProvider; secret: SecretObject | undefined }[] = [];
  // a Secret or ConfigMap in the input but left out for its own problems, told at its lines
  const leftOut = new Set(manifest.problems?.map((d) => d.object));
  // both references checked, so a missing configSecret does not hide a missing ConfigMap
  const checkReferences = (provider: ProviderObject): { ok: boolean; secret?: SecretObject } => {
    if (readsLeftOutObject(provider, leftOut)) return { ok: false };
    const before = bag.size;
    let secret: SecretObject | undefined;
    try {
      secret = configSecretOf(provider, manifest.secrets, run.manifests, tolerateMissing, neededBy);
    } catch (err) {
      bag.addError(err);
    }
    try {
      resolveAdditionalManifests(provider, manifest.configMaps);
    } catch (err) {
      bag.addError(err);
    }
    return { ok: bag.size === before, secret };
  };
  for (const resolved of providers) {
    const { ok, secret } = checkReferences(resolved.provider);
    if (ok) withSecrets.push({ resolved, secret });
  }
  for (const provider of others) checkReferences(provider);
  tellOnce(missing, sameSecretProblem).forEach((w) => options.onWarning?.(w));
  const needles = secretNeedles(
    secretValues(
      manifest,
      withSecrets.map((p) => p.secret),
      run,
    ),
  );
  const prepared: PreparedProvider[] = [];
  // a Secret that several providers read is read for each: its warnings told once
  const imageWarnings: Diagnostic[] = [];
  for (const { resolved, secret } of withSecrets) {
    try {
      const lookup = secretAwareLookup(manifest, secret, run);
      prepared.push({ resolved, secret, lookup, images: imageOverridesFor(secret, (w) => imageWarnings.push(w)) });
    } catch (err) {
      bag.addError(err);
    }
  }
  tellOnce(imageWarnings).forEach((w) => options.onWarning?.(w));
  options.onSecretValues?.(needles);
  return { prepared, needles, problems: tellOnce(bag.items, sameSecretProblem) };
}

/** A Secret's problem (missing, its images key) is the Secret's, whichever provider's field names it. */
const sameSecretProblem = (d: Diagnostic) => [d.path, d.message, d.expected, d.hint];

/**
 * The configSecrets a run without secret values rendered without (a provider that names one and
 * has none was let through by configSecretOf), each with the public keys it may hold: those the
 * provider uses that no other input gives. `used`: each prepared provider's variables.
 */
export function secretsNotGiven(
  manifest: Manifest,
  prepared: readonly PreparedProvider[],
  used: readonly (readonly VariableReference[] | undefined)[],
): SecretNotGiven[] {
  const publicNames = manifest.config.secrets?.public ?? [];
  const each = prepared.flatMap((p, i): SecretNotGiven[] => {
    const provider = p.resolved.provider;
    const ref = provider.spec.configSecret;
    if (!ref || p.secret) return [];
    const names = new Set((used[i] ?? []).map((v) => v.name));
    const publicKeys = publicNames
      .filter((name) => name === IMAGES_KEY || (names.has(name) && p.lookup(name) === undefined))
      .sort(compareStrings);
    const secret = `${ref.namespace || provider.namespace}/${ref.name}`;
    const { file, line, column } = atConfigSecret(provider);
    return [{ secret, objects: [providerObjectName(provider)], file, line, column, publicKeys }];
  });
  return mergeSecretsNotGiven(each);
}

/**
 * Each Secret once, however many providers (a chart's global configSecret names it in every one)
 * or fleet clusters name it: with every provider and public key, at the first place it is named.
 */
export function mergeSecretsNotGiven(list: readonly SecretNotGiven[]): SecretNotGiven[] {
  const merged = new Map<string, SecretNotGiven>();
  const ordered = [...list].sort(comparePositions);
  for (const entry of ordered) {
    const before = merged.get(entry.secret);
    merged.set(entry.secret, {
      ...(before ?? entry),
      objects: [...new Set([...(before?.objects ?? []), ...entry.objects])],
      publicKeys: [...new Set([...(before?.publicKeys ?? []), ...entry.publicKeys])].sort(compareStrings),
    });
  }
  return [...merged.values()];
}

/**
 * Config.variables and --env-secret names reach every provider; a configSecret's keys only the
 * providers that name it. (A --secret-file may serve several manifests: its unused keys are not told.)
 */
export function givenVariables(
  manifest: Manifest,
  prepared: readonly PreparedProvider[],
  used: readonly string[][],
  envSecrets: readonly string[] = [],
): GivenVariables[] {
  const usedBy = (secret?: SecretObject) => new Set(prepared.flatMap((p, i) => (secret && p.secret !== secret ? [] : used[i]!)));
  const given: GivenVariables[] = [];
  const config = manifest.config;
  if (config.variables) {
    // a provider whose configSecret has the key reads the Secret's value (docs/secrets.md): the Config's is not used by it
    const shadowed = new Map<string, string[]>();
    const fromConfig = new Set<string>();
    prepared.forEach((p, i) => {
      for (const name of used[i]!) {
        if (p.secret === undefined || !Object.hasOwn(p.secret.data, name)) fromConfig.add(name);
        else shadowed.set(name, [...new Set([...(shadowed.get(name) ?? []), `Secret/${p.secret.namespace}/${p.secret.name}`])]);
      }
    });
    const secrets = new Map<string, SecretObject>(
      prepared.flatMap((p) => (p.secret ? [[`Secret/${p.secret.namespace}/${p.secret.name}`, p.secret]] : [])),
    );
    given.push({
      origin: 'Config',
      path: 'variables',
      position: config.position,
      locate: (name) => config.locate?.(['variables', name]),
      names: Object.keys(config.variables),
      used: fromConfig,
      shadowedBy: new Map([...shadowed].filter(([name]) => !fromConfig.has(name))),
      setBy: (secret, name) => secrets.get(secret)?.turtlesField?.(name),
    });
  }
  for (const name of new Set(envSecrets)) given.push({ origin: `--env-secret ${name}`, names: [name], used: usedBy() });
  for (const secret of new Set(prepared.map((p) => p.secret).filter((s) => s !== undefined))) {
    given.push({
      origin: `Secret/${secret.namespace}/${secret.name}`,
      position: secret.position,
      // each unused key at its own line (stringData over data), as Config.variables' are
      locate: (name) => secret.keyPosition?.(name),
      names: Object.keys(secret.data).filter((name) => !secret.implicitKeys?.includes(name)),
      used: usedBy(secret),
    });
  }
  return given;
}

/**
 * Variables a component took its default for while the environment sets them. clusterctl reads
 * variables from the environment first (cmd/clusterctl/client/config/reader_viper.go, AutomaticEnv),
 * so `export CLUSTER_TOPOLOGY=true` is how its users give them; capi-gitops reads only the manifest,
 * `--secret-file` and `--env-secret`, and would render the default without a word. One warning per
 * variable, at the first provider that reads it; the environment's value is never shown.
 */
export function environmentVariableWarnings(
  prepared: readonly PreparedProvider[],
  variables: readonly (readonly VariableReference[] | undefined)[],
  env: NodeJS.ProcessEnv,
  /** Per provider, the variables it substitutes into a Secret's data: secret, so never for the Config. */
  inSecretData: readonly (ReadonlySet<string> | undefined)[] = [],
): Diagnostic[] {
  const readers = new Map<string, { providers: PreparedProvider[]; default?: string }>();
  prepared.forEach((p, i) => {
    for (const v of variables[i] ?? []) {
      const value = env[v.name];
      if (p.lookup(v.name) !== undefined || value === undefined || value === '' || value === v.default) continue;
      const entry = readers.get(v.name) ?? { providers: [], default: v.default };
      entry.providers.push(p);
      readers.set(v.name, entry);
    }
  });
  return [...readers].map(([name, { providers, default: fallback }]) => ({
    ...originOf(providers[0]!.resolved.provider),
    message:
      `${name} is set in the environment, which capi-gitops does not read (clusterctl does), so ` +
      `${listed(providers.map((p) => p.resolved.label))} ${providers.length > 1 ? 'get' : 'gets'} ` +
      // no default text: none (the missing variable's error follows) or an empty one
      (fallback === undefined ? 'no value for it' : `its default ${JSON.stringify(fallback)}`),
    hint: providers.some((p) => inSecretData[prepared.indexOf(p)]?.has(name))
      ? // it is in the environment already: --env-secret reads it there and keeps it out of Git
        `pass it with --env-secret ${name}: it lands in a Secret's data, so it is secret (never under variables: in the Config document)`
      : `set ${name} under variables: in the Config document (its value quoted), or in the provider's configSecret`,
  }));
}

/** `a`, `a and b`, `a, b and c`. */
function listed(names: readonly string[]): string {
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
