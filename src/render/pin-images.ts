/**
 * Images pinned by digest: every container image of a rendered component written as
 * `repository:tag@sha256:<digest>`, the tag kept for people reading the YAML. Pure: the digests
 * are resolved elsewhere (from the lockfile, or the registries) and passed in as a map from the
 * image as rendered to its digest. Images that already carry a digest are left as they are.
 */
import { describeObject, isPlainObject, type KObject } from '../core/kobject.js';
import type { RenderedComponent } from './types.js';

/** Kinds whose pod template is at spec.template (apps/v1, batch/v1, core/v1). */
const TEMPLATE_KINDS = new Set(['Deployment', 'DaemonSet', 'StatefulSet', 'ReplicaSet', 'ReplicationController', 'Job']);
const CONTAINER_LISTS = ['initContainers', 'containers'] as const;

/** One container's image in a rendered object. */
interface ContainerImage {
  /** `Deployment capi-system/capi-controller-manager`, as diagnostics name objects. */
  object: string;
  /** The field, e.g. `spec.template.spec.containers[0].image`. */
  path: string;
  /** The container's name (`#<index>` when it has none). */
  container: string;
  image: string;
}

/** Where an object keeps its pod spec, as a field path; undefined for objects that run no containers. */
function podSpecPath(obj: KObject): string[] | undefined {
  if (TEMPLATE_KINDS.has(obj.kind)) return ['spec', 'template', 'spec'];
  if (obj.kind === 'CronJob') return ['spec', 'jobTemplate', 'spec', 'template', 'spec'];
  if (obj.kind === 'Pod') return ['spec'];
  return undefined;
}

function at(value: unknown, path: readonly string[]): Record<string, unknown> | undefined {
  let node = value;
  for (const key of path) node = isPlainObject(node) ? node[key] : undefined;
  return isPlainObject(node) ? node : undefined;
}

/** Every container and init container image (a string) of the objects, in object and container order. */
export function containerImages(objects: readonly KObject[]): ContainerImage[] {
  const found: ContainerImage[] = [];
  for (const obj of objects) {
    const specPath = podSpecPath(obj);
    const podSpec = specPath && at(obj, specPath);
    if (!podSpec) continue;
    for (const list of CONTAINER_LISTS) {
      const containers = podSpec[list];
      if (!Array.isArray(containers)) continue;
      containers.forEach((container: unknown, index) => {
        if (!isPlainObject(container) || typeof container.image !== 'string') return;
        found.push({
          object: describeObject(obj),
          path: `${specPath.join('.')}.${list}[${index}].image`,
          container: typeof container.name === 'string' ? container.name : `#${index}`,
          image: container.image,
        });
      });
    }
  }
  return found;
}

/** Whether the reference already names a digest (`…@sha256:…`). */
export function hasDigest(image: string): boolean {
  return image.includes('@');
}

/** `image@digest`; an image that already names a digest is kept as written. */
export function pinnedImage(image: string, digest: string): string {
  return hasDigest(image) ? image : `${image}@${digest}`;
}

/** The objects with every image that `digests` knows pinned; objects without such an image are returned as they are. */
export function pinObjectImages(objects: readonly KObject[], digests: ReadonlyMap<string, string>): KObject[] {
  return objects.map((obj) => {
    const specPath = podSpecPath(obj);
    const podSpec = specPath && at(obj, specPath);
    if (!podSpec) return obj;
    const replaced: Record<string, unknown> = {};
    for (const list of CONTAINER_LISTS) {
      const containers = podSpec[list];
      if (!Array.isArray(containers)) continue;
      let changed = false;
      const next = containers.map((container: unknown) => {
        if (!isPlainObject(container) || typeof container.image !== 'string') return container;
        const digest = digests.get(container.image);
        if (digest === undefined || hasDigest(container.image)) return container;
        changed = true;
        return { ...container, image: pinnedImage(container.image, digest) };
      });
      if (changed) replaced[list] = next;
    }
    if (Object.keys(replaced).length === 0) return obj;
    return withPodSpec(obj, specPath, { ...podSpec, ...replaced });
  });
}

/** A copy of `obj` with the pod spec at `path` replaced; the objects on the way are copied, nothing else. */
function withPodSpec(obj: KObject, path: readonly string[], podSpec: Record<string, unknown>): KObject {
  const replace = (node: Record<string, unknown>, depth: number): Record<string, unknown> =>
    depth === path.length - 1
      ? { ...node, [path[depth]!]: podSpec }
      : { ...node, [path[depth]!]: replace(node[path[depth]!] as Record<string, unknown>, depth + 1) };
  return replace(obj, 0) as KObject;
}

/** A rendered component with its images pinned. */
export function pinComponentImages(component: RenderedComponent, digests: ReadonlyMap<string, string>): RenderedComponent {
  const objects = pinObjectImages(component.objects, digests);
  return objects.every((obj, i) => obj === component.objects[i]) ? component : { ...component, objects };
}
