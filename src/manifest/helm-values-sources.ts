/**
 * The cluster-api-operator chart's values where GitOps users keep them, for `import helm-values`:
 * a plain values file, or the object that installs the chart: an Argo CD `Application`
 * (spec.source.helm, or the matching entry of spec.sources), a Flux `HelmRelease` (spec.values
 * over its valuesFrom ConfigMaps and Secrets found in the same files) or a k3s/RKE2 `HelmChart`
 * (spec.valuesContent, a `HelmChartConfig` of the same name over it, then spec.set). Each release
 * becomes one values layer, composed as its tool composes it; the chart version it names is
 * returned for the caller to follow.
 */
import { CapiGitopsError, sortDiagnostics, type Diagnostic } from '../core/diagnostics.js';
import { applySetExpression, SetSyntaxError } from '../core/helm-set.js';
import { isPlainObject } from '../core/kobject.js';
import { shellWord } from '../core/shell.js';
import { hasPath, mergeUserValues, type Values } from '../core/values.js';
import { YamlBudget } from '../yaml/bounds.js';
import { decodeBase64 } from './core-objects.js';
import { listManifestFiles, readManifestFiles } from './files.js';
import { valueAt } from './fields.js';
import { repeatedKeyWarnings } from './repeated-keys.js';
import type { ChartVersionRequest } from './helm-chart-versions.js';
import {
  documentValue,
  fieldPosition,
  locate,
  nodePosition,
  parseManifestFile,
  YamlValueError,
  type FieldPath,
  type SourceDocument,
} from './yaml-source.js';
import type { Node as YamlNode } from 'yaml';

/** Where a value path (`['infrastructure', 'docker']`) was written, at its key or its value; undefined when no file holds it. */
export type ValuesLocator = (path: FieldPath, at?: 'key' | 'value') => ValuesPosition | undefined;
type ValuesPosition = Pick<Diagnostic, 'file' | 'line' | 'column'>;

export interface HelmValuesSources {
  /** One layer per plain values file and per release, in -f order. */
  layers: { source: string; values: Values; locate?: ValuesLocator }[];
  /** The chart version the release names, if it names one. */
  chartVersion?: ChartVersionRequest;
  /** Each at the field it is about. */
  warnings: Diagnostic[];
  /** That the chart version is not known (a chartRef): moot with --chart-version, so printed only without it. */
  chartVersionWarnings: Diagnostic[];
  /** String values read from Secrets (Flux valuesFrom): the import says so when one reaches its output. */
  secretValues: SecretValue[];
}

/** A value a Secret gave: its value path, and the valuesFrom entry that read it. */
export interface SecretValue {
  path: string;
  value: string;
  from: Diagnostic & { secret: string };
}

const CHART_NAME = 'cluster-api-operator';

/** The resource kubectl gets each kind of release as, by its full name so that no other HelmChart is meant. */
const RELEASE_RESOURCES: Record<string, string> = {
  Application: 'applications.argoproj.io',
  HelmRelease: 'helmreleases.helm.toolkit.fluxcd.io',
  HelmChart: 'helmcharts.helm.cattle.io',
};

/** `kubectl get … -o yaml > <name>.yaml && capi-gitops import helm-values -f <name>.yaml` for one release. */
function exportCommand(doc: Doc): string {
  const metadata = isPlainObject(doc.value.metadata) ? doc.value.metadata : {};
  const name = String(metadata.name ?? 'release');
  const namespace = typeof metadata.namespace === 'string' ? ` -n ${shellWord(metadata.namespace)}` : '';
  const resource = RELEASE_RESOURCES[String(doc.value.kind)] ?? String(doc.value.kind).toLowerCase();
  const file = shellWord(`${name}.yaml`);
  return `kubectl get ${resource}${namespace} ${shellWord(name)} -o yaml > ${file} && capi-gitops import helm-values -f ${file}`;
}

/**
 * Argo CD gives each fileParameter to Helm as --set-file, the file's text as a string, after
 * --set; import's --set-literal is applied last and takes the rest of its argument as written,
 * so a shell that reads the file into it gives the same value.
 */
function fileParametersHint(fileParameters: readonly unknown[]): string {
  const flags = fileParameters.flatMap((parameter) =>
    isPlainObject(parameter) && typeof parameter.name === 'string' && typeof parameter.path === 'string'
      ? [`--set-literal "${parameter.name}=$(cat ${shellWord(parameter.path)})"`]
      : [],
  );
  if (flags.length === 0) return "pass each file's text with --set-literal <name>=<text>";
  return `pass each file's text, from a checkout of that repository: ${flags.join(' ')}`;
}
const PROVIDER_KEYS = ['core', 'bootstrap', 'controlPlane', 'infrastructure', 'ipam', 'addon'];
/** Top-level keys of a Kubernetes object: a values file made only of these is an object, not values. */
const OBJECT_KEYS = ['apiVersion', 'kind', 'metadata', 'spec', 'status', 'data', 'stringData', 'items'];
/** Objects a release reads or needs beside it: a file of only these is no values file of its own. */
const SUPPORTING_KINDS = ['ConfigMap', 'Secret', 'HelmChartConfig', 'OCIRepository', 'HelmRepository', 'GitRepository', 'Namespace'];

/** One parsed document with what locates its fields. */
interface Doc {
  source: SourceDocument;
  value: Record<string, unknown>;
  /** `HelmRelease flux-system/capi-operator`. */
  label: string;
  /** The run's YAML budget: YAML held in a string is parsed again, and counted too. */
  budget: YamlBudget;
  /** The run's warnings: a key that YAML held in a string gives twice. */
  warnings: Diagnostic[];
  /** The object's node: the document's contents, or an item of a List document. */
  root: YamlNode | null;
}

interface Release {
  doc: Doc;
  values: Values;
  /** What each source of the values gave, in the order applied. */
  parts: Part[];
  chartVersion?: ChartVersionRequest;
  /** That the chart version is not known (a chartRef without one). */
  versionWarning?: Diagnostic;
  secretValues?: SecretValue[];
}

/** One source of a release's values and where its paths are written. */
interface Part {
  values: Values;
  at: (path: FieldPath, at?: 'key' | 'value') => ValuesPosition;
}

/** The last part that sets a path wins, as the values merge. */
function locatorOf(parts: readonly Part[]): ValuesLocator {
  return (path, at) => parts.findLast((part) => hasPath(part.values, path))?.at(path, at);
}

/** A map of values inside a document: each path at its own key. */
function mapPart(doc: Doc, base: FieldPath, values: Values): Part {
  return {
    values,
    at: (path, at = 'key') => fieldPosition(doc.source, doc.root, [...base, ...path], at),
  };
}

/** A document's objects: the object, or each item of a v1 List (what `kubectl get a,b -o yaml` prints). */
function objectDocs(source: SourceDocument, value: Record<string, unknown>, budget: YamlBudget, warnings: Diagnostic[]): Doc[] {
  const contents = source.doc.contents as YamlNode | null;
  if (value.kind !== 'List' || value.apiVersion !== 'v1' || !Array.isArray(value.items))
    return [{ source, value, label: labelOf(value), budget, warnings, root: contents }];
  return value.items.flatMap((item: unknown, index) =>
    isPlainObject(item) && typeof item.apiVersion === 'string' && typeof item.kind === 'string'
      ? [{ source, value: item, label: labelOf(item), budget, warnings, root: locate(source, contents, ['items', index]).node }]
      : [],
  );
}

/** Values in a YAML string: every path at the string's field (the string's own lines are not mapped). */
function stringPart(doc: Doc, field: FieldPath, values: Values): Part {
  const { file, line, column } = at(doc, field);
  return { values, at: () => ({ file, line, column }) };
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function metadataOf(value: Record<string, unknown>): { name: string; namespace?: string } {
  return { name: str(valueAt(value, ['metadata', 'name'])) ?? '', namespace: str(valueAt(value, ['metadata', 'namespace'])) };
}

function labelOf(value: Record<string, unknown>): string {
  const { name, namespace } = metadataOf(value);
  return `${str(value.kind) ?? 'object'} ${namespace ? `${namespace}/` : ''}${name}`;
}

function at(doc: Doc, path: FieldPath): Pick<Diagnostic, 'file' | 'line' | 'column' | 'object' | 'path'> {
  const position = fieldPosition(doc.source, doc.root, path, 'value');
  return { ...position, object: doc.label, path: path.join('.') || undefined };
}

function group(apiVersion: unknown): string {
  const text = str(apiVersion) ?? '';
  return text.includes('/') ? text.slice(0, text.indexOf('/')) : '';
}

/** Whether a chart reference (a name, a repository path, an oci:// or .tgz URL) names the cluster-api-operator chart. */
function isOperatorChart(reference: string): boolean {
  const last = reference.replace(/\/+$/, '').split('/').pop() ?? '';
  return last === CHART_NAME || new RegExp(`^${CHART_NAME}-v?\\d+\\.\\d+\\.\\d+.*\\.tgz$`).test(last);
}

/** `…/cluster-api-operator-0.23.0.tgz`: the version a chart archive's name carries. */
function versionInArchive(reference: string): string | undefined {
  return new RegExp(`${CHART_NAME}-(v?\\d+\\.\\d+\\.\\d+[^/]*)\\.tgz$`).exec(reference)?.[1];
}

function namesProvider(values: Values): boolean {
  return PROVIDER_KEYS.some((key) => values[key] !== undefined && values[key] !== null && values[key] !== '');
}

/** Values that are a Kubernetes object's fields rather than the chart's values. */
function looksLikeObject(values: Values): boolean {
  const keys = Object.keys(values);
  return (
    keys.length > 0 &&
    keys.every((key) => OBJECT_KEYS.includes(key)) &&
    keys.some((key) => key === 'kind' || key === 'metadata' || key === 'spec')
  );
}

/** Parses YAML held in a string field (Argo CD `values`, `valuesContent`, a ConfigMap's `values.yaml`); problems at the field. */
function parseEmbedded(doc: Doc, path: FieldPath, text: string, problems: Diagnostic[], secret = false): Values | undefined {
  const where = at(doc, path);
  try {
    doc.budget.check(text, where.file ?? '');
  } catch (error) {
    if (!(error instanceof CapiGitopsError)) throw error;
    problems.push(...error.diagnostics.map((d) => ({ ...d, ...where })));
    return undefined;
  }
  // values Helm reads as a values file: a key given twice is the last (repeated-keys.ts)
  const parsed = parseManifestFile(where.file ?? '', text, { repeatedKeys: 'keep' });
  /** Records the problem; undefined, so that `return fail(…)` reads the value as absent. */
  const fail = (message: string): undefined => {
    problems.push({
      ...where,
      message: secret ? `${path.join('.')} is not a YAML map of chart values` : message,
      expected: 'a YAML map of the chart’s values, e.g. "infrastructure:\\n  docker:\\n    version: v1.7.7"',
      hint: 'check the indentation of the block under this field (a `|` block scalar keeps it as written)',
    });
    return undefined;
  };
  const first = parsed.syntaxErrors[0];
  if (first) return fail(`${path.join('.')} is not valid YAML: line ${first.line} of the value: ${first.message}`);
  if (parsed.documents.length > 1) return fail(`${path.join('.')} holds ${parsed.documents.length} YAML documents`);
  let value: unknown;
  try {
    value = parsed.documents.length === 0 ? null : documentValue(parsed.documents[0]!);
  } catch (error) {
    if (!(error instanceof YamlValueError) && !(error instanceof RangeError)) throw error;
    return fail(`${path.join('.')} is not valid YAML: ${error.message}`);
  }
  if (parsed.documents[0]) doc.warnings.push(...repeatedKeyWarnings(parsed.documents[0], where));
  if (value === null || value === undefined) return {};
  return isPlainObject(value) ? value : fail(`${path.join('.')} is not a map`);
}

/** A map field (valuesObject, spec.values); absent or null is no values. */
function mapField(doc: Doc, path: FieldPath, problems: Diagnostic[]): Values | undefined {
  const value = valueAt(doc.value, path);
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) {
    problems.push({
      ...at(doc, path),
      message: `${path.join('.')} is not a map`,
      expected: 'a map of the chart’s values',
      hint: 'indent the values under this field',
    });
    return undefined;
  }
  return value;
}

/**
 * `--set`-style values applied in order (Helm applies every --set, then every --set-string:
 * helm pkg/cli/values/options.go MergeValues).
 */
function applySets(
  doc: Doc,
  values: Values,
  sets: { expression: string; forceString: boolean; path: FieldPath }[],
  problems: Diagnostic[],
  parts: Part[],
  secret = false,
): void {
  for (const set of [...sets.filter((s) => !s.forceString), ...sets.filter((s) => s.forceString)]) {
    try {
      applySetExpression(values, set.expression, set.forceString);
      const own: Values = {};
      applySetExpression(own, set.expression, set.forceString);
      parts.push(stringPart(doc, set.path, own));
    } catch (error) {
      if (!(error instanceof SetSyntaxError)) throw error;
      problems.push({
        ...at(doc, set.path),
        // Helm's reason may quote the value, which may come from a Secret.
        message: `${set.path.join('.')}: ${secret ? 'not a value Helm’s --set reads' : error.message}`,
        expected: 'a name Helm’s --set reads: a.b.c, list[0]',
        hint: 'fix the name',
      });
    }
  }
}

/** A value Argo CD passes to --set: commas escaped unless it is a `{a,b}` list (argo-cd util/helm/cmd.go cleanSetParameters). */
function argoSetValue(value: string): string {
  if (value.startsWith('{') && value.endsWith('}')) return value;
  return value.replace(/(\\*),/g, (match, slashes: string) => (slashes.length % 2 === 1 ? match : `${slashes}\\,`));
}

/**
 * An Argo CD Application's values (argo-cd reposerver/repository/repository.go helmTemplate):
 * valueFiles (not read here), then `valuesObject`, or the `values` string when there is no
 * valuesObject (pkg/apis/application/v1alpha1 ApplicationSourceHelm.ValuesYAML), then parameters.
 */
function applicationRelease(doc: Doc, problems: Diagnostic[], warnings: Diagnostic[]): Release | undefined {
  const sources: { source: Record<string, unknown>; path: FieldPath }[] = [];
  const list = valueAt(doc.value, ['spec', 'sources']);
  const single = valueAt(doc.value, ['spec', 'source']);
  // Argo CD reads spec.source only when spec.sources is empty (types.go ApplicationSpec.GetSources)
  if (Array.isArray(list) && list.length > 0) {
    list.forEach((source, index) => isPlainObject(source) && sources.push({ source, path: ['spec', 'sources', index] }));
    if (isPlainObject(single))
      warnings.push({
        ...at(doc, ['spec', 'source']),
        message: 'is ignored, as Argo CD ignores it: the Application has spec.sources, which Argo CD reads instead',
        hint: 'remove spec.source from the Application, or its spec.sources',
      });
  } else if (isPlainObject(single)) sources.push({ source: single, path: ['spec', 'source'] });
  const match = sources.find(({ source }) => isOperatorChart(str(source.chart) ?? str(source.path) ?? ''));
  if (!match) return undefined;
  const base = match.path;
  const values: Values = {};
  const helm = isPlainObject(match.source.helm) ? match.source.helm : {};
  const valueFiles = Array.isArray(helm.valueFiles) ? helm.valueFiles.filter((f): f is string => typeof f === 'string') : [];
  if (valueFiles.length > 0) {
    warnings.push({
      ...at(doc, [...base, 'helm', 'valueFiles']),
      message: `${valueFiles.join(', ')}: files in a repository, which are not read`,
      hint: 'pass each with -f before this file, in the same order',
    });
  }
  const parts: Part[] = [];
  let inline: Values | undefined;
  if (helm.valuesObject !== undefined && helm.valuesObject !== null) {
    inline = mapField(doc, [...base, 'helm', 'valuesObject'], problems);
    if (inline) parts.push(mapPart(doc, [...base, 'helm', 'valuesObject'], inline));
    if (helm.values !== undefined && helm.values !== null && helm.values !== '')
      warnings.push({
        ...at(doc, [...base, 'helm', 'values']),
        message: 'is ignored, as Argo CD ignores it: the source has helm.valuesObject, which Argo CD reads instead',
        hint: 'move these values into helm.valuesObject, then remove helm.values',
      });
  } else if (typeof helm.values === 'string') {
    inline = parseEmbedded(doc, [...base, 'helm', 'values'], helm.values, problems);
    if (inline) parts.push(stringPart(doc, [...base, 'helm', 'values'], inline));
  } else if (isPlainObject(helm.values)) {
    inline = helm.values;
    parts.push(mapPart(doc, [...base, 'helm', 'values'], inline));
  }
  if (inline) Object.assign(values, inline);
  const parameters = Array.isArray(helm.parameters) ? helm.parameters : [];
  applySets(
    doc,
    values,
    parameters.flatMap((parameter, index) =>
      isPlainObject(parameter) && typeof parameter.name === 'string'
        ? [
            {
              expression: `${parameter.name}=${argoSetValue(String(parameter.value ?? ''))}`,
              forceString: parameter.forceString === true,
              path: [...base, 'helm', 'parameters', index],
            },
          ]
        : [],
    ),
    problems,
    parts,
  );
  if (Array.isArray(helm.fileParameters) && helm.fileParameters.length > 0) {
    warnings.push({
      ...at(doc, [...base, 'helm', 'fileParameters']),
      message: 'name files in a repository, which are not read',
      hint: fileParametersHint(helm.fileParameters),
    });
  }
  const revision = str(match.source.targetRevision);
  const chartVersion =
    revision && typeof match.source.chart === 'string'
      ? { text: revision, origin: `${doc.label} ${[...base, 'targetRevision'].join('.')}`, position: at(doc, [...base, 'targetRevision']) }
      : undefined;
  return { doc, values, parts, chartVersion };
}

/**
 * The chart a HelmRelease installs (spec.chart, or the object spec.chartRef names when it is in the
 * files) and its version; undefined when that is not the cluster-api-operator chart.
 */
function helmReleaseChart(doc: Doc, docs: readonly Doc[]): Pick<Release, 'chartVersion' | 'versionWarning'> | undefined {
  const chart = str(valueAt(doc.value, ['spec', 'chart', 'spec', 'chart']));
  const chartRef = valueAt(doc.value, ['spec', 'chartRef']);
  const { namespace } = metadataOf(doc.value);
  let chartVersion: ChartVersionRequest | undefined;
  let versionWarning: Diagnostic | undefined;
  if (chart !== undefined) {
    if (!isOperatorChart(chart)) return undefined;
    const version = str(valueAt(doc.value, ['spec', 'chart', 'spec', 'version']));
    if (version !== undefined)
      chartVersion = {
        text: version,
        origin: `${doc.label} spec.chart.spec.version`,
        position: at(doc, ['spec', 'chart', 'spec', 'version']),
      };
  } else if (isPlainObject(chartRef)) {
    // spec.chartRef: an OCIRepository (or HelmChart) object; read it when it is in the files.
    const target = docs.find(
      (other) =>
        other.value.kind === chartRef.kind &&
        metadataOf(other.value).name === chartRef.name &&
        (metadataOf(other.value).namespace ?? namespace) === (str(chartRef.namespace) ?? namespace),
    );
    const url = target ? (str(valueAt(target.value, ['spec', 'url'])) ?? str(valueAt(target.value, ['spec', 'chart']))) : undefined;
    if (url !== undefined && !isOperatorChart(url)) return undefined;
    if (target && url !== undefined) {
      const tag =
        str(valueAt(target.value, ['spec', 'ref', 'tag'])) ??
        str(valueAt(target.value, ['spec', 'ref', 'semver'])) ??
        str(valueAt(target.value, ['spec', 'version']));
      const field =
        valueAt(target.value, ['spec', 'ref', 'tag']) !== undefined
          ? ['spec', 'ref', 'tag']
          : valueAt(target.value, ['spec', 'ref', 'semver']) !== undefined
            ? ['spec', 'ref', 'semver']
            : ['spec', 'version'];
      if (tag !== undefined) chartVersion = { text: tag, origin: `${target.label} ${field.join('.')}`, position: at(target, field) };
      else
        // A digest pins bytes, not a version: the chart's templates (which version) are not known.
        versionWarning = {
          ...at(target, valueAt(target.value, ['spec', 'ref']) !== undefined ? ['spec', 'ref'] : ['spec']),
          message: `names no chart version (${target.value.kind === 'HelmChart' ? 'spec.version' : 'spec.ref.tag or spec.ref.semver'}), so the newest chart's templates are followed`,
          hint: 'pass the chart version it holds: --chart-version <version>, e.g. --chart-version 0.23.0',
        };
    } else if (
      !namesProvider(isPlainObject(valueAt(doc.value, ['spec', 'values'])) ? (valueAt(doc.value, ['spec', 'values']) as Values) : {})
    ) {
      return undefined;
    } else {
      versionWarning = {
        ...at(doc, ['spec', 'chartRef']),
        message: `names ${str(chartRef.kind) ?? 'an object'} ${str(chartRef.name) ?? ''}, which is not in the files given; its values are read as the cluster-api-operator chart's, and the chart version (in that object) is not known`,
        hint: `pass the file that holds ${str(chartRef.kind) ?? 'it'} ${str(chartRef.name) ?? ''} with another -f, or the chart version with --chart-version <version>`,
      };
    }
  } else {
    return undefined;
  }
  return { chartVersion, versionWarning };
}

/** The values of a HelmRelease's valuesFrom references, merged in order (see helmReleaseRelease). */
function valuesFromReferences(
  doc: Doc,
  docs: readonly Doc[],
  problems: Diagnostic[],
  warnings: Diagnostic[],
): { values: Values; parts: Part[]; secretValues: SecretValue[] } {
  const { namespace } = metadataOf(doc.value);
  let values: Values = {};
  const parts: Part[] = [];
  const secretValues: SecretValue[] = [];
  const refs = valueAt(doc.value, ['spec', 'valuesFrom']);
  (Array.isArray(refs) ? refs : []).forEach((ref, index) => {
    if (!isPlainObject(ref)) return;
    const path: FieldPath = ['spec', 'valuesFrom', index];
    const kind = str(ref.kind);
    const name = str(ref.name) ?? '';
    const key = str(ref.valuesKey) || 'values.yaml';
    const optional = ref.optional === true;
    // A HelmRelease without a namespace takes its Kustomization's: match the reference by name then.
    const found = docs.find(
      (other) =>
        other.value.kind === kind &&
        group(other.value.apiVersion) === '' &&
        metadataOf(other.value).name === name &&
        (namespace === undefined || (metadataOf(other.value).namespace ?? namespace) === namespace),
    );
    const missing = (what: string) => {
      if (optional) {
        warnings.push({ ...at(doc, path), message: `${what}; it is optional, so Flux skips it, and so does this import` });
        return;
      }
      problems.push({
        ...at(doc, path),
        message: what,
        expected: `the ${kind ?? 'ConfigMap or Secret'} ${namespace ? `${namespace}/` : ''}${name} with key "${key}" in one of the -f files`,
        hint: `pass the file that holds it with another -f, or mark the reference optional: true`,
      });
    };
    if (kind !== 'ConfigMap' && kind !== 'Secret') {
      problems.push({
        ...at(doc, [...path, 'kind']),
        message: `valuesFrom kind ${JSON.stringify(ref.kind)}`,
        expected: 'ConfigMap or Secret',
        hint: 'Flux reads values from ConfigMaps and Secrets only',
      });
      return;
    }
    if (!found) return missing(`${kind} ${namespace ? `${namespace}/` : ''}${name} is not in the files given`);
    let text: string | undefined;
    if (kind === 'ConfigMap') text = str(valueAt(found.value, ['data', key]));
    else {
      const stringData = str(valueAt(found.value, ['stringData', key]));
      const encoded = str(valueAt(found.value, ['data', key]));
      text = stringData ?? (encoded !== undefined ? decodeBase64(encoded)?.toString('utf8') : undefined);
    }
    if (text === undefined) return missing(`${found.label} has no key "${key}"`);
    const targetPath = str(ref.targetPath);
    if (targetPath) {
      // internal/chartutil/values.go ReplacePathValue: a quoted value is set as a string, without its quotes.
      const quoted = /^'.*'$|^".*"$/s.test(text);
      const value = quoted ? text.replace(/^['"]+|['"]+$/g, '') : text;
      if (kind === 'Secret') secretValues.push({ path: targetPath, value, from: { ...at(doc, path), message: '', secret: found.label } });
      applySets(
        doc,
        values,
        [{ expression: `${targetPath}=${value}`, forceString: quoted, path: [...path, 'targetPath'] }],
        problems,
        parts,
        kind === 'Secret',
      );
      return;
    }
    const field = kind === 'Secret' && str(valueAt(found.value, ['stringData', key])) !== undefined ? 'stringData' : 'data';
    const parsed = parseEmbedded(found, [field, key], text, problems, kind === 'Secret');
    if (parsed) {
      if (kind === 'Secret')
        for (const [leaf, value] of stringLeaves(parsed, ''))
          secretValues.push({ path: leaf, value, from: { ...at(doc, path), message: '', secret: found.label } });
      values = mergeUserValues(values, parsed);
      parts.push(stringPart(found, [field, key], parsed));
    }
  });
  return { values, parts, secretValues };
}

/**
 * A Flux HelmRelease's values (fluxcd/helm-controller internal/chartutil/values.go
 * ChartValuesFromReferences): each valuesFrom reference in order, a whole YAML document merged
 * in or, with targetPath, one value set there as `--set` would (quoted: as --set-string), then
 * spec.values merged over the result. References are looked up in the HelmRelease's namespace
 * among the ConfigMaps and Secrets of the files given.
 */
function helmReleaseRelease(doc: Doc, docs: readonly Doc[], problems: Diagnostic[], warnings: Diagnostic[]): Release | undefined {
  const chart = helmReleaseChart(doc, docs);
  if (!chart) return undefined;
  const { values: referenced, parts, secretValues } = valuesFromReferences(doc, docs, problems, warnings);
  const inline = mapField(doc, ['spec', 'values'], problems);
  if (inline) parts.push(mapPart(doc, ['spec', 'values'], inline));
  const values = inline ? mergeUserValues(referenced, inline) : referenced;
  for (const field of ['valuesFiles', 'valuesFile']) {
    if (valueAt(doc.value, ['spec', 'chart', 'spec', field]) !== undefined)
      warnings.push({
        ...at(doc, ['spec', 'chart', 'spec', field]),
        message: "names files inside the chart's source, which are not read",
        hint: 'pass them with -f before this file',
      });
  }
  return { doc, values, parts, ...chart, secretValues };
}

/** Every string in values, with its dotted path. */
function stringLeaves(value: unknown, prefix: string): [string, string][] {
  if (typeof value === 'string') return [[prefix, value]];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringLeaves(item, `${prefix}[${index}]`));
  if (!isPlainObject(value)) return [];
  return Object.keys(value).flatMap((key) => stringLeaves((value as Record<string, unknown>)[key], prefix ? `${prefix}.${key}` : key));
}

/**
 * A k3s/RKE2 HelmChart's values (k3s-io/helm-controller pkg/controllers/chart/chart.go):
 * spec.valuesContent (values-01_HelmChart.yaml), the valuesContent of a HelmChartConfig of the
 * same namespace and name over it (values-10_HelmChartConfig.yaml), then spec.set, each key in
 * sorted order, as --set when it is a number, true, false or null and as --set-string otherwise.
 */
function helmChartRelease(doc: Doc, docs: readonly Doc[], problems: Diagnostic[], warnings: Diagnostic[]): Release | undefined {
  const chart = str(valueAt(doc.value, ['spec', 'chart']));
  if (chart === undefined || !isOperatorChart(chart)) return undefined;
  const { name, namespace } = metadataOf(doc.value);
  let values: Values = {};
  const parts: Part[] = [];
  const content = valueAt(doc.value, ['spec', 'valuesContent']);
  if (typeof content === 'string') values = parseEmbedded(doc, ['spec', 'valuesContent'], content, problems) ?? {};
  parts.push(stringPart(doc, ['spec', 'valuesContent'], values));
  const config = docs.find(
    (other) =>
      other.value.kind === 'HelmChartConfig' &&
      group(other.value.apiVersion) === 'helm.cattle.io' &&
      metadataOf(other.value).name === name &&
      metadataOf(other.value).namespace === namespace,
  );
  const overlay = config ? valueAt(config.value, ['spec', 'valuesContent']) : undefined;
  if (config && typeof overlay === 'string') {
    const parsed = parseEmbedded(config, ['spec', 'valuesContent'], overlay, problems);
    if (parsed) {
      values = mergeUserValues(values, parsed);
      parts.push(stringPart(config, ['spec', 'valuesContent'], parsed));
    }
  }
  const set = valueAt(doc.value, ['spec', 'set']);
  if (isPlainObject(set)) {
    const keys = Object.keys(set).sort();
    applySets(
      doc,
      values,
      keys.map((key) => {
        const value = set[key];
        const typed = typeof value === 'number' || ['true', 'false', 'null'].includes(String(value).toLowerCase());
        const text = typed
          ? String(value)
          : String(value ?? '').replace(/(\\*),/g, (match, slashes: string) => (slashes.length % 2 === 1 ? match : `${slashes}\\,`));
        return { expression: `${key}=${text}`, forceString: !typed, path: ['spec', 'set', key] };
      }),
      problems,
      parts,
    );
  }
  if (valueAt(doc.value, ['spec', 'valuesSecrets']) !== undefined)
    warnings.push({ ...at(doc, ['spec', 'valuesSecrets']), message: 'are not read', hint: 'pass their values with -f after this file' });
  const version = str(valueAt(doc.value, ['spec', 'version'])) ?? versionInArchive(chart);
  const field: FieldPath = valueAt(doc.value, ['spec', 'version']) !== undefined ? ['spec', 'version'] : ['spec', 'chart'];
  const chartVersion =
    version !== undefined ? { text: version, origin: `${doc.label} ${field.join('.')}`, position: at(doc, field) } : undefined;
  return { doc, values, parts, chartVersion };
}

function releaseOf(doc: Doc, docs: readonly Doc[], problems: Diagnostic[], warnings: Diagnostic[]): Release | undefined {
  const kind = doc.value.kind;
  const apiGroup = group(doc.value.apiVersion);
  if (kind === 'Application' && apiGroup === 'argoproj.io') return applicationRelease(doc, problems, warnings);
  if (kind === 'HelmRelease' && apiGroup === 'helm.toolkit.fluxcd.io') return helmReleaseRelease(doc, docs, problems, warnings);
  if (kind === 'HelmChart' && apiGroup === 'helm.cattle.io') return helmChartRelease(doc, docs, problems, warnings);
  return undefined;
}

/** What a document that installs a chart names, for the message when none is cluster-api-operator's. */
function chartNamed(doc: Doc): string | undefined {
  const value = doc.value;
  return (
    str(valueAt(value, ['spec', 'source', 'chart'])) ??
    str(valueAt(value, ['spec', 'chart', 'spec', 'chart'])) ??
    (doc.value.kind === 'HelmChart' ? str(valueAt(value, ['spec', 'chart'])) : undefined)
  );
}

/**
 * Reads `-f` files (a directory: its *.yaml files): each a plain values file, or objects among which
 * one Application, HelmRelease or HelmChart installs the cluster-api-operator chart. Every problem
 * in one error.
 */
export async function readHelmValuesFiles(files: readonly string[]): Promise<HelmValuesSources> {
  const problems: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  // a directory (a Flux or Argo CD folder) is its *.yaml files in sorted order, as -f reads it elsewhere
  const listed = files.length > 0 ? await listManifestFiles(files, problems) : [];
  const contents = await readManifestFiles(listed, problems);
  const budget = new YamlBudget();
  const perFile: { file: string; docs: Doc[]; plain?: Values; position?: Diagnostic; locate?: ValuesLocator }[] = [];
  for (const { file, text } of contents) {
    try {
      budget.check(text, file);
    } catch (error) {
      if (!(error instanceof CapiGitopsError)) throw error;
      problems.push(...error.diagnostics);
      continue;
    }
    // a plain values file takes a key given twice as Helm does, the last; an object refuses it, as before
    const parsed = parseManifestFile(file, text, { repeatedKeys: 'keep' });
    problems.push(...parsed.syntaxErrors);
    const docs: Doc[] = [];
    let plain: Values | undefined;
    let plainAt: Diagnostic | undefined;
    let locate: ValuesLocator | undefined;
    for (const source of parsed.documents) {
      let value: unknown;
      try {
        value = documentValue(source);
      } catch (error) {
        if (!(error instanceof YamlValueError) && !(error instanceof RangeError)) throw error;
        problems.push({ ...nodePosition(source, null), message: `invalid YAML: ${error.message}`, expected: 'YAML that converts to JSON' });
        problems.push(...(source.repeatedKeyProblems ?? []));
        continue;
      }
      if (value === null || value === undefined) continue;
      const position = { ...nodePosition(source, source.doc.contents as YamlNode | null), message: '' };
      const plainValues =
        parsed.documents.length === 1 && isPlainObject(value) && !(typeof value.apiVersion === 'string' && typeof value.kind === 'string');
      if (!plainValues && source.repeatedKeyProblems) {
        problems.push(...source.repeatedKeyProblems);
        continue;
      }
      if (isPlainObject(value) && typeof value.apiVersion === 'string' && typeof value.kind === 'string') {
        const objects = objectDocs(source, value, budget, warnings);
        // kubectl prints an empty List when nothing matched: no values to import, never exit 0 with nothing
        if (objects.length === 0)
          problems.push({
            ...position,
            message: 'a List without objects',
            expected: 'the object that installs the cluster-api-operator chart (and what it reads), or the chart’s values',
            hint: 'export the release again from the namespace that holds it (kubectl get <kind> -n <namespace> -o yaml)',
          });
        docs.push(...objects);
      } else if (parsed.documents.length === 1 && isPlainObject(value)) {
        plain = value;
        plainAt = position;
        warnings.push(...repeatedKeyWarnings(source));
        locate = (path, at = 'key') => fieldPosition(source, source.doc.contents as YamlNode | null, path, at);
      } else {
        problems.push({
          ...position,
          message: isPlainObject(value) ? 'a document without apiVersion and kind among several' : 'is not a map of chart values',
          expected: 'a YAML map of the chart’s values, or Kubernetes objects (an Argo CD Application, a Flux HelmRelease, a HelmChart)',
          hint: isPlainObject(value)
            ? 'a values file holds one document; objects each name apiVersion and kind'
            : 'write the values as `key: value` lines',
        });
      }
    }
    perFile.push({ file, docs, plain, position: plainAt, locate });
  }
  const allDocs = perFile.flatMap((entry) => entry.docs);
  const layers: HelmValuesSources['layers'] = [];
  const releases: Release[] = [];
  const noRelease: typeof perFile = [];
  for (const entry of perFile) {
    if (entry.plain !== undefined) {
      if (!namesProvider(entry.plain) && looksLikeObject(entry.plain)) {
        problems.push({
          ...entry.position,
          message: `names no provider, and its top-level keys (${Object.keys(entry.plain).join(', ')}) are those of a Kubernetes object, not of the chart's values`,
          expected:
            'the cluster-api-operator chart’s values (core, bootstrap, controlPlane, infrastructure, ipam, addon, configSecret, …), or an object that carries them',
          hint: 'give the values file itself, or an Argo CD Application, Flux HelmRelease or k3s HelmChart with apiVersion and kind',
        });
        continue;
      }
      layers.push({ source: entry.file, values: entry.plain, locate: entry.locate });
      continue;
    }
    if (entry.docs.length === 0) {
      layers.push({ source: entry.file, values: {} });
      continue;
    }
    const found = entry.docs.flatMap((doc) => {
      const release = releaseOf(doc, allDocs, problems, warnings);
      return release ? [release] : [];
    });
    releases.push(...found);
    for (const release of found)
      layers.push({ source: `${entry.file} (${release.doc.label})`, values: release.values, locate: locatorOf(release.parts) });
    if (found.length === 0) noRelease.push(entry);
  }
  // A file without a release may hold what a release reads (its ConfigMaps, its chart's source).
  for (const entry of noRelease) {
    // Flux's source HelmChart (a chartRef's target) supports a release; k3s' HelmChart installs one.
    const supports = (doc: Doc) =>
      SUPPORTING_KINDS.includes(String(doc.value.kind)) ||
      (doc.value.kind === 'HelmChart' && group(doc.value.apiVersion) === 'source.toolkit.fluxcd.io');
    if (releases.length > 0 && entry.docs.every(supports)) continue;
    const installs = entry.docs.filter((doc) => ['Application', 'HelmRelease', 'HelmChart'].includes(String(doc.value.kind)));
    const listed = entry.docs.map((doc) => {
      const chart = chartNamed(doc);
      return chart ? `${doc.label} (chart ${chart})` : doc.label;
    });
    problems.push({
      ...nodePosition(entry.docs[0]!.source, entry.docs[0]!.root),
      message: `names no provider: it holds Kubernetes objects (${listed.join(', ')}), none of which installs the ${CHART_NAME} chart`,
      expected: `the chart's values, or an Argo CD Application, Flux HelmRelease or k3s HelmChart of the ${CHART_NAME} chart`,
      hint:
        installs.length > 0
          ? `point -f at the object that installs ${CHART_NAME} (its chart field names it)`
          : 'give the values file itself, or the GitOps object that installs the chart',
    });
  }
  if (releases.length > 1) {
    problems.push({
      ...at(releases[1]!.doc, ['metadata', 'name']),
      message: `${releases.length} releases of the ${CHART_NAME} chart: ${releases.map((r) => r.doc.label).join(', ')}`,
      expected: 'one release per import: each installs its own providers',
      hint: `import each release on its own, from a file that holds only it (one document, not a List), e.g. ${exportCommand(releases[0]!.doc)} (with -f for the ConfigMaps and Secrets its valuesFrom names)`,
    });
  }
  if (problems.length > 0) throw new CapiGitopsError(sortDiagnostics(problems));
  for (const release of releases) {
    if (!namesProvider(release.values))
      warnings.push({ ...at(release.doc, []), message: 'its values name no provider, so the chart installs none' });
  }
  return {
    layers,
    chartVersion: releases[0]?.chartVersion,
    warnings,
    chartVersionWarnings: releases.flatMap((release) => release.versionWarning ?? []),
    secretValues: releases.flatMap((release) => release.secretValues ?? []),
  };
}
