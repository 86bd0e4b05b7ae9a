/**
 * The cluster-api-operator's preflight rules (internal/controller/preflight_checks.go
 * preflightChecks), checked across the whole manifest and reported together:
 * - the CoreProvider is named `cluster-api`, and there is exactly one (clusterctl's installer
 *   also requires one core provider);
 * - at most one provider per kind and name, whatever the namespace;
 * - a provider clusterctl does not know needs a fetchConfig (or a Config `repositories` entry);
 * - fetchConfig names one source: url, selector or oci;
 * - spec.version is a semantic version (or a capi-gitops version range).
 */
import { closestName, formatPosition } from '../manifest/fields.js';
import type { Diagnostic, DiagnosticOrigin } from '../core/diagnostics.js';
import type { ProviderObject } from '../manifest/types.js';
import type { ProviderRegistry } from './registry.js';
import { isMinorDowngrade, parseSemantic, parseVersionRequest } from '../core/versions.js';

const CORE_PROVIDER_NAME = 'cluster-api';

/** `CoreProvider/capi-system/cluster-api`, as diagnostics name objects. */
export function providerObjectName(provider: Pick<ProviderObject, 'kind' | 'namespace' | 'name'>): string {
  // as the manifest's problems name the object (load.ts objectLabel): a namespace or name that is
  // no string (a problem of its own: `namespace: true`) left out, so the object is known as faulty
  const { namespace, name } = provider as { namespace: unknown; name: unknown };
  const shown = typeof name === 'string' ? name : '<unnamed>';
  return typeof namespace === 'string' && namespace !== '' ? `${provider.kind}/${namespace}/${shown}` : `${provider.kind}/${shown}`;
}

/** How the manifest's problems name a provider: a Rancher Turtles CAPIProvider by its own name, else as providerObjectName. */
export function problemObjectName(provider: Pick<ProviderObject, 'kind' | 'namespace' | 'name' | 'turtles'>): string {
  return provider.turtles ?? providerObjectName(provider);
}

/** Where a problem of the provider is: at the field `path` names (dotted) when the manifest knows it, else at the object. */
export function originOf(provider: ProviderObject, path?: string): DiagnosticOrigin {
  const { file, line, column } = provider.position;
  const at = path === undefined ? undefined : provider.fieldPosition?.(path.split('.'));
  return { file, line, column, ...at, object: providerObjectName(provider), path };
}

function coreProviderProblems(providers: readonly ProviderObject[]): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const cores = providers.filter((p) => p.kind === 'CoreProvider');
  for (const core of cores) {
    // a name of another type is the schema's problem, reported at its position already
    if (typeof core.name === 'string' && core.name !== CORE_PROVIDER_NAME) {
      problems.push({
        ...originOf(core, 'metadata.name'),
        message: `the CoreProvider must be named "${CORE_PROVIDER_NAME}", found "${core.name}"`,
        hint: `rename it to ${CORE_PROVIDER_NAME}: clusterctl and the operator know the core provider only by that name`,
      });
    }
  }
  for (const extra of cores.slice(1)) {
    problems.push({
      ...originOf(extra),
      message: `a second CoreProvider; only one is allowed (the first is ${providerObjectName(cores[0])} at ${formatPosition(cores[0].position)})`,
      hint: 'a management cluster runs exactly one core provider: remove one of them',
    });
  }
  if (cores.length === 0 && providers.length > 0) {
    const first = providers[0];
    problems.push({
      file: first.position.file,
      message: 'the input has no CoreProvider',
      expected: `one CoreProvider named ${CORE_PROVIDER_NAME}`,
      hint: 'add a CoreProvider: every other provider is checked against its contract, and clusterctl requires exactly one core provider',
    });
  }
  return problems;
}

function duplicateProblems(providers: readonly ProviderObject[]): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const first = new Map<string, ProviderObject>();
  for (const provider of providers) {
    if (provider.kind === 'CoreProvider') continue; // one-core rule above covers these
    if (typeof provider.name !== 'string') continue; // the schema's problem
    const key = `${provider.kind}/${provider.name}`;
    const earlier = first.get(key);
    if (earlier === undefined) {
      first.set(key, provider);
      continue;
    }
    problems.push({
      ...originOf(provider, 'metadata.name'),
      message: `${provider.kind} "${provider.name}" is already declared as ${providerObjectName(earlier)} at ${formatPosition(earlier.position)}`,
      hint: 'a provider can be installed once per kind and name, whatever the namespace: remove one of them',
    });
  }
  return problems;
}

function fetchConfigProblems(provider: ProviderObject, registry: ProviderRegistry): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const fetchConfig = provider.spec.fetchConfig;
  const given = (['url', 'selector', 'oci'] as const).filter((field) => fetchConfig?.[field] !== undefined && fetchConfig?.[field] !== '');
  if (given.length > 1) {
    problems.push({
      ...originOf(provider, 'spec.fetchConfig'),
      message: `fetchConfig sets ${given.join(' and ')}; it takes exactly one source`,
      expected: 'one of url, selector, oci',
    });
  }
  // A misnamed CoreProvider is reported once, by the naming rule; a name that is no string, by the schema.
  const misnamedCore = provider.kind === 'CoreProvider' && provider.name !== CORE_PROVIDER_NAME;
  const named = typeof (provider.name as unknown) === 'string';
  if (given.length === 0 && named && !misnamedCore && registry.lookup(provider.kind, provider.name) === undefined) {
    const close = closestName(
      provider.name,
      registry.entries.filter((entry) => entry.kind === provider.kind).map((entry) => entry.name),
    );
    problems.push({
      // at the name: the typo is there far more often than a missing fetchConfig
      ...originOf(provider, 'metadata.name'),
      message: `clusterctl v1.12.0 knows no ${provider.kind} named "${provider.name}", and it has no fetchConfig`,
      expected: 'spec.fetchConfig.url, spec.fetchConfig.selector or spec.fetchConfig.oci',
      hint: close
        ? `did you mean "${close}"? set metadata.name: ${close}; or, for a provider of your own, say where its releases are: a fetchConfig, or a Config \`repositories\` entry`
        : `say where its releases are: a fetchConfig, or a Config \`repositories\` entry {name: ${provider.name}, type: ${provider.kind}, url: …}; or check the name for typos`,
    });
  }
  return problems;
}

function versionProblems(provider: ProviderObject): Diagnostic[] {
  const version = provider.spec.version;
  if (version === undefined || version === '' || parseVersionRequest(version) !== null) return [];
  return [
    {
      ...originOf(provider, 'spec.version'),
      message: `version "${version}" is neither a semantic version nor a version range`,
      expected: 'an exact release such as v1.12.0, a range such as ~1.12 or ">=1.10 <1.13", or no version for the latest release',
      hint: version === 'latest' ? 'leave spec.version out to get the latest release' : undefined,
    },
  ];
}

/** Every preflight violation, in input order. */
export function preflightProblems(providers: readonly ProviderObject[], registry: ProviderRegistry): Diagnostic[] {
  return [
    ...coreProviderProblems(providers),
    ...duplicateProblems(providers),
    ...providers.flatMap((provider) => [...fetchConfigProblems(provider, registry), ...versionProblems(provider)]),
  ];
}

/**
 * checkProviderVersion (internal/controller/preflight_checks.go): the operator refuses a target
 * below the installed major or minor version, which an exported object's status.installedVersion
 * records. A render from that export would apply the downgrade through the GitOps tool instead,
 * so it is told at spec.version; patch downgrades pass, as in the operator.
 */
export function installedDowngradeWarnings(resolved: readonly { provider: ProviderObject; version: string }[]): Diagnostic[] {
  return resolved.flatMap(({ provider, version }) => {
    const [installed, target] = [parseSemantic(provider.installedVersion ?? ''), parseSemantic(version)];
    if (!installed || !target || !isMinorDowngrade(installed, target)) return [];
    return [
      {
        ...originOf(provider, provider.spec.version === undefined ? undefined : 'spec.version'),
        path: 'spec.version',
        message: `${version} is below ${provider.installedVersion}, which the object's status.installedVersion says the operator installed: a downgrade, which Cluster API does not support and the operator refuses (preflight_checks.go checkProviderVersion)`,
        hint: `set spec.version to ${provider.installedVersion} or later; to roll back on purpose, make sure no object was stored at a newer API version first`,
      },
    ];
  });
}

/** The tag of an image reference (`host:port/path/name:tag@sha256:…`), if it has one. */
function imageTag(reference: string): string | undefined {
  const name = reference.split('@')[0];
  const colon = name.lastIndexOf(':');
  return colon > name.lastIndexOf('/') ? name.slice(colon + 1) : undefined;
}

/**
 * The manager container's imageUrl tagged with another minor release than the one rendered: the
 * operator runs the image as given (component_customizer.go customizeContainer), so that
 * controller would serve this release's CRDs and webhooks. A v1alpha1 image.tag, converted, is
 * pinned this way, and `update` or a hand edit moves spec.version alone. A patch tag (a hotfix)
 * and a tag that is no version pass.
 */
export function imageTagWarnings(resolved: readonly { provider: ProviderObject; version: string }[]): Diagnostic[] {
  return resolved.flatMap(({ provider, version }) => {
    const target = parseSemantic(version);
    return (provider.spec.deployment?.containers ?? []).flatMap((container, index) => {
      const imageUrl = container.imageUrl;
      const pinned = container.name === 'manager' && imageUrl ? parseSemantic(imageTag(imageUrl) ?? '') : null;
      if (!target || !pinned || (pinned.major === target.major && pinned.minor === target.minor)) return [];
      const path = `spec.deployment.containers[${index}].imageUrl`;
      const series = `v${pinned.major}.${pinned.minor}`;
      return [
        {
          ...originOf(provider),
          ...provider.fieldPosition?.(['spec', 'deployment', 'containers', index, 'imageUrl']),
          path,
          message: `the manager container runs ${imageUrl}, a ${series} image, while the provider is rendered at ${version}: the operator runs the image as given, so the ${series} controller would serve ${version}'s CRDs and webhooks`,
          hint: `tag the image ${version} (or leave imageUrl out to run the release's own image); update and hand edits move spec.version, not imageUrl`,
        },
      ];
    });
  });
}
