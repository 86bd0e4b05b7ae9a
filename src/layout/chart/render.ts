import path from 'node:path';
import YAML, { LineCounter } from 'yaml';
import { CapiGitopsError, DiagnosticBag, type Diagnostic } from '../../core/diagnostics.js';
import { isPlainObject, type KObject } from '../../core/kobject.js';
import { compileChart, TemplateProblems, TemplateRuntimeError, TO_YAML_HINT } from './engine.js';
import { declaredKeys } from './strict.js';
import type { ChartContext, ChartDocument, ChartFile, LoadedChart } from './types.js';
import { reportDuplicateKeys } from '../../yaml/unique-keys.js';
import { formatFieldPath } from '../../manifest/fields.js';
import { YamlBudget } from '../../yaml/bounds.js';
import { escapeRegExp } from '../../core/regexp.js';
import { LineIndex } from '../../yaml/split.js';

export function templateFile(chart: LoadedChart, template: string): string {
  return chart.origin.startsWith('built-in') ? `${chart.origin}: ${template}` : path.join(chart.origin, template);
}

/**
 * The line of the chart's template that writes a Secret's `data` or `stringData` (`sections`): in
 * the one template that writes `kind: Secret`, or, of several, the one that writes its name.
 */
export function secretDataLine(
  chart: LoadedChart,
  name: string,
  sections: readonly string[],
): { file: string; line: number; column: number } | undefined {
  const writers = chart.templates.filter((t) => /^kind:\s*["']?Secret["']?\s*$/m.test(t.source ?? ''));
  const named = writers.length > 1 ? writers.filter((t) => (t.source ?? '').includes(name)) : writers;
  if (named.length !== 1) return undefined;
  const lines = (named[0]!.source ?? '').split('\n');
  const kind = lines.findIndex((l) => /^kind:\s*["']?Secret["']?\s*$/.test(l));
  const index = lines.findIndex((l, i) => i > kind && sections.some((s) => new RegExp(`^\\s*${s}:`).test(l)));
  if (index < 0) return undefined;
  return { file: templateFile(chart, named[0]!.path), line: index + 1, column: lines[index]!.search(/\S/) + 1 };
}

/** The message of a template error without Handlebars' own position suffix and code excerpt. */
function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/ - \d+:\d+$/, '');
}

interface ChartLine {
  file: string;
  line: number;
  text: string;
}

/** The lines of a template (first) and its partials, read once for all the problems of its output. */
interface ChartLines {
  template: string | undefined;
  all: ChartLine[];
  /** Of a line with a tag and text of its own, what it renders: its text, each {{…}} standing for any text. */
  patterns: (RegExp | undefined)[];
  /** No loops or partials: the template writes each of its lines at most once, in order. */
  inOrder: boolean;
}

function chartLines(files: readonly ChartFile[]): ChartLines {
  const all = files.flatMap((f) => (f.source ?? '').split('\n').map((text, i) => ({ file: f.path, line: i + 1, text })));
  const patterns = all.map(({ text }) => {
    if (!text.includes('{{') || text.replace(/\{\{[\s\S]*?\}\}/g, '').trim() === '') return undefined;
    const pattern = text
      .split(/\{\{[\s\S]*?\}\}/)
      .map(escapeRegExp)
      .join('[\\s\\S]*');
    return new RegExp(`^${pattern}$`);
  });
  const template = files[0];
  const inOrder = template !== undefined && !/\{\{~?\s*(?:#each|>|include\b)/.test(template.source ?? '');
  return { template: template?.path, all, patterns, inOrder };
}

/**
 * The line of the chart (template or partial) that wrote `rendered`, when exactly one line can
 * have written it: its text, each {{…}} standing for any text; a line of only tags writes no text
 * of its own.
 */
function writingLine(
  lines: ChartLines,
  rendered: string,
  /** Of several lines that can have, the one that writes this key itself (`path:`), not a `{{@key}}: …` of a loop. */
  key?: string,
  /** Which of the template's rendered lines of this text it is (0-based), and how many there are. */
  ordinal?: { index: number; count: number },
): ChartLine | undefined {
  if (rendered.trim() === '' || rendered.trim() === '---') return undefined;
  const exact = lines.all.filter((l) => l.text === rendered);
  if (exact.length > 0) return exact.length === 1 ? exact[0] : undefined;
  const matches = lines.all.filter((l, i) => lines.patterns[i]?.test(rendered));
  if (matches.length === 1) return matches[0];
  // A template without loops or partials writes each of its lines at most once, in order: when as
  // many lines rendered this text as can have, the n-th rendered is the n-th line (two documents
  // of one template that write the same name).
  if (ordinal !== undefined && lines.inOrder && matches.length === ordinal.count && matches.every((l) => l.file === lines.template))
    return matches[ordinal.index];
  const own =
    key === undefined
      ? []
      : matches.filter((l) =>
          l.text
            .replace(/\{\{[\s\S]*?\}\}/g, '')
            .trimStart()
            .startsWith(`${key}:`),
        );
  return own.length === 1 ? own[0] : undefined;
}

/**
 * The column in the template line of a problem at `renderedColumn` of the line it rendered: the
 * same column while the line is literal text up to it, else the first tag, whose text it is in
 * (a tag's output has no column of its own); the line's first character when the problem has none.
 */
function templateColumn(text: string, renderedColumn: number | undefined): number {
  const tag = text.indexOf('{{');
  if (renderedColumn !== undefined && (tag < 0 || renderedColumn - 1 < tag)) return renderedColumn;
  return (tag >= 0 && renderedColumn !== undefined ? tag : text.search(/\S|$/)) + 1;
}

const NINDENT_HINT = 'indent multi-line values with nindent, e.g. {{nindent 4 (toYaml Values.x)}}';

/** What to do about a YAML error (the `yaml` library's code) a template line's own text caused. */
const YAML_ERROR_HINTS: Readonly<Record<string, string>> = {
  BLOCK_AS_IMPLICIT_KEY:
    'the next line is indented deeper than this line\'s key: indent it as the key it belongs beside (or, if this value holds ": ", quote it)',
  MULTILINE_IMPLICIT_KEY:
    'the next line is indented deeper than this line\'s key: indent it as the key it belongs beside (or, if this value holds ": ", quote it)',
  BAD_INDENT: 'indent this line as the keys beside it, at the column of the key above it',
  TAB_AS_INDENT: 'indent with spaces: YAML does not allow tabs there',
  MISSING_CHAR: 'close the quote this line opens, on this line',
  BAD_SCALAR_START: 'quote the value: {{quote …}}',
  DUPLICATE_KEY: 'write each key once in its map: drop this line, or leave the key out of the loop that writes it again',
};

const YAML_ERROR_HINT =
  'correct this line or the one before it: an unclosed [ { or quote, or an indentation out of step, is the usual cause';

/** The hint of a YAML error by its code and message: what fits whatever the template wrote. */
function yamlErrorHint(code: string, message: string): string {
  if (/^Flow (?:sequence|mapping) in block collection/.test(message)) return 'close the [ or { that the line before opens, on that line';
  if (/^Unexpected scalar at node end/.test(message))
    return 'text follows a quoted value: quote the whole value, e.g. {{quote (join "" (list a "/x"))}}';
  if (code === 'MISSING_CHAR' && !/quote/.test(message)) return YAML_ERROR_HINT;
  return YAML_ERROR_HINTS[code] ?? YAML_ERROR_HINT;
}

/** How a rendered document falls short of a Kubernetes object, for the message; undefined when it is one. */
function notAnObject(value: unknown): string | undefined {
  if (Array.isArray(value)) return 'a list';
  if (!isPlainObject(value)) return `the ${typeof value} ${JSON.stringify(value).slice(0, 40)}`;
  const missing = ['apiVersion', 'kind'].filter((k) => typeof value[k] !== 'string');
  if (!isPlainObject(value.metadata) || typeof value.metadata.name !== 'string') missing.push('metadata.name');
  return missing.length > 0 ? `a mapping without ${missing.join(', ')}` : undefined;
}

/**
 * A template's output read back as YAML documents. A problem is told at the template line that
 * wrote it when one can have, with the rendered line quoted (a rendered line number is no line of
 * the template); a problem every document of a loop repeats is told once.
 */
function readDocuments(
  chart: LoadedChart,
  template: ChartFile,
  text: string,
  bag: DiagnosticBag,
  /** The chart lines (`file\0line`) whose values the run left unset: what the documents show there is theirs. */
  unsure?: ReadonlySet<string>,
): ChartDocument[] {
  const documents: ChartDocument[] = [];
  const renderedLines = text.split('\n');
  const positions = new LineIndex(text);
  let lines: ChartLines | undefined;
  const writing = (rendered: string, key: string | undefined, ordinal: { index: number; count: number }) =>
    writingLine((lines ??= chartLines([template, ...chart.partials])), rendered, key, ordinal);
  let sameText: Map<string, number[]> | undefined;
  const seen = new Map<string, { diagnostic: Diagnostic; message: string; count: number }>();
  /** Which of the rendered lines of its text a rendered line (0-based) is, and how many there are. */
  const ordinalOf = (renderedLine: number) => {
    if (sameText === undefined) {
      sameText = new Map();
      for (const [i, l] of renderedLines.entries()) {
        const same = sameText.get(l);
        if (same) same.push(i);
        else sameText.set(l, [i]);
      }
    }
    const rendered = renderedLines[renderedLine];
    const same = (rendered === undefined ? undefined : sameText.get(rendered)) ?? [];
    return { index: same.indexOf(renderedLine), count: same.length };
  };
  /** The chart line that wrote a rendered line (1-based), when one can have. */
  const lineThatWrote = (renderedLine: number) => {
    const rendered = renderedLines[renderedLine - 1];
    // of several lines that can have written it, the one that writes its key itself
    return rendered === undefined
      ? undefined
      : writing(rendered, /^\s*(?:- )?([^\s:{}[\]]+):/.exec(rendered)?.[1], ordinalOf(renderedLine - 1));
  };
  const tell = (
    renderedLine: number | undefined,
    problem: Omit<Diagnostic, 'file'> & { notAnObject?: boolean },
    renderedColumn?: number,
    otherwise?: string,
    /** Where to tell it when no one line can have written the rendered line, and the message then. */
    fallback?: { at: ChartLine; message: string },
  ): void => {
    const rendered = renderedLine === undefined ? undefined : renderedLines[renderedLine - 1];
    const traced = renderedLine === undefined ? undefined : lineThatWrote(renderedLine);
    const at = traced ?? fallback?.at;
    if (traced === undefined && fallback) problem = { ...problem, message: fallback.message };
    const previous = renderedLine === undefined ? '' : (renderedLines[renderedLine - 2] ?? '');
    // a rendered line can be megabytes (a loop's output): quoted up to a screen line
    const quote = (line: string) => JSON.stringify(line.length > 160 ? `${line.slice(0, 160)}…` : line);
    const quoted =
      rendered === undefined
        ? ''
        : ` (rendered line ${renderedLine}: ${quote(rendered)}${previous.trim() ? `, after ${quote(previous)}` : ''})`;
    // one template line that breaks every document of a loop is one problem, whatever each rendered
    const key = at ? `${at.file}\0${at.line}\0${problem.message}` : `\0\0${problem.message}\0${rendered}`;
    const before = seen.get(key);
    if (before) {
      before.count++;
      before.diagnostic.message = `${before.message} (the same in ${before.count} documents)`;
      return;
    }
    // a line whose value was left unset, or a document short of a field, can be that value's doing
    if (unsure && (problem.notAnObject || (at && unsure.has(`${templateFile(chart, at.file)}\0${at.line}`)))) return;
    const message = problem.message + quoted;
    // The nindent hint fits a line that writes toYaml without it; for any other line it would mislead.
    const hint =
      problem.hint === NINDENT_HINT && !/toYaml/.test(at?.text.replace(/n?indent[^)]*toYaml/g, '') ?? '') ? otherwise : problem.hint;
    const { notAnObject: _, ...rest } = problem;
    const diagnostic = {
      ...rest,
      hint,
      file: templateFile(chart, at?.file ?? template.path),
      line: at?.line,
      ...(at ? { column: templateColumn(at.text, renderedColumn) } : {}),
      message,
    };
    seen.set(key, { diagnostic, message, count: 1 });
  };
  /** The chart line that wrote a field's key (or, for a list item, its first line): its rendered line, traced back as a problem is. */
  const lineOfField = (doc: YAML.Document, field: readonly (string | number)[]) => {
    // a field's key, on its own line even when its value (a map, a list) starts on the next
    const parent = doc.getIn(field.slice(0, -1), true);
    const pair = YAML.isMap(parent) ? parent.items.find((p) => YAML.isScalar(p.key) && p.key.value === field.at(-1)) : undefined;
    const node = YAML.isNode(pair?.key) ? pair.key : doc.getIn(field, true);
    const start = YAML.isNode(node) ? node.range?.[0] : undefined;
    if (start === undefined) return undefined;
    const key = field.at(-1);
    const renderedLine = positions.at(start).line - 1;
    const at = writing(renderedLines[renderedLine] ?? '', typeof key === 'string' ? key : undefined, ordinalOf(renderedLine));
    if (!at) return undefined;
    const column = typeof key === 'string' ? at.text.indexOf(`${key}:`) : -1;
    return {
      at,
      position: { file: templateFile(chart, at.file), line: at.line, column: column >= 0 ? column + 1 : at.text.search(/\S/) + 1 },
    };
  };
  /**
   * The chart line that wrote a field. A field inside a value the template wrote whole (`toYaml
   * Values.x`) has no line of its own: the line of its nearest field that has is told, with the
   * value the field came from when that line's tag reads one. A line of literal text that has the
   * nearest field's text (another block's `substituteFrom:`) wrote none of it.
   */
  const locateField = (doc: YAML.Document, field: readonly (string | number)[]): ReturnType<NonNullable<ChartDocument['locate']>> => {
    for (let depth = field.length; depth > 0; depth--) {
      const found = lineOfField(doc, field.slice(0, depth));
      if (found === undefined) continue;
      if (depth === field.length) return found.position;
      // a line of literal text writes no field below it: the lines that did are elsewhere
      if (!found.at.text.includes('{{')) continue;
      const read = /\bValues\.([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)/.exec(found.at.text);
      return read ? { ...found.position, through: formatFieldPath([...read[1]!.split('.'), ...field.slice(depth)]) } : found.position;
    }
    return undefined;
  };
  // the bounds before the parse: a template's loops can write 16 MiB of flow list, gigabytes parsed
  try {
    new YamlBudget().check(text, template.path);
  } catch (error) {
    if (!(error instanceof CapiGitopsError)) throw error;
    for (const d of error.diagnostics) tell(d.line, { ...d, message: `renders YAML past a bound: ${d.message}` }, d.column);
    for (const { diagnostic } of seen.values()) bag.add(diagnostic);
    return [];
  }
  // a map or a list written where text goes ({{Values.map}}) is JavaScript's "[object Object]": no YAML of its own
  if (text.includes('[object Object]'))
    renderedLines.forEach((line, i) => {
      const column = line.indexOf('[object Object]');
      if (column >= 0)
        tell(
          i + 1,
          { message: 'writes a map as text ("[object Object]")', expected: 'text, or a map written with toYaml', hint: TO_YAML_HINT },
          column + 1,
        );
    });
  // repeated keys found in one pass (yaml/unique-keys.ts), not by the library's quadratic check
  const lineCounter = new LineCounter();
  for (const doc of YAML.parseAllDocuments(text, { uniqueKeys: false, prettyErrors: true, lineCounter })) {
    if ('errors' in doc && doc.errors.length === 0) reportDuplicateKeys(doc, lineCounter);
    const start = (doc.contents?.range ?? doc.range)?.[0];
    const first = start === undefined ? undefined : positions.at(start).line;
    if ('errors' in doc && doc.errors.length > 0) {
      const e = doc.errors[0]!;
      const line = e.linePos?.[0]?.line;
      const column = e.linePos?.[0]?.col;
      let message = `renders invalid YAML: ${firstLine(e.message).replace(/ at line \d+, column \d+:?$/, '')}`;
      // a key written twice: "the first is at line N" counts rendered lines, no line of the chart
      const firstLineOfKey = Number(/ \(the first is at line (\d+)\)/.exec(message)?.[1] ?? NaN);
      message = message.replace(/ \(the first is at line \d+\)/, '');
      const firstAt = Number.isNaN(firstLineOfKey) ? undefined : lineThatWrote(firstLineOfKey);
      if (firstAt && line !== undefined && lineThatWrote(line)) message += ` (the first written at ${firstAt.file}:${firstAt.line})`;
      tell(
        line,
        { message, expected: 'each rendered document to be valid YAML', hint: NINDENT_HINT },
        column,
        yamlErrorHint(e.code, e.message),
        firstAt ? { at: firstAt, message: `${message}: written again by a later line` } : undefined,
      );
      continue;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 0 });
    } catch (err) {
      tell(first, {
        message: `renders a document with aliases: ${firstLine((err as Error).message)}`,
        expected: 'plain YAML without anchors and aliases',
      });
      continue;
    }
    if (value === null || value === undefined) continue;
    const shortfall = notAnObject(value);
    if (shortfall !== undefined) {
      tell(first, {
        message: `renders a document that is not a Kubernetes object: ${shortfall}`,
        expected: 'apiVersion, kind and metadata.name in every document',
        hint: 'write a whole object in each document, or wrap the document in {{#if}} so it renders empty (an empty document is skipped)',
        notAnObject: true,
      });
      continue;
    }
    documents.push({
      template: template.path,
      object: value as KObject,
      locate: (p) => locateField(doc, p),
      ...(unsure ? { unsure } : {}),
    });
  }
  for (const { diagnostic } of seen.values()) bag.add(diagnostic);
  return documents;
}

/**
 * Runs every template of the chart with `context` and reads each rendered document back as
 * YAML 1.2, so the caller writes it through the safe emitter: a chart cannot put an ambiguous
 * plain scalar (`on`, `yes`, `0644`) into the output. All problems of all templates in one error;
 * given `problems`, they are added there instead, and the documents of the templates that
 * rendered are returned, for the caller to check and tell with them in one run.
 */
export function renderChart(chart: LoadedChart, context: ChartContext, problems?: DiagnosticBag): ChartDocument[] {
  const bag = problems ?? new DiagnosticBag();
  /** A template error as a diagnostic at its file, line and column in the chart. */
  const told = (err: TemplateRuntimeError, fallback: string): Diagnostic => {
    const at = { file: err.file ? templateFile(chart, err.file) : fallback, line: err.line, column: err.column };
    const partial = /^The partial (.+) could not be found/.exec(err.message);
    if (partial) {
      const partials = chart.partials.map((p) => p.path.replace(/^templates\/_/, '').replace(/\.hbs$/, ''));
      return {
        ...at,
        message: `a computed partial name gave ${JSON.stringify(partial[1])}, and the chart has no such partial`,
        expected: `a partial file templates/_${partial[1]}.hbs`,
        hint: `add templates/_${partial[1]}.hbs, or compute one of the chart's partials: ${partials.join(', ') || '(none yet)'}`,
      };
    }
    return {
      ...at,
      // a missing value is the strict lookup's own error (strict.ts), already in these words
      message: err.message,
      expected: err.expected ?? 'a template that renders',
      hint: err.hint,
    };
  };
  const compiled = compileChart(chart.templates, chart.partials, chart.compilers, declaredKeys(context, chart.defaults, chart.schema));
  for (const p of compiled.problems) bag.add({ ...told(p, chart.origin), expected: p.expected ?? 'a Handlebars template' });
  const documents: ChartDocument[] = [];
  for (const template of chart.templates) {
    if (compiled.blocked.has(template.path)) continue;
    const file = templateFile(chart, template.path);
    let text: string;
    try {
      text = compiled.run(template.path, context);
    } catch (err) {
      if (err instanceof TemplateProblems) for (const problem of err.problems) bag.add(told(problem, file));
      else if (err instanceof TemplateRuntimeError) bag.add(told(err, file));
      else throw err;
      if (!(err instanceof TemplateProblems) || err.output === undefined) continue;
      // the run went on past its values' problems: its documents' own problems are told with them
      const unsure = new Set(err.problems.map((p) => `${p.file ? templateFile(chart, p.file) : file}\0${p.line}`));
      documents.push(...readDocuments(chart, template, err.output, bag, unsure));
      continue;
    }
    documents.push(...readDocuments(chart, template, text, bag));
  }
  if (!problems) bag.throwIfAny();
  return documents;
}
