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
import { wranglerRemovedObjects } from '../render/turtles.js';
import { WRANGLER_CERTIFICATE_ANNOTATION } from '../manifest/turtles.js';
import { PROVIDER_NAME_LABEL } from '../render/labels.js';
import type { PreparedProvider } from './providers.js';
import type { Resolution } from './types.js';
import { configFieldOrigin } from '../resolve/resolve.js';

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

/**
 * cert-manager rendered by default where nothing needs it: every provider is a CAPIProvider and
 * the Config says Turtles runs with no-cert-manager on, so WranglerPatcher drops every provider's
 * Certificates (the core's too) and the rancher-turtles chart installs no cert-manager object of
 * its own (v0.27.0). Not left out unasked: a synced tree that loses cert-manager prunes it, and
 * something else in the cluster may use it. At `turtles.noCertManager`; said either way in
 * `certManager.enabled`, no word.
 */
export function unneededCertManagerWarnings(resolution: Pick<Resolution, 'manifest' | 'providers' | 'certManager'>): Diagnostic[] {
  const { config } = resolution.manifest;
  if (config.turtles?.noCertManager !== true || config.certManager?.enabled !== undefined || resolution.certManager === null) return [];
  if (resolution.providers.length === 0 || resolution.providers.some((p) => p.provider.turtles === undefined)) return [];
  return [
    {
      ...configFieldOrigin(config, 'turtles', 'noCertManager'),
      message:
        `cert-manager ${resolution.certManager.version} is rendered (certManager.enabled defaults to true), yet no provider needs it: every one is a CAPIProvider, ` +
        'which Turtles with no-cert-manager on applies without its Certificates and Issuers (rancher/turtles internal/provider/wrangler.go WranglerPatcher), ' +
        'and the rancher-turtles chart installs no cert-manager object of its own',
      hint:
        'set certManager.enabled: false in the Config to leave cert-manager out (where the output was synced with it, the GitOps tool may then prune it); ' +
        'or certManager.enabled: true to keep it, where something else in the cluster uses cert-manager',
    },
  ];
}
