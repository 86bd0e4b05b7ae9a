/**
 * What a previous run wrote for clusters this run does not render (`render --cluster`), read back
 * through the ownership index so they are written again unchanged.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import { clusterDirectory, expandClusterTree } from '../layout/fleet.js';
import { INDEX_FILE } from '../layout/output-paths.js';
import { KUSTOMIZATION_FILE } from '../layout/kustomize.js';
import { CapiGitopsError } from '../core/diagnostics.js';
import { mapLimited, OPEN_FILES } from '../core/map-limited.js';
import { shellWord } from '../core/shell.js';
import { YamlBudget } from '../yaml/bounds.js';
import { parseIndex } from './ownership-index.js';
import { README_FILE, WIRED_LAYOUTS, type LayoutName } from '../layout/index.js';
import { OPERATOR_DIRECTORY } from '../layout/operator.js';
import { secretFilesListed } from '../layout/secret-files-section.js';

/** The clusters of the output a previous run wrote, each read as its full tree. */
export class KeptClusters {
  /** Files of the bases, read once for every cluster that lists them. */
  private readonly bases = new Map<string, Promise<string | undefined>>();
  private readme: Promise<string> | undefined;
  private directories: Map<string, Set<string>> | undefined;

  private constructor(
    private readonly outDir: string,
    private readonly owned: readonly string[],
  ) {}

  /** The output's ownership index; none (nothing kept) when there is no output yet. */
  static async read(outDir: string): Promise<KeptClusters> {
    const indexPath = path.join(outDir, INDEX_FILE);
    const indexText = await readFile(indexPath, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
      throw err;
    });
    return new KeptClusters(outDir, indexText === undefined ? [] : parseIndex(indexText, indexPath));
  }

  /**
   * The layout a previous run wrote a cluster in, read from the directories the ownership index
   * lists for it (the operator's, else a wiring's); undefined when it wrote nothing for it.
   */
  layoutOf(name: string): LayoutName | undefined {
    // each cluster's directories, from one pass over the index (a fleet's holds every cluster's files)
    this.directories ??= clusterDirectories(this.owned);
    const has = this.directories.get(name);
    if (has === undefined) return undefined;
    if (has.has(OPERATOR_DIRECTORY)) return 'operator';
    const wired = (Object.keys(WIRED_LAYOUTS) as (keyof typeof WIRED_LAYOUTS)[]).find((l) => has.has(WIRED_LAYOUTS[l].wiringDirectory));
    return wired ?? 'kustomize';
  }

  /** The files holding secret values the previous fleet README listed for this cluster (relative to its directory). */
  async secretFiles(name: string): Promise<Set<string>> {
    this.readme ??= readFile(path.join(this.outDir, README_FILE), 'utf8').catch(() => '');
    const prefix = `${clusterDirectory(name)}/`;
    const listed = secretFilesListed(await this.readme).filter((file) => file.startsWith(prefix));
    return new Set(listed.map((file) => file.slice(prefix.length)));
  }

  /**
   * The files a previous run wrote for this cluster (relative to its directory), with their
   * bytes, so that a run that renders other clusters writes them back unchanged (the writer keeps
   * their inodes and times). In the shared layout, the objects of the bases its kustomizations
   * list are read into it, so it counts for the bases as a rendered cluster does.
   */
  async cluster(name: string): Promise<Map<string, string>> {
    const prefix = `${clusterDirectory(name)}/`;
    const paths = this.owned.filter((p) => p.startsWith(prefix));
    const texts = await mapLimited(paths, OPEN_FILES, (p) => this.file(p));
    const files = new Map<string, string>();
    paths.forEach((p, i) => {
      if (texts[i] !== undefined) files.set(p.slice(prefix.length), texts[i]!);
    });
    return expandClusterTree(files, (file) => this.base(file), resourcesOf);
  }

  private base(file: string): Promise<string | undefined> {
    let text = this.bases.get(file);
    if (text === undefined) this.bases.set(file, (text = this.file(file)));
    return text;
  }

  private async file(file: string): Promise<string | undefined> {
    const shown = path.join(this.outDir, file);
    const text = await readFile(shown, 'utf8').catch(() => undefined);
    // a kustomization is parsed for its resources: held to the YAML bounds first, as any input is
    if (text !== undefined && path.basename(file) === KUSTOMIZATION_FILE) keptKustomizationWithinBounds(text, shown);
    return text;
  }
}

/** The directories right below each cluster's (`clusters/<name>/<directory>/…`) among the paths. */
function clusterDirectories(paths: readonly string[]): Map<string, Set<string>> {
  const prefix = `${clusterDirectory('')}`;
  const directories = new Map<string, Set<string>>();
  for (const p of paths) {
    if (!p.startsWith(prefix)) continue;
    const [name, directory] = p.slice(prefix.length).split('/', 2);
    if (!name || directory === undefined) continue;
    let set = directories.get(name);
    if (!set) directories.set(name, (set = new Set()));
    set.add(directory);
  }
  return directories;
}

/** A kept cluster's kustomization over the YAML bounds is refused at its line, before it is parsed. */
function keptKustomizationWithinBounds(text: string, shown: string): void {
  try {
    new YamlBudget().check(text, shown);
  } catch (err) {
    if (!(err instanceof CapiGitopsError)) throw err;
    throw new CapiGitopsError(
      err.diagnostics.map((d) => ({
        ...d,
        expected: `a kustomization as capi-gitops render writes it: ${d.expected ?? 'YAML within the bounds'}`,
        hint: `render writes this file: render every cluster again (without --cluster) to rewrite it, or restore the committed one (git checkout -- ${shellWord(shown)})`,
      })),
    );
  }
}

/** The `resources` a kustomization lists (none for one that does not read). */
function resourcesOf(kustomization: string): string[] {
  try {
    const parsed = YAML.parse(kustomization) as { resources?: unknown } | null;
    return Array.isArray(parsed?.resources) ? parsed.resources.filter((r): r is string => typeof r === 'string') : [];
  } catch {
    return [];
  }
}
