/**
 * The operator layout: the cluster-api-operator stays in the cluster, but every artifact is
 * pinned, reviewed and served from Git.
 *   00-cert-manager/             cert-manager, as in the other layouts (the operator needs it)
 *   01-cluster-api-operator/     the operator's release manifest (operator-components.yaml)
 *   02-providers/                each provider's artifact ConfigMap, in the form
 *                                `kubectl operator preload` writes, its provider object pointed
 *                                at it with fetchConfig.selector, and the providers' namespaces
 *   argocd/ or flux/             with Config.operator.wiring: the built-in chart's wiring, the
 *                                three directories in that order (waves, dependsOn)
 * The components in the ConfigMaps are the fetched artifacts, not rendered: the operator
 * renders them (variables, images, namespace) itself.
 */
import { gzipSync } from 'node:zlib';
import { DiagnosticBag, compareStrings } from '../core/diagnostics.js';
import type { KObject } from '../core/kobject.js';
import {
  CONFIGMAP_COMPRESSED_ANNOTATION,
  CONFIGMAP_VERSION_LABEL,
  OPERATOR_API_VERSION,
  OPERATOR_PROVIDER_TYPE,
  type ProviderKind,
} from '../core/provider.js';
import type { ConfigMapObject, NamespaceObject, ProviderSpec } from '../manifest/types.js';
import type { RenderedComponent } from '../render/types.js';
import type { Values } from '../core/values.js';
import { applySafety } from './apply-safety.js';
import { README_FILE, WIRED_LAYOUTS } from './index.js';
import { layoutKustomize, objectPaths, emitObjects, KUSTOMIZATION_FILE, BOTH_TOOLS } from './kustomize.js';
import { wiringFiles, type ComponentPlace, type WiringInput } from './wiring.js';
import { GENERATED_COMMENT, provenanceComment } from './provenance.js';
import { renderKustomization, template } from './templates.js';
import { shareNamespaces } from './shared-namespaces.js';

/** internal/controller/manifests_downloader.go maxConfigMapSize and needToCompress. */
export const MAX_CONFIGMAP_BYTES = 1024 * 1024;
const PROVIDER_NAME_LABEL = 'provider.cluster.x-k8s.io/name';
const PROVIDER_TYPE_LABEL = 'provider.cluster.x-k8s.io/type';
const OPERATOR_MANAGED_LABEL = 'managed-by.operator.cluster.x-k8s.io';

/** The operator's own directory, which only the operator layout writes. */
export const OPERATOR_DIRECTORY = '01-cluster-api-operator';
const PROVIDERS_DIRECTORY = '02-providers';

interface OperatorLayoutProvider {
  kind: ProviderKind;
  name: string;
  namespace: string;
  /** The resolved release: the ConfigMap's version and the provider's spec.version. */
  version: string;
  /** The spec as the user wrote it (webhook defaults applied). */
  spec: ProviderSpec;
  /** The object's own labels and annotations, as given. */
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** The fetched artifact texts, byte for byte. */
  components: string;
  metadata: string;
  artifactSha256: string;
}

export interface OperatorLayoutInput {
  providers: readonly OperatorLayoutProvider[];
  /** The operator's release manifest, parsed and given the image overrides. */
  operator: RenderedComponent;
  certManager?: RenderedComponent;
  /** ConfigMaps the providers name in spec.additionalManifests; the operator reads them in the cluster. */
  additionalManifests: readonly ConfigMapObject[];
  command: string;
  /** Config.operator.wiring: the Argo CD or Flux chart and its merged values. */
  wiring?: { tool: OperatorWiring } & Pick<WiringInput, 'chart' | 'values' | 'onWarning'>;
  /** The manifest's `kind: Namespace` documents (shared-namespaces.ts). */
  namespaces?: readonly NamespaceObject[];
}

type OperatorWiring = 'argocd' | 'flux';
const CERT_MANAGER_DIRECTORY = '00-cert-manager';

/** ProviderLabels: what identifies the ConfigMap of one provider release. */
function artifactLabels(p: Pick<OperatorLayoutProvider, 'kind' | 'name' | 'version'>): Record<string, string> {
  return {
    [PROVIDER_NAME_LABEL]: p.name,
    [PROVIDER_TYPE_LABEL]: OPERATOR_PROVIDER_TYPE[p.kind],
    [CONFIGMAP_VERSION_LABEL]: p.version,
    [OPERATOR_MANAGED_LABEL]: 'true',
  };
}

/**
 * TemplateManifestsConfigMap (manifests_downloader.go): named `<type>-<name>-<version>` in the
 * provider's namespace; metadata in data; components in data, or gzip in binaryData with the
 * compressed annotation when metadata and components together exceed 1 MiB. The operator's
 * ownerReference (to an object not yet created, with no UID) is left out.
 */
export function artifactConfigMap(p: OperatorLayoutProvider): KObject {
  const size = Buffer.byteLength(p.metadata) + Buffer.byteLength(p.components);
  const compress = size > MAX_CONFIGMAP_BYTES;
  const metadata: Record<string, unknown> = {
    name: `${OPERATOR_PROVIDER_TYPE[p.kind]}-${p.name}-${p.version}`,
    namespace: p.namespace,
    labels: artifactLabels(p),
  };
  if (compress) metadata.annotations = { [CONFIGMAP_COMPRESSED_ANNOTATION]: 'true' };
  const object: KObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: metadata as KObject['metadata'] };
  const body = object as unknown as Record<string, unknown>;
  body.data = compress ? { metadata: p.metadata } : { components: p.components, metadata: p.metadata };
  if (compress) body.binaryData = { components: gzipWithFixedHeader(p.components).toString('base64') };
  return object;
}

/** The gzip header's OS byte (RFC 1952): 3 (Unix), what zlib writes on Linux. */
const GZIP_OS_UNIX = 3;

/**
 * gzip whose bytes do not depend on the OS that renders: zlib writes the OS it was built for in
 * the header (19 on macOS, 10 on Windows), so a Mac's render would fail Linux CI's check.
 */
function gzipWithFixedHeader(text: string): Buffer {
  const gzipped = gzipSync(Buffer.from(text));
  gzipped[9] = GZIP_OS_UNIX;
  return gzipped;
}

/** The provider object, its artifacts served by its ConfigMap; the rest of the spec as written. */
function selectorProvider(p: OperatorLayoutProvider): KObject {
  // the ConfigMap's labels but the managed-by one: name, type and version select it
  const { [OPERATOR_MANAGED_LABEL]: _managed, ...matchLabels } = artifactLabels(p);
  const spec = { ...p.spec, version: p.version, fetchConfig: { selector: { matchLabels } } };
  const metadata = {
    name: p.name,
    namespace: p.namespace,
    ...(p.labels ? { labels: p.labels } : {}),
    ...(p.annotations ? { annotations: p.annotations } : {}),
  };
  return { apiVersion: OPERATOR_API_VERSION, kind: p.kind, metadata, spec } as KObject;
}

function configMapObject(c: ConfigMapObject): KObject {
  const metadata: Record<string, unknown> = { name: c.name, namespace: c.namespace };
  if (Object.keys(c.labels).length > 0) metadata.labels = c.labels;
  if (Object.keys(c.annotations).length > 0) metadata.annotations = c.annotations;
  const object: Record<string, unknown> = { apiVersion: 'v1', kind: 'ConfigMap', metadata };
  if (Object.keys(c.data).length > 0) object.data = c.data;
  if (Object.keys(c.binaryData).length > 0) object.binaryData = c.binaryData;
  return object as unknown as KObject;
}

export function layoutOperator(input: OperatorLayoutInput): Map<string, string> {
  // cert-manager and the operator take the kustomize layout's directory form; the operator is
  // ordered with cert-manager (install order 00), before every provider.
  const wired = input.wiring ? WIRED_LAYOUTS[input.wiring.tool] : undefined;
  const safety = wired ? wired.safety([]) : BOTH_TOOLS;
  // The providers' Namespaces carry no labels: the operator labels them when it applies the
  // components. One Namespace per namespace, as in the other layouts (shared-namespaces.ts): a
  // provider in the operator's or cert-manager's namespace uses theirs, and Namespace documents
  // are merged in or, for other namespaces, go to the first directory.
  const namespaces = [...new Set(input.providers.map((p) => p.namespace))].sort(compareStrings);
  const ownObjects: KObject[] = [
    ...namespaces.map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }) as KObject),
    ...input.providers.flatMap((p) => [artifactConfigMap(p), selectorProvider(p)]),
    ...input.additionalManifests.map(configMapObject),
  ];
  const given: RenderedComponent[] = [
    ...(input.certManager ? [input.certManager] : []),
    { ...input.operator, type: 'CertManager' },
    { ...input.operator, label: PROVIDERS_DIRECTORY, type: 'CoreProvider', objects: ownObjects },
  ];
  const laidOut = shareNamespaces(given, input.namespaces);
  const objects = laidOut.at(-1)!.objects;
  const base = layoutKustomize(laidOut.slice(0, -1), { safety });
  const files = new Map<string, string>();
  for (const [file, text] of base) {
    if (file === KUSTOMIZATION_FILE) continue;
    files.set(file.startsWith('00-cluster-api-operator/') ? OPERATOR_DIRECTORY + file.slice('00-cluster-api-operator'.length) : file, text);
  }
  const bag = new DiagnosticBag();
  const paths = objectPaths(PROVIDERS_DIRECTORY, applySafety(objects, safety), bag);
  bag.throwIfAny();
  for (const [rel, text] of emitObjects(paths, safety)) files.set(`${PROVIDERS_DIRECTORY}/${rel}`, text);
  const header = input.providers
    .map((p) =>
      provenanceComment({ label: `${OPERATOR_PROVIDER_TYPE[p.kind]}-${p.name}`, version: p.version, artifactSha256: p.artifactSha256 }),
    )
    .join('');
  files.set(
    `${PROVIDERS_DIRECTORY}/${KUSTOMIZATION_FILE}`,
    renderKustomization({ comment: header || GENERATED_COMMENT, resources: [...paths.keys()].sort(compareStrings) }),
  );
  const directories = [...(input.certManager ? [CERT_MANAGER_DIRECTORY] : []), OPERATOR_DIRECTORY, PROVIDERS_DIRECTORY];
  if (wired && input.wiring) {
    for (const [file, text] of operatorWiring(input, [...paths.values()], wired)) files.set(file, text);
  }
  files.set(KUSTOMIZATION_FILE, renderKustomization({ comment: GENERATED_COMMENT, resources: directories }));
  files.set(
    README_FILE,
    template('output/README-operator.md.hbs')({
      command: input.command,
      operatorVersion: input.operator.version,
      operatorNamespace: input.operator.namespace,
      wiringDirectory: wired?.wiringDirectory,
      wiringTool: wired?.tool,
      // Argo CD knows the health of neither Applications nor provider objects without argocd-cm's checks
      argocdHealth: wired?.name === 'argocd' ? { namespace: argocdNamespace(input.wiring!.values) } : undefined,
      certManager: input.certManager ? { directory: CERT_MANAGER_DIRECTORY, version: input.certManager.version } : undefined,
      providers: input.providers.map((p) => ({
        kind: p.kind,
        name: p.name,
        namespace: p.namespace,
        version: p.version,
        compressed: Buffer.byteLength(p.metadata) + Buffer.byteLength(p.components) > MAX_CONFIGMAP_BYTES,
      })),
      secrets: providedSecrets(input.providers),
    }),
  );
  return new Map([...files].sort(([a], [b]) => compareStrings(a, b)));
}

/**
 * The configSecrets the providers read in the cluster, each once (providers sharing a namespace
 * often share one), with the providers that read it.
 */
function providedSecrets(providers: OperatorLayoutInput['providers']): string[] {
  const readers = new Map<string, string[]>();
  for (const p of providers) {
    if (!p.spec.configSecret) continue;
    const secret = `${p.spec.configSecret.namespace || p.namespace}/${p.spec.configSecret.name}`;
    readers.set(secret, [...(readers.get(secret) ?? []), `${p.kind} ${p.name}`]);
  }
  return [...readers].map(([secret, by]) => `\`${secret}\` (read by ${by.join(', ')})`);
}

/** Where Argo CD runs, for the argocd-cm patch: the chart's `namespace` value (the Applications' namespace). */
function argocdNamespace(values: Values): string {
  return typeof values.namespace === 'string' && values.namespace !== '' ? values.namespace : 'argocd';
}

/**
 * The wiring of the three directories, drawn by the layout's built-in chart (or Config.gitops.chart)
 * as the other layouts draw theirs: cert-manager, then the operator (its CRDs and webhook), then
 * the providers, each waiting for the one before.
 */
function operatorWiring(
  input: OperatorLayoutInput,
  providerObjects: KObject[],
  wired: (typeof WIRED_LAYOUTS)[OperatorWiring],
): Map<string, string> {
  const providers: RenderedComponent = {
    label: 'providers',
    type: 'CoreProvider',
    name: 'providers',
    version: input.operator.version,
    namespace: input.operator.namespace,
    artifactSha256: '',
    objects: providerObjects,
  };
  const places = new Map<RenderedComponent, ComponentPlace>([
    [input.operator, { directory: OPERATOR_DIRECTORY, wave: 1 }],
    [providers, { directory: PROVIDERS_DIRECTORY, wave: 2 }],
  ]);
  if (input.certManager) places.set(input.certManager, { directory: CERT_MANAGER_DIRECTORY, wave: 0 });
  return wiringFiles({
    ...input.wiring!,
    components: [...places.keys()],
    unmanaged: [],
    defaultNamespace: wired.defaultNamespace,
    directory: wired.wiringDirectory,
    place: (c) => places.get(c)!,
  });
}
