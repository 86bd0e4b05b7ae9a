/**
 * The operator layout's artifact ConfigMaps (layout/operator.ts `artifactConfigMap`, the form
 * `kubectl operator preload` writes): the objects the cluster-api-operator applies for a provider
 * are the text of its ConfigMap's `components`, not the ConfigMap. Review reads them there, so an
 * upgrade in this layout gets the call-outs of the others.
 */
import { gunzipComponents } from '../core/artifact-configmap.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { isPlainObject, type KObject } from '../core/kobject.js';
import {
  CONFIGMAP_COMPRESSED_ANNOTATION,
  CONFIGMAP_VERSION_LABEL,
  OPERATOR_PROVIDER_TYPE,
  PROVIDER_KINDS,
  manifestLabel,
  type ProviderKind,
} from '../core/provider.js';

const NAME_LABEL = 'provider.cluster.x-k8s.io/name';
const TYPE_LABEL = 'provider.cluster.x-k8s.io/type';

/** One provider release an artifact ConfigMap holds. */
interface ArtifactRelease {
  kind: ProviderKind;
  /** The provider's name (`kubeadm`). */
  name: string;
  version: string;
  /** `<type>-<name>`, as the ConfigMap's name and the layout's provenance comment begin (`control-plane-kubeadm`). */
  id: string;
  /** clusterctl's manifest label (`cluster-api`, `bootstrap-kubeadm`), the component name of the other layouts. */
  label: string;
  /** The components text, gunzipped; or what keeps it from being read. */
  components: string | Pick<Diagnostic, 'path' | 'message' | 'expected' | 'hint'>;
  /** metadata.yaml's text, when the ConfigMap holds it. */
  metadata?: string;
}

function kindOfType(type: string): ProviderKind | undefined {
  return PROVIDER_KINDS.find((kind) => OPERATOR_PROVIDER_TYPE[kind] === type);
}

/** `provider.cluster.x-k8s.io/{name,type,version}` of a ConfigMap with `components`, else undefined. */
export function artifactRelease(object: KObject): ArtifactRelease | undefined {
  if (object.apiVersion !== 'v1' || object.kind !== 'ConfigMap') return undefined;
  const labels = isPlainObject(object.metadata?.labels) ? object.metadata.labels : {};
  const [name, type, version] = [labels[NAME_LABEL], labels[TYPE_LABEL], labels[CONFIGMAP_VERSION_LABEL]];
  const kind = typeof type === 'string' ? kindOfType(type) : undefined;
  if (typeof name !== 'string' || typeof version !== 'string' || kind === undefined) return undefined;
  const data = isPlainObject(object.data) ? object.data : {};
  const binary = isPlainObject(object.binaryData) ? object.binaryData : {};
  const compressed = object.metadata.annotations?.[CONFIGMAP_COMPRESSED_ANNOTATION] === 'true';
  if (!compressed && typeof data.components !== 'string') return undefined;
  const release = { kind, name, version, id: `${OPERATOR_PROVIDER_TYPE[kind]}-${name}`, label: manifestLabel(kind, name) };
  const metadata = typeof data.metadata === 'string' ? { metadata: data.metadata } : {};
  return { ...release, ...metadata, components: compressed ? gunzipped(binary.components) : (data.components as string) };
}

/** The operator's reading of a compressed ConfigMap (manifests_downloader.go): binaryData.components, base64 of gzip. */
function gunzipped(encoded: unknown): ArtifactRelease['components'] {
  const path = 'binaryData.components';
  if (typeof encoded !== 'string')
    return {
      path,
      message: `the ConfigMap is annotated ${CONFIGMAP_COMPRESSED_ANNOTATION}: "true" but has no ${path}`,
      hint: 'render writes this file: render again to rewrite it',
    };
  const read = gunzipComponents(encoded);
  if ('bytes' in read) return Buffer.from(read.bytes).toString('utf8');
  return {
    path,
    message: read.problem,
    expected: 'the components, gzip-compressed and base64-encoded, as render writes them',
    hint: 'render writes this file: render again to rewrite it',
  };
}
