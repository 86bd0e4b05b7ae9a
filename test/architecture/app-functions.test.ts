/**
 * app/ is the composer a newcomer reads top to bottom: no function there runs over 80 lines
 * (issue 23). A longer one is a sign that a stage's work crept into the composition.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../helpers/paths.js';

const APP = path.join(PROJECT_ROOT, 'src', 'app');
const MAX_LINES = 80;

/** Every function of a file longer than `max` lines, as `file:line name (n lines)`. */
function longFunctions(file: string, text: string, max: number): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) &&
      node.body
    ) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const lines = source.getLineAndCharacterOfPosition(node.getEnd()).line - first + 1;
      const name = 'name' in node && node.name ? node.name.getText(source) : '(anonymous)';
      if (lines > max) found.push(`${path.basename(file)}:${first + 1} ${name} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test(`no function in src/app/ is longer than ${MAX_LINES} lines`, () => {
  const files = fs.readdirSync(APP).filter((f) => f.endsWith('.ts'));
  assert.ok(files.length > 5, `read ${files.length} modules`);
  assert.deepEqual(
    files.flatMap((f) => longFunctions(f, fs.readFileSync(path.join(APP, f), 'utf8'), MAX_LINES)),
    [],
  );
});

test('the check finds a long function', () => {
  const body = Array.from({ length: 5 }, (_, i) => `  const v${i} = ${i};`).join('\n');
  assert.deepEqual(longFunctions('x.ts', `function long() {\n${body}\n}\n`, 4), ['x.ts:1 long (7 lines)']);
});
