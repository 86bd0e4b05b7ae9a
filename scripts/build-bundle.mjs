// The single-file CLI: dist/capi-gitops.mjs, runnable with plain `node`, for CI jobs that fetch
// one file. Bundled from the built dist/src (after `npm run build` or scripts/build-fast.mjs), so
// the precompiled templates, charts and validators (*.cjs next to the modules) are inlined.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { writeBuildId } from './build-id.mjs';
import { writeHelpTexts } from './build-help.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

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

// The help table first: the build id and the bundle include it.
writeHelpTexts();
const buildId = writeBuildId();

await esbuild.build({
  absWorkingDir: root,
  entryPoints: ['dist/src/cli/bundle-main.js'],
  outfile: 'dist/capi-gitops.mjs',
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
  // CommonJS dependencies reach for require(), which an ES module does not have.
  // …and some (write-file-atomic) for __filename, which only CommonJS defines.
  banner: {
    js: `#!/usr/bin/env node\n// capi-gitops ${version}, single-file build (scripts/build-bundle.mjs).\nimport { createRequire as __capiGitopsCreateRequire } from 'node:module';\nimport { fileURLToPath as __capiGitopsFileURLToPath } from 'node:url';\nconst require = __capiGitopsCreateRequire(import.meta.url);\nconst __capiGitopsFilename = __capiGitopsFileURLToPath(import.meta.url);`,
  },
  // The output cache's key: this bundle is its own build (the modules it was made from).
  define: { __filename: '__capiGitopsFilename', CAPI_GITOPS_BUILD_ID: JSON.stringify(`bundle-${buildId}`) },
  plugins: [inlineRequires],
});
