/**
 * The per-component render, in clusterctl's order (client/repository/components.go NewComponents)
 * followed by the operator's customisations (internal/controller/component_customizer.go,
 * component_patches.go). Variables and parsing happen before, on the raw text.
 */
import type { KObject } from '../model/kobject.js';
import type { ProviderKind } from '../model/provider.js';
import type { ImageMeta, ProviderSpec } from '../manifest/types.js';
import { applyImageOverrides } from './images.js';
import { addNamespaceIfMissing, fixTargetNamespace, inspectTargetNamespace } from './namespace.js';
import { addCommonLabels } from './labels.js';
import { customizeDeployments, type ProviderOrigin } from './deployment.js';
import { applyProviderPatches } from './patches.js';
import { removeOwnerReferences } from './owner-references.js';
import { inventoryCrd, inventoryObject } from './inventory.js';
import { decorateCertManager } from './cert-manager.js';
import { sortObjects } from '../kernel/order.js';

export interface ProviderRenderInput {
  kind: ProviderKind;
  name: string;
  /** clusterctl manifest label, e.g. `bootstrap-kubeadm`. */
  label: string;
  version: string;
  /** The provider object's namespace: the target namespace. */
  namespace: string;
  spec: ProviderSpec;
  /** Parsed components (with additionalManifests), after variable substitution. */
  objects: KObject[];
  imageOverrides: Record<string, ImageMeta>;
  origin: ProviderOrigin;
}

/** Every transform of one provider, in order; the inventory CRD rides with the core provider. */
export function renderProviderObjects(input: ProviderRenderInput): KObject[] {
  let objs = applyImageOverrides(input.objects, input.label, input.imageOverrides);
  inspectTargetNamespace(objs); // more than one Namespace is an error
  objs = addNamespaceIfMissing(objs, input.namespace);
  objs = fixTargetNamespace(objs, input.namespace);
  objs = addCommonLabels(objs, input.label);
  objs = customizeDeployments(objs, input.spec, input.origin);
  objs = applyProviderPatches(objs, input.spec, input.origin);
  objs = removeOwnerReferences(objs);
  objs.push(inventoryObject({ type: input.kind, name: input.name, version: input.version, namespace: input.namespace }));
  if (input.kind === 'CoreProvider') objs.push(inventoryCrd());
  return sortObjects(objs);
}

/** cert-manager as clusterctl installs it: no variables, no namespace change. */
export function renderCertManagerObjects(objects: KObject[], version: string, imageOverrides: Record<string, ImageMeta>): KObject[] {
  return sortObjects(decorateCertManager(objects, version, imageOverrides));
}
