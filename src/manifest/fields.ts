import { compareStrings } from '../core/diagnostics.js';
import { isPlainObject } from '../core/kobject.js';
import { ownValue } from '../core/own-keys.js';
import type { SourcePosition } from './types.js';
import type { FieldPath } from './yaml-source.js';

/** The value at `path` (an index in a list, an own key of a map); undefined where the path leads nowhere. */
export function valueAt(root: unknown, path: FieldPath): unknown {
  let at = root;
  for (const segment of path) {
    if (typeof segment === 'number' ? !Array.isArray(at) : !isPlainObject(at)) return undefined;
    at = ownValue(at as object, segment);
  }
  return at;
}

const PLAIN_SEGMENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `spec.manager.maxConcurrentReconciles`, `spec.deployment.containers[0].args["--v"]`:
 * identifiers joined by dots, indexes and other keys in brackets.
 */
export function formatFieldPath(path: FieldPath): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (PLAIN_SEGMENT.test(segment)) text += text === '' ? segment : `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}

/** `file:line:column`, as messages name another place. */
export function formatPosition(position: SourcePosition): string {
  return `${position.file}:${position.line}:${position.column}`;
}

/** Optimal string alignment distance: edits, where swapping two adjacent letters is one edit. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The known name a misspelt one most likely meant: same letters ignoring case, or within
 * a third of its length in edits (at least one). Ties go to the first in code-unit order.
 */
export function closestName(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of [...candidates].sort(compareStrings)) {
    const other = candidate.toLowerCase();
    if (other === lower) return candidate;
    const limit = Math.max(1, Math.floor(Math.max(word.length, candidate.length) / 3));
    // the distance is at least the difference in length: no table for a name out of reach (a 1 MB value)
    if (Math.abs(lower.length - other.length) > limit) continue;
    const distance = editDistance(lower, other);
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
