import { isPlainObject } from '../core/kobject.js';
import type { ProviderKind } from '../core/provider.js';
import type { Finding } from './documents.js';
import { stringEntries } from './core-objects.js';
import type { ProviderObject, ProviderSpec, SourcePosition } from './types.js';

const FETCH_SOURCES = ['url', 'selector', 'oci'] as const;

/**
 * The CEL rules of the upstream CRD (api/v1alpha2/provider_types.go, x-kubernetes-validations),
 * which a JSON Schema validator does not evaluate. CEL `has()` is true for any field that is
 * present, even when empty, so presence is what counts here. Paths are relative to the spec.
 */
export function checkProviderSpecRules(spec: Record<string, unknown>): Finding[] {
  const findings: Finding[] = [];
  const fetchConfig = spec.fetchConfig;
  if (isPlainObject(fetchConfig)) {
    const set = FETCH_SOURCES.filter((field) => field in fetchConfig);
    if (set.length !== 1) {
      findings.push({
        path: ['fetchConfig'],
        at: 'key',
        message: set.length === 0 ? 'fetchConfig sets none of url, selector and oci' : `fetchConfig sets ${set.join(' and ')} together`,
        expected: 'exactly one of url, selector and oci (upstream rule: "Must specify one and only one of {oci, url, selector}")',
        hint: 'url: a release URL; selector: labels of ConfigMaps given in the input; oci: an OCI artifact. Remove fetchConfig to use the built-in repository',
      });
    }
  }
  if ('manifestPatches' in spec && 'patches' in spec) {
    findings.push({
      path: ['patches'],
      at: 'key',
      message: '"patches" and "manifestPatches" cannot both be set',
      expected: `either patches or manifestPatches (upstream rule: "Cannot set both 'patches' and 'manifestPatches'")`,
      hint: 'move each manifestPatches entry into patches as `- patch: |` followed by the patch; manifestPatches is deprecated upstream',
    });
  }
  return findings;
}

/**
 * The operator's defaulting webhook (internal/webhook/provider_webhook.go setDefaultProviderSpec):
 * configSecret and additionalManifests without a namespace refer to the provider's namespace.
 * Returns a defaulted copy.
 */
export function applyWebhookDefaults(spec: ProviderSpec, providerNamespace: string): ProviderSpec {
  const result: ProviderSpec = { ...spec };
  if (spec.configSecret && !spec.configSecret.namespace) result.configSecret = { ...spec.configSecret, namespace: providerNamespace };
  if (spec.additionalManifests && !spec.additionalManifests.namespace) {
    result.additionalManifests = { ...spec.additionalManifests, namespace: providerNamespace };
  }
  return result;
}

/** The validated provider, its spec defaulted by the webhook. */
export function toProviderObject(value: Record<string, unknown>, position: SourcePosition): ProviderObject {
  const metadata = (isPlainObject(value.metadata) ? value.metadata : {}) as Record<string, unknown> & { name?: string; namespace?: string };
  const namespace = metadata.namespace ?? '';
  const spec = (isPlainObject(value.spec) ? value.spec : {}) as ProviderSpec;
  const labels = stringMap(metadata.labels);
  const annotations = stringMap(metadata.annotations);
  return {
    kind: value.kind as ProviderKind,
    name: metadata.name ?? '',
    namespace,
    spec: applyWebhookDefaults(spec, namespace),
    ...(labels ? { labels } : {}),
    ...(annotations ? { annotations } : {}),
    position,
  };
}

/** A map's string entries (the schema allows no others), or undefined when there are none. */
function stringMap(value: unknown): Record<string, string> | undefined {
  const entries = stringEntries(value);
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}
