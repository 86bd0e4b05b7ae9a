/**
 * rancher/turtles internal/provider/wrangler.go WranglerPatcher: what Turtles with its
 * `no-cert-manager` feature gate on (feature/feature.go NoCertManager; the rancher-turtles chart's
 * `features.no-cert-manager.enabled`, on by default from v0.27.0) does to a CAPIProvider's
 * components, after AddClusterIndexedLabelFn (internal/controllers/operator_reconciler.go
 * BuildWithManager), both after the operator's customisation, patches and image overrides
 * (cluster-api-operator internal/controller/phase_fetch.go Fetch). Rendered when the Config says
 * the Turtles installation runs with it (`turtles.noCertManager: true`).
 *
 * 1. every object of kind `Certificate` (any group): its `namespace/name` → `spec.secretName`,
 *    which it must have (ErrNoCertificateSecret);
 * 2. every object whose annotations hold `cert-manager.io/inject-ca-from` must name one of them
 *    ("could not find secret for certificate"); a Mutating or ValidatingWebhookConfiguration's
 *    webhooks' `clientConfig.service`s take that Certificate's secretName (the last one wins);
 * 3. each Service of those names and namespaces is annotated
 *    `need-a-cert.cattle.io/secret-name: <secretName>`, for Rancher's need-a-cert controller
 *    (rancher/wrangler pkg/needacert) to make the Secret and write the CA bundle;
 * 4. `cert-manager.io/inject-ca-from` comes off every object, and every `Certificate` and `Issuer`
 *    (any group) is dropped.
 * Annotations are read as unstructured GetAnnotations reads them (`stringMapOf`): a map holding a
 * value that is not a string is no map, so such an object keeps its inject-ca-from and a Service
 * annotated gets that one annotation only. Turtles stops at the first problem and fails the
 * provider; every problem is told here, at the CAPIProvider.
 */
import { CapiGitopsError, type Diagnostic } from '../core/diagnostics.js';
import { describeObject, isPlainObject, type KObject } from '../core/kobject.js';
import { CERT_MANAGER_INJECT_CA_FROM, WEBHOOK_CONFIGURATION_KINDS } from '../core/kinds.js';
import type { ProviderOrigin } from './deployment.js';
import { stringMapOf } from './labels.js';
import { WRANGLER_CERTIFICATE_ANNOTATION } from '../manifest/turtles.js';
import { isWranglerRemoved } from './turtles.js';

/** unstructured GetName and GetNamespace: the string, else "". */
function goString(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function keyOf(namespace: unknown, name: unknown): string {
  return `${goString(namespace)}/${goString(name)}`;
}

function typeName(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'list' : typeof value === 'object' ? 'map' : typeof value;
}

/** The Secrets the components' Deployments mount, sorted: what a Certificate's secretName names. */
function mountedSecrets(objects: readonly KObject[]): string[] {
  const names = new Set<string>();
  for (const o of objects) {
    const pod = (o.spec as { template?: { spec?: { volumes?: unknown } } } | undefined)?.template?.spec;
    if (o.kind !== 'Deployment' || !Array.isArray(pod?.volumes)) continue;
    for (const v of pod.volumes as unknown[]) {
      const secret = isPlainObject(v) && isPlainObject(v.secret) ? v.secret.secretName : undefined;
      if (typeof secret === 'string' && secret !== '') names.add(secret);
    }
  }
  return [...names].sort();
}

function patchExample(kind: string, name: string, body: string[]): string {
  return ['patches:', '- target:', `    kind: ${kind}`, `    name: ${name}`, '  patch: |', ...body.map((l) => `    ${l}`)].join('\n');
}

/** Step 1: each Certificate's secretName by `namespace/name`; the keys of those without one in `broken`. */
function certificates(objects: readonly KObject[], origin: ProviderOrigin, problems: Diagnostic[], broken: Set<string>) {
  const found = new Map<string, string>();
  // the Secret a broken Certificate's example names: the one mounted Secret no Certificate claims
  let unclaimed: string[] | undefined;
  const unclaimedSecrets = () => {
    if (unclaimed !== undefined) return unclaimed;
    const claimed = new Set(objects.flatMap((o) => (o.kind === 'Certificate' && isPlainObject(o.spec) ? [o.spec.secretName] : [])));
    return (unclaimed = mountedSecrets(objects).filter((s) => !claimed.has(s)));
  };
  for (const o of objects) {
    if (o.kind !== 'Certificate') continue;
    const key = keyOf(o.metadata?.namespace, o.metadata?.name);
    const spec = o.spec;
    const secretName = isPlainObject(spec) ? spec.secretName : undefined;
    if (typeof secretName === 'string') {
      found.set(key, secretName);
      continue;
    }
    broken.add(key);
    const what =
      spec !== undefined && !isPlainObject(spec)
        ? `its spec is a ${typeName(spec)}`
        : secretName === undefined && !(isPlainObject(spec) && Object.hasOwn(spec, 'secretName'))
          ? 'it has no spec.secretName'
          : `its spec.secretName is a ${typeName(secretName)}`;
    const candidates = unclaimedSecrets();
    const secret = candidates.length === 1 ? candidates[0]! : `${goString(o.metadata?.name)}-tls`;
    problems.push({
      ...origin,
      message:
        `${describeObject(o)} of the components: ${what}, and Turtles with its no-cert-manager feature on (Config turtles.noCertManager) ` +
        'fails the provider for it (rancher/turtles internal/provider/wrangler.go WranglerPatcher: "certificate has no secretName defined")',
      expected: 'a Certificate whose spec.secretName names the Secret of its certificate, a string',
      hint:
        `add the example to the provider's spec.patches (Turtles changes the components after the patches), ` +
        `the secretName being the Secret the webhook Deployment mounts; or, where Turtles runs with no-cert-manager off, set turtles.noCertManager: false in the Config`,
      example: patchExample('Certificate', goString(o.metadata?.name), ['spec:', `  secretName: ${secret}`]),
    });
  }
  return found;
}

interface WebhookService {
  name: string;
  namespace: string;
  secretName: string;
}

/** Step 2: the webhook Services and the secretName each takes, by `namespace/name`. */
function webhookServices(
  objects: readonly KObject[],
  certs: Map<string, string>,
  broken: Set<string>,
  origin: ProviderOrigin,
  problems: Diagnostic[],
) {
  const services = new Map<string, WebhookService>();
  for (const o of objects) {
    const annotations = stringMapOf(o.metadata?.annotations);
    if (annotations === undefined || !Object.hasOwn(annotations, CERT_MANAGER_INJECT_CA_FROM)) continue;
    const from = annotations[CERT_MANAGER_INJECT_CA_FROM]!;
    const secretName = certs.get(from);
    if (secretName === undefined) {
      if (!broken.has(from))
        problems.push({
          ...origin,
          message:
            `${describeObject(o)} of the components has ${CERT_MANAGER_INJECT_CA_FROM}: ${JSON.stringify(from)}, which names no Certificate of them, ` +
            `and Turtles with its no-cert-manager feature on (Config turtles.noCertManager) fails the provider for it ` +
            `(rancher/turtles internal/provider/wrangler.go WranglerPatcher: "could not find secret for certificate ${from}")`,
          expected: `${CERT_MANAGER_INJECT_CA_FROM} naming the <namespace>/<name> of a Certificate of the components`,
          hint:
            `add the example to the provider's spec.patches, which takes the annotation off (Turtles changes the components after the patches); ` +
            `or, where Turtles runs with no-cert-manager off, set turtles.noCertManager: false in the Config`,
          example: patchExample(o.kind, goString(o.metadata?.name), [
            'metadata:',
            '  annotations:',
            `    ${CERT_MANAGER_INJECT_CA_FROM}: null`,
          ]),
        });
      continue;
    }
    if (!WEBHOOK_CONFIGURATION_KINDS.has(o.kind) || !Array.isArray(o.webhooks)) continue;
    for (const webhook of o.webhooks as unknown[]) {
      const service = isPlainObject(webhook) && isPlainObject(webhook.clientConfig) ? webhook.clientConfig.service : undefined;
      if (!isPlainObject(service)) continue;
      const [name, namespace] = [goString(service.name), goString(service.namespace)];
      services.set(`${namespace}/${name}`, { name, namespace, secretName });
    }
  }
  return services;
}

/** rancher/turtles internal/provider/wrangler.go WranglerPatcher over one CAPIProvider's components; every problem at the CAPIProvider. */
export function wranglerPatcher(objects: readonly KObject[], origin: ProviderOrigin = {}): KObject[] {
  const problems: Diagnostic[] = [];
  const broken = new Set<string>();
  const certs = certificates(objects, origin, problems, broken);
  const services = webhookServices(objects, certs, broken, origin, problems);
  if (problems.length > 0) throw new CapiGitopsError(problems);
  return objects.flatMap((o) => {
    if (isWranglerRemoved(o)) return [];
    const service = o.kind === 'Service' ? services.get(keyOf(o.metadata?.namespace, o.metadata?.name)) : undefined;
    const given = stringMapOf(o.metadata?.annotations);
    let annotations: Record<string, string> | undefined = service
      ? { ...given, [WRANGLER_CERTIFICATE_ANNOTATION]: service.secretName }
      : undefined;
    const read = annotations ?? given;
    if (read !== undefined && Object.hasOwn(read, CERT_MANAGER_INJECT_CA_FROM)) {
      const { [CERT_MANAGER_INJECT_CA_FROM]: _removed, ...rest } = read;
      annotations = rest;
    }
    return [annotations === undefined ? o : { ...o, metadata: { ...o.metadata, annotations } }];
  });
}
