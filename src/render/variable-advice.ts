/**
 * Advice about variables that needs the whole management cluster (or fleet) in view: names given
 * (in Config.variables or a configSecret) that no component uses, with the used name they most
 * likely meant, and for a missing variable, the given names close to it.
 */
import { clusterRanges } from '../core/cluster-ranges.js';
import { compareStrings, type Diagnostic } from '../core/diagnostics.js';
import { closestName, formatPosition } from '../manifest/fields.js';
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
  /** Names a component reads, but from a configSecret whose value wins over this one: those Secrets (`Secret/ns/name`). */
  shadowedBy?: ReadonlyMap<string, readonly string[]>;
  /**
   * For a Secret made from a Turtles CAPIProvider (not in the input): the CAPIProvider's field that
   * sets the name there; `byName`, the provider name Turtles sets it for itself (no field changes it).
   */
  setBy?: (secret: string, name: string) => { object: string; path: string; position: SourcePosition; byName?: string } | undefined;
}

/**
 * How to let the given value be used: remove the name from each Secret that wins, or, for the
 * config Secret Turtles writes from a CAPIProvider, change it where the CAPIProvider sets it
 * (it ranks as any configSecret: Turtles writes its defaults and variables into it).
 */
function winnerFixes(name: string, winners: readonly string[], setBy: GivenVariables['setBy']): string {
  const made = winners.flatMap((secret) => {
    const field = setBy?.(secret, name);
    // Turtles sets it after spec.variables: nothing in the CAPIProvider lets the given value through
    if (!field || field.byName !== undefined) return [];
    const where = `${field.object}'s ${field.path} (${formatPosition(field.position)})`;
    return [
      field.path === 'spec.variables'
        ? `set ${name} to this value in ${where}`
        : `set ${field.path} in ${field.object} (${formatPosition(field.position)}) to this value`,
    ];
  });
  const plain = winners.filter((secret) => !setBy?.(secret, name));
  return [...(plain.length > 0 ? [`from ${plain.join(' and ')} so that this value is used`] : []), ...made].join(', or ');
}

/** How a Secret that wins is named: the one Turtles writes says which CAPIProvider it is made from. */
function winnerNames(name: string, winners: readonly string[], setBy: GivenVariables['setBy']): string {
  return winners
    .map((secret) => {
      const field = setBy?.(secret, name);
      if (!field) return secret;
      const sets = field.byName !== undefined ? `; Turtles sets it for ${field.byName}` : '';
      return `${secret} (the config Secret Turtles writes from ${field.object}${sets})`;
    })
    .join(' and ');
}

/** Why a given name is not used, and what to do: read from a Secret that wins, or read by nothing. */
function notUsed(
  name: string,
  set: Pick<GivenVariables, 'shadowedBy' | 'setBy'>,
  used: readonly string[],
  told: { nothingReads: string; remove: string; removeShadowed?: string },
): { message: string; hint: string } {
  const winners = set.shadowedBy?.get(name);
  if (winners) {
    const fixes = winnerFixes(name, winners, set.setBy);
    const remove = told.removeShadowed ?? told.remove;
    return {
      message: `variable ${name} is not used: ${winnerNames(name, winners, set.setBy)} ${winners.length > 1 ? 'have' : 'has'} it too, and a configSecret's value wins`,
      hint: fixes ? `${remove}, or ${fixes}` : remove,
    };
  }
  const close = closestName(name, used);
  return {
    message: `${told.nothingReads}${close ? `; did you mean ${close}?` : ''}`,
    hint: close ? `rename ${name} to ${close}` : told.remove,
  };
}

/**
 * A warning per given name that no component it reaches uses, with "did you mean" when one is
 * close. `fleet`: `render --list-variables` refuses a fleet, so the hint does not offer it.
 */
export function unusedVariableWarnings(given: readonly GivenVariables[], fleet = false): Diagnostic[] {
  const warnings: Diagnostic[] = [];
  for (const set of given) {
    const used = [...set.used].sort(compareStrings);
    for (const name of [...set.names].sort(compareStrings)) {
      if (set.used.has(name) || NOT_VARIABLES.has(name)) continue;
      const own = set.locate?.(name);
      warnings.push({
        ...(own ?? set.position),
        object: set.origin,
        path: own && set.path ? `${set.path}.${name}` : set.path,
        ...notUsed(name, set, used, {
          nothingReads: `variable ${name} is not used by any component`,
          remove: fleet ? `remove it from ${set.origin}` : 'remove it, or check the name against `capi-gitops render --list-variables`',
          removeShadowed: `remove ${name} from the ${set.origin}'s ${set.path}`,
        }),
      });
    }
  }
  return warnings;
}

/** One cluster of a fleet: what was given to it, and the layer that set each of its Config variables. */
export interface ClusterVariables {
  cluster: string;
  given: readonly GivenVariables[];
  origin: (name: string) => { layer: string; position?: SourcePosition } | undefined;
}

/** The shared Config's layer (manifest/fleet-expand.ts). */
const SHARED_LAYER = 'shared manifest';

const clustersNamed = (names: readonly string[]) => `${names.length > 1 ? 'clusters' : 'cluster'} ${clusterRanges(names)}`;

/**
 * A fleet's unused variables, each once. The shared Config's value is unused when no cluster's
 * component reads it (each cluster sets its own or has no component using it); a cluster's own
 * value, when no component of that cluster reads it; a Secret's key, when no cluster it reaches
 * reads it. `complete`: every cluster rendered; otherwise only the clusters' own values are judged.
 */
export function fleetVariableWarnings(
  shared: Omit<GivenVariables, 'used'> | undefined,
  clusters: readonly ClusterVariables[],
  complete: boolean,
): Diagnostic[] {
  const configs = clusters.map((c) => ({ ...c, config: c.given.find((g) => g.origin === 'Config') }));
  const usedAnywhere = new Set(configs.flatMap((c) => [...(c.config?.used ?? [])]));
  const warnings = configs.flatMap((c) => (c.config ? clusterOwnUnused(c, c.config) : []));
  if (!complete) return warnings;
  for (const name of [...(shared?.names ?? [])].sort(compareStrings)) {
    if (NOT_VARIABLES.has(name)) continue;
    const overriding = configs.filter((c) => c.origin(name)?.layer !== SHARED_LAYER).map((c) => c.cluster);
    const unread = configs.filter((c) => c.origin(name)?.layer === SHARED_LAYER && !c.config?.used.has(name));
    if (overriding.length + unread.length < configs.length) continue;
    // a cluster that keeps the Config's value may read the name from its configSecret instead
    const shadowing = unread.filter((c) => c.config?.shadowedBy?.has(name));
    const winners = [...new Set(shadowing.flatMap((c) => c.config!.shadowedBy!.get(name)!))].sort(compareStrings);
    const nothing = unread.filter((c) => !shadowing.includes(c)).map((c) => c.cluster);
    const setBy: GivenVariables['setBy'] = (secret, variable) =>
      shadowing.map((c) => c.config!.setBy?.(secret, variable)).find((field) => field !== undefined);
    const close = overriding.length + shadowing.length === 0 ? closestName(name, [...usedAnywhere].sort(compareStrings)) : undefined;
    const reasons = [
      ...(overriding.length > 0 ? [`it is overridden in ${clustersNamed(overriding)}`] : []),
      ...(shadowing.length > 0
        ? [
            `${clustersNamed(shadowing.map((c) => c.cluster))} ${shadowing.length > 1 ? 'read' : 'reads'} it from ${winnerNames(name, winners, setBy)}, whose value wins`,
          ]
        : []),
      ...(nothing.length > 0 ? [`no component of ${clustersNamed(nothing)} reads it`] : []),
    ];
    const message =
      overriding.length + shadowing.length === 0
        ? `variable ${name} is not used by any component of any cluster${close ? `; did you mean ${close}?` : ''}`
        : reasons.length === 1 && nothing.length === 0 && shadowing.length === 0
          ? `the Config's value of ${name} is overridden by every cluster, so it is never used`
          : `the Config's value of ${name} is never used: ${reasons.join(', and ')}`;
    warnings.push({
      ...(shared!.locate?.(name) ?? shared!.position),
      object: 'Config',
      path: `variables.${name}`,
      message,
      hint: close
        ? `rename ${name} to ${close}`
        : [`remove ${name} from the Config's variables`, winnerFixes(name, winners, setBy)].filter(Boolean).join(', or '),
    });
  }
  return [...warnings, ...unusedVariableWarnings(secretsAcross(configs.map((c) => c.given)), true)];
}

/** A cluster's own variables (its overlay's) that no component of the cluster reads, at the overlay's line. */
function clusterOwnUnused(c: ClusterVariables, config: GivenVariables): Diagnostic[] {
  const used = [...config.used].sort(compareStrings);
  return [...config.names].sort(compareStrings).flatMap((name) => {
    const origin = c.origin(name);
    if (!origin || origin.layer === SHARED_LAYER || config.used.has(name) || NOT_VARIABLES.has(name)) return [];
    return [
      {
        ...(origin.position ?? config.position),
        object: `cluster ${c.cluster}, ${origin.layer}: Config`,
        path: `variables.${name}`,
        ...notUsed(name, config, used, {
          nothingReads: `variable ${name} is not used by any component of cluster ${c.cluster}`,
          remove: `remove ${name} from cluster ${c.cluster}'s variables`,
        }),
      },
    ];
  });
}

/** Each Secret given to the fleet's clusters once, with the names any cluster it reaches uses. */
function secretsAcross(given: readonly (readonly GivenVariables[])[]): GivenVariables[] {
  const secrets = new Map<string, GivenVariables & { used: Set<string> }>();
  for (const set of given.flat()) {
    if (set.origin === 'Config') continue;
    const seen = secrets.get(set.origin) ?? { ...set, used: new Set<string>() };
    set.used.forEach((name) => seen.used.add(name));
    secrets.set(set.origin, seen);
  }
  return [...secrets.values()];
}

/** Given names close to a missing one, for its error's hint. */
export function closeGivenNames(missing: readonly string[], given: readonly string[]): string[] {
  const candidates = given.filter((name) => !NOT_VARIABLES.has(name));
  return missing.flatMap((name) => {
    const close = closestName(name, candidates);
    return close ? [`${close} was given: did you mean ${name}?`] : [];
  });
}
