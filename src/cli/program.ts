/**
 * capi-gitops CLI. Exit codes: 0 success, 1 invalid input or failed render, 2 usage error.
 */
import { Argument, Command, CommanderError, Option } from 'commander';
import { CapiGitopsError, formatDiagnostic } from '../model/diagnostics.js';
import { renderCommand, lockCommand, planCommand, updateCommand, chartShowCommand } from './commands.js';
import { LAYOUTS } from '../emit/layout.js';
import { BUILT_IN_CHARTS } from '../chart/load.js';
import { UsageError } from './errors.js';
import { guardOutputStreams, printError, reportInternalError, systemErrorDiagnostic } from './output.js';
import { registerEnvironmentSecrets } from '../model/redact.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

const VERSION = '0.1.0';

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Flags every command that reads a manifest and fetches artifacts shares. */
function withSourceFlags(command: Command): Command {
  return command
    .option('-f, --file <path>', 'manifest file, or a directory of *.yaml files (repeatable); the lockfile sits beside the first', collect)
    .option('--cache-dir <dir>', 'artifact cache (default: $XDG_CACHE_HOME/capi-gitops, else ~/.cache/capi-gitops)')
    .option('--offline', 'never touch the network; fail naming what is missing from the cache')
    .option('--github-api-url <url>', 'GitHub REST API root for GitHub Enterprise (overrides Config github.apiUrl); token from GITHUB_TOKEN or GH_TOKEN')
    .option('--http-timeout <seconds>', 'time budget of each network request, retries included (overrides Config network.timeoutSeconds; default 120)')
    .option('--quiet', 'print errors only');
}

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('capi-gitops')
    .description(
      'Render Cluster API providers offline, exactly as clusterctl and the cluster-api-operator would, into a Git directory that Argo CD or Flux syncs.',
    )
    .version(VERSION, '--version', 'print the capi-gitops version')
    .helpOption('-h, --help', 'show help for a command')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();

  withSourceFlags(program.command('render').description('resolve, render and write the providers of a manifest into a kustomize-ready directory; updates the lockfile'))
    .option('-o, --output <dir>', 'output directory; written atomically, files it no longer produces are pruned')
    .option('--frozen', 'fail if the lockfile would change (for CI)')
    .option('--list-variables', "print each provider's variables, defaults and value origins (Secret values masked); writes nothing")
    .option('--allow-secret-values', 'allow values from Secrets (configSecret variables, images) to be written to the output')
    .addOption(new Option('--layout <layout>', 'output layout (overrides Config output.layout); default kustomize').choices(LAYOUTS))
    .option('--values <file>', 'chart values file for the argocd/flux wiring (repeatable, later files win)', collect)
    .option('--set <key=value>', "set a chart value, Helm's syntax: a.b=c, list[0]=x, list={a,b} (repeatable, last wins)", collect)
    .option('--set-string <key=value>', 'like --set, but every value stays a string (repeatable; applied after --set)', collect)
    .action(renderCommand);

  const chart = program.command('chart').description('the charts that draw the Argo CD and Flux wiring');
  chart
    .command('show')
    .description("print a built-in chart's files (Chart.yaml, values.yaml, values.schema.json, templates/, files/), to start a chart of your own")
    .addArgument(new Argument('<name>', 'built-in chart').choices(BUILT_IN_CHARTS))
    .option('--output-dir <dir>', 'write the files into <dir> instead of printing them (fails if <dir> exists)')
    .action(chartShowCommand);

  withSourceFlags(program.command('lock').description('resolve every provider and write the lockfile, without rendering')).action(lockCommand);

  withSourceFlags(program.command('plan').description('show available upgrades of the locked providers, like clusterctl upgrade plan'))
    .option('--json', 'print the plan as JSON')
    .action(planCommand);

  withSourceFlags(
    program
      .command('update')
      .description('move providers to the versions `plan` offers: exact pins in the manifest are edited in place, the rest in the lockfile')
      .argument('[providers...]', 'providers to update, by label (bootstrap-kubeadm) or namespace/label; all when none'),
  )
    .option('--contract <contract>', "follow this contract's plan (e.g. v1beta2); default: the core provider's current contract")
    .action(updateCommand);

  return program;
}

export async function main(argv: string[]): Promise<number> {
  guardOutputStreams();
  registerEnvironmentSecrets();
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
      printError(`error: ${err.message}\n(run with --help for usage)`);
      return EXIT_USAGE;
    }
    const systemError = systemErrorDiagnostic(err);
    if (err instanceof CapiGitopsError || systemError) {
      const diagnostics = systemError ? [systemError] : (err as CapiGitopsError).diagnostics;
      const n = diagnostics.length;
      process.stderr.write(diagnostics.map(formatDiagnostic).join('\n') + '\n');
      process.stderr.write(n > 1 ? `${n} problems; nothing was written\n` : 'nothing was written\n');
      return EXIT_FAILED;
    }
    reportInternalError(err);
    return EXIT_FAILED;
  }
}
