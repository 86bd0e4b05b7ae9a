import path from 'node:path';
import type { Manifest } from '../manifest/types.js';
import { prepareChart } from '../layout/chart/index.js';
import type { RenderOptions } from './types.js';
import type { WiringInput } from '../layout/wiring.js';
import { declaringDir } from '../resolve/resolve.js';

/**
 * Config.gitops.chart as a path: read from the directory of the Config file that declares it (the
 * merged Config's relative paths are the first Config document's, config-merge.ts), not the
 * directory of the first -f file.
 */
export function userChartPath(manifest: Manifest): string | undefined {
  const chart = manifest.config.gitops?.chart;
  return chart ? path.resolve(declaringDir(manifest.config.position, manifest.baseDir), chart) : undefined;
}

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
    userChart: userChartPath(manifest),
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
  // a key a values file gives twice: Helm takes the last, told at the repeat
  for (const warning of prepared.warnings ?? []) options.onWarning?.(warning);
  return { ...prepared, ...(options.onWarning && { onWarning: options.onWarning }) };
}
