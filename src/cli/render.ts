import path from 'node:path';
import { listVariables, renderManagementCluster } from '../pipeline.js';
import { writeOutput } from '../emit/write.js';
import { UsageError } from './errors.js';

export interface RenderFlags {
  file: string[];
  output?: string;
  listVariables?: boolean;
  allowSecretValues?: boolean;
  quiet?: boolean;
}

const MASK = '********';

export async function renderCommand(flags: RenderFlags): Promise<void> {
  const out = (line: string) => {
    if (!flags.quiet) process.stdout.write(line + '\n');
  };
  if (flags.file.length === 0) throw new UsageError('render needs at least one -f/--file <file or directory>');
  if (flags.listVariables) {
    for (const provider of await listVariables({ manifestPaths: flags.file })) {
      process.stdout.write(`${provider.label} ${provider.version} (namespace ${provider.namespace})\n`);
      if (provider.variables.length === 0) process.stdout.write('  (no variables)\n');
      for (const v of provider.variables) {
        const value = v.value ? `${v.value.fromSecret ? MASK : JSON.stringify(v.value.value)} from ${v.value.origin}` : v.default !== undefined ? `default ${JSON.stringify(v.default)}` : 'MISSING';
        process.stdout.write(`  ${v.name} = ${value}${v.value && v.default !== undefined ? ` (default ${JSON.stringify(v.default)})` : ''}\n`);
      }
    }
    return;
  }
  if (!flags.output) throw new UsageError('render needs -o/--output <dir> (or --list-variables)');

  const result = await renderManagementCluster({ manifestPaths: flags.file, allowSecretValues: flags.allowSecretValues });
  for (const p of result.providers) {
    const requested = p.requestedVersion && p.requestedVersion !== p.version ? ` (requested ${p.requestedVersion})` : '';
    out(`resolved ${p.label} ${p.version}${requested}, contract ${p.contract}, from ${p.repository.sourceType}`);
  }
  if (result.certManager) out(`resolved cert-manager ${result.certManager.version}`);
  const summary = await writeOutput(path.resolve(flags.output), result.files);
  for (const w of summary.warnings) process.stderr.write(`warning: ${w}\n`);
  out(`wrote ${flags.output}: ${summary.written.length} written, ${summary.unchanged.length} unchanged, ${summary.removed.length} removed`);
}
