import { createRequire } from 'node:module';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML, { LineCounter } from 'yaml';
import { fieldPosition, PARSE_OPTIONS } from '../../manifest/yaml-source.js';
import { readValuesYaml } from './values-yaml.js';
import fg from 'fast-glob';
import { CapiGitopsError, DiagnosticBag, compareStrings, type Diagnostic } from '../../core/diagnostics.js';
import { isValuesMap, type Values } from '../../core/values.js';
import { readBoundedText } from '../../manifest/files.js';
import { lineColumnAt } from '../../yaml/split.js';
import type { ChartFile, ChartMetadata, LoadedChart, ValuesValidator } from './types.js';
import type { ChartCompilers } from './compilers.js';

const require = createRequire(import.meta.url);

/** The built-in charts ship in the package's `charts/` directory. */
export const BUILT_IN_CHARTS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'charts');
import { BUILT_IN_CHARTS } from './types.js';
export { BUILT_IN_CHARTS };

const CHART_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await readBoundedText(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function problem(file: string, message: string, expected: string, hint?: string): Diagnostic {
  return { file, message, expected, ...(hint ? { hint } : {}) };
}

/** Chart.yaml or values.yaml as Helm reads it (values-yaml.ts); a key given twice is a warning in `warnings`. */
function parseYamlMap(text: string, file: string, bag: DiagnosticBag, warnings: Diagnostic[]): Values | undefined {
  let value: unknown;
  try {
    const read = readValuesYaml(file, text, 'a YAML mapping');
    warnings.push(...read.warnings);
    value = read.value;
  } catch (err) {
    bag.addError(err);
    return undefined;
  }
  if (value === null || value === undefined) return {};
  if (!isValuesMap(value)) {
    bag.add(problem(file, 'is not a mapping', 'a YAML mapping of keys to values'));
    return undefined;
  }
  return value;
}

/** A field's value as Chart.yaml has it, for a message: `is "v1"`, `is missing`. */
const isValue = (value: unknown) => (value === undefined || value === null ? 'is missing' : `is ${JSON.stringify(value)}`);

/**
 * Chart.yaml's fields, each problem at its value's line and column (`at`), a missing one at the
 * mapping that lacks it, with what to write there.
 */
function chartMetadata(
  value: Values | undefined,
  file: string,
  bag: DiagnosticBag,
  at: (field: string) => Pick<Diagnostic, 'line' | 'column'>,
): ChartMetadata | undefined {
  if (!value) return undefined;
  const before = bag.size;
  const tell = (field: string, expected: string, hint: string) =>
    bag.add({ ...problem(file, isValue(value[field]), expected, hint), ...at(field), path: field });
  if (value.apiVersion !== 'v2') tell('apiVersion', 'apiVersion: v2 (Helm 3 charts)', 'write apiVersion: v2');
  if (typeof value.name !== 'string' || !CHART_NAME.test(value.name)) {
    const label =
      typeof value.name === 'string'
        ? value.name
            .toLowerCase()
            .replace(/[^a-z0-9-]+/g, '-')
            .replace(/^-+|-+$/g, '')
        : '';
    tell('name', 'a lower-case DNS label such as my-wiring', `write name: ${CHART_NAME.test(label) ? label : 'my-wiring'}`);
  }
  if (typeof value.version !== 'string' || value.version === '') tell('version', 'a SemVer version such as 0.1.0', 'write version: 0.1.0');
  if (value.description !== undefined && typeof value.description !== 'string')
    tell('description', 'a one-line description', 'write the description as one line of text, or remove it');
  if (bag.size > before) return undefined;
  return {
    apiVersion: 'v2',
    name: value.name as string,
    version: value.version as string,
    ...(typeof value.description === 'string' ? { description: value.description } : {}),
  };
}

/** Every `$ref` in a schema must point inside it (`#…`): a chart never makes the tool fetch. */
function remoteReferences(node: unknown, at: string[], out: { at: string[]; ref: string }[]): { at: string[]; ref: string }[] {
  if (Array.isArray(node)) node.forEach((item, i) => remoteReferences(item, [...at, String(i)], out));
  else if (isValuesMap(node)) {
    for (const [key, value] of Object.entries(node)) {
      if ((key === '$ref' || key === '$dynamicRef') && typeof value === 'string' && !value.startsWith('#'))
        out.push({ at: [...at, key], ref: value });
      else remoteReferences(value, [...at, key], out);
    }
  }
  return out;
}

/**
 * JSON.parse's error at the line and column of its offset (V8 names the offset; Node 22 adds a
 * line and column of its own, which this replaces).
 */
function jsonProblem(text: string, file: string, message: string): Diagnostic {
  const offset = /at position (\d+)/.exec(message)?.[1];
  const reason = message.replace(/\s*(in JSON )?at position \d+( \(line \d+ column \d+\))?/, '');
  if (offset === undefined) return problem(file, `not valid JSON: ${reason}`, 'a JSON Schema document');
  const { line, column } = lineColumnAt(text, Number(offset));
  return {
    ...problem(
      file,
      `not valid JSON: ${reason}`,
      'a JSON Schema document',
      'correct the JSON there: a comma too many or missing, or a quote, is the usual cause',
    ),
    line,
    column,
  };
}

function parseSchema(text: string, file: string, bag: DiagnosticBag): Record<string, unknown> | undefined {
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (err) {
    bag.add(jsonProblem(text, file, (err as Error).message));
    return undefined;
  }
  if (!isValuesMap(schema)) {
    bag.add(problem(file, 'is not a JSON object', 'a JSON Schema document'));
    return undefined;
  }
  const remote = remoteReferences(schema, [], []);
  // JSON is YAML: the schema is read again for the positions only when one is told
  const position = remote.length > 0 ? defaultsLocator(file, text) : undefined;
  for (const { at, ref } of remote) {
    const { line, column } = position!(at);
    bag.add({
      ...problem(
        file,
        `refers outside itself: ${['#', ...at].join('/')}: ${ref}`,
        'only local references ("$ref": "#/$defs/…")',
        'copy the referenced definitions into $defs: charts are rendered offline and never fetch schemas',
      ),
      line,
      column,
    });
  }
  if (remote.length > 0) return undefined;
  return schema;
}

async function chartFiles(dir: string): Promise<{ templates: ChartFile[]; partials: ChartFile[] }> {
  const templatesDir = path.join(dir, 'templates');
  let names: string[];
  try {
    names = (await readdir(templatesDir)).sort(compareStrings);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { templates: [], partials: [] };
    throw err;
  }
  const templates: ChartFile[] = [];
  const partials: ChartFile[] = [];
  for (const name of names) {
    const isPartial = name.startsWith('_') && name.endsWith('.hbs');
    const isTemplate = !name.startsWith('_') && (name.endsWith('.yaml') || name.endsWith('.yml'));
    if (!isPartial && !isTemplate) continue;
    const source = await readBoundedText(path.join(templatesDir, name));
    (isPartial ? partials : templates).push({ path: `templates/${name}`, source });
  }
  return { templates, partials };
}

/** Where a user's chart was named and which built-in chart its layout draws with, for a chart that is missing. */
export interface ChartNamedBy {
  /** Config.gitops.chart's position: the field to change, not a Chart.yaml that is not there. */
  at?: Pick<Diagnostic, 'file' | 'line' | 'column'>;
  /** The layout's built-in chart, the one to start from (`--layout flux` draws with flux). */
  builtIn?: string;
}

/** Reads a chart directory; every problem with it in one error. */
export async function loadChart(dir: string, origin = dir, namedBy: ChartNamedBy = {}): Promise<LoadedChart> {
  const bag = new DiagnosticBag();
  const chartFile = path.join(dir, 'Chart.yaml');
  const chartText = await readOptional(chartFile);
  if (chartText === undefined) {
    // `chart show --output-dir` writes only a directory that does not exist yet.
    const exists = await readdir(dir).then(
      () => true,
      () => false,
    );
    const builtIn = namedBy.builtIn ?? 'argocd';
    throw new CapiGitopsError({
      ...(namedBy.at ?? { file: chartFile }),
      message: exists ? `no Chart.yaml in ${origin}` : `no chart directory ${origin}`,
      expected: 'a chart directory: Chart.yaml, values.yaml, templates/*.yaml',
      hint: exists
        ? `start from a built-in chart in a new directory (capi-gitops chart show ${builtIn} --output-dir ${dir}-chart) and point gitops.chart at it`
        : `start from a built-in chart: capi-gitops chart show ${builtIn} --output-dir ${dir}`,
    });
  }
  const chartAt = defaultsLocator(chartFile, chartText);
  const warnings: Diagnostic[] = [];
  const metadata = chartMetadata(parseYamlMap(chartText, chartFile, bag, warnings), chartFile, bag, (field) => {
    const { line, column } = chartAt([field]);
    return { line, column };
  });
  const valuesFile = path.join(dir, 'values.yaml');
  const valuesText = await readOptional(valuesFile);
  const defaults = valuesText === undefined ? {} : parseYamlMap(valuesText, valuesFile, bag, warnings);
  const schemaFile = path.join(dir, 'values.schema.json');
  const schemaText = await readOptional(schemaFile);
  const schema = schemaText === undefined ? undefined : parseSchema(schemaText, schemaFile, bag);
  const { templates, partials } = await chartFiles(dir);
  if (templates.length === 0) bag.add(problem(path.join(dir, 'templates'), 'the chart has no templates', 'templates/*.yaml files'));
  // the one place the compilers load: a precompiled built-in chart needs neither
  const { CHART_COMPILERS: compilers } = await import('./compilers.js');
  // a chart that stops here (Chart.yaml, values.yaml) has its templates' own problems told in the same run
  if (bag.size > 0) await addTemplateProblems(dir, templates, partials, compilers, bag);
  bag.throwIfAny();
  return {
    metadata: metadata!,
    origin,
    ...(namedBy.at ? { namedAt: namedBy.at } : {}),
    defaults: defaults ?? {},
    ...(warnings.length > 0 && { warnings }),
    ...(valuesText === undefined ? {} : { locateDefaults: defaultsLocator(valuesFile, valuesText) }),
    ...(schema ? { schema } : {}),
    templates,
    partials,
    compilers,
  };
}

/**
 * The problems the templates show without values (syntax, helpers, partials; engine.ts
 * `compileChart`), at their file:line:column: with the chart's other files wrong, the run stops
 * before any template runs, and these would otherwise wait for the next run.
 */
async function addTemplateProblems(
  dir: string,
  templates: readonly ChartFile[],
  partials: readonly ChartFile[],
  compilers: ChartCompilers,
  bag: DiagnosticBag,
): Promise<void> {
  const { compileChart } = await import('./engine.js');
  for (const p of compileChart(templates, partials, compilers).problems)
    bag.add({
      file: p.file ? path.join(dir, p.file) : dir,
      ...(p.line === undefined ? {} : { line: p.line, column: p.column }),
      message: p.message,
      expected: p.expected ?? 'a Handlebars template',
      ...(p.hint ? { hint: p.hint } : {}),
    });
}

/** Where values.yaml sets a value: parsed again with positions only when a problem is told there. */
function defaultsLocator(file: string, text: string): NonNullable<LoadedChart['locateDefaults']> {
  return (p) => {
    const lineCounter = new LineCounter();
    const doc = YAML.parseDocument(text, { ...PARSE_OPTIONS, lineCounter });
    return fieldPosition({ file, text, lineCounter, doc }, doc.contents, p, 'value');
  };
}

type PrecompiledChart = Pick<LoadedChart, 'metadata' | 'defaults' | 'schema' | 'templates' | 'partials'> & {
  /** Every file of the chart directory as text, by path (for `chart show`, also from the single-file bundle). */
  files: Record<string, string>;
};

/** The built-in charts as scripts/build-charts.mjs precompiled them, if the build ran. */
function precompiledCharts(): { charts: Record<string, PrecompiledChart>; validators: Record<string, ValuesValidator> } | undefined {
  try {
    return {
      charts: require('./built-in-charts.cjs') as Record<string, PrecompiledChart>,
      validators: require('./built-in-validators.cjs') as Record<string, ValuesValidator>,
    };
  } catch {
    return undefined;
  }
}

/** A built-in chart by name: precompiled at build, or read from charts/ when the build has not run. */
export async function loadBuiltInChart(name: string): Promise<LoadedChart> {
  if (!(BUILT_IN_CHARTS as readonly string[]).includes(name)) {
    throw new CapiGitopsError({
      message: `no built-in chart ${JSON.stringify(name)}`,
      expected: `one of ${BUILT_IN_CHARTS.join(', ')}`,
      hint: 'capi-gitops chart show argocd',
    });
  }
  const origin = `built-in chart ${name}`;
  const precompiled = precompiledCharts();
  const chart = precompiled?.charts[name];
  if (chart) return { ...chart, origin, validateValues: precompiled.validators[name] };
  return loadChart(path.join(BUILT_IN_CHARTS_DIR, name), origin);
}

/** A built-in chart's files (path → text), sorted by path: precompiled at build, or read from charts/. */
export async function builtInChartFiles(name: (typeof BUILT_IN_CHARTS)[number]): Promise<[string, string][]> {
  const precompiled = precompiledCharts()?.charts[name]?.files;
  const dir = path.join(BUILT_IN_CHARTS_DIR, name);
  const entries = precompiled
    ? Object.entries(precompiled)
    : await Promise.all(
        (await fg('**/*', { cwd: dir, onlyFiles: true, dot: false })).map(
          async (file) => [file, await readFile(path.join(dir, file), 'utf8')] as [string, string],
        ),
      );
  return entries.sort(([a], [b]) => compareStrings(a, b));
}
