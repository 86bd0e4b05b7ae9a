/**
 * One Argo CD ApplicationSet for a whole fleet (`applicationSet: true` with `Config.clusters`):
 * a Git directory generator over `<path>/clusters/*\/*` (each cluster's component directories,
 * its own `argocd/` excluded), whose template takes the cluster from the directory and looks up
 * that cluster's destination, project and Application prefix, as its chart values give them.
 * Semantics from argo-cd applicationset/generators/git.go (directories matched with Go's
 * path.Match, an `exclude: true` entry wins, `path.segments` split on `/`) and
 * value_interpolation.go (generator `values` templated with the path parameters, read as
 * `.values.<key>`); the lookups use Sprig's `dict` and `get`, which Argo CD's goTemplate has.
 */
import { clusterRanges } from '../core/cluster-ranges.js';
import { CapiGitopsError, compareStrings, type Diagnostic } from '../core/diagnostics.js';
import { isPlainObject, type KObject } from '../core/kobject.js';
import { isValuesMap, type Values } from '../core/values.js';
import { emitYamlDocument } from '../yaml/emit.js';
import { parseArtifact } from '../yaml/parse.js';
import { KUSTOMIZATION_FILE } from './kustomize.js';
import { objectFileName } from './names.js';
import { GENERATED_COMMENT } from './provenance.js';
import { renderKustomization } from './templates.js';
import { repositoryPath } from './wiring.js';

export const FLEET_APPLICATIONSET_NAME = 'capi-gitops-fleet';
export const FLEET_WIRING_DIRECTORY = 'argocd';

interface FleetApplicationSetCluster {
  name: string;
  /** The cluster's chart values (as its own wiring was drawn with). */
  values: Values;
  /** ignoreDifferences of the ApplicationSet the chart drew for this cluster; undefined when it was not rendered in this run. */
  ignoreDifferences?: unknown[];
}

interface FleetApplicationSetInput {
  /** The directory of the fleet's clusters in the output (`clusters`). */
  clustersDirectory: string;
  clusters: readonly FleetApplicationSetCluster[];
  /** ignoreDifferences of the fleet's ApplicationSet as the last run wrote it (kept for clusters `--cluster` leaves out). */
  previousIgnoreDifferences?: unknown[];
  /** Each cluster's lookups in the fleet's ApplicationSet as the last run wrote it (kept for clusters `--cluster` leaves out). */
  previousLookups?: ReadonlyMap<string, ClusterLookups>;
  /** Each object of the rendered clusters' own argocd/ (`Kind namespace/name`) and the clusters that write it. */
  wiringObjects?: ReadonlyMap<string, readonly string[]>;
  /** Where the Config lists the clusters: where a problem of their wiring as a whole is told. */
  at?: Pick<Diagnostic, 'file' | 'line' | 'column'>;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** What the generator's values look up for a cluster: its Applications' name prefix, project and destination. */
interface ClusterLookups {
  prefix: string;
  project: string;
  destinationName: string;
  destinationServer: string;
}

const LOOKUP = /\bdict((?:\s+"(?:[^"\\]|\\.)*")*)\s*\)/g;
const GO_STRING = /"(?:[^"\\]|\\.)*"/g;

/** Each generator value's per-cluster lookup in a fleet ApplicationSet (`get (dict "c1" "v1" …) …`): `key\0cluster` → value. */
export function applicationSetLookups(object: KObject | undefined): Map<string, string> {
  const found = new Map<string, string>();
  const spec = isPlainObject(object?.spec) ? object.spec : {};
  const generators = Array.isArray(spec.generators) ? spec.generators : [];
  for (const generator of generators) {
    const git = isPlainObject(generator) && isPlainObject(generator.git) ? generator.git : {};
    const values = isPlainObject(git.values) ? git.values : {};
    for (const [key, value] of Object.entries(values)) {
      if (typeof value !== 'string') continue;
      for (const [, pairs] of value.matchAll(LOOKUP)) {
        const strings = [...pairs!.matchAll(GO_STRING)].map((m) => JSON.parse(m[0]) as string);
        for (let i = 0; i + 1 < strings.length; i += 2) found.set(`${key}\0${strings[i]}`, strings[i + 1]!);
      }
    }
  }
  return found;
}

/**
 * Each cluster's lookups in a fleet ApplicationSet this module wrote: a `--cluster` run keeps
 * those of the clusters it does not render, which change with their own render (their AppProject,
 * which must allow the destination, is in their own directory).
 */
export function clusterLookups(object: KObject): Map<string, ClusterLookups> {
  const out = new Map<string, ClusterLookups>();
  for (const [key, value] of applicationSetLookups(object)) {
    const field = key.slice(0, key.indexOf('\0'));
    const name = key.slice(key.indexOf('\0') + 1);
    if (field !== 'prefix' && field !== 'project' && field !== 'destinationName' && field !== 'destinationServer') continue;
    const lookups = out.get(name) ?? { prefix: '', project: '', destinationName: '', destinationServer: '' };
    lookups[field] = value;
    out.set(name, lookups);
  }
  return out;
}

/** A Go template string literal (Go accepts JSON's escapes). */
const goString = (s: string) => JSON.stringify(s);

/**
 * `get (dict "c1" "v1" …) (index .path.segments N)`: the value of the cluster this directory
 * belongs to. One cluster a line (Go's text/template reads an action across lines), so a cluster
 * joining, leaving or moving is a line of its own in the pull request's diff, not a change to a
 * line that holds the whole fleet.
 */
function lookup(clusters: readonly FleetApplicationSetCluster[], pick: (c: FleetApplicationSetCluster) => string): string {
  const pairs = clusters.map((c) => `\n  ${goString(c.name)} ${goString(pick(c))}`).join('');
  return `{{ get (dict${pairs}\n) (index .path.segments SEGMENT) }}`;
}

/**
 * The output's path in the repository: a cluster's wiring path without `/clusters/<name>`, written
 * as Argo CD lists the repository's directories (`./fleet/` is `fleet`): the generator matches
 * them with path.Match as they are, and `path.segments` counts from the first.
 */
function rootPath(cluster: FleetApplicationSetCluster, clustersDirectory: string): string {
  const own = repositoryPath(str(cluster.values.path));
  const suffix = `${clustersDirectory}/${cluster.name}`;
  return own === suffix ? '' : own.endsWith(`/${suffix}`) ? own.slice(0, -suffix.length - 1) : own;
}

/** The ApplicationSets the chart drew in each cluster's `argocd/`: read for their ignoreDifferences, then left out. */
export function clusterApplicationSets(files: ReadonlyMap<string, string>): { file: string; object: KObject }[] {
  const found: { file: string; object: KObject }[] = [];
  for (const [file, text] of files) {
    if (!file.startsWith(`${FLEET_WIRING_DIRECTORY}/applicationset-`) || !file.endsWith('.yaml')) continue;
    for (const object of parseArtifact(text, { source: file })) if (object.kind === 'ApplicationSet') found.push({ file, object });
  }
  return found;
}

export function ignoreDifferencesOf(object: KObject): unknown[] {
  const spec = isPlainObject(object.spec) ? object.spec : {};
  const template = isPlainObject(spec.template) && isPlainObject(spec.template.spec) ? spec.template.spec : {};
  return Array.isArray(template.ignoreDifferences) ? template.ignoreDifferences : [];
}

/** A cluster's wiring without the ApplicationSet its chart drew: the fleet's one replaces it. */
export function withoutClusterApplicationSet(files: ReadonlyMap<string, string>, sets: readonly { file: string }[]): Map<string, string> {
  const out = new Map(files);
  const drop = new Set(sets.map((s) => s.file));
  for (const file of drop) out.delete(file);
  const kustomization = `${FLEET_WIRING_DIRECTORY}/${KUSTOMIZATION_FILE}`;
  const resources = [...out.keys()]
    .filter((f) => f.startsWith(`${FLEET_WIRING_DIRECTORY}/`) && f !== kustomization && f.endsWith('.yaml'))
    .map((f) => f.slice(FLEET_WIRING_DIRECTORY.length + 1));
  if (out.has(kustomization))
    out.set(kustomization, renderKustomization({ comment: GENERATED_COMMENT, resources: resources.sort(compareStrings) }));
  return out;
}

/** Settings one ApplicationSet can hold only once: every cluster must agree on them. */
const SHARED = [
  ['repoURL', (v: Values) => v.repoURL],
  ['targetRevision', (v: Values) => v.targetRevision],
  ['namespace', (v: Values) => v.namespace],
  ['syncPolicy', (v: Values) => v.syncPolicy],
  ['path', (v: Values, c: FleetApplicationSetCluster, dir: string) => rootPath({ ...c, values: v }, dir)],
] as const;

/** A null value turns a sync setting off (`--set syncPolicy.automated=null`), as the chart leaves it out. */
function withoutNulls(values: Values): Values {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null && v !== undefined));
}

/** Entries for unmanaged objects (jsonPointers) would apply in every cluster: all clusters must list the same. */
const isUnmanagedEntry = (entry: unknown) => isPlainObject(entry) && Array.isArray(entry.jsonPointers);

/** Where the clusters differ in what the fleet's one ApplicationSet holds once (SHARED, the unmanaged objects). */
function notSharedProblems(clusters: readonly FleetApplicationSetCluster[], clustersDirectory: string): Diagnostic[] {
  const problems: Diagnostic[] = [];
  for (const [field, read] of SHARED) {
    const groups = new Map<string, string[]>();
    for (const c of clusters) {
      const key = JSON.stringify(read(c.values, c, clustersDirectory) ?? null);
      groups.set(key, [...(groups.get(key) ?? []), c.name]);
    }
    if (groups.size > 1) {
      problems.push({
        object: 'Config clusters[].gitops',
        path: field,
        message: `applicationSet: true draws one ApplicationSet for the fleet, and the clusters' ${field} differ: ${[...groups].map(([value, names]) => `${clusterRanges(names)}: ${value}`).join('; ')}`,
        expected: `one ${field} for every cluster`,
        hint: `set ${field} in the shared Config gitops.values, not in the clusters' overlays (or set applicationSet: false for one Application per component)`,
      });
    }
  }
  const unmanaged = new Map<string, string[]>();
  for (const c of clusters.filter((c) => c.ignoreDifferences)) {
    const key = JSON.stringify(c.ignoreDifferences!.filter(isUnmanagedEntry));
    unmanaged.set(key, [...(unmanaged.get(key) ?? []), c.name]);
  }
  if (unmanaged.size > 1) {
    problems.push({
      object: 'Config clusters[]',
      path: 'overrides',
      message: `the clusters' unmanaged objects (Config.overrides) differ (${[...unmanaged.values()].map((names) => clusterRanges(names)).join(' / ')}), and the fleet's one ApplicationSet template would stop enforcing them in every cluster`,
      expected: 'the same Config.overrides in every cluster',
      hint: 'set overrides in the shared Config, or set applicationSet: false for one Application per component',
    });
  }
  return problems;
}

/** The Application name prefix the fleet's template gives a cluster's components. */
const prefixOf = (c: FleetApplicationSetCluster) => str(c.values.releaseName) || `capi-gitops-${c.name}`;

/**
 * Clusters whose component Applications would have the same names (one releaseName in a chart of
 * one's own, which has no per-cluster default): Argo CD refuses an ApplicationSet that generates
 * two Applications of one name (applicationset/controllers: "contains applications with duplicate name").
 */
function samePrefixes(clusters: readonly FleetApplicationSetCluster[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const c of clusters) groups.set(prefixOf(c), [...(groups.get(prefixOf(c)) ?? []), c.name]);
  return new Map([...groups].filter(([, names]) => names.length > 1));
}

function samePrefixProblems(same: ReadonlyMap<string, string[]>): Diagnostic[] {
  return [...same].map(([prefix, names]) => ({
    object: 'Config clusters[].gitops',
    path: 'releaseName',
    message:
      `the clusters ${clusterRanges(names)} have the same releaseName ${prefix}: the fleet's one ApplicationSet would generate ` +
      `Applications of the same name (${prefix}-<component directory>) for each, and Argo CD refuses an ApplicationSet whose Applications' names repeat`,
    expected: 'a releaseName of its own for each cluster',
    hint: `give each cluster its own in its entry, e.g. gitops: {releaseName: ${prefix}-${names[0]}} in the cluster ${names[0]}`,
  }));
}

/**
 * Objects two clusters write in their own `argocd/` (an AppProject, a root Application of one
 * name): with one ApplicationSet the fleet's clusters share one Argo CD, where the last one
 * applied replaces the others. `objects`: each wiring object's identity and the clusters that write it.
 */
export function sharedWiringProblems(objects: ReadonlyMap<string, readonly string[]>): Diagnostic[] {
  return [...objects]
    .filter(([, names]) => names.length > 1)
    .sort(([a], [b]) => compareStrings(a, b))
    .map(([identity, names]) => ({
      object: identity,
      path: 'clusters',
      message:
        `the clusters ${clusterRanges(names)} each write ${identity} in their ${FLEET_WIRING_DIRECTORY}/: with applicationSet: true they share ` +
        'one Argo CD, where the last one applied replaces the others',
      expected: "each cluster's wiring objects named for that cluster",
      hint: identity.startsWith('AppProject ')
        ? `give each cluster its own project in its entry, e.g. gitops: {project: ${identity.split('/').pop()}-${names[0]}} in the cluster ${names[0]}`
        : `give each cluster its own releaseName in its entry, e.g. gitops: {releaseName: ${identity.split('/').pop()}-${names[0]}} in the cluster ${names[0]}`,
    }));
}

/** Each `argocd/` object of a cluster's tree, as `Kind namespace/name`. */
export function wiringIdentities(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [file, text] of files) {
    if (!file.startsWith(`${FLEET_WIRING_DIRECTORY}/`) || file === `${FLEET_WIRING_DIRECTORY}/${KUSTOMIZATION_FILE}`) continue;
    for (const o of parseArtifact(text, { source: file }))
      out.push(`${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name ?? ''}`);
  }
  return out;
}

export function fleetApplicationSet(input: FleetApplicationSetInput): Map<string, string> {
  const clusters = [...input.clusters].sort((a, b) => compareStrings(a.name, b.name));
  const first = clusters[0]!;
  const prefixes = samePrefixes(clusters);
  // a root Application named after the releaseName is the same problem, told once
  const shared = sharedWiringProblems(input.wiringObjects ?? new Map()).filter(
    (d) => !(d.object?.startsWith('Application ') && prefixes.has(d.object.split('/').pop()!)),
  );
  const problems = [
    ...notSharedProblems(clusters, input.clustersDirectory),
    ...[...samePrefixProblems(prefixes), ...shared].map((d) => ({ ...input.at, ...d })),
  ];
  if (problems.length > 0) throw new CapiGitopsError(problems);

  const values = first.values;
  // a cluster this run does not render keeps what the last run looked up for it
  const kept = (c: FleetApplicationSetCluster) => (c.ignoreDifferences ? undefined : input.previousLookups?.get(c.name));
  const root = rootPath(first, input.clustersDirectory);
  const prefix = root === '' ? '' : `${root}/`;
  const segment = String(root === '' ? 1 : root.split('/').length + 1);
  const at = (template: string) => template.replace('SEGMENT', segment);
  const destination = (c: FleetApplicationSetCluster) => (isValuesMap(c.values.destination) ? c.values.destination : {});
  // Argo CD takes the name when both are given (ApplicationDestination): the chart does the same
  const destinationName = (c: FleetApplicationSetCluster) => str(destination(c).name);
  const destinationServer = (c: FleetApplicationSetCluster) => (destinationName(c) ? '' : str(destination(c).server));
  const seen = new Set<string>();
  const ignoreDifferences = [
    ...clusters.flatMap((c) => c.ignoreDifferences ?? []),
    ...(clusters.some((c) => !c.ignoreDifferences) ? (input.previousIgnoreDifferences ?? []) : []),
  ].filter((entry) => {
    const key = JSON.stringify(entry);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const object: KObject = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'ApplicationSet',
    metadata: { name: FLEET_APPLICATIONSET_NAME, namespace: str(values.namespace) || 'argocd' },
    spec: {
      goTemplate: true,
      goTemplateOptions: ['missingkey=error'],
      generators: [
        {
          git: {
            repoURL: str(values.repoURL),
            revision: str(values.targetRevision) || 'HEAD',
            directories: [
              { path: `${prefix}${input.clustersDirectory}/*/*` },
              { path: `${prefix}${input.clustersDirectory}/*/${FLEET_WIRING_DIRECTORY}`, exclude: true },
            ],
            // the cluster is the directory under clusters/; what Argo CD calls it comes from its values
            values: {
              cluster: at('{{ index .path.segments SEGMENT }}'),
              prefix: at(lookup(clusters, (c) => kept(c)?.prefix ?? prefixOf(c))),
              project: at(lookup(clusters, (c) => kept(c)?.project ?? str(c.values.project))),
              destinationName: at(lookup(clusters, (c) => kept(c)?.destinationName ?? destinationName(c))),
              destinationServer: at(lookup(clusters, (c) => kept(c)?.destinationServer ?? destinationServer(c))),
            },
          },
        },
      ],
      // deleting the ApplicationSet never cascades into the providers
      syncPolicy: { preserveResourcesOnDeletion: true },
      template: {
        metadata: {
          name: '{{ .values.prefix }}-{{ .path.basename }}',
          labels: { 'app.kubernetes.io/managed-by': 'capi-gitops', 'capi-gitops.dev/cluster': '{{ .values.cluster }}' },
        },
        spec: {
          project: '{{ .values.project }}',
          source: { repoURL: str(values.repoURL), targetRevision: str(values.targetRevision) || 'HEAD', path: '{{ .path.path }}' },
          destination: { name: '{{ .values.destinationName }}', server: '{{ .values.destinationServer }}' },
          ...(isValuesMap(values.syncPolicy) ? { syncPolicy: withoutNulls(values.syncPolicy) } : {}),
          ...(ignoreDifferences.length > 0 ? { ignoreDifferences } : {}),
        },
      },
    },
  };
  const file = objectFileName(object);
  return new Map([
    [`${FLEET_WIRING_DIRECTORY}/${file}`, GENERATED_COMMENT + emitYamlDocument(object)],
    [`${FLEET_WIRING_DIRECTORY}/${KUSTOMIZATION_FILE}`, renderKustomization({ comment: GENERATED_COMMENT, resources: [file] })],
  ]);
}
