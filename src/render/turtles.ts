/**
 * What Rancher Turtles' embedded operator does to a CAPIProvider's components beyond the
 * cluster-api-operator: its `customAlterComponentsFuncs` (rancher/turtles
 * internal/controllers/operator_reconciler.go BuildWithManager), which the operator runs after its
 * customisations, patches and image overrides (cluster-api-operator internal/controller/phase_fetch.go
 * Fetch). The first, always on: every CRD labelled for Rancher's auth index. The second,
 * `internal/provider/wrangler.go` WranglerPatcher behind the `no-cert-manager` feature gate, is
 * wrangler.ts, made when the Config says the gate is on (`turtles.noCertManager`: the gate is
 * Turtles' own setting, which no CAPIProvider holds); unset, what it would remove is told
 * (app/turtles.ts).
 */
import { describeObject, type KObject } from '../core/kobject.js';
import { CLUSTER_INDEXED_LABEL } from '../manifest/turtles.js';
import { addLabels } from './labels.js';

/** What WranglerPatcher drops: kind `Certificate` or `Issuer`, whatever the group. */
export function isWranglerRemoved(o: KObject): boolean {
  return o.kind === 'Certificate' || o.kind === 'Issuer';
}

/** The objects WranglerPatcher drops, as describeObject names them. */
export function wranglerRemovedObjects(objects: readonly KObject[]): string[] {
  return objects.filter(isWranglerRemoved).map((o) => describeObject(o));
}

/** rancher/turtles internal/provider/rancher.go AddClusterIndexedLabelFn: `"true"` on every CRD, over a value it had. */
export function addClusterIndexedLabel(objects: KObject[]): KObject[] {
  return objects.map((o) => (o.kind === 'CustomResourceDefinition' ? addLabels([o], { [CLUSTER_INDEXED_LABEL]: 'true' })[0]! : o));
}
