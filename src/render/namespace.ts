/**
 * Target-namespace handling, as clusterctl's client/repository/components.go does it
 * (inspectTargetNamespace, addNamespaceIfMissing, fixTargetNamespace), except that which kinds
 * are cluster-scoped comes from a complete list (core/kinds.ts) rather than clusterctl's short deny-list
 * (internal/util/objs.go IsResourceNamespaced).
 */
import { DiagnosticBag, CapiGitopsError, type Diagnostic } from '../core/diagnostics.js';
import { apiGroup, apiVersionOnly, describeObject, isPlainObject, type KObject } from '../core/kobject.js';
import { CERT_MANAGER_INJECT_CA_FROM, CLUSTER_SCOPED_KINDS } from '../core/kinds.js';

const NAMESPACE_KIND = 'Namespace';
/** fixWebhookNamespaceReferences accepts only these API versions for each kind. */
const WEBHOOK_VERSIONS = ['v1beta1', 'v1'];

function groupKind(group: string, kind: string): string {
  return `${group}/${kind}`;
}

const BUILT_IN_CLUSTER_SCOPED = new Set(
  Object.entries(CLUSTER_SCOPED_KINDS).flatMap(([group, kinds]) => kinds.map((kind) => groupKind(group, kind))),
);

/** Kinds declared `scope: Cluster` by CustomResourceDefinitions among the objects. */
function clusterScopedFromCrds(objs: KObject[]): Set<string> {
  const found = new Set<string>();
  for (const obj of objs) {
    if (obj.kind !== 'CustomResourceDefinition' || !isPlainObject(obj.spec)) continue;
    const { scope, group, names } = obj.spec;
    if (scope === 'Cluster' && typeof group === 'string' && isPlainObject(names) && typeof names.kind === 'string') {
      found.add(groupKind(group, names.kind));
    }
  }
  return found;
}

/** True when objects of this apiVersion/kind live in a namespace. Unknown kinds are namespaced. */
export function isNamespaced(obj: Pick<KObject, 'apiVersion' | 'kind'>, extraClusterScoped: ReadonlySet<string> = new Set()): boolean {
  const key = groupKind(apiGroup(obj.apiVersion ?? ''), obj.kind);
  return !BUILT_IN_CLUSTER_SCOPED.has(key) && !extraClusterScoped.has(key);
}

/** Where a provider's components came from, for the message when they hold several Namespaces. */
interface ComponentsOrigin {
  origin?: Pick<Diagnostic, 'object' | 'file' | 'line' | 'column'>;
  /** The provider's `spec.additionalManifests`, its namespace defaulted. */
  additionalManifests?: { name: string; namespace: string };
}

/**
 * The name of the Namespace object in the components, if any (clusterctl inspectTargetNamespace).
 * More than one Namespace object is an invalid components file. clusterctl refuses it before the
 * operator's patches run, so no patch can remove one: the hint names what can.
 */
export function inspectTargetNamespace(objs: KObject[], from: ComponentsOrigin = {}): string | undefined {
  const namespaces = objs.filter((o) => o.kind === NAMESPACE_KIND);
  if (namespaces.length > 1) {
    const extra = from.additionalManifests;
    const configMap = extra && `ConfigMap ${extra.namespace}/${extra.name}`;
    throw new CapiGitopsError({
      ...from.origin,
      ...(extra && { path: 'spec.additionalManifests' }), // located at that field by the caller (atProviderField)
      message:
        `the components contain ${namespaces.length} Namespace objects (${namespaces.map((n) => n.metadata?.name ?? '<unnamed>').join(', ')})` +
        (configMap ? `, with the manifests of ${configMap} appended` : ''),
      expected: 'at most one object of kind Namespace in a provider components file',
      hint: configMap
        ? `clusterctl refuses a second Namespace before any patch runs (the operator appends the ConfigMap's manifests to the components): ` +
          `move the Namespace out of data.manifests of ${configMap} into the input files as a document of its own`
        : 'clusterctl refuses such components before any patch runs, so a patch cannot remove it: point the provider at an artifact with one Namespace (fetchConfig.url, or a Config repositories entry)',
    });
  }
  return namespaces[0]?.metadata?.name;
}

/** Append a Namespace object for the target when there is none (clusterctl addNamespaceIfMissing). */
export function addNamespaceIfMissing(objs: KObject[], targetNamespace: string): KObject[] {
  if (objs.some((o) => o.kind === NAMESPACE_KIND)) return objs;
  return [...objs, { apiVersion: 'v1', kind: NAMESPACE_KIND, metadata: { name: targetNamespace } }];
}

/**
 * Move every object to `targetNamespace` (clusterctl fixTargetNamespace): rename the Namespace,
 * set metadata.namespace on namespaced objects, and rewrite the references clusterctl rewrites.
 */
export function fixTargetNamespace(objs: KObject[], targetNamespace: string): KObject[] {
  const extraClusterScoped = clusterScopedFromCrds(objs);
  const bag = new DiagnosticBag();
  const result = objs.map((obj) => fixObject(obj, targetNamespace, extraClusterScoped, bag));
  bag.throwIfAny();
  return result;
}

function fixObject(obj: KObject, target: string, extraClusterScoped: ReadonlySet<string>, bag: DiagnosticBag): KObject {
  const originalNamespace = obj.metadata?.namespace ?? '';
  let out: KObject = { ...obj, metadata: { ...obj.metadata } };
  if (obj.kind === NAMESPACE_KIND) out.metadata.name = target;
  if (isNamespaced(obj, extraClusterScoped)) out.metadata.namespace = target;

  switch (obj.kind) {
    case 'ClusterRoleBinding':
    case 'RoleBinding':
      out = fixSubjects(out, target, bag);
      break;
    case 'MutatingWebhookConfiguration':
    case 'ValidatingWebhookConfiguration':
    case 'CustomResourceDefinition':
      out = fixWebhookReferences(out, target, bag);
      break;
    case 'Certificate':
      out = fixCertificateDnsNames(out, originalNamespace, target, bag);
      break;
  }
  return out;
}

function problem(obj: KObject, path: string, message: string, expected: string, hint?: string): Diagnostic {
  return { object: describeObject(obj), path, message, expected, hint };
}

/** Every subject that names a namespace, of any kind, is moved; subjects without one are left. */
function fixSubjects(obj: KObject, target: string, bag: DiagnosticBag): KObject {
  const subjects = obj.subjects;
  if (subjects === undefined || subjects === null) return obj;
  if (!Array.isArray(subjects)) {
    bag.add(problem(obj, 'subjects', 'is not a list', 'a list of RBAC subjects'));
    return obj;
  }
  return {
    ...obj,
    subjects: subjects.map((s) =>
      isPlainObject(s) && typeof s.namespace === 'string' && s.namespace !== '' ? { ...s, namespace: target } : s,
    ),
  };
}

function fixWebhookReferences(obj: KObject, target: string, bag: DiagnosticBag): KObject {
  let out = obj;
  const annotations = obj.metadata.annotations;
  const injectFrom = annotations?.[CERT_MANAGER_INJECT_CA_FROM];
  if (annotations && injectFrom !== undefined) {
    const parts = String(injectFrom).split('/');
    if (parts.length !== 2) {
      bag.add(
        problem(
          obj,
          `metadata.annotations["${CERT_MANAGER_INJECT_CA_FROM}"]`,
          `"${injectFrom}" is not <namespace>/<certificate>`,
          'exactly one "/" between namespace and Certificate name',
        ),
      );
    } else {
      out = {
        ...out,
        metadata: { ...out.metadata, annotations: { ...annotations, [CERT_MANAGER_INJECT_CA_FROM]: `${target}/${parts[1]}` } },
      };
    }
  }

  const version = apiVersionOnly(obj.apiVersion ?? '');
  if (!WEBHOOK_VERSIONS.includes(version)) {
    bag.add(
      problem(
        obj,
        'apiVersion',
        `version "${version}" of ${obj.kind} is not supported`,
        `one of ${WEBHOOK_VERSIONS.join(', ')}`,
        'clusterctl fails on other versions as well',
      ),
    );
    return out;
  }
  return obj.kind === 'CustomResourceDefinition' ? fixCrdConversionService(out, version, target) : fixWebhookServices(out, target, bag);
}

/** Each webhook's clientConfig.service, when present, points at the target namespace. */
function fixWebhookServices(obj: KObject, target: string, bag: DiagnosticBag): KObject {
  const webhooks = obj.webhooks;
  if (webhooks === undefined || webhooks === null) return obj;
  if (!Array.isArray(webhooks)) {
    bag.add(problem(obj, 'webhooks', 'is not a list', 'a list of webhooks'));
    return obj;
  }
  return {
    ...obj,
    webhooks: webhooks.map((w) => {
      if (!isPlainObject(w) || !isPlainObject(w.clientConfig) || !isPlainObject(w.clientConfig.service)) return w;
      return { ...w, clientConfig: { ...w.clientConfig, service: { ...w.clientConfig.service, namespace: target } } };
    }),
  };
}

/** v1: spec.conversion.webhook.clientConfig.service; v1beta1: spec.conversion.webhookClientConfig.service. */
function fixCrdConversionService(obj: KObject, version: string, target: string): KObject {
  const spec = obj.spec;
  if (!isPlainObject(spec) || !isPlainObject(spec.conversion)) return obj;
  const conversion = spec.conversion;
  if (version === 'v1') {
    const webhook = conversion.webhook;
    if (!isPlainObject(webhook) || !isPlainObject(webhook.clientConfig) || !isPlainObject(webhook.clientConfig.service)) return obj;
    const clientConfig = { ...webhook.clientConfig, service: { ...webhook.clientConfig.service, namespace: target } };
    return { ...obj, spec: { ...spec, conversion: { ...conversion, webhook: { ...webhook, clientConfig } } } };
  }
  const clientConfig = conversion.webhookClientConfig;
  if (!isPlainObject(clientConfig) || !isPlainObject(clientConfig.service)) return obj;
  const webhookClientConfig = { ...clientConfig, service: { ...clientConfig.service, namespace: target } };
  return { ...obj, spec: { ...spec, conversion: { ...conversion, webhookClientConfig } } };
}

/**
 * Certificate dnsNames name the webhook Service with its namespace
 * (`svc.<ns>.svc`, `svc.<ns>.svc.cluster.local`): the first `.<old>.` of each becomes `.<new>.`.
 */
function fixCertificateDnsNames(obj: KObject, originalNamespace: string, target: string, bag: DiagnosticBag): KObject {
  const spec = obj.spec;
  if (!isPlainObject(spec) || spec.dnsNames === undefined) return obj;
  const dnsNames = spec.dnsNames;
  if (!Array.isArray(dnsNames) || dnsNames.some((n) => typeof n !== 'string')) {
    bag.add(problem(obj, 'spec.dnsNames', 'is not a list of strings', 'a list of DNS names'));
    return obj;
  }
  const from = `.${originalNamespace}.`;
  const to = `.${target}.`;
  // String.prototype.replace with a string pattern replaces the first occurrence only, like strings.Replace(…, 1).
  return { ...obj, spec: { ...spec, dnsNames: (dnsNames as string[]).map((n) => n.replace(from, () => to)) } };
}
