/**
 * What is wrong with a user chart's template text, found before any template runs, so every
 * problem of every file is told in one run at its line and column: a Handlebars parse error in
 * words (Helm reports `parse error at (<chart>/templates/<file>:<line>)`, pkg/engine engine.go
 * cleanupParseError), and what the syntax tree shows no render would survive: a partial or
 * `include` that names no partial, a call of a helper that does not exist, and `#if`, `#unless`,
 * `#with` or `#each` without their one argument.
 */
import { LineIndex, lineColumnAt } from '../../yaml/split.js';

/** A problem in one template file; `line` and `column` are 1-based. */
export interface TemplateProblem {
  message: string;
  line?: number;
  column?: number;
  expected: string;
  hint?: string;
}

/** Handlebars' grammar tokens (its parser's "Expecting …, got …") in the words of a template. */
const TOKEN_WORDS: Record<string, string> = {
  EOF: 'the end of the template',
  CONTENT: 'text',
  COMMENT: 'a comment',
  OPEN: '{{',
  OPEN_UNESCAPED: '{{{',
  OPEN_BLOCK: '{{#',
  OPEN_ENDBLOCK: '{{/…}}',
  OPEN_INVERSE: '{{^',
  OPEN_INVERSE_CHAIN: '{{else …}}',
  INVERSE: '{{else}}',
  OPEN_PARTIAL: '{{>',
  OPEN_PARTIAL_BLOCK: '{{#>',
  OPEN_RAW_BLOCK: '{{{{',
  END_RAW_BLOCK: '{{{{/',
  CLOSE: '}}',
  CLOSE_UNESCAPED: '}}}',
  CLOSE_RAW_BLOCK: '}}}}',
  OPEN_SEXPR: '(',
  CLOSE_SEXPR: ')',
  OPEN_BLOCK_PARAMS: 'as |',
  CLOSE_BLOCK_PARAMS: '|',
  ID: 'a name',
  STRING: 'a string',
  NUMBER: 'a number',
  BOOLEAN: 'true or false',
  UNDEFINED: 'undefined',
  NULL: 'null',
  DATA: 'an @name',
  SEP: '. or /',
  EQUALS: '=',
  INVALID: 'a character that cannot stand here',
};

const words = (token: string): string => TOKEN_WORDS[token] ?? token;

/** The source with comments blanked (newlines kept), so a scan for tags does not read inside them. */
function withoutComments(source: string): string {
  return source.replace(/\{\{~?!--[\s\S]*?--~?\}\}|\{\{~?![\s\S]*?\}\}/g, (comment) => comment.replace(/[^\n]/g, ' '));
}

/** The innermost block still open at the end of the template: its name and where it opens. */
function unclosedBlock(source: string): { name: string; offset: number } | undefined {
  const open: { name: string; offset: number }[] = [];
  for (const tag of withoutComments(source).matchAll(/\{\{~?\s*([#^/])\s*[>*]?\s*([^\s}~()]+)/g)) {
    if (tag[1] === '/') open.pop();
    else if (!(tag[1] === '^' && tag[2] === '}}')) open.push({ name: tag[2]!.replace(/^"|"$/g, ''), offset: tag.index });
  }
  return open.at(-1);
}

/** Where Handlebars' parser stopped: its excerpt (20 characters either side, newlines dropped) found in the source. */
function caretOffset(excerpt: string, caret: number, source: string, line: number): number | undefined {
  const before = excerpt.slice(0, caret).replace(/^\.\.\./, '');
  const after = excerpt.slice(caret).replace(/\.\.\.$/, '');
  const offsets: number[] = [];
  let flat = '';
  for (let i = 0; i < source.length; i++) {
    if (source[i] === '\n') continue;
    offsets.push(i);
    flat += source[i];
  }
  offsets.push(source.length);
  const candidates: number[] = [];
  for (let at = flat.indexOf(before + after); at >= 0; at = flat.indexOf(before + after, at + 1)) {
    candidates.push(offsets[at + before.length]!);
  }
  // The parser counts lines up to the token it could not take, which may end lines below its start.
  const positions = new LineIndex(source);
  const near = candidates.filter((o) => positions.at(o).line <= line).sort((a, b) => b - a);
  return near[0] ?? candidates[0];
}

/** The text at `offset` up to the end of its line (at most 20 characters), for "got …". */
function textAt(source: string, offset: number): string {
  const rest = source.slice(offset).split('\n')[0]!;
  return rest.length > 20 ? rest.slice(0, 20) + '…' : rest;
}

/** What the parser expected, in words: the one thing that matters first. */
function expectation(expected: string[]): string {
  if (expected.includes('CLOSE')) return '}} to close the tag, or more of its expression';
  if (expected.includes('CLOSE_SEXPR')) return ') to close the (subexpression), or more of it';
  if (expected.includes('ID') && expected.includes('STRING')) return 'a value: a name, a string, a number or a (subexpression)';
  if (expected.includes('EOF')) return 'text or a {{tag}}';
  return expected.map(words).join(', ');
}

/** A Handlebars parse error in words, at the place it names. */
/** A tag of Go's text/template as Helm's charts write them: `{{- …`, `… -}}`, `{{ .Values`, `{{ end }}`, `| quote`. */
const GO_TEMPLATE_TAG =
  /\{\{-\s|\s-\}\}|\{\{-?\s*\.[A-Z]|\{\{-?\s*end\s*-?\}\}|\{\{[^}]*\|\s*(?:quote|default|toYaml|nindent|indent|required|b64enc|upper|lower|trim)\b/;

/** A template that does not parse and has Go's template syntax in it: told as that, at its first such tag. */
function goTemplateProblem(source: string): TemplateProblem | undefined {
  const found = GO_TEMPLATE_TAG.exec(withoutComments(source));
  if (!found) return undefined;
  const start = source.lastIndexOf('{{', found.index + 3);
  const end = source.indexOf('}}', start);
  const tag = source.slice(start, end < 0 ? start + 40 : end + 2);
  return {
    ...lineColumnAt(source, start),
    message: `Go template syntax, as Helm's templates are written (${JSON.stringify(tag.length > 60 ? `${tag.slice(0, 60)}…` : tag)}), where chart templates are Handlebars`,
    expected: 'a Handlebars template',
    hint:
      'write {{Values.x}} for {{ .Values.x }}, {{quote x}} for x | quote, and {{#if Values.x}} … {{/if}} for {{- if … }} … {{- end }}: ' +
      'a block tag alone on its line leaves no line behind, so it needs no trimming',
  };
}

export function describeParseError(message: string, source: string): TemplateProblem {
  const go = goTemplateProblem(source);
  if (go) return go;
  const parse = /^Parse error on line (\d+):\n(.*)\n(-*)\^\nExpecting (.*), got '(\w+)'/.exec(message);
  if (!parse) {
    // Handlebars' own checks (a {{/name}} that closes another block) carry " - line:column".
    const at = / - (\d+):(\d+)$/.exec(message.split('\n')[0]!);
    const mismatch = /^(\S+) doesn't match (\S+)/.exec(message);
    return {
      message: mismatch
        ? `{{#${mismatch[1]}}} is closed by {{/${mismatch[2]}}}: a block closes with its own name, the innermost first`
        : message.split('\n')[0]!.replace(/ - \d+:\d+$/, ''),
      ...(at ? { line: Number(at[1]), column: Number(at[2]) + 1 } : {}),
      expected: 'a Handlebars template',
      ...(mismatch ? { hint: `close {{#${mismatch[1]}}} with {{/${mismatch[1]}}} before {{/${mismatch[2]}}}` } : {}),
    };
  }
  const line = Number(parse[1]);
  const expected = [...parse[4]!.matchAll(/'(\w+)'/g)].map((m) => m[1]!);
  const got = parse[5]!;
  const offset = caretOffset(parse[2]!, parse[3]!.length, source, line);
  const at = offset === undefined ? { line } : lineColumnAt(source, offset);
  if (got === 'EOF' && expected.includes('OPEN_ENDBLOCK')) {
    const block = unclosedBlock(source);
    if (block)
      return {
        ...lineColumnAt(source, block.offset),
        message: `{{#${block.name}}} is never closed: the template ends before its {{/${block.name}}}`,
        expected: `every {{#${block.name}}} closed by {{/${block.name}}}`,
        hint: `add {{/${block.name}}} where the block's content ends`,
      };
    return { line, message: 'a block is never closed: the template ends before its {{/…}}', expected: 'every {{#…}} closed by {{/…}}' };
  }
  if (got === 'EOF') {
    const tag = withoutComments(source).lastIndexOf('{{');
    return {
      ...(tag >= 0 ? lineColumnAt(source, tag) : { line }),
      message: 'a {{tag}} is never closed: the template ends inside it',
      expected: 'every {{ closed by }}',
      hint: 'close the tag with }}',
    };
  }
  if (got === 'OPEN_ENDBLOCK' && !expected.includes('OPEN_ENDBLOCK'))
    return {
      ...at,
      message: `${offset === undefined ? '{{/…}}' : textAt(source, offset)} closes no block: no {{#…}} is open here`,
      expected: 'a {{/name}} only after its {{#name …}}',
      hint: 'remove it, or open the block before it',
    };
  if ((got === 'INVERSE' || got === 'OPEN_INVERSE_CHAIN') && !expected.includes(got))
    return {
      ...at,
      message: '{{else}} outside a block: it belongs between {{#if …}} (or #each, #unless, #with) and its {{/…}}',
      expected: '{{else}} inside a block',
      hint: 'remove it, or move it inside the block it belongs to',
    };
  const text = offset === undefined ? words(got) : JSON.stringify(textAt(source, offset));
  return {
    ...at,
    message: `Handlebars expected ${expectation(expected)}, got ${text}`,
    expected: 'a Handlebars template',
    hint: 'every tag is {{expression}}, and a helper call in a tag is {{helper arg (other-helper arg)}}',
  };
}

interface AstNode {
  type: string;
  loc?: { start: { line: number; column: number } };
  path?: AstNode & { original?: unknown; data?: boolean; parts?: string[] };
  name?: AstNode & { original?: unknown; data?: boolean };
  params?: (AstNode & { value?: unknown })[];
  hash?: unknown;
}

function walk(node: unknown, visit: (node: AstNode) => void): void {
  if (Array.isArray(node)) for (const item of node) walk(item, visit);
  else if (node !== null && typeof node === 'object') {
    if (typeof (node as AstNode).type === 'string') visit(node as AstNode);
    for (const [key, value] of Object.entries(node)) if (key !== 'loc' && key !== 'strip') walk(value, visit);
  }
}

const BLOCKS_OF_ONE_ARGUMENT = new Set(['if', 'unless', 'with', 'each']);

function at(node: AstNode): { line?: number; column?: number } {
  return node.loc ? { line: node.loc.start.line, column: node.loc.start.column + 1 } : {};
}

/**
 * Problems the syntax tree shows: partials and includes of a name the chart lacks (a partial
 * block `{{#> name}}` has its own fallback, and `{{#*inline}}` partials count), calls of helpers
 * that do not exist, and the built-in blocks without their one argument.
 */
export function templateProblems(ast: unknown, partials: readonly string[], helpers: readonly string[]): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  const known = new Set(partials);
  walk(ast, (node) => {
    if (node.type === 'DecoratorBlock' && node.path?.original === 'inline' && typeof node.params?.[0]?.value === 'string')
      known.add(node.params[0].value);
  });
  const sorted = [...partials].sort();
  const missingPartial = (node: AstNode, name: string, how: string): void => {
    problems.push({
      ...at(node),
      message: `${how}: no partial ${JSON.stringify(name)} in the chart`,
      expected: `a partial file templates/_${name}.hbs`,
      hint:
        sorted.length === 0
          ? `add the file templates/_${name}.hbs (the chart has no partials yet)`
          : `add templates/_${name}.hbs, or name one of the chart's partials: ${sorted.join(', ')}`,
    });
  };
  walk(ast, (node) => {
    if (node.type === 'PartialStatement' && node.name?.type === 'PathExpression' && !node.name.data) {
      const name = String(node.name.original);
      if (!known.has(name)) missingPartial(node, name, `{{> ${name}}}`);
      return;
    }
    if (!['MustacheStatement', 'SubExpression', 'BlockStatement'].includes(node.type) || node.path?.type !== 'PathExpression') return;
    const name = String(node.path.original);
    const params = node.params ?? [];
    if (name === 'include' && params[0]?.type === 'StringLiteral' && !known.has(String(params[0].value)))
      missingPartial(node, String(params[0].value), `include ${JSON.stringify(params[0].value)}`);
    if (node.type === 'BlockStatement' && BLOCKS_OF_ONE_ARGUMENT.has(name) && params.length !== 1)
      problems.push({
        ...at(node),
        message: `{{#${name}}} takes exactly one argument, here ${params.length}`,
        expected: `{{#${name} value}} … {{/${name}}}`,
        hint:
          params.length === 0
            ? `name what it reads, e.g. {{#${name} Values.enabled}}`
            : `combine the values into one with a helper, e.g. {{#${name} (and Values.a Values.b)}}`,
      });
    const isCall = params.length > 0 || node.hash !== undefined;
    const simple = !node.path.data && node.path.parts?.length === 1 && !/[./]/.test(name) && name !== 'this';
    if (isCall && simple && !helpers.includes(name))
      problems.push({
        ...at(node),
        message: `no helper ${JSON.stringify(name)}: a name followed by arguments is a helper call`,
        expected: `one of the helpers: ${helpers.join(', ')}`,
        hint: 'call one of these helpers, or read a value alone in its tag ({{Values.name}})',
      });
  });
  return problems;
}
