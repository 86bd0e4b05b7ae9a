/**
 * `capi-gitops check` (also `render --check`): render in memory and compare with the committed
 * output directory. Writes neither the output nor the lockfile.
 */
import { renderOutput, type RenderOptions } from './run.js';
import {
  checkRendered,
  FleetFileDigests,
  recordedSecretSourcesOf,
  recordedSecretVariables,
  renderedDigests,
  type CheckReport,
} from '../review/index.js';
import type { SecretNotGiven } from './types.js';

export interface CheckResult {
  /** The render's warnings. */
  warnings: string[];
  report: CheckReport;
  /** The configSecrets this check rendered without: render needs them, so the command to regenerate names them. */
  secretsNotGiven: SecretNotGiven[];
}

/** `output`: the committed output directory, as given. `fleetDigests`: where a fleet's files go (a test seam). */
export async function check(options: RenderOptions, output: string, fleetDigests = new FleetFileDigests()): Promise<CheckResult> {
  // --frozen is implied: a lockfile that no longer answers the manifest is drift too. Secret
  // values are not needed where the strategy keeps them out of the output.
  // a fleet's files are hashed as each cluster is laid out, not held: memory stays one cluster's tree
  const result = await renderOutput(
    { ...options, ...(await committedSecretSources(output, options)), frozen: true, secretValuesOptional: true },
    fleetDigests,
  );
  const secretsNotGiven = result.secretsNotGiven ?? [];
  const rendered = result.fleet ? fleetDigests.rendered() : renderedDigests(result.files);
  // a README whose command differs only by the secret sources render had is up to date (review/check.ts)
  return { warnings: result.warnings, report: await checkRendered(output, rendered), secretsNotGiven };
}

/** `read`, called at most once; its promise shared. */
function once<T>(read: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | undefined;
  return () => (promise ??= read());
}

/**
 * What the committed output says of the secret sources its render had, for a run without values
 * (check, diff): an --env-secret render recorded stands for a secret whether or not CI sets it;
 * where a --secret-file it recorded is not given, or a configSecret is absent, a variable the
 * output leaves for the strategy to fill is a secret not at hand (docs/secrets.md).
 */
export async function committedSecretSources(
  output: string,
  options: RenderOptions,
): Promise<Pick<RenderOptions, 'recordedEnvSecrets' | 'recordedSecretVariables' | 'secretFilesNotGiven'>> {
  const recorded = await recordedSecretSourcesOf(output);
  return {
    recordedEnvSecrets: recorded.envSecret,
    // read (every .yaml file of the output) only by a run that misses a secret source, once
    recordedSecretVariables: once(() => recordedSecretVariables(output)),
    secretFilesNotGiven: recorded.secretFile.length > 0 && (options.secretFiles ?? []).length === 0,
  };
}
