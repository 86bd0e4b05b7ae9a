/**
 * The cluster-api-operator's own release manifest (`operator-components.yaml` of the
 * kubernetes-sigs/cluster-api-operator GitHub releases), for the operator layout. Fetched through
 * the same source modules (and artifact cache) as providers and cert-manager (resolve/fetch-releases.ts),
 * and pinned in the lockfile like them (src/lock: kind `Operator`).
 */
import type { Diagnostic, DiagnosticOrigin } from '../core/diagnostics.js';
import type { ToolConfig } from '../manifest/types.js';
import { configFieldOrigin, type ResolvedRelease } from './resolve.js';
import { parseSemantic } from '../core/versions.js';
import { LATEST } from '../core/repository.js';

export const OPERATOR_LABEL = 'cluster-api-operator';
export const OPERATOR_COMPONENTS_FILE = 'operator-components.yaml';
/** The namespace of the operator's release manifest; the lock entry's namespace. */
export const OPERATOR_NAMESPACE = 'capi-operator-system';

export type ResolvedOperatorRelease = ResolvedRelease<typeof OPERATOR_LABEL>;

/**
 * Whether a run pins the operator's own release: its layout (`--layout`, else Config.output.layout)
 * is operator, or Config.operator is set. `capi-gitops lock` takes no --layout: the Config decides.
 */
export function pinsOperatorRelease(config: ToolConfig, layout?: string): boolean {
  return (layout ?? config.output?.layout) === 'operator' || config.operator !== undefined;
}

export function operatorReleaseUrl(version: string): string {
  return `https://github.com/kubernetes-sigs/cluster-api-operator/releases/${version}/${OPERATOR_COMPONENTS_FILE}`;
}

export function operatorOrigin(config: ToolConfig, field: string): DiagnosticOrigin {
  return configFieldOrigin(config, 'operator', field);
}

/** Config.operator problems that need no request, so invalid input fails before any fetch. */
export function operatorSettingsProblems(config: ToolConfig): Diagnostic[] {
  const version = config.operator?.version;
  if (version === undefined || version === LATEST || parseSemantic(version) !== null) return [];
  return [
    {
      ...operatorOrigin(config, 'version'),
      message: `"${version}" is not a semantic version`,
      expected: 'a cluster-api-operator release such as v0.28.0, or latest',
      hint: 'set operator.version in the Config document to a release tag',
    },
  ];
}
