/**
 * What Rancher Turtles does to a CAPIProvider's components that a render cannot know to do:
 * `internal/provider/wrangler.go` WranglerPatcher, behind the Turtles installation's
 * `no-cert-manager` feature gate (rancher/turtles feature/feature.go; the rancher-turtles chart's
 * `features.no-cert-manager.enabled`, on by default from v0.27.0), unless the Config says which
 * way Turtles runs (`turtles.noCertManager`: true renders it, render/wrangler.ts). Told at the
 * CAPIProvider.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import { shellWord } from '../core/shell.js';
import type { RenderedComponent } from '../render/types.js';
import { WRANGLER_CERTIFICATE_ANNOTATION, wranglerRemovedObjects } from '../render/turtles.js';
import { PROVIDER_NAME_LABEL } from '../render/labels.js';
import type { PreparedProvider } from './providers.js';

/**
 * A CAPIProvider whose components hold Certificates or Issuers: Turtles with no-cert-manager on
 * would apply them otherwise. None when the Config's `turtles.noCertManager` says how Turtles runs.
 */
export function wranglerWarnings(
  prepared: readonly PreparedProvider[],
  components: readonly RenderedComponent[],
  noCertManager: boolean | undefined,
): Diagnostic[] {
  if (noCertManager !== undefined) return [];
  return prepared.flatMap(({ resolved: { provider, label, namespace } }) => {
    if (provider.turtles === undefined) return [];
    const removed = wranglerRemovedObjects(components.find((c) => c.label === label)?.objects ?? []);
    if (removed.length === 0) return [];
    const selector = shellWord(`${PROVIDER_NAME_LABEL}=${label}`);
    return [
      {
        ...provider.position,
        object: provider.turtles,
        message:
          `Turtles with its no-cert-manager feature on (the rancher-turtles chart's features.no-cert-manager.enabled, on by default from v0.27.0) ` +
          `applies ${label} without ${removed.join(', ')}, takes off its cert-manager.io/inject-ca-from annotations and annotates ` +
          `its webhook Services ${WRANGLER_CERTIFICATE_ANNOTATION} for Rancher to make the certificates (internal/provider/wrangler.go WranglerPatcher); ` +
          'capi-gitops renders the components for cert-manager, as the cluster-api-operator does',
        hint:
          'say in the Config how Turtles runs: turtles: {noCertManager: true} renders the components as Turtles applies them with that feature on, ' +
          'turtles: {noCertManager: false} as now, without this warning. To keep cert-manager ' +
          "where Turtles ran this provider with that feature on, take Rancher's annotation off its Services before the output is synced, " +
          `so that cert-manager alone writes their certificate Secrets: kubectl annotate services -n ${shellWord(namespace)} -l ${selector} ${WRANGLER_CERTIFICATE_ANNOTATION}-`,
      },
    ];
  });
}
