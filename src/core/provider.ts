/**
 * Provider kinds and types. clusterctl's provider types are spelled exactly like the operator's
 * kinds (clusterctl v1alpha3 ProviderType), so one union serves both.
 */
export const PROVIDER_KINDS = [
  'CoreProvider',
  'BootstrapProvider',
  'ControlPlaneProvider',
  'InfrastructureProvider',
  'IPAMProvider',
  'RuntimeExtensionProvider',
  'AddonProvider',
] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/**
 * Provider types as the operator names them (api/v1alpha2/*_wrapper.go GetType): in its OCI file
 * names and its artifact ConfigMaps' labels.
 */
export const OPERATOR_PROVIDER_TYPE: Record<ProviderKind, string> = {
  CoreProvider: 'core',
  BootstrapProvider: 'bootstrap',
  ControlPlaneProvider: 'control-plane',
  InfrastructureProvider: 'infrastructure',
  IPAMProvider: 'ipam',
  RuntimeExtensionProvider: 'runtimeextension',
  AddonProvider: 'addon',
};

export const OPERATOR_API_VERSION = 'operator.cluster.x-k8s.io/v1alpha2';
export const TOOL_API_VERSION = 'capi-gitops.dev/v1alpha1';

/** The operator's artifact ConfigMaps: the provider version they hold, and that binaryData.components is gzipped. */
export const CONFIGMAP_VERSION_LABEL = 'provider.cluster.x-k8s.io/version';
export const CONFIGMAP_COMPRESSED_ANNOTATION = 'provider.cluster.x-k8s.io/compressed';

export function isProviderKind(kind: unknown): kind is ProviderKind {
  return typeof kind === 'string' && (PROVIDER_KINDS as readonly string[]).includes(kind);
}

/** clusterctl's manifest label prefix per type (cmd/clusterctl/api/v1alpha3 provider_type.go). */
const LABEL_PREFIX: Record<ProviderKind, string> = {
  CoreProvider: '',
  BootstrapProvider: 'bootstrap-',
  ControlPlaneProvider: 'control-plane-',
  InfrastructureProvider: 'infrastructure-',
  IPAMProvider: 'ipam-',
  RuntimeExtensionProvider: 'runtime-extension-',
  AddonProvider: 'addon-',
};

/** clusterctl's ManifestLabel: the core provider is always "cluster-api". */
export function manifestLabel(kind: ProviderKind, name: string): string {
  if (kind === 'CoreProvider') return 'cluster-api';
  return LABEL_PREFIX[kind] + name;
}

/** The components file name a provider type publishes (clusterctl's defaults). */
export const DEFAULT_COMPONENTS_FILE: Record<ProviderKind, string> = {
  CoreProvider: 'core-components.yaml',
  BootstrapProvider: 'bootstrap-components.yaml',
  ControlPlaneProvider: 'control-plane-components.yaml',
  InfrastructureProvider: 'infrastructure-components.yaml',
  IPAMProvider: 'ipam-components.yaml',
  RuntimeExtensionProvider: 'runtime-extension-components.yaml',
  AddonProvider: 'addon-components.yaml',
};

/** The components file name the operator's repositories (OCI artifacts, ConfigMaps) also answer to. */
export const OPERATOR_REPOSITORY_COMPONENTS_FILE = 'components.yaml';

/** Install order of the output directories (NN- prefix). cert-manager comes first, at 00. */
export const INSTALL_ORDER: Record<ProviderKind | 'CertManager', number> = {
  CertManager: 0,
  CoreProvider: 1,
  BootstrapProvider: 2,
  ControlPlaneProvider: 3,
  InfrastructureProvider: 4,
  IPAMProvider: 5,
  RuntimeExtensionProvider: 6,
  AddonProvider: 7,
};
