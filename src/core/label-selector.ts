/**
 * Kubernetes label selectors, one implementation for every stage: the structured form
 * (metav1.LabelSelector, in provider specs and ConfigMap selectors) and the string form
 * (apimachinery labels.Parse, in kustomize patch targets) both become requirements that one
 * matcher evaluates, as apimachinery's LabelSelectorAsSelector does.
 */
import { compareStrings } from './diagnostics.js';
import { isValidLabelKey, isValidLabelValue, labelValueProblem, qualifiedNameProblem } from './names.js';

/** metav1.LabelSelectorRequirement. */
export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}
/** metav1.LabelSelector. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

// ---- selector strings (apimachinery labels.Parse) ---------------------------------------

type SelectorOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: SelectorOperator;
  values: string[];
}

type TokenKind = 'id' | 'in' | 'notin' | '!' | '=' | '==' | '!=' | '>' | '<' | '(' | ')' | ',' | 'end';
interface Token {
  kind: TokenKind;
  text: string;
}

const SYMBOLS = new Set(['!', '=', '==', '!=', '>', '<', '(', ')', ',']);
const SPECIAL_CHARS = '=!(),><';
const WHITESPACE = ' \t\r\n';

function lexSelector(text: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  for (;;) {
    while (pos < text.length && WHITESPACE.includes(text[pos]!)) pos++;
    if (pos >= text.length) {
      tokens.push({ kind: 'end', text: '' });
      return tokens;
    }
    if (SPECIAL_CHARS.includes(text[pos]!)) {
      // Longest run of special characters that is still a symbol: "!=" but "=" then "(".
      let symbol = text[pos]!;
      pos++;
      if (pos < text.length && SYMBOLS.has(symbol + text[pos]!)) symbol += text[pos++]!;
      tokens.push({ kind: symbol as TokenKind, text: symbol });
      continue;
    }
    const start = pos;
    while (pos < text.length && !SPECIAL_CHARS.includes(text[pos]!) && !WHITESPACE.includes(text[pos]!)) pos++;
    const word = text.slice(start, pos);
    tokens.push({ kind: word === 'in' || word === 'notin' ? word : 'id', text: word });
  }
}

/** Parses a selector string; throws Error with apimachinery's wording on bad syntax or names. */
export function parseLabelSelector(text: string): LabelRequirement[] {
  const tokens = lexSelector(text);
  let at = 0;
  // In value position `in`/`notin` are plain words (upstream ParserContext Values).
  const peek = (asValue = true): Token => asWord(tokens[at]!, asValue);
  const next = (asValue = true): Token => asWord(tokens[at++]!, asValue);

  const requirements: LabelRequirement[] = [];
  for (;;) {
    const token = peek();
    if (token.kind === 'end') break;
    if (token.kind !== 'id' && token.kind !== '!') throw new Error(`found '${token.text}', expected: !, identifier, or 'end of string'`);
    requirements.push(parseRequirement());
    const after = next();
    if (after.kind === 'end') break;
    if (after.kind !== ',') throw new Error(`found '${after.text}', expected: ',' or 'end of string'`);
    const following = peek();
    if (following.kind !== 'id' && following.kind !== '!') throw new Error(`found '${following.text}', expected: identifier after ','`);
  }
  return requirements;

  function parseRequirement(): LabelRequirement {
    let negated = false;
    let keyToken = next();
    if (keyToken.kind === '!') {
      negated = true;
      keyToken = next();
    }
    if (keyToken.kind !== 'id') throw new Error(`found '${keyToken.text}', expected: identifier`);
    const key = keyToken.text;
    const keyProblem = qualifiedNameProblem(key);
    if (keyProblem) throw new Error(`key ${JSON.stringify(key)}: ${keyProblem}`);
    if (negated) return { key, operator: '!', values: [] };
    const lookahead = peek();
    if (lookahead.kind === 'end' || lookahead.kind === ',') return { key, operator: 'exists', values: [] };

    const opToken = next(false);
    const operators: Partial<Record<TokenKind, SelectorOperator>> = {
      in: 'in',
      notin: 'notin',
      '=': '=',
      '==': '==',
      '!=': '!=',
      '>': 'gt',
      '<': 'lt',
    };
    const operator = operators[opToken.kind];
    if (operator === undefined) throw new Error(`found '${opToken.text}', expected: in, notin, =, ==, !=, gt, lt`);
    const values = operator === 'in' || operator === 'notin' ? parseValueSet() : [parseExactValue()];
    for (const value of values) {
      const problem = labelValueProblem(value);
      if (problem) throw new Error(`value ${JSON.stringify(value)} for key ${JSON.stringify(key)}: ${problem}`);
    }
    if ((operator === 'gt' || operator === 'lt') && parseInt64(values[0]!) === undefined) {
      throw new Error(`for 'Gt', 'Lt' operators, the value must be an integer, got ${JSON.stringify(values[0])}`);
    }
    return { key, operator, values };
  }

  function parseValueSet(): string[] {
    const open = next();
    if (open.kind !== '(') throw new Error(`found '${open.text}' expected: '('`);
    const first = peek();
    if (first.kind === ')') {
      next();
      return [''];
    }
    if (first.kind !== 'id' && first.kind !== ',') throw new Error(`found '${first.text}', expected: ',', ')' or identifier`);
    const values = new Set<string>();
    for (;;) {
      const token = next();
      if (token.kind === 'id') {
        values.add(token.text);
        const after = peek();
        if (after.kind === ')') break;
        if (after.kind !== ',') throw new Error(`found '${after.text}', expected: ',' or ')'`);
      } else if (token.kind === ',') {
        // Empty entries, as in "(,a)" or "(a,,b)" or "(a,)", are the empty value.
        if (values.size === 0) values.add('');
        const after = peek();
        if (after.kind === ')') {
          values.add('');
          break;
        }
        if (after.kind === ',') {
          next();
          values.add('');
        }
      } else {
        throw new Error(`found '${token.text}', expected: ',', or identifier`);
      }
    }
    const close = next();
    if (close.kind !== ')') throw new Error(`found '${close.text}', expected: ')'`);
    return [...values];
  }

  function parseExactValue(): string {
    const token = peek();
    if (token.kind === 'end' || token.kind === ',') return '';
    next();
    if (token.kind !== 'id') throw new Error(`found '${token.text}', expected: identifier`);
    return token.text;
  }
}

function asWord(token: Token, asValue: boolean): Token {
  return asValue && (token.kind === 'in' || token.kind === 'notin') ? { kind: 'id', text: token.text } : token;
}

/** Requirement.Matches for every requirement. */
export function matchesLabelSelector(requirements: readonly LabelRequirement[], labels: Record<string, string>): boolean {
  return requirements.every((r) => requirementMatches(r, labels));
}

function requirementMatches(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = has ? String(labels[r.key]) : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(value!);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(value!);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      const actual = has ? parseInt64(value!) : undefined;
      const bound = parseInt64(r.values[0]!);
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

/** strconv.ParseInt(s, 10, 64). */
function parseInt64(text: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const n = BigInt(text);
  return n >= -(1n << 63n) && n < 1n << 63n ? n : undefined;
}

// ---- metav1.LabelSelector --------------------------------------------------------------------

const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
const REQUIREMENT_OPERATORS: Record<LabelSelectorRequirement['operator'], SelectorOperator> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/** LabelSelectorAsSelector: matchLabels as `key=value`, then every expression. */
export function selectorRequirements(selector: LabelSelector): LabelRequirement[] {
  const requirements: LabelRequirement[] = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({
    key,
    operator: '=',
    values: [value],
  }));
  for (const { key, operator, values = [] } of selector.matchExpressions ?? [])
    requirements.push({ key, operator: REQUIREMENT_OPERATORS[operator], values });
  return requirements;
}

/** True when the labels satisfy the selector; an empty selector matches everything. */
export function matchesSelector(labels: Record<string, string>, selector: LabelSelector): boolean {
  return matchesLabelSelector(selectorRequirements(selector), labels);
}

/** What is wrong with a selector, one sentence each; empty when it is valid. */
export function selectorProblems(selector: LabelSelector): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (!isValidLabelKey(key)) problems.push(`matchLabels key "${key}" is not a valid label key`);
    if (!isValidLabelValue(value)) problems.push(`matchLabels value "${value}" of "${key}" is not a valid label value`);
  }
  (selector.matchExpressions ?? []).forEach((requirement, index) => {
    const where = `matchExpressions[${index}]`;
    if (!isValidLabelKey(requirement.key)) problems.push(`${where}: key "${requirement.key}" is not a valid label key`);
    if (!(OPERATORS as readonly string[]).includes(requirement.operator)) {
      problems.push(`${where}: operator "${requirement.operator}" is not one of ${OPERATORS.join(', ')}`);
      return;
    }
    const values = requirement.values ?? [];
    const needsValues = requirement.operator === 'In' || requirement.operator === 'NotIn';
    if (needsValues && values.length === 0) problems.push(`${where}: operator ${requirement.operator} needs at least one value`);
    if (!needsValues && values.length > 0) problems.push(`${where}: operator ${requirement.operator} takes no values`);
    for (const value of values) {
      if (!isValidLabelValue(value)) problems.push(`${where}: value "${value}" is not a valid label value`);
    }
  });
  return problems;
}

/** The selector in kubectl's `-l` syntax (`a=b,c in (x,y),!d`), requirements sorted by key. */
export function formatSelector(selector: LabelSelector): string {
  const parts: { key: string; text: string }[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) parts.push({ key, text: `${key}=${value}` });
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const list = [...values].sort(compareStrings).join(',');
    const text =
      operator === 'In' ? `${key} in (${list})` : operator === 'NotIn' ? `${key} notin (${list})` : operator === 'Exists' ? key : `!${key}`;
    parts.push({ key, text });
  }
  if (parts.length === 0) return '<everything>';
  return parts
    .sort((a, b) => compareStrings(a.key, b.key) || compareStrings(a.text, b.text))
    .map((part) => part.text)
    .join(',');
}

function compareRequirements(a: LabelSelectorRequirement, b: LabelSelectorRequirement): number {
  return (
    compareStrings(a.key, b.key) ||
    compareStrings(a.operator, b.operator) ||
    compareStrings((a.values ?? []).join('\0'), (b.values ?? []).join('\0'))
  );
}

/**
 * A selector in one spelling for each meaning the API server gives it: matchLabels keys
 * sorted; expression values sorted and deduplicated (they are sets); expressions sorted and
 * deduplicated (they are ANDed); empty parts left out. Different selectors that happen to
 * select the same objects (`matchLabels {a: b}` and `a In (b)`) stay different: a change of
 * spelling re-resolves, which is safe.
 */
export function canonicalSelector(selector: LabelSelector): LabelSelector {
  const canonical: LabelSelector = {};
  const labels = Object.keys(selector.matchLabels ?? {}).sort(compareStrings);
  if (labels.length > 0) canonical.matchLabels = Object.fromEntries(labels.map((key) => [key, selector.matchLabels![key]]));
  const expressions = (selector.matchExpressions ?? [])
    .map((requirement): LabelSelectorRequirement => {
      const values = [...new Set(requirement.values ?? [])].sort(compareStrings);
      return values.length > 0
        ? { key: requirement.key, operator: requirement.operator, values }
        : { key: requirement.key, operator: requirement.operator };
    })
    .sort(compareRequirements)
    .filter((requirement, index, sorted) => index === 0 || compareRequirements(sorted[index - 1], requirement) !== 0);
  if (expressions.length > 0) canonical.matchExpressions = expressions;
  return canonical;
}
