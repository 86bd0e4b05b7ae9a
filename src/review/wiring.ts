/**
 * GitOps wiring call-outs: where the components are applied (an Argo CD Application's or
 * ApplicationSet template's destination, a Flux Kustomization's kubeConfig and targetNamespace)
 * and what keeps them from being deleted (the Argo CD sync-options and Flux prune annotations the
 * layouts put on CRDs and Namespaces, a Kustomization's deletionPolicy, an Application's resources
 * finalizer). The object diff lists such a change as a field path among others; deleting a CRD
 * deletes every object of its kind, so a reviewer must see these.
 */
import { compareStrings } from '../core/diagnostics.js';
import { apiGroup, isPlainObject, type KObject } from '../core/kobject.js';
import { applicationSetLookups } from '../layout/fleet-applicationset.js';
import { repositoryPath } from '../layout/wiring.js';
import type { DeletionFinding, DestinationFinding } from './types.js';

type Base = { risk: 'info'; component: string; file: string; object: string };

const ARGOCD_GROUP = 'argoproj.io';
const FLUX_KUSTOMIZE_GROUP = 'kustomize.toolkit.fluxcd.io';
/** Argo CD's sync-options annotation and the options that keep an object from pruning and deletion. */
const SYNC_OPTIONS = 'argocd.argoproj.io/sync-options';
const KEEP_OPTIONS = ['Prune=false', 'Delete=false'];
/** kustomize-controller leaves an object so annotated in place when it prunes or deletes. */
const FLUX_PRUNE = 'kustomize.toolkit.fluxcd.io/prune';
/** Argo CD deletes an Application's objects with it when it carries one of these (argo-cd common/common.go). */
const RESOURCES_FINALIZER = /^resources-finalizer\.argocd\.argoproj\.io(\/(background|foreground))?$/;

function field(obj: unknown, ...path: string[]): unknown {
  let node = obj;
  for (const key of path) node = isPlainObject(node) ? node[key] : undefined;
  return node;
}

function describeValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

type Destination = { cluster: Map<string, string>; namespace: Map<string, string> };

const CLUSTER_FIELDS = { destination: ['server', 'name'], kustomization: ['kubeConfig'] };
/** A template field that reads a generator value: `{{ .values.destinationName }}`. */
const TEMPLATE_VALUE = /^\{\{\s*\.values\.(\w+)\s*\}\}$/;

/** The fields of `from` that are set, each as text, with `resolve` applied to each. */
function pick(from: unknown, names: string[], resolve: (value: string) => string = (v) => v): Map<string, string> {
  const picked = new Map<string, string>();
  for (const n of names) {
    const value = field(from, n) === undefined ? '' : resolve(describeValue(field(from, n)));
    if (value !== '') picked.set(n, value);
  }
  return picked;
}

/**
 * Where an object applies what it syncs, field by field, by cluster of a fleet: `''` for an
 * Application or Kustomization; for the fleet's ApplicationSet, each cluster its lookups name, with
 * `{{ .values.K }}` read from that cluster's entry (layout/fleet-applicationset.ts).
 */
function destinationsOf(group: string, kind: string, obj: KObject): Map<string, Destination> | undefined {
  if (group === ARGOCD_GROUP && kind === 'Application') {
    const destination = field(obj, 'spec', 'destination');
    return new Map([['', { cluster: pick(destination, CLUSTER_FIELDS.destination), namespace: pick(destination, ['namespace']) }]]);
  }
  if (group === FLUX_KUSTOMIZE_GROUP && kind === 'Kustomization')
    return new Map([['', { cluster: pick(obj.spec, CLUSTER_FIELDS.kustomization), namespace: pick(obj.spec, ['targetNamespace']) }]]);
  if (group !== ARGOCD_GROUP || kind !== 'ApplicationSet') return undefined;
  const destination = field(obj, 'spec', 'template', 'spec', 'destination');
  const lookups = applicationSetLookups(obj);
  const clusters = new Set([...lookups.keys()].map((key) => key.slice(key.indexOf('\0') + 1)));
  if (clusters.size === 0) clusters.add('');
  return new Map(
    [...clusters].map((c) => {
      const resolve = (value: string) => {
        const read = TEMPLATE_VALUE.exec(value);
        return read && c ? (lookups.get(`${read[1]}\0${c}`) ?? '') : value;
      };
      return [c, { cluster: pick(destination, CLUSTER_FIELDS.destination, resolve), namespace: pick(destination, ['namespace'], resolve) }];
    }),
  );
}

/** `name mgmt-a → mgmt-b` for each field that differs. */
function changedFields(a: Map<string, string>, b: Map<string, string>): string[] {
  return [...new Set([...a.keys(), ...b.keys()])]
    .filter((n) => a.get(n) !== b.get(n))
    .map((n) => `${n} ${a.get(n) ?? '(unset)'} → ${b.get(n) ?? '(unset)'}`);
}

function describeDestination(d: Destination | undefined): string {
  return d ? [...d.cluster, ...d.namespace].map(([n, v]) => `${n} ${v}`).join(', ') || '(none)' : '(none)';
}

function destinationFinding(group: string, kind: string, before: KObject, after: KObject, base: Base): DestinationFinding[] {
  const [a, b] = [destinationsOf(group, kind, before), destinationsOf(group, kind, after)];
  if (!a || !b) return [];
  const none: Destination = { cluster: new Map(), namespace: new Map() };
  const moved: { cluster: string; changes: string[]; elsewhere: boolean }[] = [];
  for (const cluster of [...new Set([...a.keys(), ...b.keys()])].sort(compareStrings)) {
    // a cluster that joins or leaves the fleet is its Applications' addition or removal
    if (!a.has(cluster) || !b.has(cluster)) continue;
    const [was, now] = [a.get(cluster) ?? none, b.get(cluster) ?? none];
    const elsewhere = changedFields(was.cluster, now.cluster);
    const changes = [...elsewhere, ...changedFields(was.namespace, now.namespace)];
    if (changes.length > 0) moved.push({ cluster, changes, elsewhere: elsewhere.length > 0 });
  }
  if (moved.length === 0) return [];
  const elsewhere = moved.some((m) => m.elsewhere);
  const consequence = elsewhere
    ? 'what it syncs is applied to another cluster, and what it applied at the old destination stays there'
    : 'objects without a namespace of their own are applied to another namespace';
  const fleet = moved[0]!.cluster !== '';
  const changes = moved.map((m) => (fleet ? `cluster ${m.cluster}: ${m.changes.join(', ')}` : m.changes.join(', '))).join('; ');
  return [
    {
      ...base,
      risk: elsewhere ? 'warning' : 'info',
      type: 'destination',
      from: fleet ? moved.map((m) => `${m.cluster}: ${describeDestination(a.get(m.cluster))}`).join('; ') : describeDestination(a.get('')),
      to: fleet ? moved.map((m) => `${m.cluster}: ${describeDestination(b.get(m.cluster))}`).join('; ') : describeDestination(b.get('')),
      ...(fleet ? { clusters: moved.map((m) => m.cluster) } : {}),
      message: `${base.object}: destination ${changes}: ${consequence}`,
    },
  ];
}

/** The guards an object carries itself, one per GitOps tool. */
const OBJECT_GUARDS = new Set<DeletionFinding['guard']>(['sync-options', 'prune-annotation']);

/** The guards an object carries against deletion, each with what it is for people. */
function guardsOf(group: string, kind: string, obj: KObject): Map<DeletionFinding['guard'], string> {
  const guards = new Map<DeletionFinding['guard'], string>();
  const annotations = obj.metadata?.annotations ?? {};
  const options = typeof annotations[SYNC_OPTIONS] === 'string' ? annotations[SYNC_OPTIONS].split(',').map((o) => o.trim()) : [];
  const kept = KEEP_OPTIONS.filter((o) => options.includes(o));
  if (kept.length > 0) guards.set('sync-options', `${SYNC_OPTIONS}: ${kept.join(',')}`);
  if (annotations[FLUX_PRUNE] === 'disabled') guards.set('prune-annotation', `${FLUX_PRUNE}: disabled`);
  if (group === FLUX_KUSTOMIZE_GROUP && kind === 'Kustomization' && field(obj, 'spec', 'deletionPolicy') === 'Orphan')
    guards.set('deletion-policy', 'deletionPolicy: Orphan');
  const finalizers = obj.metadata?.finalizers;
  if (
    group === ARGOCD_GROUP &&
    kind === 'Application' &&
    !(Array.isArray(finalizers) && finalizers.some((f) => typeof f === 'string' && RESOURCES_FINALIZER.test(f)))
  )
    guards.set('finalizer', 'no resources finalizer');
  return guards;
}

/**
 * For an Argo CD Application or a Flux Kustomization: the guard that keeps what it applied when it
 * is deleted (`deletionPolicy: Orphan`, no resources finalizer), undefined when it has none.
 * Undefined for other objects too: they apply nothing.
 */
export function keepsAppliedOnDeletion(obj: KObject): string | undefined {
  const group = apiGroup(obj.apiVersion);
  const guards = guardsOf(group, obj.kind, obj);
  return guards.get('deletion-policy') ?? guards.get('finalizer');
}

/** Whether a path the wiring syncs (a repository path, or a Git generator's `*` pattern) is the output's `directory`. */
function syncs(synced: unknown, directory: string): boolean {
  if (typeof synced !== 'string') return false;
  const p = repositoryPath(synced);
  if (!p.includes('*')) return p === directory || p.endsWith(`/${directory}`);
  // Go's path.Match, `*` within a segment: the pattern's leading segments are the output's root
  const segments = p.split('/');
  const extra = segments.length - directory.split('/').length;
  if (extra < 0 || segments.slice(0, extra).some((s) => s.includes('*'))) return false;
  const pattern = new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]*')}$`);
  return pattern.test([...segments.slice(0, extra), directory].join('/'));
}

const described = (obj: KObject) => `${obj.kind} ${[obj.metadata.namespace, obj.metadata.name].filter(Boolean).join('/')}`;
const identity = (obj: KObject) => `${obj.apiVersion}/${obj.kind}/${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;

/**
 * How a component directory the new tree no longer has is left installed: the Application or
 * Kustomization of the old tree that synced it is gone too and keeps what it applied on deletion
 * (`deletionPolicy: Orphan`, no resources finalizer), or an ApplicationSet's Application for it is
 * deleted with `preserveResourcesOnDeletion`. A reviewer reading the component's objects as
 * removed would expect it uninstalled. Undefined when nothing of the wiring synced it.
 */
export function keptOnRemoval(directory: string, before: Iterable<KObject>, after: Iterable<KObject>): string | undefined {
  const stays = new Set([...after].map(identity));
  for (const obj of before) {
    const group = apiGroup(obj.apiVersion);
    if (group === ARGOCD_GROUP && obj.kind === 'ApplicationSet') {
      const generators: unknown[] = Array.isArray(field(obj, 'spec', 'generators')) ? (field(obj, 'spec', 'generators') as unknown[]) : [];
      const directories = generators.flatMap((g) => {
        const dirs = field(g, 'git', 'directories');
        return Array.isArray(dirs) ? dirs : [];
      });
      const generated = directories.some((d) => field(d, 'exclude') !== true && syncs(field(d, 'path'), directory));
      if (generated && field(obj, 'spec', 'syncPolicy', 'preserveResourcesOnDeletion') === true)
        return `${described(obj)} deletes its Application for it with preserveResourcesOnDeletion`;
      continue;
    }
    if (stays.has(identity(obj))) continue;
    const synced =
      group === FLUX_KUSTOMIZE_GROUP && obj.kind === 'Kustomization'
        ? [field(obj, 'spec', 'path')]
        : group === ARGOCD_GROUP && obj.kind === 'Application'
          ? [
              field(obj, 'spec', 'source', 'path'),
              ...((field(obj, 'spec', 'sources') as unknown[] | undefined) ?? []).map((s) => field(s, 'path')),
            ]
          : [];
    const guard = synced.some((p) => syncs(p, directory)) ? keepsAppliedOnDeletion(obj) : undefined;
    if (guard) return `${described(obj)} is deleted with ${guard}`;
  }
  return undefined;
}

/** What deleting the object, or the Application or Kustomization, now takes with it. */
function lossOf(kind: string, guard: DeletionFinding['guard']): string {
  if (guard === 'deletion-policy') return 'deleting the Kustomization now deletes what it applied';
  if (guard === 'finalizer') return 'deleting the Application now deletes what it applied';
  if (kind === 'CustomResourceDefinition')
    return 'a prune or a deleted Application or Kustomization may now delete it, and with it every object of its kind';
  if (kind === 'Namespace') return 'a prune or a deleted Application or Kustomization may now delete it, and with it everything in it';
  return 'a prune or a deleted Application or Kustomization may now delete it';
}

function deletionFindings(group: string, kind: string, before: KObject, after: KObject, base: Base): DeletionFinding[] {
  const [a, b] = [guardsOf(group, kind, before), guardsOf(group, kind, after)];
  // an object moved from Flux to Argo CD (or back) trades one tool's guard for the other's: still guarded
  const keptOnObject = [...OBJECT_GUARDS].some((guard) => b.has(guard));
  return [...a]
    .filter(([guard]) => !b.has(guard) && !(keptOnObject && OBJECT_GUARDS.has(guard)))
    .map(([guard, was]) => ({
      ...base,
      risk: 'warning' as const,
      type: 'deletion' as const,
      guard,
      from: was,
      message:
        guard === 'finalizer'
          ? `${base.object}: Argo CD's resources finalizer added: ${lossOf(kind, guard)}`
          : `${base.object}: ${was} is gone: ${lossOf(kind, guard)}`,
    }));
}

/** The wiring call-outs of one changed object (an added or removed object is an object change already). */
export function wiringFindings(
  group: string,
  kind: string,
  before: KObject | undefined,
  after: KObject | undefined,
  base: Base,
): (DestinationFinding | DeletionFinding)[] {
  if (!before || !after) return [];
  return [...destinationFinding(group, kind, before, after, base), ...deletionFindings(group, kind, before, after, base)];
}
