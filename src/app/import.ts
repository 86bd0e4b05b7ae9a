/** `capi-gitops import helm-values`: the operator Helm chart's values → a manifest of provider objects. */
import path from 'node:path';
import { CapiGitopsError, sortDiagnostics, type Diagnostic } from '../core/diagnostics.js';
import type { SetExpression } from '../core/helm-set.js';
import { writeFileAtomic } from '../core/atomic-write.js';
import { regularFileProblem } from '../output/write-guard.js';
import { importHelmValues } from '../manifest/import-helm-values.js';
import { readHelmValuesFiles } from '../manifest/helm-values-sources.js';
import { createDirectories } from '../core/create-directories.js';

export interface ImportOptions {
  /** Plain values files, or the Application / HelmRelease / HelmChart that carries them. */
  files: readonly string[];
  sets: SetExpression[];
  /** `--chart-version`: followed instead of the version a release names. */
  chartVersion?: string;
  /** The file to write; absent: the text is only returned. */
  output?: string;
  /** `--allow-secret-values`: a Secret's value may be written into the manifest (warned every time). */
  allowSecretValues?: boolean;
}

export interface ImportedValues {
  text: string;
  warnings: Diagnostic[];
  /** The Secrets' values the text holds, allowed by --allow-secret-values: to be warned of every time, --quiet or not. */
  secretsWritten: Diagnostic[];
}

/**
 * The manifest's text and every warning, each at its field; written to `output` when given. A
 * Secret's value the text would hold (a credential in a fetchConfig URL, from a Flux valuesFrom
 * Secret) is refused before anything is written or printed, unless `allowSecretValues`.
 */
export async function importValues(options: ImportOptions): Promise<ImportedValues> {
  // told with the values' own problems: every problem in one run
  const outputProblem = options.output === undefined ? undefined : await regularFileProblem(options.output);
  const imported = await importText(options).catch((err: unknown) => {
    throw outputProblem && err instanceof CapiGitopsError ? new CapiGitopsError([...err.diagnostics, outputProblem]) : err;
  });
  if (outputProblem) throw new CapiGitopsError(outputProblem);
  if (options.output !== undefined) {
    // as render creates -o: the docs' `-o management-cluster/providers.yaml` starts a new directory
    await createDirectories(path.dirname(path.resolve(options.output)));
    await writeFileAtomic(path.resolve(options.output), imported.text);
  }
  return imported;
}

async function importText(options: ImportOptions): Promise<ImportedValues> {
  const sources = await readHelmValuesFiles(options.files);
  const named = sources.chartVersion;
  const warnings = [...sources.warnings];
  if (options.chartVersion && named && named.text !== options.chartVersion)
    // at the version the file names, when it names one in a field
    warnings.push(
      named.position
        ? { ...named.position, message: `--chart-version ${options.chartVersion} is followed, not this version (${named.text})` }
        : { message: `--chart-version ${options.chartVersion} is followed, not ${named.origin} (${named.text})` },
    );
  const chartVersion = options.chartVersion ? { text: options.chartVersion, origin: '--chart-version' } : named;
  const imported = importHelmValues({ layers: sources.layers, sets: options.sets, chartVersion, secretValues: sources.secretValues });
  // that the release's chart version is not known is moot when --chart-version names one
  warnings.push(...(options.chartVersion ? [] : sources.chartVersionWarnings), ...imported.warnings);
  if (imported.secretsWritten.length > 0 && !options.allowSecretValues)
    throw new CapiGitopsError(
      imported.secretsWritten.map((d) => ({
        ...d,
        expected: 'no value of a Secret in the manifest, which is meant for Git',
        hint: `${d.hint}; or, to write Secret values into the manifest anyway, add --allow-secret-values (warned on every run)`,
      })),
    );
  return { text: imported.text, warnings: sortDiagnostics(warnings), secretsWritten: imported.secretsWritten };
}
