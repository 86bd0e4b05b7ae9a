/**
 * One component's render, from its release's raw text to finished objects, read top to bottom in
 * clusterctl's order (cmd/clusterctl/client/repository/components.go NewComponents: variables,
 * substitution, parse, then the object filters of ./pipeline.ts) with the operator's step before
 * it (internal/controller/phase_load.go appends spec.additionalManifests to the raw text).
 *
 * What a later stage owns comes in as values: the variables' values (`lookup`, the secrets
 * stage's), whether a text holds a secret value and the taint marks (`SecretWatch`), the parser
 * with the parse cache behind it (`TextParser`). So render/ imports no later stage, and a run
 * (or a fleet of them) batches and shares the work behind those values.
 */
import { CapiGitopsError, compareStrings, type Diagnostic } from '../core/diagnostics.js';
import { describeObject, type KObject } from '../core/kobject.js';
import { artifactDisplayName, type Artifact } from '../core/repository.js';
import type { ConfigMapObject, ImageMeta } from '../manifest/types.js';
import { atProviderField } from '../manifest/field-locator.js';
import { providerObjectName } from '../resolve/preflight.js';
import type { ResolvedCertManager, ResolvedProvider } from '../resolve/resolve.js';
import type { ParseInput } from '../yaml/parse.js';
import {
  ONLY_IF_NOT_A_CREDENTIAL,
  type DerivedField,
  type MarkedRender,
  type RenderedComponent,
  type VariableLookup,
  type VariableValue,
} from './types.js';
import {
  mayHoldSecret,
  NOT_GIVEN_ORIGIN,
  notGivenPublic,
  notGivenSecret,
  secretWhereLanded,
  variablesInSecretData,
  type TaintMarks,
} from './secret-landing.js';
import { appendAdditionalManifests, atAdditionalManifests, literalSecrets, resolveAdditionalManifests } from './additional-manifests.js';
import {
  inspectVariables,
  missingVariablesError,
  substituteVariables,
  type SubstitutionResult,
  type VariableReference,
} from './variables.js';
import { closeGivenNames } from './variable-advice.js';
import { breakingVariables, LIST_VARIABLES_COMMAND, type SubstitutedArtifact } from './variable-breakage.js';
import { deploymentShapeProblems } from './deployment.js';
import { renderCertManagerObjects, renderComponent, type RenderContext, type SecretField } from './pipeline.js';
import { patchedSecretValues, type PatchedSecret } from './patches.js';

/** A text to parse; `keepOutOfCache` when it holds a secret value. */
export type CacheableParseInput = ParseInput & { keepOutOfCache?: boolean };

/**
 * Parses one text (YAML 1.1, aliases refused) into objects. Rejects with a CapiGitopsError of
 * that text's problems, or with a BatchParseError that every text parsed with it receives.
 */
export type TextParser = (input: CacheableParseInput) => Promise<KObject[]>;

/** A problem of a whole parse batch (the run's YAML node budget), not of one text. */
export class BatchParseError extends Error {
  constructor(readonly error: CapiGitopsError) {
    super(error.message);
  }
}

/** The secrets stage's part in a render, lent by the caller. */
interface SecretWatch<M extends TaintMarks> {
  /** Whether a text holds a secret value (it is then kept out of the parse cache). */
  holdsSecret(text: string): boolean;
  /** Fresh marks for `text`, for a second substitution in which each secret-bearing reference is a mark. */
  marks(text: string): M;
}

/** What every component of a run shares: the substitution, the parser, the secrets stage's part. */
export interface RenderRun<M extends TaintMarks> {
  /**
   * clusterctl's Process (a fleet substitutes each distinct text and values once); `textSha256`,
   * when known, spares hashing the text to look it up.
   */
  substitute: (text: string, lookup: VariableLookup, file: string, textSha256?: string) => SubstitutionResult;
  parse: TextParser;
  secrets: SecretWatch<M>;
  /** Renders a component once per distinct input (`key` names every input but the parsed objects). */
  share?: (key: string, objects: KObject[], render: () => RenderedComponent) => RenderedComponent;
}

/** One provider as resolved, with everything its render reads. */
export interface ProviderInput {
  resolved: ResolvedProvider;
  /** The input's ConfigMaps, for spec.additionalManifests. */
  configMaps: readonly ConfigMapObject[];
  /** Each variable's value and where it came from. */
  lookup: VariableLookup;
  /** The variable names given to this provider, for "did you mean" on a missing one. */
  givenVariables: readonly string[];
  imageOverrides: Record<string, ImageMeta>;
  /**
   * A configSecret's `images`, applied before `imageOverrides`, which then apply over the images
   * they wrote (the operator's two passes, see RenderContext.secretImageOverrides).
   */
  secretImageOverrides?: Record<string, ImageMeta>;
  /** The overrides without those from a Secret, when some came from one the output may not hold. */
  imageOverridesWithoutSecrets?: Record<string, ImageMeta>;
  /** Config.images alone, which the operator applies again over the images its customisations set. */
  configImageOverrides?: Record<string, ImageMeta>;
  /** Every input of the render but the objects, when it reads no Secret and may be shared. */
  shareKey?: string;
  /**
   * `check` and `diff` under a strategy that keeps secret values out of the output: a missing
   * variable that lands in a Secret's data takes a placeholder instead of failing the render.
   */
  valuesOptional?: boolean;
  /**
   * With `valuesOptional`: the provider's configSecret is not at hand. A variable the text needs
   * and nothing gives can only be one of its keys (render had it), so it is a secret not given.
   */
  configSecretNotGiven?: boolean;
  /** Config.secrets.public: a variable it names is plain wherever it lands, given or not. */
  publicVariables?: ReadonlySet<string>;
  /** A fleet's cluster: hints name no `render --list-variables`, which refuses a fleet. */
  fleetCluster?: boolean;
  /** Config turtles.noCertManager: a CAPIProvider's components go through WranglerPatcher. */
  turtlesNoCertManager?: boolean;
}

/** What a provider's render produced; `problems` hold every problem it found. */
export interface ProviderRender<M extends TaintMarks> {
  /** The variables the raw text uses (undefined when the render stopped before reading them). */
  variables?: VariableReference[];
  component?: RenderedComponent;
  /** The same render with each secret-bearing reference a mark, when a Secret's value was used. */
  marked?: { objects: KObject[]; marks: M; derived: DerivedField[] };
  /** Fields a Secret's value reached through a filter (image overrides). */
  secretFields: SecretField[];
  /** Variables given as not secret whose values land in a Secret's data, so are secret (./secret-landing.ts). */
  landed?: Map<string, VariableValue>;
  /** Every variable the text substitutes into a Secret's data, given or not: secret wherever it is given. */
  inSecretData?: ReadonlySet<string>;
  /** Secrets of spec.additionalManifests with values written as they are (the rendered object, its keys). */
  literalSecrets?: { object: string; keys: string[] }[];
  /** Secrets that spec.patches or spec.manifestPatches write values into as they are (the rendered object, its keys). */
  patchedSecrets?: PatchedSecret[];
  problems: Diagnostic[];
}

/** The provider's components text as clusterctl receives it: spec.additionalManifests appended (operator phase_load.go). */
export function providerRawYaml(resolved: ResolvedProvider, configMaps: readonly ConfigMapObject[]): string {
  return appendAdditionalManifests(resolved.components.text, resolveAdditionalManifests(resolved.provider, configMaps));
}

/**
 * The rendered Secrets that spec.additionalManifests writes values into as they are. The
 * ConfigMap's own text is parsed, unsubstituted, because in the rendered objects a substituted
 * `${NAME}` cannot be told from a literal; only when it names a Secret (a parse problem of that
 * text is the render's own, told there).
 */
async function additionalLiteralSecrets<M extends TaintMarks>(
  additional: string,
  component: RenderedComponent,
  run: RenderRun<M>,
  source: string,
): Promise<{ object: string; keys: string[] }[] | undefined> {
  if (!mayHoldSecret(additional)) return undefined;
  const written = literalSecrets(await run.parse({ text: additional, source, keepOutOfCache: true }).catch(() => []));
  // by name only: whatever namespace the text names, fixTargetNamespace moved the Secret into the provider's
  const found = written.flatMap((secret) =>
    component.objects
      .filter((o) => o.kind === 'Secret' && o.metadata?.name === secret.name)
      .map((o) => ({ object: describeObject(o), keys: secret.keys })),
  );
  return found.length > 0 ? found : undefined;
}

/** The name parse problems of an artifact carry as their file. */
function parseSourceName(label: string, version: string, artifact: Artifact): string {
  return `${label} ${version} ${artifact.name}`;
}

/** One provider from raw text to finished objects. */
export async function renderProviderComponent<M extends TaintMarks>(input: ProviderInput, run: RenderRun<M>): Promise<ProviderRender<M>> {
  const r = input.resolved;
  const context = renderContext(input, input.imageOverridesWithoutSecrets);
  const outcome: ProviderRender<M> = { secretFields: context.secretFields, problems: [] };
  const artifact = artifactDisplayName(r.components);
  const source = parseSourceName(r.label, r.version, r.components);
  try {
    // 1. Raw YAML: the release's components file, with spec.additionalManifests appended.
    const additional = resolveAdditionalManifests(r.provider, input.configMaps);
    const raw = appendAdditionalManifests(r.components.text, additional);
    // a Secret of the additional manifests may hold a value written as it is, which is secret
    // (refused, or written inline): no text of this render reaches the parse cache then
    const holdsSecret = mayHoldSecret(additional) ? () => true : run.secrets.holdsSecret;
    // 2. Variables (GetVariables): the references the text makes, with their defaults.
    outcome.variables = inspectVariables(raw, artifact);
    // 3. Substitution (Process); a text that received a Secret's value is substituted a second
    //    time with each secret-bearing reference a mark, so the secrets stage can trace it.
    //    A value that lands in a Secret's data is secret whatever gave it (./secret-landing.ts).
    const given =
      input.valuesOptional && input.configSecretNotGiven
        ? withAbsentKeys(input.lookup, outcome.variables, input.publicVariables)
        : input.lookup;
    const first = run.substitute(raw, given, artifact, raw === r.components.text ? r.components.sha256 : undefined);
    const landing = await variablesInSecretData({
      raw,
      artifact,
      source,
      lookup: given,
      substituted: first,
      marks: run.secrets.marks(raw),
      parse: run.parse,
      holdsSecret,
    });
    // a missing variable declared public is plain wherever it lands
    const landed = new Set([...landing].filter((name) => !input.publicVariables?.has(name)));
    outcome.inSecretData = landed;
    const lookup = secretWhereLanded(given, landed, input.valuesOptional);
    const substituted = landed.size > 0 ? run.substitute(raw, lookup, artifact) : first;
    if (substituted.missing.length > 0)
      throw missingVariables(input, substituted.missing, usedBy(input, substituted.missing, artifact, additional), landed);
    outcome.landed = landedValues(substituted, landed);
    const secretUse = secretUseOf(substituted);
    const marks = secretUse ? run.secrets.marks(raw) : undefined;
    const markedText = marks && substituteVariables(raw, lookup, artifact, marks.marker).text;
    // 4. Parse (ToUnstructured). A text that holds a secret value never reaches the parse cache.
    const keepOutOfCache = secretUse !== undefined || holdsSecret(substituted.text);
    // what a parse or shape problem is told against: the variable that broke the text, if one did
    const subject = {
      raw,
      text: substituted.text,
      lookup,
      used: substituted.used,
      source,
      artifact,
      origin: originOf(r),
      fleetCluster: input.fleetCluster,
    };
    const parsed = await parseEach(run, [
      { text: substituted.text, source, keepOutOfCache },
      ...(markedText === undefined ? [] : [{ text: markedText, source, keepOutOfCache: holdsSecret(markedText) }]),
    ]).catch((err: unknown) => {
      const problem = parseProblem(err, subject, secretUse);
      if (!(problem instanceof CapiGitopsError)) throw problem;
      throw new CapiGitopsError(
        problem.diagnostics.map((d) =>
          atAdditionalManifests(d, source, r.components.text, r.provider, input.configMaps, secretUse?.names ?? []),
        ),
      );
    });
    requireKinds(parsed, source);
    const [objects, markedObjects] = [parsed[0]!, parsed[1]];
    const shapes = deploymentShapeProblems(objects);
    if (shapes.length > 0) throw shapeProblem(shapes, subject, secretUse);
    // 5. Objects: every filter of PROVIDER_FILTERS, in clusterctl's order then the operator's.
    try {
      const render = (): RenderedComponent => renderedComponent(r, renderComponent(objects, context));
      outcome.component = input.shareKey !== undefined && !secretUse && run.share ? run.share(input.shareKey, objects, render) : render();
      outcome.literalSecrets = await additionalLiteralSecrets(additional, outcome.component, run, source);
      if (r.provider.spec.patches?.length || r.provider.spec.manifestPatches?.length) {
        const patched = patchedSecretValues(objects, outcome.component.objects);
        if (patched.length > 0) outcome.patchedSecrets = patched;
      }
      if (marks && markedObjects) {
        const marked: MarkedRender = { pattern: marks.pattern, derived: [] };
        outcome.marked = {
          objects: renderMarked(() => renderComponent(markedObjects, { ...renderContext(input), marked }), marks, lookup),
          marks,
          derived: marked.derived,
        };
      }
    } catch (err) {
      // a filter's problem about a field of the provider points at that field in the manifest; one
      // about a rendered object names the artifact it came from
      if (err instanceof CapiGitopsError)
        throw new CapiGitopsError(
          err.diagnostics.map((d) =>
            d.file === undefined ? { ...d, file: source } : atProviderField(d, [r.provider], providerObjectName),
          ),
        );
      throw err;
    }
  } catch (err) {
    if (!(err instanceof CapiGitopsError)) throw err;
    outcome.problems.push(...err.diagnostics);
  }
  return outcome;
}

/**
 * `lookup` with each variable used without a default and given by nothing taken as a key of the
 * absent configSecret: a secret, or a public one when `publicNames` declares it.
 */
function withAbsentKeys(
  lookup: VariableLookup,
  variables: readonly VariableReference[],
  publicNames: ReadonlySet<string> = new Set(),
): VariableLookup {
  const required = new Set(variables.filter((v) => v.default === undefined).map((v) => v.name));
  const absent = (name: string) => (publicNames.has(name) ? notGivenPublic() : notGivenSecret());
  return (name) => lookup(name) ?? (required.has(name) ? absent(name) : undefined);
}

/** What cert-manager's render reads. */
interface CertManagerInput {
  resolved: ResolvedCertManager;
  imageOverrides: Record<string, ImageMeta>;
  /** Every input of the render but the objects, when it may be shared. */
  shareKey?: string;
}

/** cert-manager from its release manifest to finished objects: no variables, no namespace change (clusterctl cert_manager.go). */
export async function renderCertManagerComponent(
  input: CertManagerInput,
  run: RenderRun<TaintMarks>,
): Promise<{ component?: RenderedComponent; problems: Diagnostic[] }> {
  const { resolved } = input;
  const text = resolved.components.text;
  const source = parseSourceName('cert-manager', resolved.version, resolved.components);
  try {
    const parsed = await parseEach(run, [{ text, source, keepOutOfCache: run.secrets.holdsSecret(text) }]).catch((err: unknown) => {
      throw err instanceof BatchParseError ? err.error : err;
    });
    requireKinds(parsed, source);
    const objects = parsed[0]!;
    const render = (): RenderedComponent => {
      const rendered = renderCertManagerObjects(objects, resolved.version, input.imageOverrides);
      return {
        label: resolved.label,
        type: 'CertManager',
        name: 'cert-manager',
        version: resolved.version,
        namespace: rendered.find((o) => o.kind === 'Namespace')?.metadata.name ?? 'cert-manager',
        artifactSha256: resolved.components.sha256,
        objects: rendered,
      };
    };
    return { component: input.shareKey !== undefined && run.share ? run.share(input.shareKey, objects, render) : render(), problems: [] };
  } catch (err) {
    if (!(err instanceof CapiGitopsError)) throw err;
    return { problems: [...err.diagnostics] };
  }
}

/**
 * A parse error as the user should read it: one a variable's value caused names that variable,
 * and one in a text that received a Secret's value never quotes the text (it may quote the value).
 */
function parseProblem(err: unknown, artifact: SubstitutedArtifact, secretUse: SecretUse | undefined): unknown {
  if (err instanceof BatchParseError) return err.error;
  if (!(err instanceof CapiGitopsError)) return err;
  const culprits = breakingVariables(artifact);
  if (culprits.length > 0) return new CapiGitopsError(culprits);
  return secretUse ? withoutSubstitutedText(err, artifact.source, secretUse) : err;
}

/**
 * Deployments the operator could not convert to its type: the variable whose value made a field
 * no string (a value with ": " became a mapping) when one alone did, else each field, in the artifact.
 */
function shapeProblem(shapes: Diagnostic[], artifact: SubstitutedArtifact, secretUse: SecretUse | undefined): CapiGitopsError {
  const culprits = breakingVariables(artifact, (objects) => deploymentShapeProblems(objects).length === 0);
  if (culprits.length > 0) return new CapiGitopsError(culprits);
  return new CapiGitopsError(
    shapes.map((d) => ({
      ...d,
      file: artifact.source,
      hint: secretUse
        ? `check the values of ${secretUse.names.join(', ')} in ${secretUse.origins.join(', ')}`
        : `check ${artifact.artifact} and the values of its variables${artifact.fleetCluster ? '' : ` (${LIST_VARIABLES_COMMAND})`}`,
    })),
  );
}

/** Each text's objects; the problems of every text that failed together (a whole batch's as a BatchParseError). */
async function parseEach(run: RenderRun<TaintMarks>, requests: CacheableParseInput[]): Promise<KObject[][]> {
  const settled = await Promise.allSettled(requests.map((request) => run.parse(request)));
  const failures = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
  if (failures.length === 0) return settled.map((s) => (s as PromiseFulfilledResult<KObject[]>).value);
  const whole = failures.find((f) => f instanceof BatchParseError || !(f instanceof CapiGitopsError));
  if (whole !== undefined) throw whole;
  throw new CapiGitopsError(failures.flatMap((f) => (f as CapiGitopsError).diagnostics));
}

function originOf(r: ResolvedProvider): Pick<Diagnostic, 'object' | 'file' | 'line' | 'column'> {
  const { file, line, column } = r.provider.position;
  return { object: providerObjectName(r.provider), file, line, column };
}

/** Everything the filters read; `withoutSecrets` set makes the image filter record what a Secret's overrides reached. */
function renderContext(input: ProviderInput, withoutSecrets?: Record<string, ImageMeta>): RenderContext {
  const r = input.resolved;
  return {
    kind: r.kind,
    name: r.name,
    label: r.label,
    version: r.version,
    namespace: r.namespace,
    spec: r.provider.spec,
    imageOverrides: input.imageOverrides,
    ...(input.secretImageOverrides !== undefined ? { secretImageOverrides: input.secretImageOverrides } : {}),
    imageOverridesWithoutSecrets: withoutSecrets,
    configImageOverrides: input.configImageOverrides,
    origin: originOf(r),
    ...(r.provider.turtles ? { turtles: r.provider.turtles } : {}),
    ...(r.provider.turtles && input.turtlesNoCertManager ? { turtlesNoCertManager: true } : {}),
    secretFields: [],
  };
}

function renderedComponent(r: ResolvedProvider, objects: KObject[]): RenderedComponent {
  return {
    label: r.label,
    type: r.kind,
    name: r.name,
    version: r.version,
    namespace: r.namespace,
    artifactSha256: r.components.sha256,
    objects,
  };
}

/**
 * What reads the missing variables: the artifact, the spec.additionalManifests ConfigMap appended
 * to it, or both (the error names the text the user has to look at, not always the artifact).
 */
function usedBy(input: ProviderInput, missing: readonly string[], artifact: string, additional: string): string {
  const ref = input.resolved.provider.spec.additionalManifests;
  if (!ref || additional === '') return artifact;
  const reads = (text: string) => new Set(inspectVariables(text).map((v) => v.name));
  const [byArtifact, byAdditional] = [reads(input.resolved.components.text), reads(additional)];
  const configMap = `ConfigMap ${ref.namespace || input.resolved.provider.namespace}/${ref.name} of spec.additionalManifests`;
  return [
    ...(missing.some((name) => byArtifact.has(name)) ? [artifact] : []),
    ...(missing.some((name) => byAdditional.has(name)) ? [configMap] : []),
  ].join(' and ');
}

/** Every missing variable of the text in one error, with the given names close to them and those that land in a Secret's data. */
function missingVariables(input: ProviderInput, missing: string[], readBy: string, landed: ReadonlySet<string>): CapiGitopsError {
  return missingVariablesError(missing, {
    ...originOf(input.resolved),
    provider: providerObjectName(input.resolved.provider),
    artifact: readBy,
    suggestions: closeGivenNames(missing, input.givenVariables),
    inSecretData: missing.filter((name) => landed.has(name)),
  });
}

/** The values given as not secret that became secret by landing in a Secret's data (placeholders are no values). */
function landedValues(substituted: SubstitutionResult, landed: ReadonlySet<string>): Map<string, VariableValue> | undefined {
  const values = [...substituted.used].filter(([name, value]) => landed.has(name) && value.origin !== NOT_GIVEN_ORIGIN);
  return values.length > 0 ? new Map(values) : undefined;
}

/** The secret variables a substitution used, and where their values came from. */
interface SecretUse {
  names: string[];
  origins: string[];
}

function secretUseOf(result: SubstitutionResult): SecretUse | undefined {
  const secret = [...result.used].filter(([, v]) => v.fromSecret);
  if (secret.length === 0) return undefined;
  return { names: secret.map(([name]) => name), origins: [...new Set(secret.map(([, v]) => v.origin))].sort(compareStrings) };
}

/**
 * apimachinery refuses an object without apiVersion or kind ("Object 'Kind' is missing"); the filters read both.
 * A List (`kind: List`, or `<Kind>List` with top-level `items`) is refused too: clusterctl's
 * util/yaml ToUnstructured keeps it one object, fixTargetNamespace and addCommonLabels change it and
 * not its items, and the apply fails, as the API server has no List resource. Written out,
 * kustomize would expand it, with its items in the namespaces they name.
 */
function requireKinds(parsed: readonly KObject[][], source: string): void {
  const problems: Diagnostic[] = [];
  for (const objects of parsed)
    objects.forEach((o, index) => {
      if (typeof o.apiVersion !== 'string' || !o.apiVersion || typeof o.kind !== 'string' || !o.kind) {
        problems.push({
          file: source,
          message: `object ${index + 1} has no ${typeof o.kind !== 'string' || !o.kind ? 'kind' : 'apiVersion'}`,
          expected: 'Kubernetes objects, each with apiVersion, kind and metadata',
          hint: 'check that the artifact is a provider components file',
        });
      } else if (o.kind.endsWith('List') && Array.isArray(o.items)) {
        problems.push({
          file: source,
          message: `object ${index + 1} is a List (kind ${o.kind}), not an object clusterctl can install`,
          expected: 'one Kubernetes object per YAML document',
          hint:
            'write each item of the List as a YAML document of its own (separated by `---`) in the artifact, ' +
            'or in the spec.additionalManifests ConfigMap when the List comes from there',
        });
      }
    });
  if (problems.length > 0) throw new CapiGitopsError(problems);
}

/**
 * A YAML error in an artifact that received secret values may quote them: it names the
 * variables and their Secrets instead, keeping line and column.
 */
function withoutSubstitutedText(err: CapiGitopsError, source: string, used: SecretUse): CapiGitopsError {
  return new CapiGitopsError(
    err.diagnostics.map((d) =>
      d.file !== source
        ? d
        : {
            file: d.file,
            line: d.line,
            column: d.column,
            message: `the artifact is not valid YAML after the secret values of ${used.names.join(', ')} were substituted; the parser's message is not shown, as it may quote them`,
            expected: 'values that keep the YAML valid (a value with line breaks or YAML syntax needs a quoted reference)',
            hint: `check the values of ${used.names.join(', ')} in ${used.origins.join(', ')}`,
          },
    ),
  );
}

/** The marked render fails only where a transform reads a secret: say which reference, and where its value was given. */
function renderMarked(render: () => KObject[], marked: TaintMarks, lookup: VariableLookup): KObject[] {
  try {
    return render();
  } catch (err) {
    if (!(err instanceof CapiGitopsError)) throw err;
    const unmark = (text: string | undefined) => text?.replace(marked.pattern, (_, i: string) => marked.marks[Number(i)]!.reference);
    throw new CapiGitopsError(
      err.diagnostics.map((d) => {
        const read = [`${d.message} ${d.path ?? ''} ${d.object ?? ''}`.matchAll(marked.pattern)].flatMap((m) =>
          [...m].flatMap(([, i]) => marked.marks[Number(i)]!.variables),
        );
        const names = [...new Set(read.length > 0 ? read : marked.marks.flatMap((m) => m.variables))].sort(compareStrings);
        const given = names.map((name) => lookup(name)?.position).find((p) => p !== undefined);
        return {
          ...d,
          ...(d.file === undefined ? given : {}),
          message: `with secret values tracked: ${unmark(d.message)}`,
          path: unmark(d.path),
          object: unmark(d.object),
          hint: `a transform (patch target, image, name) reads the secret value of ${names.join(', ')}: declare it in Config.secrets.public ${ONLY_IF_NOT_A_CREDENTIAL}`,
        };
      }),
    );
  }
}
