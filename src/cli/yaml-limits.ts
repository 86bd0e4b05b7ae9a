/** The YAML bounds' variables checked before a command reads YAML (loaded with the commands, not the entry). */
import { yamlLimitProblems } from '../yaml/bounds.js';
import { UsageError } from './errors.js';

/** CAPI_GITOPS_YAML_* set to what is no limit: a usage error, as CAPI_GITOPS_NETWORK_DEADLINE's, not the default without a word. */
export function refuseYamlLimitVariables(env: Record<string, string | undefined>): void {
  const problems = yamlLimitProblems(env);
  if (problems.length > 0) throw new UsageError(problems.join('\nerror: '));
}
