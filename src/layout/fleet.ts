/**
 * The fleet layout: each cluster's tree (as layoutOutput draws it) under `clusters/<name>/`,
 * with one README that lists every cluster, its release and its component versions.
 */
import { compareStrings } from '../core/diagnostics.js';
import { GITATTRIBUTES, GITATTRIBUTES_FILE, README_FILE, type LayoutName } from './index.js';
import { secretFilesListed } from './secret-files-section.js';
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
  /**
   * Files of clusters not rendered in this run, read from the output as they are (full paths),
   * with the previous README.md (readClusterFiles): its list of files holding secret values is
   * kept for those clusters.
   */
  kept: ReadonlyMap<string, string>;
  /** The fleet's own wiring at the root (the fleet's ApplicationSet), full paths. */
  fleetWiring?: ReadonlyMap<string, string>;
  command: string;
}

/** The directory of a cluster in the output. */
export function clusterDirectory(name: string): string {
  return `${CLUSTERS_DIRECTORY}/${name}`;
}

/**
 * The files holding secret values (the inline strategy), as paths in the fleet's tree: each
 * rendered cluster's README lists its own; a cluster not rendered keeps what the previous README listed.
 */
function fleetSecretFiles(input: FleetLayoutInput): string[] {
  const out: string[] = [];
  const previous = secretFilesListed(input.kept.get(README_FILE) ?? '');
  for (const cluster of input.clusters) {
    const prefix = `${clusterDirectory(cluster.name)}/`;
    if (cluster.files) out.push(...secretFilesListed(cluster.files.get(README_FILE) ?? '').map((file) => prefix + file));
    else out.push(...previous.filter((file) => file.startsWith(prefix)));
  }
  return out.sort(compareStrings);
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
