/**
 * A fleet's cluster that the new tree no longer has. Nothing the wiring applied is deleted from
 * it: the fleet's ApplicationSet deletes the cluster's Applications, which carry no resources
 * finalizer (and preserveResourcesOnDeletion: true), so their objects are orphaned; a root
 * Application or Flux Kustomization whose path is gone fails to build it and prunes nothing. The
 * root objects applied by hand (`kubectl apply -k clusters/<name>/argocd`) stay until deleted by hand.
 */
import { compareStrings } from '../core/diagnostics.js';
import { applicationSetLookups } from '../layout/fleet-applicationset.js';
import type { TreeObject, TreeObjects } from './objects.js';
import type { ClusterLeavesFinding } from './types.js';
import { deleteByHand, isRoot } from './wiring-roots.js';

/** The fleet clusters the old tree has and the new one does not. */
export function leavingClusters(a: TreeObjects, b: TreeObjects): Set<string> {
  const now = new Set([...b.objects.values()].map((t) => t.cluster));
  return new Set([...a.objects.values()].map((t) => t.cluster).filter((c) => c !== '' && !now.has(c)));
}

const isFleetApplicationSet = (t: TreeObject) => t.id.group === 'argoproj.io' && t.id.kind === 'ApplicationSet' && !t.cluster;

/** One info finding per cluster that leaves: what stays on it, and the wiring objects to delete by hand. */
export function clusterLeavesFindings(a: TreeObjects, leaving: ReadonlySet<string>): ClusterLeavesFinding[] {
  const objects = [...a.objects.values()];
  const appSet = objects.find(isFleetApplicationSet);
  const generated = new Set([...applicationSetLookups(appSet?.object).keys()].map((key) => key.slice(key.indexOf('\0') + 1)));
  const wiringOf = new Map<string, TreeObject[]>();
  for (const t of objects) {
    const root = `clusters/${t.cluster}`;
    if (leaving.has(t.cluster) && (t.file.startsWith(`${root}/argocd/`) || t.file.startsWith(`${root}/flux/`)))
      wiringOf.set(t.cluster, (wiringOf.get(t.cluster) ?? []).concat(t));
  }
  return [...leaving].sort(compareStrings).map((cluster) => {
    const root = `clusters/${cluster}`;
    const wiring = wiringOf.get(cluster) ?? [];
    const tool = wiring.some((t) => t.file.startsWith(`${root}/flux/`)) ? 'flux' : wiring.length > 0 ? 'argocd' : undefined;
    const byHand = wiring.map((t) => `${t.id.kind}/${t.id.namespace ? `${t.id.namespace}/` : ''}${t.id.name}`).sort(compareStrings);
    const what = generated.has(cluster)
      ? "the fleet's ApplicationSet deletes its Applications, which orphan what they applied (no resources finalizer, preserveResourcesOnDeletion)"
      : tool === 'argocd'
        ? `its root Application can no longer read ${root}/argocd and prunes nothing`
        : tool === 'flux'
          ? `its Flux can no longer read ${root}/flux and prunes nothing`
          : 'nothing deletes what was applied from it';
    // the same advice, root first and its guards read from the objects, as render's note gives (wiring-roots.ts)
    const wiringRoot = wiring.find(isRoot);
    const { commands, safety } = deleteByHand(
      wiringRoot,
      wiring.filter((t) => t !== wiringRoot),
    );
    const hand =
      wiring.length > 0
        ? `; nothing deletes its wiring (what ${root}/${tool} held): delete it by hand, ${safety}: ${commands.join('; ')}` +
          (tool === 'flux' ? `, and what applies ${root}/flux in your Flux` : '')
        : '';
    return {
      type: 'cluster-leaves' as const,
      risk: 'info' as const,
      component: root,
      cluster,
      byHand,
      message: `cluster ${cluster} leaves the fleet: its providers, CRDs and Namespaces stay on it, as ${what}${hand}`,
    };
  });
}
