/**
 * The labels and annotations of the objects clusterctl converts to their Go type and back
 * (scheme.Scheme.Convert, apimachinery's DefaultUnstructuredConverter): every Deployment and
 * DaemonSet in FixImages (cmd/clusterctl/internal/util/objs.go), and the bindings, webhook
 * configurations and CRDs in fixTargetNamespace (client/repository/components.go). Both maps are
 * map[string]string there: a null value becomes "", and any other value that is not a string fails
 * the conversion, and with it clusterctl's render. Other objects are read with GetLabels, which
 * drops such a map whole (labels.ts). Only these two maps are modelled: the rest of an object the
 * API server converts as strictly on apply.
 */
import { DiagnosticBag } from '../core/diagnostics.js';
import { describeObject, isPlainObject, type KObject } from '../core/kobject.js';
import { WEBHOOK_CONFIGURATION_KINDS } from '../core/kinds.js';
import { FIX_IMAGES_KINDS } from './images.js';

/** The kinds a provider's render converts: FixImages', then fixTargetNamespace's. */
export const PROVIDER_CONVERTED_KINDS: ReadonlySet<string> = new Set([
  ...FIX_IMAGES_KINDS,
  'ClusterRoleBinding',
  'RoleBinding',
  ...WEBHOOK_CONFIGURATION_KINDS,
  'CustomResourceDefinition',
]);

const MAPS = ['labels', 'annotations'] as const;

function typeName(value: unknown): string {
  if (Array.isArray(value)) return 'list';
  if (isPlainObject(value)) return 'map';
  return typeof value;
}

/** A map of strings as the conversion leaves it (null values ""), or the object unchanged with its problems in `bag`. */
function converted(obj: KObject, bag: DiagnosticBag): KObject {
  let metadata = obj.metadata;
  for (const key of MAPS) {
    const map: unknown = metadata?.[key];
    if (map === undefined || map === null) continue;
    const where = { object: describeObject(obj), expected: 'a string' };
    const hint =
      'quote the value in the components file (or the additionalManifests ConfigMap), a `${NAME}` reference that gives it too: ' +
      `labels and annotations hold strings only, and clusterctl refuses ${obj.kind} objects that hold anything else`;
    if (!isPlainObject(map)) {
      bag.add({ ...where, path: `metadata.${key}`, message: `is a ${typeName(map)}, not a map`, expected: 'a map of strings', hint });
      continue;
    }
    let nulls = false;
    for (const [name, value] of Object.entries(map)) {
      if (value === null) nulls = true;
      else if (typeof value !== 'string')
        bag.add({ ...where, path: `metadata.${key}["${name}"]`, message: `is a ${typeName(value)}, not a string`, hint });
    }
    if (nulls) metadata = { ...metadata, [key]: Object.fromEntries(Object.entries(map).map(([name, value]) => [name, value ?? ''])) };
  }
  return metadata === obj.metadata ? obj : { ...obj, metadata };
}

/** The objects of `kinds` with their labels and annotations as clusterctl's conversion leaves them; every problem in one error. */
export function convertTypedMetadata(objs: KObject[], kinds: ReadonlySet<string>): KObject[] {
  const bag = new DiagnosticBag();
  const result = objs.map((obj) => (kinds.has(obj.kind) ? converted(obj, bag) : obj));
  bag.throwIfAny();
  return result;
}
