/**
 * The cluster-api-operator's ConfigMap route (internal/controller/phase_load.go
 * configmapRepository, manifests_downloader.go getComponentsData): `spec.fetchConfig.selector`
 * picks ConfigMaps in the provider's namespace; each holds one release, its version taken from
 * the `provider.cluster.x-k8s.io/version` label or else from the ConfigMap's name; keys
 * `components` and `metadata`; with annotation `provider.cluster.x-k8s.io/compressed: "true"`,
 * `binaryData.components` is gzip.
 */
import { shellWord } from '../../core/shell.js';
import { gunzipComponents } from '../../core/artifact-configmap.js';
import { CapiGitopsError, compareStrings, type Diagnostic } from '../../core/diagnostics.js';
import {
  CONFIGMAP_COMPRESSED_ANNOTATION,
  CONFIGMAP_VERSION_LABEL,
  DEFAULT_COMPONENTS_FILE,
  OPERATOR_REPOSITORY_COMPONENTS_FILE,
} from '../../core/provider.js';
import type { ConfigMapObject, LabelSelector } from '../../manifest/types.js';
import { artifactFromBytes, artifactFromText } from '../base/artifact.js';
import {
  formatSelector,
  matchesLabelSelector,
  matchesSelector,
  selectorProblems,
  selectorRequirements,
} from '../../core/label-selector.js';
import { messagePrefix, type DiagnosticOrigin, type SelectorRequest } from '../request.js';
import { compareSemantic, parseSemantic } from '../../core/versions.js';
import { ArtifactNotFoundError, METADATA_FILE, type Artifact, type ProviderRepository } from '../source.js';

const CONFIGMAP_COMPONENTS_KEY = 'components';
const CONFIGMAP_METADATA_KEY = 'metadata';

/**
 * Where the ConfigMap writes the field (or the deepest part of it it writes): in an exported
 * ConfigMap, metadata and its labels come after the whole components text, not at the start.
 */
function positionOf(configMap: ConfigMapObject, path: readonly string[] = []): Pick<Diagnostic, 'file' | 'line' | 'column' | 'object'> {
  const { file, line, column } = (path.length > 0 ? configMap.fieldPosition?.(path) : undefined) ?? configMap.position;
  return { file, line, column, object: `ConfigMap/${configMap.namespace}/${configMap.name}` };
}

/** The operator's rule: the version label if present, else the ConfigMap's name. */
function configMapVersion(configMap: ConfigMapObject): { version: string; from: string } {
  if (Object.hasOwn(configMap.labels, CONFIGMAP_VERSION_LABEL)) {
    return { version: configMap.labels[CONFIGMAP_VERSION_LABEL], from: `label ${CONFIGMAP_VERSION_LABEL}` };
  }
  return { version: configMap.name, from: 'the ConfigMap name (it has no version label)' };
}

/** The label to add: the version a name such as `bootstrap-rke2-v0.11.0` ends with, when it does. */
function versionLabelHint(configMap: ConfigMapObject): string {
  const named = /(?:^|-)(v\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$/.exec(configMap.name)?.[1];
  if (named === undefined || parseSemantic(named) === null) return `label the ConfigMap ${CONFIGMAP_VERSION_LABEL}: <version>`;
  return `label the ConfigMap ${CONFIGMAP_VERSION_LABEL}: ${named} (the release its name ends with), under metadata.labels`;
}

function readComponents(configMap: ConfigMapObject): { bytes?: Uint8Array; text?: string } | Diagnostic {
  const compressed = configMap.annotations[CONFIGMAP_COMPRESSED_ANNOTATION] === 'true';
  const at = positionOf(configMap, [compressed ? 'binaryData' : 'data', CONFIGMAP_COMPONENTS_KEY]);
  if (!compressed) {
    if (!Object.hasOwn(configMap.data, CONFIGMAP_COMPONENTS_KEY)) {
      return {
        ...at,
        path: `data.${CONFIGMAP_COMPONENTS_KEY}`,
        message: 'the ConfigMap has no data.components',
        hint: `put the components YAML under data.components, or gzip it into binaryData.components and annotate ${CONFIGMAP_COMPRESSED_ANNOTATION}: "true"`,
      };
    }
    return { text: configMap.data[CONFIGMAP_COMPONENTS_KEY] };
  }
  const encoded = configMap.binaryData[CONFIGMAP_COMPONENTS_KEY];
  if (encoded === undefined) {
    return {
      ...at,
      path: `binaryData.${CONFIGMAP_COMPONENTS_KEY}`,
      message: `the ConfigMap is annotated ${CONFIGMAP_COMPRESSED_ANNOTATION}: "true" but has no binaryData.components`,
      hint: 'put the gzip-compressed components, base64-encoded, under binaryData.components, or remove the annotation',
    };
  }
  const read = gunzipComponents(encoded);
  if ('bytes' in read) return read;
  return {
    ...at,
    path: `binaryData.${CONFIGMAP_COMPONENTS_KEY}`,
    message: `binaryData.${CONFIGMAP_COMPONENTS_KEY} ${read.problem}`,
    hint: 'the operator expects gzip data (as `gzip -c components.yaml | base64 -w0` produces)',
  };
}

interface ConfigMapRelease {
  configMap: ConfigMapObject;
  components: Artifact;
  metadata: Artifact;
}

class ConfigMapRepository implements ProviderRepository {
  readonly sourceType = 'configmap';
  readonly readsInPlace = true;
  /** The operator's getLatestVersion: the highest semantic version among the ConfigMaps, with a `v` before it. */
  readonly defaultVersion: string;
  private readonly origin: DiagnosticOrigin;
  private readonly prefix: string;

  constructor(
    private readonly releases: ReadonlyMap<string, ConfigMapRelease>,
    readonly componentsFile: string,
    readonly location: string,
    request: Omit<SelectorRequest, 'from'>,
  ) {
    this.origin = request.origin;
    this.prefix = messagePrefix(request);
    const versions = [...releases.keys()].sort((a, b) => compareSemantic(parseSemantic(b)!, parseSemantic(a)!));
    this.defaultVersion = `v${versions[0]!.replace(/^v/, '')}`;
  }

  /** The version of each selected ConfigMap (the operator accepts pre-releases here too). */
  async listVersions(): Promise<string[]> {
    return [...this.releases.keys()].sort((a, b) => compareSemantic(parseSemantic(a)!, parseSemantic(b)!));
  }

  async getFile(version: string, fileName: string): Promise<Artifact> {
    const release = this.releases.get(version);
    if (release === undefined && version === this.defaultVersion && this.releases.has(version.slice(1))) {
      throw this.unprefixedNewest(version);
    }
    if (release === undefined) {
      throw new ArtifactNotFoundError({
        ...this.origin,
        message: `${this.prefix}no selected ConfigMap provides version ${version} (${this.location})`,
        hint: `versions the selected ConfigMaps provide: ${(await this.listVersions()).join(', ')}`,
      });
    }
    if (fileName === this.componentsFile || fileName === OPERATOR_REPOSITORY_COMPONENTS_FILE) return release.components;
    if (fileName === METADATA_FILE) return release.metadata;
    throw new ArtifactNotFoundError({
      ...this.origin,
      message: `${this.prefix}a ConfigMap release has only ${this.componentsFile} and ${METADATA_FILE}, not ${fileName}`,
    });
  }

  /**
   * No spec.version and the newest ConfigMap labelled without a `v`: the operator asks for
   * `v` + the newest (getLatestVersion), which no ConfigMap provides, and the provider fails.
   */
  private unprefixedNewest(version: string): ArtifactNotFoundError {
    const { configMap } = this.releases.get(version.slice(1))!;
    const label = Object.hasOwn(configMap.labels, CONFIGMAP_VERSION_LABEL);
    return new ArtifactNotFoundError({
      ...positionOf(configMap, label ? ['metadata', 'labels', CONFIGMAP_VERSION_LABEL] : ['metadata', 'name']),
      message:
        `${this.prefix}the provider has no spec.version, so the operator takes the newest release as ${version} ` +
        `(it puts a v before it) and finds no ConfigMap for it: this one gives ${version.slice(1)}`,
      expected: `a version with its v (${version}) on the newest ConfigMap, or the provider's spec.version set`,
      hint: label
        ? `label the ConfigMap ${CONFIGMAP_VERSION_LABEL}: ${version}, or set spec.version: ${version.slice(1)} on ${this.origin.object}`
        : `label the ConfigMap ${CONFIGMAP_VERSION_LABEL}: ${version} under metadata.labels, or set spec.version: ${version.slice(1)} on ${this.origin.object}`,
    });
  }
}

/** ConfigMaps the operator would list for this selector: same namespace, labels matching. */
export function selectConfigMaps(configMaps: readonly ConfigMapObject[], selector: LabelSelector, namespace: string): ConfigMapObject[] {
  return configMaps.filter((cm) => cm.namespace === namespace && matchesSelector(cm.labels, selector));
}

/** The version of each ConfigMap the selector picks, as the operator reads it (label, else name). */
export function selectedConfigMapVersions(configMaps: readonly ConfigMapObject[], selector: LabelSelector, namespace: string): string[] {
  return selectConfigMaps(configMaps, selector, namespace).map((cm) => configMapVersion(cm).version);
}

/** Label values that differ only in case and punctuation (`controlplane`, `control-plane`). */
const alike = (a: string | undefined, b: string | undefined) =>
  a !== undefined && b !== undefined && a.toLowerCase().replace(/[^a-z0-9]/g, '') === b.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * The namespace's ConfigMaps that one requirement alone keeps out, each with the label it has: the
 * operator's own artifacts are labelled `provider.cluster.x-k8s.io/type: controlplane`, which a
 * selector written `control-plane` misses. In another namespace (the artifacts' own, when providers
 * share one), only such a spelling of the value counts, and the namespace is named too.
 */
function nearMisses(configMaps: readonly ConfigMapObject[], selector: LabelSelector, namespace: string): string[] {
  const requirements = selectorRequirements(selector);
  if (requirements.length < 2) return [];
  const ordered = [...configMaps.filter((cm) => cm.namespace === namespace), ...configMaps.filter((cm) => cm.namespace !== namespace)];
  return ordered.flatMap((cm) => {
    const failing = requirements.filter((r) => !matchesLabelSelector([r], cm.labels));
    if (failing.length !== 1) return [];
    const { key, operator, values } = failing[0]!;
    const here = cm.namespace === namespace;
    if (!here && !(operator === '=' && alike(Object.hasOwn(cm.labels, key) ? cm.labels[key] : undefined, values[0]))) return [];
    const has = Object.hasOwn(cm.labels, key) ? `${key}=${cm.labels[key]}` : `no label ${key}`;
    const where = here ? '' : `, and lives in namespace ${cm.namespace}, which the operator does not read for this provider`;
    return [`${cm.namespace}/${cm.name} has ${has}${operator === '=' ? `, not ${values[0]}` : ''}${where}`];
  });
}

/** The kubectl command that exports what the selector would find in the cluster, as a file for -f. */
function missingConfigMapsHint(namespace: string, selector: LabelSelector, selectorText: string): string {
  const empty = Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;
  if (empty || namespace === '') return 'add the artifact ConfigMaps to the input, or fix the selector';
  return (
    `add the artifact ConfigMaps to the input, or fix the selector; from the cluster the operator ran in: ` +
    `kubectl get configmaps -n ${shellWord(namespace)} -l ${shellWord(selectorText)} -o yaml > ${namespace}-artifacts.yaml, then add -f ${namespace}-artifacts.yaml`
  );
}

/**
 * Builds the repository from the selected ConfigMaps, reporting every broken one at once. Two
 * ConfigMaps with the same version are an error here (the operator silently keeps the one whose
 * name sorts last), because which one renders must be visible in review.
 */
export function openConfigMapRepository(
  request: Omit<SelectorRequest, 'from'>,
  configMaps: readonly ConfigMapObject[],
): ConfigMapRepository {
  const namespace = request.namespace ?? '';
  const selectorText = formatSelector(request.selector);
  const invalid = selectorProblems(request.selector);
  if (invalid.length > 0) {
    throw new CapiGitopsError(
      invalid.map((message) => ({
        ...request.origin,
        path: 'spec.fetchConfig.selector',
        message: `${messagePrefix(request)}invalid selector: ${message}`,
      })),
    );
  }

  const selected = selectConfigMaps(configMaps, request.selector, namespace).sort((a, b) => compareStrings(a.name, b.name));
  if (selected.length === 0) {
    const elsewhere = configMaps.filter((cm) => cm.namespace !== namespace && matchesSelector(cm.labels, request.selector));
    const nearly = nearMisses(configMaps, request.selector, namespace);
    throw new CapiGitopsError({
      ...request.origin,
      path: 'spec.fetchConfig.selector',
      message: `${messagePrefix(request)}no ConfigMap in namespace "${namespace}" matches the selector ${selectorText}`,
      expected: "ConfigMaps in the provider's namespace, labelled to match, with data keys components and metadata",
      hint:
        elsewhere.length > 0
          ? `${elsewhere.map((cm) => `${cm.namespace}/${cm.name}`).join(', ')} match but live in another namespace; ` +
            `the operator reads only the provider's namespace: set their metadata.namespace to ${namespace}, or move the provider to theirs`
          : nearly.length > 0
            ? `${nearly.join('; ')}: every other label matches; fix the selector or the label`
            : missingConfigMapsHint(namespace, request.selector, selectorText),
    });
  }

  const problems: Diagnostic[] = [];
  const releases = new Map<string, ConfigMapRelease>();
  const componentsFile = componentsFileFor(request);
  for (const configMap of selected) {
    const at = positionOf(configMap, ['metadata', 'labels', CONFIGMAP_VERSION_LABEL]);
    const { version, from } = configMapVersion(configMap);
    if (parseSemantic(version) === null) {
      problems.push({
        ...at,
        message: `version "${version}" (from ${from}) is not a semantic version`,
        expected: 'a version such as v1.12.0',
        hint: versionLabelHint(configMap),
      });
      continue;
    }
    const previous = releases.get(version);
    if (previous !== undefined) {
      problems.push({
        ...at,
        message: `version ${version} is also provided by ConfigMap ${previous.configMap.namespace}/${previous.configMap.name}`,
        hint: 'select exactly one ConfigMap per version',
      });
      continue;
    }
    if (!Object.hasOwn(configMap.data, CONFIGMAP_METADATA_KEY)) {
      problems.push({
        ...positionOf(configMap, ['data', CONFIGMAP_METADATA_KEY]),
        path: `data.${CONFIGMAP_METADATA_KEY}`,
        message: 'the ConfigMap has no data.metadata',
        hint: "put the release's metadata.yaml under data.metadata",
      });
      continue;
    }
    const components = readComponents(configMap);
    if ('message' in components) {
      problems.push(components);
      continue;
    }
    const url = (key: string): string => `configmap:${configMap.namespace}/${configMap.name}#${key}`;
    releases.set(version, {
      configMap,
      components: components.bytes
        ? artifactFromBytes(componentsFile, components.bytes, url(CONFIGMAP_COMPONENTS_KEY))
        : artifactFromText(componentsFile, components.text ?? '', url(CONFIGMAP_COMPONENTS_KEY)),
      metadata: artifactFromText(METADATA_FILE, configMap.data[CONFIGMAP_METADATA_KEY], url(CONFIGMAP_METADATA_KEY)),
    });
  }
  const selectedBy = request.origin.object ?? request.label;
  if (problems.length > 0)
    throw new CapiGitopsError(problems.map((problem) => ({ ...problem, message: `${problem.message} (selected by ${selectedBy})` })));

  return new ConfigMapRepository(releases, componentsFile, `ConfigMaps in namespace ${namespace} selected by ${selectorText}`, request);
}

/** Components are named like the file the provider publishes, so both routes name artifacts alike. */
function componentsFileFor(request: Pick<SelectorRequest, 'kind'>): string {
  return request.kind ? DEFAULT_COMPONENTS_FILE[request.kind] : OPERATOR_REPOSITORY_COMPONENTS_FILE;
}
