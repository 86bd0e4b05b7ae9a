/**
 * The sections every `--help` ends with: Examples, the environment variables the command
 * reads, and the exit codes. Commands declare theirs with withHelp(); the text is generated
 * here so every command reads alike.
 */
import type { Command } from 'commander';

/** Every environment variable capi-gitops reads, and what for. */
export const ENVIRONMENT = {
  GITHUB_TOKEN: 'GitHub token for release downloads and the API (clusterctl reads the same variable)',
  GH_TOKEN: 'GitHub token when GITHUB_TOKEN is unset (the gh CLI\'s variable)',
  GITLAB_ACCESS_TOKEN: 'GitLab token for package registries, when the configSecret has none',
  GITLAB_TOKEN: 'GitLab token when GITLAB_ACCESS_TOKEN is unset (the glab CLI\'s variable)',
  OCI_USERNAME: 'OCI registry credentials (also OCI_PASSWORD, OCI_ACCESS_TOKEN, OCI_REFRESH_TOKEN), when the configSecret has none',
  XDG_CACHE_HOME: 'the artifact cache is $XDG_CACHE_HOME/capi-gitops (default ~/.cache/capi-gitops; --cache-dir overrides)',
  CI: 'when set, progress is printed as plain lines instead of a live bar',
  CAPI_GITOPS_NETWORK: '"loopback" refuses every host but this machine (the test suite sets it)',
} as const;

export type EnvironmentVariable = keyof typeof ENVIRONMENT;

/** The environment a command that fetches artifacts reads. */
export const SOURCE_ENVIRONMENT: EnvironmentVariable[] = ['GITHUB_TOKEN', 'GH_TOKEN', 'GITLAB_ACCESS_TOKEN', 'GITLAB_TOKEN', 'OCI_USERNAME', 'XDG_CACHE_HOME', 'CI', 'CAPI_GITOPS_NETWORK'];

export const EXIT_CODES: [number, string][] = [
  [0, 'success'],
  [1, 'invalid input, or a render, fetch or check failed (nothing was written)'],
  [2, 'usage error: an unknown command or flag, or a missing argument'],
];

export interface HelpSections {
  /** Complete command lines, runnable as printed; `#` starts an explanation. */
  examples: string[];
  environment?: EnvironmentVariable[];
  exitCodes?: [number, string][];
}

function table(rows: [string, string][]): string {
  const width = Math.max(...rows.map(([key]) => key.length));
  return rows.map(([key, text]) => `  ${key.padEnd(width)}  ${text}`).join('\n');
}

export function helpSections(sections: HelpSections): string {
  const parts = [`Examples:\n${sections.examples.map((line) => `  ${line}`).join('\n')}`];
  const environment = sections.environment ?? [];
  parts.push(`Environment:\n${environment.length ? table(environment.map((name) => [name, ENVIRONMENT[name]])) : '  (none read)'}`);
  parts.push(`Exit codes:\n${table((sections.exitCodes ?? EXIT_CODES).map(([code, text]) => [String(code), text]))}`);
  return `\n${parts.join('\n\n')}\n`;
}

/** Adds the Examples, Environment and Exit codes sections to a command's --help. */
export function withHelp<T extends Command>(command: T, sections: HelpSections): T {
  command.addHelpText('after', helpSections(sections));
  return command;
}
