/**
 * capi-gitops CLI. Exit codes: 0 success, 1 invalid input or failed render, 2 usage error.
 */
import { Argument, Command, CommanderError, Option } from 'commander';
import { CapiGitopsError, formatDiagnostic } from '../model/diagnostics.js';
import { renderCommand, lockCommand, planCommand, updateCommand, chartShowCommand, versionCommand, completionCommand } from './commands.js';
import { LAYOUTS } from '../emit/layout.js';
import { BUILT_IN_CHARTS } from '../chart/load.js';
import { UsageError } from './errors.js';
import { ENVIRONMENT, SOURCE_ENVIRONMENT, withHelp, type EnvironmentVariable } from './help.js';
import { VERSION } from './version.js';
import { SHELLS } from './completion.js';
import { failureDocument } from './output.js';
import { completeSuggestions, type Invocation } from './hints.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

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
    .option('--quiet', 'print only warnings and errors')
    .option('--verbose', 'also print each file written and removed, and where artifacts came from (on stderr)');
}

const JSON_FLAG = ['--json', 'print the report as one JSON document on stdout (schemaVersion 1; see the README)'] as const;

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
  withHelp(program, {
    examples: ['capi-gitops render -f management-cluster/ -o clusters/mgmt', 'capi-gitops plan -f management-cluster/', 'capi-gitops completion bash > ~/.local/share/bash-completion/completions/capi-gitops'],
    environment: Object.keys(ENVIRONMENT) as EnvironmentVariable[],
  });

  const render = withSourceFlags(program.command('render').description('resolve, render and write the providers of a manifest into a kustomize-ready directory; updates the lockfile'))
    .option('-o, --output <dir>', 'output directory; written atomically, files it no longer produces are pruned')
    .option('--frozen', 'fail if the lockfile would change (for CI)')
    .option('--list-variables', "print each provider's variables, defaults and value origins (Secret values masked); writes nothing")
    .option('--allow-secret-values', 'allow values from Secrets (configSecret variables, images) to be written to the output')
    .addOption(new Option('--layout <layout>', 'output layout (overrides Config output.layout); default kustomize').choices(LAYOUTS))
    .option('--values <file>', 'chart values file for the argocd/flux wiring (repeatable, later files win)', collect)
    .option('--set <key=value>', "set a chart value, Helm's syntax: a.b=c, list[0]=x, list={a,b} (repeatable, last wins)", collect)
    .option('--set-string <key=value>', 'like --set, but every value stays a string (repeatable; applied after --set)', collect)
    .option(...JSON_FLAG)
    .action(renderCommand);
  withHelp(render, {
    examples: [
      'capi-gitops render -f management-cluster/ -o clusters/mgmt',
      'capi-gitops render -f management-cluster/ -o clusters/mgmt --frozen   # CI: fail if the lockfile would change',
      'capi-gitops render -f management-cluster/ -o clusters/mgmt --layout argocd --set repoURL=https://git.example.com/platform/management.git --set path=clusters/mgmt',
      'capi-gitops render -f management-cluster/ --list-variables',
      'capi-gitops render -f management-cluster/ -o clusters/mgmt --json',
    ],
    environment: SOURCE_ENVIRONMENT,
  });

  const chart = program.command('chart').description('the charts that draw the Argo CD and Flux wiring');
  chart
    .command('show')
    .description("print a built-in chart's files (Chart.yaml, values.yaml, values.schema.json, templates/, files/), to start a chart of your own")
    .addArgument(new Argument('<name>', 'built-in chart').choices(BUILT_IN_CHARTS))
    .option('--output-dir <dir>', 'write the files into <dir> instead of printing them (fails if <dir> exists)')
    .action(chartShowCommand);
  withHelp(chart, { examples: ['capi-gitops chart show argocd', 'capi-gitops chart show flux --output-dir my-wiring'] });
  withHelp(chart.commands[0], { examples: ['capi-gitops chart show argocd', 'capi-gitops chart show flux --output-dir my-wiring'] });

  withHelp(withSourceFlags(program.command('lock').description('resolve every provider and write the lockfile, without rendering')).option(...JSON_FLAG).action(lockCommand), {
    examples: ['capi-gitops lock -f management-cluster/', 'capi-gitops lock -f management-cluster/ --json'],
    environment: SOURCE_ENVIRONMENT,
  });

  withHelp(withSourceFlags(program.command('plan').description('show available upgrades of the locked providers, like clusterctl upgrade plan')).option(...JSON_FLAG).action(planCommand), {
    examples: ['capi-gitops plan -f management-cluster/', 'capi-gitops plan -f management-cluster/ --json'],
    environment: SOURCE_ENVIRONMENT,
  });

  const update = withSourceFlags(
    program
      .command('update')
      .description('move providers to the versions `plan` offers: exact pins in the manifest are edited in place, the rest in the lockfile')
      .argument('[providers...]', 'providers to update, by label (bootstrap-kubeadm) or namespace/label; all when none'),
  )
    .option('--contract <contract>', "follow this contract's plan (e.g. v1beta2); default: the core provider's current contract")
    .option(...JSON_FLAG)
    .action(updateCommand);
  withHelp(update, {
    examples: ['capi-gitops update -f management-cluster/', 'capi-gitops update -f management-cluster/ --contract v1beta2', 'capi-gitops update -f management-cluster/ bootstrap-kubeadm'],
    environment: SOURCE_ENVIRONMENT,
  });

  withHelp(program.command('version').description('print the capi-gitops version, the Node.js version and the platform').option(...JSON_FLAG).action(versionCommand), {
    examples: ['capi-gitops version', 'capi-gitops version --json', 'capi-gitops --version   # the version number alone'],
  });

  withHelp(
    program
      .command('completion')
      .description('print a shell completion script for bash or zsh')
      .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
      .action((shell: (typeof SHELLS)[number]) => completionCommand(program, shell)),
    {
      examples: [
        'source <(capi-gitops completion bash)   # this shell only',
        'capi-gitops completion bash > ~/.local/share/bash-completion/completions/capi-gitops',
        'echo \'source <(capi-gitops completion zsh)\' >> ~/.zshrc',
      ],
    },
  );

  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  // The command that runs and its flags: failures are reported in its terms (--json, hints).
  let invoked: { name: string; flags: Invocation & { json?: boolean } } | undefined;
  program.hook('preAction', (_root, action) => {
    invoked = { name: action.name(), flags: action.opts() };
  });
  const jsonRequested = () => invoked?.flags.json ?? argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length).includes('--json');
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT_OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      // help and version "errors" are successful exits
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT_OK;
      if (jsonRequested()) process.stdout.write(failureDocument(invoked?.name ?? '', [], err.message.replace(/^error: /, '')));
      return EXIT_USAGE;
    }
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n(run with --help for usage)\n`);
      if (jsonRequested()) process.stdout.write(failureDocument(invoked?.name ?? '', [], err.message));
      return EXIT_USAGE;
    }
    if (err instanceof CapiGitopsError) {
      const diagnostics = err.diagnostics.map((d) => (d.hint ? { ...d, hint: completeSuggestions(d.hint, invoked?.flags) } : d));
      const n = diagnostics.length;
      process.stderr.write(diagnostics.map(formatDiagnostic).join('\n') + '\n');
      process.stderr.write(n > 1 ? `${n} problems; nothing was written\n` : 'nothing was written\n');
      if (jsonRequested()) process.stdout.write(failureDocument(invoked?.name ?? '', diagnostics));
      return EXIT_FAILED;
    }
    process.stderr.write(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return EXIT_FAILED;
  }
}
