/**
 * `spec.additionalManifests`: extra YAML kept in a ConfigMap under the key `manifests`.
 *
 * Where upstream puts it (cluster-api-operator internal/controller/phase_load.go): Load reads the
 * ConfigMap (fetchAdditionalManifests) and, in configmapRepository, appends its text to the
 * provider's components text as `components + "\n---\n" + manifests` before the file is stored
 * in clusterctl's memory repository. Fetch (phase_fetch.go) then hands that combined text to
 * clusterctl's repository.NewComponents. So the additional manifests are raw text appended BEFORE
 * variable substitution and parsing, and then go through everything the components go through:
 * envsubst (their variables must be set too), image overrides, target namespace, common labels,
 * deployment customisation (their Deployments count for "several Deployments") and patches.
 * The namespace of the reference defaults to the provider's (internal/webhook/provider_webhook.go
 * setDefaultProviderSpec).
 */
import { CapiGitopsError, compareStrings, type Diagnostic } from '../core/diagnostics.js';
import { secretDataValues, type KObject } from '../core/kobject.js';
import type { ConfigMapObject, ProviderObject } from '../manifest/types.js';

/** operatorv1.AdditionalManifestsConfigMapKey. */
export const ADDITIONAL_MANIFESTS_KEY = 'manifests';

/**
 * The additional manifests text for a provider: '' when it has no `spec.additionalManifests`.
 * A missing ConfigMap is an error, as upstream. A ConfigMap without the `manifests` key is an
 * error too, where upstream silently adds nothing: in a reviewed GitOps render a typo there
 * should not quietly drop objects.
 */
export function resolveAdditionalManifests(provider: ProviderObject, configMaps: readonly ConfigMapObject[]): string {
  const ref = provider.spec.additionalManifests;
  if (ref === undefined || ref === null) return '';
  const namespace = ref.namespace || provider.namespace;
  const providerName = `${provider.kind}/${provider.namespace}/${provider.name}`;
  const configMap = configMaps.find((cm) => cm.name === ref.name && cm.namespace === namespace);
  if (configMap === undefined) {
    const sameNamespace = configMaps.filter((cm) => cm.namespace === namespace).map((cm) => cm.name);
    throw new CapiGitopsError({
      file: provider.position.file,
      line: provider.position.line,
      column: provider.position.column,
      ...provider.fieldPosition?.(['spec', 'additionalManifests']),
      object: providerName,
      path: 'spec.additionalManifests',
      message: `ConfigMap ${namespace}/${ref.name} is not in the input`,
      expected: `a ConfigMap ${namespace}/${ref.name} with data key "${ADDITIONAL_MANIFESTS_KEY}"`,
      hint:
        'add the ConfigMap to the input files' +
        (ref.namespace ? '' : ` (without spec.additionalManifests.namespace it is looked up in the provider's namespace, ${namespace})`) +
        (sameNamespace.length > 0 ? `; ConfigMaps in ${namespace}: ${[...sameNamespace].sort().join(', ')}` : ''),
    });
  }
  if (!Object.hasOwn(configMap.data, ADDITIONAL_MANIFESTS_KEY)) {
    const inBinary = Object.hasOwn(configMap.binaryData, ADDITIONAL_MANIFESTS_KEY);
    throw new CapiGitopsError({
      file: configMap.position.file,
      line: configMap.position.line,
      column: configMap.position.column,
      object: `ConfigMap/${configMap.namespace}/${configMap.name}`,
      path: `data.${ADDITIONAL_MANIFESTS_KEY}`,
      message: `has no data key "${ADDITIONAL_MANIFESTS_KEY}" (referenced by ${providerName} spec.additionalManifests)`,
      expected: `the additional manifests as YAML text under data.${ADDITIONAL_MANIFESTS_KEY}`,
      hint: inBinary
        ? `the operator reads only data.${ADDITIONAL_MANIFESTS_KEY}, not binaryData; move the YAML there as plain text`
        : `keys present: ${Object.keys(configMap.data).sort().join(', ') || '(none)'}; the cluster-api-operator would silently add nothing`,
    });
  }
  return configMap.data[ADDITIONAL_MANIFESTS_KEY]!;
}

/**
 * The components text with the additional manifests appended as upstream does, separated by a
 * document marker on its own line. Call it on the raw artifact text, before envsubst and parsing.
 */
export function appendAdditionalManifests(componentsText: string, additionalManifests: string): string {
  if (additionalManifests === '') return componentsText;
  return `${componentsText}\n---\n${additionalManifests}`;
}

/** A v1 Secret of the additional manifests with values written as they are, and their keys. */
interface LiteralSecret {
  name: string;
  /** As written; the component's namespace when absent. */
  namespace?: string;
  keys: string[];
}

/**
 * The Secrets of the additional manifests whose data or stringData holds a value written as it
 * is: a value that lands in a Secret's data is secret wherever it is given, and one written as
 * `${NAME}` is a variable, which taint tracking follows (./secret-landing.ts).
 */
export function literalSecrets(objects: readonly KObject[]): LiteralSecret[] {
  const found: LiteralSecret[] = [];
  for (const obj of objects) {
    if (typeof obj.metadata?.name !== 'string') continue;
    const keys = secretDataValues(obj)
      .filter(({ value }) => !value.includes('${'))
      .map(({ field }) => field);
    if (keys.length === 0) continue;
    const namespace = obj.metadata.namespace;
    found.push({
      name: obj.metadata.name,
      ...(typeof namespace === 'string' && namespace ? { namespace } : {}),
      keys: keys.sort(compareStrings),
    });
  }
  return found;
}

/**
 * A parse problem told at a line of the appended text points into the ConfigMap's
 * data.manifests in the input, not at a line past the end of the release's artifact.
 */
export function atAdditionalManifests(
  d: Diagnostic,
  source: string,
  componentsText: string,
  provider: ProviderObject,
  configMaps: readonly ConfigMapObject[],
  secretNames: readonly string[],
): Diagnostic {
  const ref = provider.spec.additionalManifests;
  // the appended text starts after the artifact's lines and the "---" line
  const first = componentsText.split('\n').length + 2;
  if (!ref || d.file !== source || d.line === undefined || d.line < first) return d;
  const namespace = ref.namespace || provider.namespace;
  const configMap = configMaps.find((cm) => cm.name === ref.name && cm.namespace === namespace);
  if (configMap === undefined) return d;
  const path = ['data', ADDITIONAL_MANIFESTS_KEY];
  const where = d.column === undefined ? `line ${d.line - first + 1}` : `line ${d.line - first + 1}, column ${d.column}`;
  const text = configMap.data[ADDITIONAL_MANIFESTS_KEY] ?? '';
  // a secret the appended text does not reference did not break it: the text itself is no YAML
  const ownText = secretNames.length > 0 && !secretNames.some((name) => text.includes(`\${${name}`));
  return {
    ...d,
    ...configMap.position,
    ...configMap.fieldPosition?.(path),
    object: `ConfigMap/${configMap.namespace}/${configMap.name}`,
    path: path.join('.'),
    message: `${where} of the additional manifests: ${ownText ? "not valid YAML (the parser's message is not shown, as it may quote a secret value)" : d.message}`,
    ...(ownText ? { expected: 'YAML documents of Kubernetes objects', hint: `correct the YAML under ${path.join('.')}` } : {}),
  };
}
