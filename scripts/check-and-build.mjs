// npm test's first step: the format check, the lint and the type check, and the build of what the
// tests run, side by side. Each is mostly one thread, so on a 2-core machine running them side by
// side takes the longest one's time instead of the sum (47 s became 29 s). The build is esbuild's
// (scripts/build-fast.mjs, as `npm pack` builds the package) and `tsc` only type-checks: `tsc`
// writing dist/ cost 6 s of CPU more than checking, and esbuild writes it in 2 s. Each one's
// output is printed whole when it ends.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs `npm run <script>` for each script in turn; resolves with the exit code and what they printed. */
function runInTurn(scripts) {
  return scripts.reduce(
    (previous, script) =>
      previous.then((done) => {
        if (done.code !== 0) return done;
        return new Promise((resolve) => {
          const child = spawn(npm, ['run', script], { stdio: ['ignore', 'pipe', 'pipe'] });
          let output = done.output;
          child.stdout.on('data', (chunk) => (output += chunk));
          child.stderr.on('data', (chunk) => (output += chunk));
          child.on('close', (code) => resolve({ code: code ?? 1, output }));
        });
      }),
    Promise.resolve({ code: 0, output: '' }),
  );
}

// as `npm run build` does: nothing in dist/ from a source that is gone
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const results = await Promise.all(
  [runInTurn(['format:check']), runInTurn(['lint', 'typecheck']), runInTurn(['build:tests'])].map((run) =>
    run.then((result) => {
      process.stdout.write(result.output);
      return result.code;
    }),
  ),
);
process.exitCode = results.some((code) => code !== 0) ? 1 : 0;
