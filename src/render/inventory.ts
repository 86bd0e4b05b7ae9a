/**
 * clusterctl's provider inventory: one `Provider` object per installed provider
 * (client/repository/components.go InventoryObject) and the CRD that defines it
 * (cmd/clusterctl/api/v1alpha3/provider_type.go, installed by client/cluster/inventory.go
 * EnsureCustomResourceDefinitions). `clusterctl upgrade`, `move` and `describe` read them.
 */
import { compareStrings } from '../core/diagnostics.js';
import type { KObject } from '../core/kobject.js';
import { manifestLabel, type ProviderKind } from '../core/provider.js';
import { CLUSTERCTL_CORE_LABEL, commonLabels } from './labels.js';

const INVENTORY_GROUP = 'clusterctl.cluster.x-k8s.io';
const INVENTORY_VERSION = 'v1alpha3';
const INVENTORY_API_VERSION = `${INVENTORY_GROUP}/${INVENTORY_VERSION}`;
/** clusterctl api/v1alpha3 labels.go ClusterctlCoreLabelInventoryValue. */
const INVENTORY_CORE_LABEL_VALUE = 'inventory';

interface InventoryProvider {
  type: ProviderKind;
  /** Provider name, e.g. `kubeadm`. */
  name: string;
  version: string;
  /** The target namespace the components were installed into. */
  namespace: string;
}

/**
 * The inventory entry clusterctl creates for a provider: named by its manifest label
 * (`bootstrap-kubeadm`), in the target namespace, with the common labels plus
 * `clusterctl.cluster.x-k8s.io/core: inventory`.
 */
export function inventoryObject(provider: InventoryProvider): KObject {
  const label = manifestLabel(provider.type, provider.name);
  return {
    apiVersion: INVENTORY_API_VERSION,
    kind: 'Provider',
    metadata: {
      name: label,
      namespace: provider.namespace,
      labels: sortedRecord({ ...commonLabels(label), [CLUSTERCTL_CORE_LABEL]: INVENTORY_CORE_LABEL_VALUE }),
    },
    providerName: provider.name,
    type: provider.type,
    version: provider.version,
  };
}

function sortedRecord(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => compareStrings(a, b)));
}

const stringProperty = (description: string) => ({ type: 'string', description });

/**
 * The `providers.clusterctl.cluster.x-k8s.io` CRD. clusterctl labels it only with
 * `clusterctl.cluster.x-k8s.io/core: inventory` when it creates it (inventory.go createObj).
 */
export function inventoryCrd(): KObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `providers.${INVENTORY_GROUP}`,
      labels: { [CLUSTERCTL_CORE_LABEL]: INVENTORY_CORE_LABEL_VALUE },
    },
    spec: {
      group: INVENTORY_GROUP,
      names: {
        categories: ['cluster-api'],
        kind: 'Provider',
        listKind: 'ProviderList',
        plural: 'providers',
        singular: 'provider',
      },
      scope: 'Namespaced',
      versions: [
        {
          name: INVENTORY_VERSION,
          served: true,
          storage: true,
          additionalPrinterColumns: [
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Time since the Provider was created' },
            { name: 'Type', type: 'string', jsonPath: '.type' },
            { name: 'Provider', type: 'string', jsonPath: '.providerName' },
            { name: 'Version', type: 'string', jsonPath: '.version' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: 'An entry of the clusterctl provider inventory: one installed provider.',
              properties: {
                apiVersion: stringProperty('The versioned schema of this object.'),
                kind: stringProperty('The REST resource this object represents.'),
                metadata: { type: 'object' },
                providerName: stringProperty('Name of the provider, e.g. kubeadm.'),
                type: stringProperty('Type of the provider, e.g. BootstrapProvider.'),
                version: stringProperty('Version of the installed components.'),
                watchedNamespace: stringProperty(
                  'Namespace the controller watches; empty means all. Deprecated: providers of the v1alpha4 contract and later watch all namespaces.',
                ),
              },
            },
          },
        },
      ],
    },
  };
}
