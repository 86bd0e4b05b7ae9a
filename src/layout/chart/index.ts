/**
 * The chart stage's entry: which chart draws the wiring (built-in or the user's), and its
 * values from every layer, checked against its schema before any template runs.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type YAML from 'yaml';
import { CapiGitopsError, DiagnosticBag, type Diagnostic } from '../../core/diagnostics.js';
import { isValuesMap, type Values } from '../../core/values.js';
import { readBoundedText } from '../../manifest/files.js';
import { fieldPosition } from '../../manifest/yaml-source.js';
import { chartValues } from './values.js';
import { readValuesYaml, writtenText } from './values-yaml.js';
import { lineColumnAt } from '../../yaml/split.js';
import { otherSyncingTool, type LoadedChart, type ValuesLayer } from './types.js';
import { setExpressionValues, setFlag, type SetExpression } from '../../core/helm-set.js';
import { formatFieldPath } from '../../manifest/fields.js';

export interface ChartRequest {
  /** The layout's built-in chart. */
  builtIn: string;
  /** Config.gitops.chart, already resolved against the directory of the Config file that declares it. */
  userChart?: string;
  /** Config.gitops.path */
  path?: string;
  /** Config.gitops.values */
  configValues?: Values;
  /** Where a field of the Config was written, for problems with its values. */
  locateConfig?: (path: readonly (string | number)[]) => Pick<Diagnostic, 'file' | 'line' | 'column'>;
  /** Config.gitops.<layout>.values (`gitops.argocd.values`, `gitops.flux.values`): over the shared ones, for this chart only. */
  layoutValues?: Values;
  /** --values files, in order. */
  valuesFiles?: readonly string[];
  /** --set and --set-string, in order. */
  set?: readonly SetExpression[];
  /** The output directory, to find its path in its Git repository when Config.gitops.path is unset. */
  outputDir?: string;
  /** Where the tree the chart wires sits below the output directory (a fleet's `clusters/<name>`); appended to `path`. */
  subdirectory?: string;
  /**
   * Where a fleet cluster's own entry (`clusters[0]`, `clusters[0].unsupportedOverrides`), not the
   * shared Config, set a path of the Config's gitops (`['gitops', 'values', 'destination']`).
   */
  clusterEntry?: (configPath: readonly string[]) => string | undefined;
}

export interface PreparedChart {
  chart: LoadedChart;
  values: Values;
  /** Where the values gave a string that holds `text` (the layer that wins first), for a problem the rendered files show. */
  valueGiving?: (text: string) => ValueOrigin | undefined;
  /** What reading the chart and the values files found and Helm reads anyway (a key given twice), each at its line. */
  warnings?: Diagnostic[];
}

/** A value given by a layer: its path (`gitRepository.url`), the layer (`--set`, a file, the Config) and, in a file, its position. */
export interface ValueOrigin {
  path: string;
  given: string;
  position?: Pick<Diagnostic, 'file' | 'line' | 'column'>;
}

/** The path of the first string in `value` that holds `text`. */
function pathOfString(value: unknown, text: string, at: (string | number)[] = []): (string | number)[] | undefined {
  if (typeof value === 'string') return value.includes(text) ? at : undefined;
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : isValuesMap(value)
      ? Object.entries(value)
      : [];
  for (const [key, child] of entries) {
    const found = pathOfString(child, text, [...at, key]);
    if (found) return found;
  }
  return undefined;
}

/** The user layers and --set flags, the last (which wins) first: where a string the values gave came from. */
function valueGiving(layers: readonly ValuesLayer[], sets: readonly SetExpression[]): (text: string) => ValueOrigin | undefined {
  return (text) => {
    for (const set of [...sets].reverse()) {
      const found = pathOfString(setExpressionValues(set), text);
      if (found) return { path: formatFieldPath(found), given: setFlag(set) };
    }
    for (const layer of [...layers].reverse()) {
      const found = pathOfString(layer.values, text);
      if (found) return { path: formatFieldPath(found), given: layer.source, ...(layer.locate ? { position: layer.locate(found) } : {}) };
    }
    return undefined;
  };
}

/** A values file that is a list or a scalar, told at its first value: Helm reads a values file as a map. */
function notAMapping(file: string, text: string, doc: YAML.Document | undefined, values: unknown): Diagnostic {
  return {
    file,
    ...lineColumnAt(text, doc?.contents?.range?.[0] ?? 0),
    message: `is not a mapping: ${Array.isArray(values) ? 'a list' : `a ${typeof values}`}`,
    expected: 'a YAML mapping of chart values',
    hint: 'write the values as keys of a map, e.g. repoURL: https://git.example.com/platform/mgmt.git',
  };
}

/** Reads a `--values` file: a YAML mapping. */
export async function readValuesFile(file: string): Promise<ValuesLayer> {
  // Helm's -f - (pkg/cli/values/options.go readFile): one read of the stream, where a fleet or a diff reads values again
  if (file.trim() === '-')
    throw new CapiGitopsError({
      file,
      message: 'standard input is not read for values (Helm reads --values - from it)',
      expected: 'a readable YAML file',
      hint: 'write the values to a file and pass its path: --values values.yaml (a render can read them more than once: for each cluster of a fleet, for each side of a diff)',
    });
  let text: string;
  try {
    text = await readBoundedText(file);
  } catch (err) {
    if (err instanceof CapiGitopsError) throw err;
    throw new CapiGitopsError({
      file,
      message: `cannot read the values file: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
      expected: 'a readable YAML file',
      hint: 'check the path given to --values',
    });
  }
  const { value: values, source, warnings } = readValuesYaml(file, text, 'a YAML mapping of chart values');
  if (values === null || values === undefined) return { source: file, values: {}, warnings };
  if (!isValuesMap(values) || !source) throw new CapiGitopsError(notAMapping(file, text, source?.doc, values));
  // a value the chart refuses is told at its line in this file
  return {
    source: file,
    values,
    locate: (p) => fieldPosition(source, source.doc.contents, p, 'value'),
    written: (p) => writtenText(source, p),
    warnings,
  };
}

/** The output directory's path from the root of the Git repository that holds it, if any. */
function pathInRepository(outputDir: string): string | undefined {
  const target = path.resolve(outputDir);
  for (let dir = target; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, '.git'))) return path.relative(dir, target).split(path.sep).join('/') || '.';
    if (path.dirname(dir) === dir) return undefined;
  }
}

export async function prepareChart(request: ChartRequest): Promise<PreparedChart> {
  // loaded here, not at start-up: fast-glob is most of a kustomize render's module loading
  const { loadBuiltInChart, loadChart } = await import('./load.js');
  const chart = request.userChart
    ? await loadChart(request.userChart, request.userChart, { builtIn: request.builtIn, at: request.locateConfig?.(['gitops', 'chart']) })
    : await loadBuiltInChart(request.builtIn);
  const layers: ValuesLayer[] = [];
  const derived = request.outputDir ? pathInRepository(request.outputDir) : undefined;
  if (derived !== undefined) layers.push({ source: 'the output directory in its Git repository', values: { path: derived } });
  if (request.path !== undefined) layers.push({ source: 'Config gitops.path', values: { path: request.path } });
  const inConfig = (base: string[]) => {
    const locate = request.locateConfig;
    return locate ? { locate: (p: readonly (string | number)[]) => locate([...base, ...p]) } : {};
  };
  const ofCluster = (base: string[]) => {
    const entry = request.clusterEntry;
    return entry ? { ofFleetCluster: (segments: readonly string[]) => entry([...base, ...segments]) } : {};
  };
  if (request.configValues)
    layers.push({
      source: 'Config gitops.values',
      values: request.configValues,
      ...inConfig(['gitops', 'values']),
      ...ofCluster(['gitops', 'values']),
    });
  if (request.layoutValues)
    layers.push({
      source: `Config gitops.${request.builtIn}.values`,
      values: request.layoutValues,
      layout: request.builtIn,
      ...inConfig(['gitops', request.builtIn, 'values']),
      ...ofCluster(['gitops', request.builtIn, 'values']),
    });
  const bag = new DiagnosticBag();
  for (const file of request.valuesFiles ?? []) {
    try {
      layers.push(await readValuesFile(file));
    } catch (err) {
      bag.addError(err);
    }
  }
  bag.throwIfAny();
  // a path of the wrong type is the schema's to tell; an unknown one is told with the schema's problems (repoURL missing too)
  const values = valuesOfToolChart(chart, request.builtIn, () =>
    chartValues(
      chart,
      layers,
      request.set ?? [],
      (merged, schemaProblems) =>
        typeof merged.path === 'string' || schemaProblems.some((d) => d.path === 'path')
          ? []
          : [
              {
                object: `${chart.origin} values`,
                path: 'path',
                message: "the output directory's path in its Git repository is not known",
                expected: 'the path from the repository root to the output directory, e.g. clusters/mgmt/capi',
                hint: 'set gitops.path in the Config document, pass --set path=clusters/mgmt/capi, or write the output inside a Git repository',
              },
            ],
      request.builtIn,
    ),
  );
  if (typeof values.path !== 'string') throw new Error('chartValues returned values without a path');
  if (request.subdirectory)
    values.path =
      values.path === '.' || values.path === '' ? request.subdirectory : `${values.path.replace(/\/+$/, '')}/${request.subdirectory}`;
  const warnings = [...(chart.warnings ?? []), ...layers.flatMap((layer) => layer.warnings ?? [])];
  return { chart, values, valueGiving: valueGiving(layers, request.set ?? []), ...(warnings.length > 0 && { warnings }) };
}

/**
 * A chart of one's own that draws the other tool's wiring (started from `chart show argocd`,
 * rendered with --layout flux) fails its values first (its repoURL given for the argocd chart
 * only): say so before the values' problems, whose hints would lead to that error a run later.
 * The templates' text is read; the rendered objects are checked again in wiring.ts.
 */
function valuesOfToolChart(chart: LoadedChart, layout: string, values: () => Values): Values {
  try {
    return values();
  } catch (err) {
    const tools = otherSyncingTool(layout, chart.origin);
    const text = [...chart.templates, ...chart.partials].map((f) => f.source ?? '').join('\n');
    const writes = (group: string) => new RegExp(`apiVersion:\\s*["']?${group.replaceAll('.', '\\.')}/`).test(text);
    if (!(err instanceof CapiGitopsError) || !tools || !writes(tools.other.group) || writes(tools.own.group)) throw err;
    const { own, other, hint } = tools;
    throw new CapiGitopsError([
      {
        ...chart.namedAt,
        object: chart.origin,
        message: `the chart's templates write ${other.tool} objects (${other.group}) for the ${layout} layout, whose component directories carry ${own.tool}'s apply rules only`,
        expected: `objects of ${own.group}, as the built-in ${layout} chart draws`,
        hint,
      },
      ...err.diagnostics,
    ]);
  }
}
