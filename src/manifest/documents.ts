import { isPlainObject } from '../core/kobject.js';
import { OPERATOR_API_VERSION, PROVIDER_KINDS, TOOL_API_VERSION, isProviderKind } from '../core/provider.js';
import { closestName } from './fields.js';
import { shellWord } from '../core/shell.js';
import type { Diagnostic } from '../core/diagnostics.js';
import type { FieldPath } from './yaml-source.js';

/** What a document (or List item) is, decided by apiVersion and kind. */
export type Category = 'provider' | 'secret' | 'configmap' | 'namespace' | 'config' | 'release' | 'list';

export interface Classification {
  category: Category;
  apiVersion: string;
  kind: string;
  /** For typed lists (`CoreProviderList`, `SecretList`): the kind and apiVersion of their items. */
  item?: { kind: string; apiVersion: string };
}

/** A problem found before schema validation; `path` is relative to the object. */
export interface Finding {
  path: FieldPath;
  at: 'key' | 'value';
  message: string;
  expected?: string;
  hint?: string;
  /** Fixed text to copy, printed under the hint (Diagnostic.example). */
  example?: string;
  /** The path to show when it differs from the one located (e.g. without a key that must not be quoted). */
  displayPath?: FieldPath;
  /** Another field the problem involves (e.g. the first of two duplicates); its position is added to the message. */
  related?: FieldPath;
}

const V1_KINDS: Record<string, Category> = {
  Secret: 'secret',
  ConfigMap: 'configmap',
  Namespace: 'namespace',
  List: 'list',
  SecretList: 'list',
  ConfigMapList: 'list',
};

/** Rancher Turtles' provider object: read as the operator object Turtles makes of it (turtles.ts). */
export const TURTLES_API_VERSION = 'turtles-capi.cattle.io/v1alpha1';
export const CAPI_PROVIDER_KIND = 'CAPIProvider';

const LIST_ITEM_KINDS = [...PROVIDER_KINDS, 'Secret', 'ConfigMap', 'Namespace'];
const SUPPORTED_KINDS: readonly string[] = [...LIST_ITEM_KINDS, CAPI_PROVIDER_KIND, 'List', 'Config', 'Release'];

/** Read and converted by the loader (v1alpha1.ts), as the operator's conversion webhook did. */
export const V1ALPHA1_API_VERSION = 'operator.cluster.x-k8s.io/v1alpha1';

/** Which apiVersion serves a kind we read, and its category; undefined for kinds we do not read. */
function servedKind(kind: string): { apiVersion: string; category: Category; item?: { kind: string; apiVersion: string } } | undefined {
  if (isProviderKind(kind)) return { apiVersion: OPERATOR_API_VERSION, category: 'provider' };
  if (kind === CAPI_PROVIDER_KIND) return { apiVersion: TURTLES_API_VERSION, category: 'provider' };
  if (kind.endsWith('List') && isProviderKind(kind.slice(0, -4))) {
    return { apiVersion: OPERATOR_API_VERSION, category: 'list', item: { kind: kind.slice(0, -4), apiVersion: OPERATOR_API_VERSION } };
  }
  if (kind in V1_KINDS) {
    const item = kind === 'SecretList' || kind === 'ConfigMapList' ? { kind: kind.slice(0, -4), apiVersion: 'v1' } : undefined;
    return { apiVersion: 'v1', category: V1_KINDS[kind], item };
  }
  if (kind === 'Config') return { apiVersion: TOOL_API_VERSION, category: 'config' };
  if (kind === 'Release') return { apiVersion: TOOL_API_VERSION, category: 'release' };
  return undefined;
}

function unsupportedKind(kind: string, allowed: readonly string[], where: string): Finding {
  const guess = closestName(kind, allowed);
  return {
    path: ['kind'],
    at: 'value',
    message: `unsupported kind "${kind}"${where}`,
    expected: `one of ${allowed.join(', ')}`,
    hint: guess
      ? `did you mean "${guess}"?`
      : 'capi-gitops reads provider objects, the Secrets and ConfigMaps they reference, Namespaces, and its own Config; apply other objects with your GitOps tool directly',
  };
}

/** clusterctl.yaml's keys that a Config takes under another name (cmd/clusterctl/client/config). */
export const CLUSTERCTL_RENAMED_KEYS: Record<string, string> = {
  providers: 'repositories: the same list of {name, type, url}',
  'cert-manager': 'certManager: {version, url} (and enabled: false to leave it out)',
};

/** Keys of clusterctl's configuration file (clusterctl.yaml), which has no apiVersion or kind. */
const CLUSTERCTL_CONFIG_KEYS = [...Object.keys(CLUSTERCTL_RENAMED_KEYS), 'images'];

/** A document that is clusterctl.yaml: no apiVersion, no kind, and its keys or UPPER_CASE variables. */
function clusterctlConfigFinding(value: Record<string, unknown>): Finding | undefined {
  const keys = Object.keys(value);
  if (value.apiVersion !== undefined || value.kind !== undefined || keys.length === 0) return undefined;
  if (!keys.every((key) => CLUSTERCTL_CONFIG_KEYS.includes(key) || /^[A-Z][A-Z0-9_]*$/.test(key))) return undefined;
  return {
    path: [],
    at: 'value',
    message: "this is clusterctl's configuration (clusterctl.yaml), which capi-gitops does not read as it is",
    expected: `a Config document: apiVersion: ${TOOL_API_VERSION} and kind: Config`,
    hint:
      `add apiVersion: ${TOOL_API_VERSION} and kind: Config at the top, then rename providers: to repositories: and ` +
      'cert-manager: to certManager:, keep images: as it is, and move each variable under variables: (docs/config.md)',
  };
}

function missingTypeFields(value: Record<string, unknown>): Finding[] {
  const clusterctl = clusterctlConfigFinding(value);
  if (clusterctl) return [clusterctl];
  const findings: Finding[] = [];
  for (const field of ['apiVersion', 'kind'] as const) {
    if (value[field] === undefined || value[field] === null) {
      findings.push({
        path: [],
        at: 'value',
        message: `missing "${field}"`,
        expected: `"${field}" naming one of ${SUPPORTED_KINDS.join(', ')}`,
        hint: `add ${field} at the top of the document`,
      });
    } else if (typeof value[field] !== 'string') {
      findings.push({
        path: [field],
        at: 'value',
        message: `"${field}" must be a string`,
        expected: 'a string',
        hint: `write ${field} as text, e.g. ${field === 'kind' ? 'CoreProvider' : OPERATOR_API_VERSION}`,
      });
    }
  }
  return findings;
}

function apiVersionFindings(apiVersion: string, kind: string, served: string): Finding[] {
  if (apiVersion === served) return [];
  if (apiVersion === V1ALPHA1_API_VERSION && (isProviderKind(kind) || isProviderKind(kind.replace(/List$/, '')))) return [];
  return [
    {
      path: ['apiVersion'],
      at: 'value',
      message: `apiVersion "${apiVersion}" does not serve kind ${kind}`,
      expected: `apiVersion: ${served}`,
      hint: `set apiVersion: ${served}`,
    },
  ];
}

function notAnObject(allowed: readonly string[], hint: string): Finding[] {
  return [
    {
      path: [],
      at: 'value',
      message: 'expected a Kubernetes object (a mapping with apiVersion and kind)',
      expected: `one of ${allowed.join(', ')}`,
      hint,
    },
  ];
}

/** Classifies a top-level document; findings explain why it cannot be read. */
export function classifyDocument(value: unknown): Classification | Finding[] {
  if (!isPlainObject(value)) return notAnObject(SUPPORTED_KINDS, 'each YAML document is one object; separate documents with ---');
  const missing = missingTypeFields(value);
  if (missing.length > 0) return missing;
  const apiVersion = value.apiVersion as string;
  const kind = value.kind as string;
  const served = servedKind(kind);
  if (!served) return [unsupportedKind(kind, SUPPORTED_KINDS, '')];
  const findings = apiVersionFindings(apiVersion, kind, served.apiVersion);
  if (findings.length > 0) return findings;
  // Items of a v1alpha1 typed list are v1alpha1 too.
  const item = served.item && apiVersion === V1ALPHA1_API_VERSION ? { ...served.item, apiVersion } : served.item;
  return { category: served.category, apiVersion, kind, item };
}

/**
 * `kubectl get capiproviders -A -o yaml` prints a List, which render reads; `convert` rewrites a
 * CAPIProvider as its document's text (the operator object and its config Secret), so it says how
 * to give one that way, not "did you mean CoreProvider" (a CoreProvider has no spec.type).
 */
export function capiProviderInList(item: Record<string, unknown>): Finding {
  const metadata = isPlainObject(item.metadata) ? item.metadata : {};
  const name = typeof metadata.name === 'string' && metadata.name !== '' ? metadata.name : '<name>';
  const namespace = typeof metadata.namespace === 'string' && metadata.namespace !== '' ? metadata.namespace : '<namespace>';
  return {
    path: ['kind'],
    at: 'value',
    message: `a ${CAPI_PROVIDER_KIND} inside a List is not converted: convert rewrites each as a document of its own`,
    expected: `each ${CAPI_PROVIDER_KIND} as a YAML document of its own`,
    hint:
      `move this item out of the List into a document of its own (after ---, unindented), or export it alone: ` +
      `kubectl get capiprovider ${name} -n ${namespace} -o yaml`,
  };
}

/**
 * Classifies an item of a list. Items of typed lists may leave out apiVersion and kind (the API
 * server writes them that way); they are filled in from the list.
 */
export function classifyListItem(item: unknown, list: Classification): Classification | Finding[] {
  if (!isPlainObject(item)) return notAnObject(LIST_ITEM_KINDS, 'each item of items is one object');
  if (list.item) {
    item.apiVersion ??= list.item.apiVersion;
    item.kind ??= list.item.kind;
    if (item.kind !== list.item.kind) {
      return [
        {
          path: ['kind'],
          at: 'value',
          message: `a ${list.kind} holds only ${list.item.kind} objects`,
          expected: `kind: ${list.item.kind}`,
          hint: 'put mixed items in a List: apiVersion: v1, kind: List (a typed list of operator.cluster.x-k8s.io serves no kind List)',
        },
      ];
    }
  }
  const missing = missingTypeFields(item);
  if (missing.length > 0) return missing;
  const kind = item.kind as string;
  // `kubectl get capiproviders -A -o yaml` prints a List of them
  if (!LIST_ITEM_KINDS.includes(kind) && kind !== CAPI_PROVIDER_KIND) return [unsupportedKind(kind, LIST_ITEM_KINDS, ' in a List')];
  const served = servedKind(kind)!;
  const findings = apiVersionFindings(item.apiVersion as string, kind, served.apiVersion);
  if (findings.length > 0) return findings;
  return { category: served.category, apiVersion: item.apiVersion as string, kind };
}

/**
 * The API server drops fields set to null (structural schemas prune nulls unless a field is
 * nullable, which none of the provider fields is) before defaulting and validation. Null items
 * of lists stay, and are then rejected by the schema as the API server rejects them.
 */
export function pruneNulls(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) pruneNulls(item);
  } else if (isPlainObject(value)) {
    for (const [key, field] of Object.entries(value)) {
      if (field === null) delete value[key];
      else pruneNulls(field);
    }
  }
}

const DATA_FIELDS = ['data', 'stringData', 'binaryData'];

/**
 * Secrets and ConfigMaps are decoded into Go structs: a null field is absent, and a null value
 * in a string map becomes the empty string.
 */
function normalizeCoreObject(value: Record<string, unknown>): void {
  for (const [key, field] of Object.entries(value)) {
    if (field === null) delete value[key];
    else if (DATA_FIELDS.includes(key) && isPlainObject(field)) {
      for (const [dataKey, dataValue] of Object.entries(field)) if (dataValue === null) field[dataKey] = '';
    } else if (key === 'metadata') pruneNulls(field);
  }
}

/** Normalises an object as the API server would before validating it. */
export function normalizeObject(value: Record<string, unknown>, category: Category): void {
  if (category === 'provider') pruneNulls(value);
  // A List's items are normalised one by one, each by its own category.
  else if (category === 'secret' || category === 'configmap' || category === 'namespace' || category === 'list') normalizeCoreObject(value);
}

/** Metadata the API server sets; meaningless in a desired-state manifest, so dropped. */
export const SERVER_METADATA = [
  'managedFields',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'ownerReferences',
  'selfLink',
  'finalizers',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
];
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * What the tool that applied an object stamps on it to track it: Flux's kustomize-controller and
 * helm-controller (fluxcd/pkg ssa, helm-controller's postrender labels), Helm's ownership
 * (pkg/action/validate.go existingResourceConflict reads exactly these) and Argo CD's annotation
 * tracking. In Git they would claim the object for its old owner (Helm adopts an object that
 * carries them), so an export loses them as it loses server-set fields.
 */
const OWNER_LABELS = [
  'kustomize.toolkit.fluxcd.io/name',
  'kustomize.toolkit.fluxcd.io/namespace',
  'helm.toolkit.fluxcd.io/name',
  'helm.toolkit.fluxcd.io/namespace',
];
const OWNER_ANNOTATIONS = ['meta.helm.sh/release-name', 'meta.helm.sh/release-namespace', 'argocd.argoproj.io/tracking-id'];

/**
 * Argo CD's label tracking, its default before 3.0 (docs user-guide/resource_tracking.md): the
 * Application's name in the well-known instance label, which Helm charts also set to their
 * release's name.
 */
const ARGOCD_INSTANCE_LABEL = 'app.kubernetes.io/instance';

/** A GitOps tool that applied an exported object, and so would apply it again after the move. */
export interface GitOpsOwner {
  /** `Flux Kustomization`, `Flux HelmRelease` or `Argo CD Application`. */
  kind: string;
  namespace?: string;
  name: string;
  /** Where the object names it: `labels` or `annotations`, and the key. */
  field: ['labels' | 'annotations', string];
}

function gitOpsOwners(labels: Record<string, unknown>, annotations: Record<string, unknown>, exported: boolean): GitOpsOwner[] {
  const owners: GitOpsOwner[] = [];
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  for (const [prefix, kind] of [
    ['kustomize.toolkit.fluxcd.io', 'Flux Kustomization'],
    ['helm.toolkit.fluxcd.io', 'Flux HelmRelease'],
  ] as const) {
    const name = text(labels[`${prefix}/name`]);
    if (name) owners.push({ kind, name, namespace: text(labels[`${prefix}/namespace`]), field: ['labels', `${prefix}/name`] });
  }
  // <application>:<group>/<kind>:<namespace>/<name>; an Application in another namespace is <namespace>_<name>
  const application = text(annotations['argocd.argoproj.io/tracking-id'])?.split(':')[0];
  if (application) {
    const [namespace, name] = application.includes('_') ? application.split('_', 2) : [undefined, application];
    owners.push({
      kind: 'Argo CD Application',
      name: name!,
      ...(namespace ? { namespace } : {}),
      field: ['annotations', 'argocd.argoproj.io/tracking-id'],
    });
  }
  const instance = text(labels[ARGOCD_INSTANCE_LABEL]);
  // only on an export: a manifest written for Git sets this recommended label for its own reasons
  if (exported && !application && instance && !argoInstanceIsHelms(labels, annotations))
    owners.push({ kind: 'Argo CD Application', name: instance, field: ['labels', ARGOCD_INSTANCE_LABEL] });
  return owners;
}

/**
 * The instance label of a chart's object (`helm template` prints the chart's own labels, an
 * installed release adds its name in an annotation) names that release, not an Application.
 */
function argoInstanceIsHelms(labels: Record<string, unknown>, annotations: Record<string, unknown>): boolean {
  return (
    labels[ARGOCD_INSTANCE_LABEL] === annotations['meta.helm.sh/release-name'] ||
    labels['app.kubernetes.io/managed-by'] === 'Helm' ||
    Object.hasOwn(labels, 'helm.sh/chart')
  );
}

/** How to stop a GitOps tool applying the exported objects again, as that tool's CLI does it. */
function suspendHint(owner: GitOpsOwner): string {
  // the names come from labels and annotations of the input: quoted for the shell
  const name = shellWord(owner.namespace && owner.kind === 'Argo CD Application' ? `${owner.namespace}/${owner.name}` : owner.name);
  const namespace = owner.namespace && owner.kind !== 'Argo CD Application' ? ` -n ${shellWord(owner.namespace)}` : '';
  const stop =
    owner.kind === 'Argo CD Application'
      ? `turn off its automated sync before the move: argocd app set ${name} --sync-policy none`
      : `suspend it before the move: flux suspend ${owner.kind === 'Flux HelmRelease' ? 'helmrelease' : 'kustomization'} ${name}${namespace}`;
  return `${stop}, or it re-creates the provider objects the move deletes; then take these objects out of its source, and these labels and annotations out of the export`;
}

/** What an export a GitOps tool applies is told: that tool, and how to stop it. `objects`: the input's objects it applies. */
export function gitOpsOwnerWarning(owner: GitOpsOwner, objects = 1): Pick<Diagnostic, 'message' | 'hint'> {
  const more = objects > 1 ? ` (and ${objects - 1} more object${objects === 2 ? '' : 's'} of the input)` : '';
  const message =
    `exported from a cluster where ${owner.kind} ${owner.namespace ? `${owner.namespace}/` : ''}${owner.name} applies it${more}; ` +
    'its tracking metadata is left out of the output';
  return { message, hint: suspendHint(owner) };
}

/**
 * Removes status, server-set metadata and the tracking metadata of the tool that applied the
 * object, as a `kubectl get -o yaml` export carries them; returns the GitOps tools that applied it.
 */
export function stripServerFields(value: Record<string, unknown>): GitOpsOwner[] {
  delete value.status;
  const metadata = value.metadata;
  if (!isPlainObject(metadata)) return [];
  // what only the API server writes: the object was read from a cluster
  const exported = ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields'].some((field) => Object.hasOwn(metadata, field));
  for (const field of SERVER_METADATA) delete metadata[field];
  const labels = isPlainObject(metadata.labels) ? metadata.labels : {};
  const annotations = isPlainObject(metadata.annotations) ? metadata.annotations : {};
  const owners = gitOpsOwners(labels, annotations, exported);
  if (owners.some((owner) => owner.kind === 'Argo CD Application' && owner.name === labels[ARGOCD_INSTANCE_LABEL]))
    delete labels[ARGOCD_INSTANCE_LABEL];
  for (const key of OWNER_LABELS) delete labels[key];
  if (labels['app.kubernetes.io/managed-by'] === 'Helm') delete labels['app.kubernetes.io/managed-by'];
  for (const key of [...OWNER_ANNOTATIONS, LAST_APPLIED_ANNOTATION]) delete annotations[key];
  if (isPlainObject(metadata.labels) && Object.keys(labels).length === 0) delete metadata.labels;
  if (isPlainObject(metadata.annotations) && Object.keys(annotations).length === 0) delete metadata.annotations;
  return owners;
}
