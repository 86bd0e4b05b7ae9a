/**
 * `capi-gitops check` (also `render --check`): render in memory and compare with the committed
 * output directory. Writes neither the output nor the lockfile.
 */
import { renderOutput, type RenderOptions } from './run.js';
import { checkOutput, recordedEnvSecrets, recordedSecretVariables, type CheckReport } from '../review/index.js';
import type { SecretNotGiven } from './types.js';

export interface CheckResult {
  /** The render's warnings. */
  warnings: string[];
  report: CheckReport;
  /** The configSecrets this check rendered without: render needs them, so the command to regenerate names them. */
  secretsNotGiven: SecretNotGiven[];
}

/** `output`: the committed output directory, as given. */
export async function check(options: RenderOptions, output: string): Promise<CheckResult> {
  // --frozen is implied: a lockfile that no longer answers the manifest is drift too. Secret
  // values are not needed where the strategy keeps them out of the output; an --env-secret that
  // render recorded stands for a secret whether or not CI sets it, and so does a variable the
  // committed output leaves for the strategy to fill, where its configSecret is absent (docs/secrets.md).
  const result = await renderOutput({
    ...options,
    frozen: true,
    secretValuesOptional: true,
    recordedEnvSecrets: await recordedEnvSecrets(output),
    recordedSecretVariables: await recordedSecretVariables(output),
  });
  const secretsNotGiven = result.secretsNotGiven ?? [];
  // a README whose command differs only by the secret sources render had is up to date (review/check.ts)
  return { warnings: result.warnings, report: await checkOutput(output, result.files), secretsNotGiven };
}
