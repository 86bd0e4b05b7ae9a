/**
 * capi-gitops CLI. Exit codes: 0 success, 1 invalid input or failed render, 2 usage error.
 */
import { Argument, Command, CommanderError, Option } from 'commander';
import { CapiGitopsError, formatDiagnostic } from '../model/diagnostics.js';
import { renderCommand, lockCommand, planCommand, updateCommand, chartShowCommand } from './commands.js';
import { LAYOUTS } from '../emit/layout.js';
import { SECRET_STRATEGIES } from '../manifest/types.js';
import { BUILT_IN_CHARTS } from '../chart/load.js';
import { ExitStatus, UsageError } from './errors.js';
import { checkCommand, diffCommand, DIFF_FORMATS } from './review-commands.js';
import { convertCommand, importHelmValuesCommand } from './operator-commands.js';
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

/** What shapes a render, shared by render, check and diff so they render the same bytes. */
function withRenderFlags(command: Command): Command {
  return command
    .option('-o, --output <dir>', 'the output directory (as rendered and committed)')
    .option('--allow-secret-values', 'allow values from Secrets (configSecret variables, images) in the render')
    .addOption(new Option('--secrets <strategy>', 'what happens to objects that would carry a secret (overrides Config secrets.strategy); default refuse').choices(SECRET_STRATEGIES))
    .option('--secret-file <file>', 'dotenv or YAML map of secret variables, kept out of Git (repeatable, later files win)', collect)
    .option('--env-secret <name>', 'take the secret variable <name> from the environment, e.g. a CI secret (repeatable)', collect)
    .addOption(new Option('--layout <layout>', 'output layout (overrides Config output.layout); default kustomize').choices(LAYOUTS))
    .option('--values <file>', 'chart values file for the argocd/flux wiring (repeatable, later files win)', collect)
    .option('--set <key=value>', "set a chart value, Helm's syntax (repeatable, last wins)", collect)
    .option('--set-string <key=value>', 'like --set, but every value stays a string (repeatable)', collect)
    .option('--cluster <name>', "fleet: only this cluster (repeatable); the other clusters' files are left as they are", collect);
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
    .option('--allow-secret-values', 'allow secret values (configSecret variables, images) to be written to the output; needed by --secrets inline')
    .addOption(new Option('--secrets <strategy>', 'what happens to objects that would carry a secret (overrides Config secrets.strategy); default refuse').choices(SECRET_STRATEGIES))
    .option('--secret-file <file>', 'dotenv or YAML map of secret variables, kept out of Git (repeatable, later files win)', collect)
    .option('--env-secret <name>', 'take the secret variable <name> from the environment, e.g. a CI secret (repeatable)', collect)
    .addOption(new Option('--layout <layout>', 'output layout (overrides Config output.layout); default kustomize').choices(LAYOUTS))
    .option('--values <file>', 'chart values file for the argocd/flux wiring (repeatable, later files win)', collect)
    .option('--set <key=value>', "set a chart value, Helm's syntax: a.b=c, list[0]=x, list={a,b} (repeatable, last wins)", collect)
    .option('--set-string <key=value>', 'like --set, but every value stays a string (repeatable; applied after --set)', collect)
    .option('--cluster <name>', 'fleet: render and write only this cluster (repeatable); the other clusters\' files keep their bytes', collect)
    .option('--check', 'write nothing: compare with the output directory like `capi-gitops check` (exit 1 when it differs)')
    .action((flags) => (flags.check ? checkCommand(flags) : renderCommand(flags)));

  withRenderFlags(withSourceFlags(program.command('check').description('render in memory and compare with the committed output directory; exit 1, naming each file that differs, is missing, is extra or was edited by hand (--frozen implied, writes nothing)')))
    .option('--json', 'print the result as JSON')
    .action(checkCommand);

  withRenderFlags(withSourceFlags(program.command('diff').description('semantic, object-level diff between two renders: the committed output and a fresh render (default), a Git revision (--base) or two directories (--from/--to)')))
    .option('--base <git-ref>', "compare with the render of the manifest, lockfile and Config at this commit (read with git show; the checkout is not touched)")
    .option('--from <dir>', 'compare two rendered directories: the old one')
    .option('--to <dir>', 'compare two rendered directories: the new one')
    .option('--frozen', 'fail if the lockfile would change')
    .addOption(new Option('--format <format>', 'text (coloured on a terminal), markdown (for a pull-request comment) or json (schema/capi-gitops-diff.schema.json)').choices(DIFF_FORMATS).default('text'))
    .action(diffCommand);

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
    .option('--release <name>', 'fleet: show what moving the clusters to this Release changes, component by component')
    .option('--cluster <name>', 'fleet, with --release: plan only this cluster (repeatable)', collect)
    .action(planCommand);

  withSourceFlags(
    program
      .command('update')
      .description('move providers to the versions `plan` offers: exact pins in the manifest are edited in place, the rest in the lockfile')
      .argument('[providers...]', 'providers to update, by label (bootstrap-kubeadm) or namespace/label; all when none'),
  )
    .option('--contract <contract>', "follow this contract's plan (e.g. v1beta2); default: the core provider's current contract")
    .action(updateCommand);

  program
    .command('convert')
    .description('rewrite operator.cluster.x-k8s.io/v1alpha1 provider objects as v1alpha2, as the operator\'s conversion webhook did; comments, key order and other documents are kept')
    .option('-f, --file <path>', 'manifest file, or a directory of *.yaml files (repeatable)', collect)
    .option('--in-place', 'rewrite the files instead of printing them (only files with v1alpha1 objects; all or none)')
    .option('--quiet', 'print errors only')
    .action(convertCommand);

  program
    .command('import')
    .description('read another tool\'s configuration as a capi-gitops manifest')
    .command('helm-values')
    .description('print the provider objects the cluster-api-operator Helm chart would install for these values')
    .option('-f, --values <file>', 'a values file of the cluster-api-operator chart (repeatable, later files win)', collect)
    .option('--set <key=value>', "a chart value, Helm's syntax (repeatable, last wins), e.g. infrastructure.docker.version=v1.7.7", collect)
    .option('--set-string <key=value>', 'like --set, but the value stays a string (repeatable; applied after --set)', collect)
    .option('-o, --output <file>', 'write the manifest to <file> instead of stdout')
    .option('--quiet', 'print errors only')
    .action(importHelmValuesCommand);

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
    if (err instanceof ExitStatus) return err.code;
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
