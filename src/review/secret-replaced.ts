/**
 * A Secret replaced by an ExternalSecret (external-secrets.io) of its namespace that fills it
 * (`spec.target.name` its name, or the ExternalSecret of its name with no target name), as when the
 * `--secrets` strategy switches to external-secrets. The sync
 * prunes the Secret it no longer has in Git (Argo CD picks what to prune when the sync starts,
 * Flux after it applies), while external-secrets takes over a Secret with no ownerReference
 * (creationPolicy Owner, docs/guides/ownership-deletion-policy.md): the Secret may be deleted after
 * it took it over, and is created again from the store only under Owner or Orphan. Argo CD prunes
 * no object with an ownerReference (gitops-engine pkg/cache/cluster.go GetManagedLiveObjs), nor
 * one whose live annotations say Prune=false; Flux skips one whose live metadata has
 * `kustomize.toolkit.fluxcd.io/prune: disabled` (fluxcd/pkg ssa Delete reads the object in the
 * cluster), and lists it no more once that sync is done.
 * Names only: no value of the Secret is ever read.
 */
import { compareStrings } from '../core/diagnostics.js';
import { isPlainObject, type KObject } from '../core/kobject.js';
import { describeId, objectKey, type TreeObject } from './objects.js';
import type { SecretReplacedFinding } from './types.js';

const GROUP = 'external-secrets.io';

type Base = { risk: 'info'; component: string; file: string; object: string };

/** The Secret an ExternalSecret fills: `spec.target.name`, its own name when absent; and its creationPolicy (Owner when absent). */
function targetOf(obj: KObject): { name: string; creationPolicy: string } {
  const spec = isPlainObject(obj.spec) ? obj.spec : {};
  const target = isPlainObject(spec.target) ? spec.target : {};
  return {
    name: typeof target.name === 'string' && target.name ? target.name : (obj.metadata.name ?? ''),
    creationPolicy: typeof target.creationPolicy === 'string' ? target.creationPolicy : 'Owner',
  };
}

/** `name`: the Secret's; `externalSecret`: the ExternalSecret's own name, which its wait names. */
function whatHappens(creationPolicy: string, ns: string, name: string, externalSecret: string): string {
  const recreated = creationPolicy === 'Owner' || creationPolicy === 'Orphan';
  const gone = recreated
    ? `external-secrets then creates it again from the store: until it does, and for good if the store cannot be read, what reads the Secret finds none`
    : `with creationPolicy ${creationPolicy} external-secrets never creates it, so once pruned it stays gone`;
  const keep =
    `to keep it, before the sync annotate the live Secret so the prune leaves it ` +
    `(\`kubectl -n ${ns} annotate secret ${name} argocd.argoproj.io/sync-options=Prune=false\` under Argo CD, ` +
    `\`kubectl -n ${ns} annotate secret ${name} kustomize.toolkit.fluxcd.io/prune=disabled\` under Flux)` +
    (recreated
      ? `, then check that external-secrets took it over (\`kubectl -n ${ns} wait externalsecret/${externalSecret} --for=condition=Ready\`)` +
        (creationPolicy === 'Owner'
          ? ` before removing the annotation (it then has an ownerReference, which Argo CD never prunes)`
          : ` and leave the annotation: with no ownerReference, Argo CD would prune it at the next sync`)
      : `; external-secrets then fills that Secret, which Argo CD and Flux no longer apply`);
  return `${gone}; ${keep}`;
}

/**
 * The ExternalSecret the new side adds in the Secret's namespace (and fleet cluster) that fills it
 * (`spec.target.name`, its own name when absent): the one of the Secret's name first, else the first
 * by name. One already on the old side is no replacement.
 */
function addedFiller(
  removed: TreeObject,
  sides: [ReadonlyMap<string, TreeObject>, ReadonlyMap<string, TreeObject>],
): TreeObject | undefined {
  const { namespace, name } = removed.id;
  const prefix = removed.cluster ? `${removed.cluster}\0` : '';
  const keyOf = (n: string) => prefix + objectKey({ group: GROUP, kind: 'ExternalSecret', namespace, name: n });
  const fillers = [...sides[1].values()]
    .filter(
      (t) =>
        t.id.group === GROUP &&
        t.id.kind === 'ExternalSecret' &&
        t.id.namespace === namespace &&
        t.cluster === removed.cluster &&
        !sides[0].has(keyOf(t.id.name)) &&
        targetOf(t.object).name === name,
    )
    .sort((a, b) => (a.id.name === name ? -1 : b.id.name === name ? 1 : compareStrings(a.id.name, b.id.name)));
  return fillers[0];
}

/**
 * The call-out for a Secret gone from the new side (`removed`) when the new side adds an
 * ExternalSecret in its namespace that fills it. `sides`: both sides' objects by key.
 */
export function secretReplacedFindings(
  removed: TreeObject,
  sides: [ReadonlyMap<string, TreeObject>, ReadonlyMap<string, TreeObject>],
  base: Base,
): SecretReplacedFinding[] {
  const { namespace, name } = removed.id;
  const added = addedFiller(removed, sides);
  if (!added) return [];
  const target = targetOf(added.object);
  const by = describeId(added.id).replace(/^ExternalSecret\//, '');
  const message =
    `${base.object} is replaced by ExternalSecret ${by} (creationPolicy ${target.creationPolicy}): ` +
    `the sync prunes the Secret, Argo CD (prune) and Flux (prune: true) alike, while external-secrets takes over one with no ownerReference, ` +
    `so it may be deleted after external-secrets took it; ${whatHappens(target.creationPolicy, namespace, name, added.id.name)}`;
  return [
    {
      ...base,
      risk: 'warning',
      type: 'secret-replaced',
      externalSecret: describeId(added.id),
      creationPolicy: target.creationPolicy,
      message,
    },
  ];
}
