/**
 * The fleet layout: each cluster's tree (as layoutOutput draws it) under `clusters/<name>/`,
 * with one README that lists every cluster, its release and its component versions.
 */
import { compareStrings } from '../core/diagnostics.js';
import { GITATTRIBUTES, GITATTRIBUTES_FILE, README_FILE, type LayoutName } from './index.js';
import { template } from './templates.js';

export const CLUSTERS_DIRECTORY = 'clusters';

const WIRING = {
  kustomize: undefined,
  operator: undefined,
  argocd: { directory: 'argocd', tool: 'Argo CD' },
  flux: { directory: 'flux', tool: 'Flux' },
} as const;

export interface FleetClusterTree {
  name: string;
  release?: string;
  /** Install order, as the cluster's README lists them. */
  components: { label: string; version: string; namespace: string }[];
  /** The cluster's tree from layoutOutput; undefined when it is not rendered in this run (`--cluster`). */
  files?: ReadonlyMap<string, string>;
}

export interface FleetLayoutInput {
  layout: LayoutName;
  clusters: readonly FleetClusterTree[];
  /** Files of clusters not rendered in this run, read from the output as they are (full paths). */
  kept: ReadonlyMap<string, string>;
  /** The fleet's own wiring at the root (the fleet's ApplicationSet), full paths. */
  fleetWiring?: ReadonlyMap<string, string>;
  command: string;
  /** The fleet README the last run wrote, for the secret files of clusters not rendered in this run. */
  previousReadme?: string;
}

/** The heading and list templates/output/README.md.hbs writes for the inline strategy's files. */
const SECRET_FILES_SECTION = /## Warning: files holding secret values\n([\s\S]*?)(?:\n## |$)/;

function declaredSecretFiles(readme: string | undefined): string[] {
  const section = readme === undefined ? '' : (SECRET_FILES_SECTION.exec(readme)?.[1] ?? '');
  return [...section.matchAll(/^- `([^`]+)`$/gm)].map((m) => m[1]!);
}

/** Every cluster's files that hold secret values (inline), as fleet paths: its own README is not written. */
function fleetSecretFiles(input: FleetLayoutInput): string[] {
  const previous = declaredSecretFiles(input.previousReadme);
  return input.clusters
    .flatMap((cluster) => {
      const dir = `${clusterDirectory(cluster.name)}/`;
      if (!cluster.files) return previous.filter((f) => f.startsWith(dir));
      return declaredSecretFiles(cluster.files.get(README_FILE)).map((f) => dir + f);
    })
    .sort(compareStrings);
}

/** The directory of a cluster in the output. */
export function clusterDirectory(name: string): string {
  return `${CLUSTERS_DIRECTORY}/${name}`;
}

export function layoutFleet(input: FleetLayoutInput): Map<string, string> {
  const files = new Map<string, string>(input.kept);
  for (const cluster of input.clusters) {
    for (const [file, text] of cluster.files ?? []) {
      // one README and one .gitattributes, at the root, serve the whole fleet
      if (file === README_FILE || file === GITATTRIBUTES_FILE) continue;
      files.set(`${clusterDirectory(cluster.name)}/${file}`, text);
    }
  }
  for (const [file, text] of input.fleetWiring ?? []) files.set(file, text);
  const wiring = WIRING[input.layout];
  files.set(GITATTRIBUTES_FILE, GITATTRIBUTES);
  files.set(
    README_FILE,
    template('output/fleet-README.md.hbs')({
      command: input.command,
      layout: input.layout,
      wiringDirectory: wiring?.directory,
      wiringTool: wiring?.tool,
      fleetApplicationSet: (input.fleetWiring?.size ?? 0) > 0,
      clusters: [...input.clusters].sort((a, b) => compareStrings(a.name, b.name)),
      secretFiles: fleetSecretFiles(input),
    }),
  );
  return new Map([...files].sort(([a], [b]) => compareStrings(a, b)));
}
