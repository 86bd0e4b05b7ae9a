import type { ProviderObject, SecretObject } from './types.js';

/** The Secret a provider's spec.configSecret names (its namespace defaults to the provider's), if given. */
export function findConfigSecret(provider: ProviderObject, secrets: readonly SecretObject[]): SecretObject | undefined {
  const ref = provider.spec.configSecret;
  if (!ref) return undefined;
  const namespace = ref.namespace || provider.namespace;
  return secrets.find((secret) => secret.name === ref.name && secret.namespace === namespace);
}
