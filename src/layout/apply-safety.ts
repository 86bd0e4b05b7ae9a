/**
 * Apply safety written into the objects themselves, one small filter per rule (the shape of
 * kustomize's api/filters): whatever Application or Kustomization points at a component
 * directory, the objects carry their own ordering, prune protection and apply mode.
 * Every filter is `(objects, context) => objects` and copies what it changes.
 */
import { apiGroup, isPlainObject, type KObject } from '../core/kobject.js';
import { isCustomResourceDefinition } from './names.js';
import { CERT_MANAGER_INJECT_CA_FROM, CERT_MANAGER_ISSUING_KINDS, WEBHOOK_CONFIGURATION_KINDS } from '../core/kinds.js';
import { FLUX_SUBSTITUTE_LABEL } from '../secrets/flux-substitute.js';
import { WRANGLER_CERTIFICATE_ANNOTATION } from '../manifest/turtles.js';

/** Which GitOps tool's annotations a layout writes. */
export interface SafetyContext {
  argocd: boolean;
  flux: boolean;
  /** Objects the GitOps tool must stop enforcing (Config.overrides). */
  unmanaged: readonly ObjectSelector[];
}

export interface ObjectSelector {
  group: string;
  kind: string;
  name: string;
  namespace?: string;
}

type SafetyFilter = (objects: KObject[], context: SafetyContext) => KObject[];

const ARGO_SYNC_WAVE = 'argocd.argoproj.io/sync-wave';
const ARGO_SYNC_OPTIONS = 'argocd.argoproj.io/sync-options';
const FLUX_PRUNE = 'kustomize.toolkit.fluxcd.io/prune';
const FLUX_RECONCILE = 'kustomize.toolkit.fluxcd.io/reconcile';
/** Argo CD fails client-side apply above kubectl's 262,144-byte last-applied annotation. */
export const LARGE_OBJECT_BYTES = 200 * 1024;
const PROTECTED_SYNC_OPTIONS = 'Prune=false,Delete=false,ServerSideApply=true';

/** cert-manager's cainjector writes caBundle into objects carrying one of these. */
const CA_INJECTION_ANNOTATIONS = [
  CERT_MANAGER_INJECT_CA_FROM,
  'cert-manager.io/inject-ca-from-secret',
  'cert-manager.io/inject-apiserver-ca',
];
const RBAC_KINDS = new Set(['ServiceAccount', 'Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

function isProtectedKind(obj: KObject): boolean {
  return isCustomResourceDefinition(obj) || (obj.kind === 'Namespace' && obj.apiVersion === 'v1');
}

// Metadata-only rules copy the object and its metadata, not the whole tree: a deep clone of every
// large CRD, three times over, cost about a tenth of a warm render. Spec subtrees stay shared
// with the input, which no later step mutates.
function withAnnotation(obj: KObject, key: string, value: string): KObject {
  return { ...obj, metadata: { ...obj.metadata, annotations: { ...(obj.metadata.annotations ?? {}), [key]: value } } };
}

function withLabel(obj: KObject, key: string, value: string): KObject {
  return { ...obj, metadata: { ...obj.metadata, labels: { ...(obj.metadata.labels ?? {}), [key]: value } } };
}

export function matchesSelector(obj: KObject, s: ObjectSelector): boolean {
  return (
    obj.kind === s.kind &&
    apiGroup(obj.apiVersion) === s.group &&
    obj.metadata.name === s.name &&
    (s.namespace === undefined || (obj.metadata.namespace ?? '') === s.namespace)
  );
}

function isUnmanaged(obj: KObject, context: SafetyContext): boolean {
  return context.unmanaged.some((s) => matchesSelector(obj, s));
}

/** Helm hooks do not belong in GitOps output: Argo CD runs them as hooks and deletes them. */
const dropHelmHooks: SafetyFilter = (objects) =>
  objects.map((obj) => {
    const annotations = obj.metadata.annotations;
    if (!annotations || !Object.keys(annotations).some((k) => k.startsWith('helm.sh/hook'))) return obj;
    return {
      ...obj,
      metadata: {
        ...obj.metadata,
        annotations: Object.fromEntries(Object.entries(annotations).filter(([k]) => !k.startsWith('helm.sh/hook'))),
      },
    };
  });

/** `record` without `key`, other keys in their order. */
function without(record: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _dropped, ...rest } = record;
  return rest;
}

const NO_SERVICES: ReadonlySet<string> = new Set();

/**
 * The Services Rancher makes a certificate for, by `namespace/name`: those annotated
 * `need-a-cert.cattle.io/secret-name` with a name (rancher/wrangler pkg/needacert, which
 * rancher/rancher pkg/controllers/dashboard registers; Turtles' WranglerPatcher annotates a
 * CAPIProvider's webhook Services so). It writes the certificate's CA into the caBundle of every
 * webhook and CRD conversion webhook whose clientConfig.service is one of them.
 */
export function needACertServices(objects: readonly KObject[]): ReadonlySet<string> {
  const found = new Set<string>();
  for (const obj of objects) {
    if (obj.kind !== 'Service' || obj.apiVersion !== 'v1') continue;
    const secret: unknown = obj.metadata.annotations?.[WRANGLER_CERTIFICATE_ANNOTATION];
    if (typeof secret === 'string' && secret !== '') found.add(`${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`);
  }
  return found;
}

/** Whether needacert writes this clientConfig's caBundle: its service is one of `services` (needacert skips a service without a name). */
function needACertWrites(clientConfig: unknown, services: ReadonlySet<string>): boolean {
  if (services.size === 0 || !isPlainObject(clientConfig) || !isPlainObject(clientConfig.service)) return false;
  const { name, namespace } = clientConfig.service;
  return typeof name === 'string' && name !== '' && services.has(`${typeof namespace === 'string' ? namespace : ''}/${name}`);
}

function crdClientConfig(obj: KObject): unknown {
  return (obj.spec as { conversion?: { webhook?: { clientConfig?: unknown } } } | undefined)?.conversion?.webhook?.clientConfig;
}

/**
 * Who writes this object's CA bundle(s): cert-manager's cainjector (the object's annotations say
 * so, for all of them), Rancher's need-a-cert controller (for the webhooks whose Service is one of
 * `services`, needACertServices), or nobody.
 */
export function caBundleWriter(obj: KObject, services: ReadonlySet<string> = NO_SERVICES): 'cert-manager' | 'rancher' | undefined {
  const annotations = obj.metadata.annotations ?? {};
  if (CA_INJECTION_ANNOTATIONS.some((a) => Object.hasOwn(annotations, a))) return 'cert-manager';
  if (services.size === 0) return undefined;
  if (isCustomResourceDefinition(obj)) return needACertWrites(crdClientConfig(obj), services) ? 'rancher' : undefined;
  if (WEBHOOK_CONFIGURATION_KINDS.has(obj.kind) && Array.isArray(obj.webhooks))
    return obj.webhooks.some((w) => isPlainObject(w) && needACertWrites(w.clientConfig, services)) ? 'rancher' : undefined;
  return undefined;
}

/** Whether something in the cluster owns this object's CA bundle(s) (caBundleWriter). */
export function isCaInjected(obj: KObject, services: ReadonlySet<string> = NO_SERVICES): boolean {
  return caBundleWriter(obj, services) !== undefined;
}

/** The fields cainjector writes, as Argo CD jqPathExpressions. */
export function caBundlePaths(obj: KObject): string[] {
  if (isCustomResourceDefinition(obj)) return ['.spec.conversion.webhook.clientConfig.caBundle'];
  if (WEBHOOK_CONFIGURATION_KINDS.has(obj.kind)) return ['.webhooks[]?.clientConfig.caBundle'];
  return [];
}

/**
 * Released components ship a placeholder caBundle (CAPA's `Cg==`) where cainjector writes the
 * real one. Applying the placeholder fights the injector (Argo CD OutOfSync, Flux resetting it
 * on every reconcile), so objects the injector owns leave the field out; so do the webhooks whose
 * CA bundle Rancher's need-a-cert controller writes (caBundleWriter), and only those.
 */
const dropInjectedCaBundles: SafetyFilter = (objects) => {
  const services = needACertServices(objects);
  return objects.map((obj) => {
    const writer = caBundleWriter(obj, services);
    if (writer === undefined) return obj;
    if (isCustomResourceDefinition(obj)) {
      const clientConfig = crdClientConfig(obj);
      if (!isPlainObject(clientConfig) || !Object.hasOwn(clientConfig, 'caBundle')) return obj;
      // Copy only the path to the field; the rest of a large CRD stays shared.
      const spec = obj.spec as { conversion: { webhook: Record<string, unknown> } };
      const webhook = { ...spec.conversion.webhook, clientConfig: without(clientConfig, 'caBundle') };
      return { ...obj, spec: { ...spec, conversion: { ...spec.conversion, webhook } } };
    }
    if (WEBHOOK_CONFIGURATION_KINDS.has(obj.kind) && Array.isArray(obj.webhooks)) {
      const written = (w: unknown): w is Record<string, unknown> & { clientConfig: Record<string, unknown> } =>
        isPlainObject(w) && isPlainObject(w.clientConfig) && (writer === 'cert-manager' || needACertWrites(w.clientConfig, services));
      if (!obj.webhooks.some((w) => written(w) && Object.hasOwn(w.clientConfig, 'caBundle'))) return obj;
      const webhooks = obj.webhooks.map((w) => (written(w) ? { ...w, clientConfig: without(w.clientConfig, 'caBundle') } : w));
      return { ...obj, webhooks };
    }
    return obj;
  });
};

/**
 * Waves inside a component: Namespaces and CRDs, then cert-manager issuers and certificates
 * (so a webhook's certificate exists before its Deployment and configuration) and Secrets (and
 * the ExternalSecrets that make them), then RBAC, Services, Deployments and webhook
 * configurations, then everything else.
 */
export function objectWave(obj: KObject): number {
  if (isProtectedKind(obj)) return 0;
  if (apiGroup(obj.apiVersion) === 'cert-manager.io' && CERT_MANAGER_ISSUING_KINDS.has(obj.kind)) return 1;
  const group = apiGroup(obj.apiVersion);
  // a Deployment mounts or reads its Secrets: they exist before it (a Secret a Deployment waits
  // for would hold the wave, as Argo CD waits for each wave to be healthy)
  if ((obj.kind === 'Secret' && group === '') || (obj.kind === 'ExternalSecret' && group === 'external-secrets.io')) return 1;
  if (
    RBAC_KINDS.has(obj.kind) ||
    (obj.kind === 'Service' && group === '') ||
    (obj.kind === 'Deployment' && group === 'apps') ||
    WEBHOOK_CONFIGURATION_KINDS.has(obj.kind)
  )
    return 2;
  return 3;
}

const argoObjectWaves: SafetyFilter = (objects, context) =>
  context.argocd ? objects.map((obj) => withAnnotation(obj, ARGO_SYNC_WAVE, String(objectWave(obj)))) : objects;

/**
 * Pruning a CAPI CRD deletes every Cluster; deleting a Namespace deletes what is in it. Both are
 * applied server-side (CAPI CRDs are over client-side apply's annotation limit).
 * Unmanaged objects are never pruned either.
 */
const argoSyncOptions: SafetyFilter = (objects, context) => {
  if (!context.argocd) return objects;
  return objects.map((obj) => {
    if (isProtectedKind(obj)) return withAnnotation(obj, ARGO_SYNC_OPTIONS, PROTECTED_SYNC_OPTIONS);
    if (isUnmanaged(obj, context)) return withAnnotation(obj, ARGO_SYNC_OPTIONS, 'Prune=false');
    return obj;
  });
};

const fluxPruneProtection: SafetyFilter = (objects, context) =>
  context.flux ? objects.map((obj) => (isProtectedKind(obj) ? withAnnotation(obj, FLUX_PRUNE, 'disabled') : obj)) : objects;

const fluxUnmanaged: SafetyFilter = (objects, context) =>
  context.flux ? objects.map((obj) => (isUnmanaged(obj, context) ? withAnnotation(obj, FLUX_RECONCILE, 'disabled') : obj)) : objects;

// Walks every value of every object of a render: plain loops, not Object.entries (its arrays
// were a third of the kustomize layout's apply-safety time on the corpus), and over Object.keys
// rather than for-in with a hasOwn test per key (a cold walk of the corpus's objects, fresh
// process, 10 alternating runs: 19.5 -> 14.7 ms CPU).
function containsSubstitution(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('${');
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (containsSubstitution(value[i])) return true;
    return false;
  }
  if (!isPlainObject(value)) return false;
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key.includes('${') || containsSubstitution(value[key])) return true;
  }
  return false;
}

/**
 * A literal `${` left in a component (CRD descriptions have them) would be eaten by a Flux
 * postBuild substitution; the label makes Flux skip the object whatever the wiring does. An
 * object that already says (secrets flux-substitute: `enabled`, its `$` escaped) is left alone.
 * Applied at emission (emitObjects): `emitted` is the object's text from the project's emitter,
 * which writes `$` and `{` as they are and breaks lines only at spaces, so an object holds `${`
 * only if its text does (test/layout/apply-safety.test.ts checks it over every scalar form); the
 * objects are walked only then (a walk of every object cost a cold render of the corpus 20 ms,
 * and none of them has `${`).
 */
export function fluxSubstituteLabel(obj: KObject, context: SafetyContext, emitted: string): KObject | undefined {
  if (!context.flux || !emitted.includes('${')) return undefined;
  if (obj.metadata.labels?.[FLUX_SUBSTITUTE_LABEL] !== undefined || !containsSubstitution(obj)) return undefined;
  return withLabel(obj, FLUX_SUBSTITUTE_LABEL, 'disabled');
}

/**
 * In order; then, at emission (emitObjects), the Flux substitution guard, where the text tells
 * which objects to walk, and the large-object rule, where the serialized size is known.
 */
const SAFETY_FILTERS: readonly SafetyFilter[] = [
  dropHelmHooks,
  dropInjectedCaBundles,
  argoObjectWaves,
  argoSyncOptions,
  fluxPruneProtection,
  fluxUnmanaged,
];

export function applySafety(objects: KObject[], context: SafetyContext): KObject[] {
  return SAFETY_FILTERS.reduce((acc, filter) => filter(acc, context), objects);
}

/** Objects over LARGE_OBJECT_BYTES when serialized (`text`) are applied server-side by Argo CD. */
export function largeObjectSyncOption(obj: KObject, text: string, context: SafetyContext): KObject | undefined {
  // Counting the UTF-8 bytes of every text (3.5 MB for the corpus) takes milliseconds: only Argo CD needs it.
  if (!context.argocd || Buffer.byteLength(text) <= LARGE_OBJECT_BYTES) return undefined;
  const current = obj.metadata.annotations?.[ARGO_SYNC_OPTIONS];
  if (current?.split(',').includes('ServerSideApply=true')) return undefined;
  return withAnnotation(obj, ARGO_SYNC_OPTIONS, current ? `${current},ServerSideApply=true` : 'ServerSideApply=true');
}
