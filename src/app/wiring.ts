import path from 'node:path';
import type { Manifest } from '../manifest/types.js';
import { prepareChart } from '../layout/chart/index.js';
import type { RenderOptions } from './types.js';
import type { WiringInput } from '../layout/wiring.js';

/**
 * A wiring chart with every values layer: built-in or Config.gitops.chart, Config values, --values, --set;
 * and where the layout tells what it writes but doubts (a field the CRDs capi-gitops knows lack).
 */
export async function prepareWiring(
  builtIn: string,
  manifest: Manifest,
  options: RenderOptions,
): Promise<Awaited<ReturnType<typeof prepareChart>> & Pick<WiringInput, 'onWarning'>> {
  const gitops = manifest.config.gitops ?? {};
  const prepared = await prepareChart({
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
  return { ...prepared, ...(options.onWarning && { onWarning: options.onWarning }) };
}
