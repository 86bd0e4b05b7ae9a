/**
 * clusterctl's common labels (client/repository/components.go addCommonLabels, getCommonLabels):
 * every object of a provider's components gets them on metadata.labels only; pod templates and
 * selectors are left alone, so Deployment selectors never change.
 */
import { isPlainObject, type KObject } from '../core/kobject.js';

/** clusterctl api/v1alpha3 labels.go ClusterctlLabel. */
export const CLUSTERCTL_LABEL = 'clusterctl.cluster.x-k8s.io';
/** clusterctl api/v1alpha3 labels.go ClusterctlCoreLabel. */
export const CLUSTERCTL_CORE_LABEL = 'clusterctl.cluster.x-k8s.io/core';
/** Cluster API core/v1beta2 ProviderNameLabel. */
export const PROVIDER_NAME_LABEL = 'cluster.x-k8s.io/provider';

/** The labels clusterctl puts on every object of a provider: its manifest label, e.g. `bootstrap-kubeadm`. */
export function commonLabels(manifestLabel: string): Record<string, string> {
  return { [CLUSTERCTL_LABEL]: '', [PROVIDER_NAME_LABEL]: manifestLabel };
}

/**
 * apimachinery's unstructured GetLabels and GetAnnotations (NestedStringMap): the map when it is a
 * map of strings, else nothing, so that a caller adding keys starts from an empty map, as
 * clusterctl's addCommonLabels, addCerManagerLabel and addCerManagerAnnotations do: a value that
 * is not a string (`version: 1.0`, `enabled: true`, an empty value) drops the whole map.
 */
export function stringMapOf(value: unknown): Record<string, string> | undefined {
  if (!isPlainObject(value) || !Object.values(value).every((v) => typeof v === 'string')) return undefined;
  return value as Record<string, string>;
}

/** Set `labels` on every object's metadata.labels, replacing values of the same keys. */
export function addLabels(objs: KObject[], labels: Record<string, string>): KObject[] {
  return objs.map((obj) => ({ ...obj, metadata: { ...obj.metadata, labels: { ...stringMapOf(obj.metadata?.labels), ...labels } } }));
}

/** clusterctl addCommonLabels for the provider whose manifest label is `manifestLabel`. */
export function addCommonLabels(objs: KObject[], manifestLabel: string): KObject[] {
  return addLabels(objs, commonLabels(manifestLabel));
}
