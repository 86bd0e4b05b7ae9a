/**
 * Which clusters a write moved onto or off a fleet's base (the shared layout), for the render
 * report: a cluster whose component kustomization started or stopped listing a base gained or
 * lost the objects there, so those objects are compared as that cluster's, wherever they sit.
 */
import { listedBases } from './objects.js';

const CLUSTER_KUSTOMIZATION = /^clusters\/([^/]+)\/[^/]+\/kustomization\.ya?ml$/;
const BASE_DIRECTORY = /^bases\/[^/]+\/[^/]+(?=\/)/;

export interface BaseReach {
  /** A base → the clusters that listed it before the write and no longer do. */
  before: Map<string, string[]>;
  /** A base → the clusters that list it after the write and did not before. */
  after: Map<string, string[]>;
}

export const NO_REACH: BaseReach = { before: new Map(), after: new Map() };

/** A file's base directory, if it is in one. */
export function baseOf(file: string): string | undefined {
  return BASE_DIRECTORY.exec(file)?.[0];
}

/** From the kustomizations a write touched: `before` and `after` give a file's text on each side, undefined where it is absent. */
export function baseReach(touched: Iterable<string>, before: (file: string) => string | undefined, after: typeof before): BaseReach {
  const reach: BaseReach = { before: new Map(), after: new Map() };
  for (const file of touched) {
    const cluster = CLUSTER_KUSTOMIZATION.exec(file)?.[1];
    if (cluster === undefined) continue;
    const [old, now] = [bases(file, before(file)), bases(file, after(file))];
    for (const base of old) if (!now.has(base)) add(reach.before, base, cluster);
    for (const base of now) if (!old.has(base)) add(reach.after, base, cluster);
  }
  return reach;
}

function bases(file: string, text: string | undefined): Set<string> {
  if (text === undefined) return new Set();
  try {
    return new Set(listedBases(text, file));
  } catch {
    // a kustomization edited by hand into invalid YAML lists nothing
    return new Set();
  }
}

function add(reach: Map<string, string[]>, base: string, cluster: string): void {
  const clusters = reach.get(base);
  if (clusters) clusters.push(cluster);
  else reach.set(base, [cluster]);
}
