/**
 * Which values each release of the cluster-api-operator Helm chart reads, and how: one table,
 * read from the chart's history (kubernetes-sigs/cluster-api-operator
 * hack/charts/cluster-api-operator/templates; the chart's version is the release tag, its
 * Chart.yaml always says 0.0.0). `import helm-values --chart-version` follows these rules;
 * docs/helm-chart-versions.md is the same table for readers, with what each template writes (a
 * test keeps every rule's value and template line there).
 */
import semverGt from 'semver/functions/gt.js';
import semverGte from 'semver/functions/gte.js';
import semverLte from 'semver/functions/lte.js';
import semverParse from 'semver/functions/parse.js';
import semverMaxSatisfying from 'semver/ranges/max-satisfying.js';
import semverValidRange from 'semver/ranges/valid.js';
import type { Diagnostic, DiagnosticOrigin } from '../core/diagnostics.js';

/** The chart's provider maps (values keys). */
export type ChartProviderType = 'core' | 'bootstrap' | 'controlPlane' | 'infrastructure' | 'ipam' | 'addon';
const ALL: readonly ChartProviderType[] = ['core', 'bootstrap', 'controlPlane', 'infrastructure', 'ipam', 'addon'];
const ALL_BUT_ADDON: readonly ChartProviderType[] = ['core', 'bootstrap', 'controlPlane', 'infrastructure', 'ipam'];

/** Value paths as users write them: `<type>` is a provider map's key, `<name>` a provider's. */
export type ChartValuePath =
  | '<type>: "[namespace:]name[:version];…"'
  | '<type>.<name>'
  | '<type>.<name>.version'
  | '<type>.<name>.namespace'
  | 'manager'
  | 'manager.featureGates.core'
  | 'manager.featureGates.<name>'
  | 'manager.featureGates.kubeadm'
  | '<type>.<name>.manager'
  | 'configSecret'
  | 'secretName'
  | '<type>.<name>.configSecret'
  | 'fetchConfig.<name>'
  | '<type>.<name>.fetchConfig'
  | 'additionalDeployments'
  | '<type>.<name>.manifestPatches'
  | '<type>.<name>.additionalManifests'
  | '<type>.<name>.createNamespace'
  | '<type>.<name>.deployment'
  | 'infrastructure.<name>.patches';

export interface ChartValueRule {
  value: ChartValuePath;
  /** The provider templates that read it. */
  types: readonly ChartProviderType[];
  /** First and last chart release that read it this way (inclusive); no `until`: still read by the newest. */
  since: string;
  until?: string;
  /** The template line that reads it, at a tag. */
  template: string;
}

/** The oldest chart these rules cover, and the newest release read. */
const OLDEST_CHART = 'v0.10.0';
export const NEWEST_CHART = 'v0.28.0';

/** Every chart release from OLDEST_CHART (the repository's tags; a chart range resolves against these). */
export const CHART_RELEASES: readonly string[] = [
  'v0.10.0',
  'v0.10.1',
  'v0.11.0',
  'v0.12.0',
  'v0.13.0',
  'v0.14.0',
  'v0.15.0',
  'v0.15.1',
  'v0.16.0',
  'v0.17.0',
  'v0.17.1',
  'v0.18.0',
  'v0.18.1',
  'v0.19.0',
  'v0.20.0',
  'v0.21.0',
  'v0.22.0',
  'v0.23.0',
  'v0.23.1',
  'v0.24.0',
  'v0.24.1',
  'v0.25.0',
  'v0.26.0',
  'v0.27.0',
  'v0.28.0',
];

/** The rules, one row per value, provider templates and version range. */
export const CHART_VALUE_RULES: readonly ChartValueRule[] = [
  {
    value: '<type>: "[namespace:]name[:version];…"',
    types: ['core', 'bootstrap', 'controlPlane', 'infrastructure', 'addon'],
    since: 'v0.10.0',
    until: 'v0.18.1',
    template: 'templates/infra.yaml:3 and core.yaml:3 at v0.18.1 (split ";" .Values.infrastructure, split ":" .Values.core)',
  },
  {
    value: '<type>: "[namespace:]name[:version];…"',
    types: ['ipam'],
    since: 'v0.17.0',
    until: 'v0.18.1',
    template: 'templates/ipam.yaml:3 at v0.18.1 (split ";" .Values.ipam)',
  },
  {
    value: '<type>.<name>',
    types: ALL,
    since: 'v0.19.0',
    template: 'templates/infra.yaml:2 at v0.19.0 (range $name, $infra := $.Values.infrastructure)',
  },
  {
    value: '<type>.<name>.version',
    types: ALL,
    since: 'v0.19.0',
    template: 'templates/infra.yaml:5 at v0.19.0 (get $infra "version")',
  },
  {
    value: '<type>.<name>.namespace',
    types: ALL,
    since: 'v0.19.0',
    template: 'templates/infra.yaml:3 at v0.19.0 (get $infra "namespace")',
  },
  {
    value: 'manager',
    types: ['infrastructure'],
    since: 'v0.11.0',
    until: 'v0.24.1',
    template: 'templates/infra.yaml:43 at v0.11.0 (if or $infrastructureVersion $.Values.configSecret.name $.Values.manager)',
  },
  {
    value: 'manager',
    types: ['controlPlane'],
    since: 'v0.15.0',
    until: 'v0.24.1',
    template: 'templates/control-plane.yaml:41 at v0.15.0 (if or $controlPlaneVersion $.Values.configSecret.name $.Values.manager)',
  },
  {
    value: 'manager',
    types: ['core'],
    since: 'v0.16.0',
    until: 'v0.24.1',
    template: 'templates/core.yaml:41 at v0.16.0 (if or $coreVersion $.Values.configSecret.name $.Values.manager)',
  },
  {
    value: 'manager',
    types: ['ipam'],
    since: 'v0.17.0',
    until: 'v0.24.1',
    template: 'templates/ipam.yaml:43 at v0.17.0 (if or $ipamVersion $.Values.configSecret.name $.Values.manager …)',
  },
  {
    value: 'manager.featureGates.core',
    types: ['core'],
    since: 'v0.10.0',
    until: 'v0.24.1',
    template: 'templates/core.yaml:48 at v0.10.0, core.yaml:38 at v0.24.1 ($.Values.manager.featureGates.core)',
  },
  {
    value: 'manager.featureGates.<name>',
    types: ['infrastructure'],
    since: 'v0.10.0',
    until: 'v0.24.1',
    template: 'templates/infra.yaml:49 at v0.10.0, infra.yaml:38 at v0.24.1 (hasKey $.Values.manager.featureGates $infrastructureName)',
  },
  {
    value: 'manager.featureGates.<name>',
    types: ['controlPlane'],
    since: 'v0.15.0',
    until: 'v0.24.1',
    template: 'templates/control-plane.yaml:49 at v0.15.0, control-plane.yaml:38 at v0.24.1 (hasKey … $controlPlaneName)',
  },
  {
    value: 'manager.featureGates.<name>',
    types: ['ipam'],
    since: 'v0.17.0',
    until: 'v0.24.1',
    template: 'templates/ipam.yaml:51 at v0.17.0, ipam.yaml:38 at v0.24.1 (hasKey $.Values.manager.featureGates $ipamName)',
  },
  {
    value: 'manager.featureGates.kubeadm',
    types: ['controlPlane'],
    since: 'v0.15.0',
    until: 'v0.24.1',
    template: 'templates/infra-conditions.yaml:58 at v0.15.0 (inside with .Values.configSecret, :54), :65 at v0.24.1',
  },
  {
    value: '<type>.<name>.manager',
    types: ALL_BUT_ADDON,
    since: 'v0.25.0',
    template: 'templates/core.yaml:37 at v0.25.0 (if $core.manager), bootstrap.yaml:34',
  },
  {
    value: '<type>.<name>.manager',
    types: ['addon'],
    since: 'v0.25.0',
    template: 'templates/addon.yaml:34 at v0.25.0 (if $addon.manager; only .metrics at :36)',
  },
  {
    value: 'configSecret',
    types: ALL_BUT_ADDON,
    since: 'v0.10.0',
    template: 'templates/infra.yaml:58 at v0.19.0 (if $.Values.configSecret.name)',
  },
  {
    value: 'configSecret',
    types: ['addon'],
    since: 'v0.24.0',
    template: 'templates/addon.yaml:37 at v0.24.0 (default (($addon).configSecret).name (($.Values).configSecret).name)',
  },
  {
    value: 'secretName',
    types: ['addon'],
    since: 'v0.10.0',
    template: 'templates/addon.yaml:41 at v0.10.0 (if or $addonVersion $.Values.secretName)',
  },
  {
    value: '<type>.<name>.configSecret',
    types: ALL,
    since: 'v0.24.0',
    template: 'templates/_helpers.tpl:26 at v0.24.0 (define "capi-operator.configSecret")',
  },
  {
    value: 'fetchConfig.<name>',
    types: ['infrastructure'],
    since: 'v0.16.0',
    template: 'templates/infra.yaml:62 at v0.16.0 (hasKey $.Values.fetchConfig $infrastructureName)',
  },
  {
    value: 'fetchConfig.<name>',
    types: ['ipam'],
    since: 'v0.20.0',
    template: 'templates/ipam.yaml:50 at v0.20.0 (hasKey $.Values.fetchConfig $ipamName)',
  },
  {
    value: '<type>.<name>.fetchConfig',
    types: ALL,
    since: 'v0.24.0',
    template: 'templates/core.yaml:52 at v0.24.0 (if $core.fetchConfig)',
  },
  {
    value: 'additionalDeployments',
    types: ['infrastructure'],
    since: 'v0.12.0',
    template: 'templates/infra.yaml:79 at v0.12.0 (if $.Values.additionalDeployments)',
  },
  {
    value: 'additionalDeployments',
    types: ['ipam'],
    since: 'v0.17.0',
    template: 'templates/ipam.yaml:69 at v0.17.0 (if $.Values.additionalDeployments)',
  },
  {
    value: '<type>.<name>.manifestPatches',
    types: ALL,
    since: 'v0.19.0',
    template: 'templates/infra.yaml:68 at v0.19.0 (if $infra.manifestPatches)',
  },
  {
    value: '<type>.<name>.additionalManifests',
    types: ALL,
    since: 'v0.19.0',
    template: 'templates/infra.yaml:71 at v0.19.0 (if $infra.additionalManifests)',
  },
  {
    value: '<type>.<name>.createNamespace',
    types: ALL,
    since: 'v0.20.0',
    template: 'templates/infra.yaml:6 at v0.20.0 (if ne $infra.createNamespace false)',
  },
  {
    value: '<type>.<name>.deployment',
    types: ALL,
    since: 'v0.26.0',
    template: 'templates/core.yaml:37 at v0.26.0 (if $core.deployment)',
  },
  {
    value: 'infrastructure.<name>.patches',
    types: ['infrastructure'],
    since: 'v0.28.0',
    template: 'templates/infra.yaml:77 at v0.28.0 (if $infra.patches)',
  },
];

/**
 * Top-level values the chart reads that no rule converts: its own Deployment's and names
 * (deployment.yaml, _helpers.tpl and values.yaml of any release from v0.10.0), the addon's
 * secretNamespace, the cert-manager subchart's of v0.10.x and Helm's `global`. The import leaves
 * them out on purpose, so they are no typos.
 */
export const CHART_DEPLOYMENT_VALUES: readonly string[] = [
  'affinity',
  'cert-manager',
  'containerSecurityContext',
  'contentionProfiling',
  'deploymentAnnotations',
  'deploymentLabels',
  'diagnosticsAddress',
  'enableHelmHook',
  'env',
  'fullnameOverride',
  'global',
  'healthAddr',
  'image',
  'imagePullSecrets',
  'insecureDiagnostics',
  'leaderElection',
  'logLevel',
  'metricsBindAddr',
  'nameOverride',
  'nodeSelector',
  'podAnnotations',
  'podDnsConfig',
  'podDnsPolicy',
  'podLabels',
  'profilerAddress',
  'replicaCount',
  'resources',
  'secretNamespace',
  'securityContext',
  'strategy',
  'tolerations',
  'topologySpreadConstraints',
  'volumeMounts',
  'volumes',
  'watchConfigMap',
  'watchConfigSecret',
];

/** Top-level values some rule converts: the provider maps and the values the rules name (manager, configSecret, …). */
export function convertedTopLevelValues(): string[] {
  const keys = new Set<string>(ALL);
  for (const rule of CHART_VALUE_RULES) if (!rule.value.startsWith('<')) keys.add(rule.value.split('.')[0]!);
  return [...keys];
}

/** The rule by which `version` reads `value` for a provider of `type`; undefined: that chart does not read it. */
export function chartRule(value: ChartValuePath, type: ChartProviderType, version: string): ChartValueRule | undefined {
  return CHART_VALUE_RULES.find(
    (rule) =>
      rule.value === value &&
      rule.types.includes(type) &&
      semverGte(version, rule.since) &&
      (rule.until === undefined || semverLte(version, rule.until)),
  );
}

/** Every rule for a value and type, oldest first: the versions that read it, for messages. */
export function chartRules(value: ChartValuePath, type?: ChartProviderType): ChartValueRule[] {
  return CHART_VALUE_RULES.filter((rule) => rule.value === value && (type === undefined || rule.types.includes(type)));
}

/** `v0.10.0 to v0.24.1`, `from v0.25.0`: the versions a rule covers. */
export function versionSpan(rule: Pick<ChartValueRule, 'since' | 'until'>): string {
  if (rule.until === undefined) return `from ${rule.since}`;
  return `${rule.since} to ${rule.until}`;
}

export interface ChartVersionRequest {
  /** As written: `0.23.0`, `v0.23.0`, `>=0.19.0 <0.20.0`, `0.23.x`. */
  text: string;
  /** Where it was written, for messages: `--chart-version`, or the field of a GitOps object. */
  origin: string;
  /** The field's place, object and path, when it was written in a file. */
  position?: DiagnosticOrigin;
}

export interface ResolvedChartVersion {
  /** `v0.23.0`. */
  version: string;
  /** Something to tell the user (a range resolved, a version newer than the table), at the request's place. */
  note?: Diagnostic;
}

/**
 * A chart version or range as the templates to follow: an exact version as given (`v` added),
 * a range as the newest release it allows (Flux and Argo CD install the newest that matches).
 */
export function resolveChartVersion(request: ChartVersionRequest): ResolvedChartVersion | Diagnostic {
  const text = request.text.trim();
  const exact = semverParse(text);
  // The place says where (file, object, field); a flag has none, and its name is the path.
  const at = (message: string): Diagnostic => ({ ...request.position, path: request.position?.path ?? request.origin, message });
  const problem = (message: string, hint?: string): Diagnostic => ({
    ...at(message),
    expected: `a cluster-api-operator chart version from ${OLDEST_CHART}, e.g. 0.23.0, or a range such as ">=0.19.0 <0.20.0"`,
    hint: hint ?? `pass the version of the chart you install: --chart-version 0.23.0 (released: ${OLDEST_CHART} to ${NEWEST_CHART})`,
  });
  if (exact) {
    const version = `v${exact.version}`;
    if (!semverGte(version, OLDEST_CHART))
      return problem(
        `chart ${version} is older than ${OLDEST_CHART}, the oldest chart these rules follow`,
        // the nearest templates to the chart installed: a newer one may not read its values at all (the string forms)
        `read the values as the oldest chart these rules follow, the nearest to ${version}: --chart-version ${OLDEST_CHART.slice(1)}; compare its output with what the operator installed`,
      );
    if (semverGt(version, NEWEST_CHART)) {
      return {
        version,
        note: at(`chart ${version} is newer than ${NEWEST_CHART}, the newest chart capi-gitops knows; read as ${NEWEST_CHART} reads it`),
      };
    }
    return { version };
  }
  if (text === '' || text === '*')
    return { version: NEWEST_CHART, note: at(`"${text}" allows any chart version; read as ${NEWEST_CHART}, the newest`) };
  if (semverValidRange(text) === null) return problem(`"${text}" is neither a version nor a semver range`);
  const newest = semverMaxSatisfying([...CHART_RELEASES], text);
  if (newest === null) return problem(`no chart release from ${OLDEST_CHART} to ${NEWEST_CHART} satisfies "${text}"`);
  return { version: newest, note: at(`"${text}" is a range; read as ${newest}, the newest release it allows`) };
}
