/**
 * `capi-gitops import helm-values`: the provider objects the cluster-api-operator Helm chart
 * (kubernetes-sigs/cluster-api-operator hack/charts/cluster-api-operator) would install for the
 * given values, as a capi-gitops manifest. Follows the chart's templates: core.yaml, bootstrap.yaml,
 * control-plane.yaml, infra.yaml, ipam.yaml, addon.yaml (map form, charts from v0.19), their
 * string form up to v0.18 (`infrastructure=docker:v1.4.2`, `ns:name:version;…`), and the implicit
 * providers of core-conditions.yaml and infra-conditions.yaml. Namespace objects, Helm hook and
 * Argo CD sync-wave annotations are left out: capi-gitops renders namespaces and orders the sync.
 */
import { CapiGitopsError, compareStrings, type Diagnostic } from '../core/diagnostics.js';
import { isPlainObject } from '../core/kobject.js';
import { OPERATOR_API_VERSION, type ProviderKind } from '../core/provider.js';
import type { Values } from '../core/values.js';
import { userValues, type SetValueKind } from '../core/helm-set.js';
import { ownValue, setOwnValue } from '../core/own-keys.js';
import { resolvePlainScalar } from '../yaml/scalar.js';
import { emitYamlDocument } from '../yaml/emit.js';

export interface HelmValuesInput {
  /** Values files already read, in order (later wins). */
  layers: { source: string; values: Values }[];
  /** `--set` / `--set-string`, in command-line order. */
  sets: { expression: string; forceString: boolean; kind?: SetValueKind }[];
}

export interface ImportedManifest {
  text: string;
  /** Keys the chart ignores, and forms read the old way. */
  warnings: string[];
}

/** The chart's provider maps: values key, kind, default-namespace suffix (the chart's words). */
const PROVIDER_TYPES: { key: string; kind: ProviderKind; suffix: string }[] = [
  { key: 'core', kind: 'CoreProvider', suffix: '' },
  { key: 'bootstrap', kind: 'BootstrapProvider', suffix: 'bootstrap-system' },
  { key: 'controlPlane', kind: 'ControlPlaneProvider', suffix: 'control-plane-system' },
  { key: 'infrastructure', kind: 'InfrastructureProvider', suffix: 'infrastructure-system' },
  { key: 'ipam', kind: 'IPAMProvider', suffix: 'ipam-system' },
  { key: 'addon', kind: 'AddonProvider', suffix: 'addon-system' },
];

/** Per-provider keys each template reads; the infrastructure template reads two more. */
const PROVIDER_KEYS = [
  'namespace',
  'version',
  'manager',
  'deployment',
  'configSecret',
  'createNamespace',
  'manifestPatches',
  'fetchConfig',
  'additionalManifests',
];
const INFRA_ONLY_KEYS = ['patches'];

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
  if (typeof value === 'string') return resolvePlainScalar(value);
  return value;
}

function sortedKeys(map: Record<string, unknown>): string[] {
  return Object.keys(map).sort(compareStrings);
}

function readValues(input: HelmValuesInput): Values {
  return userValues(input.layers, input.sets, (expression) => ({
    expected: 'key=value pairs: a.b=c, list[0]=x, list={a,b}',
    hint: /^[A-Za-z]+=[^,]*,/.test(expression)
      ? `the comma splits --set pairs, so "${expression}" cannot name two providers (as the operator README's --set infrastructure=docker,azure suggests); use ";" in quotes: --set 'infrastructure=docker;azure', or one --set per provider: --set infrastructure.docker.enabled=true --set infrastructure.azure.enabled=true`
      : 'one pair per --set, e.g. --set infrastructure.docker.version=v1.7.7',
  }));
}

/**
 * The string form of charts up to v0.18 (templates/infra.yaml there): `;`-separated entries of
 * `name`, `name:version` or `namespace:name:version`, read into the map form; the v0.18
 * `manager.featureGates.<name>` and `fetchConfig.<name>` maps follow the provider.
 */
function fromStringForm(key: string, text: string, values: Values, warnings: string[], problems: Diagnostic[]): Record<string, unknown> {
  const map: Record<string, unknown> = {};
  const entries = key === 'core' ? [text] : text.split(';');
  for (const entry of entries) {
    const parts = entry.split(':');
    if (parts.length > 3 || parts.some((part) => part === '')) {
      problems.push({
        path: key,
        message: `${key}=${JSON.stringify(text)}: "${entry}" is not name, name:version or namespace:name:version`,
        expected: `e.g. ${key}=docker:v1.4.2, or ${key}="capd-custom-ns:docker:v1.4.2;capz-custom-ns:azure:v1.10.0"`,
        hint: `or the map form of chart v0.19 and later: --set ${key}.docker.version=v1.4.2`,
      });
      continue;
    }
    const [namespace, name, version] = parts.length === 3 ? parts : [undefined, parts[0], parts[1]];
    const provider: Record<string, unknown> = {};
    if (namespace !== undefined) provider.namespace = namespace;
    if (version !== undefined) provider.version = version;
    const manager = isPlainObject(values.manager) ? values.manager : {};
    const gates = isPlainObject(manager.featureGates) ? ownValue(manager.featureGates, name) : undefined;
    if (isPlainObject(gates)) provider.manager = { featureGates: gates };
    setOwnValue(map, name, provider);
  }
  warnings.push(
    `${key}=${JSON.stringify(text)} is the string form of charts up to v0.18; read as the map form: ${sortedKeys(map)
      .map((name) => `${key}.${name}`)
      .join(', ')}`,
  );
  return map;
}

interface ProviderDocument {
  kind: ProviderKind;
  name: string;
  namespace: string;
  spec?: Record<string, unknown>;
}

/** The configSecret helper (_helpers.tpl capi-operator.configSecret): the provider's own, else the global one. */
function configSecret(own: unknown, global: Record<string, unknown>): Record<string, unknown> | undefined {
  const mine = isPlainObject(own) ? own : {};
  const name = truthy(mine.name) ? mine.name : global.name;
  if (!truthy(name)) return undefined;
  const namespace = truthy(mine.namespace) ? mine.namespace : global.namespace;
  const result: Record<string, unknown> = { name: interpolated(String(name)) };
  if (truthy(namespace)) result.namespace = interpolated(String(namespace));
  return result;
}

function providerDocument(
  type: (typeof PROVIDER_TYPES)[number],
  name: string,
  provider: Record<string, unknown>,
  values: Values,
  warnings: string[],
  extra: Record<string, unknown>[],
): ProviderDocument {
  const isInfra = type.key === 'infrastructure';
  const label = `${type.key}.${name}`;
  for (const key of sortedKeys(provider)) {
    if (key === 'enabled') warnings.push(`${label}.enabled is ignored by the chart: a provider is installed whenever ${label} is set`);
    else if (!PROVIDER_KEYS.includes(key) && !(isInfra && INFRA_ONLY_KEYS.includes(key)))
      warnings.push(`${label}.${key} is ignored by the chart's ${type.key} template`);
  }
  const namespace = truthy(provider.namespace)
    ? String(provider.namespace)
    : type.key === 'core'
      ? 'capi-system'
      : `${name}-${type.suffix}`;
  const globalSecret = isPlainObject(values.configSecret) ? values.configSecret : {};
  const additionalDeployments = isInfra && truthy(values.additionalDeployments) ? values.additionalDeployments : undefined;
  const version = provider.version;
  const manager = isPlainObject(provider.manager) ? provider.manager : undefined;
  const hasSpec =
    truthy(version) ||
    truthy(globalSecret.name) ||
    truthy(provider.manager) ||
    truthy(provider.deployment) ||
    additionalDeployments !== undefined ||
    truthy(isPlainObject(provider.configSecret) ? provider.configSecret.name : undefined);
  const spec: Record<string, unknown> = {};
  if (truthy(version)) spec.version = interpolated(String(version));
  if (truthy(provider.deployment)) spec.deployment = provider.deployment;
  if (truthy(provider.manager)) {
    const out: Record<string, unknown> = {};
    if (manager && truthy(manager.featureGates) && isPlainObject(manager.featureGates)) {
      const gates: Record<string, unknown> = {};
      for (const gate of sortedKeys(manager.featureGates)) setOwnValue(gates, gate, interpolated(String(manager.featureGates[gate])));
      out.featureGates = gates;
    }
    const metrics = manager && isPlainObject(manager.metrics) ? manager.metrics : undefined;
    if (manager && truthy(manager.metrics)) {
      const m: Record<string, unknown> = {};
      if (metrics && truthy(metrics.insecureDiagnostics)) m.insecureDiagnostics = interpolated(String(metrics.insecureDiagnostics));
      if (metrics && truthy(metrics.diagnosticsAddress)) m.diagnosticsAddress = metrics.diagnosticsAddress;
      if (Object.keys(m).length > 0) out.metrics = m;
    }
    for (const key of sortedKeys(manager ?? {})) {
      if (key !== 'featureGates' && key !== 'metrics')
        warnings.push(`${label}.manager.${key} is ignored by the chart (it writes manager.featureGates and manager.metrics only)`);
    }
    // `manager:` with nothing under it reads as null, which the API server drops.
    if (Object.keys(out).length > 0) spec.manager = out;
  }
  const globalFetch = isPlainObject(values.fetchConfig) ? ownValue(values.fetchConfig, name) : undefined;
  if (isInfra && isPlainObject(globalFetch)) {
    const fetch: Record<string, unknown> = {};
    for (const key of sortedKeys(globalFetch)) setOwnValue(fetch, key, interpolated(String(globalFetch[key])));
    spec.fetchConfig = fetch;
  }
  const secret = configSecret(provider.configSecret, globalSecret);
  if (secret) spec.configSecret = secret;
  if (additionalDeployments !== undefined) spec.additionalDeployments = additionalDeployments;
  if (truthy(provider.manifestPatches)) spec.manifestPatches = provider.manifestPatches;
  if (isInfra && truthy(provider.patches)) spec.patches = provider.patches;
  if (truthy(provider.fetchConfig)) spec.fetchConfig = provider.fetchConfig;
  const additional = isPlainObject(provider.additionalManifests) ? provider.additionalManifests : undefined;
  if (additional && truthy(provider.additionalManifests)) {
    spec.additionalManifests = {
      name: interpolated(String(additional.name)),
      ...(truthy(additional.namespace) ? { namespace: interpolated(String(additional.namespace)) } : {}),
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
      `${label}: the chart writes ${Object.keys(spec).join(', ')} without a spec: line (it adds spec: only with a version, configSecret, manager or deployment), so the operator never sees them; they are left out too`,
    );
    return { kind: type.kind, name, namespace };
  }
  return { kind: type.kind, name, namespace, spec: hasSpec ? spec : undefined };
}

/** core-conditions.yaml and infra-conditions.yaml: providers the chart adds on its own, with the global configSecret only. */
function implicitProviders(values: Values): ProviderDocument[] {
  const secret = isPlainObject(values.configSecret) && truthy(values.configSecret) ? values.configSecret : undefined;
  const spec = secret
    ? {
        configSecret: {
          name: interpolated(String(secret.name ?? '')),
          ...(truthy(secret.namespace) ? { namespace: interpolated(String(secret.namespace)) } : {}),
        },
      }
    : undefined;
  const found: ProviderDocument[] = [];
  const anyOther = ['addon', 'bootstrap', 'controlPlane', 'infrastructure', 'ipam'].some((key) => truthy(values[key]));
  if (anyOther && !truthy(values.core)) found.push({ kind: 'CoreProvider', name: 'cluster-api', namespace: 'capi-system', spec });
  if (truthy(values.infrastructure)) {
    if (!truthy(values.bootstrap))
      found.push({ kind: 'BootstrapProvider', name: 'kubeadm', namespace: 'capi-kubeadm-bootstrap-system', spec });
    if (!truthy(values.controlPlane))
      found.push({ kind: 'ControlPlaneProvider', name: 'kubeadm', namespace: 'capi-kubeadm-control-plane-system', spec });
  }
  return found;
}

/** The chart's values (files, then --set) as a capi-gitops manifest. */
export function importHelmValues(input: HelmValuesInput): ImportedManifest {
  const values = readValues(input);
  const warnings: string[] = [];
  const problems: Diagnostic[] = [];
  const stringForm = PROVIDER_TYPES.some((type) => typeof values[type.key] === 'string');
  for (const type of PROVIDER_TYPES) {
    const value = values[type.key];
    if (typeof value === 'string') values[type.key] = value === '' ? {} : fromStringForm(type.key, value, values, warnings, problems);
    else if (value !== undefined && value !== null && !isPlainObject(value)) {
      problems.push({
        path: type.key,
        message: `${type.key} is ${JSON.stringify(value)}`,
        expected: `a map of providers by name (${type.key}.<name>.version=…), or the string form name:version`,
        hint: `e.g. --set ${type.key}.docker.version=v1.7.7`,
      });
    }
  }
  if (problems.length > 0) throw new CapiGitopsError(problems);
  if (!stringForm && isPlainObject(values.manager) && values.manager.featureGates !== undefined) {
    warnings.push(
      'manager.featureGates at the top level is ignored by charts from v0.19 (it was read by the string form up to v0.18); set <type>.<name>.manager.featureGates instead',
    );
  }
  const documents: ProviderDocument[] = [];
  const extra: Record<string, unknown>[] = [];
  for (const type of PROVIDER_TYPES) {
    const map = (values[type.key] ?? {}) as Record<string, unknown>;
    for (const name of sortedKeys(map)) {
      const entry = ownValue(map, name);
      const provider = isPlainObject(entry) ? entry : {};
      documents.push(providerDocument(type, name, provider, values, warnings, extra));
    }
  }
  const implicit = implicitProviders(values);
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
  return {
    text: objects.length === 0 ? `${HEADER}# The values name no provider: the chart installs none.\n` : `${HEADER}---\n${body}`,
    warnings,
  };
}
