/**
 * `capi-gitops import helm-values`: the provider objects the cluster-api-operator Helm chart
 * (kubernetes-sigs/cluster-api-operator hack/charts/cluster-api-operator) would install for the
 * given values, as a capi-gitops manifest. Follows the chart's templates: core.yaml, bootstrap.yaml,
 * control-plane.yaml, infra.yaml, ipam.yaml, addon.yaml (map form, charts from v0.19), their
 * string form up to v0.18 (`infrastructure=docker:v1.4.2`, `ns:name:version;…`), and the implicit
 * providers of core-conditions.yaml and infra-conditions.yaml. Namespace objects, Helm hook and
 * Argo CD sync-wave annotations are left out: capi-gitops renders namespaces and orders the sync.
 * Which values a chart version reads, and how, is the table in helm-chart-versions.ts: the given
 * chart version's rules are followed, the newest chart's without one.
 */
import semverGt from 'semver/functions/gt.js';
import semverLt from 'semver/functions/lt.js';
import { CapiGitopsError, compareStrings, sortDiagnostics, type Diagnostic } from '../core/diagnostics.js';
import { isPlainObject } from '../core/kobject.js';
import { OPERATOR_API_VERSION, type ProviderKind } from '../core/provider.js';
import { hasPath, type Values } from '../core/values.js';
import { userValues, type SetExpression } from '../core/helm-set.js';
import { ownValue, setOwnValue } from '../core/own-keys.js';
import { resolvePlainScalar } from '../yaml/scalar.js';
import { emitYamlDocument } from '../yaml/emit.js';
import { closestName } from './fields.js';
import type { SecretValue, ValuesLocator } from './helm-values-sources.js';
import type { FieldPath } from './yaml-source.js';
import {
  CHART_DEPLOYMENT_VALUES,
  chartRule,
  chartRules,
  convertedTopLevelValues,
  NEWEST_CHART,
  resolveChartVersion,
  versionSpan,
  type ChartProviderType,
  type ChartValuePath,
  type ChartVersionRequest,
} from './helm-chart-versions.js';

export interface HelmValuesInput {
  /** Values files already read, in order (later wins). */
  layers: { source: string; values: Values; locate?: ValuesLocator }[];
  /** `--set` / `--set-string`, in command-line order. */
  sets: SetExpression[];
  /** The chart version whose templates to follow (`--chart-version`, or the GitOps object's); absent: the newest. */
  chartVersion?: ChartVersionRequest;
  /** Values read from Secrets: one the output holds is named in `secretsWritten`, since the output goes to Git. */
  secretValues?: readonly SecretValue[];
}

export interface ImportedManifest {
  text: string;
  /** Keys the chart ignores, and forms read the old way; each at its file:line:column when a file holds it. */
  warnings: Diagnostic[];
  /** Each Secret's value the text holds, at the entry that read it (never the value): refused unless the user allows it. */
  secretsWritten: Diagnostic[];
}

/**
 * A Secret's value the manifest now holds in plain text (a credential in a fetchConfig URL):
 * Flux kept it in a Secret, the printed manifest is meant for Git. Names are not secrets, and a
 * value shorter than 6 characters would be found anywhere. One problem per valuesFrom entry,
 * naming each of its values written: the fix (the Secret, or --allow-secret-values) is the same.
 */
function secretsInOutput(secretValues: readonly SecretValue[], body: string, objects: readonly unknown[]): Diagnostic[] {
  // a value of several lines (additionalManifests.manifests) is re-indented as a block scalar, so
  // the text alone misses it: each string the objects hold is searched too
  const strings = objects.flatMap(stringsIn);
  const entries = new Map<string, { from: SecretValue['from']; paths: string[] }>();
  for (const { path, value, from } of secretValues) {
    if (value.length < 6 || /(^|\.)(name|namespace)$/.test(path)) continue;
    if (!body.includes(value) && !strings.some((text) => text.includes(value))) continue;
    const key = [from.file, from.line, from.column, from.secret].join('\0');
    const entry = entries.get(key) ?? entries.set(key, { from, paths: [] }).get(key)!;
    if (!entry.paths.includes(path)) entry.paths.push(path);
  }
  return [...entries.values()].map(({ from, paths }) => ({
    ...from,
    message:
      paths.length === 1
        ? `the value ${paths[0]} of ${from.secret} is written into the manifest in plain text, and the manifest is meant for Git`
        : `the values ${paths.slice(0, -1).join(', ')} and ${paths.at(-1)} of ${from.secret} are written into the manifest in plain text, and the manifest is meant for Git`,
    hint: "keep credentials out of chart values: put them in the Secret a provider's configSecret names, which the operator reads in the cluster",
  }));
}

/** Every string an object holds, map keys included. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (isPlainObject(value)) return Object.entries(value).flatMap(([key, item]) => [key, ...stringsIn(item)]);
  return [];
}

/** Warnings, each placed where the last layer that sets its value path wrote it. */
class Warnings {
  readonly items: Diagnostic[] = [];
  constructor(private readonly layers: HelmValuesInput['layers']) {}
  push(message: string, path?: FieldPath, advice?: Pick<Diagnostic, 'expected' | 'hint'>): void {
    this.items.push({ ...(path && this.at(path)), message, ...advice });
  }
  /** Where the last layer that sets `path` wrote it (its key, or its value), when a file holds it. */
  at(path: FieldPath, at: 'key' | 'value' = 'key'): Pick<Diagnostic, 'file' | 'line' | 'column'> | undefined {
    return this.layers.findLast((candidate) => hasPath(candidate.values, path))?.locate?.(path, at);
  }
}

/** The chart's provider maps: values key, kind, default-namespace suffix (the chart's words). */
const PROVIDER_TYPES: { key: ChartProviderType; kind: ProviderKind; suffix: string }[] = [
  { key: 'core', kind: 'CoreProvider', suffix: '' },
  { key: 'bootstrap', kind: 'BootstrapProvider', suffix: 'bootstrap-system' },
  { key: 'controlPlane', kind: 'ControlPlaneProvider', suffix: 'control-plane-system' },
  { key: 'infrastructure', kind: 'InfrastructureProvider', suffix: 'infrastructure-system' },
  { key: 'ipam', kind: 'IPAMProvider', suffix: 'ipam-system' },
  { key: 'addon', kind: 'AddonProvider', suffix: 'addon-system' },
];

/** A provider's keys and the rule (helm-chart-versions.ts) by which a chart reads each. */
const PROVIDER_KEYS: Record<string, ChartValuePath> = {
  namespace: '<type>.<name>.namespace',
  version: '<type>.<name>.version',
  manager: '<type>.<name>.manager',
  deployment: '<type>.<name>.deployment',
  configSecret: '<type>.<name>.configSecret',
  createNamespace: '<type>.<name>.createNamespace',
  manifestPatches: '<type>.<name>.manifestPatches',
  fetchConfig: '<type>.<name>.fetchConfig',
  additionalManifests: '<type>.<name>.additionalManifests',
  patches: 'infrastructure.<name>.patches',
};

/** The first chart of the map form: a provider key read by every map-form chart needs no version warning. */
const MAP_FORM_SINCE = 'v0.19.0';
const STRING_FORM: ChartValuePath = '<type>: "[namespace:]name[:version];…"';

const HEADER = `# Provider objects equivalent to these cluster-api-operator Helm chart values, written by
# capi-gitops import helm-values (following hack/charts/cluster-api-operator/templates).
# Left out on purpose: the chart's Namespace objects (capi-gitops renders each provider's
# namespace), its helm.sh/hook and argocd.argoproj.io/sync-wave annotations (capi-gitops'
# own Argo CD or Flux wiring orders the components), and the operator's own Deployment.
`;

/** Go template truthiness: false, 0, "", nil and empty maps and lists are false. */
function truthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isPlainObject(value)) return Object.keys(value).length > 0;
  return true;
}

/** `{{ $v }}` in a template, read back by YAML: Go prints the value, the YAML parser types it. */
function interpolated(value: unknown): unknown {
  return resolvePlainScalar(String(value));
}

function sortedKeys(map: Record<string, unknown>): string[] {
  return Object.keys(map).sort(compareStrings);
}

function readValues(input: HelmValuesInput): Values {
  return userValues(input.layers, input.sets, (expression) => ({
    expected: 'key=value pairs: a.b=c, list[0]=x, list={a,b}',
    hint: /^[A-Za-z]+=[^,]*,/.test(expression)
      ? `the comma splits --set pairs, so "${expression}" cannot name two providers (as the operator README's --set infrastructure=docker,azure suggests); ${severalProvidersFlag(expression, input.chartVersion)}`
      : 'one pair per --set, e.g. --set infrastructure.docker.version=v1.7.7',
  }));
}

/**
 * `<type>=a,b` as the chart followed reads several providers: the string form `a;b` up to v0.18.1,
 * else one empty map per provider (a map entry installs it; the newest chart is followed by default).
 */
function severalProvidersFlag(expression: string, chartVersion: ChartVersionRequest | undefined): string {
  const [type, list] = [expression.slice(0, expression.indexOf('=')), expression.slice(expression.indexOf('=') + 1)];
  const names = list.split(',').filter((name) => name !== '');
  const resolved = chartVersion ? resolveChartVersion(chartVersion) : undefined;
  if (resolved && 'version' in resolved && semverLt(resolved.version, MAP_FORM_SINCE))
    return `chart ${resolved.version} reads them as one string, ";" between them, in quotes: --set '${type}=${names.join(';')}'`;
  const map = Object.fromEntries(names.map((name) => [name, {}]));
  return `charts from ${MAP_FORM_SINCE} read one map entry per provider: --set-json '${type}=${JSON.stringify(map)}'`;
}

/** How the run reads the values: the chart version followed, and whether the user named it. */
interface Reading {
  version: string;
  /** No chart version was given: warn, naming --chart-version, about values older charts read differently. */
  assumed: boolean;
  values: Values;
  warnings: Warnings;
  problems: Diagnostic[];
  /** Provider keys that only newer charts read, for the one warning of an assumed version. */
  newerOnly: string[];
  /** Top-level manager.featureGates keys some provider took. */
  gatesUsed: Set<string>;
  /** Top-level fetchConfig keys some provider took. */
  fetchUsed: Set<string>;
}

function rulesText(value: ChartValuePath, type: ChartProviderType): string {
  return chartRules(value, type)
    .map((rule) => `${versionSpan(rule)}: ${rule.template}`)
    .join('; ');
}

/** The value's form: the string of charts up to v0.18.1, the map of v0.19.0 on, or nothing (`""`, `{}`, null). */
function formOf(value: unknown): 'string' | 'map' | 'none' | 'other' {
  if (value === undefined || value === null || value === '') return 'none';
  if (typeof value === 'string') return 'string';
  if (isPlainObject(value)) return Object.keys(value).length === 0 ? 'none' : 'map';
  return 'other';
}

/**
 * The string form of charts up to v0.18.1 (templates/infra.yaml:3 there): `;`-separated entries
 * of `name`, `name:version` or `namespace:name:version`, read into the map form. The templates
 * range over Sprig's `split` map (keys `_0`, `_1`, … in Go's sorted order) and assign the version
 * to a variable declared before the range, which a bare `name` entry does not reset: it keeps the
 * version of the entry before it. That is read only with `bled` (told of each such entry); without
 * it, as the hint that rewrites the value for a map-form chart reads it, each entry stands alone.
 */
function fromStringForm(
  key: string,
  text: string,
  problems: Diagnostic[],
  place?: Pick<Diagnostic, 'file' | 'line' | 'column'>,
  bled?: (name: string, version: string, from: string) => void,
): Record<string, Record<string, unknown>> {
  const map: Record<string, Record<string, unknown>> = {};
  const split = key === 'core' ? [text] : text.split(';');
  const entries = split
    .map((_, i) => `_${i}`)
    .sort(compareStrings)
    .map((index) => split[Number(index.slice(1))]!);
  let last: { version: string; entry: string } | undefined;
  for (const entry of entries) {
    // the template prints each part unquoted (name: {{ $infrastructureName }}), and YAML reads a
    // plain scalar without its surrounding spaces: "docker:v1; azure:v2" installs azure
    const parts = entry.split(':').map((part) => part.trim());
    if (parts.length > 3 || parts.some((part) => part === '')) {
      problems.push({
        ...place,
        path: key,
        message: `${key}=${JSON.stringify(text)}: "${entry}" is not name, name:version or namespace:name:version`,
        expected: `e.g. ${key}=docker:v1.4.2, or ${key}="capd-custom-ns:docker:v1.4.2;capz-custom-ns:azure:v1.10.0"`,
        hint: `or the map form of chart v0.19.0 and later: --set ${key}.docker.version=v1.4.2`,
      });
      continue;
    }
    const [namespace, name, given] = parts.length === 3 ? parts : [undefined, parts[0], parts[1]];
    let version = given;
    if (version !== undefined) last = { version, entry };
    else if (last !== undefined && bled !== undefined) {
      version = last.version;
      bled(name!, version, last.entry);
    }
    const provider: Record<string, unknown> = {};
    if (namespace !== undefined) provider.namespace = namespace;
    if (version !== undefined) provider.version = version;
    setOwnValue(map, name!, provider);
  }
  return map;
}

/**
 * The chart version to follow: the one given, else the newest, except that values in the string
 * form are read as the last chart that reads it (v0.18.1): the newest fails on them.
 */
function chooseVersion(
  input: HelmValuesInput,
  values: Values,
  warnings: Warnings,
  problems: Diagnostic[],
): { version: string; assumed: boolean } {
  if (input.chartVersion) {
    const resolved = resolveChartVersion(input.chartVersion);
    if ('message' in resolved) {
      problems.push(resolved);
      return { version: NEWEST_CHART, assumed: false };
    }
    if (resolved.note) warnings.items.push(resolved.note);
    return { version: resolved.version, assumed: false };
  }
  const strings = PROVIDER_TYPES.filter((type) => formOf(values[type.key]) === 'string');
  if (strings.length === 0) return { version: NEWEST_CHART, assumed: true };
  const last = chartRules(STRING_FORM, 'infrastructure')[0]!;
  for (const type of strings) {
    warnings.push(
      `${type.key}=${JSON.stringify(values[type.key])} is the string form, which charts ${versionSpan(last)} read (${last.template}); ` +
        `from ${MAP_FORM_SINCE} the chart reads a map (${type.key}.<name>.version) and fails on a string. ` +
        `Read as chart ${last.until} reads it; pass --chart-version <the chart version you install> to follow that version's templates`,
    );
  }
  return { version: last.until!, assumed: true };
}

/** The map form of a string-form value, as a file writes it or as --set flags. */
function mapFormOf(key: string, text: string, inFile: boolean): string {
  const providers = Object.entries(fromStringForm(key, text, []));
  const fields = (p: Record<string, unknown>) => Object.entries(p).map(([k, v]) => [k, String(v)]);
  if (inFile)
    return `${key}: {${providers
      .map(
        ([name, p]) =>
          `${name}: {${fields(p)
            .map(([k, v]) => `${k}: ${v}`)
            .join(', ')}}`,
      )
      .join(', ')}}`;
  // a provider without a version is an empty map, which --set cannot write
  const flags = providers.flatMap(([name, p]) =>
    fields(p).length > 0 ? fields(p).map(([k, v]) => `--set ${key}.${name}.${k}=${v}`) : [`--set-json '${key}.${name}={}'`],
  );
  return flags.join(' ') || `--set ${key}.<name>.version=…`;
}

/** Each provider map in its map form; a form the chart version cannot read is a problem (Helm fails to render it). */
function providerMaps(reading: Reading): Record<ChartProviderType, Record<string, Record<string, unknown>>> {
  const { values, version, problems, warnings } = reading;
  const maps = {} as Record<ChartProviderType, Record<string, Record<string, unknown>>>;
  for (const type of PROVIDER_TYPES) {
    maps[type.key] = {};
    const value = values[type.key];
    const form = formOf(value);
    if (form === 'none') continue;
    if (form === 'other') {
      problems.push({
        ...warnings.at([type.key]),
        path: type.key,
        message: `${type.key} is ${JSON.stringify(value)}`,
        expected: `a map of providers by name (${type.key}.<name>.version=…), or the string form name:version of charts up to v0.18.1`,
        hint: `e.g. --set ${type.key}.docker.version=v1.7.7`,
      });
      continue;
    }
    const stringRule = chartRule(STRING_FORM, type.key, version);
    const mapRule = chartRule('<type>.<name>', type.key, version);
    if (!stringRule && !mapRule) {
      warnings.push(`${type.key} is ignored by chart ${version}: ${type.kind}s are read ${rulesText(STRING_FORM, type.key)}`);
      continue;
    }
    if (!(form === 'string' ? stringRule : mapRule)) {
      const place = warnings.at([type.key]);
      problems.push({
        ...place,
        path: type.key,
        message:
          form === 'string'
            ? `${type.key} is the string form ${JSON.stringify(value)}, which chart ${version} cannot read: it ranges over a map (${mapRule!.template})`
            : `${type.key} is a map, which chart ${version} cannot read: it splits a string (${stringRule!.template})`,
        expected:
          form === 'string'
            ? `${type.key}.<name>.version: …, as charts from ${MAP_FORM_SINCE} read`
            : `${type.key}: "[namespace:]name[:version];…", as charts up to v0.18.1 read`,
        hint:
          form === 'string'
            ? `write it as a map: ${mapFormOf(type.key, value as string, place !== undefined)}, or pass the chart version you install with --chart-version`
            : `write ${type.key}: "<name>:<version>", or pass the chart version you install with --chart-version`,
      });
      continue;
    }
    maps[type.key] =
      form === 'string'
        ? fromStringForm(type.key, value as string, problems, warnings.at([type.key]), (name, bledVersion, from) =>
            warnings.push(
              `${type.key}: "${name}" names no version, so chart ${version} installs ${bledVersion}, the version of "${from}" before it: ` +
                `the template keeps its version variable across the ";" entries (${stringRule!.template})`,
              [type.key],
              { hint: `give "${name}" its own version (${name}:<version>), or put it before the entries that name one` },
            ),
          )
        : (value as Record<string, Record<string, unknown>>);
  }
  return maps;
}

interface ProviderDocument {
  kind: ProviderKind;
  name: string;
  namespace: string;
  spec?: Record<string, unknown>;
}

/**
 * The configSecret helper (_helpers.tpl capi-operator.configSecret, v0.24.0), field by field:
 * `default (($arg).configSecret).name (($.Values).configSecret).name` is Sprig's `default DEFAULT
 * GIVEN`, so the top-level field wins when set and the provider's own is only its fallback.
 */
function configSecret(reading: Reading, own: { at: FieldPath; value: unknown } | undefined): Record<string, unknown> | undefined {
  const mine = own && isPlainObject(own.value) ? own.value : {};
  const global = isPlainObject(reading.values.configSecret) ? reading.values.configSecret : {};
  const field = (key: string) => {
    if (own && !truthy(global[key])) return { at: [...own.at, key], value: mine[key] };
    if (own && truthy(mine[key]) && interpolated(mine[key]) !== interpolated(global[key])) {
      reading.warnings.push(
        `${own.at.join('.')}.${key} is ignored by the chart: the top-level configSecret.${key} (${JSON.stringify(global[key])}) wins ` +
          `(templates/_helpers.tpl capi-operator.configSecret: default (($arg).configSecret).${key} (($.Values).configSecret).${key})`,
        [...own.at, key],
        { hint: `remove configSecret.${key} from the top level to give each provider its own Secret` },
      );
    }
    return { at: ['configSecret', key], value: global[key] };
  };
  const name = field('name');
  if (!truthy(name.value)) return undefined;
  const result: Record<string, unknown> = { name: secretField(reading, name.at, name.value) };
  const namespace = field('namespace');
  if (truthy(namespace.value)) result.namespace = secretField(reading, namespace.at, namespace.value);
  return result;
}

/** The one chart that prints additionalDeployments with its own "recursivePrinter", not toYaml. */
const RECURSIVE_PRINTER_CHART = 'v0.12.0';

/**
 * additionalDeployments as chart v0.12.0 prints it (templates/infra.yaml:1-10 there, define
 * "recursivePrinter"): a map key by key, any other value as `{{ $key }}: {{ $value }}`, so a
 * scalar is re-typed by YAML ("4" becomes 4) and a list comes out in Go's %v form (`[map[…]]`),
 * which is no YAML: Helm fails to render it, so it is refused at its line (once per list).
 */
function recursivelyPrinted(reading: Reading, at: FieldPath, value: unknown): unknown {
  if (isPlainObject(value)) {
    const printed: Record<string, unknown> = {};
    for (const key of Object.keys(value)) setOwnValue(printed, key, recursivelyPrinted(reading, [...at, key], ownValue(value, key)));
    return printed;
  }
  if (Array.isArray(value)) {
    reading.problems.push({
      ...reading.warnings.at(at),
      path: at.join('.'),
      message:
        `is a list, which chart ${RECURSIVE_PRINTER_CHART} prints in Go's form ([map[…]]), not YAML, so Helm fails to render it ` +
        `(templates/infra.yaml:1 at ${RECURSIVE_PRINTER_CHART}, define "recursivePrinter")`,
      expected: 'maps and scalars only, under additionalDeployments of this chart',
      hint: 'pass the chart version you install with --chart-version; from v0.13.0 the chart prints additionalDeployments with toYaml',
    });
    return value;
  }
  return interpolated(value);
}

/**
 * A configSecret field as the chart prints it, unquoted (`name: {{ … }}`): YAML reads `true`, `2024`
 * or nothing as a boolean, a number or null, which the API server refuses for a Secret's name or
 * namespace (strings; name required). Refused at the value (once), so no such object is written.
 */
function secretField(reading: Reading, at: FieldPath, raw: unknown): unknown {
  if (goTextRefused(reading, at, raw, `a Secret's ${String(at.at(-1))}`)) return raw;
  const printed = interpolated(raw ?? '');
  if (typeof printed === 'string') return printed;
  const dotted = at.join('.');
  if (reading.problems.some((p) => p.path === dotted)) return printed;
  const field = at.at(-1)!;
  const parent = at.slice(0, -1);
  const place = raw === undefined ? reading.warnings.at(parent) : reading.warnings.at(at, 'value');
  const type = printed === null ? 'null' : typeof printed === 'boolean' ? 'a boolean' : 'a number';
  const file = place?.file ? ` from ${place.file}` : '';
  const refused = `the API server refuses it (a Secret's ${field} is a string${field === 'name' ? ', and required' : ''})`;
  reading.problems.push({
    ...place,
    path: dotted,
    message:
      raw === undefined
        ? `not set while configSecret is: the chart still writes configSecret for the providers it adds (core-conditions.yaml, ` +
          `infra-conditions.yaml) with an empty name:, which YAML reads as null, and ${refused}`
        : `${JSON.stringify(raw)}, which the chart prints unquoted (templates/_helpers.tpl capi-operator.configSecret, ` +
          `core-conditions.yaml, infra-conditions.yaml): the provider gets configSecret.${field}: ${String(printed)}, ${type}, and ${refused}`,
    expected: `the ${field} of the Secret holding the provider's variables, which YAML reads as a string (not true, false, a number or null)`,
    hint:
      field === 'name'
        ? `remove ${parent.join('.')}${file} (a provider whose variables need no Secret has no configSecret), or set ${dotted} to the Secret's name`
        : `remove ${dotted}${file} (the Secret is then looked up in the provider's namespace), or set it to the Secret's namespace`,
  });
  return printed;
}

/** `{{ range $k, $v := … }}{{ $k }}: {{ $v }}`: a gate map as the template prints it; anything else fails to render. */
function gateMap(
  gates: unknown,
  path: string,
  version: string,
  problems: Diagnostic[],
  place?: Pick<Diagnostic, 'file' | 'line' | 'column'>,
): Record<string, unknown> | undefined {
  if (!truthy(gates)) return undefined;
  if (!isPlainObject(gates)) {
    problems.push({
      ...place,
      path,
      message: `${path} is ${JSON.stringify(gates)}; chart ${version} ranges over it as a map of gates and fails to render`,
      expected: 'a map of feature gate names to true or false, e.g. {ClusterTopology: true}',
      hint: `write ${path}.ClusterTopology=true, one gate per key`,
    });
    return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const gate of sortedKeys(gates)) {
    const value = gates[gate];
    // the template prints `{{ $k }}: {{ $v }}`: a map or list comes out as Go text, no true or false
    if (isPlainObject(value) || Array.isArray(value)) {
      const lifted = gatesOneLevelDown(gate, value);
      problems.push({
        ...place,
        path: `${path}.${gate}`,
        message: `is a ${Array.isArray(value) ? 'list' : 'map'}, which chart ${version} prints as Go text (${gate}: ${goShape(value)}), not a gate's true or false`,
        expected: 'true or false',
        hint: lifted
          ? `write its gates one level up: ${lifted.map((g) => `${path}.${g}`).join(', ')}`
          : `write ${path}.${gate}=true (or false)`,
      });
      continue;
    }
    out[gate] = interpolated(value);
  }
  return out;
}

/**
 * A gate whose value is itself a map of gates (`core: {ClusterTopology: true}`, the nesting of the
 * top-level manager.featureGates before chart v0.25.0, written under a provider): those gates as
 * `Name=value`, to be written where the map is; undefined for any other shape.
 */
function gatesOneLevelDown(key: string, value: unknown): string[] | undefined {
  // gate names are UpperCamelCase (component-base featuregate); `core`, `kubeadm` name providers
  if (!/^[a-z]/.test(key) || !isPlainObject(value)) return undefined;
  const gates = sortedKeys(value).map((name) => [name, value[name]] as const);
  if (gates.length === 0 || !gates.every(([, v]) => typeof v === 'boolean' || v === 'true' || v === 'false')) return undefined;
  return gates.map(([name, v]) => `${name}=${String(v)}`);
}

/** The top-level `manager.featureGates` map, when the values have one. */
function topLevelGates(values: Values): Record<string, unknown> | undefined {
  const manager = isPlainObject(values.manager) ? values.manager : undefined;
  return manager && isPlainObject(manager.featureGates) ? manager.featureGates : undefined;
}

/** Warnings for the provider's keys: never read, or not read by this chart version. */
function checkProviderKeys(reading: Reading, type: (typeof PROVIDER_TYPES)[number], name: string, provider: Record<string, unknown>): void {
  const label = `${type.key}.${name}`;
  for (const key of sortedKeys(provider)) {
    const at = [type.key, name, key];
    if (key === 'enabled') {
      reading.warnings.push(`${label}.enabled is ignored by the chart: a provider is installed whenever ${label} is set`, at);
      continue;
    }
    const path = PROVIDER_KEYS[key];
    const rules = path ? chartRules(path, type.key) : [];
    if (rules.length === 0) {
      reading.warnings.push(`${label}.${key} is ignored by the chart's ${type.key} template`, at);
      continue;
    }
    const rule = chartRule(path!, type.key, reading.version);
    if (!rule)
      reading.warnings.push(`${label}.${key} is ignored by chart ${reading.version}; it is read ${rulesText(path!, type.key)}`, at);
    else if (reading.assumed && semverGt(rule.since, MAP_FORM_SINCE)) reading.newerOnly.push(`${label}.${key} (from ${rule.since})`);
  }
}

function providerDocument(
  reading: Reading,
  type: (typeof PROVIDER_TYPES)[number],
  name: string,
  provider: Record<string, unknown>,
  fromString: boolean,
  extra: Record<string, unknown>[],
): ProviderDocument {
  const { values, version, warnings } = reading;
  const reads = (path: ChartValuePath) => chartRule(path, type.key, version);
  const label = `${type.key}.${name}`;
  if (!fromString) checkProviderKeys(reading, type, name, provider);
  goTextRefused(reading, [type.key, name, 'version'], provider.version, 'a version, e.g. v1.10.4');
  goTextRefused(reading, [type.key, name, 'namespace'], provider.namespace, 'a namespace, e.g. capi-system');
  const namespace = truthy(provider.namespace)
    ? String(provider.namespace)
    : type.key === 'core'
      ? 'capi-system'
      : `${name}-${type.suffix}`;
  const globalSecret = isPlainObject(values.configSecret) ? values.configSecret : {};
  const ownSecret = isPlainObject(provider.configSecret) ? provider.configSecret : {};
  const additionalDeployments =
    reads('additionalDeployments') && truthy(values.additionalDeployments)
      ? version === RECURSIVE_PRINTER_CHART
        ? recursivelyPrinted(reading, ['additionalDeployments'], values.additionalDeployments)
        : values.additionalDeployments
      : undefined;
  const ownManager = reads('<type>.<name>.manager') && truthy(provider.manager) ? provider.manager : undefined;
  const deployment = reads('<type>.<name>.deployment') && truthy(provider.deployment) ? provider.deployment : undefined;
  const hasSpec =
    truthy(provider.version) ||
    (reads('configSecret') !== undefined && truthy(globalSecret.name)) ||
    (reads('secretName') !== undefined && truthy(values.secretName)) ||
    (reads('manager') !== undefined && truthy(values.manager)) ||
    additionalDeployments !== undefined ||
    (reads('<type>.<name>.configSecret') !== undefined && truthy(ownSecret.name)) ||
    ownManager !== undefined ||
    deployment !== undefined;
  const spec: Record<string, unknown> = {};
  if (truthy(provider.version)) spec.version = interpolated(provider.version);
  if (deployment !== undefined) spec.deployment = deployment;
  const manager = managerOf(reading, type, name, label, ownManager);
  if (manager) spec.manager = manager;
  const fetchRule = reads('fetchConfig.<name>');
  const globalFetch = fetchRule && isPlainObject(values.fetchConfig) ? values.fetchConfig[name] : undefined;
  if (isPlainObject(globalFetch)) {
    reading.fetchUsed.add(name);
    const fetch: Record<string, unknown> = {};
    for (const key of sortedKeys(globalFetch)) {
      const value = ownValue(globalFetch, key);
      if (isPlainObject(value) || Array.isArray(value)) reading.problems.push(fetchFieldNotScalar(reading, type.key, name, key, value));
      else setOwnValue(fetch, key, interpolated(value));
    }
    spec.fetchConfig = fetch;
  }
  const own = { at: [type.key, name, 'configSecret'], value: provider.configSecret };
  const secret = reads('<type>.<name>.configSecret')
    ? configSecret(reading, own)
    : reads('configSecret')
      ? configSecret(reading, undefined)
      : undefined;
  if (secret) spec.configSecret = secret;
  if (type.key === 'addon' && truthy(values.secretName)) {
    warnings.push(
      `secretName: every chart writes it into the AddonProvider as spec.secretName, a v1alpha1 field the v1alpha2 API server drops (${chartRules('secretName')[0]!.template}); it is left out: set configSecret.name (read for addons from chart v0.24.0)`,
    );
  }
  if (additionalDeployments !== undefined) spec.additionalDeployments = additionalDeployments;
  if (reads('<type>.<name>.manifestPatches') && truthy(provider.manifestPatches)) spec.manifestPatches = provider.manifestPatches;
  if (reads('infrastructure.<name>.patches') && truthy(provider.patches)) spec.patches = provider.patches;
  if (reads('<type>.<name>.fetchConfig') && truthy(provider.fetchConfig)) {
    if (spec.fetchConfig !== undefined) {
      warnings.push(
        `${label}: fetchConfig.${name} and ${label}.fetchConfig are both set; the chart writes fetchConfig twice, and the second (${label}.fetchConfig) wins`,
      );
    }
    spec.fetchConfig = provider.fetchConfig;
  }
  const additional = isPlainObject(provider.additionalManifests) ? provider.additionalManifests : undefined;
  if (reads('<type>.<name>.additionalManifests') && additional && truthy(provider.additionalManifests)) {
    for (const key of ['name', 'namespace'])
      goTextRefused(reading, [type.key, name, 'additionalManifests', key], additional[key], `a ConfigMap's ${key}`);
    spec.additionalManifests = {
      name: interpolated(additional.name),
      ...(truthy(additional.namespace) ? { namespace: interpolated(additional.namespace) } : {}),
    };
    extra.push({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: String(additional.name), namespace: truthy(additional.namespace) ? String(additional.namespace) : namespace },
      data: { manifests: typeof additional.manifests === 'string' ? additional.manifests : emitYamlDocument(additional.manifests ?? null) },
    });
  }
  if (!hasSpec && Object.keys(spec).length > 0) {
    warnings.push(
      `${label}: chart ${version} writes ${Object.keys(spec).join(', ')} without a spec: line (it adds spec: only with a version, configSecret, manager or deployment), so the operator never sees them; they are left out too`,
    );
    return { kind: type.kind, name, namespace };
  }
  return { kind: type.kind, name, namespace, spec: hasSpec ? spec : undefined };
}

/**
 * A value the chart prints as one scalar (`version: {{ $v }}`, a namespace, a configSecret or
 * additionalManifests field): a map or a list comes out as Go text (`map[…]`, `[…]`), no value the
 * API server or the operator reads. Refused at its value (once); true when it was.
 */
function goTextRefused(reading: Reading, at: FieldPath, value: unknown, expected: string): boolean {
  if (!isPlainObject(value) && !Array.isArray(value)) return false;
  const dotted = at.join('.');
  if (reading.problems.some((p) => p.path === dotted)) return true;
  const field = String(at.at(-1));
  reading.problems.push({
    ...reading.warnings.at(at, 'value'),
    path: dotted,
    message: `is a ${Array.isArray(value) ? 'list' : 'map'}, which chart ${reading.version} prints as Go text (${field}: ${goShape(value)}), not one value`,
    expected,
    hint: `write ${dotted} as one value (a string), not a ${Array.isArray(value) ? 'list' : 'map'}`,
  });
  return true;
}

/** The shape Go's text/template prints a map or list in (`map[k:…]`, `[…]`), keys only: a value may come from a Secret. */
function goShape(value: unknown): string {
  return isPlainObject(value)
    ? `map[${sortedKeys(value)
        .map((key) => `${key}:…`)
        .join(' ')}]`
    : '[…]';
}

/**
 * A map or list under the top-level fetchConfig.<name>: the template prints each field as
 * `{{ $k }}: {{ $v }}`, so a selector comes out as Go text (map[matchLabels:map[…]]), a string
 * where the CRD wants an object: the API server refuses it. Only <type>.<name>.fetchConfig
 * (toYaml, from v0.24.0) writes a selector.
 */
function fetchFieldNotScalar(reading: Reading, type: ChartProviderType, name: string, key: string, value: unknown): Diagnostic {
  const at = ['fetchConfig', name, key];
  const perProvider = chartRule('<type>.<name>.fetchConfig', type, reading.version);
  return {
    ...reading.warnings.at(at),
    path: at.join('.'),
    message:
      `is a ${Array.isArray(value) ? 'list' : 'map'}, which chart ${reading.version} prints as Go text (${key}: ${goShape(value)}), ` +
      `a string where the provider's fetchConfig.${key} is an object, so the API server refuses it (${chartRule('fetchConfig.<name>', type, reading.version)!.template}: {{ $k }}: {{ $v }})`,
    expected: 'scalars only under the top-level fetchConfig.<name>, e.g. url',
    hint: perProvider
      ? `move it to ${type}.${name}.fetchConfig.${key}, which chart ${reading.version} writes as YAML (${perProvider.template})`
      : `chart ${reading.version} writes no ${key} from its values; ${type}.${name}.fetchConfig.${key} is written as YAML from chart v0.24.0 (pass that --chart-version if you install it)`,
  };
}

/**
 * spec.manager: the provider's own `manager` (charts from v0.25.0: featureGates and metrics), or
 * the top-level `manager.featureGates.core` / `.<name>` (charts v0.10.0 to v0.24.1).
 */
function managerOf(
  reading: Reading,
  type: (typeof PROVIDER_TYPES)[number],
  name: string,
  label: string,
  own: unknown,
): Record<string, unknown> | undefined {
  const { version, warnings, problems } = reading;
  const out: Record<string, unknown> = {};
  if (own !== undefined) {
    const manager = isPlainObject(own) ? own : {};
    const at = [type.key, name, 'manager'];
    if (type.key === 'addon' && manager.featureGates !== undefined) {
      warnings.push(`${label}.manager.featureGates is ignored by the chart: its addon template writes manager.metrics only`, [
        ...at,
        'featureGates',
      ]);
    } else {
      const gates = gateMap(manager.featureGates, `${label}.manager.featureGates`, version, problems, warnings.at([...at, 'featureGates']));
      if (gates) out.featureGates = gates;
    }
    const metrics = isPlainObject(manager.metrics) ? manager.metrics : undefined;
    if (metrics && truthy(manager.metrics)) {
      const m: Record<string, unknown> = {};
      const insecure = [...at, 'metrics', 'insecureDiagnostics'];
      if (!goTextRefused(reading, insecure, metrics.insecureDiagnostics, 'true or false') && truthy(metrics.insecureDiagnostics))
        m.insecureDiagnostics = interpolated(metrics.insecureDiagnostics);
      if (truthy(metrics.diagnosticsAddress)) m.diagnosticsAddress = metrics.diagnosticsAddress;
      if (Object.keys(m).length > 0) out.metrics = m;
    }
    for (const key of sortedKeys(manager)) {
      if (key !== 'featureGates' && key !== 'metrics')
        warnings.push(`${label}.manager.${key} is ignored by the chart (it writes manager.featureGates and manager.metrics only)`, [
          ...at,
          key,
        ]);
    }
  } else {
    const key = type.key === 'core' ? 'core' : name;
    const rule = chartRule(type.key === 'core' ? 'manager.featureGates.core' : 'manager.featureGates.<name>', type.key, version);
    const gates = topLevelGates(reading.values);
    if (rule && gates && Object.hasOwn(gates, key)) {
      reading.gatesUsed.add(key);
      const map = gateMap(gates[key], `manager.featureGates.${key}`, version, problems, reading.warnings.at([...GATES, key]));
      if (map) out.featureGates = map;
    }
  }
  // `manager:` with nothing under it reads as null, which the API server drops.
  return Object.keys(out).length > 0 ? out : undefined;
}

/** core-conditions.yaml and infra-conditions.yaml: providers the chart adds on its own, with the global configSecret only. */
function implicitProviders(reading: Reading, maps: Record<ChartProviderType, Record<string, unknown>>): ProviderDocument[] {
  const { values, version } = reading;
  const some = (key: ChartProviderType) => Object.keys(maps[key]).length > 0;
  const anyOther = (['addon', 'bootstrap', 'controlPlane', 'infrastructure', 'ipam'] as const).some(some);
  const addsCore = anyOther && !some('core');
  const addsBootstrap = some('infrastructure') && !some('bootstrap');
  const addsControlPlane = some('infrastructure') && !some('controlPlane');
  const secret = isPlainObject(values.configSecret) && truthy(values.configSecret) ? values.configSecret : undefined;
  // read (and refused when the chart would print it badly) only when the chart adds a provider to print it into
  const secretSpec =
    secret && (addsCore || addsBootstrap || addsControlPlane)
      ? {
          configSecret: {
            name: secretField(reading, ['configSecret', 'name'], secret.name),
            ...(truthy(secret.namespace) ? { namespace: secretField(reading, ['configSecret', 'namespace'], secret.namespace) } : {}),
          },
        }
      : undefined;
  const found: ProviderDocument[] = [];
  if (addsCore) found.push({ kind: 'CoreProvider', name: 'cluster-api', namespace: 'capi-system', spec: secretSpec });
  if (some('infrastructure')) {
    if (addsBootstrap)
      found.push({ kind: 'BootstrapProvider', name: 'kubeadm', namespace: 'capi-kubeadm-bootstrap-system', spec: secretSpec });
    if (addsControlPlane) {
      // The kubeadm control plane takes manager.featureGates.kubeadm only inside `with .Values.configSecret`.
      const gates = topLevelGates(values);
      const kubeadm =
        secretSpec && chartRule('manager.featureGates.kubeadm', 'controlPlane', version) && gates && Object.hasOwn(gates, 'kubeadm')
          ? gateMap(gates.kubeadm, 'manager.featureGates.kubeadm', version, reading.problems, reading.warnings.at([...GATES, 'kubeadm']))
          : undefined;
      if (kubeadm) reading.gatesUsed.add('kubeadm');
      const spec = kubeadm ? { manager: { featureGates: kubeadm }, ...secretSpec } : secretSpec;
      found.push({ kind: 'ControlPlaneProvider', name: 'kubeadm', namespace: 'capi-kubeadm-control-plane-system', spec });
    }
  }
  return found;
}

const GATES = ['manager', 'featureGates'];

/** Where each top-level gate key went, or why it went nowhere. */
function checkTopLevelGates(reading: Reading, maps: Record<ChartProviderType, Record<string, unknown>>): void {
  const manager = isPlainObject(reading.values.manager) ? reading.values.manager : undefined;
  for (const key of sortedKeys(manager ?? {})) {
    if (key !== 'featureGates')
      reading.warnings.push(
        `manager.${key} (top level) is ignored by every chart: charts v0.10.0 to v0.24.1 read manager.featureGates only`,
        ['manager', key],
      );
  }
  if (!manager || manager.featureGates === undefined || manager.featureGates === null) return;
  const gates = topLevelGates(reading.values);
  const removed = chartRules('manager.featureGates.<name>', 'infrastructure')[0]!;
  const readByVersion = chartRule('manager.featureGates.<name>', 'infrastructure', reading.version) !== undefined;
  if (!readByVersion) {
    const targets = gates ? gateTargets(gates, maps, reading.values) : [];
    const would = targets.length > 0 ? ` (here: ${targets.join(', ')})` : '';
    reading.warnings.push(
      `manager.featureGates (top level) is read by charts ${versionSpan(removed)}, which copy manager.featureGates.core into the CoreProvider and ` +
        `manager.featureGates.<name> into the infrastructure, control-plane (from v0.15.0) and IPAM (from v0.17.0) providers of that name${would}; ` +
        `chart ${reading.version} ignores it, so it is left out. ` +
        (reading.assumed
          ? `These values are read as the newest chart (${reading.version}) reads them: if you install an older chart, pass --chart-version <its version>; otherwise move the gates to <type>.<name>.manager.featureGates`
          : `Move the gates to <type>.<name>.manager.featureGates`),
      GATES,
    );
    return;
  }
  if (!gates) {
    reading.warnings.push(
      `manager.featureGates is ${JSON.stringify(manager.featureGates)}; chart ${reading.version} reads a map of provider names to gate maps`,
      GATES,
    );
    return;
  }
  for (const key of sortedKeys(gates)) {
    if (reading.gatesUsed.has(key)) continue;
    const why =
      key === 'core'
        ? 'the chart writes it only into the CoreProvider of `core`, and the CoreProvider it adds on its own (core-conditions.yaml) gets none'
        : key === 'kubeadm'
          ? 'no control-plane, infrastructure or IPAM provider is named kubeadm, and the kubeadm control plane the chart adds takes it only when configSecret is set (infra-conditions.yaml)'
          : `no infrastructure, control-plane or IPAM provider of chart ${reading.version} is named ${key} (bootstrap and addon providers never take top-level gates)`;
    reading.warnings.push(`manager.featureGates.${key} is ignored: ${why}`, [...GATES, key]);
  }
  if (reading.assumed && reading.gatesUsed.size > 0) {
    reading.warnings.push(
      `manager.featureGates (top level) is read as chart ${reading.version} reads it (${removed.template}); charts from v0.25.0 ignore it: pass --chart-version <the chart version you install> to follow that version`,
      GATES,
    );
  }
}

/** Which providers a chart from v0.10.0 to v0.24.1 would give the top-level gates. */
function gateTargets(gates: Record<string, unknown>, maps: Record<ChartProviderType, Record<string, unknown>>, values: Values): string[] {
  const targets: string[] = [];
  if (Object.hasOwn(gates, 'core')) for (const name of sortedKeys(maps.core)) targets.push(`CoreProvider ${name}`);
  for (const [type, kind] of [
    ['infrastructure', 'InfrastructureProvider'],
    ['controlPlane', 'ControlPlaneProvider'],
    ['ipam', 'IPAMProvider'],
  ] as const) {
    for (const name of sortedKeys(maps[type])) if (Object.hasOwn(gates, name)) targets.push(`${kind} ${name}`);
  }
  const implicitKubeadm = Object.keys(maps.infrastructure).length > 0 && Object.keys(maps.controlPlane).length === 0;
  if (Object.hasOwn(gates, 'kubeadm') && implicitKubeadm && truthy(values.configSecret)) targets.push('ControlPlaneProvider kubeadm');
  return targets;
}

/** Top-level fetchConfig keys no provider took: the chart drops them unsaid, and the operator fetches from the default URL. */
function checkTopLevelFetchConfig(reading: Reading, maps: Record<ChartProviderType, Record<string, unknown>>): void {
  const fetchConfig = isPlainObject(reading.values.fetchConfig) ? reading.values.fetchConfig : {};
  const readers = PROVIDER_TYPES.filter((type) => chartRule('fetchConfig.<name>', type.key, reading.version));
  const names = readers.map((type) => (type.key === 'ipam' ? 'IPAM' : type.key));
  for (const key of sortedKeys(fetchConfig)) {
    if (reading.fetchUsed.has(key)) continue;
    const at = ['fetchConfig', key];
    if (readers.length === 0) {
      reading.warnings.push(
        `fetchConfig.${key} is ignored by chart ${reading.version}: the top-level fetchConfig is read ${rulesText('fetchConfig.<name>', 'infrastructure')}`,
        at,
      );
      continue;
    }
    const other = PROVIDER_TYPES.find((type) => !readers.includes(type) && Object.hasOwn(maps[type.key], key));
    if (other) {
      reading.warnings.push(
        `fetchConfig.${key} is ignored: only ${names.join(' and ')} providers take the top-level fetchConfig, not the ${other.kind} ${key}; ` +
          `${other.key}.${key}.fetchConfig is read ${rulesText('<type>.<name>.fetchConfig', other.key)}`,
        at,
      );
      continue;
    }
    const candidates = readers.flatMap((type) => Object.keys(maps[type.key]));
    const guess = closestName(key, candidates);
    reading.warnings.push(`fetchConfig.${key} is ignored: no ${names.join(' or ')} provider is named ${key}`, at, {
      hint: guess ? `did you mean fetchConfig.${guess}?` : `name the provider it is for: fetchConfig.<${names[0]} provider name>`,
    });
  }
}

/** Top-level keys no chart reads: most likely a typo of one it does, which Helm ignores without a word. */
function checkTopLevelKeys(values: Values, warnings: Warnings): void {
  const known = [...convertedTopLevelValues(), ...CHART_DEPLOYMENT_VALUES];
  for (const key of sortedKeys(values)) {
    if (known.includes(key)) continue;
    const guess = closestName(key, known);
    warnings.push(`${key} is not a value of the cluster-api-operator chart, which ignores it`, [key], {
      expected: `a value the chart reads: ${convertedTopLevelValues().join(', ')}, or one of its Deployment's (image, resources, …)`,
      hint: guess ? `did you mean "${guess}"?` : 'remove it, or fix its name',
    });
  }
}

/** The chart's values (files, then --set) as a capi-gitops manifest. */
export function importHelmValues(input: HelmValuesInput): ImportedManifest {
  const values = readValues(input);
  const warnings = new Warnings(input.layers);
  const problems: Diagnostic[] = [];
  const { version, assumed } = chooseVersion(input, values, warnings, problems);
  if (problems.length > 0) throw new CapiGitopsError(sortDiagnostics(problems));
  checkTopLevelKeys(values, warnings);
  const reading: Reading = { version, assumed, values, warnings, problems, newerOnly: [], gatesUsed: new Set(), fetchUsed: new Set() };
  const maps = providerMaps(reading);
  if (problems.length > 0) throw new CapiGitopsError(sortDiagnostics(problems));
  const stringForm = new Set(PROVIDER_TYPES.filter((type) => typeof values[type.key] === 'string').map((type) => type.key));
  const documents: ProviderDocument[] = [];
  const extra: Record<string, unknown>[] = [];
  for (const type of PROVIDER_TYPES) {
    const map = maps[type.key];
    for (const name of sortedKeys(map)) {
      const entry = ownValue(map, name);
      const provider = isPlainObject(entry) ? entry : {};
      documents.push(providerDocument(reading, type, name, provider, stringForm.has(type.key), extra));
    }
  }
  const implicit = implicitProviders(reading, maps);
  checkTopLevelGates(reading, maps);
  checkTopLevelFetchConfig(reading, maps);
  // only the addon template reads secretName: without an addon, a migration would lose it unsaid
  if (truthy(values.secretName) && Object.keys(maps.addon).length === 0)
    warnings.push(
      `secretName is ignored by the chart: only its addon template reads it (${chartRules('secretName')[0]!.template}), and these values name no addon provider`,
      ['secretName'],
      {
        hint: "a provider's config Secret is configSecret.name (every provider) or <type>.<name>.configSecret.name (chart v0.24.0 and later)",
      },
    );
  if (problems.length > 0) throw new CapiGitopsError(sortDiagnostics(problems));
  if (assumed && reading.newerOnly.length > 0) {
    warnings.push(
      `read as the newest chart (${version}) reads them; older charts ignore ${reading.newerOnly.join(', ')}: if you install an older chart, pass --chart-version <its version>`,
    );
  }
  const order = PROVIDER_TYPES.map((type) => type.kind);
  const all = [...implicit, ...documents].sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
  const objects: Record<string, unknown>[] = all.map((doc) => ({
    apiVersion: OPERATOR_API_VERSION,
    kind: doc.kind,
    metadata: { name: doc.name, namespace: doc.namespace },
    ...(doc.spec ? { spec: doc.spec } : {}),
  }));
  objects.push(...extra);
  const body = objects.map((object) => emitYamlDocument(object)).join('---\n');
  // a chart newer than the rules know is read as the newest they do (helm-chart-versions.ts resolveChartVersion)
  const newer = semverGt(version, NEWEST_CHART);
  const given = assumed ? ' (no --chart-version given)' : newer ? ` (chart ${version} is newer than the charts capi-gitops knows)` : '';
  const header = `${HEADER}# Read as chart ${newer ? NEWEST_CHART : version} of cluster-api-operator reads them${given}.\n`;
  return {
    text: objects.length === 0 ? `${header}# The values name no provider: the chart installs none.\n` : `${header}---\n${body}`,
    warnings: warnings.items,
    secretsWritten: secretsInOutput(input.secretValues ?? [], body, objects),
  };
}
