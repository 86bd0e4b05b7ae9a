/**
 * capi-gitops CLI. Exit codes: 0 success, 1 invalid input or failed render, 2 usage error.
 */
import { Command, CommanderError, Option } from 'commander';
import { CapiGitopsError, formatDiagnostic } from '../model/diagnostics.js';
import { renderCommand, type RenderFlags } from './render.js';
import { UsageError } from './errors.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('capi-gitops')
    .description(
      'Render Cluster API providers offline, exactly as clusterctl and the cluster-api-operator would,\n' +
        'into a Git directory that Argo CD or Flux syncs.',
    )
    .version(VERSION, '--version', 'print the capi-gitops version')
    .helpOption('-h, --help', 'show help for a command')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();

  program
    .command('render')
    .description('render the providers of a manifest into a kustomize-ready directory')
    .requiredOption('-f, --file <path>', 'manifest file, or a directory of *.yaml files (repeatable)', collect, [])
    .option('-o, --output <dir>', 'output directory; written atomically, files it no longer produces are pruned')
    .option('--list-variables', "print each provider's variables, defaults and value origins (Secret values masked); writes nothing")
    .option('--allow-secret-values', 'allow values from Secrets (configSecret variables, images) to be written to the output')
    .addOption(new Option('--quiet', 'print errors only').default(false))
    .action(async (flags: RenderFlags) => {
      await renderCommand(flags);
    });

  return program;
}

const VERSION = '0.1.0';

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT_OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      // help and version "errors" are successful exits
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT_OK;
      return EXIT_USAGE;
    }
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n(run with --help for usage)\n`);
      return EXIT_USAGE;
    }
    if (err instanceof CapiGitopsError) {
      const n = err.diagnostics.length;
      process.stderr.write(err.diagnostics.map(formatDiagnostic).join('\n') + '\n');
      if (n > 1) process.stderr.write(`${n} problems; nothing was written\n`);
      else process.stderr.write('nothing was written\n');
      return EXIT_FAILED;
    }
    process.stderr.write(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return EXIT_FAILED;
  }
}

