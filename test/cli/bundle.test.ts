/**
 * The suite runs the package's bin (the bundle split at the commands, dist/bin/capi-gitops.mjs);
 * the compiled modules' entry (dist/src/cli/main.js) passes the same CLI tests: the CLI test files
 * run again with CAPI_GITOPS_TEST_CLI=modules (test/helpers/cli.ts). The single-file bundle
 * renders the same bytes (test/cli/bin.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { CLI_ENTRY_POINTS } from '../helpers/cli.js';

const CLI_TEST_FILES = ['cli/cli.test.js', 'cli/output.test.js', 'cli/hints.test.js'];

for (const [entry, what] of [['modules', "the compiled modules' entry"]] as const) {
  test(
    `the CLI tests pass against ${what}`,
    { skip: process.env.CAPI_GITOPS_TEST_CLI !== undefined ? `already running against ${process.env.CAPI_GITOPS_TEST_CLI}` : false },
    () => {
      assert.ok(
        existsSync(CLI_ENTRY_POINTS[entry]),
        `${path.relative(PROJECT_ROOT, CLI_ENTRY_POINTS[entry])} is missing: npm run build writes it`,
      );
      const files = CLI_TEST_FILES.map((file) => path.join(PROJECT_ROOT, 'dist', 'test', file));
      const result = spawnSync(process.execPath, ['--test', '--test-reporter=spec', '--test-concurrency=1', ...files], {
        // NODE_TEST_CONTEXT would make the nested runner report to this one instead of printing.
        env: {
          ...Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_TEST_CONTEXT')),
          CAPI_GITOPS_TEST_CLI: entry,
        },
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      assert.equal(result.status, 0, `CLI tests failed against ${what}:\n${result.stdout}\n${result.stderr}`);
      assert.match(result.stdout, /^ℹ pass [1-9]\d*$/m);
      assert.match(result.stdout, /^ℹ fail 0$/m);
    },
  );
}
