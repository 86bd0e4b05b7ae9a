// Runs every compiled *.test.js under dist/test with Node's built-in runner.
// (Node 20's directory discovery would also run helpers, so the list is explicit.)
import { spawnSync } from 'node:child_process';
import fg from 'fast-glob';

const files = (await fg('dist/test/**/*.test.js')).sort();
const filter = process.argv.slice(2);
const selected = filter.length ? files.filter((f) => filter.some((p) => f.includes(p))) : files;
if (selected.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
// No test may reach beyond this machine: the HTTP layer refuses non-loopback hosts.
const env = { ...process.env, CAPI_GITOPS_NETWORK: 'loopback' };
const result = spawnSync(process.execPath, ['--test', '--test-reporter=spec', '--test-concurrency=2', ...selected], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
