/**
 * The wiring's roots that a write removed or created. A root (Flux's root Kustomization, Argo CD's
 * app-of-apps) syncs its own directory and is applied once by hand, so Git alone neither starts a
 * new one nor stops an old one: when a cluster leaves the output (removed, renamed, or a
 * single-cluster tree become a fleet) its root and what the root applied stay in the management
 * cluster, failing on a path Git no longer has; a new cluster is not reconciled until its root is
 * applied. These notes say what to run.
 */
import { posix } from 'node:path';
import { clusterRanges } from '../core/cluster-ranges.js';
import { CLUSTER_PLACEHOLDER, withoutCluster } from './fleet-groups.js';
import { compareStrings } from '../core/diagnostics.js';
import { apiGroup, type KObject } from '../core/kobject.js';
import { shellWord } from '../core/shell.js';
import { repositoryPath } from '../layout/wiring.js';
import { parseArtifact } from '../yaml/parse.js';
import { keepsAppliedOnDeletion } from './wiring.js';

const ROOT_KINDS = new Map([
  ['kustomize.toolkit.fluxcd.io', 'Kustomization'],
  ['argoproj.io', 'Application'],
]);
const WIRING_GROUP = /(^|\.)(fluxcd\.io|argoproj\.io)$/;

interface FileObject {
  file: string;
  object: KObject;
}

/** The GitOps objects of files (Flux's and Argo CD's); a file that does not parse is left out: these are notes. */
function wiringObjects(files: ReadonlyMap<string, string>): FileObject[] {
  const found: FileObject[] = [];
  for (const [file, text] of files) {
    if (!file.endsWith('.yaml') || posix.basename(file) === 'kustomization.yaml') continue;
    let objects: KObject[];
    try {
      objects = parseArtifact(text, { source: file });
    } catch {
      continue;
    }
    for (const object of objects) if (WIRING_GROUP.test(apiGroup(object.apiVersion))) found.push({ file, object });
  }
  return found;
}

/** Whether the object is a root: an Application or Kustomization that syncs the directory its own file is in. */
export function isRoot({ file, object }: FileObject): boolean {
  if (ROOT_KINDS.get(apiGroup(object.apiVersion)) !== object.kind) return false;
  const spec = object.spec as { path?: unknown; source?: { path?: unknown } } | undefined;
  const synced = object.kind === 'Kustomization' ? spec?.path : spec?.source?.path;
  const directory = posix.dirname(file);
  if (typeof synced !== 'string' || directory === '.') return false;
  const p = repositoryPath(synced);
  return p === directory || p.endsWith(`/${directory}`);
}

const identity = ({ object }: FileObject) =>
  [apiGroup(object.apiVersion), object.kind, object.metadata.namespace ?? '', object.metadata.name ?? ''].join('/');

const described = ({ object }: FileObject) =>
  `${object.kind} ${[object.metadata.namespace, object.metadata.name].filter(Boolean).join('/')}`;

/** kubectl's `<kind>.<group>/<name>`: unambiguous whichever other CRDs the cluster has. */
const resource = ({ object }: FileObject) => `${object.kind.toLowerCase()}.${apiGroup(object.apiVersion)}/${object.metadata.name ?? ''}`;

const clusterNames = new WeakMap<ReadonlySet<string>, Set<string>>();

/** The fleet clusters a tree's paths hold (`clusters/<name>/…`), read once per tree: a fleet removes many roots at once. */
function clustersOf(tree: ReadonlySet<string>): Set<string> {
  let names = clusterNames.get(tree);
  if (!names) {
    names = new Set([...tree].map((p) => /^clusters\/([^/]+)\//.exec(p)?.[1]).filter((c): c is string => c !== undefined));
    clusterNames.set(tree, names);
  }
  return names;
}

/**
 * What happened to a wiring directory, from the paths of the tree that no longer (or not yet) has
 * its root: `cluster us-2 left the output`, `flux/ is new in the output`, `flux/ has a new root`.
 */
function whatHappened(directory: string, otherTree: ReadonlySet<string>, change: 'left' | 'new'): string {
  const cluster = /^clusters\/([^/]+)\//.exec(`${directory}/`)?.[1];
  const subject = cluster === undefined ? `${directory}/` : `cluster ${cluster}`;
  const present = cluster === undefined ? [...otherTree].some((p) => p.startsWith(`${directory}/`)) : clustersOf(otherTree).has(cluster);
  if (!present) return change === 'left' ? `${subject} left the output` : `${subject} is new in the output`;
  return change === 'left' ? `${directory}/ no longer has its root` : `${directory}/ has a new root`;
}

interface WrittenTrees {
  /** Files the write removed, with their bytes before it. */
  removed: ReadonlyMap<string, string>;
  /** Files the write created (none at that path before), and how to read one. */
  created: { paths: readonly string[]; read: (file: string) => string };
  /** Every file of the new tree. */
  newPaths: ReadonlySet<string>;
  /** Every file of the tree before the write. */
  oldPaths: ReadonlySet<string>;
  /** A file's path as the user gives it to kubectl (the output directory as given, joined). */
  shown: (file: string) => string;
}

/**
 * How to delete a root and the other objects of its directory by hand: one `kubectl delete` per
 * namespace, the root first (deleted after its Applications or Kustomizations, it could apply
 * them again), and whether that keeps what they applied (`deletionPolicy: Orphan`, no resources
 * finalizer: wiring.ts keepsAppliedOnDeletion) or deletes it too.
 */
export function deleteByHand(
  root: FileObject | undefined,
  others: readonly FileObject[],
): { objects: FileObject[]; commands: string[]; safety: string } {
  const isApplier = (o: FileObject) => ROOT_KINDS.get(apiGroup(o.object.apiVersion)) === o.object.kind;
  const byResource = (a: FileObject, b: FileObject) => compareStrings(resource(a), resource(b));
  const appliers = [...(root ? [root] : []), ...others.filter(isApplier).sort(byResource)];
  const objects = [...appliers, ...others.filter((o) => !isApplier(o)).sort(byResource)];
  const namespaces = [...new Set(objects.map((o) => o.object.metadata.namespace ?? ''))];
  const commands = namespaces.map(
    (ns) =>
      `kubectl delete${ns ? ` -n ${shellWord(ns)}` : ''} ${objects
        .filter((o) => (o.object.metadata.namespace ?? '') === ns)
        .map((o) => shellWord(resource(o)))
        .join(' ')}`,
  );
  const unguarded = appliers.filter((o) => keepsAppliedOnDeletion(o.object) === undefined);
  const guards = [...new Set(appliers.map((o) => keepsAppliedOnDeletion(o.object)).filter((g) => g !== undefined))];
  // the guard is told of the objects that have it, not of every object listed (a GitRepository has no deletionPolicy)
  const rest = others.filter((o) => !isApplier(o));
  const restApplyNothing = rest.length > 0 ? `${kindsOf(rest)} ${rest.length === 1 ? 'applies' : 'apply'} nothing` : '';
  const safety =
    appliers.length === 0
      ? `which is safe: ${restApplyNothing}`
      : unguarded.length === 0
        ? `which is safe: ${kindsOf(appliers)} ${appliers.length === 1 ? 'has' : 'each have'} ${guards.join(' or ')}, so what ${appliers.length === 1 ? 'it' : 'they'} applied stays` +
          (restApplyNothing ? `, and ${restApplyNothing}` : '')
        : `but deleting ${unguarded.map(described).join(', ')} deletes what ${unguarded.length === 1 ? 'it' : 'they'} applied too`;
  return { objects, commands, safety };
}

/** The objects by kind, for a sentence: `the Application`, `the 6 Kustomizations`, `the AppProject and the 2 ConfigMaps`. */
function kindsOf(objects: readonly FileObject[]): string {
  const counts = new Map<string, number>();
  for (const { object } of objects) counts.set(object.kind, (counts.get(object.kind) ?? 0) + 1);
  const parts = [...counts].map(([kind, n]) => (n === 1 ? `the ${kind}` : `the ${n} ${kind}${/(s|x|ch|sh)$/.test(kind) ? 'es' : 's'}`));
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)!}`;
}

/**
 * What a new root needs from its own directory before it can sync it, applied with it: the source
 * a Kustomization reads when the chart draws one (`gitRepository.url`: the root would wait for a
 * GitRepository only the root itself applies), the AppProject an Application belongs to.
 */
function needsFirst(root: FileObject, trees: WrittenTrees): FileObject[] {
  const directory = posix.dirname(root.file);
  const spec = (root.object.spec ?? {}) as { sourceRef?: { kind?: unknown; name?: unknown; namespace?: unknown }; project?: unknown };
  const namespace = root.object.metadata.namespace ?? '';
  const siblings = trees.created.paths.filter((p) => p !== root.file && posix.dirname(p) === directory);
  return wiringObjects(new Map(siblings.map((p) => [p, trees.created.read(p)]))).filter(({ object }) => {
    const same = (object.metadata.namespace ?? '') === namespace;
    if (root.object.kind === 'Application') return object.kind === 'AppProject' && object.metadata.name === spec.project && same;
    const ref = spec.sourceRef;
    return (
      object.kind === ref?.kind &&
      object.metadata.name === ref.name &&
      (object.metadata.namespace ?? '') === (typeof ref.namespace === 'string' ? ref.namespace : namespace)
    );
  });
}

/**
 * The new clusters' notes told once where they are alike but for the cluster's name (a fleet's
 * first render, a hundred clusters added): `clusters c000–c099 are new …`, with `<cluster>`
 * where each one's name goes.
 */
function newClustersOnce(applies: readonly { cluster: string | undefined; note: string }[]): string[] {
  const NEW = `cluster ${CLUSTER_PLACEHOLDER} is new in the output: after pushing, apply its root `;
  const groups = new Map<string, string[]>();
  const out: string[] = [];
  for (const { cluster, note } of applies) {
    const key = cluster === undefined ? undefined : withoutCluster(note, cluster);
    if (key === undefined || !key.startsWith(NEW)) out.push(note);
    else groups.set(key, [...(groups.get(key) ?? []), cluster!]);
  }
  for (const [key, clusters] of groups)
    out.push(
      clusters.length === 1
        ? key.split(CLUSTER_PLACEHOLDER).join(clusters[0]!)
        : `clusters ${clusterRanges(clusters)} are new in the output: after pushing, apply each one's root ${key.slice(NEW.length)}`,
    );
  return out;
}

// a root's file is named after its kind (layout/names.ts objectFileName): only those are read
const rootLike = (p: string) => /^(kustomization|application)-.*\.yaml$/.test(posix.basename(p));

const applicationSetLike = (p: string) => /^applicationset-.*\.yaml$/.test(posix.basename(p));

/** The ApplicationSets of `files` in a directory the tree `paths` has no root file in: applied by hand. */
function unsyncedApplicationSets(files: ReadonlyMap<string, string>, paths: ReadonlySet<string>): FileObject[] {
  const synced = new Set([...paths].filter(rootLike).map((p) => posix.dirname(p)));
  const unsynced = [...files].filter(([p]) => applicationSetLike(p) && !synced.has(posix.dirname(p)));
  return wiringObjects(new Map(unsynced)).filter(({ object }) => object.kind === 'ApplicationSet');
}

/** How deleting an ApplicationSet leaves what its Applications applied: kept with preserveResourcesOnDeletion. */
function applicationSetSafety({ object }: FileObject): string {
  const syncPolicy = (object.spec as { syncPolicy?: { preserveResourcesOnDeletion?: unknown } } | undefined)?.syncPolicy;
  return syncPolicy?.preserveResourcesOnDeletion === true
    ? 'which is safe: it has preserveResourcesOnDeletion, so what its Applications applied stays'
    : 'but without preserveResourcesOnDeletion its Applications may delete what they applied with them';
}

/**
 * An ApplicationSet where no root syncs it (a fleet's, in the output's `argocd/`: each cluster's
 * root syncs its own `argocd/`) is applied once by hand, as a root is: until then it generates no
 * Application; removed, it stays and keeps generating them. A directory with an Application or
 * Kustomization file is taken as synced by it (the one-cluster `applicationSet: true`, whose root
 * syncs `argocd/`).
 */
function unsyncedApplicationSetNotes(trees: WrittenTrees): string[] {
  const created = new Map(trees.created.paths.filter(applicationSetLike).map((p) => [p, trees.created.read(p)]));
  const createdSets = unsyncedApplicationSets(created, trees.newPaths);
  const stillThere = new Set(createdSets.map(identity));
  const removed = unsyncedApplicationSets(trees.removed, trees.oldPaths).filter((set) => !stillThere.has(identity(set)));
  const removals = removed.map((set) => {
    const directory = posix.dirname(set.file);
    const left = ![...trees.newPaths].some((p) => p.startsWith(`${directory}/`));
    const { commands } = deleteByHand(undefined, [set]);
    return (
      `${left ? `${directory}/ left the output, but its ${described(set)}` : `${directory}/ no longer has ${described(set)}, but it`} ` +
      `(applied by hand) stays in the management cluster, where it keeps generating the Applications the clusters' roots ` +
      `apply now; delete it there, ${applicationSetSafety(set)}: ${commands.join('; ')}`
    );
  });
  return removals.concat(
    createdSets.map((set) => {
      const directory = posix.dirname(set.file);
      const before = [...trees.oldPaths].some((p) => p.startsWith(`${directory}/`));
      return (
        `${before ? `${directory}/ has a new ApplicationSet` : `${directory}/ is new in the output`}: after pushing, apply its ${described(set)} ` +
        `once (nothing syncs ${directory}/, so no Application it generates exists until then): ` +
        `kubectl apply -f ${shellWord(trees.shown(set.file))}`
      );
    }),
  );
}

/** One note per root the write removed (what to delete in the management cluster) and per root it created (what to apply once). */
export function wiringRootNotes(trees: WrittenTrees): string[] {
  // the roots' files are read, then the other files of a removed root's directory (never a removed cluster's CRDs)
  const removedRoots = wiringObjects(new Map([...trees.removed].filter(([p]) => rootLike(p)))).filter(isRoot);
  const rootDirectories = new Set(removedRoots.map((r) => posix.dirname(r.file)));
  const removed = wiringObjects(new Map([...trees.removed].filter(([p]) => rootDirectories.has(posix.dirname(p)))));
  const created = wiringObjects(new Map(trees.created.paths.filter(rootLike).map((p) => [p, trees.created.read(p)])));
  const stillThere = new Set(created.map(identity));
  const notes: string[] = [];
  for (const root of removed.filter(isRoot).filter((r) => !stillThere.has(identity(r)))) {
    const directory = posix.dirname(root.file);
    const gone = removed.filter((o) => posix.dirname(o.file) === directory && !stillThere.has(identity(o)) && o !== root);
    const { objects, commands, safety } = deleteByHand(root, gone);
    const others = objects.length - 1;
    const also = others === 0 ? '' : ` and the ${others} other object${others === 1 ? '' : 's'} of ${directory}/`;
    notes.push(
      `${whatHappened(directory, trees.newPaths, 'left')}, but its root ${described(root)} (applied by hand)${also} ` +
        `${others === 0 ? 'stays' : 'stay'} in the management cluster, failing on a path Git no longer has; ` +
        `delete ${others === 0 ? 'it' : 'them'} there, ${safety}: ${commands.join('; ')}`,
    );
  }
  const applies = created.filter(isRoot).map((root) => ({
    cluster: /^clusters\/([^/]+)\//.exec(root.file)?.[1],
    note:
      `${whatHappened(posix.dirname(root.file), trees.oldPaths, 'new')}: after pushing, apply its root ${described(root)} ` +
      `once (nothing reconciles it until then): kubectl apply ${[...needsFirst(root, trees), root].map((o) => `-f ${shellWord(trees.shown(o.file))}`).join(' ')}`,
  }));
  return [...notes, ...newClustersOnce(applies), ...unsyncedApplicationSetNotes(trees)];
}
