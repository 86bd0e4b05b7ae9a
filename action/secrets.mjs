/**
 * The Action's `secrets` input: one variable a line, `NAME=value` (the value is the rest of the
 * line, as written: no quotes needed or removed), or `NAME` alone to take the value from the
 * environment (the step's `env:`, for a value that spans lines). Each becomes `--env-secret NAME`
 * with the value in the CLI's environment, never on its command line, and is masked in the log
 * first.
 */
export class SecretsInputError extends Error {}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/*
 * Names of the environment capi-gitops (Node, Git, the runner's toolkit, this Action) runs in, compared
 * upper-cased: a secret of that name would replace it in the CLI's environment (PATH, NODE_OPTIONS,
 * GITHUB_STEP_SUMMARY), so it is refused, not passed.
 */
const RESERVED_NAMES = new Set([
  'PATH',
  'HOME',
  'USER',
  'SHELL',
  'PWD',
  'TMPDIR',
  'TMP',
  'TEMP',
  'LANG',
  'TZ',
  'CI',
  'APPDATA',
  'NO_COLOR',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'DOCKER_CONFIG',
  'MANIFEST',
  'OUTPUT',
  'ARGS',
  'SECRETS',
  'BASE_SHA',
  'ACTION_PATH',
]);
const RESERVED_PREFIXES = [
  'NODE_',
  'NPM_CONFIG_',
  'GITHUB_',
  'RUNNER_',
  'ACTIONS_',
  'GIT_',
  'LD_',
  'DYLD_',
  'XDG_',
  'LC_',
  'CAPI_GITOPS_',
  'SOPS_',
];

/** Whether a secret named `name` would replace the environment the CLI runs in. */
export function isReservedName(name) {
  const upper = name.toUpperCase();
  return RESERVED_NAMES.has(upper) || RESERVED_PREFIXES.some((prefix) => upper.startsWith(prefix));
}

/** The runner masks line by line; lines this short would blank out ordinary words in the log. */
const MINIMUM_MASKED_LENGTH = 4;

/*
 * Values too common to be credentials, as the CLI decides (src/secrets/gate.ts isScannableSecret;
 * a test holds the two equal): YAML's booleans and null, and numbers of fewer than 8 characters.
 * A mask replaces every occurrence in the whole job log, so a feature flag's `true` would star out
 * every `true` the run prints (`served: true`, the diff), and hide nothing anyone could not guess.
 */
const COMMON_WORD = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|~)$/;
const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/** Whether masking `text` hides a secret: long enough and not a common value. */
export function isMaskable(text) {
  return text.length >= MINIMUM_MASKED_LENGTH && !COMMON_WORD.test(text) && !(text.length < 8 && NUMBER.test(text));
}

/** actions/toolkit packages/core/src/command.ts escapeData: a workflow command's data. */
export function escapeData(text) {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/**
 * `{ variables: Map<name, value>, problems: string[] }`; a problem names the line and the
 * variable, never the value.
 */
export function parseSecrets(text, env) {
  const variables = new Map();
  const problems = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    const equals = line.indexOf('=');
    const name = (equals < 0 ? line : line.slice(0, equals)).trim();
    if (!NAME.test(name)) {
      problems.push(
        `secrets, line ${index + 1}: expected NAME=value or NAME (letters, digits and _, not starting with a digit); the line is not shown`,
      );
      return;
    }
    if (isReservedName(name)) {
      problems.push(
        `secrets, line ${index + 1}: ${name} would replace the environment capi-gitops runs in (PATH, HOME, NODE_*, GITHUB_*, RUNNER_* and the like); ` +
          "the value is not shown; give the variable another name, as the provider's components spell it " +
          "(a setting read by capi-gitops itself, such as SOPS_AGE_KEY, goes in the step's env: instead)",
      );
      return;
    }
    if (equals >= 0 && env[name] !== undefined && env[name] !== line.slice(equals + 1)) {
      problems.push(
        `secrets, line ${index + 1}: ${name} is already in the step's environment with another value; the value is not shown; ` +
          `write ${name} alone to take it from there, or remove it from the step's env:`,
      );
      return;
    }
    if (equals >= 0) variables.set(name, line.slice(equals + 1));
    else if (env[name] !== undefined) variables.set(name, env[name]);
    else problems.push(`secrets, line ${index + 1}: ${name} is not in the environment; set it in the step's env: or write ${name}=value`);
  });
  return { variables, problems };
}

/**
 * Lines of a multi-line value that carry no secret (an INI section, a comment, PEM armour), also in
 * form encoding (`+` for a space), as the CLI decides (src/secrets/gate.ts isStructureLine; a test
 * holds the two equal): masked, `[default]` would be starred all over the log.
 */
const STRUCTURE_LINE = /^\s*(\[[^\]]*\]|[#;].*|-----(BEGIN|END) [A-Z0-9 ]+-----)\s*$/;

/** Whether a line of a multi-line value is structure only. */
export function isStructureLine(line) {
  return STRUCTURE_LINE.test(line) || STRUCTURE_LINE.test(line.replace(/\+/g, ' '));
}
/** An INI or dotenv line's value (`aws_secret_access_key = …`): masked on its own too. */
const ASSIGNED_VALUE = /^\s*[\w.-]+\s*=\s*(.*?)\s*$/;

/**
 * `::add-mask::` for each value, and for each line of a value that spans lines (the runner matches
 * within a line), and each such line's assigned value; lines of structure alone are not masked.
 */
export function maskCommands(variables) {
  const masks = new Set();
  const add = (text) => isMaskable(text) && masks.add(text);
  for (const value of variables.values()) {
    add(value);
    const lines = value.split(/\r?\n/);
    if (lines.length === 1) continue;
    for (const line of lines) {
      if (isStructureLine(line)) continue;
      add(line);
      const assigned = ASSIGNED_VALUE.exec(line)?.[1];
      if (assigned) add(assigned);
    }
  }
  return [...masks].map((value) => `::add-mask::${escapeData(value)}`);
}
