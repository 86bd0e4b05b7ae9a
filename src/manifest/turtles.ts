/**
 * Rancher Turtles' `CAPIProvider` (turtles-capi.cattle.io/v1alpha1, rancher/turtles
 * api/v1alpha1/capiprovider_types.go), read as the operator object Turtles reconciles it as,
 * plus the config Secret Turtles writes for it:
 * - kind from spec.type, as internal/controllers/operator_reconciler.go toClusterctlType (exact
 *   case: `controlPlane`, `runtimeextension`);
 * - name: spec.name, else metadata.name (api/v1alpha1/capiprovider_wrapper.go ProviderName); the
 *   namespace is the CAPIProvider's;
 * - the inlined operator ProviderSpec as it is; name, type, features, variables, credentials and
 *   enableAutomaticUpdate are Turtles' own and go;
 * - spec.configSecret: given, its namespace forced to the provider's, else {name: metadata.name}
 *   (internal/provider/defaults.go SetDefaultProviderSpec);
 * - the Secret (internal/sync/secret_sync.go GetSecret, SyncObjects): named configSecret.name,
 *   else metadata.name, in the CAPIProvider's namespace; its keys the status.variables defaults
 *   (the three feature variables "true", api/v1alpha1/capiprovider_types.go CAPIProviderStatus),
 *   spec.variables over them, then spec.features (all three, omitted ones "false"), then
 *   EXP_AKS_RESOURCE_HEALTH for azure or EXP_CAPG_GKE for gcp (defaults.go SetProviderSpec).
 *   Turtles writes these keys into an existing Secret of that name (Update over Get), so a
 *   Secret of that name in the input keeps its other keys.
 *
 * The conversion is a list of edits, as for v1alpha1 objects (v1alpha1.ts): the loader applies
 * them to the value, `capi-gitops convert` to the YAML document.
 */
import { compareStrings } from '../core/diagnostics.js';
import { isPlainObject } from '../core/kobject.js';
import { OPERATOR_API_VERSION, type ProviderKind } from '../core/provider.js';
import type { Finding } from './documents.js';
import { closestName } from './fields.js';
import { shellWord } from '../core/shell.js';
import type { ConversionEdit } from './v1alpha1.js';

/** rancher/turtles internal/provider/wrangler.go CertificateAnnotationKey, which WranglerPatcher sets on webhook Services. */
export const WRANGLER_CERTIFICATE_ANNOTATION = 'need-a-cert.cattle.io/secret-name';

/** rancher/turtles internal/provider/rancher.go clusterIndexedLabelKey: "true" on every CRD of a CAPIProvider's components. */
export const CLUSTER_INDEXED_LABEL = 'auth.cattle.io/cluster-indexed';

/** The spec.patches entry that gives an operator object's CRDs Turtles' label (the operator's patches reach every CRD). */
export const CLUSTER_INDEXED_PATCH = `- target:
    kind: CustomResourceDefinition
  patch: |
    metadata:
      labels:
        ${CLUSTER_INDEXED_LABEL}: "true"`;

/** spec.type → operator kind (operator_reconciler.go toClusterctlType; api/v1alpha1/provider_types.go Type). */
const TURTLES_TYPES: Readonly<Record<string, ProviderKind>> = {
  infrastructure: 'InfrastructureProvider',
  core: 'CoreProvider',
  controlPlane: 'ControlPlaneProvider',
  bootstrap: 'BootstrapProvider',
  addon: 'AddonProvider',
  ipam: 'IPAMProvider',
  runtimeextension: 'RuntimeExtensionProvider',
};

/** status.variables' default (capiprovider_types.go: +kubebuilder:default on CAPIProviderStatus.Variables). */
const DEFAULT_VARIABLES: Readonly<Record<string, string>> = {
  CLUSTER_TOPOLOGY: 'true',
  EXP_CLUSTER_RESOURCE_SET: 'true',
  EXP_MACHINE_POOL: 'true',
};

/** spec.features → variables (defaults.go setFeatures). */
const FEATURE_VARIABLES: readonly [feature: string, variable: string][] = [
  ['clusterResourceSet', 'EXP_CLUSTER_RESOURCE_SET'],
  ['clusterTopology', 'CLUSTER_TOPOLOGY'],
  ['machinePool', 'EXP_MACHINE_POOL'],
];

/** Variables Turtles adds by provider name (defaults.go SetProviderSpec). */
const NAMED_VARIABLES: Readonly<Record<string, Record<string, string>>> = {
  azure: { EXP_AKS_RESOURCE_HEALTH: 'true' },
  gcp: { EXP_CAPG_GKE: 'true' },
};

/** The keys internal/sync/secret_mapper_sync.go copies from a Rancher cloud credential, by provider name. */
const CREDENTIAL_KEYS: Readonly<Record<string, readonly string[]>> = {
  aws: ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION', 'AWS_B64ENCODED_CREDENTIALS'],
  azure: ['AZURE_SUBSCRIPTION_ID', 'AZURE_CLIENT_ID', 'AZURE_CLIENT_SECRET', 'AZURE_TENANT_ID'],
  vsphere: ['VSPHERE_USERNAME', 'VSPHERE_PASSWORD'],
  gcp: ['GCP_B64ENCODED_CREDENTIALS'],
  digitalocean: ['DIGITALOCEAN_ACCESS_TOKEN', 'DO_B64ENCODED_CREDENTIALS'],
};

/** Spec fields that are Turtles' own, not the operator's. */
const TURTLES_FIELDS = ['name', 'type', 'features', 'variables', 'credentials', 'enableAutomaticUpdate'];

/** The operator's ProviderSpec, inlined in CAPIProviderSpec (the schema's ProviderSpec; a test keeps them equal). */
export const PROVIDER_SPEC_FIELDS = [
  'additionalDeployments',
  'additionalManifests',
  'configSecret',
  'deployment',
  'fetchConfig',
  'manager',
  'manifestPatches',
  'patches',
  'version',
];

/** Credentials' fields (capiprovider_types.go Credentials). */
const CREDENTIAL_FIELDS = ['rancherCloudCredential', 'rancherCloudCredentialNamespaceName'];

/** The config Secret Turtles writes for a CAPIProvider. */
export interface TurtlesSecret {
  name: string;
  namespace: string;
  /** Key → value, in the order Turtles sets them. */
  data: Record<string, string>;
  /** Keys Turtles sets on its own (the feature defaults and features, the azure/gcp extras): not variables the user named. */
  implicitKeys: string[];
  /** The field that sets a key: spec.features.<feature> for a feature's variable when features is given, else spec.variables. */
  fields: Record<string, string[]>;
  /** Keys Turtles sets for the provider's spec.name (the azure/gcp extras), whatever the object says. */
  byName: string[];
}

export interface TurtlesConversion {
  kind?: ProviderKind;
  edits: ConversionEdit[];
  /** Problems: the object cannot be read. */
  findings: Finding[];
  /** Valid input that works differently here than under Turtles. */
  warnings: Finding[];
  secret?: TurtlesSecret;
}

function stringAt(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The operator kind of a `spec.type` value, if Turtles knows it. */
export function turtlesProviderKind(type: unknown): ProviderKind | undefined {
  return typeof type === 'string' && Object.hasOwn(TURTLES_TYPES, type) ? TURTLES_TYPES[type] : undefined;
}

/** The edits that turn a CAPIProvider (nulls pruned) into its operator object, and the Secret Turtles writes. */
export function planTurtlesConversion(object: Record<string, unknown>): TurtlesConversion {
  const findings: Finding[] = [];
  const warnings: Finding[] = [];
  const spec = isPlainObject(object.spec) ? object.spec : {};
  const metadata = isPlainObject(object.metadata) ? object.metadata : {};
  const kind = turtlesProviderKind(spec.type);
  if (spec.type === undefined) {
    findings.push({
      path: ['spec'],
      at: 'key',
      message: 'CAPI Provider type should always be set. (spec.type is missing)',
      expected: `spec.type: one of ${Object.keys(TURTLES_TYPES).join(', ')}`,
      hint: 'add spec.type, e.g. type: infrastructure',
    });
  } else if (!kind) {
    const guess = closestName(String(spec.type), Object.keys(TURTLES_TYPES));
    findings.push({
      path: ['spec', 'type'],
      at: 'value',
      message: `spec.type ${JSON.stringify(spec.type)} is no provider type Turtles installs (operator_reconciler.go toClusterctlType matches exact case)`,
      expected: `one of ${Object.keys(TURTLES_TYPES).join(', ')}`,
      hint: guess ? `did you mean "${guess}"?` : 'set the provider type, e.g. infrastructure',
    });
  }
  const unknown = unknownFields(spec, findings);
  if (!kind) return { edits: [], findings, warnings };
  const objectName = stringAt(metadata.name);
  const namespace = stringAt(metadata.namespace);
  const providerName = stringAt(spec.name) || objectName;
  const edits: ConversionEdit[] = [
    { op: 'set', path: ['apiVersion'], value: OPERATOR_API_VERSION, source: ['apiVersion'] },
    { op: 'set', path: ['kind'], value: kind, source: ['spec', 'type'] },
  ];
  if (stringAt(spec.name) !== '' && spec.name !== objectName)
    edits.push({ op: 'set', path: ['metadata', 'name'], value: spec.name, source: ['spec', 'name'] });
  // an unknown field is told here with Turtles' fields among those expected, not again by the ProviderSpec's schema
  for (const field of [...TURTLES_FIELDS, ...unknown])
    if (field in spec) edits.push({ op: 'delete', path: ['spec', field], source: ['spec', field] });
  const given = isPlainObject(spec.configSecret) ? spec.configSecret : undefined;
  const secretName = stringAt(given?.name) || objectName;
  if (given) {
    if (given.namespace !== undefined && given.namespace !== namespace) {
      warnings.push({
        path: ['spec', 'configSecret', 'namespace'],
        at: 'value',
        message: `Turtles reads the config Secret from the CAPIProvider's own namespace${namespace ? ` (${namespace})` : ''}, whatever configSecret.namespace says (internal/provider/defaults.go SetDefaultProviderSpec)`,
        hint: 'remove configSecret.namespace',
      });
    }
    if (namespace)
      edits.push({ op: 'set', path: ['spec', 'configSecret', 'namespace'], value: namespace, source: ['spec', 'configSecret'] });
  } else {
    edits.push({
      op: 'set',
      path: ['spec', 'configSecret'],
      value: namespace ? { name: secretName, namespace } : { name: secretName },
      source: ['metadata', 'name'],
    });
  }
  const { data, implicitKeys } = turtlesSecretData(spec, providerName, findings);
  warnings.push(...turtlesWarnings(spec, providerName, namespace, secretName));
  if (spec.version === undefined) warnings.push(noVersionWarning(object, objectName, namespace));
  return {
    kind,
    edits,
    findings,
    warnings,
    secret: {
      name: secretName,
      namespace,
      data,
      implicitKeys,
      fields: secretFields(spec, data, providerName),
      byName: Object.keys(NAMED_VARIABLES[providerName] ?? {}),
    },
  };
}

/**
 * Fields the CRD does not define, in spec, spec.features and spec.credentials: the API server
 * refuses them (strict field validation), and a misspelt feature would turn all three off
 * (setFeatures). Also the types of Turtles' own fields, which the ProviderSpec's schema never
 * sees. Returns the unknown spec fields.
 */
function unknownFields(spec: Record<string, unknown>, findings: Finding[]): string[] {
  const unknownIn = (path: string[], value: Record<string, unknown>, known: readonly string[], title: string) => {
    const unknown = Object.keys(value).filter((key) => !known.includes(key));
    for (const key of unknown) {
      const guess = closestName(key, known);
      findings.push({
        path: [...path, key],
        at: 'key',
        message: `unknown field "${key}"`,
        expected: `a field of ${title}: ${[...known].sort(compareStrings).join(', ')}`,
        hint: guess ? `did you mean "${guess}"?` : 'remove it, or check its spelling and indentation',
      });
    }
    return unknown;
  };
  const typed = (field: string, type: 'string' | 'boolean' | 'object', value: unknown, path: string[] = ['spec', field]) => {
    const ok = type === 'object' ? isPlainObject(value) : typeof value === type;
    if (!ok)
      findings.push({
        path,
        at: 'value',
        message: `is not ${type === 'object' ? 'a mapping' : `a ${type}`}`,
        expected: type === 'object' ? 'a mapping (key: value lines)' : type === 'boolean' ? 'true or false' : 'a string',
        hint:
          type === 'boolean'
            ? `write ${field}: true or ${field}: false, unquoted`
            : `see the CAPIProvider CRD's spec.${path.slice(1).join('.')}`,
      });
    return ok;
  };
  const unknown = unknownIn(['spec'], spec, [...TURTLES_FIELDS, ...PROVIDER_SPEC_FIELDS], 'CAPIProviderSpec');
  if (spec.name !== undefined) typed('name', 'string', spec.name);
  if (spec.enableAutomaticUpdate !== undefined) typed('enableAutomaticUpdate', 'boolean', spec.enableAutomaticUpdate);
  if (spec.variables !== undefined) typed('variables', 'object', spec.variables);
  if (spec.features !== undefined && typed('features', 'object', spec.features)) {
    const features = spec.features as Record<string, unknown>;
    const known = FEATURE_VARIABLES.map(([feature]) => feature);
    unknownIn(['spec', 'features'], features, known, 'Features');
    for (const feature of known)
      if (features[feature] !== undefined) typed(feature, 'boolean', features[feature], ['spec', 'features', feature]);
  }
  if (spec.credentials !== undefined && typed('credentials', 'object', spec.credentials)) {
    const credentials = spec.credentials as Record<string, unknown>;
    unknownIn(['spec', 'credentials'], credentials, CREDENTIAL_FIELDS, 'Credentials');
    for (const field of CREDENTIAL_FIELDS)
      if (credentials[field] !== undefined) typed(field, 'string', credentials[field], ['spec', 'credentials', field]);
  }
  return unknown;
}

/**
 * The data of the Secret Turtles writes: its default variables, then spec.variables, the
 * variables of spec.features and of the provider's name; and the keys the user did not name.
 */
function turtlesSecretData(
  spec: Record<string, unknown>,
  providerName: string,
  findings: Finding[],
): { data: Record<string, string>; implicitKeys: string[] } {
  const data: Record<string, string> = { ...DEFAULT_VARIABLES };
  const implicitKeys = new Set(Object.keys(DEFAULT_VARIABLES));
  if (isPlainObject(spec.variables)) {
    for (const [key, value] of Object.entries(spec.variables)) {
      if (typeof value !== 'string') {
        findings.push({
          path: ['spec', 'variables', key],
          at: 'value',
          message: 'is not a string',
          expected: 'a string value (variables is a map[string]string)',
          hint: `quote it: ${key}: "${String(value)}"`,
        });
        continue;
      }
      data[key] = value;
      implicitKeys.delete(key);
    }
  }
  if (isPlainObject(spec.features)) {
    for (const [feature, variable] of FEATURE_VARIABLES) {
      data[variable] = spec.features[feature] === true ? 'true' : 'false';
      // Turtles' translation of the features, not variables the user named.
      implicitKeys.add(variable);
    }
  }
  for (const [key, value] of Object.entries(NAMED_VARIABLES[providerName] ?? {})) {
    data[key] = value;
    implicitKeys.add(key);
  }
  return { data, implicitKeys: [...implicitKeys].sort() };
}

/**
 * The CAPIProvider field that decides each key: the feature when spec.features is given
 * (setFeatures runs after the variables), else spec.variables; none for the azure/gcp extras,
 * which Turtles sets last whatever the object says.
 */
function secretFields(spec: Record<string, unknown>, data: Record<string, string>, providerName: string): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const key of Object.keys(data)) fields[key] = ['spec', 'variables'];
  if (isPlainObject(spec.features)) for (const [feature, variable] of FEATURE_VARIABLES) fields[variable] = ['spec', 'features', feature];
  for (const key of Object.keys(NAMED_VARIABLES[providerName] ?? {})) delete fields[key];
  return fields;
}

/** What Turtles does with spec.credentials and spec.enableAutomaticUpdate that a render cannot. */
function turtlesWarnings(spec: Record<string, unknown>, providerName: string, namespace: string, secretName: string): Finding[] {
  const warnings: Finding[] = [];
  if (isPlainObject(spec.credentials)) {
    const keys = CREDENTIAL_KEYS[providerName];
    warnings.push({
      path: ['spec', 'credentials'],
      at: 'key',
      message: keys
        ? `Turtles copies the Rancher cloud credential into Secret ${namespace}/${secretName} as ${keys.join(', ')} (internal/sync/secret_mapper_sync.go); capi-gitops cannot read Rancher's credentials`
        : `Turtles maps Rancher cloud credentials for aws, azure, vsphere, gcp and digitalocean only; ${providerName} gets none (internal/sync/secret_mapper_sync.go)`,
      hint: keys
        ? `give those keys in a Secret ${namespace}/${secretName} in the input (Turtles writes into that Secret), or with --env-secret / --secret-file`
        : 'remove spec.credentials',
    });
  }
  if (spec.enableAutomaticUpdate === true) {
    warnings.push({
      path: ['spec', 'enableAutomaticUpdate'],
      at: 'value',
      message: 'Turtles moves the provider to the version its ClusterctlConfig pins; capi-gitops renders the version resolved and locked',
      hint: 'run capi-gitops plan and capi-gitops update to move versions through Git',
    });
  }
  return warnings;
}

/**
 * No spec.version: Turtles installs what its ClusterctlConfig pins. The hint names the version an
 * export's status.installedVersion records, else the command that prints it.
 */
function noVersionWarning(object: Record<string, unknown>, objectName: string, namespace: string): Finding {
  const installed = isPlainObject(object.status) ? stringAt(object.status.installedVersion) : '';
  const where = namespace ? ` -n ${shellWord(namespace)}` : '';
  return {
    path: ['spec'],
    at: 'key',
    message:
      'no spec.version: Turtles installs the version its ClusterctlConfig pins for this provider; capi-gitops resolves the newest release (and locks it)',
    hint: installed
      ? `set spec.version to the version Turtles installed (its status.installedVersion): version: ${installed}`
      : `set spec.version to the version Turtles installs today, as kubectl get capiprovider ${shellWord(objectName)}${where} -o jsonpath='{.status.installedVersion}' prints it`,
  };
}
