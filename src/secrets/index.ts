/**
 * The secrets stage: rendered components (real and marked) in, components with every secret
 * placed by the chosen strategy out. It never lays out files: the caller lays out what this
 * returns, then encrypts (sops) and runs the final gate over every byte (app/).
 */
import { isDeepStrictEqual } from 'node:util';
import { CapiGitopsError, compareStrings, groupAlike, type Diagnostic } from '../core/diagnostics.js';
import { describeObject, type KObject } from '../core/kobject.js';
import type { SecretsConfig, SecretStrategy } from '../manifest/types.js';
import { ONLY_IF_NOT_A_CREDENTIAL, type RenderedComponent, type VariableLookup } from '../render/types.js';
import { formatPath, taintedFields, type MarkedComponent, type TaintedField } from './taint.js';
import { isSecret, notInSecretData, toExternalSecrets } from './external-secrets.js';
import { DEFAULT_SUBSTITUTE_SECRET, substitutedValueConflicts, toFluxSubstitution, type SubstitutedVariable } from './flux-substitute.js';
import { scanOutput, type SecretNeedles } from './gate.js';
import { ageRecipientProblem } from './age-recipient.js';
import type { SopsReuse } from './sops.js';

export { readRunSecrets, secretAwareLookup, secretValues, IMAGES_KEY, type GivenSecret, type RunSecrets } from './sources.js';
export { taintMarker, type MarkedComponent, type MarkedText } from './taint.js';
export { substituteSecretWarnings } from './flux-substitute.js';
export { sopsKeySecretWarnings } from './flux-kustomizations.js';
export { chartDrawnSecrets, chartSecretLeaks, chartSecretProblem, drawnSecretNeedles, type DrawnSecret } from './chart-secrets.js';
export { urlCredentials, urlCredentialProblem } from './url-credentials.js';
export { FleetSecrets, secretNeedles, addSecretValues, containsSecret, redactDiagnostic, githubMasks, type SecretNeedles } from './gate.js';

/** An object of a component that holds secret values: the layout names its file. */
interface SecretObjectRef {
  component: RenderedComponent;
  object: KObject;
}

interface SecretsInput {
  strategy: SecretStrategy;
  allowSecretValues: boolean;
  config: SecretsConfig;
  layout: string;
  components: readonly RenderedComponent[];
  /** Marked renders, by component label, of the components whose substitution used a secret. */
  marked: ReadonlyMap<string, MarkedComponent>;
  /** Variables given as not secret that are secret because they land in a Secret's data, with where they were given. */
  landed?: ReadonlyMap<string, string>;
  /** Each component's variables, by label: a refusal points at where the value was given. */
  lookups?: ReadonlyMap<string, VariableLookup>;
  /** Where a field of the Config was written (the closest field that is, for one missing). */
  locateConfig?: (path: readonly (string | number)[]) => Pick<Diagnostic, 'file' | 'line' | 'column'>;
}

/**
 * Strategies whose output does not depend on the secret values, only on where they land: refuse
 * (nothing is written), external-secrets (the store holds them), flux-substitute (Flux
 * substitutes them). `check` and `diff` need no value under them; sops does (an unchanged Secret
 * keeps its bytes only when its values are known), inline writes them.
 */
function keepsValuesOut(strategy: SecretStrategy): boolean {
  return strategy === 'refuse' || strategy === 'external-secrets' || strategy === 'flux-substitute';
}

/** A run's strategy: `--secrets`, else the Config's, else inline with `--allow-secret-values`, else refuse. */
export function secretStrategy(
  run: { secretsStrategy?: SecretStrategy; allowSecretValues?: boolean },
  config?: SecretsConfig,
): SecretStrategy {
  return run.secretsStrategy ?? config?.strategy ?? (run.allowSecretValues ? 'inline' : 'refuse');
}

/** Whether a run asked to render without secret values (`check`, `diff`) may: its strategy keeps them out. */
export function rendersWithoutValues(
  run: Parameters<typeof secretStrategy>[0] & { secretValuesOptional?: boolean },
  config?: SecretsConfig,
): boolean {
  return run.secretValuesOptional === true && keepsValuesOut(secretStrategy(run, config));
}

/** The note for a configSecret Secret a run without secret values does not have. */
export function missingConfigSecretNote(name: string): Pick<Diagnostic, 'message' | 'hint'> {
  return {
    message:
      `Secret ${name} is not in the input: rendered without it, as the secrets strategy keeps secret values out of the output ` +
      '(a public flag or images key it holds is missing from this render)',
    hint:
      'give the file that holds it with another -f here too (as render needs it) when the output depends on a non-secret key of it, ' +
      'or move such keys to Config.variables',
  };
}

/**
 * A configSecret Secret a `check` or `diff` does not have, under a strategy whose output depends
 * on the values (`keepsValuesOut` is false): what CI must give, not how to leave the Secret out.
 */
export function configSecretNeeded(name: string, strategy: SecretStrategy): Pick<Diagnostic, 'message' | 'hint'> {
  const file =
    'give the file that holds the Secret with another -f, as render does (in CI, write it from a CI secret to a file outside the checkout)';
  if (strategy === 'sops')
    return {
      message:
        `Secret ${name} is not in the input, and check and diff under the sops strategy need its values: ` +
        'a SOPS file keeps its bytes only when its plain text and an age key of secrets.sops.ageRecipients are at hand',
      hint:
        `${file}, and an age identity of one of secrets.sops.ageRecipients in SOPS_AGE_KEY (from a CI secret); ` +
        'or choose a strategy whose check needs no values (external-secrets, flux-substitute)',
    };
  return {
    message: `Secret ${name} is not in the input, and check and diff under the ${strategy} strategy need its values: the output holds them`,
    hint: `${file}; or choose a strategy whose check needs no values (external-secrets, flux-substitute)`,
  };
}

export interface SecretsOutput {
  components: RenderedComponent[];
  /** Objects that hold secret values in the output (inline): listed in the README, exempt from the gate. */
  inline: SecretObjectRef[];
  /** Objects the sops strategy encrypts once laid out. */
  encrypt: SecretObjectRef[];
  /** Component label → the in-cluster Secret Flux substitutes its variables from. */
  substituteFrom: Map<string, string>;
  /** The variables Flux substitutes: the keys that Secret must hold (substituteSecretWarnings, once laid out). */
  substituteVariables: string[];
  /** Printed on every run (the Secret Flux needs). */
  warnings: string[];
}

/** The strategies that place a value in a Secret's data, each with what it needs to work. */
const SECRET_DATA_STRATEGIES =
  '--secrets external-secrets (with Config secrets.externalSecrets.secretStoreRef), --secrets sops (with Config secrets.sops.ageRecipients), ' +
  '--layout flux --secrets flux-substitute, or --secrets inline --allow-secret-values';

const LANDED = "a value in a Secret's data is secret wherever it is given)";
/** The way out for values given in plain text (`origins`: where each was, Config.variables, a CAPIProvider's spec.variables, …). */
const landedOut = (origins: readonly string[]) =>
  'keep the value out of Git (--secret-file <file outside Git>, --env-secret NAME, or the spec.configSecret Secret in a -f file Git ignores, ' +
  `not ${[...new Set(origins)].join(' or ')}) and choose a strategy: ${SECRET_DATA_STRATEGIES}; or declare the variable in Config.secrets.public ${ONLY_IF_NOT_A_CREDENTIAL}`;

/** Whether the field is a value of a v1 Secret's data or stringData: the only place external-secrets and sops take. */
function inSecretData(field: TaintedField): boolean {
  const [section, , ...rest] = field.path;
  return isSecret(field.object) && !field.key && (section === 'data' || section === 'stringData') && rest.length === 0;
}

/** Only the ways out that work for this field: outside a Secret's data, external-secrets and sops cannot take it. */
function waysOut(field: TaintedField): string {
  const names = field.variables.join(', ');
  const publicWay = `declare it in Config.secrets.public (secrets: {public: [${names}]} in the Config document) ${ONLY_IF_NOT_A_CREDENTIAL}`;
  if (inSecretData(field)) return `${publicWay}, or choose a strategy: ${SECRET_DATA_STRATEGIES}`;
  // A field computed from the value holds no reference Flux could substitute.
  const flux = field.derived ? '' : ', or with the flux layout leave it to Flux: --layout flux --secrets flux-substitute';
  return `${publicWay}, or write it in clear text: --secrets inline --allow-secret-values${flux}`;
}

/** Where the first of the field's variables that the input locates was given. */
function givenAt(field: TaintedField, lookup: VariableLookup | undefined): Pick<Diagnostic, 'file' | 'line' | 'column'> {
  for (const name of field.variables) {
    const position = lookup?.(name)?.position;
    if (position) return position;
  }
  return {};
}

function refusal(field: TaintedField, landed: ReadonlyMap<string, string> = new Map(), lookup?: VariableLookup): Diagnostic {
  const given = field.variables.filter((name) => landed.has(name));
  const why = given.length > 0 ? ` (${given.map((name) => `${name} from ${landed.get(name)}`).join(', ')}: ${LANDED}` : '';
  return {
    ...givenAt(field, lookup),
    object: describeObject(field.object),
    path: formatPath(field.path),
    message: `would receive the secret value of ${field.variables.join(', ')}${why}`,
    expected: 'no secret value in files committed to Git (Config.secrets.strategy: refuse)',
    hint: given.length > 0 ? landedOut(given.map((name) => landed.get(name)!)) : waysOut(field),
  };
}

/** What a strategy needs whether or not this render has secrets to place. */
function strategyProblems(input: SecretsInput): Diagnostic[] {
  const problem = (path: string, message: string, expected: string, hint: string, fromConfig = true): Diagnostic[] => [
    fromConfig
      ? { ...input.locateConfig?.(['secrets', ...path.split('.')]), object: 'Config.secrets', path, message, expected, hint }
      : { object: '--secrets', message, expected, hint },
  ];
  if (input.strategy === 'flux-substitute' && input.layout !== 'flux') {
    return problem(
      'strategy',
      `the flux-substitute strategy needs the flux layout, and the output layout is ${input.layout}`,
      'Flux Kustomizations that substitute the values (--layout flux)',
      'add --layout flux (or Config output.layout: flux), or choose --secrets external-secrets or --secrets sops',
      // the strategy may come from --secrets: the Config's field only when it chose it, else the flag
      input.config.strategy === input.strategy,
    );
  }
  if (input.strategy === 'sops' && !input.config.sops?.ageRecipients?.length) {
    return problem(
      'sops.ageRecipients',
      'the sops strategy needs at least one age recipient',
      'ageRecipients: [age1…]',
      'add secrets.sops.ageRecipients to the Config document (age-keygen -y <key file> prints the recipient)',
    );
  }
  if (input.strategy === 'sops') return recipientProblems(input.config.sops!.ageRecipients!, input.locateConfig);
  if (input.strategy === 'external-secrets' && !input.config.externalSecrets?.secretStoreRef) {
    return problem(
      'externalSecrets.secretStoreRef',
      'the external-secrets strategy needs the store the secret values are read from',
      'secretStoreRef: {name: <store>, kind: ClusterSecretStore or SecretStore}',
      'add secrets.externalSecrets.secretStoreRef to the Config document',
    );
  }
  return [];
}

/** Recipients age cannot encrypt to: told at their line, before any file is encrypted. */
function recipientProblems(recipients: readonly string[], locate: SecretsInput['locateConfig']): Diagnostic[] {
  return recipients.flatMap((recipient, index) => {
    const problem = ageRecipientProblem(recipient);
    if (problem === undefined) return [];
    return [
      {
        ...locate?.(['secrets', 'sops', 'ageRecipients', index]),
        object: 'Config.secrets',
        path: `sops.ageRecipients[${index}]`,
        message: `is not an age recipient: ${problem}`,
        expected: 'an age recipient (public key), as `age-keygen -y <key file>` prints it',
        hint: 'copy the recipient again from `age-keygen -y <key file>` (or from the key file\'s "# public key:" line)',
      },
    ];
  });
}

/**
 * The final gate: every output file and the lockfile searched for every form of every secret
 * value; `exempt` are the files the inline strategy declared. Throws, naming file and object.
 */
export function finalGate(
  files: ReadonlyMap<string, string>,
  lockfile: { path: string; text: string },
  needles: SecretNeedles,
  exempt: ReadonlySet<string> = new Set(),
): void {
  const scanned = new Map(files);
  scanned.set(lockfile.path, lockfile.text);
  const leaks = scanOutput(scanned, needles, exempt);
  if (leaks.length > 0) throw new CapiGitopsError(leaks);
}

/**
 * One problem per value and way out: the fields one secret reaches (a configSecret that providers
 * sharing a namespace all read) are named in one diagnostic, at the place the value was given.
 */
function oncePerValue(problems: readonly Diagnostic[]): Diagnostic[] {
  const samePlaceAnyField = (d: Diagnostic) => [d.file, d.line, d.column, d.message, d.expected, d.hint];
  return groupAlike(problems, samePlaceAnyField).map(([first, ...more]) => {
    if (more.length === 0) return first!;
    const others = more.map((d) => (d.object === first!.object ? d.path : `${d.object} at ${d.path}`));
    return { ...first!, message: `${first!.message}; also ${others.join(', ')}` };
  });
}

/** The stage's entry: applies the strategy to every field a secret value reached. */
export function placeSecrets(input: SecretsInput): SecretsOutput {
  const problems: Diagnostic[] = strategyProblems(input);
  const out: SecretsOutput = { components: [], inline: [], encrypt: [], substituteFrom: new Map(), substituteVariables: [], warnings: [] };
  const fluxVariables = new Set<string>();
  const fluxValues = new Map<string, SubstitutedVariable>();
  out.components = input.components.map((component) => {
    const marked = input.marked.get(component.label);
    if (!marked) return component;
    const lookup = input.lookups?.get(component.label);
    const fields = taintedFields(component.objects, marked, lookup);
    if (fields.length === 0) return component;
    const holders = () => [...new Set(fields.map((f) => f.index))].map((i) => ({ component, object: component.objects[i]! }));
    switch (input.strategy) {
      case 'refuse':
        problems.push(...fields.map((f) => refusal(f, input.landed, lookup)));
        return component;
      case 'inline': {
        if (!input.allowSecretValues) {
          problems.push(
            ...fields.map((f) => ({
              ...refusal(f, input.landed, lookup),
              expected: 'the inline strategy writes secret values only with --allow-secret-values',
              hint: 'add --allow-secret-values to accept secret values in Git, or choose another strategy',
            })),
          );
        }
        out.inline.push(...holders());
        return component;
      }
      case 'external-secrets': {
        const result = toExternalSecrets(component.objects, fields, input.config);
        problems.push(...result.problems);
        return { ...component, objects: result.objects };
      }
      case 'flux-substitute': {
        const result = toFluxSubstitution(component.objects, fields);
        const secretName = input.config.fluxSubstitute?.secretName ?? DEFAULT_SUBSTITUTE_SECRET;
        problems.push(...result.problems, ...substitutedValueConflicts(fluxValues, component.label, result.variables, lookup, secretName));
        result.variables.forEach((v) => fluxVariables.add(v));
        out.substituteFrom.set(component.label, secretName);
        return { ...component, objects: result.objects };
      }
      case 'sops': {
        for (const field of fields) if (!inSecretData(field)) problems.push(notInSecretData(field, 'sops', 'encrypts only Secret data'));
        out.encrypt.push(...holders());
        return component;
      }
    }
  });
  if (problems.length > 0) throw new CapiGitopsError(oncePerValue(problems));
  for (const [name, origin] of [...(input.landed ?? [])].sort(([a], [b]) => compareStrings(a, b)))
    out.warnings.push(
      `${name} from ${origin} lands in a Secret's data, so it is secret: keep it out of Git (--secret-file, --env-secret, or a configSecret in a -f file Git ignores), or declare it in Config.secrets.public ${ONLY_IF_NOT_A_CREDENTIAL}`,
    );
  out.substituteVariables = [...fluxVariables].sort(compareStrings);
  return out;
}

/** The warning every run with inline secret values prints, naming the files. */
export function inlineFilesWarning(files: readonly string[]): string[] {
  return files.length > 0 ? [`--secrets inline: these files hold secret values and will be committed to Git: ${files.join(', ')}`] : [];
}

/**
 * The sops files a render encrypted, by their path in the output: their plain text, recipients
 * and bytes, and what a new encryption of them can reuse (the data key, each value's encrypted
 * form). A second render of the output in the same run (`diff --base`'s other side) takes them as
 * a render takes the files written before, and needs no age key for it: the same plain text
 * gets the same bytes, a changed value alone new ones.
 */
export type SopsEncryptions = Map<string, { plain: string; recipients: readonly string[]; text: string; reuse: SopsReuse }>;

/**
 * The sops strategy's files, encrypted in place. With the key at hand, an unchanged Secret keeps
 * the bytes the last run wrote (`previous`) instead of a fresh encryption; one this run encrypted
 * before (`encryptions`, by its path below `subdirectory` in the output) keeps those, key or
 * not. Returns a warning when files written before were encrypted again for want of a key:
 * `check` then sees them changed.
 */
export async function encryptFiles(
  files: Map<string, string>,
  paths: readonly string[],
  config: SecretsConfig,
  previous: (file: string) => Promise<string | undefined>,
  encryptions?: SopsEncryptions,
  subdirectory = '',
): Promise<string[]> {
  if (paths.length === 0) return [];
  const recipients = config.sops!.ageRecipients!;
  // loaded only here: age and its curves cost a render that encrypts nothing about 100 ms of start-up
  const { sopsEncryptFile, sopsFileState, sopsIdentities, sopsUserKeyFile } = await import('./sops.js');
  // read only when a file written before is compared: SOPS_AGE_KEY_CMD may prompt, as sops runs it only to decrypt
  let loaded: ReturnType<typeof sopsIdentities> | undefined;
  const identities = () => (loaded ??= sopsIdentities(process.env));
  const sameRecipients = (a: readonly string[]) => isDeepStrictEqual([...a].sort(), [...recipients].sort());
  let reencrypted = 0;
  for (const file of paths) {
    const plain = files.get(file)!;
    const at = subdirectory ? `${subdirectory}/${file}` : file;
    const earlier = encryptions?.get(at);
    let encrypted: { text: string; reuse: SopsReuse };
    if (earlier && sameRecipients(earlier.recipients)) {
      encrypted = earlier.plain === plain ? earlier : await sopsEncryptFile(plain, recipients, earlier.reuse);
    } else {
      const before = await previous(file);
      const { state, reuse } =
        before === undefined ? { state: 'new' } : await sopsFileState(before, plain, recipients, (await identities()).identities);
      if (state === 'unopened') reencrypted++;
      // an opened file keeps its data key and its unchanged values, as `sops edit` keeps them
      encrypted = state === 'holds' ? { text: before!, reuse: reuse! } : await sopsEncryptFile(plain, recipients, reuse);
    }
    files.set(file, encrypted.text);
    encryptions?.set(at, { plain, recipients, text: encrypted.text, reuse: encrypted.reuse });
  }
  if (reencrypted === 0) return [];
  const keyFile = sopsUserKeyFile(process.env) ?? "sops' key file";
  // as sops' "failed to load age identities", with the errors met while loading them
  const { identities: found, failures } = await identities();
  const where = `SOPS_AGE_KEY, SOPS_AGE_KEY_FILE, SOPS_AGE_KEY_CMD or ${keyFile}`;
  return [
    (found.length === 0
      ? `--secrets sops: no age identity in ${where}`
      : `--secrets sops: the age identities in ${where} are not those of secrets.sops.ageRecipients`) +
      (failures.length > 0 ? ` (${failures.join('; ')})` : '') +
      `, so ${reencrypted} Secret file(s) written before ` +
      'were encrypted again with a new data key, unchanged or not (check, and diff against the output directory, see them as changed); set SOPS_AGE_KEY_FILE ' +
      'to the identity of one of secrets.sops.ageRecipients to keep an unchanged Secret byte for byte',
  ];
}
