/**
 * A cluster added to a fleet gets the roles the other clusters have: each would be told "RBAC
 * widened" from nothing, one warning per role (about 20 for a management cluster's providers),
 * for roles reviewed already where the fleet has them. A role of a cluster new to the fleet that
 * grants nothing the same role (group, kind, namespace, name) of a cluster already in the fleet
 * does not grant is not told; one that grants more than every such role still is, as before.
 */
import { clusterOf, objectKey, type TreeObject } from './objects.js';
import { gained, permissionsOf, RBAC_GROUP, RBAC_ROLE_KINDS, type Permissions } from './rbac.js';
import type { Finding } from './types.js';

function isRole(t: TreeObject): boolean {
  return t.id.group === RBAC_GROUP && RBAC_ROLE_KINDS.has(t.id.kind);
}

/** A signature of a permission set, to keep each distinct one once. */
function signature(p: Permissions): string {
  return JSON.stringify([[...p.resources].sort(), [...p.urls].sort()]);
}

export class FleetRoles {
  /** objectKey → the distinct permission sets of the old side's clusters' copies of that role. */
  readonly #old = new Map<string, Map<string, Permissions>>();
  readonly #newClusters = new Set<string>();
  readonly #pending: { finding: Finding; key: string; permissions: Permissions }[] = [];

  /** The roles of a group of the old side's objects (a cluster's, with its bases'). */
  addOld(objects: Iterable<TreeObject>): void {
    for (const t of objects) {
      if (!t.cluster || !isRole(t)) continue;
      const permissions = permissionsOf(t.object);
      const key = objectKey(t.id);
      let known = this.#old.get(key);
      if (!known) this.#old.set(key, (known = new Map()));
      known.set(signature(permissions), permissions);
    }
  }

  addNewCluster(cluster: string): void {
    this.#newClusters.add(cluster);
  }

  /**
   * Holds `finding` when it tells a role of a new cluster widened: settle() tells it or not once
   * every cluster's old roles are known (clusters are reviewed one at a time, a new one maybe first).
   */
  defer(finding: Finding, t: TreeObject): boolean {
    if (finding.type !== 'rbac' || finding.direction !== 'widened' || !isRole(t)) return false;
    this.#pending.push({ finding, key: objectKey(t.id), permissions: permissionsOf(t.object) });
    return true;
  }

  /**
   * The findings held that still tell a widening: about a cluster already in the fleet too (a
   * base's change several clusters get), or granting more than the role of every cluster that has it.
   */
  settle(): Finding[] {
    const told: Finding[] = [];
    for (const { finding, key, permissions } of this.#pending.splice(0)) {
      const clusters = finding.clusters ?? [clusterOf(`${finding.component}/`)];
      const allNew = clusters.every((c) => this.#newClusters.has(c));
      const covered = [...(this.#old.get(key)?.values() ?? [])].some((p) => {
        const delta = gained(p, permissions);
        return delta.permissions.length === 0 && delta.nonResourceURLs.length === 0;
      });
      if (!allNew || !covered) told.push(finding);
    }
    return told;
  }
}
