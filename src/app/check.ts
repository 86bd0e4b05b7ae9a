/**
 * `capi-gitops check` (also `render --check`): render in memory and compare with the committed
 * output directory. Writes neither the output nor the lockfile.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { shellWords } from '../core/shell.js';
import { README_FILE } from '../layout/index.js';
import { renderOutput, type RenderOptions } from './run.js';
import { checkOutput, type CheckReport } from '../review/index.js';
import { readmeCommandFor } from './cluster.js';
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
  // values are not needed where the strategy keeps them out of the output.
  const result = await renderOutput({ ...options, frozen: true, secretValuesOptional: true });
  const secretsNotGiven = result.secretsNotGiven ?? [];
  const files = await withRecordedSecretSources(output, result.files, readmeCommandFor(options));
  return { warnings: result.warnings, report: await checkOutput(output, files), secretsNotGiven };
}

const SECRET_SOURCE_FLAGS = new Set(['--secret-file', '--env-secret']);

/**
 * The committed README when its command differs from this check's only by secret sources the
 * check was not given (-f files, --secret-file, --env-secret): render records them so that its
 * command reproduces the output, and a check in CI has none of them.
 */
async function withRecordedSecretSources(output: string, files: Map<string, string>, command: string): Promise<Map<string, string>> {
  const ours = files.get(README_FILE);
  const committed = await readFile(path.join(output, README_FILE), 'utf8').catch(() => undefined);
  if (ours === undefined || committed === undefined || committed === ours) return files;
  const mine = command.split('\n').at(-1)!;
  const recorded = committed.split('\n').find((line) => line.startsWith('capi-gitops render '));
  if (recorded === undefined || ours.replace(mine, () => recorded) !== committed) return files;
  const mineWords = shellWords(mine);
  const given = new Set(mineWords.filter((_, i) => mineWords[i - 1] === '-f'));
  // the words but --secret-file and --env-secret with their values, and a -f this check was not given (the render's file of Secrets)
  const strip = (words: string[]) => {
    const kept: string[] = [];
    for (let i = 0; i < words.length; i++) {
      if (SECRET_SOURCE_FLAGS.has(words[i]!) || (words[i] === '-f' && !given.has(words[i + 1]!))) i++;
      else kept.push(words[i]!);
    }
    return JSON.stringify(kept);
  };
  return strip(shellWords(recorded)) === strip(mineWords) ? new Map(files).set(README_FILE, committed) : files;
}
