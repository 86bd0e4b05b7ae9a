/**
 * A provider with its own fetchConfig may have any name, but a name one typo away from a
 * built-in one of the same kind (`vpshere`) is most likely that one: the name is also the
 * clusterctl label and inventory name, so it is worth a warning.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import type { ProviderObject } from '../manifest/types.js';
import { closestName } from '../manifest/fields.js';
import { originOf } from './preflight.js';
import type { ProviderRegistry } from './registry.js';

export function providerNameWarnings(providers: readonly ProviderObject[], registry: ProviderRegistry): Diagnostic[] {
  const warnings: Diagnostic[] = [];
  for (const provider of providers) {
    if (provider.spec.fetchConfig === undefined || registry.lookup(provider.kind, provider.name) !== undefined) continue;
    const close = closestName(
      provider.name,
      registry.entries.filter((entry) => entry.kind === provider.kind && entry.builtIn).map((entry) => entry.name),
    );
    if (close === undefined) continue;
    warnings.push({
      ...originOf(provider, 'metadata.name'),
      message: `"${provider.name}" is not a built-in ${provider.kind} name; did you mean "${close}"?`,
      hint: `set metadata.name: ${close} if it is that provider; the name becomes its clusterctl label and inventory name`,
    });
  }
  return warnings;
}
