/**
 * cert-manager as clusterctl installs it (client/cluster/cert_manager.go getManifestObjs): the
 * release manifest as published (no variable substitution, no namespace change, no common
 * provider labels), image overrides under the `cert-manager` component, then on every object the
 * clusterctl labels and the version annotation that `clusterctl upgrade` reads back.
 */
import type { KObject } from '../core/kobject.js';
import type { ImageMeta } from '../manifest/types.js';
import { applyImageOverrides, FIX_IMAGES_KINDS } from './images.js';
import { convertTypedMetadata } from './typed-metadata.js';
import { addLabels, CLUSTERCTL_CORE_LABEL, CLUSTERCTL_LABEL, stringMapOf } from './labels.js';

/** clusterctl config CertManagerImageComponent: the images key for cert-manager. */
const CERT_MANAGER_COMPONENT = 'cert-manager';
/** clusterctl api/v1alpha3 labels.go ClusterctlCoreLabelCertManagerValue. */
const CERT_MANAGER_CORE_LABEL_VALUE = 'cert-manager';
/** clusterctl api/v1alpha3 annotations.go CertManagerVersionAnnotation. */
const CERT_MANAGER_VERSION_ANNOTATION = 'cert-manager.clusterctl.cluster.x-k8s.io/version';

/** addCerManagerLabel: both labels on every object. */
export function addCertManagerLabels(objs: KObject[]): KObject[] {
  return addLabels(objs, { [CLUSTERCTL_LABEL]: '', [CLUSTERCTL_CORE_LABEL]: CERT_MANAGER_CORE_LABEL_VALUE });
}

/**
 * addCerManagerAnnotations: the cert-manager version on every object (annotations that are not
 * all strings are dropped, as GetAnnotations reads them).
 */
export function addCertManagerVersionAnnotation(objs: KObject[], version: string): KObject[] {
  return objs.map((obj) => ({
    ...obj,
    metadata: { ...obj.metadata, annotations: { ...stringMapOf(obj.metadata?.annotations), [CERT_MANAGER_VERSION_ANNOTATION]: version } },
  }));
}

/** The whole clusterctl treatment of the cert-manager manifest, in clusterctl's order. */
export function decorateCertManager(objs: KObject[], version: string, overrides: Record<string, ImageMeta>): KObject[] {
  const withImages = applyImageOverrides(convertTypedMetadata(objs, FIX_IMAGES_KINDS), CERT_MANAGER_COMPONENT, overrides);
  return addCertManagerVersionAnnotation(addCertManagerLabels(withImages), version);
}
