/**
 * The review stage's values: two rendered trees in, a semantic diff out. `ReviewReport` is the
 * JSON form (`diff --format json`), described by schema/capi-gitops-diff.schema.json; change
 * them together and bump REVIEW_SCHEMA_VERSION on any incompatible change.
 */

/** `diff --format` choices. */
export const DIFF_FORMATS = ['text', 'markdown', 'json'] as const;
export type DiffFormat = (typeof DIFF_FORMATS)[number];
export const REVIEW_SCHEMA_VERSION = 1;

/** One side of the comparison: a rendered file tree (relative path → text) and what it is. */
export interface ReviewSide {
  /** For people, e.g. `clusters/mgmt (committed)` or `render at HEAD`. */
  label: string;
  files: ReadonlyMap<string, string>;
  /** The directory the files were read from, as the user named it; none for a render in memory. */
  directory?: string;
  /**
   * The contracts of the release series of the providers a render resolved (their metadata.yaml),
   * for the contract call-out; a directory has none (the operator layout's ConfigMaps hold theirs).
   */
  contracts?: readonly ContractSeries[];
}

/** One release series of a provider and the Cluster API contract it implements (metadata.yaml releaseSeries). */
export interface ContractSeries {
  /** clusterctl's manifest label, the component name: `cluster-api`, `bootstrap-kubeadm`. */
  label: string;
  major: number;
  minor: number;
  contract: string;
}

export interface ObjectId {
  /** API group, "" for the core group. */
  group: string;
  kind: string;
  /** "" for cluster-scoped objects. */
  namespace: string;
  name: string;
}

export type ChangeType = 'added' | 'removed' | 'changed';

export interface ObjectChange extends ObjectId {
  change: ChangeType;
  /** The file on the new side (the old side for a removed object). */
  file: string;
  /** For changed objects: field paths that changed, CRD schema paths left out (see findings). */
  paths: string[];
  /** For changed CRDs: schema paths that changed, counted but not listed. */
  schemaPathsFolded?: number;
  /** A change in a fleet's shared base, or its one ApplicationSet: the clusters it reaches (reported once for all of them). */
  clusters?: string[];
  /**
   * For a changed Argo CD Application or ApplicationSet, or Flux Kustomization (the wiring), outside
   * files holding secret values: the old and new value of each changed path that holds a short scalar.
   */
  values?: { path: string; from: string; to: string }[];
}

export interface KindGroup {
  group: string;
  kind: string;
  objects: ObjectChange[];
}

export interface ComponentDiff {
  /** The component's directory (`01-cluster-api`), or the top-level directory of wiring files. */
  directory: string;
  /**
   * Provider label from the provenance comment (`cluster-api`; in the operator layout, from the
   * artifact ConfigMap's labels), else the directory.
   */
  name: string;
  oldVersion?: string;
  newVersion?: string;
  added: number;
  removed: number;
  changed: number;
  kinds: KindGroup[];
}

type Risk = 'info' | 'warning';

interface FindingBase {
  risk: Risk;
  /** Component directory the finding is about. */
  component: string;
  /** Output file the finding points at (for annotations). */
  file?: string;
  /** `Kind/namespace/name` of the object, when about one object. */
  object?: string;
  /** One line for people. */
  message: string;
  /** About an object in a fleet's shared base: the clusters that get this change (the object change's `clusters`). */
  clusters?: string[];
  /**
   * About a fleet cluster's own directory: every cluster with this finding alike (same type,
   * component, object and message, each cluster's name aside), this one's among them; text and
   * markdown tell it once.
   */
  sameInClusters?: string[];
}

export interface VersionFinding extends FindingBase {
  type: 'version';
  from: string;
  to: string;
  direction: 'upgrade' | 'downgrade' | 'added' | 'removed' | 'changed';
}

/** A provider's release moved to another Cluster API contract (v1beta1 → v1beta2). */
export interface ContractFinding extends FindingBase {
  type: 'contract';
  from: string;
  to: string;
  /** On the core provider's move: the other providers (`label version`) still on the old contract. */
  staying?: string[];
}

export interface ImageFinding extends FindingBase {
  type: 'image';
  container: string;
  from: string | null;
  to: string | null;
}

/**
 * Same image name and tag, another digest: the tag was pushed again and now runs other content,
 * or the image comes from another registry or repository (a mirror) that serves other content.
 */
export interface ImageContentFinding extends FindingBase {
  type: 'image-content';
  container: string;
  /** The reference without its digest, e.g. `registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0`. */
  image: string;
  /** The new reference without its digest, when the registry or repository changed (another mirror). */
  toImage?: string;
  from: string;
  to: string;
}

export interface FlagsFinding extends FindingBase {
  type: 'flags';
  container: string;
  added: string[];
  removed: string[];
  changed: { flag: string; from: string; to: string }[];
}

export interface ReplicasFinding extends FindingBase {
  type: 'replicas';
  from: number | null;
  to: number | null;
}

export interface ResourcesFinding extends FindingBase {
  type: 'resources';
  container: string;
  changes: { path: string; from: string | null; to: string | null }[];
}

export interface RbacRuleTuple {
  apiGroup: string;
  resource: string;
  verb: string;
}

export interface RbacFinding extends FindingBase {
  type: 'rbac';
  direction: 'widened' | 'narrowed';
  /** Permissions gained (widened) or lost (narrowed), one per apiGroup/resource/verb. */
  permissions: RbacRuleTuple[];
  /** Non-resource URLs gained or lost, with their verbs as `verb url`. */
  nonResourceURLs: string[];
  /** True when a gained permission holds a `*`. */
  wildcard: boolean;
}

export interface CrdSchemaSummary {
  version: string;
  propertiesAdded: number;
  propertiesRemoved: string[];
}

export interface CrdFinding extends FindingBase {
  type: 'crd';
  /** The CRD is gone from the output (its versions all in versionsRemoved): it is never pruned. */
  removed?: true;
  versionsAdded: string[];
  versionsRemoved: string[];
  served: { version: string; from: boolean; to: boolean }[];
  storage: { version: string; from: boolean; to: boolean }[];
  schema: CrdSchemaSummary[];
  /**
   * `spec.conversion.strategy` changed (None when absent), or a Webhook moved to another Service
   * (from and to both Webhook); when it becomes or stays Webhook, the Service (`namespace/name`)
   * that converts and the cert-manager.io/inject-ca-from of its CA.
   */
  conversion?: { from: string; to: string; service?: string; caFrom?: string };
}

export interface WebhookFinding extends FindingBase {
  type: 'webhook';
  webhook: string;
  change:
    | 'added'
    | 'removed'
    | 'rules'
    | 'failurePolicy'
    | 'namespaceSelector'
    | 'objectSelector'
    | 'matchPolicy'
    | 'sideEffects'
    | 'timeoutSeconds';
  from?: string;
  to?: string;
}

/**
 * A Secret removed while an ExternalSecret of its namespace that fills it (`spec.target.name`, or
 * its own name when absent) is added: the sync prunes the Secret external-secrets takes over.
 */
export interface SecretReplacedFinding extends FindingBase {
  type: 'secret-replaced';
  /** `ExternalSecret/namespace/name`. */
  externalSecret: string;
  /** Its `spec.target.creationPolicy` (Owner when absent). */
  creationPolicy: string;
}

interface NamespaceMoveFinding extends FindingBase {
  type: 'namespace-move';
  from: string;
  to: string;
}

/** Where an Argo CD Application or ApplicationSet, or a Flux Kustomization, applies what it syncs. */
export interface DestinationFinding extends FindingBase {
  type: 'destination';
  /** e.g. `name mgmt-a, namespace capi-system`. */
  from: string;
  to: string;
}

/** A guard against deleting the objects (a CRD's, a Namespace's, the wiring's) that is gone. */
export interface DeletionFinding extends FindingBase {
  type: 'deletion';
  guard: 'sync-options' | 'prune-annotation' | 'deletion-policy' | 'finalizer';
  /** The guard as it was, e.g. `argocd.argoproj.io/sync-options: Prune=false,Delete=false`. */
  from: string;
}

/** A fleet's cluster the new tree no longer has: what stays on it, and its wiring's objects to delete by hand. */
export interface ClusterLeavesFinding extends FindingBase {
  type: 'cluster-leaves';
  cluster: string;
  /** The objects of its wiring directory (`Kind/namespace/name`), applied by hand: no tool deletes them. */
  byHand: string[];
}

export type Finding =
  | VersionFinding
  | ContractFinding
  | ImageFinding
  | ImageContentFinding
  | FlagsFinding
  | ReplicasFinding
  | ResourcesFinding
  | RbacFinding
  | CrdFinding
  | WebhookFinding
  | SecretReplacedFinding
  | NamespaceMoveFinding
  | DestinationFinding
  | DeletionFinding
  | ClusterLeavesFinding;

export interface ReviewReport {
  schemaVersion: typeof REVIEW_SCHEMA_VERSION;
  old: { label: string };
  new: { label: string };
  summary: { added: number; removed: number; changed: number; warnings: number; risk: 'none' | Risk };
  components: ComponentDiff[];
  findings: Finding[];
  /**
   * Files in the compared output directory that render leaves as they are (not capi-gitops', or
   * edited since it wrote them; `check` names them extra, to remove by hand): their objects are
   * on both sides, so neither removed nor changed.
   */
  leftInPlace?: string[];
}
