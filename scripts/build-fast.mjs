// The fast build, for `npm run example`, `npm pack` and installs from Git: esbuild strips the
// types of src/**/*.ts into dist/src (the same layout tsc writes, in a fraction of its time),
// then the precompile steps run as in `npm run build`. It does not type-check: `npm test` runs
// `tsc --noEmit` before it. `--bundle` also writes the bundled CLIs (scripts/build-bundle.mjs): the
// package's bin, dist/bin/, and the single-file dist/capi-gitops.mjs;
// `--package` (npm pack's prepack) is `--bundle` after emptying dist/src, so a package never
// ships a module that no longer exists, and without source maps (the package has no sources);
// `--tests` (npm test) empties dist, so no test or module whose source is gone runs, and also
// transpiles test/ (a quick loop: node scripts/run-tests.mjs <substring>).
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import fg from 'fast-glob';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = new Set(process.argv.slice(2));
const forPackage = args.has('--package');
if (args.has('--tests')) rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
else if (forPackage) rmSync(new URL('../dist/src', import.meta.url), { recursive: true, force: true });

const entryPoints = (
  await fg(args.has('--tests') ? ['src/**/*.ts', 'test/**/*.ts'] : ['src/**/*.ts'], { cwd: root, ignore: ['**/*.d.ts'] })
).sort();
await esbuild.build({
  absWorkingDir: root,
  entryPoints,
  outdir: 'dist',
  outbase: '.',
  bundle: false,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: !forPackage,
  logLevel: 'warning',
});
// The precompile steps read the modules just written.
await import('./build-validator.mjs');
await import('./build-templates.mjs');
await import('./build-charts.mjs');
if (forPackage || args.has('--bundle')) {
  const { buildBundle } = await import('./build-bundle.mjs');
  await buildBundle();
}
