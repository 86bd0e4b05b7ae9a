import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

/** Every file under `dir` (relative path → content), hidden files included. */
export function readTree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(dir, rel)).sort()) {
      const relPath = rel ? `${rel}/${entry}` : entry;
      if (statSync(path.join(dir, relPath)).isDirectory()) walk(relPath);
      else files.set(relPath, readFileSync(path.join(dir, relPath), 'utf8'));
    }
  };
  walk('');
  return files;
}

let kubectlFound: boolean | undefined;
/** Whether kubectl runs here (asked once per process: tests ask inside loops). */
export function kubectlAvailable(): boolean {
  kubectlFound ??= spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
  return kubectlFound;
}

/** `kubectl kustomize <dir>` output; throws with kubectl's stderr on failure. */
export function kubectlKustomize(dir: string): string {
  const result = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`kubectl kustomize failed: ${result.stderr}`);
  return result.stdout;
}
