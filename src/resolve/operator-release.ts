/**
 * The cluster-api-operator's own release manifest (`operator-components.yaml` of the
 * kubernetes-sigs/cluster-api-operator GitHub releases), for the operator layout. Fetched through
 * the same source modules (and artifact cache) as providers and cert-manager (src/fetch-releases.ts).
 */
import type { DiagnosticOrigin } from '../model/diagnostics.js';
import type { ToolConfig } from '../manifest/types.js';
import type { Artifact } from '../model/repository.js';

export const OPERATOR_LABEL = 'cluster-api-operator';
export const OPERATOR_COMPONENTS_FILE = 'operator-components.yaml';

export interface ResolvedOperatorRelease {
  label: typeof OPERATOR_LABEL;
  version: string;
  components: Artifact;
  repository: { sourceType: string; location: string };
}

export function operatorReleaseUrl(version: string): string {
  return `https://github.com/kubernetes-sigs/cluster-api-operator/releases/${version}/${OPERATOR_COMPONENTS_FILE}`;
}

export function operatorOrigin(config: ToolConfig, field: string): DiagnosticOrigin {
  return { file: config.position?.file, line: config.position?.line, column: config.position?.column, object: 'Config', path: `operator.${field}` };
}
