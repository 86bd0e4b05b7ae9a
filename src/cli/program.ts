/**
 * capi-gitops CLI. Exit codes: 0 success, 1 invalid input or failed render, 2 usage error.
 */
import { Argument, Command, CommanderError, Option } from 'commander';
import { CapiGitopsError, formatDiagnostic, MAX_REPORTED_PROBLEMS, reportedProblems } from '../core/diagnostics.js';
import { FLEET_LAYOUTS, LAYOUTS } from '../manifest/types.js';
import { SECRET_STRATEGIES } from '../manifest/types.js';
import { BUILT_IN_CHARTS } from '../layout/chart/types.js';
import { ExitStatus, UsageError } from './errors.js';
import { DIFF_FORMATS } from '../review/types.js';
import { ENVIRONMENT, RENDER_ENVIRONMENT, SOURCE_ENVIRONMENT, withHelp, type EnvironmentVariable } from './help.js';
import { VERSION } from './version.js';
import { SHELLS, type Shell } from './completion.js';
import {
  failureDocument,
  guardOutputStreams,
  printError,
  reportInternalError,
  streams,
  systemErrorDiagnostic,
  type CliStreams,
} from './output.js';
import { clusterctlWordHint, completeSuggestions, globbedFilesHint, type Invocation } from './hints.js';
import { registerEnvironmentSecrets } from '../core/redact.js';
import { startRun } from '../core/run-state.js';
import { InterruptedError } from '../core/interrupt.js';
import { installInterruptHandlers, interruptedExit, setReadOnlyCommand } from './interrupts.js';

const EXIT_OK = 0;
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Flags every command that reads a manifest and fetches artifacts shares. */
function withSourceFlags(command: Command): Command {
  return command
    .option('-f, --file <path>', 'manifest file, or a directory of *.yaml files (repeatable); the lockfile sits beside the first', collect)
    .option(
      '-n, --namespace <namespace>',
      'namespace of providers, Secrets and ConfigMaps that name none, as kubectl does (overrides Config namespace)',
    )
    .option('--cache-dir <dir>', 'artifact cache (default: $XDG_CACHE_HOME/capi-gitops, else ~/.cache/capi-gitops)')
    .option('--offline', 'never touch the network; fail naming what is missing from the cache')
    .option(
      '--github-api-url <url>',
      'GitHub REST API root for GitHub Enterprise (overrides Config github.apiUrl); token from GITHUB_TOKEN or GH_TOKEN',
    )
    .option(
      '--http-timeout <seconds>',
      'time budget of each network request, retries included (overrides Config network.timeoutSeconds; default 120)',
    )
    .option(
      '--network-deadline <seconds>',
      'time budget of all network requests of the run together, retries included (or CAPI_GITOPS_NETWORK_DEADLINE; default 900)',
    )
    .option('--quiet', 'print only warnings and errors')
    .option('--verbose', 'also print where artifacts came from, and each file written and removed (on stderr)');
}

/** What shapes a render besides -o, shared by render, check and diff so they render the same bytes. */
function withRenderFlags(command: Command): Command {
  return command
    .option(
      '--allow-secret-values',
      'allow secret values (configSecret variables, images) to be written to the output; needed by --secrets inline',
    )
    .addOption(
      new Option(
        '--secrets <strategy>',
        'what happens to objects that would carry a secret (overrides Config secrets.strategy); default refuse',
      ).choices(SECRET_STRATEGIES),
    )
    .option(
      '--secret-file <file>',
      'secret variables from a dotenv file, a YAML map or Secret manifests, kept out of Git (repeatable, later files win)',
      collect,
    )
    .option('--env-secret <name>', 'take the secret variable <name> from the environment, e.g. a CI secret (repeatable)', collect)
    .addOption(new Option('--layout <layout>', 'output layout (overrides Config output.layout); default kustomize').choices(LAYOUTS))
    .option(
      '--pin-images',
      'write every container image as repository:tag@sha256:<digest>, locked in the lockfile (as Config pinImages: true)',
    )
    .addOption(
      new Option(
        '--fleet-layout <layout>',
        "fleet: shared (objects clusters render alike written once, under bases/) or full (each cluster's complete tree); default shared",
      ).choices(FLEET_LAYOUTS),
    )
    .option('--values <file>', 'chart values file for the argocd/flux wiring (repeatable, later files win)', collect)
    .option('--set <key=value>', "set a chart value, Helm's syntax: a.b=c, list[0]=x, list={a,b} (repeatable, last wins)", collect)
    .option('--set-string <key=value>', 'like --set, but every value stays a string (repeatable; applied after --set)', collect)
    .option(
      '--set-json <key=json>',
      'set a chart value from JSON: a.b=[1,{"c":2}], or a JSON object (repeatable; applied before --set)',
      collect,
    )
    .option(
      '--set-literal <key=value>',
      'set a chart value to the rest of the argument as written, commas and all (repeatable; applied last)',
      collect,
    )
    .option('--cluster <name>', "fleet: only this cluster (repeatable); the other clusters' files keep their bytes", collect);
}

// Command modules load when their command runs, so `--help` and a cached render load none of them.
const commands = () => import('./commands.js');
const reviewCommands = () => import('./review-commands.js');
const operatorCommands = () => import('./operator-commands.js');
const upgradeCommands = () => import('./upgrade-commands.js');

const JSON_FLAG = ['--json', 'print the report as one JSON document on stdout (schemaVersion 1; see docs/cli.md#json-output)'] as const;

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
    .exitOverride()
    .configureOutput({ writeOut: (text) => streams.stdout.write(text), writeErr: (text) => streams.stderr.write(text) });
  withHelp(program, {
    examples: [
      'capi-gitops render -f management-cluster/ -o clusters/mgmt',
      'capi-gitops plan -f management-cluster/',
      'capi-gitops completion bash > ~/.local/share/bash-completion/completions/capi-gitops',
    ],
    environment: Object.keys(ENVIRONMENT) as EnvironmentVariable[],
  });

  const render = withRenderFlags(
    withSourceFlags(
      program
        .command('render')
        .description('resolve, render and write the providers of a manifest into a kustomize-ready directory; updates the lockfile'),
    )
      .option('-o, --output <dir>', 'output directory; written atomically, files it no longer produces are pruned')
      .option('--frozen', "fail if the lockfile would change or a pinned image's tag moved (for CI)")
      .option('--list-variables', "print each provider's variables, defaults and value origins (Secret values masked); writes nothing"),
  )
    .option('--check', 'write nothing: compare with the output directory like `capi-gitops check` (exit 1 when it differs)')
    .option(...JSON_FLAG)
    .action(async (flags) => (flags.check ? (await reviewCommands()).checkCommand(flags) : (await commands()).renderCommand(flags)));
  withHelp(render, {
    examples: [
      'capi-gitops render -f management-cluster/ -o clusters/mgmt',
      'capi-gitops render -f management-cluster/ -o clusters/mgmt --frozen   # CI: fail if the lockfile would change',
      'capi-gitops render -f management-cluster/ -o clusters/mgmt --layout argocd --set repoURL=https://git.example.com/platform/management.git --set path=clusters/mgmt',
      'capi-gitops render -f management-cluster/ --list-variables',
      'capi-gitops render -f management-cluster/ -o clusters/mgmt --json',
    ],
    environment: RENDER_ENVIRONMENT,
  });

  const check = withRenderFlags(
    withSourceFlags(
      program
        .command('check')
        .description(
          'render in memory and compare with the committed output directory; exit 1, naming each file that differs, is missing, is extra or was edited by hand (--frozen implied, writes nothing)',
        ),
    ),
  )
    .option('-o, --output <dir>', 'the committed output directory to compare with')
    .option('--json', 'print the result as JSON')
    .action(async (flags) => (await reviewCommands()).checkCommand(flags));
  withHelp(check, {
    examples: [
      'capi-gitops check -f management-cluster/ -o clusters/mgmt',
      'capi-gitops check -f management-cluster/ -o clusters/mgmt --offline --json',
    ],
    environment: RENDER_ENVIRONMENT,
  });

  const diff = withRenderFlags(
    withSourceFlags(
      program
        .command('diff')
        .description(
          'semantic, object-level diff between two renders: the committed output and a fresh render (default), a Git revision (--base) or two directories (--from/--to)',
        ),
    ),
  )
    .option('-o, --output <dir>', 'the committed output directory')
    .option(
      '--base <git-ref>',
      'compare with the render of the manifest, lockfile and Config at this commit (read with git show; the checkout is not touched)',
    )
    .option('--from <dir>', 'compare two rendered directories: the old one')
    .option('--to <dir>', 'compare two rendered directories: the new one')
    .option('--frozen', 'fail if the lockfile would change')
    .option('--detailed-exitcode', "exit 2 when an object was added, removed or changed, 0 when none, 1 on any error (helm-diff's codes)")
    .addOption(
      new Option(
        '--format <format>',
        'text (coloured on a terminal), markdown (for a pull-request comment) or json (schema/capi-gitops-diff.schema.json)',
      )
        .choices(DIFF_FORMATS)
        .default('text'),
    )
    .action(async (flags) => (await reviewCommands()).diffCommand(flags));
  withHelp(diff, {
    examples: [
      'capi-gitops diff -f management-cluster/ -o clusters/mgmt',
      'capi-gitops diff -f management-cluster/ -o clusters/mgmt --base origin/main --format markdown',
      'capi-gitops diff --from old-output --to clusters/mgmt --format json',
      'capi-gitops diff -f management-cluster/ -o clusters/mgmt --base origin/main --detailed-exitcode   # 2: something changed',
    ],
    environment: [...RENDER_ENVIRONMENT, 'GITHUB_STEP_SUMMARY', 'NO_COLOR', 'TMPDIR'],
  });

  const chart = program.command('chart').description('the charts that draw the Argo CD and Flux wiring');
  chart
    .command('show')
    .description(
      "print a built-in chart's files (Chart.yaml, values.yaml, values.schema.json, templates/, files/), to start a chart of your own",
    )
    .addArgument(new Argument('<name>', 'built-in chart').choices(BUILT_IN_CHARTS))
    .option('-o, --output-dir <dir>', 'write the files into <dir> instead of printing them (fails if <dir> exists)')
    .action(async (name, flags) => (await commands()).chartShowCommand(name, flags));
  withHelp(chart, { examples: ['capi-gitops chart show argocd', 'capi-gitops chart show flux --output-dir my-wiring'] });
  withHelp(chart.commands[0]!, { examples: ['capi-gitops chart show argocd', 'capi-gitops chart show flux --output-dir my-wiring'] });

  withHelp(
    withSourceFlags(program.command('lock').description('resolve every provider and write the lockfile, without rendering'))
      .option(
        '--accept-digest <provider>',
        "accept a re-tagged release's new files for this provider only (label or namespace/label; repeatable), after comparing them",
        collect,
      )
      .option(...JSON_FLAG)
      .action(async (flags) => (await commands()).lockCommand(flags)),
    {
      examples: [
        'capi-gitops lock -f management-cluster/',
        'capi-gitops lock -f management-cluster/ --json',
        'capi-gitops lock -f management-cluster/ --accept-digest cluster-api   # the release was re-tagged; its new files are right',
      ],
      environment: SOURCE_ENVIRONMENT,
    },
  );

  const plan = withSourceFlags(
    program.command('plan').description('show available upgrades of the locked providers, like clusterctl upgrade plan'),
  )
    .option(...JSON_FLAG)
    .option('--release <name>', 'fleet: show what moving the clusters to this Release changes, component by component')
    .option('--cluster <name>', 'fleet, with --release: plan only this cluster (repeatable)', collect)
    .action(async (flags) => (await upgradeCommands()).planCommand(flags));
  withHelp(plan, {
    examples: ['capi-gitops plan -f management-cluster/', 'capi-gitops plan -f management-cluster/ --json'],
    environment: [...SOURCE_ENVIRONMENT, 'DOCKER_CONFIG'],
  });

  const update = withSourceFlags(
    program
      .command('update')
      .description('move providers to the versions `plan` offers: exact pins in the manifest are edited in place, the rest in the lockfile')
      .argument('[providers...]', 'providers to update, by label (bootstrap-kubeadm) or namespace/label; all when none'),
  )
    .option('--contract <contract>', "follow this contract's plan (e.g. v1beta2); default: the core provider's current contract")
    .option('--images', 'move no version: the images pinned in the lockfile take the digests their tags serve now (`plan` lists them)')
    .option(...JSON_FLAG)
    .action(async (providers, flags) => (await upgradeCommands()).updateCommand(providers, flags));
  withHelp(update, {
    examples: [
      'capi-gitops update -f management-cluster/',
      'capi-gitops update -f management-cluster/ --contract v1beta2',
      'capi-gitops update -f management-cluster/ bootstrap-kubeadm',
      'capi-gitops update -f management-cluster/ --images cluster-api',
    ],
    environment: [...SOURCE_ENVIRONMENT, 'DOCKER_CONFIG'],
  });

  const convert = program
    .command('convert')
    .description(
      "rewrite operator.cluster.x-k8s.io/v1alpha1 provider objects as v1alpha2, as the operator's conversion webhook did, and Rancher Turtles CAPIProviders as operator objects with their config Secret; comments, key order and other documents are kept",
    )
    .option('-f, --file <path>', 'manifest file, or a directory of *.yaml files (repeatable)', collect)
    .option('--in-place', 'rewrite the files instead of printing them (only files with v1alpha1 objects; all or none)')
    .option('--quiet', 'print errors only')
    .action(async (flags) => (await operatorCommands()).convertCommand(flags));
  withHelp(convert, { examples: ['capi-gitops convert -f management-cluster/', 'capi-gitops convert -f management-cluster/ --in-place'] });

  const importCommand = program.command('import').description("read another tool's configuration as a capi-gitops manifest");
  const helmValues = importCommand
    .command('helm-values')
    .description('print the provider objects the cluster-api-operator Helm chart would install for these values')
    .option(
      '-f, --values <file>',
      'a values file of the cluster-api-operator chart, or the Argo CD Application, Flux HelmRelease (with its valuesFrom ConfigMaps and Secrets) or k3s HelmChart that carries them, or a directory of such files (repeatable, later files win)',
      collect,
    )
    .option('--set <key=value>', "a chart value, Helm's syntax (repeatable, last wins), e.g. infrastructure.docker.version=v1.7.7", collect)
    .option('--set-string <key=value>', 'like --set, but the value stays a string (repeatable; applied after --set)', collect)
    .option(
      '--set-json <key=json>',
      'a chart value from JSON, e.g. infrastructure.docker.manager={"verbosity":2} (repeatable; before --set)',
      collect,
    )
    .option('--set-literal <key=value>', 'a chart value, the rest of the argument as written (repeatable; applied last)', collect)
    .option(
      '--chart-version <version>',
      "follow this chart version's templates (default: the version the Application, HelmRelease or HelmChart names, else the newest)",
    )
    .option('-o, --output <file>', 'write the manifest to <file> instead of stdout')
    .option(
      '--allow-secret-values',
      "write a value read from a Secret (a Flux valuesFrom Secret's credential) into the manifest anyway, warned on every run",
    )
    .option('--quiet', 'print errors only')
    .action(async (flags) => (await operatorCommands()).importHelmValuesCommand(flags));
  const helmValuesExamples = [
    'capi-gitops import helm-values -f values.yaml -o management-cluster/providers.yaml',
    'capi-gitops import helm-values --set infrastructure.docker.version=v1.7.7',
    'capi-gitops import helm-values -f values.yaml --chart-version 0.23.0',
    'capi-gitops import helm-values -f flux/capi-operator-helmrelease.yaml -o management-cluster/providers.yaml',
  ];
  withHelp(importCommand, { examples: helmValuesExamples });
  withHelp(helmValues, { examples: helmValuesExamples });

  withHelp(
    program
      .command('version')
      .description('print the capi-gitops version, the Node.js version and the platform')
      .option(...JSON_FLAG)
      .action(async (flags) => (await commands()).versionCommand(flags)),
    {
      examples: ['capi-gitops version', 'capi-gitops version --json', 'capi-gitops --version   # the version number alone'],
    },
  );

  withHelp(
    program
      .command('completion')
      .description('print a shell completion script for bash or zsh')
      .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
      .action(async (shell: Shell) => (await commands()).completionCommand(program, shell)),
    {
      examples: [
        'source <(capi-gitops completion bash)   # this shell only',
        'capi-gitops completion bash > ~/.local/share/bash-completion/completions/capi-gitops',
        "echo 'source <(capi-gitops completion zsh)' >> ~/.zshrc",
      ],
    },
  );

  return program;
}

/** Runs the CLI on `argv` and returns its exit code; it prints to `output` when given, else to stdout and stderr. */
export async function main(argv: string[], output?: CliStreams): Promise<number> {
  installInterruptHandlers();
  guardOutputStreams();
  Object.assign(streams, output ?? { stdout: process.stdout, stderr: process.stderr });
  startRun();
  registerEnvironmentSecrets();
  const program = buildProgram();
  // The command that runs and its flags: failures are reported in its terms (--json, hints).
  let invoked:
    | { name: string; flags: Invocation & { json?: boolean; inPlace?: boolean; verbose?: boolean }; hasVerbose: boolean }
    | undefined;
  // a command that never writes (check, diff, plan, convert without --in-place) does not say "nothing was written"
  const writesNothing = () =>
    ['check', 'diff', 'plan'].includes(invoked?.name ?? '') || (invoked?.name === 'convert' && !invoked.flags.inPlace);
  program.hook('preAction', (_root, action) => {
    invoked = { name: action.name(), flags: action.opts(), hasVerbose: action.options.some((option) => option.long === '--verbose') };
    setReadOnlyCommand(writesNothing() ? invoked.name : undefined);
  });
  const flagArguments = argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length);
  // diff's JSON is --format json: a failure is one document there too, as check --json's is
  const diffFormatJson = () =>
    invoked
      ? invoked.name === 'diff' && (invoked.flags as { format?: string }).format === 'json'
      : flagArguments[0] === 'diff' &&
        flagArguments.some((a, i) => a === '--format=json' || (a === '--format' && flagArguments[i + 1] === 'json'));
  const jsonRequested = () => (invoked?.flags.json ?? flagArguments.includes('--json')) || diffFormatJson();
  // commander refuses a flag before preAction runs: the command is then the first word, when it names one
  const first = flagArguments.find((a) => !a.startsWith('-'));
  const commandName = () => invoked?.name ?? program.commands.find((c) => c.name() === first)?.name() ?? '';
  // under diff --detailed-exitcode, 2 says "changes": a usage error is 1 there, as in helm-diff
  const usageExit = () => (flagArguments[0] === 'diff' && flagArguments.includes('--detailed-exitcode') ? EXIT_FAILED : EXIT_USAGE);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT_OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      // help and version "errors" are successful exits
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT_OK;
      const clusterctl = clusterctlWordHint(err.message);
      if (clusterctl) printError(`hint: ${clusterctl}`);
      const globbed = globbedFilesHint(err.message, flagArguments);
      if (globbed) printError(`hint: ${globbed}`);
      if (jsonRequested()) streams.stdout.write(failureDocument(commandName(), [], err.message.replace(/^error: /, '')));
      return usageExit();
    }
    if (err instanceof ExitStatus) return err.code;
    if (err instanceof InterruptedError) return interruptedExit();
    if (err instanceof UsageError) {
      printError(`error: ${err.message}\n(run with --help for usage)`);
      if (jsonRequested()) streams.stdout.write(failureDocument(commandName(), [], err.message));
      return usageExit();
    }
    const systemError = systemErrorDiagnostic(err);
    if (err instanceof CapiGitopsError || systemError) {
      const all = systemError ? [systemError] : (err as CapiGitopsError).diagnostics;
      const { shown, notShown } = reportedProblems(all);
      const diagnostics = shown.map((d) => (d.hint ? { ...d, hint: completeSuggestions(d.hint, invoked?.flags) } : d));
      const n = all.length;
      // every command, not only check and diff: a CI job may run render --frozen, lock or plan.
      // Loaded here: imported by the entry, the review modules made --help parse 280 KB more (60 ms over node -e 0, goal 30)
      if (process.env.GITHUB_ACTIONS === 'true') {
        const { diagnosticAnnotations } = await import('../review/github-actions.js');
        for (const line of diagnosticAnnotations(diagnostics)) streams.stderr.write(line + '\n');
      }
      streams.stderr.write(diagnostics.map(formatDiagnostic).join('\n') + '\n');
      if (notShown > 0)
        streams.stderr.write(`${notShown} more problems not shown (the first ${MAX_REPORTED_PROBLEMS} are, in file and line order)\n`);
      if (!writesNothing()) streams.stderr.write(n > 1 ? `${n} problems; nothing was written\n` : 'nothing was written\n');
      else if (n > 1) streams.stderr.write(`${n} problems\n`);
      if (jsonRequested()) streams.stdout.write(failureDocument(commandName(), diagnostics, undefined, notShown));
      return EXIT_FAILED;
    }
    // the stack only when --verbose asks for it; the hint offers --verbose where the command has it
    const stack = invoked?.flags.verbose || flagArguments.includes('--verbose') ? 'print' : invoked?.hasVerbose === false ? 'none' : 'flag';
    const problem = reportInternalError(err, argv, stack);
    if (jsonRequested()) streams.stdout.write(failureDocument(commandName(), [problem]));
    return EXIT_FAILED;
  }
}
