/**
 * The review stage's entry: two rendered trees in, a semantic diff (ReviewReport) out.
 * Objects are matched by group/kind/namespace/name; an object whose namespace alone changed is
 * one changed object with a namespace-move finding.
 */
import { compareStrings, DiagnosticBag } from '../core/diagnostics.js';
import type { KObject } from '../core/kobject.js';
import { parseSemantic, compareSemantic } from '../core/versions.js';
import { MINOR_SKIP_MEANS, minorSkip } from '../resolve/upgrade-plan.js';
import { contractFindings, contractLookup, contractSeries } from './contracts.js';
import { compareCrds, conversionGoneText, crdChangeCount, describeCrdChanges, droppedVersionsText, CRD_SCHEMA_PATH } from './crd.js';
import { changedPaths, changedScalars } from './field-paths.js';
import { groupFindings } from './fleet-groups.js';
import {
  BASES,
  clusterOf,
  clusterOrder,
  describeId,
  objectKey,
  readTreeObjects,
  type ComponentInfo,
  type FleetBases,
  type TreeObject,
  type TreeObjects,
} from './objects.js';
import { describePermissions, gained, permissionsOf, RBAC_GROUP, RBAC_ROLE_KINDS } from './rbac.js';
import {
  REVIEW_SCHEMA_VERSION,
  type ChangeType,
  type ComponentDiff,
  type Finding,
  type KindGroup,
  type ObjectChange,
  type ReviewReport,
  type ReviewSide,
  type VersionFinding,
} from './types.js';
import { applicationSetClusters } from './applicationset-reach.js';
import { clusterLeavesFindings, leavingClusters } from './cluster-leaves.js';
import { webhookFindings } from './webhooks.js';
import { secretReplacedFindings } from './secret-replaced.js';
import { keptOnRemoval, wiringFindings } from './wiring.js';
import { WEBHOOK_CONFIGURATION_KINDS } from '../core/kinds.js';
import { declaredSecretFiles, withValuesHidden, withoutSopsChurn } from './secret-files.js';
import { workloadFindings, WORKLOAD_KINDS } from './workloads.js';
import { clusterGroups, type ReviewTree } from './read-tree.js';
import { FleetRoles } from './fleet-roles.js';

interface Pair {
  before?: TreeObject;
  after?: TreeObject;
}

function isCrd(t: TreeObject): boolean {
  return t.id.kind === 'CustomResourceDefinition' && t.id.group === 'apiextensions.k8s.io';
}

/** Pairs objects by identity, then pairs what is left by group/kind/name across namespaces. */
function pairObjects(a: TreeObjects, b: TreeObjects): Pair[] {
  const pairs: Pair[] = [];
  const onlyBefore: TreeObject[] = [];
  for (const [key, before] of a.objects) {
    const after = b.objects.get(key);
    if (after) pairs.push({ before, after });
    else onlyBefore.push(before);
  }
  const onlyAfter = [...b.objects].filter(([key]) => !a.objects.has(key)).map(([, t]) => t);
  const moveKey = (t: TreeObject) => `${t.cluster}/${t.id.group}/${t.id.kind}/${t.id.name}`;
  const count = (list: TreeObject[]) => list.reduce((m, t) => m.set(moveKey(t), (m.get(moveKey(t)) ?? 0) + 1), new Map<string, number>());
  const [beforeCount, afterCount] = [count(onlyBefore), count(onlyAfter)];
  const unique = (t: TreeObject) => beforeCount.get(moveKey(t)) === 1 && afterCount.get(moveKey(t)) === 1;
  const movedTo = new Map(onlyAfter.filter(unique).map((t) => [moveKey(t), t]));
  for (const before of onlyBefore) {
    const after = unique(before) ? movedTo.get(moveKey(before)) : undefined;
    if (after) movedTo.delete(moveKey(before));
    pairs.push({ before, after });
  }
  const paired = new Set(pairs.map((p) => p.after));
  for (const after of onlyAfter) if (!paired.has(after)) pairs.push({ after });
  return pairs;
}

function versionFinding(
  directory: string,
  name: string,
  from: string | undefined,
  to: string | undefined,
  file: string | undefined,
): VersionFinding | undefined {
  if (from === to) return undefined;
  const base = { type: 'version' as const, component: directory, ...(file ? { file } : {}), from: from ?? '', to: to ?? '' };
  if (from === undefined) return { ...base, risk: 'info', direction: 'added', message: `${name} ${to} added` };
  if (to === undefined) return { ...base, risk: 'info', direction: 'removed', message: `${name} ${from} removed` };
  const [a, b] = [parseSemantic(from), parseSemantic(to)];
  const order = a && b ? compareSemantic(a, b) : 0;
  if (order > 0) return { ...base, risk: 'warning', direction: 'downgrade', message: `${name} downgraded ${from} → ${to}` };
  // the plan and render warn of such a jump; the reviewer of the change must see it too
  const skip = order < 0 ? minorSkip(name, from, to) : undefined;
  if (skip)
    return {
      ...base,
      risk: 'warning',
      direction: 'upgrade',
      message: `${name} upgraded ${from} → ${to}, which skips more than 3 minor versions: ${MINOR_SKIP_MEANS[skip]}`,
    };
  if (order < 0) return { ...base, risk: 'info', direction: 'upgrade', message: `${name} upgraded ${from} → ${to}` };
  return { ...base, risk: 'info', direction: 'changed', message: `${name} ${from} → ${to}` };
}

/**
 * An object moved to another namespace. A Deployment's move is a provider's: during the sync the
 * old manager and the new one both run, their leader-election leases in different namespaces, so
 * each thinks it leads; clusterctl cannot move a provider's namespace on upgrade either. A
 * StatefulSet's or DaemonSet's move runs the old and the new one at once the same way (a provider's
 * DaemonSet twice on every node); a DaemonSet has no replicas to scale, so it is deleted instead.
 */
function namespaceMove(
  from: TreeObject['id'],
  to: string,
  base: { risk: 'info'; component: string; file: string; object: string },
): Finding {
  const message = `${from.kind}/${from.name} moved from namespace ${from.namespace || '(cluster)'} to ${to || '(cluster)'}`;
  const finding = { ...base, type: 'namespace-move' as const, from: from.namespace, to, message };
  if (from.group !== 'apps' || !WORKLOAD_KINDS.has(from.kind) || !from.namespace) return finding;
  const kind = from.kind.toLowerCase();
  const stop =
    from.kind === 'DaemonSet'
      ? `\`kubectl -n ${from.namespace} delete daemonset ${from.name}\``
      : `\`kubectl -n ${from.namespace} scale ${kind} ${from.name} --replicas=0\``;
  const both =
    from.kind === 'Deployment'
      ? `during the sync the old and new managers both run, each leading by its own lease (leader election is per namespace)`
      : `during the sync the old and new ${from.kind}s both run${from.kind === 'DaemonSet' ? ' on every node' : ''} (the old one is pruned once the new one is applied), and a leader election among them is per namespace, so each leads`;
  return {
    ...finding,
    risk: 'warning',
    message:
      `${message}: ${both}, ` +
      `and clusterctl cannot change a provider's namespace on upgrade; to move safely, stop the old one first ` +
      `(${stop} before the sync), ` +
      `or sync in two steps: remove the provider, then add it in ${to || 'the new namespace'}`,
  };
}

/** `sides`: both sides' objects, for what a removed object relied on that goes with it. */
function objectFindings(
  pair: Pair,
  component: string,
  file: string,
  sides: [ReadonlyMap<string, TreeObject>, ReadonlyMap<string, TreeObject>],
): Finding[] {
  const t = (pair.after ?? pair.before)!;
  const before: KObject | undefined = pair.before?.object;
  const after: KObject | undefined = pair.after?.object;
  const object = describeId(t.id);
  const base = { risk: 'info' as const, component, file, object };
  const findings: Finding[] = [];
  if (pair.before && pair.after && pair.before.id.namespace !== pair.after.id.namespace)
    findings.push(namespaceMove(pair.before.id, pair.after.id.namespace, base));
  if (t.id.group === 'apps' && WORKLOAD_KINDS.has(t.id.kind)) findings.push(...workloadFindings(before, after, base));
  if (t.id.group === 'admissionregistration.k8s.io' && WEBHOOK_CONFIGURATION_KINDS.has(t.id.kind))
    findings.push(...webhookFindings(before, after, base));
  // the operator applies an artifact's objects and prunes none the way Argo CD and Flux do
  if (pair.before && !pair.after && !pair.before.artifact && t.id.group === '' && t.id.kind === 'Secret')
    findings.push(...secretReplacedFindings(pair.before, sides, base));
  // the operator applies an artifact's objects, not Argo CD or Flux: their guards are not the wiring's
  if (!pair.after?.artifact) findings.push(...wiringFindings(t.id.group, t.id.kind, before, after, base));
  if (t.id.group === RBAC_GROUP && RBAC_ROLE_KINDS.has(t.id.kind)) {
    const [pa, pb] = [permissionsOf(before), permissionsOf(after)];
    for (const direction of ['widened', 'narrowed'] as const) {
      const widened = direction === 'widened';
      const delta = widened ? gained(pa, pb) : gained(pb, pa);
      if (!delta.permissions.length && !delta.nonResourceURLs.length) continue;
      findings.push({
        ...base,
        ...(widened ? { risk: 'warning' as const } : {}),
        type: 'rbac',
        direction,
        ...delta,
        message: `${object}: RBAC ${direction}${widened && delta.wildcard ? ' (wildcard)' : ''}: ${describePermissions(delta)}`,
      });
    }
  }
  if (isCrd(t)) {
    const changes = compareCrds(before, after);
    const prefix = t.cluster ? `${t.cluster}\0` : '';
    const serviceKept = (namespace: string, name: string) => {
      const key = prefix + objectKey({ group: '', kind: 'Service', namespace, name });
      return !sides[0].has(key) || sides[1].has(key);
    };
    if (crdChangeCount(changes) > 0) {
      // a version no longer served breaks its clients as a removed one does (the API server stops serving it)
      const breaking =
        changes.versionsRemoved.length > 0 ||
        changes.served.some((s) => s.from && !s.to) ||
        changes.storage.length > 0 ||
        changes.schema.some((s) => s.propertiesRemoved.length > 0) ||
        changes.conversion?.to === 'Webhook';
      findings.push({
        ...base,
        risk: breaking ? 'warning' : 'info',
        type: 'crd',
        ...(after ? {} : { removed: true as const }),
        ...changes,
        message: `${t.id.name}: ${after ? describeCrdChanges(changes) + droppedVersionsText(t.id.name, before, after, changes.versionsRemoved) : crdRemovedText(t.id.name) + conversionGoneText(before!, serviceKept)}`,
      });
    }
  }
  return findings;
}

/**
 * A CRD gone from the output stays in the cluster: the wiring never prunes a CRD (it would delete
 * every object of it), as clusterctl's upgrade keeps CRDs (upgrader.go doUpgrade, IncludeCRDs false).
 */
function crdRemovedText(name: string): string {
  return (
    'CRD removed from the output: a CRD is never pruned, so it and its objects stay in the cluster; ' +
    `once none of its objects is left, delete it by hand: kubectl delete customresourcedefinition ${name}`
  );
}

const WIRING_KINDS = new Set(['argoproj.io/Application', 'argoproj.io/ApplicationSet', 'kustomize.toolkit.fluxcd.io/Kustomization']);

function isWiring(t: TreeObject): boolean {
  return WIRING_KINDS.has(`${t.id.group}/${t.id.kind}`) && !t.artifact;
}

/**
 * A removed component whose wiring keeps what it applied (wiring.ts keptOnRemoval): told as a
 * warning, since its objects read as removed and the provider stays installed.
 */
function keptInstalled(v: VersionFinding, directory: string, a: TreeObjects, b: TreeObjects, fleetAppSet: TreeObject | undefined): void {
  const objects = (t: TreeObjects) => [...t.objects.values()].map((o) => o.object);
  const how = keptOnRemoval(directory, [...objects(a), ...(fleetAppSet ? [fleetAppSet.object] : [])], objects(b));
  if (!how) return;
  v.risk = 'warning';
  v.message +=
    `: ${how}, so nothing it applied is deleted: the provider stays installed, its controllers running; ` +
    `to uninstall it, delete its objects listed under ${directory} by hand`;
}

function isFleetApplicationSet(t: TreeObject): boolean {
  return t.id.group === 'argoproj.io' && t.id.kind === 'ApplicationSet' && !t.cluster;
}

function emptyComponent(directory: string, a: TreeObjects, b: TreeObjects): ComponentDiff {
  const old = a.components.get(directory);
  const now = b.components.get(directory);
  // a base holds one version on both sides: it only appears or goes as clusters share more or less
  const [oldVersion, newVersion] = directory.startsWith(BASES)
    ? [old?.version ?? now?.version, now?.version ?? old?.version]
    : [old?.version, now?.version];
  return {
    directory,
    name: now?.name ?? old?.name ?? directory,
    ...(oldVersion ? { oldVersion } : {}),
    ...(newVersion ? { newVersion } : {}),
    added: 0,
    removed: 0,
    changed: 0,
    kinds: [],
  };
}

/**
 * Components that change directory, one gone and one new of the same name in the same cluster (a
 * switch between layouts: argocd's `01-cluster-api`, the operator layout's
 * `02-providers/core-cluster-api`): the directory gone → the new one. The provider continues there.
 */
function movedComponents(a: TreeObjects, b: TreeObjects): Map<string, string> {
  const byName = (from: TreeObjects, other: TreeObjects) => {
    const found = new Map<string, string[]>();
    for (const [directory, info] of from.components) {
      if (other.components.has(directory) || directory.startsWith(BASES) || info.version === undefined) continue;
      const key = `${clusterOf(`${directory}/`)}\0${info.name}`;
      found.set(key, [...(found.get(key) ?? []), directory]);
    }
    return found;
  };
  const [gone, now] = [byName(a, b), byName(b, a)];
  const moved = new Map<string, string>();
  for (const [key, from] of gone) {
    const to = now.get(key);
    if (from.length === 1 && to?.length === 1) moved.set(from[0]!, to[0]!);
  }
  return moved;
}

/** Each finding that clusters' own directories have alike names all those clusters (the formats tell it once). */
function withSameInClusters(findings: Finding[]): Finding[] {
  for (const group of groupFindings(findings))
    if (group.clusters.length > 1) for (const f of group.members) f.sameInClusters = group.clusters;
  return findings;
}

/** A side held in memory, in groups (read-tree.ts clusterGroups). */
function groupsOf(files: ReadonlyMap<string, string>) {
  const { rest, clusters } = clusterGroups(files.keys());
  const texts = (paths: readonly string[]) => new Map(paths.map((p) => [p, files.get(p)!]));
  return { rest: texts(rest), clusters: clusterOrder(clusters.keys()), cluster: (name: string) => texts(clusters.get(name) ?? []) };
}

export function reviewChanges(oldSide: ReviewSide, newSide: ReviewSide): ReviewReport {
  const [oldGroups, newGroups] = [groupsOf(oldSide.files), groupsOf(newSide.files)];
  const review = new ChangesReview(oldSide, newSide, oldGroups.rest, newGroups.rest);
  for (const cluster of clusterOrder([...oldGroups.clusters, ...newGroups.clusters]))
    review.addCluster(oldGroups.cluster(cluster), newGroups.cluster(cluster));
  return review.report();
}

/** A review side whose files are read a cluster at a time (read-tree.ts). */
export type ReviewTreeSide = Omit<ReviewSide, 'files'> & { tree: ReviewTree };

/** reviewChanges over trees read a cluster at a time: a fleet's two sides are never all in memory. */
export async function reviewTrees(oldSide: ReviewTreeSide, newSide: ReviewTreeSide): Promise<ReviewReport> {
  // a file out of bounds among those read already (all of a single cluster's tree): no review, and
  // each side's every cluster read for theirs, so that all are told in one run
  if ([oldSide, newSide].some((side) => (side.tree.boundsProblems?.() ?? []).length > 0))
    for (const { tree } of [oldSide, newSide]) if (tree.boundsProblems) for (const cluster of tree.clusters) await tree.cluster(cluster);
  throwBoundsProblems(oldSide, newSide);
  const review = new ChangesReview(oldSide, newSide, oldSide.tree.rest, newSide.tree.rest);
  const clusters = clusterOrder([...oldSide.tree.clusters, ...newSide.tree.clusters]);
  const read = (cluster: string) => Promise.all([oldSide.tree.cluster(cluster), newSide.tree.cluster(cluster)]);
  // the next cluster is read while this one is reviewed: two clusters' files at most are in memory
  let next = clusters.length > 0 ? read(clusters[0]!) : undefined;
  for (let i = 0; i < clusters.length; i++) {
    const files = await next!;
    next = i + 1 < clusters.length ? read(clusters[i + 1]!) : undefined;
    review.addCluster(...files);
  }
  throwBoundsProblems(oldSide, newSide);
  return review.report();
}

/**
 * A committed file out of bounds is never parsed (the review goes on without it), and its problem
 * is told before any other of the review, both sides' in one run, as when every file was checked
 * before the review began.
 */
function throwBoundsProblems(...sides: ReviewTreeSide[]): void {
  const bag = new DiagnosticBag();
  for (const side of sides) for (const d of side.tree.boundsProblems?.() ?? []) bag.add(d);
  bag.throwIfAny();
}

/**
 * The review of two trees, a fleet's cluster at a time (`addCluster`): each cluster's objects are
 * parsed, paired and dropped before the next is read, so a review's memory is one cluster's
 * objects and the fleet's shared files, not the fleet's (ten times its text in a 200-cluster
 * fleet). What the clusters share (a base's change, the components, the contracts) is gathered.
 */
class ChangesReview {
  // both sides' problems in one run
  private readonly bag = new DiagnosticBag();
  private readonly oldBases: FleetBases;
  private readonly newBases: FleetBases;
  /** The old side's fleet ApplicationSet (outside every cluster's directory). */
  private readonly oldAppSet: TreeObject | undefined;
  /** Every component of either side met so far, and the gathered report. */
  private readonly oldComponents = new Map<string, ComponentInfo>();
  private readonly newComponents = new Map<string, ComponentInfo>();
  private readonly secretFiles = new Set<string>();
  private readonly components = new Map<string, ComponentDiff>();
  private readonly findings: Finding[] = [];
  private readonly shared = new Map<string, ObjectChange & { clusters: string[] }>();
  private readonly moved = new Set<string>();
  /** The roles of clusters already in the fleet, against which a new cluster's are told widened. */
  private readonly fleetRoles = new FleetRoles();

  constructor(
    private readonly oldSide: Omit<ReviewSide, 'files'>,
    private readonly newSide: Omit<ReviewSide, 'files'>,
    oldRest: ReadonlyMap<string, string>,
    newRest: ReadonlyMap<string, string>,
  ) {
    this.oldBases = { files: oldRest, parsed: new Map() };
    this.newBases = { files: newRest, parsed: new Map() };
    const objects = this.addGroup(oldRest, newRest);
    this.oldAppSet = objects && [...objects[0].objects.values()].find(isFleetApplicationSet);
  }

  private read(files: ReadonlyMap<string, string>, directory: string | undefined, bases: FleetBases): TreeObjects | undefined {
    try {
      return readTreeObjects(files, directory, bases);
    } catch (err) {
      this.bag.addError(err);
      return undefined;
    }
  }

  /** A fleet cluster's files on each side (none on a side that does not have it). */
  addCluster(oldFiles: ReadonlyMap<string, string>, newFiles: ReadonlyMap<string, string>): void {
    this.addGroup(oldFiles, newFiles);
  }

  private addGroup(oldFiles: ReadonlyMap<string, string>, newFiles: ReadonlyMap<string, string>): [TreeObjects, TreeObjects] | undefined {
    const [oldObjects, newObjects] = [
      this.read(oldFiles, this.oldSide.directory, this.oldBases),
      this.read(newFiles, this.newSide.directory, this.newBases),
    ];
    // a problem fails the review: the rest is read for its problems only
    if (!oldObjects || !newObjects || this.bag.size > 0) return undefined;
    // files holding secret values (inline): a key only one side has may be a rotated secret, and
    // every value of a finding about them is hidden; a fleet's README lists every cluster's
    for (const files of [oldFiles, newFiles]) for (const file of declaredSecretFiles(files)) this.secretFiles.add(file);
    for (const [directory, info] of oldObjects.components) this.oldComponents.set(directory, info);
    for (const [directory, info] of newObjects.components) this.newComponents.set(directory, info);
    this.compare(oldObjects, newObjects);
    return [oldObjects, newObjects];
  }

  // where a component's version is written: its kustomization's provenance, or its artifact ConfigMap
  private readonly versionFile = (directory: string) =>
    (this.newComponents.get(directory) ?? this.oldComponents.get(directory))?.file ??
    (directory ? `${directory}/kustomization.yaml` : undefined);

  /** One group's objects, each side's: a fleet cluster's (with the bases it lists), or those outside every cluster. */
  private compare(a: TreeObjects, b: TreeObjects): void {
    const { components, findings, shared, secretFiles } = this;
    // a cluster that leaves a fleet keeps what was applied to it: its objects' removal is told once, as that
    const leaving = leavingClusters(a, b);
    this.fleetRoles.addOld(a.objects.values());
    const oldClusters = new Set([...a.objects.values()].map((t) => t.cluster));
    // the fleet's bases are the shared group's components: a base's change is told under it
    const [allA, allB] = [
      { ...a, components: this.oldComponents },
      { ...b, components: this.newComponents },
    ];
    const moved = movedComponents(a, b);
    for (const from of moved.keys()) this.moved.add(from);
    const movedFrom = new Map([...moved].map(([from, to]) => [to, from]));
    for (const directory of new Set([...a.components.keys(), ...b.components.keys()])) {
      const diff = emptyComponent(directory, a, b);
      components.set(directory, diff);
      // a moved component's version is told once, at its new directory
      const to = moved.get(directory);
      if (to !== undefined) {
        diff.newVersion = b.components.get(to)!.version;
        continue;
      }
      const from = movedFrom.get(directory);
      if (from !== undefined) diff.oldVersion = a.components.get(from)!.version;
      const v = versionFinding(directory, diff.name, diff.oldVersion, diff.newVersion, this.versionFile(directory));
      if (v?.direction === 'removed' && !leaving.has(clusterOf(`${directory}/`))) keptInstalled(v, directory, a, b, this.oldAppSet);
      if (v) findings.push(v);
    }

    // a change a fleet's clusters get from one shared base (the same files before and after) is
    // reported once, under the base, naming the clusters it reaches
    for (const pair of pairObjects(a, b)) {
      const t = (pair.after ?? pair.before)!;
      const change: ChangeType = !pair.before ? 'added' : !pair.after ? 'removed' : 'changed';
      let paths: string[] = [];
      let folded = 0;
      let hide = false;
      if (change === 'changed') {
        hide = secretFiles.has(pair.before!.file) || secretFiles.has(pair.after!.file);
        paths = withoutSopsChurn(pair.before!.object, pair.after!.object, changedPaths(pair.before!.object, pair.after!.object, hide));
        if (paths.length === 0) continue;
        if (isCrd(t)) {
          const kept = paths.filter((p) => !CRD_SCHEMA_PATH.test(p));
          folded = paths.length - kept.length;
          paths = kept;
        }
      }
      const fromBase = (!pair.before || pair.before.base) && (!pair.after || pair.after.base);
      const directory = fromBase ? t.base! : t.component;
      const key = [directory, change, pair.before?.file, pair.after?.file, t.id.group, t.id.kind, t.id.namespace, t.id.name].join('\0');
      if (fromBase) {
        const earlier = shared.get(key);
        if (earlier) {
          earlier.clusters.push(t.cluster);
          continue;
        }
        if (!components.has(directory)) components.set(directory, emptyComponent(directory, allA, allB));
      }
      const diff = components.get(directory)!;
      diff[change]++;
      const entry: ObjectChange = { ...t.id, change, file: t.file, paths, ...(folded ? { schemaPathsFolded: folded } : {}) };
      // the wiring holds no secret value (the final gate refuses one outside a file of secrets):
      // its revision, path, namespace read old → new
      const values = change === 'changed' && !hide && isWiring(t) ? changedScalars(pair.before!.object, pair.after!.object) : [];
      if (values.length > 0) entry.values = values;
      if (fromBase) shared.set(key, Object.assign(entry, { clusters: [t.cluster] }));
      else if (isFleetApplicationSet(t)) {
        // the fleet's one ApplicationSet generates every cluster's Applications: name those it retargets
        const clusters = applicationSetClusters(pair.before?.object, pair.after?.object, paths);
        if (clusters.length > 0) entry.clusters = clusters;
      }
      let group = diff.kinds.find((k) => k.group === t.id.group && k.kind === t.id.kind);
      if (!group) diff.kinds.push((group = { group: t.id.group, kind: t.id.kind, objects: [] }));
      group.objects.push(entry);
      // a base's finding is about the clusters of its object change (that list, filled as they are met), not the base's
      const found = !pair.after && leaving.has(t.cluster) ? [] : objectFindings(pair, directory, t.file, [a.objects, b.objects]);
      if (fromBase) for (const f of found) f.clusters = shared.get(key)!.clusters;
      // a role a cluster new to the fleet gets: told widened only if no cluster already in it has it alike
      const newCluster = !pair.before && t.cluster !== '' && !oldClusters.has(t.cluster);
      if (newCluster) this.fleetRoles.addNewCluster(t.cluster);
      findings.push(...found.filter((f) => !(newCluster && this.fleetRoles.defer(f, t))));
    }
    // the fleet's ApplicationSet (outside every cluster) says whether it deletes a leaving cluster's Applications
    const withAppSet = this.oldAppSet ? new Map([...a.objects, ['\0fleet', this.oldAppSet]]) : a.objects;
    findings.push(...clusterLeavesFindings({ ...a, objects: withAppSet }, leaving));
  }

  report(): ReviewReport {
    this.bag.throwIfAny();
    const { oldSide, newSide, components, findings, secretFiles } = this;
    const [a, b] = [this.oldComponents, this.newComponents];
    const series = [...(oldSide.contracts ?? []), ...(newSide.contracts ?? [])];
    for (const info of [...a.values(), ...b.values()])
      if (info.metadata && info.version) series.push(...contractSeries(info.name, info.version, info.metadata));
    const told = [...components.values()].filter((c) => !this.moved.has(c.directory));
    findings.push(...this.fleetRoles.settle());
    findings.push(...contractFindings(told, b, contractLookup(series), this.versionFile));
    for (const entry of this.shared.values()) entry.clusters.sort(compareStrings);

    // in install order, as the directories' numbers put them; an operator layout's providers share one directory
    const sortKey = (directory: string) => {
      const order = (b.get(directory) ?? a.get(directory))?.order;
      const at = directory.lastIndexOf('/');
      return order === undefined ? directory : `${directory.slice(0, at + 1)}${String(order).padStart(2, '0')}-${directory.slice(at + 1)}`;
    };
    const list = [...components.values()]
      .filter((c) => c.added + c.removed + c.changed > 0 || c.oldVersion !== c.newVersion)
      .sort((x, y) => compareStrings(sortKey(x.directory), sortKey(y.directory)));
    for (const c of list) sortKinds(c.kinds);
    findings.sort(
      (x, y) =>
        compareStrings(sortKey(x.component), sortKey(y.component)) ||
        compareStrings(x.type, y.type) ||
        compareStrings(x.object ?? '', y.object ?? '') ||
        compareStrings(x.message, y.message),
    );
    const warnings = findings.filter((f) => f.risk === 'warning').length;
    const total = (field: 'added' | 'removed' | 'changed') => list.reduce((n, c) => n + c[field], 0);
    return {
      schemaVersion: REVIEW_SCHEMA_VERSION,
      old: { label: oldSide.label },
      new: { label: newSide.label },
      summary: {
        added: total('added'),
        removed: total('removed'),
        changed: total('changed'),
        warnings,
        risk: warnings > 0 ? 'warning' : findings.length > 0 ? 'info' : 'none',
      },
      components: list,
      findings: withSameInClusters(findings.map((f) => (f.file && secretFiles.has(f.file) ? withValuesHidden(f, f.file) : f))),
    };
  }
}

/** A component's kinds by group and kind, each kind's objects by namespace, name and change: the order the report lists them in. */
export function sortKinds(kinds: KindGroup[]): void {
  kinds.sort((x, y) => compareStrings(x.group, y.group) || compareStrings(x.kind, y.kind));
  for (const k of kinds)
    k.objects.sort(
      (x, y) => compareStrings(x.namespace, y.namespace) || compareStrings(x.name, y.name) || compareStrings(x.change, y.change),
    );
}
