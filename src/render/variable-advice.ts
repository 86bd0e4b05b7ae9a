/**
 * Advice about variables that needs the whole management cluster in view: names given (in
 * Config.variables or a configSecret) that no component uses, with the used name they most
 * likely meant, and for a missing variable, the given names close to it.
 */
import { compareStrings, type Diagnostic } from '../core/diagnostics.js';
import { closestName } from '../manifest/fields.js';
import type { SourcePosition } from '../manifest/types.js';

/** configSecret keys that are not variables: clusterctl's images map and fetch credentials. */
const NOT_VARIABLES = new Set([
  'images',
  'github-token',
  'gitlab-access-token',
  'OCI_USERNAME',
  'OCI_PASSWORD',
  'OCI_ACCESS_TOKEN',
  'OCI_REFRESH_TOKEN',
]);

export interface GivenVariables {
  /** Where they were given, e.g. `Config.variables` or `Secret capi-system/capi-variables`. */
  origin: string;
  position?: SourcePosition;
  /** Where one name was given, when known (a Config variable's own line). */
  locate?: (name: string) => SourcePosition | undefined;
  /** The field path shown, e.g. `variables` or `stringData`. */
  path?: string;
  names: readonly string[];
  /** The variable names used by the components these values reach. */
  used: ReadonlySet<string>;
}

/** A warning per given name that no component it reaches uses, with "did you mean" when one is close. */
export function unusedVariableWarnings(given: readonly GivenVariables[]): Diagnostic[] {
  const warnings: Diagnostic[] = [];
  for (const set of given) {
    const used = [...set.used].sort(compareStrings);
    for (const name of [...set.names].sort(compareStrings)) {
      if (set.used.has(name) || NOT_VARIABLES.has(name)) continue;
      const close = closestName(name, used);
      const own = set.locate?.(name);
      warnings.push({
        ...(own ?? set.position),
        object: set.origin,
        path: own && set.path ? `${set.path}.${name}` : set.path,
        message: `variable ${name} is not used by any component${close ? `; did you mean ${close}?` : ''}`,
        hint: close ? `rename ${name} to ${close}` : 'remove it, or check the name against `capi-gitops render -f … --list-variables`',
      });
    }
  }
  return warnings;
}

/** Given names close to a missing one, for its error's hint. */
export function closeGivenNames(missing: readonly string[], given: readonly string[]): string[] {
  const candidates = given.filter((name) => !NOT_VARIABLES.has(name));
  return missing.flatMap((name) => {
    const close = closestName(name, candidates);
    return close ? [`${close} was given: did you mean ${name}?`] : [];
  });
}
