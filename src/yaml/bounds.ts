/**
 * Bounds on the work a YAML text can ask for, checked by a linear scan before any parser runs:
 * an 8 MB flow list (`[1,1,1,…]`) is 4 million nodes, costs the parser tens of seconds and
 * gigabytes, and 30 MB of it kill Node; 100,000 `[` overflow the parser's stack. Aliases are
 * bounded by the parsers already; this bounds nodes and nesting depth.
 *
 * The scan over-estimates (a `, ` or `: ` inside a plain scalar counts as a node) and never
 * under-estimates, so the limits sit far above real artifacts: the largest provider release in
 * the corpus (cluster-api core-components, ~1 MB) is about 60,000 nodes and 40 levels deep.
 *
 * Limits (raise them with the environment variables):
 *   CAPI_GITOPS_YAML_MAX_NODES          nodes per document        default 1,000,000
 *   CAPI_GITOPS_YAML_MAX_DEPTH          nesting depth              default 512
 *   CAPI_GITOPS_YAML_MAX_NODES_PER_RUN  nodes of all inputs of a run default 8,000,000
 *                                       (each document counting DOCUMENT_NODES more)
 */
import { Lexer } from 'yaml';
import { CapiGitopsError, type Diagnostic } from '../core/diagnostics.js';
import { lineColumnAt } from './split.js';

interface YamlLimits {
  maxNodesPerDocument: number;
  maxDepth: number;
  maxNodesPerRun: number;
}

const DEFAULT_YAML_LIMITS: Readonly<YamlLimits> = Object.freeze({
  maxNodesPerDocument: 1_000_000,
  maxDepth: 512,
  maxNodesPerRun: 8_000_000,
});

/**
 * The deepest nesting the `yaml` package's recursive composer reads on Node's default stack: 790
 * levels of `[` and 880 of block mappings overflowed it ("maximum call stack size exceeded"), so
 * CAPI_GITOPS_YAML_MAX_DEPTH cannot raise the bound past this, and the hint never offers more.
 */
const PARSER_MAX_DEPTH = 640;

function positiveInteger(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value.trim()) && Number(value) > 0 ? Number(value) : undefined;
}

/** Each limit's variable and the value its message offers as an example. */
const LIMIT_VARIABLES = [
  ['CAPI_GITOPS_YAML_MAX_NODES', DEFAULT_YAML_LIMITS.maxNodesPerDocument * 2],
  ['CAPI_GITOPS_YAML_MAX_DEPTH', PARSER_MAX_DEPTH],
  ['CAPI_GITOPS_YAML_MAX_NODES_PER_RUN', DEFAULT_YAML_LIMITS.maxNodesPerRun * 2],
] as const;

/** A limit variable set to what is no whole number above 0, which yamlLimits reads as the default: one message each. */
export function yamlLimitProblems(env: Record<string, string | undefined> = process.env): string[] {
  return LIMIT_VARIABLES.flatMap(([name, example]) => {
    const value = env[name];
    if (value === undefined || value.trim() === '' || positiveInteger(value) !== undefined) return [];
    return [`${name} ${JSON.stringify(value)}: expected a whole number greater than 0, e.g. ${name}=${example}`];
  });
}

/** The limits in effect: the defaults, raised or lowered by the CAPI_GITOPS_YAML_* variables. */
function yamlLimits(env: Record<string, string | undefined> = process.env): YamlLimits {
  return {
    maxNodesPerDocument: positiveInteger(env.CAPI_GITOPS_YAML_MAX_NODES) ?? DEFAULT_YAML_LIMITS.maxNodesPerDocument,
    maxDepth: Math.min(positiveInteger(env.CAPI_GITOPS_YAML_MAX_DEPTH) ?? DEFAULT_YAML_LIMITS.maxDepth, PARSER_MAX_DEPTH),
    maxNodesPerRun: positiveInteger(env.CAPI_GITOPS_YAML_MAX_NODES_PER_RUN) ?? DEFAULT_YAML_LIMITS.maxNodesPerRun,
  };
}

/** The nodes a run has left; one per run, shared by every text it reads. */
export class YamlBudget {
  private used = 0;
  constructor(readonly limits: YamlLimits = yamlLimits()) {}

  /** Scans `text` (named `source` in errors); throws a CapiGitopsError when a bound is passed. */
  check(text: string, source: string): void {
    checkDoubleQuoted(text, source);
    // A bound from native searches first; the character scan only runs when that bound is too high
    // (it counts fewer nodes, so it also decides before the run's limit is reported).
    const quick = quickBound(text, this.limits);
    const nodes =
      quick.mayBeDeep || quick.nodes > this.limits.maxNodesPerDocument || this.used + quick.nodes > this.limits.maxNodesPerRun
        ? scanStructure(text, source, this.limits)
        : quick.nodes;
    this.used += nodes + DOCUMENT_NODES * documentMarkers(text);
    if (this.used > this.limits.maxNodesPerRun) {
      throw new CapiGitopsError({
        file: source,
        message: `the inputs of this run hold more than ${this.limits.maxNodesPerRun} YAML nodes (reached while reading this file; each document counts as ${DOCUMENT_NODES})`,
        expected: `at most ${this.limits.maxNodesPerRun} nodes in all manifests and artifacts together`,
        hint: `check that the sources are real provider artifacts; if they are, raise the limit: CAPI_GITOPS_YAML_MAX_NODES_PER_RUN=${this.limits.maxNodesPerRun * 2}`,
      });
    }
  }
}

/**
 * The longest double-quoted scalar read: the `yaml` package builds one a character at a time
 * (resolve-flow-scalar.ts `doubleQuotedValue`), about 36 bytes of heap a character, so 63 MiB of
 * one ran a 2 GB heap out, a crash with V8's trace. Single-quoted, plain and block scalars are
 * sliced whole, and no real value comes near this.
 */
const MAX_DOUBLE_QUOTED = 8 * 1024 * 1024;

/** The lexer's tokens that are not text of the source. */
const CONTROL_TOKENS = new Set(['\x02', '\x18', '\x1f']);

/** Throws at a double-quoted scalar longer than MAX_DOUBLE_QUOTED. */
function checkDoubleQuoted(text: string, source: string): void {
  if (text.length <= MAX_DOUBLE_QUOTED || !longQuoteGap(text)) return;
  // the lexer tells a quote that opens a scalar from one in a comment, a plain or a block scalar
  let offset = 0;
  for (const token of new Lexer().lex(text)) {
    if (token.startsWith('"') && token.length > MAX_DOUBLE_QUOTED) {
      throw new CapiGitopsError({
        file: source,
        ...lineColumnAt(text, offset),
        message: `a double-quoted scalar here is longer than ${MAX_DOUBLE_QUOTED / 1024 / 1024} MiB`,
        expected: `a double-quoted scalar of at most ${MAX_DOUBLE_QUOTED / 1024 / 1024} MiB`,
        hint: 'write it as a block scalar (key: |) or single-quoted, which are read whole; or check that the file is what it claims to be',
      });
    }
    if (!CONTROL_TOKENS.has(token)) offset += token.length;
  }
}

/**
 * Whether two quotes (not after a backslash) lie more than MAX_DOUBLE_QUOTED apart, or the last is
 * that far from the end: a double-quoted scalar that long holds no such quote, so real texts are
 * decided by native searches alone.
 */
function longQuoteGap(text: string): boolean {
  let previous = -1;
  for (let at = text.indexOf('"'); at >= 0; at = text.indexOf('"', at + 1)) {
    if (text.charCodeAt(at - 1) === 92 /* \ */) continue;
    if (previous >= 0 && at - previous > MAX_DOUBLE_QUOTED) return true;
    previous = at;
  }
  return previous >= 0 && text.length - previous > MAX_DOUBLE_QUOTED;
}

/**
 * What a document costs the run's budget besides its nodes: the `yaml` package builds a Document
 * and its schema for each (about 1.7 KB), so 4 MB of `---` lines, a million empty documents within
 * the node bounds, took 60 s and 1.7 GB. Real artifacts hold tens of documents a megabyte.
 */
const DOCUMENT_NODES = 64;

/** The `---` and `...` markers at the start of a line: at most one document each. */
function documentMarkers(text: string): number {
  const first = text.startsWith('---') || text.startsWith('...') ? 1 : 0;
  return first + occurrences(text, '\n---') + occurrences(text, '\n...');
}

function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) count++;
  return count;
}

/**
 * Upper bounds, from native substring searches, on the nodes of the whole text and on its nesting
 * depth, each at least what `scanStructure` would count for nodes and the real nesting for depth:
 *
 * - nodes: a line holds at most `- key: value` (three nodes); each further compact entry (`- `,
 *   `? `) two more; each flow separator at most a key, a value and a one-pair mapping (three);
 *   each flow opener one.
 * - depth: indentation levels (fewer than a quarter of the limit unless some line is indented that
 *   far), compact entries on one line (fewer than a quarter unless such a run is found) and flow
 *   nesting (`flowDepthBound`), added.
 *
 * Real artifacts are decided here; the character scan runs only when a bound is too high.
 */
function quickBound(text: string, limits: YamlLimits): { nodes: number; mayBeDeep: boolean } {
  const openers = occurrences(text, '[') + occurrences(text, '{');
  const quarter = Math.max(1, limits.maxDepth >> 2);
  const compact = compactEntries(text, quarter);
  const nodes = 3 * (occurrences(text, '\n') + 1) + 3 * occurrences(text, ',') + openers + 2 * compact.entries;
  // A line indented `quarter` spaces or more is found by native substring searches (after any line
  // terminator a multi-line regex knows); a regex over the whole text cost 3-4 times as much.
  // The rare terminators are looked for alone first: one search of a character is cheap.
  const indentation = ' '.repeat(quarter);
  const deepIndentation =
    text.startsWith(indentation) ||
    text.includes('\n' + indentation) ||
    ['\r', '\u2028', '\u2029'].some((terminator) => text.includes(terminator) && text.includes(terminator + indentation));
  const mayBeDeep =
    deepIndentation || compact.longRun || flowDepthBound(text, limits.maxDepth - 2 * quarter) > limits.maxDepth - 2 * quarter;
  return { nodes, mayBeDeep };
}

/**
 * Compact entries (`- ` or `? ` followed by more spaces or tabs), and whether `quarter` of them
 * follow one another on a line (`- - ? - …`, each one a level deeper). Entries separated by tabs
 * are rare in real artifacts: any `-\t` or `?\t` leaves the run to a regex.
 */
function compactEntries(text: string, quarter: number): { entries: number; longRun: boolean } {
  if (text.includes('-\t') || text.includes('?\t')) {
    const entries = occurrences(text, '- ') + occurrences(text, '? ') + occurrences(text, '-\t') + occurrences(text, '?\t');
    return { entries, longRun: new RegExp(`(?:[-?][ \\t]+){${quarter}}`).test(text) };
  }
  let entries = 0;
  let run = 0;
  let next = -1; // where an entry following the last one would start
  let dash = text.indexOf('- ');
  let question = text.indexOf('? ');
  while (dash >= 0 || question >= 0) {
    const at = question < 0 || (dash >= 0 && dash < question) ? dash : question;
    if (at === dash) dash = text.indexOf('- ', at + 1);
    else question = text.indexOf('? ', at + 1);
    entries++;
    run = at === next ? run + 1 : 1;
    if (run >= quarter) return { entries, longRun: true };
    next = at + 2;
    while (text.charCodeAt(next) === 32 /* space */ || text.charCodeAt(next) === 9 /* tab */) next++;
  }
  return { entries, longRun: false };
}

/**
 * An upper bound on flow nesting, from the flow openers alone: an opener closed later on its own
 * line, with no quote or comment between (which could hide the closer), is open only on that line;
 * every other opener may stay open to the end of the text. Stops counting above `limit`.
 */
function flowDepthBound(text: string, limit: number): number {
  let carried = 0; // openers that may still be open
  let deepest = 0;
  let bracket = text.indexOf('[');
  let brace = text.indexOf('{');
  while ((bracket >= 0 || brace >= 0) && deepest <= limit) {
    const first = brace < 0 || (bracket >= 0 && bracket < brace) ? bracket : brace;
    let lineEnd = text.indexOf('\n', first);
    if (lineEnd < 0) lineEnd = text.length;
    let open = 0; // openers on this line a closer may still close
    for (let j = first; j < lineEnd; j++) {
      const c = text.charCodeAt(j);
      if (c === 91 /* [ */ || c === 123 /* { */) {
        open++;
        deepest = Math.max(deepest, carried + open);
      } else if (c === 93 /* ] */ || c === 125 /* } */) {
        if (open > 0) open--;
      } else if (c === 34 /* " */ || c === 39 /* ' */ || c === 35 /* # */) {
        carried += open;
        open = 0;
      }
    }
    carried += open;
    if (bracket >= 0 && bracket < lineEnd) bracket = text.indexOf('[', lineEnd);
    if (brace >= 0 && brace < lineEnd) brace = text.indexOf('{', lineEnd);
  }
  return deepest;
}

/** Characters that need the character loop: quotes, flow brackets, commas, comments, block scalar headers. */
const SPECIAL = /["'[\]{},#|>]/g;
const SPACE = 32;
const TAB = 9;

/** A document past the bound of nodes or of nesting, which the bound names for a caller to tell in its own words. */
export class YamlBoundError extends CapiGitopsError {
  constructor(
    diagnostic: Diagnostic,
    readonly bound: 'nodes' | 'depth',
  ) {
    super(diagnostic);
  }
}

function tooMuch(text: string, source: string, offset: number, what: 'nodes' | 'depth', limits: YamlLimits): YamlBoundError {
  const nodes = what === 'nodes';
  return new YamlBoundError(
    {
      file: source,
      ...lineColumnAt(text, offset),
      message: nodes
        ? `a YAML document here holds more than ${limits.maxNodesPerDocument} nodes`
        : `YAML nesting here is deeper than ${limits.maxDepth} levels`,
      expected: nodes ? `at most ${limits.maxNodesPerDocument} nodes per document` : `at most ${limits.maxDepth} levels of nesting`,
      hint: nodes
        ? `check that the file is what it claims to be; to accept it, raise the limit: CAPI_GITOPS_YAML_MAX_NODES=${limits.maxNodesPerDocument * 2}`
        : limits.maxDepth < PARSER_MAX_DEPTH
          ? `check that the file is what it claims to be; to accept it, raise the limit: CAPI_GITOPS_YAML_MAX_DEPTH=${Math.min(limits.maxDepth * 2, PARSER_MAX_DEPTH)}`
          : `${PARSER_MAX_DEPTH} levels is as deep as the YAML parser reads: check that the file is what it claims to be, and nest it less`,
    },
    what,
  );
}

/**
 * Counts nodes per document and tracks nesting (flow brackets, plus block indentation levels and
 * compact `- - ` entries); returns the total node count. Quoted scalars, comments and block
 * scalar bodies are skipped. Hand-written: the point is to run before any parser allocates.
 */
function scanStructure(text: string, source: string, limits: YamlLimits): number {
  let total = 0;
  let docNodes = 0;
  let flowDepth = 0;
  const indents: number[] = [];
  let blockScalarIndent = -1; // > -1: inside a block scalar whose parent line was indented this much
  const n = text.length;
  let nextSpecial = -1;
  let nextColon = -1;
  let i = 0;
  while (i < n) {
    // Start of a line: measure the indentation.
    let indent = 0;
    while (i < n && text.charCodeAt(i) === SPACE) {
      indent++;
      i++;
    }
    const lineStart = i;
    let lineEnd = text.indexOf('\n', i);
    if (lineEnd < 0) lineEnd = n;
    const blank = lineStart === lineEnd || text.charCodeAt(lineStart) === 35 /* # */ || text.charCodeAt(lineStart) === 13;
    if (blockScalarIndent >= 0) {
      if (blank || indent > blockScalarIndent) {
        i = lineEnd + 1;
        continue;
      }
      blockScalarIndent = -1;
    }
    if (blank) {
      i = lineEnd + 1;
      continue;
    }
    if (text.startsWith('---', lineStart) || text.startsWith('...', lineStart)) {
      total += docNodes;
      docNodes = 1;
      flowDepth = 0;
      indents.length = 0;
      i = lineEnd + 1;
      continue;
    }
    if (flowDepth === 0) {
      while (indents.length > 0 && indents[indents.length - 1]! >= indent) indents.pop();
      indents.push(indent);
    }
    let depth = indents.length + flowDepth;
    if (nextSpecial < lineStart) {
      SPECIAL.lastIndex = lineStart;
      nextSpecial = SPECIAL.exec(text)?.index ?? n;
    }
    if (nextSpecial >= lineEnd && flowDepth === 0) {
      // Most lines: `key: value`, `- item`, a plain scalar. Counted without a character loop.
      // Compact entries `- - x`, `? - x`: each indicator is followed by spaces or tabs (any number) or the line end.
      let dashes = 0;
      for (let at = lineStart; text.charCodeAt(at) === 45 /* - */ || text.charCodeAt(at) === 63 /* ? */;) {
        const after = text.charCodeAt(at + 1);
        if (at + 1 < lineEnd && after !== SPACE && after !== TAB) break;
        dashes++;
        at++;
        while (at < lineEnd && (text.charCodeAt(at) === SPACE || text.charCodeAt(at) === TAB)) at++;
      }
      if (nextColon < lineStart) nextColon = text.indexOf(':', lineStart) >>> 0;
      docNodes += 2 * dashes + (nextColon < lineEnd ? 2 : 1);
      depth += Math.max(0, dashes - 1);
      if (docNodes > limits.maxNodesPerDocument) throw tooMuch(text, source, lineStart, 'nodes', limits);
      if (depth > limits.maxDepth) throw tooMuch(text, source, lineStart, 'depth', limits);
      i = lineEnd + 1;
      continue;
    }
    let last = 0;
    for (let j = lineStart; j < lineEnd; j++) {
      const c = text.charCodeAt(j);
      if (c === 34 /* " */ || c === 39 /* ' */) {
        // Skip the quoted scalar (it may span lines: the outer loop then resumes after it).
        let k = j + 1;
        while (k < n) {
          const d = text.charCodeAt(k);
          if (c === 34 && d === 92 /* \ */) k += 2;
          else if (d === c && c === 39 && text.charCodeAt(k + 1) === 39) k += 2;
          else if (d === c) break;
          else k++;
        }
        docNodes++;
        if (k >= lineEnd) {
          lineEnd = text.indexOf('\n', k);
          if (lineEnd < 0) lineEnd = n;
        }
        j = k;
        continue;
      }
      if (c === 35 /* # */ && (j === lineStart || last === SPACE || last === TAB)) break;
      if (c === 91 /* [ */ || c === 123 /* { */) {
        flowDepth++;
        depth++;
        docNodes++;
      } else if (c === 93 /* ] */ || c === 125 /* } */) {
        if (flowDepth > 0) flowDepth--;
      } else if (c === 44 /* , */) {
        docNodes++;
      } else if (
        (c === 45 /* - */ || c === 58 /* : */ || c === 63) /* ? */ &&
        (j + 1 === lineEnd || text.charCodeAt(j + 1) === SPACE || text.charCodeAt(j + 1) === TAB)
      ) {
        docNodes += c === 58 ? 1 : 2;
        if (c === 45 && j !== lineStart) depth++;
      } else if ((c === 124 /* | */ || c === 62) /* > */ && flowDepth === 0 && (last === SPACE || j === lineStart)) {
        // A block scalar header: the more-indented lines below are its text.
        const rest = text
          .slice(j + 1, lineEnd)
          .replace(/\s+#.*$/, '')
          .trim();
        if (/^[-+0-9]*$/.test(rest)) {
          blockScalarIndent = indent;
          docNodes++;
          break;
        }
      }
      last = c;
      if (depth > limits.maxDepth) throw tooMuch(text, source, j, 'depth', limits);
    }
    if (docNodes > limits.maxNodesPerDocument) throw tooMuch(text, source, lineStart, 'nodes', limits);
    if (depth > limits.maxDepth) throw tooMuch(text, source, lineStart, 'depth', limits);
    i = lineEnd + 1;
  }
  return total + docNodes;
}
