/**
 * The architecture rule, checked on the real source: no module imports from a stage after its
 * own (the order is data, src/stage-order.json), and no import cycle between modules. Imports are
 * read with TypeScript's own pre-processor, so `import type`, re-exports and dynamic `import()`
 * all count: a type-only import from a later stage is a backward dependency too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { importGraph, backwardEdges, importCycles, type StageOrder } from '../helpers/import-graph.js';

const SRC = path.join(PROJECT_ROOT, 'src');
const order = (JSON.parse(fs.readFileSync(path.join(SRC, 'stage-order.json'), 'utf8')) as StageOrder).order;

test('every folder and top-level file of src/ has a place in the stage order', () => {
  const units = fs
    .readdirSync(SRC, { withFileTypes: true })
    .filter((e) => e.isDirectory() || e.name.endsWith('.ts'))
    .map((e) => e.name);
  assert.deepEqual(
    units.filter((u) => !order.includes(u)),
    [],
    'add the new folder or file to src/stage-order.json',
  );
  assert.deepEqual(
    order.filter((u) => !units.includes(u)),
    [],
    'src/stage-order.json names something that does not exist',
  );
});

test('no module imports from a later stage', () => {
  const graph = importGraph(SRC, ts);
  assert.ok(graph.size > 100, `read ${graph.size} modules`);
  assert.deepEqual(backwardEdges(graph, order), []);
});

test('no import cycle between modules', () => {
  assert.deepEqual(importCycles(importGraph(SRC, ts)), []);
});

test('the checks find a backward edge and a cycle when there is one', () => {
  const graph = new Map([
    ['model/a.ts', ['render/b.ts']],
    ['render/b.ts', ['render/c.ts', 'model/a.ts']],
    ['render/c.ts', ['render/b.ts']],
  ]);
  assert.deepEqual(backwardEdges(graph, ['model', 'render']), ['model/a.ts -> render/b.ts (model comes before render)']);
  assert.deepEqual(importCycles(graph), ['model/a.ts, render/b.ts, render/c.ts']);
});
