// The bundled CLI, made from the built dist/src (after `npm run build` or scripts/build-fast.mjs),
// so the precompiled templates, charts and validators (*.cjs next to the modules) are inlined:
// - dist/bin/capi-gitops.mjs, the package's `bin`: the same bundle split by esbuild at the
//   commands' `import()` (cli/program.ts), so `--help` parses about 106 KB instead of 2.9 MB
//   (figures in DEVELOPERS.md; the goal is 30 ms over `node -e 0`);
// - dist/capi-gitops.mjs, one file a CI job can fetch and run with plain `node`.
import { chmodSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
export const BUNDLE = 'dist/capi-gitops.mjs';
export const BIN_DIR = 'dist/bin';

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
 * CommonJS dependencies reach for require(), which an ES module does not have, and some
 * (write-file-atomic) for __filename, which only CommonJS defines.
 */
const PRELUDE =
  `import { createRequire as __capiGitopsCreateRequire } from 'node:module';\n` +
  `import { fileURLToPath as __capiGitopsFileURLToPath } from 'node:url';\n` +
  `const require = __capiGitopsCreateRequire(import.meta.url);\n` +
  `const __capiGitopsFilename = __capiGitopsFileURLToPath(import.meta.url);`;

const COMMON = {
  absWorkingDir: root,
  entryPoints: { 'capi-gitops': 'dist/src/cli/main.js' },
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  legalComments: 'none',
  // Identifiers are kept, so function names and stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  charset: 'ascii',
  logLevel: 'warning',
  plugins: [inlineRequires],
  banner: { js: `// capi-gitops ${version} (scripts/build-bundle.mjs).\n${PRELUDE}` },
  define: { __filename: '__capiGitopsFilename' },
};

export async function buildBundle() {
  rmSync(path.join(root, BIN_DIR), { recursive: true, force: true });
  await Promise.all([
    esbuild.build({ ...COMMON, outfile: BUNDLE }),
    esbuild.build({ ...COMMON, outdir: BIN_DIR, splitting: true, chunkNames: 'chunks/[name]-[hash]', outExtension: { '.js': '.mjs' } }),
  ]);
  chmodSync(path.join(root, BUNDLE), 0o755);
  chmodSync(path.join(root, BIN_DIR, 'capi-gitops.mjs'), 0o755);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await buildBundle();
