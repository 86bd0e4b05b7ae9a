/** Commands for cluster-api-operator users: `convert` (v1alpha1 → v1alpha2) and `import helm-values`. */
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from './errors.js';
import { convert } from '../app/convert.js';
import { importValues } from '../app/import.js';
import { formatWarning } from '../core/diagnostics.js';
import { setExpressions, type SetFlags } from './set-flags.js';
import { streams } from './output.js';
import { refuseYamlLimitVariables } from './yaml-limits.js';

export async function convertCommand(flags: { file?: string[]; inPlace?: boolean; quiet?: boolean }): Promise<void> {
  const note = (line: string) => {
    if (!flags.quiet) streams.stderr.write(`${line}\n`);
  };
  // a missing flag is a usage error here too, as renderOptions makes it for the other commands
  if (!flags.file?.length) throw new UsageError('at least one -f/--file <file or directory> is needed');
  refuseYamlLimitVariables(process.env);
  const { files, rewritten, withheld } = await convert(flags.file, flags.inPlace ?? false);
  for (const file of withheld)
    note(
      `${formatWarning({ ...file.secret!, message: 'its file is not printed: it has nothing to convert, and printing it would print these Secret values' })}`,
    );
  for (const file of files) {
    for (const object of file.converted)
      note(
        `${path.relative(process.cwd(), path.resolve(object.file)) || object.file}:${object.line}: ${object.note ?? `converted ${object.object} to v1alpha2`}`,
      );
    for (const warning of file.warnings) note(formatWarning(warning));
  }
  if (files.every((file) => file.converted.length === 0))
    note(
      'nothing to convert: no operator.cluster.x-k8s.io/v1alpha1 provider objects, Turtles CAPIProviders or provider objects exported from a cluster in the input',
    );
  if (flags.inPlace) {
    note(`rewrote ${rewritten} of ${files.length} file(s)`);
    return;
  }
  files.forEach((file, index) => {
    if (index > 0 && !files[index - 1].text.endsWith('\n')) streams.stdout.write('\n');
    if (index > 0) streams.stdout.write('---\n');
    streams.stdout.write(file.text);
  });
}

export async function importHelmValuesCommand(
  flags: SetFlags & {
    values?: string[];
    chartVersion?: string;
    output?: string;
    quiet?: boolean;
    allowSecretValues?: boolean;
  },
): Promise<void> {
  // `-o -` is the standard output, as without -o (not a file named "-")
  const output = flags.output === '-' ? undefined : flags.output;
  refuseYamlLimitVariables(process.env);
  if (output !== undefined) refuseOutputAmongInputs(output, flags.values ?? []);
  const { text, warnings, secretsWritten } = await importValues({
    files: flags.values ?? [],
    sets: setExpressions(flags),
    chartVersion: flags.chartVersion,
    output,
    allowSecretValues: flags.allowSecretValues,
  });
  if (!flags.quiet) for (const warning of warnings) streams.stderr.write(`${formatWarning(warning)}\n`);
  // a value written on purpose is told every time, --quiet or not
  for (const warning of secretsWritten) streams.stderr.write(`${formatWarning(warning)}\n`);
  if (output === undefined) streams.stdout.write(text);
  else if (!flags.quiet) streams.stderr.write(`wrote ${output}; render it with: capi-gitops render -f ${output} -o <dir>\n`);
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
