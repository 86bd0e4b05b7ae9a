import type { Diagnostic } from '../core/diagnostics.js';
import type { ProviderKind } from '../core/provider.js';
import type { LabelSelector } from '../core/label-selector.js';

/** Where a value was written, for error messages. */
export interface SourcePosition {
  file: string;
  line: number;
  column: number;
}

// ---- operator.cluster.x-k8s.io/v1alpha2 ProviderSpec, as upstream defines it -------------

export type { LabelSelector, LabelSelectorRequirement } from '../core/label-selector.js';

export interface ContainerSpec {
  name: string;
  imageUrl?: string;
  /** Keys include their leading `--`, as upstream passes them to setArgs. */
  args?: Record<string, string>;
  env?: Record<string, unknown>[];
  resources?: Record<string, unknown>;
  command?: string[];
}

export interface DeploymentSpec {
  replicas?: number;
  nodeSelector?: Record<string, string>;
  tolerations?: Record<string, unknown>[];
  affinity?: Record<string, unknown>;
  containers?: ContainerSpec[];
  serviceAccountName?: string;
  imagePullSecrets?: { name?: string }[];
}

export interface LeaderElectionConfiguration {
  leaderElect: boolean;
  leaseDuration: string;
  renewDeadline: string;
  retryPeriod: string;
  resourceLock: string;
  resourceName: string;
  resourceNamespace: string;
}

export interface ManagerSpec {
  syncPeriod?: string;
  leaderElection?: LeaderElectionConfiguration;
  cacheNamespace?: string;
  gracefulShutDown?: string;
  controller?: {
    groupKindConcurrency?: Record<string, number>;
    cacheSyncTimeout?: number;
    recoverPanic?: boolean;
  };
  metrics?: { bindAddress?: string; diagnosticsAddress?: string; insecureDiagnostics?: boolean };
  health?: { healthProbeBindAddress?: string; readinessEndpointName?: string; livenessEndpointName?: string };
  webhook?: { port?: number; host?: string; certDir?: string };
  profilerAddress?: string;
  maxConcurrentReconciles?: number;
  /** CRD default is 1; the operator adds `--v` only when it is not 1. */
  verbosity?: number;
  featureGates?: Record<string, boolean>;
  additionalArgs?: Record<string, string>;
}

export interface PatchTarget {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  labelSelector?: string;
}
export interface Patch {
  patch: string;
  target?: PatchTarget;
}

interface FetchConfiguration {
  url?: string;
  selector?: LabelSelector;
  oci?: string;
}

interface AdditionalDeployment {
  deployment?: DeploymentSpec;
  manager?: ManagerSpec;
}

export interface ProviderSpec {
  version?: string;
  manager?: ManagerSpec;
  deployment?: DeploymentSpec;
  configSecret?: { name: string; namespace?: string };
  fetchConfig?: FetchConfiguration;
  additionalManifests?: { name: string; namespace?: string };
  manifestPatches?: string[];
  patches?: Patch[];
  additionalDeployments?: Record<string, AdditionalDeployment>;
}

/** A provider object from the manifest, validated and defaulted. */
export interface ProviderObject {
  kind: ProviderKind;
  name: string;
  /** metadata.namespace; the target namespace of its components. */
  namespace: string;
  spec: ProviderSpec;
  /** metadata.labels and metadata.annotations as given, an export's server and owner fields removed; absent when empty. */
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  position: SourcePosition;
  /** Where a field of the object was written; the object's start for fields it does not have. */
  fieldPosition?: (path: readonly (string | number)[]) => SourcePosition;
  /** status.installedVersion of an object exported from a cluster: what the operator installed. Not enumerable. */
  installedVersion?: string;
  /**
   * The Rancher Turtles CAPIProvider it was read from, as the input names it
   * (`CAPIProvider/capi-system/cluster-api`): rendered with Turtles' own steps (render/turtles.ts). Not enumerable.
   */
  turtles?: string;
}

// ---- Secrets and ConfigMaps given in the input ---------------------------------------------

/** A Secret's decoded string data. Values are secret: never print or log them. */
export interface SecretObject {
  name: string;
  namespace: string;
  data: Record<string, string>;
  position: SourcePosition;
  /** Keys whose values were plain text in the input (a Turtles CAPIProvider's variables): not secret. */
  publicKeys?: string[];
  /** Keys a tool adds on its own (Turtles' feature variables): never reported as unused. */
  implicitKeys?: string[];
  /** Where a key was written (stringData over data, as the API server merges them); not enumerable. */
  keyPosition?: (key: string) => SourcePosition;
  /**
   * For the config Secret Turtles writes: the field of the CAPIProvider that sets a key it wrote
   * (spec.variables, or spec.features for a feature's variable), where the user changes that
   * value; undefined for the Secret's own keys. Not enumerable. `byName`: for a key Turtles sets by the
   * provider's spec.name (the azure/gcp extras), that name: no field of the object changes its value.
   */
  turtlesField?: (key: string) => { object: string; path: string; position: SourcePosition; byName?: string } | undefined;
}

export interface ConfigMapObject {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  data: Record<string, string>;
  /** base64 strings as given */
  binaryData: Record<string, string>;
  position: SourcePosition;
  /** Where a field was written; not enumerable. */
  fieldPosition?: (path: readonly (string | number)[]) => SourcePosition;
}

/**
 * A `v1 Namespace` document. For the namespace of a rendered component its labels and
 * annotations (pod-security labels, say) are merged into that component's one Namespace object;
 * any other namespace is written as given (src/layout/shared-namespaces.ts).
 */
export interface NamespaceObject {
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** `spec` as given (finalizers), when the document has one. */
  spec?: Record<string, unknown>;
  position: SourcePosition;
  /** Where a field of the document was written (its key); the document's start for fields it does not have. Not enumerable. */
  fieldPosition?: (path: readonly (string | number)[]) => SourcePosition;
}

// ---- the tool's own Config document (capi-gitops.dev/v1alpha1, kind Config) ---------------

export interface ImageMeta {
  repository?: string;
  name?: string;
  tag?: string;
}

export interface UserRepository {
  name: string;
  type: ProviderKind;
  url: string;
  /** Plain HTTPS templates: the published release tags. */
  versions?: string[];
  /** Plain HTTPS templates: a URL listing the release tags, one per line or a JSON array. */
  versionsUrl?: string;
  /** Plain HTTPS templates: accept http:// for hosts other than 127.0.0.1/localhost/::1. */
  allowInsecure?: boolean;
}

interface CertManagerConfig {
  enabled?: boolean;
  version?: string;
  url?: string;
}

interface OutputConfig {
  /** `kustomize` (default), or `argocd`/`flux` with the wiring that syncs the components. */
  layout?: 'kustomize' | 'argocd' | 'flux' | 'operator';
  /** A fleet's tree: `shared` (default: objects several clusters render alike written once, in bases) or `full`. */
  fleetLayout?: FleetLayoutName;
}

/** The chart that draws the GitOps wiring, and its values. */
interface GitOpsConfig {
  /** A chart directory relative to the manifest; replaces the layout's built-in chart. */
  chart?: string;
  /** The output directory's path from the Git repository root. */
  path?: string;
  /** Values of whichever chart draws the wiring. */
  values?: Record<string, unknown>;
  /** Values of one layout's chart only, over `values`: one Config serves both layouts. */
  argocd?: { values?: Record<string, unknown> };
  flux?: { values?: Record<string, unknown> };
}

/** An object the GitOps tool stops enforcing. */
interface ObjectOverride {
  kind: string;
  group?: string;
  name: string;
  namespace?: string;
  unmanaged: true;
}

/** The output layouts (Config output.layout, --layout). */
export const LAYOUTS = ['kustomize', 'argocd', 'flux', 'operator'] as const;
export type LayoutName = (typeof LAYOUTS)[number];

/** The fleet layouts (Config output.fleetLayout, --fleet-layout). */
export const FLEET_LAYOUTS = ['shared', 'full'] as const;
export type FleetLayoutName = (typeof FLEET_LAYOUTS)[number];

export const SECRET_STRATEGIES = ['refuse', 'external-secrets', 'flux-substitute', 'sops', 'inline'] as const;
export type SecretStrategy = (typeof SECRET_STRATEGIES)[number];

/** Config.secrets: what happens to values that must not reach Git (src/secrets). */
export interface SecretsConfig {
  strategy?: SecretStrategy;
  /** Variables from a Secret that may be written (feature flags, settings). */
  public?: string[];
  externalSecrets?: {
    secretStoreRef?: { name: string; kind?: 'SecretStore' | 'ClusterSecretStore' };
    /** Remote key template; `{{namespace}}`, `{{name}}` are the Secret's. Default `{{namespace}}/{{name}}`. */
    remoteKey?: string;
    refreshInterval?: string;
  };
  fluxSubstitute?: { secretName?: string };
  sops?: { ageRecipients?: string[] };
}

export interface ToolConfig {
  repositories?: UserRepository[];
  /** clusterctl's images map: keys `all`, `<label>` or `<label>/<image>`. */
  images?: Record<string, ImageMeta>;
  /** Write every container image as `repository:tag@sha256:<digest>` and lock the digests (`--pin-images`). */
  pinImages?: boolean;
  certManager?: CertManagerConfig;
  /**
   * The Rancher Turtles installation that applies the CAPIProviders: `noCertManager`, its
   * `no-cert-manager` feature gate (render/wrangler.ts when true; a warning when unset).
   */
  turtles?: { noCertManager?: boolean };
  variables?: Record<string, string>;
  output?: OutputConfig;
  /** The cluster-api-operator release the operator layout installs. */
  operator?: { version?: string; url?: string; wiring?: 'argocd' | 'flux' };
  github?: { apiUrl?: string };
  /** Network budget: per-request time (retries included) and retries. `--http-timeout` overrides the time. */
  network?: { timeoutSeconds?: number; retries?: number };
  gitops?: GitOpsConfig;
  overrides?: ObjectOverride[];
  /** The management clusters of a fleet (src/fleet); absent: one cluster at the output's root. */
  clusters?: ClusterOverlay[];
  /** The Release clusters use unless they name one. */
  release?: string;
  secrets?: SecretsConfig;
  /** The namespace of providers, Secrets and ConfigMaps that name none; `-n, --namespace` wins (manifest/load.ts). */
  namespace?: string;
  position?: SourcePosition;
  /** Where a field of the Config document was written (for fleet errors): its value, or its key. */
  locate?: (path: readonly (string | number)[], at?: 'key' | 'value') => SourcePosition;
}

/** One entry of Config.clusters: sparse, schema-checked for shape only; the merged result is validated. */
export interface ClusterOverlay {
  name: string;
  release?: string;
  providers?: Record<string, Record<string, unknown> | null>;
  variables?: Record<string, string | null>;
  images?: Record<string, ImageMeta | null>;
  pinImages?: boolean | null;
  certManager?: CertManagerConfig | null;
  turtles?: { noCertManager?: boolean | null } | null;
  secrets?: Record<string, unknown> | null;
  /** Chart values of either layout's chart, over Config gitops.values. */
  gitops?: Record<string, unknown> | null;
  /** Chart values of one layout's chart only, over Config gitops.argocd.values and gitops.flux.values. */
  argocd?: { values?: Record<string, unknown> | null } | null;
  flux?: { values?: Record<string, unknown> | null } | null;
  unsupportedOverrides?: Record<string, unknown>;
}

/** A `kind: Release` document: a tested set of versions. */
export interface ReleaseObject {
  name: string;
  deprecated: boolean;
  /** `<Kind>/<name>` (or `<Kind>/<namespace>/<name>`) → exact version. */
  providers: Record<string, string>;
  certManager?: { version?: string };
  position: SourcePosition;
  locate: (path: readonly (string | number)[]) => SourcePosition;
}

/** Everything the manifest stage hands to resolve. */
export interface Manifest {
  providers: ProviderObject[];
  secrets: SecretObject[];
  configMaps: ConfigMapObject[];
  /** `kind: Namespace` documents, in input order; absent when there are none. */
  namespaces?: NamespaceObject[];
  config: ToolConfig;
  /** `kind: Release` documents, in input order. */
  releases?: ReleaseObject[];
  /** Absolute path of the directory of the first manifest file; relative URLs resolve against it. */
  baseDir: string;
  /** Valid input that is most likely a mistake, or a v1alpha1 object converted, at file:line:column; printed, never fatal. */
  warnings?: Diagnostic[];
  /** Loaded with `collectAll`: the problems of objects left out, reported with the run's own. */
  problems?: Diagnostic[];
  /** Loaded with `collectAll`: ConfigMaps left out for a problem of their own, as read; absent when none. */
  leftOutConfigMaps?: ConfigMapObject[];
  /**
   * Loaded with `collectAll`: problems confined to a fleet cluster's entry in Config.clusters, by
   * cluster name. The fleet leaves that cluster out and reports them with the run's own.
   */
  clusterProblems?: ReadonlyMap<string, readonly Diagnostic[]>;
}
