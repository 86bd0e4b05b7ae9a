import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from './paths.js';

/** The two ways the CLI ships: the package's entry point and the single-file bundle. */
export const CLI_ENTRY_POINTS = {
  package: path.join(PROJECT_ROOT, 'dist', 'src', 'cli', 'main.js'),
  bundle: path.join(PROJECT_ROOT, 'dist', 'capi-gitops.mjs'),
} as const;

/**
 * The CLI under test: the entry point, or the bundle when CAPI_GITOPS_TEST_CLI=bundle (set by
 * test/cli-bundle.test.ts, which runs the CLI test files again against the bundle).
 */
export const CLI = process.env.CAPI_GITOPS_TEST_CLI === 'bundle' ? CLI_ENTRY_POINTS.bundle : CLI_ENTRY_POINTS.package;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion in `cwd`, with extra environment variables. */
export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): CliResult {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd: options.cwd ?? PROJECT_ROOT, env: { ...process.env, ...options.env }, input: options.input, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}
