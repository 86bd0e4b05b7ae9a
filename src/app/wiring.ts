import path from 'node:path';
import type { Manifest } from '../manifest/types.js';
import { prepareChart } from '../layout/chart/index.js';
import type { RenderOptions } from './types.js';

/** A wiring chart with every values layer: built-in or Config.gitops.chart, Config values, --values, --set. */
export function prepareWiring(builtIn: string, manifest: Manifest, options: RenderOptions): ReturnType<typeof prepareChart> {
  const gitops = manifest.config.gitops ?? {};
  return prepareChart({
    builtIn,
    userChart: gitops.chart ? path.resolve(manifest.baseDir, gitops.chart) : undefined,
    path: gitops.path,
    configValues: gitops.values,
    locateConfig: manifest.config.locate,
    layoutValues: gitops[builtIn as 'argocd' | 'flux']?.values,
    valuesFiles: options.valuesFiles,
    set: options.set,
    outputDir: options.outputDir,
    subdirectory: options.outputSubdirectory,
    clusterEntry: options.clusterGitopsEntry,
  });
}
