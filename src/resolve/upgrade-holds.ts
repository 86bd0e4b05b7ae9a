/**
 * Providers whose spec.version range (a capi-gitops extension) holds them below an upgrade plan's
 * target. clusterctl moves every provider of a plan to the newest release of the plan's contract
 * together (cmd/clusterctl/client/cluster/upgrader.go getUpgradePlan, upgrader_info.go
 * getLatestNextVersion), so its plans never split; a range can. A hold is allowed while the
 * providers still fit together as clusterctl requires of a custom plan:
 * - every provider's contract is one the core provider's contract accepts (upgrader.go
 *   createCustomPlan);
 * - core, kubeadm bootstrap and kubeadm control plane share one minor version: they are released
 *   together, and the kubeadm control plane requires the kubeadm bootstrap provider of the same
 *   version (docs/book/src/reference/versions.md).
 * Pure: the plan (upgrade-plan.ts) hands over where each provider ends.
 */
import { compareStrings } from '../core/diagnostics.js';
import type { ProviderKind } from '../core/provider.js';
import { parseSemantic } from '../core/versions.js';
import { compatibleContracts } from './metadata.js';

/** spec.version when it is a range, and where it is written. */
export interface VersionRange {
  range: string;
  file: string;
  line: number;
  column: number;
}

export interface HeldBack extends VersionRange {
  /** The release the plan offers without the range. */
  wouldGet: string;
  /** The locked release the plan starts from. */
  installed: string;
  /** The release the provider ends on: the newest the range allows under the plan's contract, else where the range leaves it. */
  heldAt: string;
  /** The contract `heldAt` implements. */
  heldContract: string;
  /** Why ending there splits the providers, and what to do; absent when they still fit together. */
  conflict?: { message: string; hint: string };
}

/** A provider where the plan leaves it. */
export interface Outcome {
  kind: ProviderKind;
  name: string;
  label: string;
  version: string;
  contract: string;
  held?: HeldBack;
}

/** Released together with the core provider (upgrader.go doUpgrade names the same three). */
function inKubeadmGroup(o: Pick<Outcome, 'kind' | 'name'>): boolean {
  return o.kind === 'CoreProvider' || ((o.kind === 'BootstrapProvider' || o.kind === 'ControlPlaneProvider') && o.name === 'kubeadm');
}

function minorOf(version: string): string {
  const parsed = parseSemantic(version);
  return parsed === null ? version : `${parsed.major}.${parsed.minor}`;
}

function names(outcomes: readonly Outcome[], withContract = false): string {
  const each = [...outcomes]
    .sort((a, b) => compareStrings(a.label, b.label))
    .map((o) => `${o.label} ${o.version}${withContract ? ` (contract ${o.contract})` : ''}`);
  return each.length === 1 ? each[0] : `${each.slice(0, -1).join(', ')} and ${each.at(-1)}`;
}

/** Why `held` does not fit with the others, and the providers it splits from; undefined when it fits. */
function split(held: Outcome, outcomes: readonly Outcome[]): { why: string; apart: Outcome[]; contracts: boolean } | undefined {
  const core = outcomes.find((o) => o.kind === 'CoreProvider');
  if (core === undefined) return undefined;
  const accepted = compatibleContracts(core.contract);
  const at = `${held.label} at ${held.version} (contract ${held.contract})`;
  if (held === core) {
    const refused = outcomes.filter((o) => o !== core && !accepted.includes(o.contract));
    if (refused.length > 0)
      return {
        why: `${at}, which accepts only ${accepted.join(' or ')} providers, not ${names(refused, true)}`,
        apart: refused,
        contracts: true,
      };
  } else if (!accepted.includes(held.contract)) {
    const why = `${at}, which the core provider ${core.label} ${core.version} (contract ${core.contract}) does not accept`;
    return { why, apart: [core], contracts: true };
  }
  if (!inKubeadmGroup(held)) return undefined;
  const apart = outcomes.filter((o) => o !== held && inKubeadmGroup(o) && minorOf(o.version) !== minorOf(held.version));
  if (apart.length === 0) return undefined;
  const why = `${held.label} at ${held.version} while ${names(apart)}: the core and kubeadm providers are released together, and the kubeadm control plane requires the kubeadm bootstrap provider of the same version`;
  return { why, apart, contracts: false };
}

/**
 * How to let a held provider move. Not a wider range: a range resolves to its newest release before
 * update plans, and a provider alone on a new contract or minor splits the others there. An exact
 * pin at the locked release resolves as locked, and update moves it with the plan.
 */
export function heldMoveHint(held: Outcome, outcomes: readonly Outcome[]): string {
  const group = inKubeadmGroup(held) ? outcomes.filter((o) => o !== held && o.held !== undefined && inKubeadmGroup(o)) : [];
  const alike =
    group.length > 0
      ? `; likewise ${group
          .map((o) => o.label)
          .sort(compareStrings)
          .join(' and ')}, released with it`
      : '';
  // heldAt: the warning comes from an update that goes on, and locks it there
  return `to move it, set spec.version to ${held.held!.heldAt}, the release this update locks (a later update moves an exact pin with the plan)${alike}`;
}

/** A hold that splits nothing, as a warning and in the plan. */
export function heldText(label: string, held: HeldBack, contract: string): string {
  return `the range ${JSON.stringify(held.range)} keeps ${label} at ${held.heldAt}; the ${contract} plan would move it to ${held.wouldGet}`;
}

/** A held provider that does not fit with the others: why, and what to do. */
export type Conflict = NonNullable<HeldBack['conflict']>;

/**
 * The held providers that do not fit with the others, one conflict per range. `contract`: the
 * plan's; `currentContract`: the core provider's now, the plan `update` takes by default.
 */
export function findConflicts(outcomes: readonly Outcome[], contract: string, currentContract: string): Map<Outcome, Conflict> {
  const conflicts = new Map<Outcome, Conflict>();
  for (const o of outcomes) {
    if (o.held === undefined) continue;
    const found = split(o, outcomes);
    if (found === undefined) continue;
    const { held } = o;
    const message = `the range ${JSON.stringify(held.range)} keeps ${found.why}; the ${contract} plan would move ${o.label} to ${held.wouldGet}`;
    const others = found.apart.map((a) => a.label).sort(compareStrings);
    // the same range holds the kubeadm group on one release; another provider keeps its contract only on the current plan
    const alternative =
      inKubeadmGroup(o) && found.apart.every(inKubeadmGroup)
        ? `; or set spec.version of ${others.join(' and ')} to ${JSON.stringify(held.range)} as well`
        : contract !== currentContract
          ? `; or stay on contract ${currentContract}: \`capi-gitops update --contract ${currentContract}\``
          : '';
    // a wider range would resolve to the new release before update plans, splitting them there: an exact pin moves with the others
    const pin = `set spec.version to ${held.installed}, the locked release (update moves an exact pin with the others)`;
    conflicts.set(o, { message, hint: pin + alternative });
  }
  return conflicts;
}
