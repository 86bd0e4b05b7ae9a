/**
 * The flux-substitute strategy: tainted references stay `${...}` for Flux's post-build
 * substitution (kustomize-controller, fluxcd/pkg/envsubst, drone/envsubst's grammar), and every
 * other `$` that Flux would read (`${` and `$$`) is doubled so Flux gives it back unchanged.
 */
import { isPlainObject, type KObject } from '../core/kobject.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { notInSecretData } from './external-secrets.js';
import type { FieldPath, TaintedField } from './taint.js';
import { ownValue, setOwnValue } from '../core/own-keys.js';
import { compareStrings } from '../core/diagnostics.js';
import { shellWord } from '../core/shell.js';
import { kustomizationSecrets, secretPlace, type ReferencedSecret } from './flux-kustomizations.js';
import { ONLY_IF_NOT_A_CREDENTIAL, type VariableLookup, type VariableValue } from '../render/types.js';

export const DEFAULT_SUBSTITUTE_SECRET = 'capi-gitops-variables';
/** kustomize-controller reads this label; only `disabled` turns substitution off. */
export const FLUX_SUBSTITUTE_LABEL = 'kustomize.toolkit.fluxcd.io/substitute';

/** `${` → `$${`, `$$` → `$$$` (the first `$` of each pair doubled): envsubst turns both back. */
function escapeForFlux(text: string): string {
  return text.replace(/\$(?=[${])/g, '$$$$');
}

function escapeDeep(value: unknown): unknown {
  if (typeof value === 'string') return escapeForFlux(value);
  if (Array.isArray(value)) return value.map(escapeDeep);
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [escapeForFlux(k), escapeDeep(v)]));
  return value;
}

function setAt(root: unknown, path: FieldPath, value: string): void {
  let node = root as Record<string | number, unknown>;
  for (const part of path.slice(0, -1)) node = ownValue(node, escapeKey(part)) as Record<string | number, unknown>;
  setOwnValue(node, escapeKey(path[path.length - 1]!), value);
}

function escapeKey(part: string | number): string | number {
  return typeof part === 'string' ? escapeForFlux(part) : part;
}

/** One component's objects for Flux to substitute, and the variables its Secret must hold. */
export function toFluxSubstitution(
  objects: readonly KObject[],
  fields: readonly TaintedField[],
): { objects: KObject[]; variables: string[]; problems: Diagnostic[] } {
  const problems: Diagnostic[] = [];
  const out = objects.map((o) => escapeDeep(o) as KObject);
  const variables = new Set<string>();
  for (const field of fields) {
    if (field.key || field.derived) {
      problems.push(
        notInSecretData(
          field,
          'flux-substitute',
          field.key
            ? 'cannot substitute a map key'
            : 'cannot substitute a value a transform computed from it (declare the variable public, it is read to render)',
        ),
      );
      continue;
    }
    const text = field.pieces.map((p) => (typeof p === 'string' ? escapeForFlux(p) : p.reference)).join('');
    for (const name of field.variables) variables.add(name);
    setAt(out[field.index], field.path, text);
  }
  // Flux skips objects labelled `disabled` (the layout's guard for literal `${`); these are escaped
  for (const obj of out)
    if (JSON.stringify(obj).includes('${')) obj.metadata.labels = { ...(obj.metadata.labels ?? {}), [FLUX_SUBSTITUTE_LABEL]: 'enabled' };
  return { objects: out, variables: [...variables], problems };
}

/**
 * What the user must create for Flux: each Secret the Kustomizations' postBuild.substituteFrom
 * name, in the Kustomization's own namespace (kustomize-controller reads it there: fluxcd/pkg
 * kustomize/kustomize_varsub.go loadVars), a data key per variable, with the kubectl command that
 * creates it. Each value is read from the environment: a value is secret and never printed.
 */
export function substituteSecretWarnings(
  files: ReadonlyMap<string, string>,
  names: readonly string[],
  variables: readonly string[],
): string[] {
  if (variables.length === 0) return [];
  const sorted = [...variables].sort(compareStrings);
  const literals = sorted.map((name) => `--from-literal=${name}="$${name}"`).join(' ');
  const referenced = kustomizationSecrets(files, 'substituteFrom', (spec) => {
    const postBuild = isPlainObject(spec.postBuild) ? spec.postBuild : {};
    const refs = Array.isArray(postBuild.substituteFrom) ? postBuild.substituteFrom : [];
    return refs.flatMap((ref) => (isPlainObject(ref) && ref.kind === 'Secret' && typeof ref.name === 'string' ? [ref.name] : []));
  });
  // a chart of one's own that references no Secret: only the name the strategy chose is known
  const secrets = referenced.length > 0 ? referenced : names.map((name): ReferencedSecret => ({ name, files: [] }));
  return secrets.map((secret) => {
    const { where, namespaceFlag: namespace } = secretPlace(secret);
    const referencedBy = secret.files.length > 0 ? ` (postBuild.substituteFrom in ${secret.files.sort(compareStrings).join(', ')})` : '';
    return (
      `--secrets flux-substitute: Flux substitutes ${sorted.join(', ')} from Secret ${secret.name} ${where}${referencedBy}; ` +
      `create it in the cluster, with ${sorted.length === 1 ? 'that variable' : 'each variable'} set in the environment to its value: ` +
      `kubectl create secret generic ${shellWord(secret.name)}${namespace} ${literals}`
    );
  });
}

/** Who gave a variable Flux substitutes: the first component that took it, and its value. */
export interface SubstitutedVariable {
  label: string;
  value: VariableValue;
}

/**
 * Every Kustomization substitutes from the one Secret, one value per name (fluxcd/pkg
 * kustomize/kustomize_varsub.go loadVars), while the operator renders each provider with its
 * own configSecret: a variable two components take with different values cannot be substituted
 * for both. The values are compared, never told.
 */
export function substitutedValueConflicts(
  seen: Map<string, SubstitutedVariable>,
  label: string,
  variables: readonly string[],
  lookup: VariableLookup | undefined,
  secretName: string,
): Diagnostic[] {
  const problems: Diagnostic[] = [];
  for (const name of variables) {
    const value = lookup?.(name);
    if (!value?.fromSecret) continue;
    const first = seen.get(name);
    if (first === undefined) {
      seen.set(name, { label, value });
      continue;
    }
    if (first.value.value === value.value) continue;
    problems.push({
      ...value.position,
      message:
        `${name}: ${first.label} takes it from ${first.value.origin} and ${label} from ${value.origin}, with different values; ` +
        `Flux substitutes one value per name from Secret ${secretName} for every component`,
      expected: `one value of ${name} for every component Flux substitutes it in`,
      hint:
        `give both the same value, declare it in Config.secrets.public ${ONLY_IF_NOT_A_CREDENTIAL}, ` +
        'or write it in clear text: --secrets inline --allow-secret-values',
    });
  }
  return problems;
}
