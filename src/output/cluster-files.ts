/**
 * What a previous run wrote for clusters this run does not render (`render --cluster`), read back
 * through the ownership index so they are written again unchanged.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { clusterDirectory } from '../layout/fleet.js';
import { INDEX_FILE } from '../layout/output-paths.js';
import { parseIndex } from './ownership-index.js';
import { README_FILE } from '../layout/index.js';

/**
 * The files a previous run wrote for these clusters, with their bytes, so that a run that
 * renders other clusters writes them back unchanged (the writer keeps their inodes and times).
 */
export async function readClusterFiles(outDir: string, clusters: readonly string[]): Promise<Map<string, string>> {
  const indexPath = path.join(outDir, INDEX_FILE);
  const indexText = await readFile(indexPath, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
    throw err;
  });
  if (indexText === undefined) return new Map();
  const prefixes = clusters.map((c) => `${clusterDirectory(c)}/`);
  const owned = parseIndex(indexText, indexPath).filter((p) => prefixes.some((prefix) => p.startsWith(prefix)));
  const texts = await Promise.all(owned.map((p) => readFile(path.join(outDir, p), 'utf8').catch(() => undefined)));
  const kept = new Map<string, string>();
  owned.forEach((p, i) => {
    if (texts[i] !== undefined) kept.set(p, texts[i]!);
  });
  // the previous README, whose list of files holding secret values layoutFleet keeps for these clusters
  const readme = await readFile(path.join(outDir, README_FILE), 'utf8').catch(() => undefined);
  if (readme !== undefined) kept.set(README_FILE, readme);
  return kept;
}
