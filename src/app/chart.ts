/** `capi-gitops chart show`: a built-in chart's files, to read or to copy as the start of one's own. */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { BUILT_IN_CHARTS } from '../layout/chart/load.js';
import { writeNewDirectory } from '../output/new-directory.js';

export type BuiltInChart = (typeof BUILT_IN_CHARTS)[number];

/** The chart's files, by path inside it, sorted. */
export async function chartFiles(name: BuiltInChart): Promise<[string, string][]> {
  // loaded when asked for, as a render with a built-in chart does (layout/chart/index.ts): fast-glob and the charts' sources
  const { builtInChartFiles } = await import('../layout/chart/load.js');
  return builtInChartFiles(name);
}

/** Copies the chart into `outputDir`, which must not exist yet (its parents are made); returns the files. */
export async function copyChart(name: BuiltInChart, outputDir: string): Promise<[string, string][]> {
  const files = await chartFiles(name);
  await writeNewDirectory(path.resolve(outputDir), files);
  return files;
}

/** A file's first bytes that say it is a capi-gitops Config document. */
const CONFIG_KIND = /^kind:\s*Config\s*$/m;
const CONFIG_API = /^apiVersion:\s*capi-gitops\.dev\//m;

/** The first Config file (`*.yaml`, `*.yml`, by name) directly in `dir`, if any. */
async function configFileIn(dir: string): Promise<string | undefined> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names.filter((n) => /\.ya?ml$/.test(n)).sort()) {
    const file = path.join(dir, name);
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile() || info.size > 1024 * 1024) continue;
    const text = await readFile(file, 'utf8').catch(() => '');
    if (CONFIG_KIND.test(text) && CONFIG_API.test(text)) return file;
  }
  return undefined;
}

/**
 * The Config file a chart written to `chartDir` most likely goes with, for the gitops.chart a user
 * pastes (read from the directory of the Config file that declares it): the nearest one in the
 * chart's parent and its ancestors up to `cwd`, else in `cwd`.
 */
export async function configFileFor(chartDir: string, cwd = process.cwd()): Promise<string | undefined> {
  const chart = path.resolve(cwd, chartDir);
  const dirs: string[] = [];
  for (let dir = path.dirname(chart); ; dir = path.dirname(dir)) {
    const inside = path.relative(cwd, dir);
    if (inside.startsWith('..') || path.isAbsolute(inside)) break;
    dirs.push(dir);
    if (dir === cwd || dir === path.dirname(dir)) break;
  }
  if (!dirs.includes(cwd)) dirs.push(cwd);
  for (const dir of dirs) {
    const file = await configFileIn(dir);
    if (file) return file;
  }
  return undefined;
}
