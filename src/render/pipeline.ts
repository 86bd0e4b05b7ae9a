/**
 * The per-component render, in clusterctl's order (client/repository/components.go NewComponents)
 * followed by the operator's customisations (internal/controller/component_customizer.go,
 * component_patches.go). Variables and parsing happen before, on the raw text, in the component's
 * sequence (component.ts). Every transform is a RenderFilter, `(objects, context) => objects`.
 */
import type { KObject } from '../core/kobject.js';
import type { ProviderKind } from '../core/provider.js';
import type { ImageMeta, ProviderSpec } from '../manifest/types.js';
import { applyImageOverrides, imageFields, inspectImages, overrideCustomizedImages } from './images.js';
import { addNamespaceIfMissing, fixTargetNamespace, inspectTargetNamespace } from './namespace.js';
import { addCommonLabels } from './labels.js';
import { customizeDeployments, type ProviderOrigin } from './deployment.js';
import { applyProviderPatches } from './patches.js';
import { removeOwnerReferences } from './owner-references.js';
import { convertTypedMetadata, PROVIDER_CONVERTED_KINDS } from './typed-metadata.js';
import { inventoryCrd, inventoryObject } from './inventory.js';
import { decorateCertManager } from './cert-manager.js';
import { addClusterIndexedLabel } from './turtles.js';
import { wranglerPatcher } from './wrangler.js';
import { sortObjects } from '../core/order.js';
import type { MarkedRender } from './types.js';

/** Everything a provider's filters read, and where they record what a Secret-derived value reached. */
export interface RenderContext {
  kind: ProviderKind;
  name: string;
  /** clusterctl manifest label, e.g. `bootstrap-kubeadm`. */
  label: string;
  version: string;
  /** The provider object's namespace: the target namespace. */
  namespace: string;
  spec: ProviderSpec;
  imageOverrides: Record<string, ImageMeta>;
  /**
   * A configSecret's `images`: the operator's first pass (clusterctl NewComponents reads them from
   * the configSecret), before `imageOverrides` (Config.images, its mounted clusterctl.yaml, which
   * internal/controller/phase_fetch.go imageOverrides applies to every image after it).
   */
  secretImageOverrides?: Record<string, ImageMeta>;
  /** The overrides without those from a Secret; set only when some came from one. */
  imageOverridesWithoutSecrets?: Record<string, ImageMeta>;
  /** Config.images alone: the operator's second pass, over images its customisations set. */
  configImageOverrides?: Record<string, ImageMeta>;
  origin: ProviderOrigin;
  /**
   * Read from a Rancher Turtles CAPIProvider, as the input names it (`CAPIProvider/<ns>/<name>`):
   * Turtles' own steps after the operator's (turtles.ts, wrangler.ts), their problems told at it.
   */
  turtles?: string;
  /**
   * The Turtles installation runs with its no-cert-manager feature on (Config
   * turtles.noCertManager): a CAPIProvider's components go through WranglerPatcher (wrangler.ts).
   */
  turtlesNoCertManager?: boolean;
  /**
   * Fields a value from a Secret was written to, recorded by the filters (as kustomize's
   * namespace filter tracks the fields it sets), so the secrets stage can refuse or protect them.
   */
  secretFields: SecretField[];
  /** Set in the marked render (secret references replaced by marks). */
  marked?: MarkedRender;
}

export interface SecretField {
  /** The object, as describeObject names it. */
  object: string;
}

/** Every transform has this one shape. */
export type RenderFilter = (objects: KObject[], context: RenderContext) => KObject[];

/**
 * Image overrides, a configSecret's first and the others over the images they wrote; an override
 * from a Secret that changes an image is recorded with its field.
 */
const imageOverrides: RenderFilter = (objects, context) => {
  const first = context.secretImageOverrides;
  const fromSecret = first === undefined ? objects : applyImageOverrides(objects, context.label, first, context.marked);
  const rendered = applyImageOverrides(fromSecret, context.label, context.imageOverrides, context.marked);
  if (context.imageOverridesWithoutSecrets !== undefined) {
    const without = applyImageOverrides(objects, context.label, context.imageOverridesWithoutSecrets);
    if (inspectImages(without).join('\n') !== inspectImages(rendered).join('\n')) {
      const before = imageFields(without);
      // named in the target namespace, where fixTargetNamespace moves them next
      imageFields(rendered, context.namespace).forEach((field, i) => {
        if (field.image !== before[i]?.image) context.secretFields.push({ object: field.object });
      });
    }
  }
  return rendered;
};

/**
 * A provider's filters in order: clusterctl's NewComponents (the labels and annotations its Go
 * conversions read, images, target namespace, labels),
 * then the operator's customisations (deployment, patches, then Config.images over the images
 * they set), then, for a Turtles CAPIProvider, Turtles' customAlterComponentsFuncs (its CRDs
 * labelled, then, with no-cert-manager on, cert-manager swapped for Rancher's certificates),
 * ownerReferences removed, the
 * inventory objects added (the inventory CRD rides with the core provider), and the output order.
 */
export const PROVIDER_FILTERS: readonly RenderFilter[] = [
  // the labels and annotations of the objects FixImages and fixTargetNamespace convert to Go types
  (objects) => convertTypedMetadata(objects, PROVIDER_CONVERTED_KINDS),
  imageOverrides,
  (objects, { origin, spec, namespace }) => {
    const ref = spec.additionalManifests ?? undefined;
    // more than one Namespace is an error
    inspectTargetNamespace(objects, { origin, additionalManifests: ref && { name: ref.name, namespace: ref.namespace || namespace } });
    return objects;
  },
  (objects, context) => addNamespaceIfMissing(objects, context.namespace),
  (objects, context) => fixTargetNamespace(objects, context.namespace),
  (objects, context) => addCommonLabels(objects, context.label),
  (objects, context) => {
    const customized = customizeDeployments(objects, context.spec, context.origin, context.marked?.derived);
    const patched = applyProviderPatches(customized, context.spec, context.origin);
    return overrideCustomizedImages(objects, patched, context.label, context.configImageOverrides ?? {});
  },
  (objects, context) => (context.turtles ? addClusterIndexedLabel(objects) : objects),
  (objects, context) =>
    context.turtles && context.turtlesNoCertManager ? wranglerPatcher(objects, { ...context.origin, object: context.turtles }) : objects,
  (objects) => removeOwnerReferences(objects),
  (objects, { kind: type, name, version, namespace }) => [
    ...objects,
    inventoryObject({ type, name, version, namespace }),
    ...(type === 'CoreProvider' ? [inventoryCrd()] : []),
  ],
  (objects) => sortObjects(objects),
];

/** One provider's parsed objects through every filter (step 5 of renderProviderComponent). */
export function renderComponent(
  objects: KObject[],
  context: RenderContext,
  filters: readonly RenderFilter[] = PROVIDER_FILTERS,
): KObject[] {
  return filters.reduce((current, filter) => filter(current, context), objects);
}

/** cert-manager as clusterctl installs it: no variables, no namespace change. */
export function renderCertManagerObjects(objects: KObject[], version: string, imageOverrides: Record<string, ImageMeta>): KObject[] {
  return sortObjects(decorateCertManager(objects, version, imageOverrides));
}
