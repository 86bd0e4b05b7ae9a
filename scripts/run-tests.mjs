// Runs every compiled *.test.js under dist/test with Node's built-in runner.
// (Node 20's directory discovery would also run helpers, so the list is explicit.)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fg from 'fast-glob';

const files = (await fg('dist/test/**/*.test.js')).sort();
const filter = process.argv.slice(2);
const selected = filter.length ? files.filter((f) => filter.some((p) => f.includes(p))) : files;
if (selected.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
// Per-run state: the cache key file lives here, and every `internal error` a CLI run prints is
// also appended to the log, so that one printed by any test (even one expecting failure) fails the suite.
const state = mkdtempSync(path.join(os.tmpdir(), 'capi-gitops-test-state-'));
const internalErrors = path.join(state, 'internal-errors.log');
// No test may reach beyond this machine: the HTTP layer refuses non-loopback hosts.
const env = { ...process.env, CAPI_GITOPS_NETWORK: 'loopback', XDG_STATE_HOME: state, CAPI_GITOPS_INTERNAL_ERROR_LOG: internalErrors };
const result = spawnSync(process.execPath, ['--test', '--test-reporter=spec', '--test-concurrency=2', ...selected], { stdio: 'inherit', env });
let status = result.status ?? 1;
let logged = '';
try {
  logged = readFileSync(internalErrors, 'utf8');
} catch {
  // none
}
if (logged) {
  console.error(`\nFAIL: CLI runs printed an internal error (a stack trace); every input, path and environment must give a clear error:\n${logged}`);
  status = 1;
}
rmSync(state, { recursive: true, force: true });
process.exit(status);
