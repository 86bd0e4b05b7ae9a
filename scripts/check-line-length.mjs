// The 140-column limit of `npm run lint`. Prettier wraps code at that width but not comments or long
// names, and oxlint does not implement ESLint's max-len, so this script keeps the rule the project
// had: a line over 140 columns fails unless it holds a string, template or regular expression
// literal or a URL (max-len with ignoreStrings, ignoreTemplateLiterals, ignoreRegExpLiterals and
// ignoreUrls). TypeScript's own parser finds the literals, so an apostrophe in a comment is no string.
import { readFileSync } from 'node:fs';
import fg from 'fast-glob';

const MAX = 140;
const roots = process.argv.slice(2);
const files = await fg(
  roots.map((root) => `${root}/**/*.{ts,mjs,js}`),
  { ignore: ['**/node_modules/**', '**/dist/**'] },
);

/** The 0-based lines that a literal covers: those max-len ignores. */
function literalLines(ts, source) {
  const lines = new Set();
  const visit = (node) => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateExpression(node) ||
      ts.isRegularExpressionLiteral(node)
    ) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      for (let line = first; line <= last; line++) lines.add(line);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

const problems = [];
/** Loaded only when a long line needs it: the parser takes longer to load than the scan. */
let ts;
for (const file of files.sort()) {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const long = lines.flatMap((line, i) => ([...line].length > MAX && !/[a-z][a-z0-9+.-]*:\/\//i.test(line) ? [i] : []));
  if (long.length === 0) continue;
  ts ??= (await import('typescript')).default;
  const exempt = literalLines(ts, ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
  for (const i of long) {
    if (!exempt.has(i)) problems.push(`${file}:${i + 1}:${MAX + 1}: line is ${[...lines[i]].length} columns, at most ${MAX}`);
  }
}
for (const problem of problems) console.error(problem);
if (problems.length > 0) {
  console.error(`${problems.length} line(s) over ${MAX} columns: shorten or wrap them (the formatter does not wrap comments)`);
  process.exit(1);
}
