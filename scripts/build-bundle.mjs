// The bundled CLIs, made from the built dist/src (after `npm run build` or scripts/build-fast.mjs),
// so the precompiled templates, charts and validators (*.cjs next to the modules) are inlined:
// - dist/cli/capi-gitops.mjs, the package's `bin`: a small entry (src/cli/bin-main.ts) whose
//   chunks in dist/cli/chunks/ answer `--help` and `--version`, and the command bundle
//   dist/cli/chunks/capi-gitops-commands.cjs (src/cli/entry.ts and all it imports), which the
//   entry runs through V8's code cache (src/cli/code-cache.ts). The bundle is CommonJS because
//   Node 20 caches no ES module's bytecode; every lazy `import()` of the sources stays a boundary
//   there too (esbuild evaluates such a module on first use). dist/cli-meta.json (esbuild's
//   metafiles, not shipped) says which modules each file holds;
// - dist/capi-gitops.mjs, the single-file CLI, runnable with plain `node`, for CI jobs that fetch
//   one file.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { writeBuildId } from './build-id.mjs';
import { writeHelpTexts } from './build-help.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** The package's bin: this folder is emptied and written by every build. */
const BIN_DIR = 'dist/cli';
const BIN_ENTRY = 'capi-gitops';
/** The bin's command bundle (src/cli/bin-main.ts names it too). */
const COMMAND_BUNDLE = `${BIN_DIR}/chunks/capi-gitops-commands.cjs`;

/**
 * The modules load their precompiled .cjs files, the manifest schema and CommonJS packages with
 * `createRequire(import.meta.url)`, which a bundler cannot follow. Here that require becomes the
 * bundler's own `require`, so those files are resolved at build time and inlined.
 */
const inlineRequires = {
  name: 'inline-create-require',
  setup(build) {
    build.onLoad({ filter: /[\\/]dist[\\/]src[\\/].*\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('createRequire(import.meta.url)')) return undefined;
      // tsc keeps `const require = …`; esbuild's transpile renames the binding (require2).
      let contents = source;
      for (const [declaration, name] of source.matchAll(/const (\w+) = createRequire\(import\.meta\.url\);/g)) {
        contents = contents.replace(declaration, '').replace(new RegExp(`\\b${name}\\(`, 'g'), 'require(');
      }
      contents = contents.replace(/createRequire\(import\.meta\.url\)/g, 'require');
      return { contents, loader: 'js' };
    });
  },
};

/**
 * In the ES module builds, a Node built-in is reached through require() (the PRELUDE's), not
 * imported: Node's ES module wrapper of a built-in reads every export when it is imported, and
 * node:crypto's include webcrypto, which that loads (11 ms of every run of the bin's entry).
 */
const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(build) {
    const names = builtinModules.map((name) => name.replace(/[/.]/g, (c) => `\\${c}`)).join('|');
    build.onResolve({ filter: new RegExp(`^(node:)?(${names})$`) }, (args) =>
      // the require() in the module below is Node's own
      args.namespace === 'builtin-require' ? { path: args.path, external: true } : { path: args.path, namespace: 'builtin-require' },
    );
    build.onLoad({ filter: /.*/, namespace: 'builtin-require' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/**
 * commander requires node:child_process when it loads, for executable subcommands, which this CLI
 * does not have: 7.5 ms of every command. It is required when first used instead.
 */
const lazyCommanderChildProcess = {
  name: 'lazy-commander-child-process',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const eager = "const childProcess = require('node:child_process');";
      if (source.split(eager).length !== 2) throw new Error(`commander's command.js no longer starts with ${eager}`);
      const lazy = "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";
      return { contents: source.replace(eager, lazy), loader: 'js' };
    });
  },
};

/**
 * CommonJS dependencies reach for require(), which an ES module does not have, and some
 * (write-file-atomic) for __filename, which only CommonJS defines. In every output file.
 */
const PRELUDE =
  `import { createRequire as __capiGitopsCreateRequire } from 'node:module';\n` +
  `import { fileURLToPath as __capiGitopsFileURLToPath } from 'node:url';\n` +
  `const require = __capiGitopsCreateRequire(import.meta.url);\n` +
  `const __capiGitopsFilename = __capiGitopsFileURLToPath(import.meta.url);`;

const COMMON = {
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  legalComments: 'none',
  // Start-up parses the whole file: without comments and spaces it is 30% smaller, and pure
  // ASCII (a comment with one non-ASCII character makes V8 decode and hold the source as UTF-16).
  // Identifiers are kept, so function names and stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  charset: 'ascii',
  logLevel: 'warning',
  plugins: [inlineRequires, lazyCommanderChildProcess],
};

/**
 * The single-file CLI. Its build id (the output cache's key) is the sha256 of the file itself,
 * written with a placeholder where the id goes, as for the bin: the dependencies it inlines from
 * node_modules are part of the id, so a rebuild after `npm update` never serves the old entries.
 */
async function buildSingleFile() {
  const placeholder = `capi-gitops-bundle-build-id-${'0'.repeat(64)}`;
  const result = await esbuild.build({
    ...COMMON,
    entryPoints: ['dist/src/cli/bundle-main.js'],
    plugins: [builtinsByRequire, ...COMMON.plugins],
    outfile: 'dist/capi-gitops.mjs',
    banner: { js: `#!/usr/bin/env node\n// capi-gitops ${version}, single-file build (scripts/build-bundle.mjs).\n${PRELUDE}` },
    define: { __filename: '__capiGitopsFilename', CAPI_GITOPS_BUILD_ID: JSON.stringify(placeholder) },
    write: false,
  });
  const [file] = result.outputFiles;
  if (result.outputFiles.length !== 1 || file.text.split(placeholder).length !== 2) {
    throw new Error('the single-file bundle must be one file holding its build id placeholder once');
  }
  const buildId = `bundle-${createHash('sha256').update(file.text).digest('hex')}`;
  writeFileSync(file.path, file.text.replace(placeholder, buildId));
}

/**
 * The package's bin. Its build id (the output cache's key) is the sha256 of the files themselves,
 * written with a placeholder where the id goes: so it covers every byte that runs, the
 * dependencies inlined from node_modules too.
 */
async function buildSplit() {
  const placeholder = `capi-gitops-bin-build-id-${'0'.repeat(64)}`;
  const [result, commands] = await Promise.all([
    esbuild.build({
      ...COMMON,
      entryPoints: { [BIN_ENTRY]: 'dist/src/cli/bin-main.js' },
      plugins: [builtinsByRequire, ...COMMON.plugins],
      outdir: BIN_DIR,
      splitting: true,
      chunkNames: 'chunks/[name]-[hash]',
      outExtension: { '.js': '.mjs' },
      banner: { js: `// capi-gitops ${version}, the package's bin (scripts/build-bundle.mjs).\n${PRELUDE}` },
      define: { __filename: '__capiGitopsFilename', CAPI_GITOPS_BUILD_ID: JSON.stringify(placeholder) },
      metafile: true,
      write: false,
    }),
    // The command bundle: code-cache.ts wraps it in CommonJS's parameters and the modules' import.meta.url.
    esbuild.build({
      ...COMMON,
      entryPoints: ['dist/src/cli/entry.js'],
      format: 'cjs',
      outfile: COMMAND_BUNDLE,
      banner: { js: `// capi-gitops ${version}, the bin's command bundle (scripts/build-bundle.mjs), run by src/cli/code-cache.ts.` },
      define: { 'import.meta.url': '__capiGitopsImportMetaUrl', CAPI_GITOPS_BUILD_ID: JSON.stringify(placeholder) },
      metafile: true,
      write: false,
    }),
  ]);
  // code-cache.ts reads the command bundle as latin1, which is exact for ASCII only.
  if (/[^\x00-\x7f]/.test(commands.outputFiles[0].text)) throw new Error('the command bundle must be ASCII');
  const entry = path.join(root, BIN_DIR, `${BIN_ENTRY}.mjs`);
  const files = [...result.outputFiles, ...commands.outputFiles]
    .map((file) => ({ path: file.path, text: file.path === entry ? `#!/usr/bin/env node\n${file.text}` : file.text }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${path.relative(root, file.path)}\0${Buffer.byteLength(file.text)}\0`).update(file.text);
  const buildId = `bin-${hash.digest('hex')}`;
  // The command bundle keys the output cache with it, the entry names code cache entries with it.
  const holders = files.filter((file) => file.text.includes(placeholder));
  if (holders.length !== 2 || holders.some((file) => file.text.split(placeholder).length !== 2)) {
    throw new Error(`the bin's build id placeholder is in ${holders.map((f) => f.path).join(', ')}, expected once in each of two`);
  }
  rmSync(path.join(root, BIN_DIR), { recursive: true, force: true });
  for (const file of files) {
    mkdirSync(path.dirname(file.path), { recursive: true });
    writeFileSync(file.path, holders.includes(file) ? file.text.replace(placeholder, buildId) : file.text);
  }
  chmodSync(entry, 0o755);
  const metafile = {
    inputs: { ...result.metafile.inputs, ...commands.metafile.inputs },
    outputs: { ...result.metafile.outputs, ...commands.metafile.outputs },
  };
  writeFileSync(path.join(root, 'dist', 'cli-meta.json'), JSON.stringify(metafile, null, 1));
}

/**
 * Writes the help table (first: the build id and the bundles include it), the build id and the
 * bundles; `singleFile: false` leaves out dist/capi-gitops.mjs (`npm run example` needs the bin only).
 */
export async function buildBundles({ singleFile = true } = {}) {
  writeHelpTexts();
  writeBuildId();
  await Promise.all([singleFile ? buildSingleFile() : undefined, buildSplit()]);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await buildBundles();
