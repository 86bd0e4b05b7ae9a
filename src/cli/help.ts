/**
 * The sections every `--help` ends with: Examples, the environment variables the command
 * reads, and the exit codes. Commands declare theirs with withHelp(); the text is generated
 * here so every command reads alike.
 */
import type { Command } from 'commander';

/** Every environment variable capi-gitops reads, and what for. */
export const ENVIRONMENT = {
  GITHUB_TOKEN: 'GitHub token for release downloads and the API (clusterctl reads the same variable)',
  GH_TOKEN: "GitHub token when GITHUB_TOKEN is unset (the gh CLI's variable)",
  GITLAB_ACCESS_TOKEN: 'GitLab token for package registries, when the configSecret has none (gitlab.com and CAPI_GITOPS_GITLAB_HOSTS only)',
  GITLAB_TOKEN: "GitLab token when GITLAB_ACCESS_TOKEN is unset (the glab CLI's variable)",
  OCI_USERNAME:
    'OCI registry credentials (also OCI_PASSWORD, OCI_ACCESS_TOKEN, OCI_REFRESH_TOKEN), when the configSecret has none, for CAPI_GITOPS_OCI_REGISTRIES only',
  CAPI_GITOPS_OCI_REGISTRIES: 'registries (host[:port], comma-separated) the runner trusts with the OCI_* credentials of the environment',
  CAPI_GITOPS_GITLAB_HOSTS:
    'GitLab hosts besides gitlab.com (comma-separated): read as GitLab whatever their names, and trusted with GITLAB_ACCESS_TOKEN or GITLAB_TOKEN',
  XDG_CACHE_HOME: 'the artifact cache is $XDG_CACHE_HOME/capi-gitops (default ~/.cache/capi-gitops; --cache-dir overrides)',
  CI: 'when set, progress is printed as plain lines instead of a live bar',
  CAPI_GITOPS_NETWORK: '"loopback" refuses every host but this machine (the test suite sets it)',
  CAPI_GITOPS_NETWORK_DEADLINE:
    'seconds all network requests of a run may take together, retries included (default 900; --network-deadline)',
  DOCKER_CONFIG: 'image pinning reads registry credentials from $DOCKER_CONFIG/config.json (default ~/.docker/config.json)',
  NO_COLOR: 'diff --format text without colour',
  TMPDIR: "where diff keeps a fleet's render (about the size of its output) and --base's revision, removed at the end of the run",
  GITHUB_API_URL:
    'a GitHub Enterprise API root the runner trusts: the token goes to a host other than api.github.com only when named here or by --github-api-url',
  CAPI_GITOPS_HTTPS_AUTHORIZATION:
    'Authorization header for plain-HTTPS repositories, sent only to the host in CAPI_GITOPS_HTTPS_AUTHORIZATION_HOST',
  CAPI_GITOPS_CACHE_KEY: 'the key cache records are signed with (default: a key kept in $XDG_STATE_HOME/capi-gitops/cache-key)',
  XDG_STATE_HOME: 'where the cache key is kept (default ~/.local/state)',
  CAPI_GITOPS_YAML_MAX_NODES: 'YAML bounds (also CAPI_GITOPS_YAML_MAX_DEPTH and CAPI_GITOPS_YAML_MAX_NODES_PER_RUN); see docs/security.md',
  SOPS_AGE_KEY:
    "an age identity (or SOPS_AGE_KEY_FILE, or SOPS_AGE_KEY_CMD: a command printing them) with which the sops strategy keeps an unchanged Secret's bytes",
  GITHUB_ACTIONS: 'when "true", secret values are masked with ::add-mask:: and findings are printed as annotations',
  GITHUB_STEP_SUMMARY: 'diff appends its markdown to this file (set by GitHub Actions)',
} as const;

export type EnvironmentVariable = keyof typeof ENVIRONMENT;

/** The environment a command that fetches artifacts reads. */
export const SOURCE_ENVIRONMENT: EnvironmentVariable[] = [
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'GITHUB_API_URL',
  'GITLAB_ACCESS_TOKEN',
  'GITLAB_TOKEN',
  'CAPI_GITOPS_GITLAB_HOSTS',
  'OCI_USERNAME',
  'CAPI_GITOPS_OCI_REGISTRIES',
  'CAPI_GITOPS_HTTPS_AUTHORIZATION',
  'XDG_CACHE_HOME',
  'CAPI_GITOPS_CACHE_KEY',
  'XDG_STATE_HOME',
  'CAPI_GITOPS_YAML_MAX_NODES',
  'CI',
  'CAPI_GITOPS_NETWORK',
  'CAPI_GITOPS_NETWORK_DEADLINE',
];

/** What render, check and diff read besides the sources' environment. */
export const RENDER_ENVIRONMENT: EnvironmentVariable[] = [...SOURCE_ENVIRONMENT, 'DOCKER_CONFIG', 'SOPS_AGE_KEY', 'GITHUB_ACTIONS'];

const EXIT_CODES: [number, string][] = [
  [0, 'success'],
  [1, 'invalid input, or a render, fetch or check failed (nothing was written)'],
  [2, 'usage error: an unknown command or flag, or a missing argument'],
];

interface HelpSections {
  /** Complete command lines, runnable as printed; `#` starts an explanation. */
  examples: string[];
  environment?: EnvironmentVariable[];
}

function table(rows: [string, string][]): string {
  const width = Math.max(...rows.map(([key]) => key.length));
  return rows.map(([key, text]) => `  ${key.padEnd(width)}  ${text}`).join('\n');
}

function helpSections(sections: HelpSections): string {
  const parts = [`Examples:\n${sections.examples.map((line) => `  ${line}`).join('\n')}`];
  const environment = sections.environment ?? [];
  parts.push(`Environment:\n${environment.length ? table(environment.map((name) => [name, ENVIRONMENT[name]])) : '  (none read)'}`);
  parts.push(`Exit codes:\n${table(EXIT_CODES.map(([code, text]) => [String(code), text]))}`);
  return `\n${parts.join('\n\n')}\n`;
}

/** Adds the Examples, Environment and Exit codes sections to a command's --help. */
export function withHelp<T extends Command>(command: T, sections: HelpSections): T {
  command.addHelpText('after', helpSections(sections));
  return command;
}
