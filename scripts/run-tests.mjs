// Runs every compiled *.test.js under dist/test with Node's built-in runner.
// (Node 20's directory discovery would also run helpers, so the list is explicit.)
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import fg from 'fast-glob';

const files = (await fg('dist/test/**/*.test.js')).sort();
const filter = process.argv.slice(2);
const selected = filter.length ? files.filter((f) => filter.some((p) => f.includes(p))) : files;
if (selected.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
// The tests read the real provider artifacts and CRDs in place (test/helpers/paths.ts).
const shared = process.env.CAPI_GITOPS_SHARED ? path.resolve(process.env.CAPI_GITOPS_SHARED) : path.resolve('..', 'shared');
if (!existsSync(path.join(shared, 'corpus', 'repository')) || !existsSync(path.join(shared, 'crds'))) {
  console.error(
    `the tests read the provider corpus and CRDs in ${shared} (corpus/repository and crds/), which is not there: ` +
      'clone this repository beside that directory, or set CAPI_GITOPS_SHARED to it',
  );
  process.exit(1);
}
// Per-run state: the cache key file lives here, and every `internal error` a CLI run prints is
// also appended to the log, so that one printed by any test (even one expecting failure) fails the suite.
const state = mkdtempSync(path.join(os.tmpdir(), 'capi-gitops-test-state-'));
// The cache key of a machine that has run capi-gitops before: a run that has to make its key
// stores no parsed forms (sources/cache.ts), which tests of a fresh state ask for themselves.
mkdirSync(path.join(state, 'capi-gitops'), { mode: 0o700 });
writeFileSync(path.join(state, 'capi-gitops', 'cache-key'), randomBytes(32), { mode: 0o600 });
const internalErrors = path.join(state, 'internal-errors.log');
// Every temporary directory of the run (outputs, lockfiles, caches) and every CLI run's stdout
// and stderr, for the secret sweep after the suite.
const tmpRoot = mkdtempSync(path.join(os.tmpdir(), 'capi-gitops-test-tmp-'));
const outputLog = path.join(state, 'cli-output.log');
// Every Node process of the run (test files, the CLI runs they spawn) checks at exit that no input
// added a property to Object.prototype or Array.prototype (issue 27; dist/test/helpers/prototype-guard.js).
const prototypeLog = path.join(state, 'prototype-changes.log');
const prototypeGuard = pathToFileURL(path.resolve('dist/test/helpers/prototype-guard.js')).href;
// No test may reach beyond this machine: the HTTP layer refuses non-loopback hosts.
// The default cache is the run's own too: on a shared machine ~/.cache is written by other runs.
// NODE_EXTRA_CA_CERTS is left out: no test leaves 127.0.0.1, and with it Node 20 parses the whole
// bundle at every start, about 37 ms in each of the hundreds of Node processes the suite starts
// (docs/performance.md): 217 s of tests became 196 s. A test that needs a CA gives its own.
const { NODE_EXTRA_CA_CERTS: _extraCaCerts, ...inherited } = process.env;
const env = {
  ...inherited,
  CAPI_GITOPS_NETWORK: 'loopback',
  XDG_STATE_HOME: state,
  CAPI_GITOPS_INTERNAL_ERROR_LOG: internalErrors,
  TMPDIR: tmpRoot,
  XDG_CACHE_HOME: path.join(tmpRoot, 'cache-home'),
  CAPI_GITOPS_TEST_OUTPUT_LOG: outputLog,
  CAPI_GITOPS_TEST_PROTOTYPE_LOG: prototypeLog,
  // work test files share, such as a CRD compiled to a validator (test/helpers/run-memo.ts)
  CAPI_GITOPS_TEST_MEMO: path.join(state, 'memo'),
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${prototypeGuard}`.trim(),
};
// Node 20 starts a process for each test file, and each loads the modules again: about 0.45 s of
// CPU, 75 s over 167 files. The files of one directory of dist/test therefore run in one process:
// a file in the run's state directory imports them in turn (a file that cannot be loaded is a
// failing test, and the others still run). 505 s of CPU became 380 s, and 276 s 209 s. Three
// groups run at a time, the longest first: a group waiting on a child process or a server leaves
// a core to another (209 s became 194 s on 2 cores; 2026-11-29).
const LONGEST = ['fleet', 'layout', 'review', 'test', 'hardening', 'yaml', 'cli', 'secrets'];
const groups = new Map();
for (const file of selected) {
  const dir = path.relative('dist/test', path.dirname(file)).split(path.sep).join('-') || 'test';
  groups.set(dir, [...(groups.get(dir) ?? []), file]);
}
const rank = (dir) => (LONGEST.includes(dir) ? LONGEST.indexOf(dir) : LONGEST.length);
const groupFiles = [...groups.keys()]
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
  .map((dir) => {
    const groupFile = path.join(state, 'groups', `${dir}.test.mjs`);
    const imports = groups.get(dir).map((file) => {
      const url = JSON.stringify(pathToFileURL(path.resolve(file)).href);
      return `await import(${url}).catch((err) => test(${JSON.stringify(`${file} loads`)}, () => { throw err; }));`;
    });
    mkdirSync(path.dirname(groupFile), { recursive: true });
    writeFileSync(groupFile, `import { test } from 'node:test';\n${imports.join('\n')}\n`);
    return groupFile;
  });
const result = spawnSync(process.execPath, ['--test', '--test-reporter=spec', '--test-concurrency=3', ...groupFiles], {
  stdio: 'inherit',
  env,
});
let status = result.status ?? 1;
// No secret a test gave capi-gitops may be anywhere it wrote or printed (issue 8).
const { sweepSuiteForSecrets } = await import(pathToFileURL(path.resolve('dist/test/helpers/secret-scan.js')).href);
const leaks = sweepSuiteForSecrets({ tmpRoot, log: outputLog });
if (leaks.length > 0) {
  console.error(`\nFAIL: a secret the tests gave capi-gitops is in what it wrote or printed:\n${leaks.map((l) => `  ${l}`).join('\n')}`);
  status = 1;
}
let logged = '';
try {
  logged = readFileSync(internalErrors, 'utf8');
} catch {
  // none
}
if (logged) {
  console.error(
    `\nFAIL: CLI runs printed an internal error (a stack trace); every input, path and environment must give a clear error:\n${logged}`,
  );
  status = 1;
}
let polluted = '';
try {
  polluted = readFileSync(prototypeLog, 'utf8');
} catch {
  // none
}
if (polluted) {
  console.error(`\nFAIL: a run changed a built-in prototype (a key from input written into Object.prototype):\n${polluted}`);
  status = 1;
}
rmSync(state, { recursive: true, force: true });
rmSync(tmpRoot, { recursive: true, force: true });
process.exit(status);
