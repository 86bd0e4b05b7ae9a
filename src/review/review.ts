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
import { compareCrds, crdChangeCount, describeCrdChanges, CRD_SCHEMA_PATH } from './crd.js';
import { changedPaths, changedScalars } from './field-paths.js';
import { groupFindings } from './fleet-groups.js';
import { BASES, clusterOf, describeId, readTreeObjects, type TreeObject, type TreeObjects } from './objects.js';
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
import { wiringFindings } from './wiring.js';
import { WEBHOOK_CONFIGURATION_KINDS } from '../core/kinds.js';
import { declaredSecretFiles, withValuesHidden, withoutSopsChurn } from './secret-files.js';
import { workloadFindings, WORKLOAD_KINDS } from './workloads.js';

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

function objectFindings(pair: Pair, component: string, file: string): Finding[] {
  const t = (pair.after ?? pair.before)!;
  const before: KObject | undefined = pair.before?.object;
  const after: KObject | undefined = pair.after?.object;
  const object = describeId(t.id);
  const base = { risk: 'info' as const, component, file, object };
  const findings: Finding[] = [];
  if (pair.before && pair.after && pair.before.id.namespace !== pair.after.id.namespace) {
    findings.push({
      ...base,
      type: 'namespace-move',
      from: pair.before.id.namespace,
      to: pair.after.id.namespace,
      message: `${t.id.kind}/${t.id.name} moved from namespace ${pair.before.id.namespace || '(cluster)'} to ${pair.after.id.namespace || '(cluster)'}`,
    });
  }
  if (t.id.group === 'apps' && WORKLOAD_KINDS.has(t.id.kind)) findings.push(...workloadFindings(before, after, base));
  if (t.id.group === 'admissionregistration.k8s.io' && WEBHOOK_CONFIGURATION_KINDS.has(t.id.kind))
    findings.push(...webhookFindings(before, after, base));
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
        ...changes,
        message: `${t.id.name}: ${after ? describeCrdChanges(changes) : crdRemovedText(t.id.name)}`,
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

export function reviewChanges(oldSide: ReviewSide, newSide: ReviewSide): ReviewReport {
  // both sides' problems in one run
  const bag = new DiagnosticBag();
  const read = (side: ReviewSide) => {
    try {
      return readTreeObjects(side.files, side.directory);
    } catch (err) {
      bag.addError(err);
      return undefined;
    }
  };
  const [oldObjects, newObjects] = [read(oldSide), read(newSide)];
  bag.throwIfAny();
  const [a, b] = [oldObjects!, newObjects!];
  // a cluster that leaves a fleet keeps what was applied to it: its objects' removal is told once, as that
  const leaving = leavingClusters(a, b);
  // files holding secret values (inline): a key only one side has may be a rotated secret, and
  // every value of a finding about them is hidden
  const secretFiles = new Set([...declaredSecretFiles(oldSide.files), ...declaredSecretFiles(newSide.files)]);
  const components = new Map<string, ComponentDiff>();
  const findings: Finding[] = [];

  // where a component's version is written: its kustomization's provenance, or its artifact ConfigMap
  const versionFile = (directory: string) =>
    (b.components.get(directory) ?? a.components.get(directory))?.file ?? (directory ? `${directory}/kustomization.yaml` : undefined);
  const moved = movedComponents(a, b);
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
    const v = versionFinding(directory, diff.name, diff.oldVersion, diff.newVersion, versionFile(directory));
    if (v) findings.push(v);
  }
  const series = [...(oldSide.contracts ?? []), ...(newSide.contracts ?? [])];
  for (const info of [...a.components.values(), ...b.components.values()])
    if (info.metadata && info.version) series.push(...contractSeries(info.name, info.version, info.metadata));
  const told = [...components.values()].filter((c) => !moved.has(c.directory));
  findings.push(...contractFindings(told, b.components, contractLookup(series), versionFile));

  // a change a fleet's clusters get from one shared base (the same files before and after) is
  // reported once, under the base, naming the clusters it reaches
  const shared = new Map<string, ObjectChange & { clusters: string[] }>();
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
      if (!components.has(directory)) components.set(directory, emptyComponent(directory, a, b));
    }
    const diff = components.get(directory)!;
    diff[change]++;
    const entry: ObjectChange = { ...t.id, change, file: t.file, paths, ...(folded ? { schemaPathsFolded: folded } : {}) };
    // the wiring holds no secret value (the final gate refuses one outside a file of secrets): its revision, path, namespace read old → new
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
    const found = !pair.after && leaving.has(t.cluster) ? [] : objectFindings(pair, directory, t.file);
    if (fromBase) for (const f of found) f.clusters = shared.get(key)!.clusters;
    findings.push(...found);
  }
  for (const entry of shared.values()) entry.clusters.sort(compareStrings);
  findings.push(...clusterLeavesFindings(a, leaving));

  // in install order, as the directories' numbers put them; an operator layout's providers share one directory
  const sortKey = (directory: string) => {
    const order = (b.components.get(directory) ?? a.components.get(directory))?.order;
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

/** A component's kinds by group and kind, each kind's objects by namespace, name and change: the order the report lists them in. */
export function sortKinds(kinds: KindGroup[]): void {
  kinds.sort((x, y) => compareStrings(x.group, y.group) || compareStrings(x.kind, y.kind));
  for (const k of kinds)
    k.objects.sort(
      (x, y) => compareStrings(x.namespace, y.namespace) || compareStrings(x.name, y.name) || compareStrings(x.change, y.change),
    );
}
