/** `capi-gitops chart show`: a built-in chart's files, to read or to copy as the start of one's own. */
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
