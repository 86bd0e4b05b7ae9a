/**
 * Two clusters of a fleet whose Argo CD wiring targets one destination: both clusters' provider
 * trees would be applied to one cluster, where their Applications fight over the same objects
 * (Argo CD's SharedResourceWarning; with selfHeal, each re-applies its own CRD versions).
 * Argo CD resolves a destination by `name` when it has one, else by `server`
 * (argo-cd util/argo ValidateDestination); its own cluster is `in-cluster`,
 * `https://kubernetes.default.svc` (argo-cd common/common.go InClusterName, KubernetesInternalAPIServerAddr).
 */
import type { Diagnostic } from '../core/diagnostics.js';
import { isValuesMap, type Values } from '../core/values.js';
import { clusterRanges } from '../core/cluster-ranges.js';

const IN_CLUSTER_SERVER = 'https://kubernetes.default.svc';
const IN_CLUSTER_NAME = 'in-cluster';

export interface FleetDestinationCluster {
  name: string;
  /** The cluster's Argo CD chart values. */
  values: Values;
  /**
   * Where the value the destination is read from was written (`destination.name` or
   * `destination.server`), and whether the cluster's own entry wrote it; undefined when no layer
   * of the Config set it (the chart's default).
   */
  written?: { at: Pick<Diagnostic, 'file' | 'line' | 'column'>; byCluster: boolean };
  /** The cluster's entry in Config clusters. */
  entry?: Pick<Diagnostic, 'file' | 'line' | 'column'>;
}

/** The field the chart writes into the Applications' destination, and its value. */
export function destinationOf(values: Values): { field: 'name' | 'server'; value: string } {
  const destination = isValuesMap(values.destination) ? values.destination : {};
  if (typeof destination.name === 'string' && destination.name !== '') return { field: 'name', value: destination.name };
  return { field: 'server', value: typeof destination.server === 'string' ? destination.server : '' };
}

/** Argo CD's own cluster, by name or by server: relative to the Argo CD that syncs the wiring. */
const inCluster = ({ field, value }: { field: string; value: string }) =>
  field === 'name' ? value === IN_CLUSTER_NAME : value.replace(/\/+$/, '') === IN_CLUSTER_SERVER;

/**
 * The destinations two or more clusters share. With `applicationSet: true` every cluster's
 * Applications live in the one Argo CD that runs the ApplicationSet, so any shared destination is
 * one cluster. With one root Application per cluster, each may be registered in its own management
 * cluster's Argo CD, where the default (Argo CD's own cluster) is that cluster: only a destination
 * naming one cluster whatever Argo CD reads it is told there. A warning, as Argo CD's own
 * SharedResourceWarning is: the objects are the user's to place.
 */
export function sharedDestinationWarnings(clusters: readonly FleetDestinationCluster[], applicationSet: boolean): Diagnostic[] {
  const groups = new Map<string, FleetDestinationCluster[]>();
  for (const c of clusters) {
    const destination = destinationOf(c.values);
    // a chart of one's own without a destination value: nothing to compare
    if (destination.value === '' || (!applicationSet && inCluster(destination))) continue;
    const key = inCluster(destination) ? IN_CLUSTER_SERVER : `${destination.field}\0${destination.value}`;
    const group = groups.get(key);
    if (group) group.push(c);
    else groups.set(key, [c]);
  }
  return [...groups.values()]
    .filter((group) => group.length > 1)
    .map((group) => {
      const names = group.map((c) => c.name);
      const { field, value } = destinationOf(group[0]!.values);
      // the copy is the later entry that wrote it; a destination no entry wrote is the shared Config's, or the chart's default
      const copied = group.findLast((c) => c.written?.byCluster);
      const shared = group.find((c) => c.written && !c.written.byCluster);
      const change = copied ?? group.find((c) => !c.written?.byCluster && c !== group[0]) ?? group.at(-1)!;
      const at = copied?.written?.at ?? shared?.written?.at ?? change.entry ?? {};
      const what =
        group.every((c) => !c.written) && field === 'server' && inCluster({ field, value })
          ? `the chart's default destination server ${value} (the cluster Argo CD runs in)`
          : inCluster({ field, value })
            ? `Argo CD's own cluster as destination (${IN_CLUSTER_NAME}, ${IN_CLUSTER_SERVER})`
            : `the Argo CD destination ${field} ${value}`;
      const where = applicationSet ? "the fleet's ApplicationSet" : 'their wiring';
      return {
        ...at,
        object: 'Config clusters[]',
        path: `argocd.values.destination.${field}`,
        message:
          `the clusters ${clusterRanges(names)} have ${what}: ${where} would apply each cluster's providers to that one cluster, ` +
          'where their Applications fight over the same objects',
        expected: "each cluster's own destination: the management cluster it renders for",
        hint:
          `give each cluster its own destination in its entry of clusters, e.g. argocd: {values: {destination: {name: ${change.name}}}} ` +
          `in the cluster ${change.name} (the name Argo CD knows it by: argocd cluster list), or destination: {server: <its API server URL>}`,
      };
    });
}
