import path from 'node:path';
import YAML from 'yaml';
import { CapiGitopsError, DiagnosticBag } from '../../core/diagnostics.js';
import { isPlainObject, type KObject } from '../../core/kobject.js';
import { compileChart, templateErrorPosition, TemplateRuntimeError } from './engine.js';
import type { ChartContext, ChartDocument, LoadedChart } from './types.js';

function templateFile(chart: LoadedChart, template: string): string {
  return chart.origin.startsWith('built-in') ? `${chart.origin}: ${template}` : path.join(chart.origin, template);
}

/** The message of a template error without Handlebars' own position suffix and code excerpt. */
function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/ - \d+:\d+$/, '');
}

/**
 * Runs every template of the chart with `context` and reads each rendered document back as
 * YAML 1.2, so the caller writes it through the safe emitter: a chart cannot put an ambiguous
 * plain scalar (`on`, `yes`, `0644`) into the output. All problems of all templates in one error.
 */
export function renderChart(chart: LoadedChart, context: ChartContext): ChartDocument[] {
  const bag = new DiagnosticBag();
  let compiled;
  try {
    compiled = compileChart(chart.templates, chart.partials, chart.compilers);
  } catch (err) {
    const where = chart.templates.concat(chart.partials).find((t) => {
      try {
        compileChart([t], [], chart.compilers);
        return false;
      } catch {
        return true;
      }
    });
    const { line, column } = templateErrorPosition(err);
    throw new CapiGitopsError({
      file: where ? templateFile(chart, where.path) : chart.origin,
      line,
      column,
      message: `template does not compile: ${firstLine((err as Error).message)}`,
      expected: 'a Handlebars template',
    });
  }
  const documents: ChartDocument[] = [];
  for (const template of chart.templates) {
    const file = templateFile(chart, template.path);
    let text: string;
    try {
      text = compiled.run(template.path, context);
    } catch (err) {
      // A partial that includes itself is reported at the include (engine.ts bounds).
      const inPartial = err instanceof TemplateRuntimeError && err.file !== undefined;
      const { line, column } = inPartial ? { line: err.line, column: undefined } : templateErrorPosition(err);
      const message = firstLine((err as Error).message ?? String(err));
      const missing = /^"([^"]+)" not defined in/.exec(message);
      bag.add({
        file: inPartial ? templateFile(chart, err.file!) : file,
        line,
        column,
        message: missing ? `value "${missing[1]}" is not defined` : message,
        expected: missing
          ? 'every value the template reads to exist (null when unset) in values.yaml'
          : ((err as TemplateRuntimeError).expected ?? 'a template that renders'),
        hint: missing ? `add ${missing[1]} to the chart's values.yaml, or guard it with {{#if}} on a value that exists` : undefined,
      });
      continue;
    }
    for (const doc of YAML.parseAllDocuments(text, { uniqueKeys: true, prettyErrors: true })) {
      if ('errors' in doc && doc.errors.length > 0) {
        const e = doc.errors[0]!;
        bag.add({
          file,
          line: e.linePos?.[0]?.line,
          column: e.linePos?.[0]?.col,
          message: `renders invalid YAML: ${firstLine(e.message)}`,
          expected: 'each rendered document to be valid YAML (line numbers are of the rendered text)',
          hint: 'indent multi-line values with nindent, e.g. {{nindent 4 (toYaml Values.x)}}',
        });
        continue;
      }
      let value: unknown;
      try {
        value = doc.toJS({ maxAliasCount: 0 });
      } catch (err) {
        bag.add({
          file,
          message: `renders a document with aliases: ${firstLine((err as Error).message)}`,
          expected: 'plain YAML without anchors and aliases',
        });
        continue;
      }
      if (value === null || value === undefined) continue;
      if (
        !isPlainObject(value) ||
        typeof value.kind !== 'string' ||
        typeof value.apiVersion !== 'string' ||
        !isPlainObject(value.metadata) ||
        typeof value.metadata.name !== 'string'
      ) {
        bag.add({
          file,
          message: 'renders a document that is not a Kubernetes object',
          expected: 'apiVersion, kind and metadata.name in every document',
        });
        continue;
      }
      documents.push({ template: template.path, object: value as KObject });
    }
  }
  bag.throwIfAny();
  return documents;
}
