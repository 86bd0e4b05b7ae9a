/**
 * operator.cluster.x-k8s.io/v1alpha1 provider objects, converted as the operator's conversion
 * webhook did (kubernetes-sigs/cluster-api-operator api/v1alpha1/provider_conversion.go and
 * zz_generated.conversion.go, up to commit c3f32df "Remove deprecated v1alpha1 API"; the hub is
 * api/v1alpha2). v1alpha1 and v1alpha2 share every field's JSON shape except:
 * - spec.secretName/secretNamespace → spec.configSecret {name, namespace};
 * - deployment.containers[].image {repository, name, tag} → containers[].imageUrl (fromImageMeta);
 * - the `cluster.x-k8s.io/conversion-data` annotation (utilconversion.MarshalData) restores the
 *   hub-only fields manifestPatches, additionalDeployments, fetchConfig.oci and
 *   manager.additionalArgs, and is removed (utilconversion.UnmarshalData).
 *
 * The conversion is a list of edits, applied either to the plain value (the manifest loader) or
 * to the YAML document (`capi-gitops convert`), so both give the same object.
 */
import { isPlainObject } from '../core/kobject.js';
import { OPERATOR_API_VERSION } from '../core/provider.js';
import { ownValue, setOwnValue } from '../core/own-keys.js';
import { V1ALPHA1_API_VERSION, type Finding } from './documents.js';
import { closestName } from './fields.js';
import type { FieldPath } from './yaml-source.js';

/** The kinds v1alpha1 served (api/v1alpha1/*provider_types.go). */
const V1ALPHA1_KINDS: readonly string[] = ['CoreProvider', 'BootstrapProvider', 'ControlPlaneProvider', 'InfrastructureProvider'];
const CONVERSION_DATA_ANNOTATION = 'cluster.x-k8s.io/conversion-data';

/**
 * - `rename`: the pair at `path` becomes `key: value`, in the same place;
 * - `set`: `value` at `path` (added at the end of its map, parents created);
 * - `delete`: the pair at `path` is removed.
 * `source` is the field the result came from, for messages about the converted object.
 */
export type ConversionEdit =
  | { op: 'rename'; path: FieldPath; key: string; value: unknown; source: FieldPath }
  | { op: 'set'; path: FieldPath; value: unknown; source: FieldPath }
  | { op: 'delete'; path: FieldPath; source: FieldPath };

export interface ConversionPlan {
  edits: ConversionEdit[];
  /** v1alpha1 fields that have no v1alpha2 equivalent, or values that do not convert. */
  findings: Finding[];
}

/** The v1alpha1 spec's fields, down to the Kubernetes types both versions share. */
type Shape = { [field: string]: Shape | 'leaf' | { items: Shape } };
const IMAGE: Shape = { repository: 'leaf', name: 'leaf', tag: 'leaf' };
const CONTAINER: Shape = { name: 'leaf', image: IMAGE, args: 'leaf', env: 'leaf', resources: 'leaf', command: 'leaf' };
const V1ALPHA1_SPEC: Shape = {
  version: 'leaf',
  manager: {
    webhook: { port: 'leaf', host: 'leaf', certDir: 'leaf' },
    syncPeriod: 'leaf',
    leaderElection: 'leaf',
    metrics: { bindAddress: 'leaf' },
    cacheNamespace: 'leaf',
    gracefulShutDown: 'leaf',
    health: { healthProbeBindAddress: 'leaf', readinessEndpointName: 'leaf', livenessEndpointName: 'leaf' },
    controller: { groupKindConcurrency: 'leaf', cacheSyncTimeout: 'leaf', recoverPanic: 'leaf' },
    profilerAddress: 'leaf',
    maxConcurrentReconciles: 'leaf',
    verbosity: 'leaf',
    featureGates: 'leaf',
  },
  deployment: {
    replicas: 'leaf',
    nodeSelector: 'leaf',
    tolerations: 'leaf',
    affinity: 'leaf',
    containers: { items: CONTAINER },
    serviceAccountName: 'leaf',
    imagePullSecrets: 'leaf',
  },
  secretName: 'leaf',
  secretNamespace: 'leaf',
  fetchConfig: { url: 'leaf', selector: 'leaf' },
  additionalManifests: { name: 'leaf', namespace: 'leaf' },
};

/** v1alpha2 fields people put into v1alpha1 objects, and what v1alpha1 had instead. */
const V1ALPHA2_ONLY: Record<string, string> = {
  configSecret: 'in v1alpha1 the Secret is spec.secretName and spec.secretNamespace',
  imageUrl: 'in v1alpha1 the image is image: {repository, name, tag}',
  manifestPatches: 'v1alpha1 has no patches',
  patches: 'v1alpha1 has no patches',
  additionalDeployments: 'v1alpha1 has no additional deployments',
  oci: 'v1alpha1 fetches from url or selector only',
  additionalArgs: 'v1alpha1 has no additionalArgs; use deployment.containers[].args',
  diagnosticsAddress: 'v1alpha1 metrics has bindAddress only',
  insecureDiagnostics: 'v1alpha1 metrics has bindAddress only',
};

const CONVERT_HINT = `set apiVersion: ${OPERATOR_API_VERSION} and write the field in its v1alpha2 form (capi-gitops convert -f <file> rewrites the v1alpha1 fields)`;

/** Unknown fields: the v1alpha1 API server pruned them, so the webhook never saw them. */
function checkShape(value: Record<string, unknown>, shape: Shape, path: FieldPath, findings: Finding[]): void {
  for (const [field, inner] of Object.entries(value)) {
    const expected = ownValue(shape, field) as Shape[string] | undefined;
    if (expected === undefined) {
      const v2 = ownValue(V1ALPHA2_ONLY, field) as string | undefined;
      const guess = closestName(field, Object.keys(shape));
      findings.push({
        path: [...path, field],
        at: 'key',
        message: v2 ? `"${field}" is a v1alpha2 field and has no v1alpha1 equivalent: ${v2}` : `unknown v1alpha1 field "${field}"`,
        expected: `one of the v1alpha1 fields ${Object.keys(shape).join(', ')}`,
        hint: v2 ? CONVERT_HINT : guess ? `did you mean "${guess}"?` : "remove it: the operator's v1alpha1 API dropped unknown fields",
      });
    } else if (expected !== 'leaf' && 'items' in expected && Array.isArray(inner)) {
      inner.forEach((item, index) => {
        if (isPlainObject(item)) checkShape(item, expected.items as Shape, [...path, field, index], findings);
      });
    } else if (expected !== 'leaf' && !('items' in expected) && isPlainObject(inner)) {
      checkShape(inner, expected as Shape, [...path, field], findings);
    }
  }
}

const stringOr = (value: unknown): string => (typeof value === 'string' ? value : '');

/** provider_conversion.go fromImageMeta: repository/name, or name alone; then :tag. */
export function imageUrlOf(image: Record<string, unknown>): string {
  const repository = stringOr(image.repository);
  const name = stringOr(image.name);
  const tag = stringOr(image.tag);
  let result = repository === '' ? name : `${repository}/${name}`;
  if (tag !== '') result += `:${tag}`;
  return result;
}

/** The hub fields ConvertTo restores from the conversion-data annotation, in its order. */
function restoredEdits(object: Record<string, unknown>, spec: Record<string, unknown>, findings: Finding[]): ConversionEdit[] {
  const metadata = isPlainObject(object.metadata) ? object.metadata : {};
  const annotations = isPlainObject(metadata.annotations) ? metadata.annotations : {};
  if (!Object.hasOwn(annotations, CONVERSION_DATA_ANNOTATION)) return [];
  const source: FieldPath = ['metadata', 'annotations', CONVERSION_DATA_ANNOTATION];
  const edits: ConversionEdit[] = [];
  const onlyAnnotation = Object.keys(annotations).length === 1;
  edits.push({ op: 'delete', path: onlyAnnotation ? ['metadata', 'annotations'] : source, source });
  let hub: unknown;
  try {
    hub = JSON.parse(String(annotations[CONVERSION_DATA_ANNOTATION]));
  } catch {
    findings.push({
      path: source,
      at: 'value',
      message: 'the conversion-data annotation is not JSON',
      expected: 'the JSON the operator wrote (utilconversion.MarshalData)',
      hint: 'remove the annotation; it only carries v1alpha2 fields v1alpha1 cannot hold',
    });
    return edits;
  }
  const hubSpec = isPlainObject(hub) && isPlainObject(hub.spec) ? hub.spec : {};
  if (hubSpec.manifestPatches !== undefined)
    edits.push({ op: 'set', path: ['spec', 'manifestPatches'], value: hubSpec.manifestPatches, source });
  if (hubSpec.additionalDeployments !== undefined)
    edits.push({ op: 'set', path: ['spec', 'additionalDeployments'], value: hubSpec.additionalDeployments, source });
  const oci = isPlainObject(hubSpec.fetchConfig) ? hubSpec.fetchConfig.oci : undefined;
  if (oci !== undefined && oci !== '') edits.push({ op: 'set', path: ['spec', 'fetchConfig', 'oci'], value: oci, source });
  const additionalArgs = isPlainObject(hubSpec.manager) ? hubSpec.manager.additionalArgs : undefined;
  // ConvertTo restores additionalArgs only into a manager the object has.
  if (additionalArgs !== undefined && isPlainObject(spec.manager))
    edits.push({ op: 'set', path: ['spec', 'manager', 'additionalArgs'], value: additionalArgs, source });
  return edits;
}

/** The edits that turn a v1alpha1 provider object (nulls already pruned) into its v1alpha2 form. */
export function planV1alpha1Conversion(object: Record<string, unknown>): ConversionPlan {
  const findings: Finding[] = [];
  const edits: ConversionEdit[] = [{ op: 'set', path: ['apiVersion'], value: OPERATOR_API_VERSION, source: ['apiVersion'] }];
  if (!V1ALPHA1_KINDS.includes(String(object.kind))) {
    findings.push({
      path: ['apiVersion'],
      at: 'value',
      message: `${V1ALPHA1_API_VERSION} never served ${String(object.kind)}`,
      expected: `apiVersion: ${OPERATOR_API_VERSION}`,
      hint: `set apiVersion: ${OPERATOR_API_VERSION}`,
    });
    return { edits, findings };
  }
  const spec = isPlainObject(object.spec) ? object.spec : undefined;
  if (spec) {
    const unknown: Finding[] = [];
    checkShape(spec, V1ALPHA1_SPEC, ['spec'], unknown);
    findings.push(...unknown);
    // The v1alpha1 API server pruned them: the converted object does not have them either.
    for (const { path } of unknown) edits.push({ op: 'delete', path, source: path });
    edits.push(...secretEdits(spec, findings), ...imageEdits(spec, findings));
  }
  edits.push(...restoredEdits(object, spec ?? {}, findings));
  return { edits, findings };
}

/** Go's omitempty: an empty string is no value. */
function secretEdits(spec: Record<string, unknown>, findings: Finding[]): ConversionEdit[] {
  // The first of the two in the source becomes configSecret, in its place.
  const fields = Object.keys(spec).filter((field) => field === 'secretName' || field === 'secretNamespace');
  if (fields.length === 0) return [];
  const name = stringOr(spec.secretName);
  const namespace = stringOr(spec.secretNamespace);
  const edits: ConversionEdit[] = [];
  const [first, ...rest] = fields;
  if (name === '' && namespace === '') {
    for (const field of fields) edits.push({ op: 'delete', path: ['spec', field], source: ['spec', field] });
    return edits;
  }
  if (name === '') {
    findings.push({
      path: ['spec', 'secretNamespace'],
      at: 'key',
      message: 'secretNamespace without secretName has no v1alpha2 equivalent (configSecret.name is required)',
      expected: 'spec.secretName next to spec.secretNamespace',
      hint: 'add spec.secretName, or remove spec.secretNamespace',
    });
  }
  const configSecret: Record<string, string> = { name };
  if (namespace !== '') configSecret.namespace = namespace;
  edits.push({ op: 'rename', path: ['spec', first], key: 'configSecret', value: configSecret, source: ['spec', first] });
  for (const field of rest) edits.push({ op: 'delete', path: ['spec', field], source: ['spec', field] });
  return edits;
}

function imageEdits(spec: Record<string, unknown>, findings: Finding[]): ConversionEdit[] {
  const deployment = isPlainObject(spec.deployment) ? spec.deployment : {};
  const containers = Array.isArray(deployment.containers) ? deployment.containers : [];
  const edits: ConversionEdit[] = [];
  containers.forEach((container, index) => {
    if (!isPlainObject(container) || !Object.hasOwn(container, 'image')) return;
    const path: FieldPath = ['spec', 'deployment', 'containers', index, 'image'];
    const image = container.image;
    if (!isPlainObject(image)) {
      findings.push({
        path,
        at: 'value',
        message: 'image must be a mapping',
        expected: 'image: {repository, name, tag}',
        hint: 'write the image as repository, name and tag',
      });
      return;
    }
    const imageUrl = imageUrlOf(image);
    if (stringOr(image.name) === '') {
      findings.push({
        path,
        at: 'key',
        message: `image has no name: the operator's conversion (provider_conversion.go fromImageMeta) would give imageUrl ${JSON.stringify(imageUrl)}, which names no image`,
        expected: 'image.name, e.g. cluster-api-controller',
        hint: 'add image.name, or remove image to keep the released image',
      });
      // Reported here once; the imageUrl it would give is not checked again as a reference.
      edits.push({ op: 'delete', path, source: path });
      return;
    }
    edits.push({ op: 'rename', path, key: 'imageUrl', value: imageUrl, source: path });
  });
  return edits;
}

function parentOf(root: Record<string, unknown>, path: FieldPath, create: boolean): Record<string, unknown> | unknown[] | undefined {
  let node: unknown = root;
  for (const segment of path.slice(0, -1)) {
    const holder = node as Record<string | number, unknown>;
    if (ownValue(holder, segment) === undefined && create) setOwnValue(holder, segment, {});
    node = ownValue(holder, segment);
    if (!isPlainObject(node) && !Array.isArray(node)) return undefined;
  }
  return node as Record<string, unknown>;
}

/** The converted plain value; `object` is not changed. */
export function applyEditsToValue(object: Record<string, unknown>, edits: readonly ConversionEdit[]): Record<string, unknown> {
  const result = structuredClone(object);
  for (const edit of edits) {
    const last = edit.path[edit.path.length - 1] as string;
    const parent = parentOf(result, edit.path, edit.op === 'set') as Record<string, unknown> | undefined;
    if (!parent) continue;
    if (edit.op === 'set') setOwnValue(parent, last, structuredClone(edit.value));
    else if (edit.op === 'delete') delete parent[last];
    else {
      // Rebuilt so that the new key takes the old one's place.
      const entries = Object.entries(parent).map(([key, value]) => (key === last ? [edit.key, structuredClone(edit.value)] : [key, value]));
      for (const key of Object.keys(parent)) delete parent[key];
      for (const [key, value] of entries) setOwnValue(parent, key as string, value);
    }
  }
  return result;
}

/** Where a field of the converted object came from in the v1alpha1 source. */
export function sourcePathOf(edits: readonly ConversionEdit[], path: FieldPath): FieldPath {
  for (const edit of edits) {
    const target = edit.op === 'rename' ? [...edit.path.slice(0, -1), edit.key] : edit.path;
    if (edit.op !== 'delete' && target.length <= path.length && target.every((segment, i) => segment === path[i])) return edit.source;
  }
  return path;
}
