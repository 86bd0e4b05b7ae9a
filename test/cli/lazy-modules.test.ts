/**
 * Each run loads only what it uses (issue 13), from the modules' entry and from the package's
 * bin (the code-split bundle): a kustomize render loads none of the age library (sops), the chart
 * loader (fast-glob), semver's index or the help texts, nor a compiler (Handlebars', ajv's), the
 * schema file, the fleet's or the upgrade's modules; `--help` and `--version` load nothing but
 * the start-up modules and their text; a render served from the output cache loads neither
 * commander, the command modules nor the YAML library. The CLI runs with a resolve hook that
 * records every module resolved; for the bin, each chunk file is mapped to the modules it holds
 * through the build's metafile (dist/cli-meta.json, scripts/build-bundle.mjs). The bin's commands
 * run from one CommonJS bundle (src/cli/code-cache.ts), where esbuild makes each module an
 * initialiser keyed by its path, run on first use: there the test records which ones ran.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CLI_ENTRY_POINTS } from '../helpers/cli.js';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { corpusManifest, tempDir, writeTempManifest } from '../helpers/corpus-manifest.js';

interface Metafile {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}

const ENTRIES = ['modules', 'bin'] as const;
type Entry = (typeof ENTRIES)[number];

function hookRegistration(log: string): string {
  const dir = tempDir('capi-gitops-lazy-hook-');
  const hooks = path.join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, resolved.url + '\\n');
  return resolved;
}
`,
  );
  const register = path.join(dir, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  return pathToFileURL(register).href;
}

/**
 * Runs the entry point with the resolve hook; returns every module it loaded, as a path from the
 * project root (dist/src/…, node_modules/…, package.json): for the bin, the modules of every chunk
 * file it loaded.
 */
function loadedModules(entry: Entry, args: string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const log = path.join(tempDir('capi-gitops-lazy-log-'), 'resolved.txt');
  writeFileSync(log, '');
  const result = spawnSync(process.execPath, ['--import', hookRegistration(log), CLI_ENTRY_POINTS[entry], ...args], {
    encoding: 'utf8',
    env,
  });
  assert.equal(result.status, 0, `${entry} ${args.join(' ')}: ${result.stderr}`);
  const files = [
    pathToFileURL(CLI_ENTRY_POINTS[entry]).href,
    ...readFileSync(log, 'utf8')
      .split('\n')
      .filter((url) => url.startsWith('file:')),
  ].map((url) => path.relative(PROJECT_ROOT, fileURLToPath(url)).split(path.sep).join('/'));
  if (entry === 'modules') return [...new Set(files)].sort();
  const meta = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'dist', 'cli-meta.json'), 'utf8')) as Metafile;
  const modules = files.flatMap((file) => {
    const output = meta.outputs[file];
    assert.ok(output, `${file} is not an output of the bin's build`);
    // (Node's built-ins, which the build has the bin require: scripts/build-bundle.mjs builtinsByRequire)
    return Object.keys(output.inputs).filter((input) => !input.startsWith('builtin-require:'));
  });
  return [...new Set(modules)].sort();
}

/** The bin's command bundle (scripts/build-bundle.mjs). */
const COMMAND_BUNDLE = path.join(PROJECT_ROOT, 'dist', 'cli', 'chunks', 'capi-gitops-commands.cjs');

/**
 * Runs the bin's command bundle as the bin does (src/cli/code-cache.ts, without a code cache),
 * with esbuild's two module initialisers (`__esm` for the sources, `__commonJS` for packages)
 * recording the path of each module the first time it runs; returns those paths.
 */
function evaluatedModules(args: string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const dir = tempDir('capi-gitops-lazy-bundle-');
  const record = (helper: string, guard: string, keyOf: string) => {
    const head = `var ${helper}=`;
    const at = bundle.indexOf(head);
    const body = bundle.indexOf('=>function(){', at);
    assert.ok(at >= 0 && body > at, `esbuild's ${helper} helper is where the test expects it`);
    const insert = body + '=>function(){'.length;
    bundle = `${bundle.slice(0, insert)}if(${guard})__capiGitopsEvaluated.add(${keyOf});${bundle.slice(insert)}`;
  };
  let bundle = readFileSync(COMMAND_BUNDLE, 'utf8');
  record('__esm', 'fn', '__getOwnPropNames(fn)[0]');
  record('__commonJS', '!mod4', '__getOwnPropNames(cb)[0]');
  const instrumented = path.join(dir, 'commands.cjs');
  const report = path.join(dir, 'evaluated.json');
  const harness = path.join(dir, 'harness.cjs');
  writeFileSync(instrumented, bundle);
  // The bundle's own path for its import.meta paths (templates, charts, schema), as code-cache.ts passes it.
  writeFileSync(
    harness,
    `const { createRequire } = require('node:module');
const { pathToFileURL } = require('node:url');
const fs = require('node:fs');
const path = require('node:path');
const file = ${JSON.stringify(COMMAND_BUNDLE)};
globalThis.__capiGitopsEvaluated = new Set();
const module_ = { exports: {} };
new Function('exports', 'require', 'module', '__filename', '__dirname', '__capiGitopsImportMetaUrl', fs.readFileSync(${JSON.stringify(instrumented)}, 'utf8'))(
  module_.exports, createRequire(file), module_, file, path.dirname(file), pathToFileURL(file).href);
module_.exports.runCli(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  fs.writeFileSync(${JSON.stringify(report)}, JSON.stringify([...globalThis.__capiGitopsEvaluated].sort()));
});
`,
  );
  const result = spawnSync(process.execPath, [harness, ...args], { encoding: 'utf8', env });
  assert.equal(result.status, 0, `bin ${args.join(' ')}: ${result.stderr}`);
  return JSON.parse(readFileSync(report, 'utf8')) as string[];
}

/** What a command loads: the modules' entry's modules, or the modules the bin's command bundle evaluates. */
function commandModules(entry: Entry, args: string[], env: NodeJS.ProcessEnv = process.env): string[] {
  return entry === 'bin' ? evaluatedModules(args, env) : loadedModules(entry, args, env);
}

const unwanted = (modules: string[], prefixes: string[]) => modules.filter((m) => prefixes.some((p) => m.startsWith(p)));

/** A render of the corpus into a new output directory and cache: the arguments. */
function corpusRenderArgs(prefix: string): string[] {
  const dir = tempDir(prefix);
  const manifest = writeTempManifest({ 'providers.yaml': corpusManifest('v1.12.0', 'repository') });
  return ['render', '-f', manifest, '-o', path.join(dir, 'out'), '--quiet', '--cache-dir', path.join(dir, 'cache')];
}

for (const entry of ENTRIES) {
  test(`a kustomize render of the corpus loads no module of age-encryption, fast-glob, the chart loader, semver’s index or the help texts (${entry})`, () => {
    const modules = commandModules(entry, corpusRenderArgs('capi-gitops-lazy-'), { ...process.env, CAPI_GITOPS_OUTPUT_CACHE: 'off' });
    assert.ok(modules.includes('dist/src/emit/layout-kustomize.js'), 'the hook saw the render');
    assert.deepEqual(
      unwanted(modules, [
        'node_modules/age-encryption/',
        'node_modules/fast-glob/',
        'dist/src/chart/load.js',
        'node_modules/semver/index.js',
        'dist/src/cli/help-texts.js',
      ]),
      [],
    );
  });

  test(`a single-cluster render loads no template or schema compiler, no schema file, no fleet and no upgrade module (${entry})`, () => {
    const modules = commandModules(entry, corpusRenderArgs('capi-gitops-lazy-render-'), {
      ...process.env,
      CAPI_GITOPS_OUTPUT_CACHE: 'off',
    });
    assert.ok(modules.includes('dist/src/manifest/schema.js') && modules.includes('dist/src/pipeline.js'), 'the hook saw the render');
    // Packages are named in the bin's metafile; the modules' entry requires them through
    // createRequire, which the resolve hook does not see, so there their importers are checked.
    assert.deepEqual(
      unwanted(modules, [
        // a user chart's compilers (chart/compilers.js) and the schema compiled at run (manifest/schema-compile.js)
        'dist/src/chart/compilers.js',
        'dist/src/manifest/schema-compile.js',
        'node_modules/handlebars/lib/',
        'node_modules/handlebars/dist/cjs/handlebars.js',
        'node_modules/handlebars/dist/cjs/handlebars/compiler/',
        'node_modules/source-map/',
        'node_modules/ajv/dist/ajv.js',
        'node_modules/ajv/dist/core.js',
        'node_modules/ajv/dist/compile/',
        'node_modules/fast-uri/',
        // the precompiled validator carries the schema object
        'schema/capi-gitops.schema.json',
        // fleets (run-manifest.js loads fleet-render.js for a fleet only)
        'dist/src/fleet-render.js',
        'dist/src/fleet/expand.js',
        'dist/src/emit/fleet-applicationset.js',
        // plan and update (cli/upgrade-commands.js)
        'dist/src/cli/upgrade-commands.js',
        'dist/src/upgrade.js',
        'dist/src/resolve/upgrade-plan.js',
        'dist/src/manifest/update-versions.js',
      ]),
      [],
    );
  });

  test(`--help and --version load only the start-up modules and their text (${entry})`, () => {
    const main = entry === 'bin' ? 'dist/src/cli/bin-main.js' : 'dist/src/cli/main.js';
    const startUp = [main, 'dist/src/cli/precomputed-help.js', 'dist/src/cli/start.js'];
    assert.deepEqual(loadedModules(entry, ['--help']), [...startUp, 'dist/src/cli/help-texts.js'].sort());
    assert.deepEqual(loadedModules(entry, ['help', 'render']), [...startUp, 'dist/src/cli/help-texts.js'].sort());
    // version.js reads package.json with require(): the bin inlines it, the modules' entry reads the file.
    assert.deepEqual(
      loadedModules(entry, ['--version']),
      [...startUp, 'dist/src/cli/version.js', ...(entry === 'bin' ? ['package.json'] : [])].sort(),
    );
  });

  test(`a render served from the output cache loads neither commander, a command module nor the YAML library (${entry})`, () => {
    const args = corpusRenderArgs('capi-gitops-lazy-served-');
    for (let i = 0; i < 2; i++) {
      const result = spawnSync(process.execPath, [CLI_ENTRY_POINTS[entry], ...args], { encoding: 'utf8' });
      assert.equal(result.status, 0, result.stderr);
    }
    const modules = commandModules(entry, args);
    // (the bundle runs the entry's own modules, output-cache.js among them, without an initialiser)
    assert.ok(
      modules.includes(entry === 'bin' ? 'dist/src/model/redact.js' : 'dist/src/cli/output-cache.js'),
      'the hook saw the served run',
    );
    assert.deepEqual(
      unwanted(modules, [
        'node_modules/commander/',
        'node_modules/yaml/',
        'dist/src/cli/program.js',
        'dist/src/cli/commands.js',
        'dist/src/cli/help-texts.js',
        'dist/src/pipeline.js',
        'dist/src/yaml/',
      ]),
      [],
    );
  });
}

test("a render through the bin loads none of Node's child_process, zlib, worker_threads or webcrypto", () => {
  // built-ins only some runs need (scripts/build-bundle.mjs, src/kernel/replace-file.ts): each cost a cold render 5-11 ms
  const dir = tempDir('capi-gitops-lazy-builtins-');
  const report = path.join(dir, 'builtins.txt');
  const hook = path.join(dir, 'report.cjs');
  writeFileSync(
    hook,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(report)}, process.moduleLoadList.join('\\n')));\n`,
  );
  const result = spawnSync(process.execPath, ['--require', hook, CLI_ENTRY_POINTS.bin, ...corpusRenderArgs('capi-gitops-lazy-builtins-')], {
    encoding: 'utf8',
    env: { ...process.env, CAPI_GITOPS_OUTPUT_CACHE: 'off' },
  });
  assert.equal(result.status, 0, result.stderr);
  const loaded = readFileSync(report, 'utf8').split('\n');
  assert.ok(loaded.includes('NativeModule vm'), 'the report saw the run');
  assert.deepEqual(
    ['NativeModule child_process', 'NativeModule zlib', 'NativeModule worker_threads', 'NativeModule internal/crypto/webcrypto'].filter(
      (m) => loaded.includes(m),
    ),
    [],
  );
});

// Every module reaches the `yaml` library through src/yaml/library.ts or a static import; both
// load it through Node's CommonJS loader, so its cache says whether it was evaluated at all.
// (The bin runs the same code, with the package inlined: the modules' entry stands for it.)
test('a render of the corpus never evaluates the YAML library: first without a lockfile, then with one, then warm (modules)', () => {
  const dir = tempDir('capi-gitops-lazy-yaml-');
  const report = `data:text/javascript,import{createRequire}from'node:module';const r=createRequire(process.argv[1]);process.on('exit',()=>{if(Object.keys(r.cache).some((k)=>k.includes('/node_modules/yaml/')))process.stderr.write('yaml library loaded\\n')})`;
  /** A render's stderr, with the report's line when the library was loaded. */
  const render = (manifest: string, out: string, cache: string): string => {
    const result = spawnSync(
      process.execPath,
      [
        '--import',
        report,
        CLI_ENTRY_POINTS.modules,
        'render',
        '-f',
        manifest,
        '-o',
        path.join(dir, out),
        '--cache-dir',
        path.join(dir, cache),
      ],
      { encoding: 'utf8', env: { ...process.env, CAPI_GITOPS_OUTPUT_CACHE: 'off' } },
    );
    assert.equal(result.status, 0, result.stderr);
    return result.stderr;
  };
  const manifest = writeTempManifest({ 'providers.yaml': corpusManifest('v1.12.0', 'repository') });
  assert.doesNotMatch(render(manifest, 'out-1', 'cache-1'), /yaml library loaded/, 'without a lockfile');
  assert.doesNotMatch(render(manifest, 'out-2', 'cache-2'), /yaml library loaded/, 'with the lockfile');
  assert.doesNotMatch(render(manifest, 'out-3', 'cache-2'), /yaml library loaded/, 'warm (parsed forms cached)');
  // the check sees the library when a run does load it: a manifest the fast parser declines (an anchor)
  const anchored = writeTempManifest({
    'providers.yaml': corpusManifest('v1.12.0', 'repository').replace('kind: CoreProvider', 'kind: &k CoreProvider'),
  });
  assert.match(render(anchored, 'out-anchored', 'cache-1'), /yaml library loaded/);
});
