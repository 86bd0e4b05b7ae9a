/**
 * The fleet layouts: each cluster's tree (as layoutOutput draws it) under `clusters/<name>/`, with
 * one README that lists every cluster, its release and its component versions.
 *
 * `full`: every cluster's directory holds its complete tree.
 * `shared` (the default): an object file that two or more clusters render byte for byte is
 * written once, in a base of its component (`bases/<component>/<version>-<digest>/`, a
 * kustomization of its own); a cluster's component directory lists the bases it uses and holds
 * only the objects that are its own. No patches: every file is a complete object, and
 * `kubectl kustomize clusters/<name>` gives exactly what the full layout gives. The objects of a
 * base are those shared by the same clusters, so each object is written once, and a base's name
 * depends on its content alone: a cluster that moves to a new release adds bases and leaves the
 * other clusters' files as they were.
 *
 * Clusters come one after another (FleetTree.addCluster) and their files go out as they come
 * (FleetFiles), so a fleet's memory holds one cluster's tree, not every cluster's: an object that
 * may turn out to be shared is held under a key until every cluster is in, then placed.
 */
import { compareStrings } from '../core/diagnostics.js';
import { sha256Hex } from '../core/digest.js';
import { GITATTRIBUTES, GITATTRIBUTES_FILE, README_FILE, WIRED_LAYOUTS, type LayoutName } from './index.js';
import { KUSTOMIZATION_FILE } from './kustomize.js';
import { sanitizeFileNamePart } from './names.js';
import { GENERATED_COMMENT } from './provenance.js';
import { renderKustomization, template } from './templates.js';
import type { FleetLayoutName } from '../manifest/types.js';

export type { FleetLayoutName };

export const CLUSTERS_DIRECTORY = 'clusters';
const BASES_DIRECTORY = 'bases';
/** From a cluster's component directory (`clusters/<name>/<NN-label>`) to the output root. */
const TO_ROOT = '../../../';

/** A component of a cluster, as its README row and its directory in the cluster's tree. */
interface FleetComponent {
  label: string;
  version: string;
  namespace: string;
  /** Its directory in the cluster's tree (`<NN>-<label>`). */
  directory: string;
}

export interface FleetClusterTree {
  name: string;
  release?: string;
  /** Install order, as the fleet README lists them. */
  components: FleetComponent[];
}

/** Where a fleet's files go as they are laid out: the output's stage (output/write.ts OutputStage), or memory. */
export interface FleetFiles {
  /** A file of the tree, written now. */
  writeAll(files: Iterable<[string, string]>): Promise<void>;
  /** A file whose place is not known yet, held under `key` (a file name). */
  hold(key: string, text: string): Promise<void>;
  /** Puts each file held under a key at its place: `[key, file]`. */
  placeAll(placements: Iterable<[string, string]>): Promise<void>;
}

/** FleetFiles as a map: a fleet's render returned as its `files`, when the caller gives no FleetFiles of its own. */
export class FleetFilesInMemory implements FleetFiles {
  private readonly files = new Map<string, string>();
  private readonly held = new Map<string, string>();

  async writeAll(files: Iterable<[string, string]>): Promise<void> {
    for (const [file, text] of files) this.files.set(file, text);
  }

  async hold(key: string, text: string): Promise<void> {
    this.held.set(key, text);
  }

  async placeAll(placements: Iterable<[string, string]>): Promise<void> {
    for (const [key, file] of placements) {
      this.files.set(file, this.held.get(key)!);
      this.held.delete(key);
    }
  }

  /** The tree, sorted by path. */
  tree(): Map<string, string> {
    return new Map([...this.files].sort(([a], [b]) => compareStrings(a, b)));
  }
}

const FLEET_CLUSTER = /^clusters\/([^/]+)\//;

/** A fleet's file belongs to `clusters/<name>/`: its cluster, or '' outside a fleet. */
export function clusterOf(file: string): string {
  return FLEET_CLUSTER.exec(file)?.[1] ?? '';
}

/** The directory of a cluster in the output. */
export function clusterDirectory(name: string): string {
  return `${CLUSTERS_DIRECTORY}/${name}`;
}

/** An object file some cluster holds, and which clusters hold it byte for byte. */
interface ObjectEntry {
  directory: string;
  label: string;
  version: string;
  /** Its path in the component directory. */
  file: string;
  digest: string;
  /** The clusters holding it, by their index in the order they came. */
  clusters: number[];
}

interface ClusterRecord {
  name: string;
  /** Per component directory: its kustomization's header comment and its objects. */
  directories: Map<string, { header: string; objects: number[] }>;
}

interface FleetFinish {
  layout: LayoutName;
  /** Every cluster, rendered in this run or kept, for the README. */
  clusters: readonly FleetClusterTree[];
  /** The fleet's own wiring at the root (the fleet's ApplicationSet), full paths. */
  fleetWiring?: ReadonlyMap<string, string>;
  command: string;
}

/** A fleet's tree, one cluster at a time: `addCluster` for each (rendered or kept), then `finish`. */
export class FleetTree {
  private readonly objects: ObjectEntry[] = [];
  private readonly objectIds = new Map<string, number>();
  private readonly clusters: ClusterRecord[] = [];
  /** Files holding secret values (inline), as fleet paths: the fleet README lists them, as a cluster's would. */
  private readonly secretFiles: string[] = [];
  /** The last text at each path of a cluster's tree, and its digest (clusters mostly repeat them). */
  private readonly lastTexts = new Map<string, { text: string; digest: string }>();

  constructor(
    readonly fleetLayout: FleetLayoutName,
    private readonly out: FleetFiles,
    /**
     * Throws on a secret value in the files the tree writes itself at `finish`. Not the objects a
     * base holds: each is a cluster's own file byte for byte, searched as that cluster rendered
     * (or kept as the last run wrote it, for a cluster --cluster leaves out).
     */
    private readonly gate: (files: ReadonlyMap<string, string>) => void = () => undefined,
  ) {}

  /**
   * A cluster's tree as layoutOutput draws it (relative to the cluster's directory). `ownFiles`
   * are never shared (they hold secret values: each stays where the cluster's README names it).
   */
  async addCluster(
    cluster: FleetClusterTree,
    files: ReadonlyMap<string, string>,
    ownFiles: ReadonlySet<string> = new Set(),
  ): Promise<void> {
    const root = clusterDirectory(cluster.name);
    this.secretFiles.push(...[...ownFiles].map((file) => `${root}/${file}`));
    const final: [string, string][] = [];
    if (this.fleetLayout === 'full') {
      for (const [file, text] of files) if (!fleetLevelFile(file)) final.push([`${root}/${file}`, text]);
      await this.out.writeAll(final);
      return;
    }
    const components = new Map(cluster.components.map((c) => [c.directory, c]));
    const record: ClusterRecord = { name: cluster.name, directories: new Map() };
    const index = this.clusters.length;
    this.clusters.push(record);
    const held: [string, string][] = [];
    for (const [file, text] of files) {
      if (fleetLevelFile(file)) continue;
      const slash = file.indexOf('/');
      const component = slash < 0 ? undefined : components.get(file.slice(0, slash));
      if (!component || ownFiles.has(file)) {
        final.push([`${root}/${file}`, text]);
        continue;
      }
      const directory = record.directories.get(component.directory) ?? { header: '', objects: [] };
      record.directories.set(component.directory, directory);
      const rest = file.slice(slash + 1);
      if (rest === KUSTOMIZATION_FILE) {
        // written again at the end, listing bases and the cluster's own objects
        directory.header = text.slice(0, text.indexOf('apiVersion: '));
        continue;
      }
      const digest = this.digestOf(file, text);
      const key = [component.directory, component.label, component.version, rest, digest].join('\0');
      let id = this.objectIds.get(key);
      if (id === undefined) {
        id = this.objects.length;
        this.objectIds.set(key, id);
        this.objects.push({
          directory: component.directory,
          label: component.label,
          version: component.version,
          file: rest,
          digest,
          clusters: [],
        });
        held.push([heldKey(id), text]);
      }
      this.objects[id]!.clusters.push(index);
      directory.objects.push(id);
    }
    await Promise.all([this.out.writeAll(final), ...held.map(([key, text]) => this.out.hold(key, text))]);
  }

  /**
   * A file's digest, taken from the cluster before when the text at that path is the same: the
   * run's emitter hands out one string for equal objects, so the comparison is mostly of a
   * string with itself, and it stops at the first difference otherwise.
   */
  private digestOf(file: string, text: string): string {
    const last = this.lastTexts.get(file);
    if (last !== undefined && last.text === text) return last.digest;
    const digest = sha256Hex(text);
    this.lastTexts.set(file, { text, digest });
    return digest;
  }

  /** The bases and the clusters' component kustomizations (shared layout), the fleet's wiring, README and .gitattributes. */
  async finish(input: FleetFinish): Promise<void> {
    const files: [string, string][] = this.fleetLayout === 'shared' ? await this.placeObjects() : [];
    const wiring = input.layout === 'argocd' || input.layout === 'flux' ? WIRED_LAYOUTS[input.layout] : undefined;
    files.push(...(input.fleetWiring ?? []));
    files.push([GITATTRIBUTES_FILE, GITATTRIBUTES]);
    files.push([
      README_FILE,
      template('output/fleet-README.md.hbs')({
        command: input.command,
        layout: input.layout,
        shared: this.fleetLayout === 'shared',
        basesDirectory: BASES_DIRECTORY,
        wiringDirectory: wiring?.wiringDirectory,
        wiringTool: wiring?.tool,
        fleetApplicationSet: (input.fleetWiring?.size ?? 0) > 0,
        clusters: [...input.clusters].sort((a, b) => compareStrings(a.name, b.name)),
        secretFiles: [...this.secretFiles].sort(compareStrings),
      }),
    ]);
    this.gate(new Map(files));
    await this.out.writeAll(files);
  }

  /**
   * Objects held by two or more clusters go to bases, one per component, version and set of
   * clusters holding them; the others to their cluster's directory. Each component directory
   * gets its kustomization: its bases, then its own objects (returned, to be written).
   */
  private async placeObjects(): Promise<[string, string][]> {
    const groups = new Map<string, number[]>();
    this.objects.forEach((o, id) => {
      if (o.clusters.length < 2) return;
      const group = [o.directory, o.label, o.version, o.clusters.join(',')].join('\0');
      const ids = groups.get(group) ?? [];
      ids.push(id);
      groups.set(group, ids);
    });
    const placements: [string, string][] = [];
    const files: [string, string][] = [];
    const baseOf = new Map<number, string>();
    const contents = new Map<string, string>();
    for (const ids of groups.values()) {
      const members = ids.map((id) => this.objects[id]!).sort((a, b) => compareStrings(a.file, b.file));
      const first = members[0]!;
      const content = [first.directory, ...members.map((m) => `${m.file}\0${m.digest}`)].join('\n');
      const directory = `${BASES_DIRECTORY}/${sanitizeFileNamePart(first.label)}/${sanitizeFileNamePart(first.version)}-${sha256Hex(content).slice(0, 12)}`;
      // 48 bits of the digest name a base; two contents under one name would be one base for both
      if (contents.has(directory) && contents.get(directory) !== content) throw new Error(`two bases share the name ${directory}`);
      contents.set(directory, content);
      for (const id of ids) {
        baseOf.set(id, directory);
        placements.push([heldKey(id), `${directory}/${this.objects[id]!.file}`]);
      }
      const comment = `# Generated by capi-gitops: the objects of ${first.label} ${first.version} that several clusters render byte for byte. Do not edit.\n`;
      files.push([`${directory}/${KUSTOMIZATION_FILE}`, renderKustomization({ comment, resources: members.map((m) => m.file) })]);
    }
    for (const cluster of this.clusters) {
      const root = clusterDirectory(cluster.name);
      for (const [dir, { header, objects }] of cluster.directories) {
        const bases = new Set<string>();
        const own: string[] = [];
        for (const id of objects) {
          const base = baseOf.get(id);
          if (base !== undefined) bases.add(base);
          else {
            own.push(this.objects[id]!.file);
            placements.push([heldKey(id), `${root}/${dir}/${this.objects[id]!.file}`]);
          }
        }
        const resources = [...[...bases].sort(compareStrings).map((b) => `${TO_ROOT}${b}`), ...own.sort(compareStrings)];
        files.push([`${root}/${dir}/${KUSTOMIZATION_FILE}`, renderKustomization({ comment: header || GENERATED_COMMENT, resources })]);
      }
    }
    await this.out.placeAll(placements);
    return files;
  }
}

/** One README and one .gitattributes, at the root, serve the whole fleet. */
function fleetLevelFile(file: string): boolean {
  return file === README_FILE || file === GITATTRIBUTES_FILE;
}

function heldKey(id: number): string {
  return `object-${id}`;
}

/**
 * A cluster's directory in the shared layout as the full layout writes it: each base a
 * component kustomization lists is read into the component directory, and the kustomization
 * lists every object again. `read` gives a file of the output (a path from its root).
 */
export async function expandClusterTree(
  files: ReadonlyMap<string, string>,
  read: (file: string) => Promise<string | undefined>,
  parseResources: (kustomization: string) => string[],
): Promise<Map<string, string>> {
  const tree = new Map(files);
  for (const [file, text] of files) {
    const dir = file.slice(0, file.length - KUSTOMIZATION_FILE.length - 1);
    if (!file.endsWith(`/${KUSTOMIZATION_FILE}`) || dir.includes('/')) continue;
    const resources = parseResources(text);
    const bases = resources.filter((r) => r.startsWith(`${TO_ROOT}${BASES_DIRECTORY}/`));
    if (bases.length === 0) continue;
    const all = resources.filter((r) => !bases.includes(r));
    for (const base of bases) {
      const directory = base.slice(TO_ROOT.length);
      const listed = await read(`${directory}/${KUSTOMIZATION_FILE}`);
      for (const object of listed === undefined ? [] : parseResources(listed)) {
        const objectText = await read(`${directory}/${object}`);
        if (objectText === undefined) continue;
        tree.set(`${dir}/${object}`, objectText);
        all.push(object);
      }
    }
    const header = text.slice(0, text.indexOf('apiVersion: '));
    tree.set(file, renderKustomization({ comment: header, resources: all.sort(compareStrings) }));
  }
  return tree;
}
