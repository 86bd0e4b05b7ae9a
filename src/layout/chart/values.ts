import type { ErrorObject } from 'ajv';
import { CHART_AJV_OPTIONS } from './types.js';
import { CapiGitopsError, type Diagnostic } from '../../core/diagnostics.js';
import { setExpressionValues, setFlag, userValues, type SetExpression } from '../../core/helm-set.js';
import { hasPath, layerValues, type Values } from '../../core/values.js';
import type { LoadedChart, ValuesLayer, ValuesValidator } from './types.js';
import { closestName } from '../../manifest/fields.js';
import { shellWord } from '../../core/shell.js';

/** The chart's schema validator: precompiled for built-in charts, compiled here for a user's. */
function valuesValidator(chart: LoadedChart): ValuesValidator | undefined {
  if (chart.validateValues) return chart.validateValues;
  if (!chart.schema) return undefined;
  if (!chart.compilers) throw new Error('a chart schema that is not precompiled needs the chart compilers');
  const { Ajv } = chart.compilers;
  try {
    return new Ajv(CHART_AJV_OPTIONS).compile(chart.schema);
  } catch (err) {
    throw new CapiGitopsError({
      object: chart.origin,
      file: 'values.schema.json',
      message: `the schema does not compile: ${(err as Error).message}`,
      expected: 'a JSON Schema (draft-07)',
    });
  }
}

/** A layer of the chart's values; `set`: a --set flag's own values, which win over every file's (no position: a flag). */
type Layer = ValuesLayer & { set?: SetExpression };

/** `/a/b/0` → `['a', 'b', '0']`, JSON Pointer unescaped. */
function pointerSegments(instancePath: string, extra?: string): string[] {
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) segments.push(extra);
  return segments;
}

/**
 * Where the last layer that sets the value wrote it (a list index as a number, as YAML paths have
 * it); a value no layer sets, at its line in the chart's values.yaml.
 */
function writtenAt(
  chart: LoadedChart,
  layers: readonly Layer[],
  segments: readonly string[],
): Pick<Diagnostic, 'file' | 'line' | 'column'> {
  const path = segments.map((s) => (/^[0-9]+$/.test(s) ? Number(s) : s));
  const layer = writer(layers, segments);
  if (layer) return layer.locate?.(path) ?? {};
  return hasPath(chart.defaults, segments) ? (chart.locateDefaults?.(path) ?? {}) : {};
}

/** The layer that wrote the value at `segments` (the last that has it). */
function writer(layers: readonly Layer[], segments: readonly string[]): Layer | undefined {
  return layers.findLast((candidate) => hasPath(candidate.values, segments));
}

/**
 * `['a', 'b', '0']` → `a.b[0]`, the way users write value paths in `--set`: a key's own `.`, `,`,
 * `[` and `=` escaped with a backslash (helm pkg/strvals/parser.go), so `team\.example\.com/cost`
 * is one key.
 */
function valuePath(segments: readonly string[]): string {
  let out = '';
  for (const s of segments) {
    const key = s.replace(/[\\.,[=]/g, '\\$&');
    out += /^[0-9]+$/.test(s) ? `[${s}]` : out === '' ? key : `.${key}`;
  }
  return out || '(root)';
}

/** `<path>=<value>` as one shell word: a backslash-escaped key is quoted, or the shell eats the backslashes. */
function setPair(at: string, value: string): string {
  return shellWord(`${at}=${value}`);
}

/** `<path>=…` for a hint, quoted as setPair quotes it, the ellipsis inside the quotes. */
function setPairToFill(at: string): string {
  const word = shellWord(`${at}=`);
  return word === `${at}=` ? `${at}=…` : `${word.slice(0, -1)}…'`;
}

/** What the schema wanted, in words (ajv's params are JSON fragments). */
function expectedValue(e: ErrorObject): string {
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `a value for ${String(params.missingProperty)}`;
    case 'additionalProperties': {
      const declared = Object.keys((e.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
      return declared.length > 0
        ? `one of the values the chart declares here: ${declared.join(', ')}`
        : 'a value the chart declares in values.schema.json';
    }
    case 'type':
      return `a value of type ${Array.isArray(params.type) ? params.type.join(' or ') : String(params.type)}`;
    case 'enum':
      return `one of ${((params.allowedValues as unknown[]) ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'pattern':
      return `a string matching ${String(params.pattern)}`;
    case 'not':
      return refusedValues(e.schema);
    default:
      return `a value that ${e.message ?? 'satisfies values.schema.json'}`;
  }
}

/** What a `not` schema leaves: ajv's own message ("must NOT be valid") says neither what nor why. */
function refusedValues(refused: unknown): string {
  const { const: one, enum: some } = (refused ?? {}) as { const?: unknown; enum?: unknown[] };
  if (one !== undefined) return `any value but ${JSON.stringify(one)}`;
  if (Array.isArray(some)) return `none of ${some.map((v) => JSON.stringify(v)).join(', ')}`;
  return 'a value values.schema.json does not refuse';
}

/** The schema's own reason for refusing a value (its `description`), when it gives one. */
function refusal(e: ErrorObject): string {
  const reason = (e.parentSchema as { description?: unknown } | undefined)?.description;
  return `is refused by the chart${typeof reason === 'string' ? `: ${reason}` : ''}`;
}

/**
 * A number or boolean where the chart wants a string (a tag or branch such as 2024, a port): the
 * way to write it as a string where it was written. `--set` types `2024` as Helm does (strvals).
 */
function asString(
  chart: LoadedChart,
  e: ErrorObject,
  layers: readonly Layer[],
  segments: readonly string[],
  at: string,
): string | undefined {
  const wanted = (e.params as { type?: string | string[] }).type;
  if (e.keyword !== 'type' || ![wanted].flat().includes('string')) return undefined;
  if (typeof e.data !== 'number' && typeof e.data !== 'boolean') return undefined;
  const layer = writer(layers, segments);
  // as the file wrote it: YAML 1.1 reads yes as true, and "true" is not what to quote
  const value = layer?.written?.(segments.map((s) => (/^[0-9]+$/.test(s) ? Number(s) : s))) ?? String(e.data);
  const setString = `pass it with --set-string ${setPair(at, value)}`;
  if (layer?.set) return `${setFlag(layer.set)} reads ${value} as a ${typeof e.data}: ${setString}`;
  const quote = (where: string) => `quote it in ${where}: "${value}" (YAML reads ${value} unquoted as a ${typeof e.data})`;
  if (layer) return quote(writtenIn(layer, segments));
  if (isOwnChart(chart) && hasPath(chart.defaults, segments)) return quote(`${chart.origin}/values.yaml`);
  return `--set reads ${value} as a ${typeof e.data}: ${setString}`;
}

/**
 * A null entry of a list a --set made: `list[1]=x` leaves `list[0]` null, as Helm's --set does
 * (pkg/strvals/parser.go setIndex), and lists replace rather than merge: the whole list is the fix.
 */
function nullListEntry(e: ErrorObject, flag: SetExpression | undefined, segments: readonly string[]): string | undefined {
  const index = segments.at(-1);
  if (e.data !== null || flag === undefined || index === undefined || !/^\d+$/.test(index)) return undefined;
  const list = valuePath(segments.slice(0, -1));
  return `${setFlag(flag)} of a later entry of ${list} leaves ${list}[${index}] null, as Helm's --set does, and a list replaces the chart's: give the whole list, e.g. --set ${shellWord(`${list}={…,…}`)}`;
}

/** A chart of one's own (Config gitops.chart), whose files the user edits. */
function isOwnChart(chart: LoadedChart): boolean {
  return !chart.origin.startsWith('built-in chart ');
}

/** The layer's name for a value it holds: a fleet cluster's own entry (`clusters[0].flux.values`), else its source. */
function writtenIn(layer: ValuesLayer, segments: readonly string[]): string {
  const entry = layer.ofFleetCluster?.(segments);
  if (entry === undefined) return layer.source;
  return layer.layout ? `${entry}.${layer.layout}.values` : `${entry}.gitops`;
}

function schemaProblem(chart: LoadedChart, e: ErrorObject, layers: readonly Layer[], layout: string | undefined): Diagnostic {
  const missing = e.keyword === 'required' ? String((e.params as { missingProperty?: string }).missingProperty) : undefined;
  const extra = e.keyword === 'additionalProperties' ? String((e.params as { additionalProperty?: string }).additionalProperty) : undefined;
  const segments = pointerSegments(e.instancePath, missing ?? extra);
  const at = valuePath(segments);
  const message = missing
    ? 'is required'
    : extra
      ? 'is not a value of this chart'
      : e.keyword === 'not'
        ? refusal(e)
        : (e.message ?? 'is invalid');
  // a flag has no file:line:column: it is named instead
  const flag = writer(layers, segments)?.set;
  return {
    ...writtenAt(chart, layers, segments),
    object: `${chart.origin} values`,
    path: at,
    message: `value ${at}${flag ? ` (given by ${setFlag(flag)})` : ''} ${message}`,
    expected: expectedValue(e),
    // `chart show` prints built-in charts only; a chart of one's own has its schema in its directory.
    hint: missing
      ? `set it, e.g. --set ${setPairToFill(at)} or under gitops.${layout ? `${layout}.` : ''}values in the Config document`
      : (asString(chart, e, layers, segments, at) ??
        nullListEntry(e, flag, segments) ??
        otherHint(chart, layers, segments, at, extra !== undefined, declaredHere(e), layout)),
  };
}

/** The values the schema declares where an unknown one was given. */
function declaredHere(e: ErrorObject): string[] {
  return Object.keys((e.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
}

/**
 * For a chart of one's own: an unknown top-level value the Config gives for either layout's chart
 * (gitops.values, a fleet cluster's gitops) may be the other layout's chart's, whose place is its
 * layout's values.
 */
function otherLayoutMove(
  layers: readonly Layer[],
  segments: readonly string[],
  at: string,
  layout: string | undefined,
  unknown: boolean,
): string {
  const layer = writer(layers, segments);
  if (!unknown || segments.length > 1 || layer?.source !== 'Config gitops.values' || (layout !== 'argocd' && layout !== 'flux')) return '';
  const other = layout === 'argocd' ? 'flux' : 'argocd';
  const entry = layer.ofFleetCluster?.(segments);
  return entry === undefined
    ? `; a value of the ${other} chart goes under gitops.${other}.values in the Config document (gitops.${other}.values.${at}), or remove it`
    : `; a value of the ${other} chart goes under ${entry}.${other}.values (${entry}.${other}.values.${at}), or remove it`;
}

const mapDefined = <T, U>(value: T | undefined, f: (v: T) => U): U | undefined => (value === undefined ? undefined : f(value));

function otherHint(
  chart: LoadedChart,
  layers: readonly Layer[],
  segments: readonly string[],
  at: string,
  unknown: boolean,
  declared: readonly string[],
  layout?: string,
): string {
  // a chart's own new value (in values.yaml, as docs/charts.md says) that its schema does not list yet, or a default of the wrong form
  if (isOwnChart(chart) && !writer(layers, segments) && hasPath(chart.defaults, segments))
    return unknown
      ? `the chart's values.yaml sets ${at}: declare it in the properties of ${chart.origin}/values.schema.json too`
      : `correct ${at} in ${chart.origin}/values.yaml, or what ${chart.origin}/values.schema.json says of it`;
  // a misspelt value of the chart (interval as intervall, projet for project)
  // below another value (syncPolicy.retry.backof), among the values the schema declares there
  const close = !unknown
    ? undefined
    : segments.length === 1
      ? closestName(at, Object.keys(chart.defaults))
      : mapDefined(closestName(segments.at(-1)!, declared), (name) => valuePath([...segments.slice(0, -1), name]));
  const guess = close === undefined ? '' : `did you mean ${close}? `;
  if (isOwnChart(chart))
    return `${guess}see ${chart.origin}/values.schema.json${otherLayoutMove(layers, segments, at, layout, unknown && close === undefined)}`;
  const name = chart.metadata.name;
  const other = name === 'argocd' ? 'flux' : 'argocd';
  const schema = `see its values.schema.json: capi-gitops chart show ${name}`;
  // a value the chart has, of the wrong form, or one below a value it declares (destination.nme): the other chart is no place for it
  if (!unknown || segments.length > 1 || close !== undefined) return `${guess}${schema}`;
  const layer = writer(layers, segments);
  const entry = layer?.ofFleetCluster?.(segments);
  // a cluster's own value: the Config's gitops.<layout>.values would give it to every cluster
  if (entry === undefined)
    return `${schema}; a value of another layout's chart goes under gitops.<layout>.values in the Config document (e.g. gitops.${other}.values.${at})`;
  const move = `move it to ${entry}.${other}.values.${at}, for the ${other} chart only, or remove it`;
  return layer?.layout
    ? `${schema}; ${entry}.${name}.values reach the ${name} chart only: if ${at} is a value of the ${other} chart, ${move}`
    : `${schema}; a fleet cluster's own gitops values reach the chart of every layout: if ${at} is a value of the ${other} chart, ${move}`;
}

/**
 * The chart's values: its values.yaml, then each user layer (Config values, --values files),
 * then the --set expressions, merged as Helm merges them, and checked against the chart's
 * schema before any template runs. `more`: the caller's own problems with the merged values
 * (a path it cannot derive), told with the schema's in one error, so every missing value is
 * told in one run.
 */
export function chartValues(
  chart: LoadedChart,
  layers: readonly ValuesLayer[],
  sets: readonly SetExpression[],
  more?: (values: Values, schemaProblems: readonly Diagnostic[]) => Diagnostic[],
  /** The layout the chart draws: a missing value is hinted under its gitops.<layout>.values. */
  layout?: string,
): Values {
  let user = userValues(layers, sets, (expression) => {
    // a value with a comma (a URL's query): Helm's --set splits pairs there, --set-literal does not
    const pair = /^([^=,]+)=(.*,.*)$/.exec(expression);
    return {
      expected: 'key=value pairs: a.b=c, list[0]=x, list={a,b}; escape "," and "." with a backslash',
      hint: pair
        ? `"," splits --set pairs: give the value whole with --set-literal ${shellWord(expression)}, or escape each "," as "\\,"`
        : 'one pair per --set, e.g. --set repoURL=https://git.example.com/platform/mgmt.git',
    };
  });
  user = layerValues(chart.defaults, [user]);
  const validate = valuesValidator(chart);
  // the --set flags come last, as they were merged: a value one of them gave is told at the flag
  const written: Layer[] = [...layers, ...sets.map((set) => ({ source: setFlag(set), values: setExpressionValues(set), set }))];
  const problems =
    validate && !validate(user) ? ((validate.errors ?? []) as ErrorObject[]).map((e) => schemaProblem(chart, e, written, layout)) : [];
  problems.push(...(more?.(user, problems) ?? []));
  if (problems.length > 0) throw new CapiGitopsError(problems);
  return user;
}
