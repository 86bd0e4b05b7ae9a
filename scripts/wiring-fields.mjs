// Writes schema/wiring-fields.json: the field names of the GitOps kinds a wiring chart draws
// (Argo CD's Application, ApplicationSet and AppProject, Flux's Kustomization, GitRepository and
// OCIRepository), read from their real CRDs, so a chart's misspelt field is an error at render
// time (src/layout/chart/wiring-fields.ts) and not Argo CD's or Flux's in the cluster. Names
// only: descriptions and validations stay upstream. Equal subtrees are stored once (the
// ApplicationSet repeats its template in every generator).
//   node scripts/wiring-fields.mjs <directory of the CRDs> [output file]
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

export const WIRING_CRD_FILES = [
  'argocd-application-crd.yaml',
  'argocd-applicationset-crd.yaml',
  'argocd-appproject-crd.yaml',
  'flux-kustomizations-crd.yaml',
  'flux-gitrepositories-crd.yaml',
  'flux-ocirepositories-crd.yaml',
];

/**
 * `{ kinds: { "<group>/<version>/<Kind>": node }, nodes }`; a node is an index into nodes, 0 a
 * value of any form; a node's keys are its fields, `[]` a list's items, `{}` a map's values, and
 * `*` (x-kubernetes-preserve-unknown-fields) allows fields of any name.
 */
export function wiringFields(crdDir) {
  const nodes = [null];
  const ids = new Map();
  const node = (schema) => {
    if (typeof schema !== 'object' || schema === null) return 0;
    const fields = {};
    for (const [name, child] of Object.entries(schema.properties ?? {})) fields[name] = node(child);
    if (schema.items) fields['[]'] = node(schema.items);
    if (typeof schema.additionalProperties === 'object') fields['{}'] = node(schema.additionalProperties);
    if (schema['x-kubernetes-preserve-unknown-fields']) fields['*'] = 0;
    if (Object.keys(fields).length === 0) return 0;
    const sorted = Object.fromEntries(Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    const key = JSON.stringify(sorted);
    if (!ids.has(key)) ids.set(key, nodes.push(sorted) - 1);
    return ids.get(key);
  };
  const kinds = {};
  for (const file of WIRING_CRD_FILES) {
    const crd = YAML.parse(readFileSync(path.join(crdDir, file), 'utf8'));
    for (const version of crd.spec.versions) {
      if (version.served) kinds[`${crd.spec.group}/${version.name}/${crd.spec.names.kind}`] = node(version.schema.openAPIV3Schema);
    }
  }
  return { kinds, nodes };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const [crdDir, out = new URL('../schema/wiring-fields.json', import.meta.url).pathname] = process.argv.slice(2);
  writeFileSync(out, JSON.stringify(wiringFields(crdDir)) + '\n');
}
