/** Commands for cluster-api-operator users: `convert` (v1alpha1 → v1alpha2) and `import helm-values`. */
import { realpathSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from './errors.js';
import { convertManifestFiles } from '../manifest/convert-documents.js';
import { writeFileAtomic } from '../core/atomic-write.js';
import { formatWarning } from '../core/diagnostics.js';
import { importHelmValues } from '../manifest/import-helm-values.js';
import { setExpressions, type SetFlags } from './set-flags.js';
import { readHelmValuesFiles } from '../manifest/helm-values-sources.js';

export async function convertCommand(flags: { file?: string[]; inPlace?: boolean; quiet?: boolean }): Promise<void> {
  const files = await convertManifestFiles(flags.file ?? []);
  const note = (line: string) => {
    if (!flags.quiet) process.stderr.write(`${line}\n`);
  };
  for (const file of files) {
    for (const object of file.converted)
      note(
        `${path.relative(process.cwd(), path.resolve(object.file)) || object.file}:${object.line}: ${object.note ?? `converted ${object.object} to v1alpha2`}`,
      );
    for (const warning of file.warnings) note(formatWarning(warning));
  }
  if (files.every((file) => file.converted.length === 0))
    note('nothing to convert: no operator.cluster.x-k8s.io/v1alpha1 provider objects or Turtles CAPIProviders in the input');
  if (flags.inPlace) {
    // Files are written only once every file converted.
    const changed = files.filter((file) => file.converted.length > 0);
    for (const file of changed) await writeFileAtomic(file.file, file.text);
    note(`rewrote ${changed.length} of ${files.length} file(s)`);
    return;
  }
  files.forEach((file, index) => {
    if (index > 0 && !files[index - 1].text.endsWith('\n')) process.stdout.write('\n');
    if (index > 0) process.stdout.write('---\n');
    process.stdout.write(file.text);
  });
}

export async function importHelmValuesCommand(
  flags: SetFlags & {
    values?: string[];
    chartVersion?: string;
    output?: string;
    quiet?: boolean;
  },
): Promise<void> {
  if (flags.output !== undefined) refuseOutputAmongInputs(flags.output, flags.values ?? []);
  // Plain values files, or the Application / HelmRelease / HelmChart that carries them.
  const sources = await readHelmValuesFiles(flags.values ?? []);
  const layers = sources.layers;
  const sets = setExpressions(flags);
  const named = sources.chartVersion;
  if (flags.chartVersion && named && named.text !== flags.chartVersion)
    // at the version the file names, when it names one in a field
    sources.warnings.push(
      named.position
        ? { ...named.position, message: `--chart-version ${flags.chartVersion} is followed, not this version (${named.text})` }
        : { message: `--chart-version ${flags.chartVersion} is followed, not ${named.origin} (${named.text})` },
    );
  const chartVersion = flags.chartVersion ? { text: flags.chartVersion, origin: '--chart-version' } : named;
  const { text, warnings } = importHelmValues({ layers, sets, chartVersion, secretValues: sources.secretValues });
  const all = [...sources.warnings, ...(flags.chartVersion ? [] : sources.chartVersionWarnings), ...warnings];
  if (!flags.quiet) for (const warning of all) process.stderr.write(`${formatWarning(warning)}\n`);
  if (flags.output) {
    // as render creates -o: the docs' `-o management-cluster/providers.yaml` starts a new directory
    await mkdir(path.dirname(path.resolve(flags.output)), { recursive: true });
    await writeFileAtomic(path.resolve(flags.output), text);
    if (!flags.quiet) process.stderr.write(`wrote ${flags.output}; render it with: capi-gitops render -f ${flags.output} -o <dir>\n`);
  } else {
    process.stdout.write(text);
  }
}

/**
 * `-o` names a file: not a directory, and not a `-f` file, which would replace the values (or the
 * HelmRelease) it was read from with the providers.
 */
function refuseOutputAmongInputs(output: string, inputs: readonly string[]): void {
  const real = (file: string) => {
    try {
      return realpathSync(file);
    } catch {
      return path.resolve(file);
    }
  };
  const target = real(output);
  // an existing directory would fail late, at the rename, naming a temporary file
  if (statSync(target, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`-o ${output} is a directory: name the file to write, e.g. -o ${path.join(output, 'providers.yaml')}`);
  const input = inputs.find((file) => real(file) === target);
  if (input !== undefined)
    throw new UsageError(
      `-o ${output} is also read with -f ${input}: writing the providers there would replace what they were imported from; name another file, e.g. -o providers.yaml`,
    );
}
