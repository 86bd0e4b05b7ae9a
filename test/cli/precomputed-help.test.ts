/**
 * The precomputed help (src/cli/precomputed-help.ts, table written by scripts/build-help.mjs):
 * for every command and subcommand, each help form prints exactly what commander prints, from
 * the package's bin (the code-split bundle), from the modules' entry point and from the
 * single-file bundle; a terminal of another width gets commander's own wrapping; the compiled
 * stub holds no table, so only the build can supply one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import type { Command } from 'commander';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { CLI_ENTRY_POINTS } from '../helpers/cli.js';
import { buildProgram } from '../../src/cli/program.js';
import { HELP_OUTPUTS } from '../../src/cli/help-texts.js';
import { mayBeHelpForm, precomputedOutput } from '../../src/cli/precomputed-help.js';

const TABLE = HELP_OUTPUTS ?? {};

function env(precomputed: boolean): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['NO_COLOR', 'FORCE_COLOR', 'CLICOLOR_FORCE', 'CAPI_GITOPS_PRECOMPUTED_HELP']) delete e[name];
  if (!precomputed) e.CAPI_GITOPS_PRECOMPUTED_HELP = 'off';
  return e;
}

function run(entry: string, args: string[], childEnv: NodeJS.ProcessEnv, nodeArgs: string[] = []) {
  const r = spawnSync(process.execPath, [...nodeArgs, entry, ...args], { encoding: 'utf8', env: childEnv, cwd: PROJECT_ROOT });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every command path of the real program: [], ['render'], …, ['chart', 'show'], … */
function commandPaths(command: Command, names: string[] = []): string[][] {
  return [names, ...command.commands.flatMap((sub) => commandPaths(sub, [...names, sub.name()]))];
}

test('the build table holds --help, -h and `help <command>` for every command and subcommand', () => {
  assert.ok(HELP_OUTPUTS, 'dist/src/cli/help-texts.js holds no table: npm run build writes it');
  for (const names of commandPaths(buildProgram())) {
    for (const form of [
      [...names, '--help'],
      [...names, '-h'],
      ['help', ...names],
    ]) {
      assert.ok(TABLE[form.join('\0')] !== undefined, `no precomputed text for \`capi-gitops ${form.join(' ')}\``);
    }
  }
});

test('every form in the table names --help, -h or help, or is empty: other argument lists do not load the table', () => {
  for (const key of Object.keys(TABLE)) assert.ok(mayBeHelpForm(key === '' ? [] : key.split('\0')), JSON.stringify(key));
  assert.equal(mayBeHelpForm(['render', '-f', 'management-cluster', '-o', 'out']), false);
  assert.equal(mayBeHelpForm(['--version']), false);
});

/** Runs the CLI once per form, a few at a time, with and without the table. */
async function compareWithCommander(entry: string, forms: string[][]): Promise<void> {
  const runAsync = (form: string[], precomputed: boolean) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      execFile(
        process.execPath,
        [entry, ...form],
        { env: env(precomputed), cwd: PROJECT_ROOT, encoding: 'utf8' },
        (error, stdout, stderr) =>
          error && typeof error.code !== 'number' ? reject(error) : resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
    });
  let next = 0;
  const worker = async () => {
    while (next < forms.length) {
      const form = forms[next++]!;
      const [commander, fast] = [await runAsync(form, false), await runAsync(form, true)];
      assert.equal(commander.code, 0, `capi-gitops ${form.join(' ')}: ${commander.stderr}`);
      assert.deepEqual(fast, commander, `capi-gitops ${form.join(' ')}`);
    }
  };
  await Promise.all([worker(), worker(), worker()]);
}

const VERSION_FORMS = [['--version'], ['version']];

// -h is commander's alias of --help: the table must agree, and --help is compared below.
const ALL_FORMS = Object.keys(TABLE)
  .filter((key) => !key.endsWith('\0-h') && key !== '-h')
  .map((key) => (key === '' ? [] : key.split('\0')));

test('-h has the same text as --help in the table', () => {
  for (const [key, text] of Object.entries(TABLE)) {
    if (key.endsWith('\0-h') || key === '-h') assert.equal(text, TABLE[key.replace(/-h$/, '--help')], key);
  }
});

test("every precomputed help text and the version forms are byte-identical to commander's (the package's bin)", async () => {
  await compareWithCommander(CLI_ENTRY_POINTS.bin, [...ALL_FORMS, ...VERSION_FORMS]);
});

test("every precomputed help text and the version forms are byte-identical to commander's (the modules' entry point)", async () => {
  await compareWithCommander(CLI_ENTRY_POINTS.modules, [...ALL_FORMS, ...VERSION_FORMS]);
});

test("the bundle's precomputed help is byte-identical to commander's", async () => {
  const forms = [['--help'], ['help', 'render'], ['chart', 'show', '--help'], ['import', 'help', 'helm-values'], ...VERSION_FORMS];
  await compareWithCommander(CLI_ENTRY_POINTS.bundle, forms);
});

test('a precomputed help run loads neither commander nor a command module', () => {
  // An ES module importing commander (CommonJS) puts it in the CommonJS cache; report it on exit.
  const probe = `data:text/javascript,import{createRequire}from'node:module';const r=createRequire('/');process.on('exit',()=>process.stderr.write(Object.keys(r.cache).filter(k=>/commander/.test(k)).length+' commander modules'))`;
  const fast = run(CLI_ENTRY_POINTS.modules, ['help', 'render'], env(true), ['--import', probe]);
  assert.equal(fast.stderr, '0 commander modules');
  assert.equal(fast.stdout, TABLE['help\0render']);
  const commander = run(CLI_ENTRY_POINTS.modules, ['help', 'render'], env(false), ['--import', probe]);
  assert.match(commander.stderr, /^[1-9]\d* commander modules$/);
});

test("on a terminal of another width, help is wrapped by commander to that width (the package's bin)", () => {
  // util-linux script(1) runs the CLI on a pseudo-terminal and relays what it printed.
  const onTerminal = (columns: number, precomputed: boolean) => {
    const command = `stty cols ${columns}; ${process.execPath} ${CLI_ENTRY_POINTS.bin} help render`;
    const result = spawnSync('script', ['-qec', command, '/dev/null'], { env: env(precomputed), encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    return result.stdout.replace(/\r\n/g, '\n');
  };
  const wide = onTerminal(120, true);
  assert.equal(wide, onTerminal(120, false));
  assert.notEqual(wide, TABLE['help\0render'], 'wrapped to 120 columns, not to 80');
  const narrow = onTerminal(80, true);
  assert.equal(narrow, onTerminal(80, false));
  assert.equal(narrow, TABLE['help\0render']);
});

test('the compiled stub holds no table, so a compile without the build step serves no help text', async () => {
  const source = readFileSync(path.join(PROJECT_ROOT, 'src', 'cli', 'help-texts.ts'), 'utf8');
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  const stub = (await import(`data:text/javascript,${encodeURIComponent(js)}`)) as { HELP_OUTPUTS: unknown };
  assert.equal(stub.HELP_OUTPUTS, undefined);
  assert.equal(await precomputedOutput(['--help'], {}, null), undefined);
  assert.equal(await precomputedOutput(['--help'], { CAPI_GITOPS_PRECOMPUTED_HELP: 'off' }, TABLE), undefined);
  assert.equal(await precomputedOutput(['render', '--bogus', '--help'], {}, TABLE), undefined);
  assert.equal(typeof (await precomputedOutput(['--help'], {}, TABLE)), 'string');
});
