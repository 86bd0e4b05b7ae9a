/**
 * One Namespace object per namespace, whatever the layout.
 *
 * clusterctl gives every provider's components a Namespace (addNamespaceIfMissing) labelled with
 * the provider's common labels, `clusterctl.cluster.x-k8s.io: ""` and
 * `cluster.x-k8s.io/provider: <label>` (client/repository/components.go addCommonLabels). When
 * several providers share a namespace (k0rdent installs every provider in `kcm-system`, Intel's
 * RKE2 bootstrap and control plane share `capr-system`), each component would carry its own
 * Namespace: `kubectl kustomize` refuses the duplicate id, and under Argo CD or Flux several
 * Applications or Kustomizations would own one object and overwrite each other's label.
 *
 * So the Namespace is written once, by its owner: the first component in install order (the
 * layouts' order: install order of the type, then label) that holds it. Its labels are the
 * owner's, `cluster.x-k8s.io/provider` included: one provider's label has to win, and the first
 * in install order is the one that must exist first (its Application or Kustomization syncs
 * first, see wiring.ts), and the one that adding a later provider to the namespace never
 * changes, so the object never moves between directories as providers come and go. Labels and
 * annotations the other components' Namespaces carry besides those (a provider that asks for a
 * pod-security level, say) are added where the owner has no such key. The other components'
 * directories hold no Namespace and refer to none: namespaced objects need no Namespace object
 * for `kubectl kustomize` to build them.
 *
 * A `kind: Namespace` document of the manifest is merged into the Namespace of a rendered
 * component (its labels and annotations win, except clusterctl's two labels, which it may not
 * change); a document for any other namespace is written as given, in the first component.
 */
import { CapiGitopsError, type Diagnostic } from '../core/diagnostics.js';
import type { KObject } from '../core/kobject.js';
import type { NamespaceObject } from '../manifest/types.js';
import type { RenderedComponent } from '../render/types.js';
import { CLUSTERCTL_LABEL, PROVIDER_NAME_LABEL } from '../render/labels.js';
import { orderComponents } from './kustomize.js';

/** Labels clusterctl sets on every object of a provider; a Namespace document may not change them. */
const CLUSTERCTL_LABELS = [CLUSTERCTL_LABEL, PROVIDER_NAME_LABEL];

export function isNamespaceObject(obj: KObject): boolean {
  return obj.kind === 'Namespace' && obj.apiVersion === 'v1';
}

/** Keys of `extra` the `base` map lacks, added after base's own; undefined when none are new. */
function withMissingKeys(base: Record<string, string> | undefined, extra: Record<string, string> | undefined) {
  const added = Object.entries(extra ?? {}).filter(([key]) => !Object.hasOwn(base ?? {}, key));
  return added.length === 0 ? undefined : { ...base, ...Object.fromEntries(added) };
}

/** The owner's Namespace with what another component's Namespace adds (the owner's keys win). */
function mergeShared(owner: KObject, other: KObject): KObject {
  const labels = withMissingKeys(owner.metadata.labels, other.metadata.labels);
  const annotations = withMissingKeys(owner.metadata.annotations, other.metadata.annotations);
  if (!labels && !annotations) return owner;
  return { ...owner, metadata: { ...owner.metadata, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) } };
}

/** A Namespace document merged into a rendered Namespace: the document's labels, annotations and spec win. */
function mergeNamespaceDocument(obj: KObject, doc: NamespaceObject, problems: Diagnostic[]): KObject {
  for (const key of CLUSTERCTL_LABELS) {
    const given = doc.labels[key];
    const rendered = obj.metadata.labels?.[key];
    if (given === undefined || given === rendered) continue;
    problems.push({
      ...(doc.fieldPosition?.(['metadata', 'labels', key]) ?? doc.position),
      object: `Namespace/${doc.name}`,
      path: `metadata.labels["${key}"]`,
      message:
        rendered === undefined
          ? `label ${key} is set by clusterctl on the objects of a provider, and Namespace ${doc.name} holds none`
          : `label ${key} is ${JSON.stringify(rendered)} on Namespace ${doc.name} (clusterctl's label of the provider that owns it); the document says ${JSON.stringify(given)}`,
      expected: `no ${key} label, or ${JSON.stringify(rendered ?? '')}`,
      hint: `remove ${key} from the Namespace document: capi-gitops writes clusterctl's labels itself`,
    });
  }
  const labels = { ...obj.metadata.labels, ...doc.labels };
  const annotations = { ...obj.metadata.annotations, ...doc.annotations };
  const metadata = { ...obj.metadata };
  if (Object.keys(labels).length > 0) metadata.labels = labels;
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  return { ...obj, metadata, ...(doc.spec ? { spec: doc.spec } : {}) };
}

/** A Namespace document as an object, written as given. */
function namespaceDocumentObject(doc: NamespaceObject): KObject {
  const metadata: KObject['metadata'] = { name: doc.name };
  if (Object.keys(doc.labels).length > 0) metadata.labels = doc.labels;
  if (Object.keys(doc.annotations).length > 0) metadata.annotations = doc.annotations;
  return { apiVersion: 'v1', kind: 'Namespace', metadata, ...(doc.spec ? { spec: doc.spec } : {}) };
}

/**
 * The components with one Namespace object per namespace (see above), in their input order. A
 * component that changes is a new object; the others are returned as they are, so a fleet's
 * cache of laid-out components still finds them.
 */
export function shareNamespaces(components: readonly RenderedComponent[], documents: readonly NamespaceObject[] = []): RenderedComponent[] {
  const ordered = orderComponents(components);
  const owner = new Map<string, { component: RenderedComponent; namespace: KObject }>();
  const objects = new Map<RenderedComponent, KObject[]>();
  for (const component of ordered) {
    let changed = false;
    const kept = component.objects.filter((obj) => {
      if (!isNamespaceObject(obj) || !obj.metadata.name) return true;
      const first = owner.get(obj.metadata.name);
      if (!first) {
        owner.set(obj.metadata.name, { component, namespace: obj });
        return true;
      }
      first.namespace = mergeShared(first.namespace, obj);
      changed = true;
      return false;
    });
    if (changed) objects.set(component, kept);
  }

  const problems: Diagnostic[] = [];
  const others: KObject[] = [];
  for (const doc of documents) {
    const first = owner.get(doc.name);
    if (first) first.namespace = mergeNamespaceDocument(first.namespace, doc, problems);
    else others.push(namespaceDocumentObject(doc));
  }
  if (problems.length > 0) throw new CapiGitopsError(problems);

  for (const [name, { component, namespace }] of owner) {
    const current = objects.get(component) ?? component.objects;
    const at = current.findIndex((o) => isNamespaceObject(o) && o.metadata.name === name);
    if (current[at] === namespace) continue;
    objects.set(
      component,
      current.map((o, i) => (i === at ? namespace : o)),
    );
  }
  if (others.length > 0 && ordered.length > 0) {
    const first = ordered[0]!;
    objects.set(first, [...(objects.get(first) ?? first.objects), ...others]);
  }
  return components.map((c) => {
    const changed = objects.get(c);
    return changed ? { ...c, objects: changed } : c;
  });
}
