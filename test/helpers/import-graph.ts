/** The import graph of src/, for the architecture test (test/architecture/import-graph.test.ts). */
import fs from 'node:fs';
import path from 'node:path';
import type ts from 'typescript';
import { compareStrings } from '../../src/core/diagnostics.js';

export interface StageOrder {
  order: string[];
}

/** Module (a path relative to `root`, `/`-separated) → the modules it imports, from every relative import. */
export function importGraph(root: string, typescript: typeof ts): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith('.ts')) {
        const { importedFiles } = typescript.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
        const targets = importedFiles
          .map((i) => i.fileName)
          .filter((name) => name.startsWith('.'))
          .map((name) =>
            path
              .relative(root, path.resolve(path.dirname(file), name))
              .replace(/\.js$/, '.ts')
              .split(path.sep)
              .join('/'),
          )
          .filter((target) => !target.endsWith('.json') && !target.endsWith('.cjs'));
        graph.set(path.relative(root, file).split(path.sep).join('/'), [...new Set(targets)].sort(compareStrings));
      }
    }
  };
  walk(root);
  return graph;
}

/** The stage a module belongs to: its top folder, or the file itself at the top level. */
export function stageOf(module: string): string {
  return module.split('/')[0]!;
}

/** Imports from a stage after the importer's, as `from -> to (why)`. */
export function backwardEdges(graph: ReadonlyMap<string, readonly string[]>, order: readonly string[]): string[] {
  const problems: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const [a, b] = [stageOf(from), stageOf(to)];
      if (a === b) continue;
      if (!order.includes(a) || !order.includes(b))
        problems.push(`${from} -> ${to} (${order.includes(a) ? b : a} is not in the stage order)`);
      else if (order.indexOf(b) > order.indexOf(a)) problems.push(`${from} -> ${to} (${a} comes before ${b})`);
    }
  }
  return problems.sort(compareStrings);
}

/** Every set of modules that import each other, directly or through others (Tarjan's strongly connected components). */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const members: string[] = [];
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      onStack.delete(member);
      members.push(member);
      if (member === node) break;
    }
    if (members.length > 1) cycles.push(members.sort(compareStrings).join(', '));
  };
  for (const node of [...graph.keys()].sort(compareStrings)) if (!index.has(node)) visit(node);
  return cycles.sort(compareStrings);
}
