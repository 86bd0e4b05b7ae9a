/**
 * The chart template engine and its helpers in one place, as Helm's pkg/engine keeps them:
 * Handlebars with `noEscape` (the output is YAML, not HTML) and `strict` (a missing value fails
 * loudly instead of rendering as empty), plus Sprig-like helpers. Nothing here reads the
 * clock, the environment or random numbers, so the same values give the same bytes.
 */
import { createRequire } from 'node:module';
import type HandlebarsModule from 'handlebars';
import { compareStrings } from '../../core/diagnostics.js';
import { isValuesMap } from '../../core/values.js';
import { emitYamlDocument } from '../../yaml/emit.js';
import type { ChartFile } from './types.js';

import { COMPILE_OPTIONS } from './types.js';
import type { ChartCompilers } from './compilers.js';
import { setOwnValue } from '../../core/own-keys.js';
import { describeParseError, templateProblems } from './template-check.js';
import { closestName } from '../../manifest/fields.js';
import { STRICT_LOOKUP, strictJavaScriptCompiler, type DeclaredKeys, type LookupSite } from './strict.js';
import { escapeRegExp } from '../../core/regexp.js';
import { lineColumnAt } from '../../yaml/split.js';

// Built-in charts are precompiled at build and need only the runtime; a chart read from a
// directory brings the full compiler (LoadedChart.compilers).
const runtime = createRequire(import.meta.url)('handlebars/runtime.js') as typeof HandlebarsModule;

type HelperOptions = HandlebarsModule.HelperOptions;

/** Sprig's `empty`: nil, false, 0, "", and empty lists and maps. */
function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isValuesMap(value)) return Object.keys(value).length === 0;
  return false;
}

/** Arguments of a helper call without Handlebars' trailing options object. */
function args(all: unknown[]): unknown[] {
  return all.slice(0, -1);
}

function text(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

/** What to write for a map or a list where text goes. */
export const TO_YAML_HINT = 'write a map or a list with toYaml, indented on the lines below its key: {{nindent 4 (toYaml Values.x)}}';

/** Sprig `indent`: every line, the first included, gets `n` spaces; of text, as Sprig's takes a string (a map is an error, as Helm's). */
function indentText(n: number, value: unknown, helper = 'indent'): string {
  if (typeof value === 'object' && value !== null)
    throw new TemplateRuntimeError(`${helper} takes text, and this is a ${Array.isArray(value) ? 'list' : 'map'}`, {
      expected: 'text: a string, or what toYaml or include writes',
      hint: TO_YAML_HINT,
    });
  const body = text(value);
  const lines = (body.match(/\n/g)?.length ?? 0) + 1;
  if (!Number.isSafeInteger(n) || n < 0 || body.length + n * lines > MAX_CHART_OUTPUT)
    throw new TemplateRuntimeError(
      `indent ${String(n)}: the indented text would be longer than ${mebibytes(MAX_CHART_OUTPUT)} (or ${String(n)} is no number of spaces)`,
      { expected: BOUNDS },
    );
  const pad = ' '.repeat(n);
  return pad + body.replace(/\n/g, '\n' + pad);
}

/** Where a template error is and what would fix it; `file` is the path inside the chart (`templates/x.yaml`). */
export interface TemplateErrorDetails {
  expected?: string;
  file?: string;
  line?: number;
  column?: number;
  hint?: string;
  /**
   * A value a helper refuses (`required` of an empty one, `{{#each}}` of a string): the run goes
   * on with the helper's output empty, so one run tells every such problem, not only the first.
   */
  ofValue?: boolean;
}

/**
 * A template error. It gets its `file` (and line, when Handlebars or a helper call knows it) in
 * the template or partial that was running, so the first place that knows where it is says so.
 */
export class TemplateRuntimeError extends Error {
  readonly expected?: string;
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
  readonly hint?: string;
  readonly ofValue?: boolean;
  constructor(message: string, details: TemplateErrorDetails = {}) {
    super(message);
    Object.assign(this, details);
  }
}

/**
 * Every problem the chart's template files have before any of them runs, or one run of a template
 * found; `output` is what that run wrote with each value it found wanting unset, when it ran to
 * its end, for the problems its documents show apart from those.
 */
export class TemplateProblems extends Error {
  constructor(
    readonly problems: TemplateRuntimeError[],
    readonly output?: string,
  ) {
    super(problems.map((p) => p.message).join('\n'));
  }
}

/**
 * Bounds on one chart render (all its templates), counted rather than timed: text partials and
 * {{#each}} loops produce (a partial included twice per level doubles its text at each one), the
 * output, the loop iterations and partial calls (loops nested in loops multiply), and how deep
 * partials nest (a partial that includes itself would otherwise overflow the stack).
 */
const MAX_CHART_OUTPUT = 16 * 1024 * 1024;
const MAX_CHART_TEXT_PRODUCED = 64 * 1024 * 1024;
const MAX_CHART_STEPS = 1_000_000;
const MAX_PARTIAL_DEPTH = 64;

function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function mebibytes(n: number): string {
  return `${n / (1024 * 1024)} MiB`;
}

const BOUNDS = `a chart render of at most ${mebibytes(MAX_CHART_OUTPUT)}, ${thousands(MAX_CHART_STEPS)} loop iterations and partial calls, partials nested at most ${MAX_PARTIAL_DEPTH} deep`;

/** What one chart render has spent of the bounds, and the partials it is inside. */
class RenderBudget {
  private produced = 0;
  private steps = 0;
  private output = 0;
  readonly partials: string[] = [];

  /** One loop iteration or partial call that produced `text`. */
  spend(text: string, what: string): void {
    this.steps++;
    this.produced += text.length;
    if (this.steps > MAX_CHART_STEPS)
      throw new TemplateRuntimeError(
        `the chart ran more than ${thousands(MAX_CHART_STEPS)} {{#each}} iterations and partial calls, the bound of one render (stopped in ${what}): loops nested in loops multiply`,
        { expected: BOUNDS, hint: 'nest fewer loops, or loop over fewer values' },
      );
    if (text.length > MAX_CHART_OUTPUT || this.produced > MAX_CHART_TEXT_PRODUCED)
      throw new TemplateRuntimeError(
        `${what} produced more text than a chart may (${mebibytes(MAX_CHART_OUTPUT)} of output, ${mebibytes(MAX_CHART_TEXT_PRODUCED)} through partials and loops): a partial included twice at each level doubles its text each time`,
        { expected: BOUNDS, hint: 'include the partial once where it is included twice, or loop over fewer values' },
      );
  }

  /** A template's whole output, counted against the chart's. */
  finish(text: string, template: string): string {
    this.output += text.length;
    if (this.output > MAX_CHART_OUTPUT)
      throw new TemplateRuntimeError(`${template} brings the chart's output past ${mebibytes(MAX_CHART_OUTPUT)}`, {
        expected: BOUNDS,
        file: template,
      });
    return text;
  }
}

/** A helper argument's path below Values as the template wrote it (compiled with trackIds), e.g. `owner` for `Values.owner`. */
function valuesPath(id: unknown): string | undefined {
  return typeof id === 'string' ? /^(?:@root\.)?Values\.(.+)$/.exec(id)?.[1] : undefined;
}

/** The first line of `source` that includes partial `name` (`{{> name}}`, `{{#> name}}`, `include "name"`). */
function includeAt(source: string | undefined, name: string): { line?: number; column?: number } {
  if (source === undefined) return {};
  const escaped = escapeRegExp(name);
  const pattern = new RegExp(`\\{\\{~?#?>\\s*${escaped}(?![\\w-])|\\{\\{~?[^{}]*?include\\s+["']${escaped}["']`);
  const found = pattern.exec(source);
  if (!found) return {};
  return lineColumnAt(source, found.index);
}

/**
 * A value as Sprig's strval prints it (Go's %v): a map as `map[k:v …]` with its keys sorted, a
 * list as `[a b]`, null inside them as `<nil>`, so `quote` of a map is what Helm writes, not
 * "[object Object]".
 */
function goText(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goText).join(' ')}]`;
  if (isValuesMap(value))
    return `map[${Object.keys(value)
      .sort(compareStrings)
      .map((key) => `${key}:${goText(value[key])}`)
      .join(' ')}]`;
  return String(value);
}

function registerHelpers(
  hb: typeof HandlebarsModule,
  renderPartial: (name: string, context: unknown) => string,
  budget: () => RenderBudget,
): void {
  hb.registerHelper('toYaml', (value: unknown) => {
    if (value === undefined) return '';
    return emitYamlDocument(value).replace(/\n$/, '');
  });
  hb.registerHelper('indent', (n: number, value: unknown) => indentText(n, value));
  hb.registerHelper('nindent', (n: number, value: unknown) => '\n' + indentText(n, value, 'nindent'));
  hb.registerHelper('quote', (...all: unknown[]) =>
    args(all)
      .filter((v) => v !== null && v !== undefined)
      .map((v) => JSON.stringify(goText(v)))
      .join(' '),
  );
  hb.registerHelper('default', (fallback: unknown, value: unknown) => (isEmptyValue(value) ? fallback : value));
  hb.registerHelper('required', (message: unknown, value: unknown, options: HelperOptions & { ids?: unknown[] }) => {
    if (value === null || value === undefined || value === '') {
      const key = valuesPath(options?.ids?.[1]);
      throw new TemplateRuntimeError(text(message), {
        expected: key
          ? `a value for ${key} (it is null, empty or unset)`
          : 'a value that is not null or empty where the template calls required',
        hint: key
          ? `set it: --set ${key}=… or under gitops.values in the Config document`
          : 'set the value that required reads at this place, e.g. --set <its path below Values>=… or under gitops.values in the Config document',
        ofValue: true,
      });
    }
    return value;
  });
  hb.registerHelper('include', (name: unknown, context: unknown) => renderPartial(text(name), context));
  hb.registerHelper('eq', (a: unknown, b: unknown) => a === b);
  hb.registerHelper('ne', (a: unknown, b: unknown) => a !== b);
  hb.registerHelper('and', (...all: unknown[]) => args(all).every((v) => !isEmptyValue(v)));
  hb.registerHelper('or', (...all: unknown[]) => args(all).some((v) => !isEmptyValue(v)));
  hb.registerHelper('not', (value: unknown) => isEmptyValue(value));
  hb.registerHelper('list', (...all: unknown[]) => args(all));
  hb.registerHelper('dict', (...all: unknown[]) => {
    const pairs = args(all);
    const out: Record<string, unknown> = {};
    for (let i = 0; i + 1 < pairs.length; i += 2) setOwnValue(out, text(pairs[i]), pairs[i + 1]);
    return out;
  });
  hb.registerHelper('join', (separator: unknown, list: unknown) =>
    Array.isArray(list) ? list.map(text).join(text(separator)) : text(list),
  );
  // `each` over a map visits keys in code-unit order, never insertion order.
  hb.registerHelper('each', function (this: unknown, context: unknown, options: HelperOptions & { ids?: unknown[] }) {
    // Helm's range fails on a scalar ("range can't iterate over abc"); walking nothing would render a wrong document
    if (typeof context === 'string' || typeof context === 'number' || typeof context === 'boolean') {
      const key = valuesPath(options.ids?.[0]);
      throw new TemplateRuntimeError(`{{#each}} cannot walk ${JSON.stringify(context)}, a ${typeof context}`, {
        expected: key ? `${key}: a list or a map` : 'a list or a map',
        hint: key
          ? `set ${key} to a list or a map, e.g. --set '${key}={a,b}' or --set-json '${key}={"k":"v"}'`
          : 'give {{#each}} a list or a map',
        ofValue: true,
      });
    }
    const entries: [string | number, unknown][] = Array.isArray(context)
      ? context.map((v, i) => [i, v])
      : isValuesMap(context)
        ? Object.keys(context)
            .sort(compareStrings)
            .map((k) => [k, context[k]])
        : [];
    if (entries.length === 0) return options.inverse(this);
    let out = '';
    entries.forEach(([key, value], index) => {
      const data = hb.createFrame(options.data ?? {});
      Object.assign(data, { key, index, first: index === 0, last: index === entries.length - 1 });
      const piece = options.fn(value, { data, blockParams: [value, key] });
      budget().spend(piece, 'an {{#each}} loop');
      out += piece;
      if (out.length > MAX_CHART_OUTPUT) budget().spend(out, 'an {{#each}} loop');
    });
    return out;
  });
}

export interface CompiledChart {
  run(template: string, context: unknown): string;
  /** What keeps a template or partial from compiling: every such problem of the chart. */
  problems: readonly TemplateRuntimeError[];
  /** The templates that cannot run: one with a problem of its own, or that includes a partial with one (through others too). */
  blocked: ReadonlySet<string>;
}

/** The templates a chart's compile problems keep from running: their own, or a partial's they include, directly or not. */
function blockedTemplates(
  templates: readonly ChartFile[],
  partials: ReadonlyMap<string, ChartFile>,
  problems: readonly TemplateRuntimeError[],
): Set<string> {
  const broken = new Set(problems.map((p) => p.file));
  const bad = new Set([...partials].filter(([, file]) => broken.has(file.path)).map(([name]) => name));
  const includesBad = (file: ChartFile) => [...bad].some((name) => includeAt(file.source, name).line !== undefined);
  for (let grew = true; grew;) {
    grew = false;
    for (const [name, file] of partials)
      if (!bad.has(name) && includesBad(file)) {
        bad.add(name);
        grew = true;
      }
  }
  return new Set(templates.filter((t) => broken.has(t.path) || includesBad(t)).map((t) => t.path));
}

/** Handlebars' compiler stages, which the full build has and its types do not declare. */
interface HandlebarsCompilerStages {
  Compiler: new () => { compile(ast: unknown, options: object): unknown };
  JavaScriptCompiler: new () => { compile(environment: unknown, options: object, context: undefined, asObject: true): unknown };
}

/** A helper location as Handlebars passes it in a helper's options (`loc`, 0-based column). */
interface HelperLocation {
  start: { line: number; column: number };
  end?: { line: number; column: number };
}

/** How many value problems one run of a template tells before it stops at the next. */
const MAX_VALUE_PROBLEMS = 100;

/**
 * `err` told at the place it happened: in `file` (the template or partial running), at
 * Handlebars' own position, else at `loc` (the helper call), else at the file's first include of
 * a partial it could not find. An error that already knows its file passes through: the
 * innermost place that saw it said where.
 */
function located(err: unknown, file: ChartFile, loc?: HelperLocation, at: { line?: number; column?: number } = {}): TemplateRuntimeError {
  if (err instanceof TemplateRuntimeError && err.file !== undefined) return err;
  const e = err as { message?: unknown; lineNumber?: unknown; column?: unknown; expected?: string; hint?: string };
  const message = String(e.message ?? err)
    .split('\n')[0]!
    .replace(/ - \d+:\d+$/, '');
  // A partial named by a computed name ({{> (lookup …)}}) is found missing only when it runs.
  const missing = /^The partial (.+) could not be found/.exec(message);
  const where =
    typeof e.lineNumber === 'number'
      ? { line: e.lineNumber, column: typeof e.column === 'number' ? e.column + 1 : undefined }
      : loc
        ? { line: loc.start.line, column: loc.start.column + 1 }
        : missing
          ? includeAt(file.source, missing[1]!)
          : at;
  const ofValue = err instanceof TemplateRuntimeError ? err.ofValue : undefined;
  return new TemplateRuntimeError(message, { expected: e.expected, hint: e.hint, ofValue, file: file.path, ...where });
}

/** The names a template reads at its root; inside {{#each}} and {{#with}} they are @root's. */
const ROOT_NAMES = new Set([
  'Values',
  'Chart',
  'Release',
  'Components',
  'ClusterResources',
  'Namespaces',
  'Wiring',
  'CaInjected',
  'Unmanaged',
]);

/**
 * A path segment that is not there, told at the path: its parent is null, or has no such key (a
 * key the chart declares or the context documents reads as unset). The message keeps the form
 * `value "x" is not defined`; the path, the keys there and the fix follow it.
 */
function missingValue(
  parent: unknown,
  name: string,
  site: LookupSite,
  declared: DeclaredKeys | undefined,
  file: string,
): TemplateRuntimeError {
  const where = { file, line: site.line, column: site.column === undefined ? undefined : site.column + 1 };
  const parentPath = site.path.slice(0, Math.max(0, site.path.length - name.length - 1));
  if (parent === null || parent === undefined) {
    const label = parentPath || 'this';
    return new TemplateRuntimeError(
      `value "${name}" is not defined: "${label}" is ${parent === null ? 'null' : 'not set'}, so "${site.path}" cannot be read`,
      {
        ...where,
        expected: `a map at ${label}`,
        hint: `read it inside {{#if ${label}}} … {{/if}}, or give ${label} a map`,
      },
    );
  }
  const map = typeof parent === 'object' && !Array.isArray(parent);
  const keys = map ? [...new Set([...Object.keys(parent), ...(declared?.keys.get(parent) ?? [])])].sort(compareStrings) : [];
  const label = parentPath ? `"${parentPath}"` : 'the context';
  const has = Array.isArray(parent)
    ? `${label} is a list of ${parent.length}`
    : !map
      ? `${label} is a ${typeof parent}, which has no keys`
      : keys.length > 0
        ? `${label} has ${keys.slice(0, 30).join(', ')}${keys.length > 30 ? ', …' : ''}`
        : `${label} has no keys`;
  const valuesPath = typeof parent === 'object' ? declared?.valuesPaths.get(parent) : undefined;
  const schemaPointer = typeof parent === 'object' ? declared?.schemaPointers.get(parent) : undefined;
  const addIt = valuesPath
    ? `add "${name}: null" ${valuesPath.length > 0 ? `under ${valuesPath.join('.')} ` : ''}in the chart's values.yaml` +
      (schemaPointer
        ? ` and "${name}": {} to ${schemaPointer === '#' ? 'the top-level "properties"' : `"properties" of ${schemaPointer}`} in its values.schema.json`
        : '')
    : undefined;
  const guess = closestName(name, keys);
  let hint: string;
  const listItems = typeof parent === 'object' ? declared?.listItems.get(parent) : undefined;
  if (guess) hint = `did you mean "${parentPath ? `${parentPath}.` : ''}${guess}"?${addIt ? ` If "${name}" is a new value, ${addIt}` : ''}`;
  else if (addIt) hint = `${addIt}, or fix the name`;
  else if (listItems)
    hint = `an item of a list lacks it: declare it, "${name}": {} in "properties" of ${listItems} in values.schema.json, or read it with (lookup this "${name}")`;
  else if (site.path === name && ROOT_NAMES.has(name)) hint = `inside {{#each}} and {{#with}} the context is the item: write @root.${name}`;
  else hint = `fix the name: ${has}`;
  return new TemplateRuntimeError(`value "${name}" is not defined`, {
    ...where,
    expected: `"${site.path}" to exist (null when unset); ${has}`,
    hint,
  });
}

/**
 * A template file compiled now, not at its first run (Handlebars' `compile` is lazy): its parse
 * error in words, and the problems its syntax tree shows, at their lines.
 */
function compileSource(
  hb: typeof HandlebarsModule,
  JavaScriptCompiler: HandlebarsCompilerStages['JavaScriptCompiler'],
  file: ChartFile,
  names: { partials: readonly string[]; helpers: readonly string[] },
  problems: TemplateRuntimeError[],
): HandlebarsModule.TemplateDelegate | undefined {
  const source = file.source ?? '';
  try {
    const ast = hb.parse(source);
    const found = templateProblems(ast, names.partials, names.helpers);
    problems.push(...found.map(({ message, ...where }) => new TemplateRuntimeError(message, { ...where, file: file.path })));
    if (found.length > 0) return undefined;
    const stages = hb as unknown as HandlebarsCompilerStages;
    const options = { ...COMPILE_OPTIONS, data: true };
    const environment = new stages.Compiler().compile(ast, options);
    return hb.template(new JavaScriptCompiler().compile(environment, options, undefined, true) as Parameters<typeof hb.template>[0]);
  } catch (err) {
    // a parse error, or one Handlebars' compiler finds: in words, at its line
    const { message, ...where } = describeParseError(String((err as Error).message), source);
    problems.push(new TemplateRuntimeError(message, { ...where, file: file.path }));
    return undefined;
  }
}

/**
 * Compiles a chart's templates and partials in an isolated Handlebars environment; `compilers`
 * (from `loadChart`) are needed when a file has no precompiled spec. A file's problems are all
 * thrown together (`TemplateProblems`); an error while running is told in the file that was
 * running, at the helper call, the partial or the value that failed, and the values one run of a
 * template finds missing or a helper refuses are thrown together too (`TemplateProblems`, with
 * what the run wrote).
 */
export function compileChart(
  templates: readonly ChartFile[],
  partials: readonly ChartFile[],
  compilers?: ChartCompilers,
  declared?: DeclaredKeys,
): CompiledChart {
  const needsCompiler = [...templates, ...partials].some((f) => f.spec === undefined);
  if (needsCompiler && !compilers) throw new Error('a chart template without a precompiled spec needs the chart compilers');
  const hb = (needsCompiler ? compilers!.handlebars : runtime).create();
  const partialName = (file: ChartFile) => file.path.replace(/^templates\/_/, '').replace(/\.hbs$/, '');
  // One budget for every template of the chart (renderChart compiles the chart once per render).
  const budget = new RenderBudget();
  const partialFiles = new Map(partials.map((p) => [partialName(p), p]));
  /** The template running, then each partial it is inside. */
  const files: ChartFile[] = [];
  const compiledPartials = new Map<string, HandlebarsModule.TemplateDelegate>();
  registerHelpers(
    hb,
    (name, context) => {
      const fn = compiledPartials.get(name);
      if (!fn) throw new TemplateRuntimeError(`include: no partial ${JSON.stringify(name)} (a file templates/_${name}.hbs)`);
      return fn(context);
    },
    () => budget,
  );
  /** The value problems helpers found in this run of a template, each with its call's span. */
  const valueProblems: { error: TemplateRuntimeError; loc?: HelperLocation }[] = [];
  // Every helper, Handlebars' own among them (#if without its argument), tells an error at its call.
  for (const [name, helper] of Object.entries(hb.helpers)) {
    hb.registerHelper(name, function (this: unknown, ...all: unknown[]) {
      try {
        return (helper as (...a: unknown[]) => unknown).apply(this, all);
      } catch (err) {
        const loc = (all.at(-1) as { loc?: HelperLocation } | undefined)?.loc;
        const error = located(err, files.at(-1)!, loc);
        // the run goes on past a value a helper refuses, its output empty, up to a bound
        if (!error.ofValue || valueProblems.length >= MAX_VALUE_PROBLEMS) throw error;
        // a loop meets it at one place on each turn: one problem
        const same = (p: TemplateRuntimeError) =>
          p.file === error.file && p.line === error.line && p.column === error.column && p.message === error.message;
        if (!valueProblems.some((p) => same(p.error))) valueProblems.push({ error, loc });
        return '';
      }
    });
  }
  /**
   * The values a template run found missing, each once at its place: the run goes on with the
   * value unset, so one run tells every missing value it reaches, not only the first.
   */
  const missing = new Map<string, { paths: string[]; errors: TemplateRuntimeError[] }>();
  /** Where each missing value was read (0-based column, as a helper's span). */
  const missingSites: { file: string; line: number; column: number }[] = [];
  /** A helper's refusal of what a missing value left unset (`required` of it) is that value's problem, not another. */
  const consequence = ({ error, loc }: { error: TemplateRuntimeError; loc?: HelperLocation }) => {
    const before = (a: { line: number; column: number }, b: { line: number; column: number }) =>
      a.line < b.line || (a.line === b.line && a.column <= b.column);
    return loc?.end !== undefined && missingSites.some((s) => s.file === error.file && before(loc.start, s) && before(s, loc.end!));
  };
  const runProblems = () => [
    ...[...missing.values()].flatMap((m) => m.errors),
    ...valueProblems.filter((p) => !consequence(p)).map((p) => p.error),
  ];
  // Every path segment a template reads comes here (strict.ts): it fails where the path is written.
  hb.registerHelper(STRICT_LOOKUP, (parent: unknown, name: string, site: LookupSite) => {
    if (parent !== null && parent !== undefined && Object.hasOwn(Object(parent), name))
      return site.lookupProperty ? site.lookupProperty(parent, name) : (parent as Record<string, unknown>)[name];
    if (typeof parent === 'object' && parent !== null && declared?.keys.get(parent)?.has(name)) return undefined;
    const file = files.at(-1)!.path;
    const place = `${file}:${site.line}:${site.column}`;
    // a path read on past a missing segment (`Values.pth.dir`) is that segment's problem
    const at = missing.get(place) ?? { paths: [], errors: [] };
    missing.set(place, at);
    if (at.paths.some((p) => site.path === p || site.path.startsWith(`${p}.`))) return undefined;
    at.paths.push(site.path);
    at.errors.push(missingValue(parent, name, site, declared, file));
    if (site.line !== undefined && site.column !== undefined) missingSites.push({ file, line: site.line, column: site.column });
    return undefined;
  });
  const names = {
    partials: [...partialFiles.keys()],
    helpers: Object.keys(hb.helpers)
      .filter((h) => !/Missing$/.test(h) && h !== STRICT_LOOKUP)
      .sort(),
  };
  const problems: TemplateRuntimeError[] = [];
  const JavaScriptCompiler = needsCompiler ? (strictJavaScriptCompiler(hb) as HandlebarsCompilerStages['JavaScriptCompiler']) : undefined;
  const compile = (file: ChartFile): HandlebarsModule.TemplateDelegate | undefined =>
    file.spec !== undefined
      ? hb.template(file.spec as Parameters<typeof hb.template>[0])
      : compileSource(hb, JavaScriptCompiler!, file, names, problems);
  /** A partial counted against the budget, and refused past MAX_PARTIAL_DEPTH with the chain that got there. */
  const bounded = (file: ChartFile, fn: HandlebarsModule.TemplateDelegate): HandlebarsModule.TemplateDelegate => {
    const name = partialName(file);
    return (context, options) => {
      const chain = budget.partials;
      if (chain.length >= MAX_PARTIAL_DEPTH) {
        // The include that closes the loop is written in the partial that is running now.
        const caller = partialFiles.get(chain[chain.length - 1]!);
        const first = chain.lastIndexOf(name);
        throw new TemplateRuntimeError(
          first >= 0
            ? `partial ${JSON.stringify(name)} includes itself (${[...chain.slice(first), name].join(' → ')}), so it would never end: stopped ${MAX_PARTIAL_DEPTH} partials deep`
            : `partials nest more than ${MAX_PARTIAL_DEPTH} deep (… ${chain.slice(-3).join(' → ')} → ${name})`,
          {
            expected: BOUNDS,
            file: caller?.path,
            ...includeAt(caller?.source, name),
            hint:
              first >= 0
                ? 'remove this include, or put it inside an {{#if}} or {{#each}} of a value that runs out (a nested map), so the recursion ends'
                : 'include fewer partials from one another',
          },
        );
      }
      chain.push(name);
      files.push(file);
      let out: string;
      try {
        out = fn(context, options);
      } catch (err) {
        throw located(err, file);
      } finally {
        chain.pop();
        files.pop();
      }
      try {
        budget.spend(out, `partial ${JSON.stringify(name)}`);
      } catch (err) {
        // Too much text is the doing of the include that asked for it.
        const caller = files.at(-1)!;
        throw located(err, caller, undefined, includeAt(caller.source, name));
      }
      return out;
    };
  };
  for (const p of partials) {
    const fn = compile(p);
    if (!fn) continue;
    const partial = bounded(p, fn);
    compiledPartials.set(partialName(p), partial);
    hb.registerPartial(partialName(p), partial);
  }
  const compiled = new Map(templates.map((t) => [t.path, { file: t, fn: compile(t) }]));
  return {
    problems,
    // the others run, so a problem of one template does not hide another's
    blocked: problems.length > 0 ? blockedTemplates(templates, partialFiles, problems) : new Set(),
    run(template, context) {
      const entry = compiled.get(template);
      if (!entry?.fn) throw new TemplateRuntimeError(`no template ${template}`);
      files.push(entry.file);
      missing.clear();
      missingSites.length = 0;
      valueProblems.length = 0;
      let out: string;
      try {
        out = budget.finish(entry.fn(context), template);
      } catch (err) {
        // an error after a missing value can be its consequence: the missing values are the problems
        const problems = runProblems();
        if (missing.size > 0) throw new TemplateProblems(problems);
        if (problems.length > 0) throw new TemplateProblems([...problems, located(err, entry.file)]);
        throw located(err, entry.file);
      } finally {
        files.length = 0;
      }
      const problems = runProblems();
      if (problems.length > 0) throw new TemplateProblems(problems, out);
      return out;
    },
  };
}
